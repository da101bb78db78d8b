"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/DynamicBrokerConfig.scala

Classes: DynamicBrokerConfig, BrokerReconfigurable, DynamicLogConfig. Function: dynamic_config_of(config).

Broker configs that change while the broker runs (S24, KIP-226). A broker's effective config is
its ``server.properties`` (static), overridden by the cluster-wide default kept in ZooKeeper at
``/config/brokers/<default>``, overridden by its own entry ``/config/brokers/<id>``. An admin
client writes those znodes through IncrementalAlterConfigs / AlterConfigs on a BROKER resource
(``KafkaApis`` → ``AdminManager``), plus a change notification; every broker's DynamicConfigManager
sees the notification and calls ``update_broker_config`` / ``update_default_config`` here, which
rebuilds the KafkaConfig and calls ``reconfigure(old, new)`` on each registered component whose
keys changed -- for the connection quotas that is ``SocketServer.reconfigure`` → ConnectionQuotas.

Dynamic keys kafkalite supports: ``max.connections``, ``max.connections.per.ip``,
``max.connections.per.ip.overrides`` (SocketServer.ReconfigurableConfigs) and the broker-wide log
defaults of DynamicLogConfig (``log.segment.bytes``, ``log.retention.ms``, ...), which become the new
defaults of every log without a topic override; and DynamicConfig.Broker's keys, which exist only as
dynamic configs: the replication quotas' rates ``leader.replication.throttled.rate``,
``follower.replication.throttled.rate`` and ``replica.alter.log.dirs.io.max.bytes.per.second`` (longs, at
least 0; BrokerConfigHandler hands a broker's own values to its ReplicationQuotaManagers -- as in Kafka 2.4,
a value in ``/config/brokers/<default>`` is accepted and stored but sets no rate).
Left out: listener and SSL/SASL reconfiguration, thread-pool resizing, password encryption,
per-listener prefixed keys, the "dynamic config is not valid on this broker" warnings.
"""
from __future__ import annotations

import threading

from kafkalite.common.config.config_def import Range, parse_type
from kafkalite.common.config.config_exception import ConfigException
from kafkalite.server.kafka_config import CONFIG_DEF, LONG, KafkaConfig
from kafkalite.utils.logging import Logging

DEFAULT_ENTITY = "<default>"   # Kafka: ConfigEntityName.Default

# Kafka: SocketServer.ReconfigurableConfigs
SOCKET_SERVER_RECONFIGURABLE_CONFIGS = frozenset({"max.connections", "max.connections.per.ip",
                                                  "max.connections.per.ip.overrides"})
# Kafka: DynamicLogConfig.ReconfigurableConfigs (the broker keys that are topic-level defaults)
LOG_RECONFIGURABLE_CONFIGS = frozenset({
    "log.segment.bytes", "log.roll.ms", "log.roll.hours", "log.retention.ms", "log.retention.minutes",
    "log.retention.hours", "log.retention.bytes", "log.index.size.max.bytes", "log.index.interval.bytes",
    "log.flush.interval.messages", "log.flush.interval.ms", "log.segment.delete.delay.ms", "log.cleanup.policy",
    "log.message.timestamp.type", "log.message.timestamp.difference.max.ms", "log.preallocate",
    "message.max.bytes", "min.insync.replicas", "compression.type", "unclean.leader.election.enable"})
# Kafka: DynamicConfig.Broker -- the keys that are only ever dynamic (no KafkaConfig counterpart)
LEADER_REPLICATION_THROTTLED_RATE_PROP = "leader.replication.throttled.rate"
FOLLOWER_REPLICATION_THROTTLED_RATE_PROP = "follower.replication.throttled.rate"
REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND_PROP = "replica.alter.log.dirs.io.max.bytes.per.second"
DEFAULT_REPLICATION_THROTTLED_RATE = 2 ** 63 - 1   # Kafka: ReplicationQuotaManagerConfig.QuotaBytesPerSecondDefault
DYNAMIC_CONFIG_BROKER_PROPS = frozenset({
    LEADER_REPLICATION_THROTTLED_RATE_PROP, FOLLOWER_REPLICATION_THROTTLED_RATE_PROP,
    REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND_PROP})
ALL_DYNAMIC_CONFIGS = SOCKET_SERVER_RECONFIGURABLE_CONFIGS | LOG_RECONFIGURABLE_CONFIGS | DYNAMIC_CONFIG_BROKER_PROPS


# Kafka: DynamicConfig.Broker.validate -- its keys are LONGs, atLeast(0) ("Value must be at least 0")
def validate_dynamic_config_broker(props: dict) -> None:
    for key in sorted(DYNAMIC_CONFIG_BROKER_PROPS & set(props)):
        Range.at_least(0)(key, parse_type(key, props[key], LONG))


# Kafka: DynamicBrokerConfig.validateConfigTypes -- each value parsed and checked as KafkaConfig's table says
# (DynamicConfig.Broker's ConfigDef is KafkaConfig's plus the three replication rates)
def validate_config_types(props: dict) -> None:
    validate_dynamic_config_broker(props)
    for key in sorted(set(props) & set(CONFIG_DEF)):
        type_, _default, validator = CONFIG_DEF[key]
        value = parse_type(key, props[key], type_)
        if validator is not None and value is not None:
            validator(key, value)


class BrokerReconfigurable:
    """Kafka: BrokerReconfigurable -- a component that takes some config changes at runtime."""

    reconfigurable_configs: frozenset = frozenset()

    def validate_reconfiguration(self, new_config) -> None:
        pass

    def reconfigure(self, old_config, new_config) -> None:
        raise NotImplementedError


class DynamicLogConfig(BrokerReconfigurable):
    """Kafka: DynamicLogConfig(logManager, server) -- new broker-wide log defaults for every log."""

    reconfigurable_configs = LOG_RECONFIGURABLE_CONFIGS

    def __init__(self, log_manager, server):
        self.log_manager = log_manager
        self.server = server

    # Kafka: DynamicLogConfig.reconfigure -- server.config already holds the new values here; a default of
    # unclean.leader.election.enable turned on makes the controller retry every offline partition
    def reconfigure(self, old_config, new_config) -> None:
        unclean_before = self.log_manager.current_default_config.unclean_leader_election_enable
        self.log_manager.reconfigure_default_log_config(self.server.default_log_config())
        if self.log_manager.current_default_config.unclean_leader_election_enable and not unclean_before \
                and getattr(self.server, "kafka_controller", None) is not None:
            self.server.kafka_controller.enable_default_unclean_leader_election()


class DynamicBrokerConfig(Logging):
    """Kafka: DynamicBrokerConfig(kafkaConfig)."""

    def __init__(self, kafka_config):
        self.kafka_config = kafka_config
        self.static_broker_configs = dict(kafka_config.originals)
        self.dynamic_broker_configs: dict[str, str] = {}
        self.dynamic_default_configs: dict[str, str] = {}
        self.reconfigurables: list[BrokerReconfigurable] = []
        self._lock = threading.RLock()
        self.log_ident = f"[DynamicBrokerConfig brokerId={kafka_config.broker_id}] "

    # Kafka: DynamicBrokerConfig.initialize -- read the stored overrides once, at start-up
    def initialize(self, zk_client) -> None:
        with self._lock:
            self.dynamic_default_configs = self._dynamic_only(zk_client.get_entity_configs("brokers", DEFAULT_ENTITY),
                                                              per_broker_config=False)
            self.dynamic_broker_configs = self._dynamic_only(
                zk_client.get_entity_configs("brokers", str(self.kafka_config.broker_id)))
            self.update_current_config()

    # Kafka: DynamicBrokerConfig.fromPersistentProps -- the stored keys kafkalite can apply, the invalid ones out
    def _dynamic_only(self, props: dict, per_broker_config: bool = True) -> dict:
        unknown = set(props) - ALL_DYNAMIC_CONFIGS
        if unknown:
            self.warn(f"Ignoring stored dynamic configs kafkalite cannot apply: {sorted(unknown)}")
        return self._remove_invalid_configs({k: v for k, v in props.items() if k in ALL_DYNAMIC_CONFIGS},
                                            per_broker_config)

    # Kafka: DynamicBrokerConfig.removeInvalidConfigs -- a stored value that no longer parses (written past
    # the broker, or by an older one) is dropped alone, with an error; the others still apply
    def _remove_invalid_configs(self, props: dict, per_broker_config: bool) -> dict:
        try:
            validate_config_types(props)
            return props
        except ConfigException as e:
            invalid = {}
            for key, value in props.items():
                try:
                    validate_config_types({key: value})
                except ConfigException:
                    invalid[key] = value
            source = "broker" if per_broker_config else "default cluster"
            self.error(f"Dynamic {source} config contains invalid values: {invalid}, these configs will be "
                       f"ignored ({e})")
            return {k: v for k, v in props.items() if k not in invalid}

    # Kafka: DynamicBrokerConfig.addReconfigurable
    def add_reconfigurable(self, reconfigurable) -> None:
        with self._lock:
            self.reconfigurables.append(reconfigurable)

    def remove_reconfigurable(self, reconfigurable) -> None:
        with self._lock:
            if reconfigurable in self.reconfigurables:
                self.reconfigurables.remove(reconfigurable)

    # Kafka: DynamicBrokerConfig.validate -- the keys must be dynamic and the result a valid config
    def validate(self, props: dict, per_broker_config: bool) -> None:
        not_dynamic = sorted(set(props) - ALL_DYNAMIC_CONFIGS)
        if not_dynamic:
            raise ConfigException(f"Cannot update these configs dynamically: {set(not_dynamic)}")
        validate_config_types(props)   # Kafka: validateConfigTypes
        with self._lock:
            default = dict(self.dynamic_default_configs) if per_broker_config else dict(props)
            broker = dict(props) if per_broker_config else dict(self.dynamic_broker_configs)
            new_config = KafkaConfig(self._merged(default, broker), do_log=False)
            for r in self.reconfigurables:
                r.validate_reconfiguration(new_config)

    def _merged(self, default: dict, broker: dict) -> dict:
        return {**self.static_broker_configs, **default, **broker}

    # Kafka: DynamicBrokerConfig.updateBrokerConfig
    def update_broker_config(self, broker_id: int, persistent_props: dict) -> None:
        with self._lock:
            self.dynamic_broker_configs = self._dynamic_only(persistent_props)
            self.update_current_config()

    # Kafka: DynamicBrokerConfig.updateDefaultConfig
    def update_default_config(self, persistent_props: dict) -> None:
        with self._lock:
            self.dynamic_default_configs = self._dynamic_only(persistent_props, per_broker_config=False)
            self.update_current_config()

    # Kafka: DynamicBrokerConfig.updateCurrentConfig -- rebuild, then tell whoever's keys changed
    def update_current_config(self) -> None:
        merged = self._merged(self.dynamic_default_configs, self.dynamic_broker_configs)
        try:
            new_config = KafkaConfig(merged, do_log=False)
        except ConfigException as e:
            self.error(f"Failed to update broker configuration with configs {merged}: {e}")
            return
        old_values = dict(self.kafka_config.values)
        changed = {k for k, v in new_config.values.items() if old_values.get(k) != v}
        if not changed:
            return
        for name, value in vars(new_config).items():   # the same KafkaConfig object, with new values
            if name != "originals":
                setattr(self.kafka_config, name, value)
        self.info(f"Updated broker configs: {sorted(changed)}")
        for r in list(self.reconfigurables):
            if changed & set(r.reconfigurable_configs):
                try:
                    r.reconfigure(None, self.kafka_config)
                except Exception as e:  # noqa: BLE001 -- one component failing must not stop the others
                    self.error(f"Failed to reconfigure {type(r).__name__}: {e}", exc_info=True)

    def config_source(self, key: str) -> str:
        """For DescribeConfigs: where the current value of ``key`` comes from."""
        if key in self.dynamic_broker_configs:
            return "DYNAMIC_BROKER_CONFIG"
        if key in self.dynamic_default_configs:
            return "DYNAMIC_DEFAULT_BROKER_CONFIG"
        return "STATIC_BROKER_CONFIG" if key in self.static_broker_configs else "DEFAULT_CONFIG"


_create_lock = threading.Lock()


# Kafka: DynamicBrokerConfig.brokerConfigSynonyms -- keys that set the same thing, most specific first
BROKER_CONFIG_SYNONYMS = {
    "log.retention.ms": ("log.retention.ms", "log.retention.minutes", "log.retention.hours"),
    "log.roll.ms": ("log.roll.ms", "log.roll.hours"),
    "log.roll.jitter.ms": ("log.roll.jitter.ms", "log.roll.jitter.hours"),
    "log.flush.interval.ms": ("log.flush.interval.ms", "log.flush.scheduler.interval.ms"),
}


def dynamic_config_of(config) -> DynamicBrokerConfig:
    """Kafka: KafkaConfig.dynamicConfig -- made on first use and kept on the KafkaConfig."""
    dynamic = getattr(config, "dynamic_config", None)
    if dynamic is None:
        with _create_lock:
            dynamic = getattr(config, "dynamic_config", None)
            if dynamic is None:
                dynamic = config.dynamic_config = DynamicBrokerConfig(config)
    return dynamic

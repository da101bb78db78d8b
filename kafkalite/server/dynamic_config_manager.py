"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/DynamicConfigManager.scala
(with ConfigHandler.scala's TopicConfigHandler and BrokerConfigHandler, and the part of
common/ZkNodeChangeNotificationListener.scala it uses)

Classes: ConfigHandler, TopicConfigHandler, BrokerConfigHandler, QuotaConfigHandler, ClientIdConfigHandler,
UserConfigHandler, DynamicConfigManager.

Whoever changes an entity's config in ZooKeeper (``/config/topics/<t>``, ``/config/brokers/<id>``,
``/config/brokers/<default>``) also creates a sequential znode ``/config/changes/config_change_<n>``
holding ``{"version":2,"entity_path":"topics/<t>"}``. Every broker watches ``/config/changes``; on a
change its event thread ("/config/changes-event-process-thread") reads the notifications newer than
the last one it processed, reads the entity's whole config and hands it to the handler of the
entity type: TopicConfigHandler → ``LogManager.update_topic_config`` and the topic's throttled replicas
(``leader.replication.throttled.replicas`` / ``follower.replication.throttled.replicas``, this broker's
entries) into the leader / follower ReplicationQuotaManagers; BrokerConfigHandler →
``DynamicBrokerConfig.update_broker_config`` / ``update_default_config``, and for this broker's own entity
the replication rates into the three ReplicationQuotaManagers; UserConfigHandler → the SCRAM
credentials of ``/config/users/<user>`` into the CredentialCache (every user's at startup, too), and with
ClientIdConfigHandler the client quotas of ``/config/users/<user>[/clients/<client-id>]`` and
``/config/clients/<client-id>`` into the QuotaManagers (QuotaConfigHandler; all of them at startup too).
At startup every stored entity config of every type goes through its handler once (Kafka's
``fetchAllEntityConfigs``), so the rates and throttled replicas hold from the start.

Left out: purging notifications older than 15 minutes, version-1
notifications.
"""
from __future__ import annotations

import queue
import threading

from kafkalite.common.metrics.metrics import Quota
from kafkalite.log.log_config import ensure_valid_throttled_replica_list
from kafkalite.server.dynamic_broker_config import (
    DEFAULT_ENTITY, DEFAULT_REPLICATION_THROTTLED_RATE, FOLLOWER_REPLICATION_THROTTLED_RATE_PROP,
    LEADER_REPLICATION_THROTTLED_RATE_PROP, REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND_PROP,
)
from kafkalite.server.replication_quota_manager import ALL_REPLICAS
from kafkalite.utils.logging import Logging
from kafkalite.zk.zk_data import ConfigEntityChangeNotificationSequenceZNode, ConfigEntityChangeNotificationZNode
from kafkalite.zookeeper.zoo_keeper_client import ZNodeChildChangeHandler

SEQUENCE_PREFIX = ConfigEntityChangeNotificationSequenceZNode.SEQUENCE_NUMBER_PREFIX


class ConfigHandler:
    """Kafka: ConfigHandler -- applies one entity's new config."""

    def process_config_changes(self, entity_name: str, value: dict) -> None:
        raise NotImplementedError


class TopicConfigHandler(ConfigHandler, Logging):
    """Kafka: TopicConfigHandler(logManager, kafkaConfig, quotas, kafkaController)."""

    def __init__(self, log_manager, kafka_controller=None, kafka_config=None, quotas=None):
        self.log_manager = log_manager
        self.kafka_controller = kafka_controller
        self.kafka_config = kafka_config
        self.quotas = quotas

    # Kafka: TopicConfigHandler.processConfigChanges -- the new log config, the throttled replicas; an override
    # of unclean.leader.election.enable=true also asks the (active) controller to retry the topic's offline
    # partitions
    def process_config_changes(self, topic: str, topic_config: dict) -> None:
        self.info(f"Processing override for entityPath: topics/{topic} with config: {topic_config}")
        self.log_manager.update_topic_config(topic, topic_config)
        self.update_throttled_lists(topic, topic_config)
        if self.kafka_controller is not None and \
                str(topic_config.get("unclean.leader.election.enable", "")).strip().lower() == "true":
            self.kafka_controller.enable_topic_unclean_leader_election(topic)

    # Kafka: TopicConfigHandler.processConfigChanges (its two updateThrottledList calls)
    def update_throttled_lists(self, topic: str, topic_config: dict) -> None:
        if self.quotas is not None:
            self.update_throttled_list(topic, topic_config, "leader.replication.throttled.replicas",
                                       self.quotas.leader)
            self.update_throttled_list(topic, topic_config, "follower.replication.throttled.replicas",
                                       self.quotas.follower)

    # Kafka: TopicConfigHandler.updateThrottledList -- a non-empty list marks this broker's replicas of the
    # topic throttled, no list (or an empty one) removes the topic's throttle
    def update_throttled_list(self, topic: str, topic_config: dict, prop: str, quota_manager) -> None:
        if str(topic_config.get(prop, "")):
            partitions = self.parse_throttled_partitions(topic_config, self.kafka_config.broker_id, prop)
            quota_manager.mark_throttled(topic, partitions)
            self.debug(f"Setting {prop} on broker {self.kafka_config.broker_id} for topic: {topic} and partitions "
                       f"{partitions}")
        else:
            quota_manager.remove_throttle(topic)
            self.debug(f"Removing {prop} from broker {self.kafka_config.broker_id} for topic {topic}")

    # Kafka: TopicConfigHandler.parseThrottledPartitions -- "*" is every replica; else the partition ids of the
    # "partition:broker" entries naming this broker (an entry that is not one, e.g. empty, is skipped where
    # Kafka's parse would fail)
    @staticmethod
    def parse_throttled_partitions(topic_config: dict, broker_id: int, prop: str):
        config_value = str(topic_config[prop]).strip()
        ensure_valid_throttled_replica_list(prop, [v.strip() for v in config_value.split(",")])
        if config_value == "":
            return ()
        if config_value == "*":
            return ALL_REPLICAS
        partitions = []
        for entry in config_value.split(","):
            parts = entry.strip().split(":")
            if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit() and int(parts[1]) == broker_id:
                partitions.append(int(parts[0]))
        return tuple(partitions)


class BrokerConfigHandler(ConfigHandler, Logging):
    """Kafka: BrokerConfigHandler(brokerConfig, quotaManagers)."""

    def __init__(self, broker_config, dynamic_config, quota_managers=None):
        self.broker_config = broker_config
        self.dynamic_config = dynamic_config
        self.quota_managers = quota_managers

    # Kafka: BrokerConfigHandler.processConfigChanges -- the default entity, or this broker's own; only the
    # broker's own entity sets the replication rates (a missing one: unlimited), as in Kafka 2.4
    def process_config_changes(self, broker_id: str, properties: dict) -> None:
        def get_or_default(prop: str) -> int:
            return int(properties[prop]) if prop in properties else DEFAULT_REPLICATION_THROTTLED_RATE

        if broker_id == DEFAULT_ENTITY:
            self.dynamic_config.update_default_config(properties)
        elif broker_id.strip() == str(self.broker_config.broker_id):
            self.dynamic_config.update_broker_config(self.broker_config.broker_id, properties)
            if self.quota_managers is not None:
                self.quota_managers.leader.update_quota(
                    Quota.upper_bound(get_or_default(LEADER_REPLICATION_THROTTLED_RATE_PROP)))
                self.quota_managers.follower.update_quota(
                    Quota.upper_bound(get_or_default(FOLLOWER_REPLICATION_THROTTLED_RATE_PROP)))
                self.quota_managers.alter_log_dirs.update_quota(
                    Quota.upper_bound(get_or_default(REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND_PROP)))


class QuotaConfigHandler:
    """Kafka: QuotaConfigHandler(quotaManagers) -- producer_byte_rate / consumer_byte_rate / request_percentage
    of one quota entity into the produce / fetch / request quota managers (a missing key removes the quota)."""

    def __init__(self, quota_managers):
        self.quota_managers = quota_managers

    # Kafka: QuotaConfigHandler.updateQuotaConfig
    def update_quota_config(self, sanitized_user: str | None, sanitized_client_id: str | None, config: dict) -> None:
        from kafkalite.server.user_scram_credentials_manager import desanitize
        if self.quota_managers is None:
            return
        client_id = None if sanitized_client_id is None else \
            sanitized_client_id if sanitized_client_id == DEFAULT_ENTITY else desanitize(sanitized_client_id)
        for key, manager, parse in (("producer_byte_rate", self.quota_managers.produce, int),
                                    ("consumer_byte_rate", self.quota_managers.fetch, int),
                                    ("request_percentage", self.quota_managers.request, float)):
            quota = Quota(float(parse(config[key])), True) if key in config else None
            manager.update_quota(sanitized_user, client_id, quota)


class ClientIdConfigHandler(QuotaConfigHandler, ConfigHandler):
    """Kafka: ClientIdConfigHandler(quotaManagers) -- /config/clients/<client-id>."""

    # Kafka: ClientIdConfigHandler.processConfigChanges
    def process_config_changes(self, sanitized_client_id: str, client_config: dict) -> None:
        self.update_quota_config(None, sanitized_client_id, client_config)


class UserConfigHandler(QuotaConfigHandler, ConfigHandler, Logging):
    """Kafka: UserConfigHandler(quotaManagers, credentialProvider) -- quotas of ``<user>`` and
    ``<user>/clients/<client-id>``, and a user's SCRAM credentials."""

    def __init__(self, quota_managers, credential_provider):
        super().__init__(quota_managers)
        self.credential_provider = credential_provider

    # Kafka: UserConfigHandler.processConfigChanges -- entity path <user> or <user>/clients/<client-id>
    def process_config_changes(self, quota_entity_path: str, config: dict) -> None:
        entities = quota_entity_path.split("/")
        if len(entities) not in (1, 3):
            raise ValueError(f"Invalid quota entity path: {quota_entity_path}")
        sanitized_user = entities[0]
        sanitized_client_id = entities[2] if len(entities) == 3 else None
        self.update_quota_config(sanitized_user, sanitized_client_id, config)
        if sanitized_client_id is None and sanitized_user != DEFAULT_ENTITY:
            from kafkalite.server.user_scram_credentials_manager import desanitize
            self.credential_provider.update_credentials(desanitize(sanitized_user), config)


class _ConfigChangeHandler(ZNodeChildChangeHandler):
    """Kafka: ZkNodeChangeNotificationListener.ChangeNotificationHandler."""

    def __init__(self, manager: "DynamicConfigManager"):
        self.path = ConfigEntityChangeNotificationZNode.path()
        self.manager = manager

    def handle_child_change(self) -> None:
        self.manager.queue.put("change")


class DynamicConfigManager(Logging):
    """Kafka: DynamicConfigManager(zkClient, configHandlers) -- its listener reads /config/changes."""

    def __init__(self, zk_client, config_handlers: dict[str, ConfigHandler]):
        self.zk_client = zk_client
        self.config_handlers = config_handlers
        self.last_executed_change = -1
        self.queue: queue.Queue = queue.Queue()
        self.handler = _ConfigChangeHandler(self)
        self.thread = threading.Thread(target=self._run, name=f"{self.handler.path}-event-process-thread", daemon=True)
        self._stopped = threading.Event()

    # Kafka: DynamicConfigManager.startup -> ZkNodeChangeNotificationListener.init
    def startup(self) -> None:
        self.zk_client.make_sure_persistent_path_exists(self.handler.path)
        self.zk_client.register_znode_child_change_handler(self.handler)
        # Kafka: "Apply all existing client/user configs ... to bootstrap the overrides" -- before any
        # connection authenticates, the credential cache holds every SCRAM user
        # (and every client/user quota, so quotas hold from the first request)
        user_handler = self.config_handlers.get("users")
        if user_handler is not None:
            for user in self.zk_client.get_all_entities_with_config("users"):
                user_handler.process_config_changes(user, self.zk_client.get_entity_configs("users", user))
            # Kafka: adminZkClient.fetchAllChildEntityConfigs(ConfigType.User, ConfigType.Client)
            for user in self.zk_client.get_all_entities_with_config("users"):
                for client in self.zk_client.get_all_entities_with_config(f"users/{user}/clients"):
                    path = f"{user}/clients/{client}"
                    user_handler.process_config_changes(path, self.zk_client.get_entity_configs("users", path))
        # Kafka: fetchAllEntityConfigs(Broker) -- this broker's replication rates
        broker_handler = self.config_handlers.get("brokers")
        if broker_handler is not None:
            for broker in self.zk_client.get_all_entities_with_config("brokers"):
                broker_handler.process_config_changes(broker, self.zk_client.get_entity_configs("brokers", broker))
        # Kafka: fetchAllEntityConfigs(Topic) -- the LogManager was given every topic's overrides at start-up
        # (KafkaServer.topic_configs) and its logs hold them already, so only the throttled replicas are new here
        topic_handler = self.config_handlers.get("topics")
        if topic_handler is not None:
            for topic, topic_config in list(topic_handler.log_manager.topic_configs.items()):
                topic_handler.update_throttled_lists(topic, topic_config)
        client_handler = self.config_handlers.get("clients")
        if client_handler is not None:
            for client in self.zk_client.get_all_entities_with_config("clients"):
                client_handler.process_config_changes(client, self.zk_client.get_entity_configs("clients", client))
        self.thread.start()
        self.queue.put("startup")   # process what is already there (and set the watch)

    def shutdown(self) -> None:
        self._stopped.set()
        self.queue.put(None)
        self.zk_client.unregister_znode_child_change_handler(self.handler.path)
        if self.thread.is_alive():
            self.thread.join(10)

    # Kafka: ChangeEventProcessThread.doWork
    def _run(self) -> None:
        while not self._stopped.is_set():
            item = self.queue.get()
            if item is None:
                return
            try:
                self.process_notifications()
            except Exception as e:  # noqa: BLE001 -- keep listening
                self.error(f"Error processing config change notifications: {e}", exc_info=True)

    # Kafka: ZkNodeChangeNotificationListener.processNotifications -- newest after the last one done
    def process_notifications(self) -> None:
        children = self.zk_client._get_children(self.handler.path)   # Kafka: zkClient.getChildren (watch set)
        for child in sorted(children):
            seq = int(child[len(SEQUENCE_PREFIX):])
            if seq <= self.last_executed_change:
                continue
            data, _ = self.zk_client.get_data_and_version(f"{self.handler.path}/{child}")
            if data is not None:
                # Kafka: ZkNodeChangeNotificationListener.processNotification -- a change that fails is logged
                # and passed over, so one bad value does not hold back every later change
                try:
                    self.process_entity_config_change(ConfigEntityChangeNotificationSequenceZNode.decode(data))
                except Exception as e:  # noqa: BLE001 -- Kafka: Try(...) match { case Failure(e) => error }
                    self.error(f"error processing change notification {data!r} from {self.handler.path}/{child}: "
                               f"{e!r}", exc_info=True)
            self.last_executed_change = seq

    # Kafka: ConfigChangedNotificationHandler.processEntityConfigChangeVersion2
    def process_entity_config_change(self, entity_path: str) -> None:
        entity_type, _, entity_name = entity_path.partition("/")
        handler = self.config_handlers.get(entity_type)
        if handler is None:
            self.debug(f"Ignoring config change of {entity_path}: no handler for {entity_type}")
            return
        handler.process_config_changes(entity_name, self.zk_client.get_entity_configs(entity_type, entity_name))

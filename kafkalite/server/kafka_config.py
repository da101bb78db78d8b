"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaConfig.scala
(with the parsing rules of clients/src/main/java/org/apache/kafka/common/config/ConfigDef.java)

Classes: Defaults, ConfigDef, KafkaConfig (ConfigException is kafkalite/common/config/config_exception.py).

``server.properties`` becomes a typed, validated KafkaConfig. Every key kafkalite knows is one
row of ``CONFIG_DEF`` (name, type, default, validator); all defaults live in ``Defaults``, as in
Kafka. A bad value stops start-up with one line in Kafka's words:
``Invalid value abc for configuration num.io.threads: Not a number of type INT``.
An unknown key is logged as a warning and ignored, as Kafka does.
The ssl.* keys are SslConfigs' rows (kafkalite/security/ssl/ssl_configs.py); any of them may be given per
listener as ``listener.name.<listener>.<key>`` (``values_with_prefix_override``), and every SSL listener's
key and trust stores are loaded at validation, so a bad store stops start-up with one line.
SASL keys: sasl.enabled.mechanisms, sasl.mechanism.inter.broker.protocol, connections.max.reauth.ms,
connection.failed.authentication.delay.ms, and per listener and mechanism the JAAS entry
``listener.name.<l>.<mechanism>.sasl.jaas.config``; each SASL listener's setup is checked at validation too.
Omitted: dynamic broker config (``DynamicBrokerConfig``) beyond the connection quotas.
"""
from __future__ import annotations

import logging
import uuid

from kafkalite.api.api_version import ensure_stored_format
from kafkalite.cluster.broker import EndPoint, EndPointParseError
from kafkalite.common.config.config_def import Range, ValidList, ValidString, parse_type
from kafkalite.common.config.config_exception import ConfigException
from kafkalite.security.ssl.ssl_configs import SSL_CONFIG_DEF

log = logging.getLogger("kafka.server.KafkaConfig")


class Defaults:
    """Kafka: object Defaults -- every default in one place."""

    BrokerId = -1
    BrokerIdGenerationEnable = True
    MaxReservedBrokerId = 1000
    Listeners = None          # Kafka 2.4: unset means PLAINTEXT://<host.name>:<port>
    Port = 9092
    HostName = ""
    ListenerSecurityProtocolMap = "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
    NumNetworkThreads = 3
    NumIoThreads = 8
    BackgroundThreads = 10
    QueuedMaxRequests = 500
    SocketSendBufferBytes = 100 * 1024
    SocketReceiveBufferBytes = 100 * 1024
    SocketRequestMaxBytes = 100 * 1024 * 1024
    MaxConnectionsPerIp = 2147483647
    MaxConnectionsPerIpOverrides = ""
    MaxConnections = 2147483647
    ConnectionsMaxIdleMs = 10 * 60 * 1000
    RequestTimeoutMs = 30000
    ZkConnect = ""
    ZkSessionTimeoutMs = 6000
    ZkConnectionTimeoutMs = None
    LogDir = "/tmp/kafka-logs"
    NumPartitions = 1
    DefaultReplicationFactor = 1
    AutoCreateTopicsEnable = True
    DeleteTopicEnable = True
    LogSegmentBytes = 1024 * 1024 * 1024
    LogRollHours = 24 * 7
    LogRetentionHours = 24 * 7
    LogRetentionBytes = -1
    LogCleanupIntervalMs = 5 * 60 * 1000
    LogInitialTaskDelayMs = 30 * 1000
    LogCleanupPolicy = "delete"
    LogIndexSizeMaxBytes = 10 * 1024 * 1024
    LogIndexIntervalBytes = 4096
    LogFlushIntervalMessages = 9223372036854775807
    LogFlushSchedulerIntervalMs = 9223372036854775807
    LogFlushOffsetCheckpointIntervalMs = 60000
    LogFlushStartOffsetCheckpointIntervalMs = 60000
    LogDeleteDelayMs = 60000
    LogMessageTimestampType = "CreateTime"
    LogMessageTimestampDifferenceMaxMs = 9223372036854775807
    LogPreAllocateEnable = False
    NumRecoveryThreadsPerDataDir = 1
    MessageMaxBytes = 1024 * 1024 + 12   # Kafka 3.x (2.4: 1000000 + Records.LOG_OVERHEAD); see the README era notes
    MinInSyncReplicas = 1
    UncleanLeaderElectionEnable = False
    CompressionType = "producer"
    ControllerSocketTimeoutMs = 30000
    ReplicaLagTimeMaxMs = 10000
    ReplicaFetchMaxBytes = 1024 * 1024
    ReplicaFetchResponseMaxBytes = 10 * 1024 * 1024
    ReplicaFetchWaitMaxMs = 500
    ReplicaFetchMinBytes = 1
    NumReplicaFetchers = 1
    ReplicaFetchBackoffMs = 1000
    ReplicaSocketTimeoutMs = 30000
    ReplicaHighWatermarkCheckpointIntervalMs = 5000
    FetchMaxBytes = 55 * 1024 * 1024
    FetchPurgatoryPurgeIntervalRequests = 1000
    ProducerPurgatoryPurgeIntervalRequests = 1000
    GroupMinSessionTimeoutMs = 6000
    GroupMaxSessionTimeoutMs = 1800000
    GroupInitialRebalanceDelayMs = 3000
    GroupMaxSize = 2147483647
    OffsetMetadataMaxSize = 4096
    OffsetsTopicPartitions = 50
    OffsetsTopicReplicationFactor = 3
    OffsetsTopicSegmentBytes = 100 * 1024 * 1024
    OffsetsRetentionMinutes = 7 * 24 * 60
    OffsetsRetentionCheckIntervalMs = 600000
    OffsetCommitTimeoutMs = 5000
    TransactionsTopicPartitions = 50
    TransactionsTopicReplicationFactor = 3
    TransactionsMaxTimeoutMs = 900000
    TransactionalIdExpirationMs = 604800000
    TransactionsTopicMinISR = 2
    TransactionsLoadBufferSize = 5 * 1024 * 1024
    TransactionsTopicSegmentBytes = 100 * 1024 * 1024
    TransactionsAbortTimedOutTransactionsCleanupIntervalMS = 10000   # Kafka 2.5's default (2.4: 60000)
    TransactionsRemoveExpiredTransactionsCleanupIntervalMS = 3600000
    ProducerIdExpirationMs = 86400000
    MetricsPort = 0


# ---------------------------------------------------------------------------------- ConfigDef
INT, LONG, DOUBLE, BOOLEAN, STRING, LIST, PASSWORD = "INT", "LONG", "DOUBLE", "BOOLEAN", "STRING", "LIST", "PASSWORD"
SHORT = "SHORT"   # Kafka: ConfigDef.Type.SHORT (kafkalite/common/config/config_def.py has them all)


_D = Defaults
SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
# name: (type, default, validator)
CONFIG_DEF: dict[str, tuple] = {
    "broker.id": (INT, _D.BrokerId, None),
    "broker.id.generation.enable": (BOOLEAN, _D.BrokerIdGenerationEnable, None),
    "reserved.broker.max.id": (INT, _D.MaxReservedBrokerId, Range.at_least(0)),
    "broker.rack": (STRING, None, None),
    "listeners": (STRING, _D.Listeners, None),
    "advertised.listeners": (STRING, None, None),
    # Deprecated in 2.4 but still read when listeners / advertised.listeners are unset.
    "port": (INT, _D.Port, Range.between(0, 65535)),
    "host.name": (STRING, _D.HostName, None),
    "advertised.port": (INT, None, Range.between(0, 65535)),
    "advertised.host.name": (STRING, None, None),
    "listener.security.protocol.map": (STRING, _D.ListenerSecurityProtocolMap, None),
    "inter.broker.listener.name": (STRING, None, None),
    "security.inter.broker.protocol": (STRING, "PLAINTEXT", ValidString.in_(*SECURITY_PROTOCOLS)),
    "control.plane.listener.name": (STRING, None, None),
    # SASL (Kafka: BrokerSecurityConfigs / KafkaConfig's SASL section); the JAAS entries are per listener and
    # mechanism: listener.name.<listener>.<mechanism>.sasl.jaas.config
    "sasl.enabled.mechanisms": (LIST, "GSSAPI", None),
    "sasl.mechanism.inter.broker.protocol": (STRING, "GSSAPI", None),
    "connections.max.reauth.ms": (LONG, 0, None),                     # KIP-368; 0 = never
    "connection.failed.authentication.delay.ms": (INT, 100, Range.at_least(0)),   # KIP-306
    "num.network.threads": (INT, _D.NumNetworkThreads, Range.at_least(1)),
    "num.io.threads": (INT, _D.NumIoThreads, Range.at_least(1)),
    "background.threads": (INT, _D.BackgroundThreads, Range.at_least(1)),
    "queued.max.requests": (INT, _D.QueuedMaxRequests, Range.at_least(1)),
    # KIP-72: bytes of requests read and not yet handled; -1 = no limit (MemoryPool.NONE)
    "queued.max.request.bytes": (LONG, -1, None),
    "socket.send.buffer.bytes": (INT, _D.SocketSendBufferBytes, None),
    "socket.receive.buffer.bytes": (INT, _D.SocketReceiveBufferBytes, None),
    "socket.request.max.bytes": (INT, _D.SocketRequestMaxBytes, Range.at_least(1)),
    "max.connections.per.ip": (INT, _D.MaxConnectionsPerIp, Range.at_least(0)),
    "max.connections.per.ip.overrides": (STRING, _D.MaxConnectionsPerIpOverrides, None),
    "max.connections": (INT, _D.MaxConnections, Range.at_least(0)),
    "connections.max.idle.ms": (LONG, _D.ConnectionsMaxIdleMs, None),
    "request.timeout.ms": (INT, _D.RequestTimeoutMs, Range.at_least(0)),
    "zookeeper.connect": (STRING, _D.ZkConnect, None),
    # Kafka: KafkaConfig.AuthorizerClassNameProp -- empty: no authorizer (super.users and allow.everyone.if.no.acl.found
    # are the authorizer's own configs, read from the originals)
    "authorizer.class.name": (STRING, "", None),
    "zookeeper.session.timeout.ms": (INT, _D.ZkSessionTimeoutMs, Range.at_least(1)),
    "zookeeper.connection.timeout.ms": (INT, _D.ZkConnectionTimeoutMs, None),
    "log.dir": (STRING, _D.LogDir, None),
    "log.dirs": (STRING, None, None),
    "num.partitions": (INT, _D.NumPartitions, Range.at_least(1)),
    "default.replication.factor": (INT, _D.DefaultReplicationFactor, Range.at_least(1)),
    "auto.create.topics.enable": (BOOLEAN, _D.AutoCreateTopicsEnable, None),
    "delete.topic.enable": (BOOLEAN, _D.DeleteTopicEnable, None),
    "log.segment.bytes": (INT, _D.LogSegmentBytes, Range.at_least(14)),
    "log.roll.hours": (INT, _D.LogRollHours, Range.at_least(1)),
    "log.roll.ms": (LONG, None, None),
    "log.retention.hours": (INT, _D.LogRetentionHours, None),
    "log.retention.minutes": (INT, None, None),
    "log.retention.ms": (LONG, None, None),
    "log.retention.bytes": (LONG, _D.LogRetentionBytes, None),
    "log.retention.check.interval.ms": (LONG, _D.LogCleanupIntervalMs, Range.at_least(1)),
    "log.initial.task.delay.ms": (LONG, _D.LogInitialTaskDelayMs, Range.at_least(0)),   # Kafka 3.6+
    "log.cleanup.policy": (LIST, _D.LogCleanupPolicy, ValidList.in_("compact", "delete")),
    "log.index.size.max.bytes": (INT, _D.LogIndexSizeMaxBytes, Range.at_least(4)),
    "log.index.interval.bytes": (INT, _D.LogIndexIntervalBytes, Range.at_least(0)),
    "log.flush.interval.messages": (LONG, _D.LogFlushIntervalMessages, Range.at_least(1)),
    "log.flush.interval.ms": (LONG, None, None),
    "log.flush.scheduler.interval.ms": (LONG, _D.LogFlushSchedulerIntervalMs, None),
    "log.flush.offset.checkpoint.interval.ms": (INT, _D.LogFlushOffsetCheckpointIntervalMs, Range.at_least(0)),
    "log.flush.start.offset.checkpoint.interval.ms": (INT, _D.LogFlushStartOffsetCheckpointIntervalMs,
                                                      Range.at_least(0)),
    "log.segment.delete.delay.ms": (LONG, _D.LogDeleteDelayMs, Range.at_least(0)),
    "log.message.timestamp.type": (STRING, _D.LogMessageTimestampType,
                                   ValidString.in_("CreateTime", "LogAppendTime")),
    "log.message.timestamp.difference.max.ms": (LONG, _D.LogMessageTimestampDifferenceMaxMs, None),
    "log.preallocate": (BOOLEAN, _D.LogPreAllocateEnable, None),
    "log.message.format.version": (STRING, "2.4-IV1", ensure_stored_format),   # Kafka: ApiVersionValidator
    # log cleaner (issue 17, LogCleaner / CleanerConfig; the topic-level defaults are in LogConfig's key map)
    "log.cleaner.enable": (BOOLEAN, True, None),
    "log.cleaner.threads": (INT, 1, Range.at_least(0)),
    "log.cleaner.dedupe.buffer.size": (LONG, 128 * 1024 * 1024, None),
    "log.cleaner.io.buffer.size": (INT, 512 * 1024, Range.at_least(0)),
    "log.cleaner.io.buffer.load.factor": (DOUBLE, 0.9, None),
    "log.cleaner.io.max.bytes.per.second": (DOUBLE, 1.7976931348623157e308, None),
    "log.cleaner.backoff.ms": (LONG, 15 * 1000, Range.at_least(0)),
    "log.cleaner.delete.retention.ms": (LONG, 24 * 60 * 60 * 1000, None),
    "log.cleaner.min.compaction.lag.ms": (LONG, 0, None),
    "log.cleaner.max.compaction.lag.ms": (LONG, (1 << 63) - 1, None),
    "log.cleaner.min.cleanable.ratio": (DOUBLE, 0.5, None),
    "num.recovery.threads.per.data.dir": (INT, _D.NumRecoveryThreadsPerDataDir, Range.at_least(1)),
    "message.max.bytes": (INT, _D.MessageMaxBytes, Range.at_least(0)),
    "min.insync.replicas": (INT, _D.MinInSyncReplicas, Range.at_least(1)),
    "unclean.leader.election.enable": (BOOLEAN, _D.UncleanLeaderElectionEnable, None),
    "compression.type": (STRING, _D.CompressionType,
                         ValidString.in_("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")),
    "controller.socket.timeout.ms": (INT, _D.ControllerSocketTimeoutMs, None),
    "replica.lag.time.max.ms": (LONG, _D.ReplicaLagTimeMaxMs, None),
    "replica.fetch.max.bytes": (INT, _D.ReplicaFetchMaxBytes, Range.at_least(0)),
    "replica.fetch.response.max.bytes": (INT, _D.ReplicaFetchResponseMaxBytes, Range.at_least(0)),
    "replica.fetch.wait.max.ms": (INT, _D.ReplicaFetchWaitMaxMs, None),
    "replica.fetch.min.bytes": (INT, _D.ReplicaFetchMinBytes, None),
    "num.replica.fetchers": (INT, _D.NumReplicaFetchers, Range.at_least(1)),
    "replica.fetch.backoff.ms": (INT, _D.ReplicaFetchBackoffMs, Range.at_least(0)),
    "num.replica.alter.log.dirs.threads": (INT, None, Range.at_least(1)),
    "auto.leader.rebalance.enable": (BOOLEAN, True, None),
    "leader.imbalance.check.interval.seconds": (LONG, 300, Range.at_least(1)),
    "leader.imbalance.per.broker.percentage": (INT, 10, Range.between(0, 100)),
    "controlled.shutdown.enable": (BOOLEAN, True, None),
    "controlled.shutdown.max.retries": (INT, 3, None),
    "controlled.shutdown.retry.backoff.ms": (LONG, 5000, None),
    "replica.socket.timeout.ms": (INT, _D.ReplicaSocketTimeoutMs, None),
    "replica.high.watermark.checkpoint.interval.ms": (LONG, _D.ReplicaHighWatermarkCheckpointIntervalMs, None),
    "fetch.max.bytes": (INT, _D.FetchMaxBytes, Range.at_least(1024)),
    # incremental fetch sessions (KIP-227, fetch_session.py): 0 answers every fetch without a session
    "max.incremental.fetch.session.cache.slots": (INT, 1000, Range.at_least(0)),
    "fetch.purgatory.purge.interval.requests": (INT, _D.FetchPurgatoryPurgeIntervalRequests, None),
    "producer.purgatory.purge.interval.requests": (INT, _D.ProducerPurgatoryPurgeIntervalRequests, None),
    "group.min.session.timeout.ms": (INT, _D.GroupMinSessionTimeoutMs, None),
    "group.max.session.timeout.ms": (INT, _D.GroupMaxSessionTimeoutMs, None),
    "group.initial.rebalance.delay.ms": (INT, _D.GroupInitialRebalanceDelayMs, None),
    "group.max.size": (INT, _D.GroupMaxSize, Range.at_least(1)),
    # Kafka 4.0 (KIP-848): the consumer group protocol (coordinator/group/consumer/)
    "group.coordinator.rebalance.protocols": (LIST, "classic,consumer", ValidList.in_("classic", "consumer")),
    "group.consumer.session.timeout.ms": (INT, 45000, Range.at_least(1)),
    "group.consumer.heartbeat.interval.ms": (INT, 5000, Range.at_least(1)),
    "group.consumer.assignors": (LIST, "uniform,range", ValidList.in_("uniform", "range")),
    "offset.metadata.max.bytes": (INT, _D.OffsetMetadataMaxSize, None),
    "offsets.topic.num.partitions": (INT, _D.OffsetsTopicPartitions, Range.at_least(1)),
    "offsets.topic.replication.factor": (SHORT, _D.OffsetsTopicReplicationFactor, Range.at_least(1)),
    "offsets.topic.segment.bytes": (INT, _D.OffsetsTopicSegmentBytes, Range.at_least(1)),
    "offsets.retention.minutes": (INT, _D.OffsetsRetentionMinutes, Range.at_least(1)),
    "offsets.retention.check.interval.ms": (LONG, _D.OffsetsRetentionCheckIntervalMs, Range.at_least(1)),
    "offsets.commit.timeout.ms": (INT, _D.OffsetCommitTimeoutMs, Range.at_least(1)),
    "transaction.state.log.num.partitions": (INT, _D.TransactionsTopicPartitions, Range.at_least(1)),
    "transaction.state.log.replication.factor": (SHORT, _D.TransactionsTopicReplicationFactor, Range.at_least(1)),
    "transaction.max.timeout.ms": (INT, _D.TransactionsMaxTimeoutMs, Range.at_least(1)),
    "transactional.id.expiration.ms": (INT, _D.TransactionalIdExpirationMs, Range.at_least(1)),
    "transaction.state.log.min.isr": (INT, _D.TransactionsTopicMinISR, Range.at_least(1)),
    "transaction.state.log.load.buffer.size": (INT, _D.TransactionsLoadBufferSize, Range.at_least(1)),
    "transaction.state.log.segment.bytes": (INT, _D.TransactionsTopicSegmentBytes, Range.at_least(1)),
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": (
        INT, _D.TransactionsAbortTimedOutTransactionsCleanupIntervalMS, Range.at_least(1)),
    "transaction.remove.expired.transaction.cleanup.interval.ms": (
        INT, _D.TransactionsRemoveExpiredTransactionsCleanupIntervalMS, Range.at_least(1)),
    "producer.id.expiration.ms": (INT, _D.ProducerIdExpirationMs, Range.at_least(1)),
    # issue 17 (admin answers): Kafka 3.7's cap on the partitions of one DescribeTopicPartitions answer (KIP-966)
    "max.request.partition.size.limit": (INT, 2000, Range.at_least(1)),
    # Client quotas (Kafka: KafkaConfig's quota section; the two *.default keys are deprecated since 0.11 but
    # still read in 2.4: the byte rate of every client id without a dynamic quota)
    "quota.producer.default": (LONG, 2 ** 63 - 1, Range.at_least(1)),
    "quota.consumer.default": (LONG, 2 ** 63 - 1, Range.at_least(1)),
    "quota.window.num": (INT, 11, Range.at_least(1)),
    "quota.window.size.seconds": (INT, 1, Range.at_least(1)),
    # Replication quotas (Kafka: KafkaConfig's quota section): the windows of the leader / follower and the
    # alter-log-dirs byte-rate sensors; the rates themselves are dynamic broker configs (DynamicConfig.Broker)
    "replication.quota.window.num": (INT, 11, Range.at_least(1)),
    "replication.quota.window.size.seconds": (INT, 1, Range.at_least(1)),
    "alter.log.dirs.replication.quota.window.num": (INT, 11, Range.at_least(1)),
    "alter.log.dirs.replication.quota.window.size.seconds": (INT, 1, Range.at_least(1)),
    # kafkalite's own: the Prometheus metrics endpoint (0 = off)
    "kafkalite.metrics.port": (INT, _D.MetricsPort, Range.between(0, 65535)),
    # kafkalite's own: log every request's trip through the threads (sets kafka.request.logger to DEBUG)
    "kafkalite.request.trace": (BOOLEAN, False, None),
    # No Kafka counterpart: S27's priority queue for the data plane's requests (control requests first)
    "kafkalite.request.priority": (STRING, "fifo", ValidString.in_("fifo", "control-first")),
    # No Kafka counterpart: tests switch one of Kafka's replication fixes off to show what it prevents
    # (KAFKA-1211: followers truncate to their high watermark, no OffsetsForLeaderEpoch; KAFKA-6361: one
    # round of epoch truncation; KAFKA-7128: ISR joins ignore the epoch start offset; KAFKA-7415: no epoch
    # entry on becoming leader; KAFKA-9087: a log-dir move resumed after a restart starts past the end of its
    # future log). Never for real use: each brings back a way to lose acknowledged data or to stall.
    "kafkalite.test.disable.fixes": (LIST, "", ValidList.in_("KAFKA-1211", "KAFKA-6361", "KAFKA-7128", "KAFKA-7415",
                                                        "KAFKA-9087")),
}
# Kafka: KafkaConfig's SslConfigs rows (ssl.keystore.*, ssl.truststore.*, ssl.client.auth, ...)
CONFIG_DEF.update({name: (type_, default, ((ValidList if type_ == LIST else ValidString)(allowed) if allowed else None))
                   for name, (type_, default, allowed) in SSL_CONFIG_DEF.items()})
LISTENER_PREFIX = "listener.name."


SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")


def _parse_map(name: str, raw: str) -> dict[str, str]:
    result = {}
    for entry in [e.strip() for e in raw.split(",") if e.strip()]:
        if ":" not in entry:
            raise ConfigException(name, raw, "Map entry should be of form <key>:<value>")
        k, v = entry.split(":", 1)
        result[k.strip()] = v.strip()
    return result


class KafkaConfig:
    """Kafka: KafkaConfig -- the typed view of server.properties."""

    def __init__(self, props: dict[str, str], do_log: bool = True):
        self.originals = dict(props)
        self.values: dict[str, object] = {}
        # the authorizer reads its own keys from the originals (Kafka: AclAuthorizer.configure uses them, so
        # AbstractConfig.logUnused does not name them)
        plugin_keys = set()
        if props.get("authorizer.class.name"):   # the AclAuthorizer module is loaded only when one is configured
            from kafkalite.security.authorizer.acl_authorizer import ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_PROP, SUPER_USERS_PROP
            plugin_keys = {SUPER_USERS_PROP, ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_PROP}
        for name, value in props.items():
            if name not in CONFIG_DEF and name not in plugin_keys and not self._is_listener_override(name) and do_log:
                log.warning("The configuration '%s' was supplied but isn't a known config.", name)
        for name, (type_, default, validator) in CONFIG_DEF.items():
            raw = props.get(name, default)
            value = parse_type(name, raw, type_)
            if validator is not None and value is not None:
                validator(name, value)
            self.values[name] = value
        self._derive()
        self.validate_values()

    @staticmethod
    def from_props(props: dict[str, str], do_log: bool = True) -> "KafkaConfig":
        return KafkaConfig({k: str(v) for k, v in props.items()}, do_log)

    def get(self, name: str):
        return self.values[name]

    # Kafka: KafkaConfig.saslEnabledMechanisms(listenerName)
    def sasl_enabled_mechanisms(self, listener_name: str) -> list[str]:
        raw = self.originals.get(f"listener.name.{listener_name.lower()}.sasl.enabled.mechanisms")
        return parse_type("sasl.enabled.mechanisms", raw, LIST) if raw is not None else self.get("sasl.enabled.mechanisms")

    def validate_sasl(self) -> None:
        _validate_sasl(self)

    @staticmethod
    def _is_listener_override(name: str) -> bool:
        # listener.name.<listener>.<key>: the listener name has no dots
        if not name.startswith(LISTENER_PREFIX):
            return False
        rest = name[len(LISTENER_PREFIX):]
        if "." not in rest:
            return False
        key = rest.split(".", 1)[1]
        # also <mechanism>.sasl.jaas.config and <mechanism>.connections.max.reauth.ms (SASL, per mechanism)
        return key in CONFIG_DEF or key.endswith((".sasl.jaas.config", ".connections.max.reauth.ms"))

    # Kafka: AbstractConfig.valuesWithPrefixOverride -- every value, with ``prefix``+key winning over key.
    def values_with_prefix_override(self, prefix: str) -> dict:
        result = dict(self.values)
        if not prefix:
            return result
        for name, raw in self.originals.items():
            if name.startswith(prefix):
                key = name[len(prefix):]
                if key in CONFIG_DEF:
                    type_, _default, validator = CONFIG_DEF[key]
                    value = parse_type(name, raw, type_)
                    if validator is not None and value is not None:
                        validator(name, value)
                    result[key] = value
                else:   # a mechanism's key (plain.sasl.jaas.config): kept as given, as Kafka keeps originals
                    result[key] = raw
        return result

    # Kafka: KafkaConfig.saslMechanismInterBrokerProtocol
    @property
    def sasl_mechanism_inter_broker_protocol(self) -> str:
        return self.get("sasl.mechanism.inter.broker.protocol")

    # Kafka: KafkaConfig.interBrokerSecurityProtocol
    @property
    def inter_broker_security_protocol(self) -> str:
        return self.listener_security_protocol_map.get(self.inter_broker_listener_name,
                                                       self.inter_broker_listener_name).upper()

    def _derive(self) -> None:
        v = self.values
        self.broker_id = v["broker.id"]
        self.num_network_threads = v["num.network.threads"]
        self.num_io_threads = v["num.io.threads"]
        self.queued_max_requests = v["queued.max.requests"]
        self.socket_send_buffer_bytes = v["socket.send.buffer.bytes"]
        self.socket_receive_buffer_bytes = v["socket.receive.buffer.bytes"]
        self.socket_request_max_bytes = v["socket.request.max.bytes"]
        self.max_connections_per_ip = v["max.connections.per.ip"]
        self.max_connections = v["max.connections"]
        self.connections_max_idle_ms = v["connections.max.idle.ms"]
        self.zk_connect = v["zookeeper.connect"]
        self.zk_session_timeout_ms = v["zookeeper.session.timeout.ms"]
        self.num_partitions = v["num.partitions"]
        self.default_replication_factor = v["default.replication.factor"]
        self.auto_create_topics_enable = v["auto.create.topics.enable"]
        self.delete_topic_enable = v["delete.topic.enable"]
        self.message_max_bytes = v["message.max.bytes"]
        self.metrics_port = v["kafkalite.metrics.port"]
        overrides = _parse_map("max.connections.per.ip.overrides", v["max.connections.per.ip.overrides"])
        try:
            self.max_connections_per_ip_overrides = {k: int(n) for k, n in overrides.items()}
        except ValueError:
            raise ConfigException("max.connections.per.ip.overrides", v["max.connections.per.ip.overrides"],
                                  "Each override must be <host>:<count> with an integer count") from None
        # Kafka: logDirs -- log.dirs wins over log.dir
        dirs = v["log.dirs"] if v["log.dirs"] is not None else v["log.dir"]
        self.log_dirs = [d.strip() for d in dirs.split(",") if d.strip()]
        # Kafka: logRetentionTimeMillis -- ms, else minutes, else hours; any negative value is -1 (forever)
        if v["log.retention.ms"] is not None:
            millis = v["log.retention.ms"]
        elif v["log.retention.minutes"] is not None:
            millis = v["log.retention.minutes"] * 60_000
        else:
            millis = v["log.retention.hours"] * 3_600_000
        self.log_retention_time_millis = -1 if millis < 0 else millis
        self.log_roll_time_millis = v["log.roll.ms"] if v["log.roll.ms"] is not None else v["log.roll.hours"] * 3_600_000
        self.log_flush_interval_ms = (v["log.flush.interval.ms"] if v["log.flush.interval.ms"] is not None
                                      else v["log.flush.scheduler.interval.ms"])
        self._derive_listeners()

    # Kafka: KafkaConfig.listeners / advertisedListeners / listenerSecurityProtocolMap / interBrokerListenerName
    def _derive_listeners(self) -> None:
        v = self.values
        self.listener_security_protocol_map = {k.upper(): val for k, val in _parse_map(
            "listener.security.protocol.map", v["listener.security.protocol.map"]).items()}
        for name, proto in self.listener_security_protocol_map.items():
            if proto.upper() not in SECURITY_PROTOCOLS:
                raise ConfigException("listener.security.protocol.map", v["listener.security.protocol.map"],
                                      f"Invalid security protocol `{proto}` defined in listener.security.protocol.map")
        # Kafka: KafkaConfig.listeners / advertisedListeners -- the deprecated port and host.name
        # (and advertised.port / advertised.host.name) describe one PLAINTEXT listener when the new keys are unset.
        listeners = v["listeners"]
        if listeners is None:
            listeners = f"PLAINTEXT://{v['host.name']}:{v['port']}"
        self.listeners = self._parse_endpoints("listeners", listeners)
        adv = v["advertised.listeners"]
        if adv is None and (v["advertised.host.name"] is not None or v["advertised.port"] is not None):
            host = v["advertised.host.name"] if v["advertised.host.name"] is not None else v["host.name"]
            port = v["advertised.port"] if v["advertised.port"] is not None else v["port"]
            adv = f"PLAINTEXT://{host}:{port}"
        self.advertised_listeners = self._parse_endpoints("advertised.listeners", adv) if adv else list(self.listeners)
        ibl = v["inter.broker.listener.name"]
        if ibl is not None and "security.inter.broker.protocol" in self.originals:
            raise ConfigException("inter.broker.listener.name", ibl, "Only one of inter.broker.listener.name and "
                                  "security.inter.broker.protocol should be set.")
        if ibl is not None:
            self.inter_broker_listener_name = ibl.upper()
        else:
            proto = v["security.inter.broker.protocol"]
            self.inter_broker_listener_name = proto
        cp = v["control.plane.listener.name"]
        self.control_plane_listener_name = cp.upper() if cp else None

    def _parse_endpoints(self, name: str, raw: str) -> list[EndPoint]:
        endpoints = []
        for entry in [e.strip() for e in raw.split(",") if e.strip()]:
            try:
                endpoints.append(EndPoint.create_end_point(entry, self.listener_security_protocol_map))
            except EndPointParseError as e:
                raise ConfigException(name, raw, str(e)) from None
        names = [ep.listener_name for ep in endpoints]
        if len(set(names)) != len(names):
            raise ConfigException(name, raw, "Each listener must have a different name")
        ports = [ep.port for ep in endpoints if ep.port != 0]
        if len(set(ports)) != len(ports):
            raise ConfigException(name, raw, "Each listener must have a different port")
        return endpoints

    # Kafka: KafkaConfig.controlPlaneListener
    @property
    def control_plane_listener(self) -> EndPoint | None:
        if self.control_plane_listener_name is None:
            return None
        for ep in self.listeners:
            if ep.listener_name == self.control_plane_listener_name:
                return ep
        return None

    # Kafka: KafkaConfig.dataPlaneListeners -- every listener but the control plane's.
    @property
    def data_plane_listeners(self) -> list[EndPoint]:
        return [ep for ep in self.listeners if ep.listener_name != self.control_plane_listener_name]

    # Kafka: KafkaConfig.getNumReplicaAlterLogDirsThreads -- one per log dir unless set
    def get_num_replica_alter_log_dirs_threads(self) -> int:
        num_threads = self.get("num.replica.alter.log.dirs.threads")
        return len(self.log_dirs) if num_threads is None else num_threads

    # Kafka: KafkaConfig.validateValues
    def validate_values(self) -> None:
        v = self.values
        if 0 < v["queued.max.request.bytes"] < v["socket.request.max.bytes"]:
            raise ConfigException("queued.max.request.bytes", v["queued.max.request.bytes"],
                                  "queued.max.request.bytes must be larger or equal to socket.request.max.bytes")
        if self.broker_id < -1:
            raise ConfigException("broker.id", self.broker_id, "Value must be at least -1")
        if v["broker.id.generation.enable"] and self.broker_id > v["reserved.broker.max.id"]:
            raise ConfigException("broker.id", self.broker_id, "broker.id must be equal or greater than -1 and not "
                                  "greater than reserved.broker.max.id")
        if self.log_retention_time_millis == 0:
            raise ConfigException("log.retention.ms", 0, "log.retention.ms must be unlimited (-1) or, equal or "
                                  "greater than 1")
        if self.max_connections_per_ip == 0 and not self.max_connections_per_ip_overrides:
            raise ConfigException("max.connections.per.ip", 0, "max.connections.per.ip can be set to zero only if "
                                  "max.connections.per.ip.overrides property is set.")
        for ep in self.advertised_listeners:
            if ep.host == "0.0.0.0":
                raise ConfigException("advertised.listeners", ep.connection_string(), "advertised.listeners cannot use "
                                      "the nonroutable meta-address 0.0.0.0. Use a routable IP address.")
        if not self.log_dirs:
            raise ConfigException("log.dirs", v["log.dirs"], "At least one log directory must be defined")
        if not self.listeners:
            raise ConfigException("listeners", v["listeners"], "At least one listener must be defined")
        adv_names = {ep.listener_name for ep in self.advertised_listeners}
        listener_names = {ep.listener_name for ep in self.listeners}
        if not adv_names <= listener_names:
            raise ConfigException("advertised.listeners", v["advertised.listeners"],
                                  "Advertised listener names must match the names in listeners")
        if self.inter_broker_listener_name not in adv_names:
            raise ConfigException("inter.broker.listener.name", self.inter_broker_listener_name,
                                  "inter.broker.listener.name must be a listener name defined in advertised.listeners. "
                                  f"The valid options based on currently configured listeners are "
                                  f"{','.join(sorted(listener_names))}")
        cp = self.control_plane_listener_name
        if cp is not None:
            # S20: the control plane listener must be in the protocol map and in listeners
            if cp not in self.listener_security_protocol_map:
                raise ConfigException(f"Listener with {cp} defined in control.plane.listener.name not found in "
                                      "listener.security.protocol.map.")   # Kafka 2.4's words
            if cp not in listener_names:
                raise ConfigException("control.plane.listener.name", cp,
                                      "control.plane.listener.name must be a listener name defined in listeners")
            if cp not in adv_names:
                raise ConfigException("control.plane.listener.name", cp,
                                      "control.plane.listener.name must be a listener name defined in "
                                      "advertised.listeners")
            if cp == self.inter_broker_listener_name:
                raise ConfigException("control.plane.listener.name", cp,
                                      "control.plane.listener.name, when defined, should have a different value "
                                      "from the inter broker listener name")
        self.validate_sasl()
        self.validate_ssl_listeners()
        if v["group.min.session.timeout.ms"] > v["group.max.session.timeout.ms"]:
            raise ConfigException("group.max.session.timeout.ms", v["group.max.session.timeout.ms"],
                                  "must be at least group.min.session.timeout.ms")
        self.validate_authorizer()

    # Kafka: KafkaConfig.authorizer -- 2.4 instantiates the class here; kafkalite checks the name and the
    # AclAuthorizer's super.users (type:name;...) so that start-up stops with one line
    def validate_authorizer(self) -> None:
        name = (self.values["authorizer.class.name"] or "").strip()
        if not name:
            return
        from kafkalite.security.authorizer.authorizer_utils import KAFKA_AUTHORIZER_CLASS_NAMES
        if name not in KAFKA_AUTHORIZER_CLASS_NAMES:
            import importlib
            module, _, cls = name.rpartition(".")
            try:
                getattr(importlib.import_module(module), cls)
            except (ImportError, AttributeError, ValueError):
                raise ConfigException("authorizer.class.name", name, f"Class {name} cannot be found") from None
        for principal in str(self.originals.get("super.users") or "").split(";"):
            if principal.strip() and ":" not in principal:
                raise ConfigException("super.users", self.originals["super.users"],
                                      f"Invalid principal {principal.strip()}: principals are of the form type:name")


    def validate_ssl_listeners(self) -> None:
        """Load each SSL listener's key and trust stores now (Kafka fails in SocketServer start-up; the
        error is the same, earlier): a missing file or a wrong password stops start-up with one line."""
        for ep in self.listeners:
            if ep.security_protocol.upper() not in ("SSL", "SASL_SSL"):
                continue
            from kafkalite.security.ssl.ssl_engine_builder import SslConfigError   # Python's ssl: SSL listeners only
            from kafkalite.security.ssl.ssl_factory import Mode, SslFactory
            prefix = f"{LISTENER_PREFIX}{ep.listener_name.lower()}."
            try:
                SslFactory(Mode.SERVER).configure(self.values_with_prefix_override(prefix))
            except SslConfigError as e:
                overridden = prefix + e.name in self.originals
                raise ConfigException(prefix + e.name if overridden else e.name, e.value,
                                      f"{e.message} (listener {ep.listener_name})") from None
# Kafka: KafkaConfig.saslEnabledMechanisms(listenerName) and validateValues' SASL checks; kafkalite also
# checks here what Kafka's SaslChannelBuilder finds out at start-up (a mechanism it lacks, a missing JAAS
# entry), so a bad server.properties stops with one line naming the key
def _validate_sasl(config: "KafkaConfig") -> None:
    for ep in config.listeners:
        if ep.security_protocol not in ("SASL_PLAINTEXT", "SASL_SSL"):
            continue
        prefix = f"listener.name.{ep.listener_name.lower()}."
        key = prefix + "sasl.enabled.mechanisms" if prefix + "sasl.enabled.mechanisms" in config.originals \
            else "sasl.enabled.mechanisms"
        mechanisms = config.sasl_enabled_mechanisms(ep.listener_name)
        for mechanism in mechanisms:
            if mechanism not in SASL_MECHANISMS:
                raise ConfigException(key, ",".join(mechanisms), f"SASL mechanism {mechanism} is not supported by "
                                      f"kafkalite (listener {ep.listener_name}); supported: {', '.join(SASL_MECHANISMS)}")
            jaas_key = f"{prefix}{mechanism.lower()}.sasl.jaas.config"
            if not config.originals.get(jaas_key):
                raise ConfigException(jaas_key, None, f"listener {ep.listener_name} enables {mechanism}, which needs "
                                      "a JAAS entry (kafkalite reads no JAAS files)")
    protocol = config.listener_security_protocol_map.get(config.inter_broker_listener_name,
                                                         config.inter_broker_listener_name)
    mechanism = config.get("sasl.mechanism.inter.broker.protocol")
    if protocol in ("SASL_PLAINTEXT", "SASL_SSL") and \
            mechanism not in config.sasl_enabled_mechanisms(config.inter_broker_listener_name):
        raise ConfigException("sasl.mechanism.inter.broker.protocol", mechanism,
                              "sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms "
                              "when SASL is used for inter-broker communication")


def load_properties(path: str) -> dict[str, str]:
    """Java .properties, the subset server.properties uses: key=value or key: value, # and ! comments,
    backslash line continuations."""
    props: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        pending = ""
        for raw in f:
            line = raw.rstrip("\n").rstrip("\r")
            if not pending and line.lstrip().startswith(("#", "!")):
                continue
            if line.endswith("\\"):
                pending += line[:-1].lstrip()
                continue
            line = (pending + line.lstrip()).strip()
            pending = ""
            if not line:
                continue
            sep = min([i for i in (line.find("="), line.find(":")) if i >= 0], default=-1)
            if sep < 0:
                props[line] = ""
            else:
                props[line[:sep].strip()] = line[sep + 1:].strip()
    return props


def generate_cluster_id() -> str:
    """Kafka: CoreUtils.generateUuidAsBase64 -- 22 url-safe base64 characters."""
    import base64
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")

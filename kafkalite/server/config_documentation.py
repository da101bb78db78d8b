"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaConfig.scala (its ``...Doc`` strings) and
clients/src/main/java/org/apache/kafka/common/config/TopicConfig.java (its ``..._DOC`` strings)

Holds: BROKER_CONFIG_DOCS and TOPIC_CONFIG_DOCS, one short line per key saying what the key does, and
``broker_documentation`` / ``topic_documentation``, which DescribeConfigs v3+ answers with when a client
sets ``include_documentation`` (KIP-569). The lines are kafkalite's own wording of what each key means
(and what it means in kafkalite where that differs), not Kafka's text.
Kafka keeps each doc beside its key's ``define(...)``; here they sit in their own table so the config
tables stay one line a key. tests/unit/test_config_documentation.py checks that every key of CONFIG_DEF and
LogConfigDef has a line. A few keys Kafka has and kafkalite may add later (the log cleaner's, quotas', fetch
sessions') are documented already.

Era notes: documentation on the wire is Kafka 2.6's (KIP-569). Kafka 2.6 looked topic keys up among the
broker's definitions (so most topic keys came back without documentation); kafkalite answers a topic key
with its topic documentation, as later releases do.
Left out: importance, the valid-values and default columns of Kafka's generated config tables.
"""
from __future__ import annotations

TOPIC_CONFIG_DOCS = {
    "segment.bytes": "Size in bytes at which the topic's active log segment is closed and a new one started.",
    "segment.ms": "Time after which the active segment is rolled even if not full, so old data can be deleted "
                  "or compacted.",
    "segment.jitter.ms": "Largest random amount of time subtracted from segment.ms, so segments of many "
                         "partitions do not all roll at once.",
    "segment.index.bytes": "Size in bytes preallocated for each segment's offset and time index files.",
    "flush.messages": "Number of messages written to a partition before the log is forced (fsync) to disk.",
    "flush.ms": "Time after which written data is forced (fsync) to disk.",
    "retention.bytes": "Largest size a partition's log may grow to before old segments are deleted (-1: no "
                       "limit; only with the delete cleanup policy).",
    "retention.ms": "How long a segment is kept before it is deleted (-1: forever; only with the delete "
                    "cleanup policy).",
    "max.message.bytes": "Largest record batch, in bytes, the topic accepts (after compression).",
    "index.interval.bytes": "Bytes of log written between two entries of the sparse offset index.",
    "file.delete.delay.ms": "Time a deleted segment's files wait, renamed .deleted, before they are removed "
                            "from disk.",
    "delete.retention.ms": "How long tombstones (null-value records) stay readable in a compacted topic.",
    "min.compaction.lag.ms": "Least time a record stays uncompacted after it was written.",
    "max.compaction.lag.ms": "Most time a record may stay in the log before it becomes eligible for "
                             "compaction.",
    "min.cleanable.dirty.ratio": "Share of the log that must be uncompacted (dirty) before the cleaner "
                                 "compacts it.",
    "cleanup.policy": "What happens to old segments: delete, compact, or both (a list).",
    "unclean.leader.election.enable": "Whether a replica outside the ISR may become leader as a last "
                                      "resort, at the risk of losing data.",
    "min.insync.replicas": "Fewest in-sync replicas that must have a write for an acks=all produce to "
                           "succeed.",
    "compression.type": "Compression kept for the topic's data: a codec name, uncompressed, or producer "
                        "(keep what the producer sent).",
    "preallocate": "Whether a new segment's file is preallocated on disk.",
    "message.format.version": "Record format version the broker writes for the topic.",
    "message.timestamp.type": "Whether record timestamps are the producer's (CreateTime) or the broker's "
                              "append time (LogAppendTime).",
    "message.timestamp.difference.max.ms": "Largest allowed gap between a record's CreateTime timestamp "
                                           "and the broker's clock.",
    "leader.replication.throttled.replicas": "Replicas (partition:broker, or *) whose leader-side "
                                             "replication is throttled.",
    "follower.replication.throttled.replicas": "Replicas (partition:broker, or *) whose follower-side "
                                               "replication is throttled.",
    "message.downconversion.enable": "Whether the broker converts records down to an old format for "
                                     "consumers that ask with an old Fetch version.",
}

BROKER_CONFIG_DOCS = {
    # ---- identity and listeners
    "broker.id": "This broker's id in the cluster (-1: one is generated when generation is enabled).",
    "broker.id.generation.enable": "Whether a broker with no broker.id gets one generated from ZooKeeper.",
    "reserved.broker.max.id": "Highest id that may be set by hand; generated ids start above it.",
    "broker.rack": "Rack of this broker, used to spread a partition's replicas over racks.",
    "listeners": "Comma-separated URIs (NAME://host:port) this broker accepts connections on.",
    "advertised.listeners": "Listener URIs this broker gives to clients, when they differ from listeners.",
    "port": "Deprecated: the port to listen on when listeners is not set.",
    "host.name": "Deprecated: the host to bind when listeners is not set (empty: all interfaces).",
    "advertised.port": "Deprecated: the port given to clients when advertised.listeners is not set.",
    "advertised.host.name": "Deprecated: the host given to clients when advertised.listeners is not set.",
    "listener.security.protocol.map": "Maps each listener name to its security protocol (NAME:PROTOCOL,...).",
    "inter.broker.listener.name": "Listener brokers use to talk to each other.",
    "security.inter.broker.protocol": "Security protocol brokers use to talk to each other when "
                                      "inter.broker.listener.name is not set.",
    "control.plane.listener.name": "Listener kept for controller requests, so they never queue behind "
                                   "client traffic.",
    # ---- SASL
    "sasl.enabled.mechanisms": "SASL mechanisms the broker offers to clients.",
    "sasl.mechanism.inter.broker.protocol": "SASL mechanism brokers use when they talk to each other.",
    "connections.max.reauth.ms": "Longest a SASL session lives before the client must re-authenticate "
                                 "(0: never).",
    "connection.failed.authentication.delay.ms": "Delay before a connection that failed to authenticate is "
                                                 "closed.",
    "sasl.jaas.config": "JAAS login entry for a SASL mechanism, given per listener and mechanism.",
    # ---- threads and sockets
    "num.network.threads": "Number of network threads (processors) per listener that read requests and "
                           "write responses.",
    "num.io.threads": "Number of request handler threads that process requests.",
    "background.threads": "Number of threads for background work such as deleting files.",
    "queued.max.requests": "Most requests waiting for a handler before network threads stop reading.",
    "queued.max.request.bytes": "Most bytes of requests read and not yet handled (-1: no limit).",
    "socket.send.buffer.bytes": "SO_SNDBUF size of the broker's sockets (-1: the OS default).",
    "socket.receive.buffer.bytes": "SO_RCVBUF size of the broker's sockets (-1: the OS default).",
    "socket.request.max.bytes": "Largest request, in bytes, a client may send.",
    "max.connections.per.ip": "Most connections one IP address may hold open.",
    "max.connections.per.ip.overrides": "Per-host or per-IP exceptions to max.connections.per.ip "
                                        "(host:count,...).",
    "max.connections": "Most connections the broker holds open at once.",
    "connections.max.idle.ms": "Time after which an idle connection is closed.",
    "request.timeout.ms": "Longest the broker's own client waits for a response before giving up.",
    # ---- ZooKeeper and authorizer
    "zookeeper.connect": "ZooKeeper connection string (host:port,...[/chroot]); empty uses kafkalite's "
                         "in-process store.",
    "zookeeper.session.timeout.ms": "ZooKeeper session timeout.",
    "zookeeper.connection.timeout.ms": "Longest the broker waits to connect to ZooKeeper (unset: the "
                                       "session timeout).",
    "authorizer.class.name": "Authorizer that checks ACLs for each request (empty: no authorization).",
    # ---- log
    "log.dir": "Directory for log data when log.dirs is not set.",
    "log.dirs": "Comma-separated directories that hold the partitions' logs.",
    "num.partitions": "Partitions of an automatically created topic.",
    "default.replication.factor": "Replication factor of an automatically created topic.",
    "auto.create.topics.enable": "Whether a topic is created when a client asks for one that does not exist.",
    "delete.topic.enable": "Whether topics may be deleted through the admin API.",
    "log.segment.bytes": "Default size at which a segment is rolled (topic key: segment.bytes).",
    "log.roll.hours": "Default hours after which a segment is rolled, when log.roll.ms is not set.",
    "log.roll.ms": "Default time after which a segment is rolled (topic key: segment.ms).",
    "log.roll.jitter.hours": "Default roll jitter in hours, when log.roll.jitter.ms is not set.",
    "log.roll.jitter.ms": "Default roll jitter (topic key: segment.jitter.ms).",
    "log.retention.hours": "Default hours a segment is kept, when no finer retention key is set.",
    "log.retention.minutes": "Default minutes a segment is kept, when log.retention.ms is not set.",
    "log.retention.ms": "Default time a segment is kept (topic key: retention.ms; -1: forever).",
    "log.retention.bytes": "Default size limit of a partition's log (topic key: retention.bytes).",
    "log.retention.check.interval.ms": "How often the log manager looks for segments to delete.",
    "log.initial.task.delay.ms": "Delay after start-up before the log manager's periodic tasks first run.",
    "log.cleanup.policy": "Default cleanup policy of topics (topic key: cleanup.policy).",
    "log.index.size.max.bytes": "Default size of a segment's index files (topic key: segment.index.bytes).",
    "log.index.interval.bytes": "Default bytes between offset-index entries (topic key: "
                                "index.interval.bytes).",
    "log.flush.interval.messages": "Default messages written before a forced flush (topic key: "
                                   "flush.messages).",
    "log.flush.interval.ms": "Default time before a forced flush (topic key: flush.ms).",
    "log.flush.scheduler.interval.ms": "How often the flusher checks whether a log needs flushing.",
    "log.flush.offset.checkpoint.interval.ms": "How often the recovery point checkpoint file is written.",
    "log.flush.start.offset.checkpoint.interval.ms": "How often the log start offset checkpoint file is "
                                                     "written.",
    "log.segment.delete.delay.ms": "Default delay before a deleted segment's files are removed (topic key: "
                                   "file.delete.delay.ms).",
    "log.message.timestamp.type": "Default timestamp type of records (topic key: message.timestamp.type).",
    "log.message.timestamp.difference.max.ms": "Default largest timestamp gap accepted (topic key: "
                                               "message.timestamp.difference.max.ms).",
    "log.message.downconversion.enable": "Default for message.downconversion.enable.",
    "log.preallocate": "Default for preallocating segment files (topic key: preallocate).",
    "log.message.format.version": "Default record format version (topic key: message.format.version).",
    "num.recovery.threads.per.data.dir": "Threads per log directory that recover logs at start-up and "
                                         "flush them at shutdown.",
    "message.max.bytes": "Default largest record batch accepted (topic key: max.message.bytes).",
    "min.insync.replicas": "Default fewest in-sync replicas for an acks=all write (topic key: "
                           "min.insync.replicas).",
    "unclean.leader.election.enable": "Default for electing an out-of-sync replica as last-resort leader.",
    "compression.type": "Default compression kept for topics (topic key: compression.type).",
    # ---- log cleaner (compaction)
    "log.cleaner.enable": "Whether the log cleaner runs, compacting topics whose policy includes compact.",
    "log.cleaner.threads": "Number of log cleaner threads.",
    "log.cleaner.dedupe.buffer.size": "Memory, over all cleaner threads, for the key-to-offset map that "
                                      "finds the latest record of each key.",
    "log.cleaner.io.buffer.size": "Memory, over all cleaner threads, for the read and write buffers.",
    "log.cleaner.io.buffer.load.factor": "How full the cleaner's dedupe map may get before a cleaning "
                                         "pass stops adding keys.",
    "log.cleaner.io.max.bytes.per.second": "Most bytes per second the cleaner threads read and write "
                                           "together.",
    "log.cleaner.backoff.ms": "Time a cleaner thread sleeps when there is nothing to clean.",
    "log.cleaner.min.cleanable.ratio": "Default dirty ratio that makes a log cleanable (topic key: "
                                       "min.cleanable.dirty.ratio).",
    "log.cleaner.delete.retention.ms": "Default time tombstones are kept (topic key: delete.retention.ms).",
    "log.cleaner.min.compaction.lag.ms": "Default least age before a record may be compacted (topic key: "
                                         "min.compaction.lag.ms).",
    "log.cleaner.max.compaction.lag.ms": "Default most age before a record must be compactable (topic key: "
                                         "max.compaction.lag.ms).",
    # ---- replication
    "controller.socket.timeout.ms": "Socket timeout of the controller's connections to brokers.",
    "replica.lag.time.max.ms": "Time after which a follower that has not caught up or fetched leaves "
                               "the ISR.",
    "replica.fetch.max.bytes": "Bytes a follower asks for per partition in each fetch.",
    "replica.fetch.response.max.bytes": "Bytes a follower asks for in a whole fetch response.",
    "replica.fetch.wait.max.ms": "Longest a follower's fetch waits at the leader for data.",
    "replica.fetch.min.bytes": "Fewest bytes a follower's fetch waits for at the leader.",
    "num.replica.fetchers": "Fetcher threads per source broker that replicate partitions.",
    "replica.fetch.backoff.ms": "Time a fetcher waits after a fetch error.",
    "num.replica.alter.log.dirs.threads": "Threads that move replicas between log directories (unset: one "
                                          "per log directory).",
    "replica.socket.timeout.ms": "Socket timeout of followers' fetch requests.",
    "replica.high.watermark.checkpoint.interval.ms": "How often high watermarks are saved to disk.",
    "auto.leader.rebalance.enable": "Whether the controller moves leadership back to preferred replicas "
                                    "on its own.",
    "leader.imbalance.check.interval.seconds": "How often the controller checks leadership balance.",
    "leader.imbalance.per.broker.percentage": "Share of a broker's partitions led by others above which "
                                              "the controller rebalances.",
    "controlled.shutdown.enable": "Whether a stopping broker first hands its leaderships over.",
    "controlled.shutdown.max.retries": "Times a controlled shutdown is tried before the broker stops anyway.",
    "controlled.shutdown.retry.backoff.ms": "Time between controlled shutdown attempts.",
    "fetch.max.bytes": "Most bytes the broker returns in one fetch response.",
    "fetch.purgatory.purge.interval.requests": "Fetch requests between purges of completed entries from "
                                               "the fetch purgatory.",
    "producer.purgatory.purge.interval.requests": "Produce requests between purges of completed entries "
                                                  "from the produce purgatory.",
    "max.request.partition.size.limit": "Most partitions one DescribeTopicPartitions answer holds; clients page "
                                        "through the rest with its cursor.",
    "max.incremental.fetch.session.cache.slots": "Most incremental fetch sessions the broker keeps.",
    # ---- groups and offsets
    "group.min.session.timeout.ms": "Shortest session timeout a group member may ask for.",
    "group.max.session.timeout.ms": "Longest session timeout a group member may ask for.",
    "group.initial.rebalance.delay.ms": "Time a new group's first rebalance waits for more members.",
    "group.max.size": "Most members one consumer group may have.",
    "group.coordinator.rebalance.protocols": "Group protocols the coordinator serves: classic (JoinGroup/SyncGroup) "
                                             "and consumer (KIP-848, ConsumerGroupHeartbeat).",
    "group.consumer.session.timeout.ms": "How long a consumer-protocol member may go without a heartbeat "
                                         "before it is fenced.",
    "group.consumer.heartbeat.interval.ms": "Heartbeat interval the coordinator gives consumer-protocol members.",
    "group.consumer.assignors": "Server-side assignors of consumer-protocol groups (uniform, range); the first "
                                "is the default.",
    "offset.metadata.max.bytes": "Largest metadata string a committed offset may carry.",
    "offsets.topic.num.partitions": "Partitions of __consumer_offsets (do not change once created).",
    "offsets.topic.replication.factor": "Replication factor of __consumer_offsets.",
    "offsets.topic.segment.bytes": "Segment size of __consumer_offsets.",
    "offsets.retention.minutes": "How long an empty group's committed offsets are kept.",
    "offsets.retention.check.interval.ms": "How often expired offsets are looked for.",
    "offsets.commit.timeout.ms": "Longest an offset commit waits for its write to __consumer_offsets to be "
                                 "replicated.",
    # ---- transactions
    "transaction.state.log.num.partitions": "Partitions of __transaction_state.",
    "transaction.state.log.replication.factor": "Replication factor of __transaction_state.",
    "transaction.max.timeout.ms": "Longest transaction timeout a producer may ask for.",
    "transactional.id.expiration.ms": "Time without updates after which a transactional id's state is "
                                      "dropped.",
    "transaction.state.log.min.isr": "min.insync.replicas of __transaction_state.",
    "transaction.state.log.load.buffer.size": "Bytes read at a time when loading __transaction_state.",
    "transaction.state.log.segment.bytes": "Segment size of __transaction_state.",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "How often transactions past their "
                                                                   "timeout are looked for and aborted.",
    "transaction.remove.expired.transaction.cleanup.interval.ms": "How often expired transactional ids "
                                                                  "are looked for and removed.",
    "producer.id.expiration.ms": "Time without writes after which a producer id's state in a partition "
                                 "is dropped.",
    # ---- quotas
    "quota.producer.default": "Default produce byte rate per client id (deprecated in favour of dynamic "
                              "quotas).",
    "quota.consumer.default": "Default fetch byte rate per client id (deprecated in favour of dynamic "
                              "quotas).",
    "quota.window.num": "Number of samples kept for client quotas.",
    "quota.window.size.seconds": "Length of each client quota sample.",
    "replication.quota.window.num": "Number of samples kept for replication quotas.",
    "replication.quota.window.size.seconds": "Length of each replication quota sample.",
    "alter.log.dirs.replication.quota.window.num": "Number of samples kept for alter log dirs replication quotas.",
    "alter.log.dirs.replication.quota.window.size.seconds": "Length of each alter log dirs replication quota sample.",
    # Kafka: DynamicConfig.Broker -- only ever dynamic
    "leader.replication.throttled.rate": "Upper bound (bytes/sec) on the replication traffic of the leaders named in "
                                         "each topic's leader.replication.throttled.replicas. Dynamic only.",
    "follower.replication.throttled.rate": "Upper bound (bytes/sec) on the replication traffic of the followers "
                                           "named in each topic's follower.replication.throttled.replicas. "
                                           "Dynamic only.",
    "replica.alter.log.dirs.io.max.bytes.per.second": "Upper bound (bytes/sec) on the disk IO of moving replicas "
                                                      "between log directories of this broker. Dynamic only.",
    "client.quota.callback.class": "Class that decides client quotas instead of the built-in rules.",
    # ---- SSL
    "ssl.protocol": "TLS protocol used to build the SSL context.",
    "ssl.provider": "Security provider for SSL (accepted, no effect in kafkalite).",
    "ssl.cipher.suites": "Cipher suites allowed on TLS connections (empty: the library's defaults).",
    "ssl.enabled.protocols": "TLS versions allowed on TLS connections.",
    "ssl.keystore.type": "Format of the key store file.",
    "ssl.keystore.location": "Path of the key store holding this broker's key and certificate.",
    "ssl.keystore.password": "Password of the key store file.",
    "ssl.keystore.key": "Private key in PEM, given inline instead of a key store file.",
    "ssl.keystore.certificate.chain": "Certificate chain in PEM, given inline instead of a key store file.",
    "ssl.key.password": "Password of the private key in the key store.",
    "ssl.truststore.type": "Format of the trust store file.",
    "ssl.truststore.location": "Path of the trust store holding the certificates to trust.",
    "ssl.truststore.password": "Password of the trust store file.",
    "ssl.truststore.certificates": "Trusted certificates in PEM, given inline instead of a trust store file.",
    "ssl.keymanager.algorithm": "Key manager factory algorithm (accepted, no effect in kafkalite).",
    "ssl.trustmanager.algorithm": "Trust manager factory algorithm (accepted, no effect in kafkalite).",
    "ssl.endpoint.identification.algorithm": "How the peer's host name is checked against its certificate "
                                             "(https, or empty for no check).",
    "ssl.secure.random.implementation": "Random number generator for SSL (accepted, no effect in "
                                        "kafkalite).",
    "ssl.client.auth": "Whether clients must (required), may (requested) or need not (none) present a "
                       "certificate.",
    "ssl.principal.mapping.rules": "Rules that turn a client certificate's distinguished name into a "
                                   "principal name.",
    # ---- kafkalite's own
    "kafkalite.metrics.port": "kafkalite only: port of the Prometheus metrics endpoint (0: off).",
    "kafkalite.request.trace": "kafkalite only: log each request's way through the broker's threads.",
    "kafkalite.request.priority": "kafkalite only: order of the request queue (fifo, or control-first).",
    "kafkalite.test.disable.fixes": "kafkalite only, for tests: Kafka bug fixes to switch off to show what "
                                    "they prevent; never for real use.",
}


# Kafka 2.6: AdminManager.brokerDocumentation (KafkaConfig.documentationOf)
def broker_documentation(name: str) -> str | None:
    return BROKER_CONFIG_DOCS.get(name)


# Kafka 3.x: the topic key's own documentation (ConfigHelper; see the era notes above)
def topic_documentation(name: str) -> str | None:
    return TOPIC_CONFIG_DOCS.get(name)

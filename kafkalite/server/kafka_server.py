"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaServer.scala

Classes: KafkaServer.

``startup()`` reads as Kafka 2.4's boot order (S28): ZooKeeper client and cluster id, scheduler,
LogManager, MetadataCache, SocketServer (bound, not yet processing), ReplicaManager, broker
registration, KafkaController, AdminManager, GroupCoordinator and TransactionCoordinator, then KafkaApis
and the request handler pools, and only at the very end the Processors start reading requests -- control
plane first (S23). ``shutdown()`` runs the same list backwards.
Omitted: controlled shutdown (single broker), token/credential caches.
"""
from __future__ import annotations

import os
import threading

from kafkalite.cluster.broker import EndPoint
from kafkalite.common.config.config_def import convert_to_string
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_dir_failure_channel import LogDirFailureChannel
from kafkalite.log.cleaner_config import cleaner_config
from kafkalite.log.log_manager import LogManager
from kafkalite.network.socket_server import SocketServer
from kafkalite.protocol.errors import Errors
from kafkalite.server.admin_manager import AdminManager
from kafkalite.server.dynamic_broker_config import DynamicLogConfig, dynamic_config_of
from kafkalite.security.authenticator.credential_cache import CredentialProvider
from kafkalite.common.metrics.metrics import Metrics
from kafkalite.server import quota_factory
from kafkalite.server.dynamic_config_manager import (BrokerConfigHandler, ClientIdConfigHandler, DynamicConfigManager,
                                                     TopicConfigHandler, UserConfigHandler)
from kafkalite.server.fetch_session import MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS, FetchManager, FetchSessionCache
from kafkalite.server.kafka_apis import KafkaApis
from kafkalite.server.kafka_request_handler import KafkaRequestHandlerPool
from kafkalite.server.metadata_cache import MetadataCache
from kafkalite.server.replica_manager import ReplicaManager
from kafkalite.utils.kafka_scheduler import KafkaScheduler
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM
from kafkalite.zk.kafka_zk_client import KafkaZkClient
from kafkalite.zk.zk_data import BrokerInfo
from kafkalite.zookeeper.zoo_keeper_client import embedded_data_dir, is_embedded

META_PROPERTIES = "meta.properties"

# Kafka: KafkaServer.copyKafkaConfigToLog -- broker-wide log.* keys become topic-level defaults.
BROKER_TO_TOPIC_CONFIG = {
    "log.segment.bytes": "segment.bytes",
    "log.index.size.max.bytes": "segment.index.bytes",
    "log.index.interval.bytes": "index.interval.bytes",
    "log.retention.bytes": "retention.bytes",
    "log.cleanup.policy": "cleanup.policy",
    "message.max.bytes": "max.message.bytes",
    "log.message.timestamp.type": "message.timestamp.type",
    "log.message.timestamp.difference.max.ms": "message.timestamp.difference.max.ms",
    "log.preallocate": "preallocate",
    "min.insync.replicas": "min.insync.replicas",
    "compression.type": "compression.type",
    "unclean.leader.election.enable": "unclean.leader.election.enable",
    "log.flush.interval.messages": "flush.messages",
    "log.segment.delete.delay.ms": "file.delete.delay.ms",
    "log.cleaner.delete.retention.ms": "delete.retention.ms",
    "log.cleaner.min.compaction.lag.ms": "min.compaction.lag.ms",
    "log.cleaner.max.compaction.lag.ms": "max.compaction.lag.ms",
    "log.cleaner.min.cleanable.ratio": "min.cleanable.dirty.ratio",
}


class KafkaServer(Logging):
    """Kafka: KafkaServer(config, time, threadNamePrefix)."""
    logger_name = "kafka.server.KafkaServer"   # Kafka: the log4j logger its lines go to

    def __init__(self, config, time=SYSTEM):
        self.config = config
        self.time = time
        self.log_ident = f"[KafkaServer id={config.broker_id}] "
        self.broker_id = config.broker_id
        self.cluster_id: str | None = None
        self.broker_epoch = -1
        self.zk_client = None
        self.kafka_scheduler = None
        self.log_manager = None
        self.metadata_cache = None
        self.socket_server = None
        self.replica_manager = None
        self.kafka_controller = None
        self.fetch_manager = None
        self.admin_manager = None
        self.group_coordinator = None
        self.transaction_coordinator = None
        self.data_plane_request_processor = None
        self.data_plane_request_handler_pool = None
        self.control_plane_request_processor = None
        self.control_plane_request_handler_pool = None
        self.metrics_reporter = None
        self.dynamic_config_manager = None
        self.authorizer = None
        self.quota_managers = None
        self._shutdown_latch = threading.Event()
        self._started = False

    # ------------------------------------------------------------------ startup
    # Kafka: KafkaServer.startup
    def startup(self, wait_for_metadata_s: float = 15.0) -> None:
        self.info("starting")
        cfg = self.config
        if is_embedded(cfg.zk_connect) and embedded_data_dir(cfg.zk_connect, None) is None:
            try:   # the in-process ZooKeeper stand-in lives in the first log dir (DESIGN §6)
                os.makedirs(cfg.log_dirs[0], exist_ok=True)
            except OSError as e:
                raise Errors.KAFKA_STORAGE_ERROR.exception(
                    f"log.dirs={','.join(cfg.log_dirs)}: cannot create {cfg.log_dirs[0]}, where the in-process "
                    f"ZooKeeper keeps its data: {e.strerror or e}") from None
        # 1. ZooKeeper (or the in-process stand-in), cluster id, broker id
        self.zk_client = KafkaZkClient.create(cfg.zk_connect, cfg.zk_session_timeout_ms, cfg.log_dirs[0], self.time)
        self.zk_client.create_top_level_paths()
        self.cluster_id = self.get_or_generate_cluster_id()
        self.info(f"Cluster ID = {self.cluster_id}")
        self.broker_id = self.get_broker_id()
        # Kafka: config.brokerId = getOrGenerateBrokerId(...) -- every component built below sees the real id
        cfg.broker_id = self.broker_id
        cfg.values["broker.id"] = self.broker_id
        cfg.originals["broker.id"] = str(self.broker_id)
        dynamic_config_of(cfg).initialize(self.zk_client)   # Kafka: config.dynamicConfig.initialize(zkClient)
        self.log_ident = f"[KafkaServer id={self.broker_id}] "
        # 2. background scheduler
        self.kafka_scheduler = KafkaScheduler(cfg.get("background.threads"))
        self.kafka_scheduler.startup()
        # 3. logs
        self.log_dir_failure_channel = LogDirFailureChannel(len(cfg.log_dirs))
        self.log_manager = LogManager(
            cfg.log_dirs, self.default_log_config(), topic_configs=self.topic_configs(), scheduler=self.kafka_scheduler,
            time=self.time, flush_check_ms=cfg.log_flush_interval_ms if cfg.log_flush_interval_ms < 2**62 else 60_000,
            retention_check_ms=cfg.get("log.retention.check.interval.ms"),
            flush_recovery_offset_checkpoint_ms=cfg.get("log.flush.offset.checkpoint.interval.ms"),
            flush_start_offset_checkpoint_ms=cfg.get("log.flush.start.offset.checkpoint.interval.ms"),
            initial_task_delay_ms=cfg.get("log.initial.task.delay.ms"),
            max_pid_expiration_ms=cfg.get("producer.id.expiration.ms"),
            log_dir_failure_channel=self.log_dir_failure_channel, cleaner_config=cleaner_config(cfg),
            num_recovery_threads_per_data_dir=cfg.get("num.recovery.threads.per.data.dir"))
        self.log_manager.startup()
        # 4. metadata cache
        self.metadata_cache = MetadataCache(self.broker_id)
        # 5. sockets: bound now (ports are known), processors start at the end
        # Kafka: credentialProvider = new CredentialProvider(ScramMechanism.mechanismNames, tokenCache)
        self.credential_provider = CredentialProvider()
        self.socket_server = SocketServer(cfg, self.time, self.credential_provider,
                                          api_versions_response=KafkaApis.api_versions_response)
        self.socket_server.startup(start_processing_requests=False)
        # Kafka: quotaManagers = QuotaFactory.instantiate(config, metrics, time, threadNamePrefix) -- client quotas
        # and the replication quotas the ReplicaManager's fetch paths use, so made before it
        self.quota_managers = quota_factory.instantiate(cfg, Metrics(clock=self.time.milliseconds), self.time)
        # 6. replica manager
        self.replica_manager = ReplicaManager(cfg, self.time, self.zk_client, self.kafka_scheduler, self.log_manager,
                                              self.metadata_cache, self.log_config_for,
                                              log_dir_failure_channel=self.log_dir_failure_channel,
                                              quota_managers=self.quota_managers)
        self.replica_manager.startup()
        # 7. register this broker: its epoch is the czxid of the ephemeral znode
        self.broker_epoch = self.zk_client.register_broker(self.create_broker_info())
        self.checkpoint_broker_metadata()
        # 8. controller
        from kafkalite.controller.kafka_controller import KafkaController
        self.kafka_controller = KafkaController(cfg, self.zk_client, self.time, self.create_broker_info(),
                                                self.broker_epoch)
        self.kafka_controller.startup()
        # 9. admin manager, group coordinator, transaction coordinator
        self.admin_manager = AdminManager(cfg, self.metadata_cache, self.zk_client, self.log_config_for)
        self.admin_manager.log_creation_error = self.replica_manager.log_creation_error
        self.group_coordinator = self.create_group_coordinator()
        if self.group_coordinator is not None:
            self.group_coordinator.startup()
        # Kafka: TransactionCoordinator(config, replicaManager, new KafkaScheduler(threads = 1,
        # threadNamePrefix = "transaction-log-manager-"), zkClient, metrics, metadataCache, Time.SYSTEM); it also
        # builds the ProducerIdManager (blocks of ids from ZooKeeper) that InitProducerId draws from
        self.transaction_coordinator = TransactionCoordinator.create(cfg, self.replica_manager, self.zk_client,
                                                                     self.metadata_cache, self.time)
        self.transaction_coordinator.startup()
        # Kafka: "Get the authorizer and initialize it if one is specified" (config.authorizer, configure(originals))
        self.authorizer = self.create_authorizer()
        # Kafka: fetchManager = new FetchManager(Time.SYSTEM, new FetchSessionCache(...)) -- both planes share it
        self.fetch_manager = FetchManager(self.time, FetchSessionCache(
            cfg.get("max.incremental.fetch.session.cache.slots"), MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS))
        # 10.-11. request processing: KafkaApis + handler pools per plane
        self.data_plane_request_processor = self.create_apis(self.socket_server.data_plane_request_channel)
        self.data_plane_request_handler_pool = KafkaRequestHandlerPool(
            self.broker_id, self.socket_server.data_plane_request_channel, self.data_plane_request_processor,
            self.time, cfg.num_io_threads, "RequestHandlerAvgIdlePercent", "data-plane")
        if self.socket_server.control_plane_request_channel_opt is not None:
            self.control_plane_request_processor = self.create_apis(self.socket_server.control_plane_request_channel_opt)
            self.control_plane_request_handler_pool = KafkaRequestHandlerPool(
                self.broker_id, self.socket_server.control_plane_request_channel_opt,
                self.control_plane_request_processor, self.time, 1,
                "ControlPlaneRequestHandlerAvgIdlePercent", "control-plane")
        # 12. dynamic configs (S24): who reconfigures what, and the /config/changes listener
        dynamic = dynamic_config_of(cfg)
        dynamic.add_reconfigurable(DynamicLogConfig(self.log_manager, self))
        dynamic.add_reconfigurable(self.socket_server)
        self.dynamic_config_manager = DynamicConfigManager(self.zk_client, {
            "topics": TopicConfigHandler(self.log_manager, self.kafka_controller, cfg, self.quota_managers),
            "brokers": BrokerConfigHandler(cfg, dynamic, self.quota_managers),
            "users": UserConfigHandler(self.quota_managers, self.credential_provider),
            "clients": ClientIdConfigHandler(self.quota_managers)})
        self.dynamic_config_manager.startup()
        self.start_metrics_reporter()
        # 13. now the processors read requests
        self.socket_server.start_processing_requests()
        self._started = True
        self.await_own_metadata(wait_for_metadata_s)
        self.info("started")

    def create_apis(self, request_channel) -> KafkaApis:
        return KafkaApis(request_channel, self.replica_manager, self.admin_manager, self.group_coordinator,
                         self.transaction_coordinator, self.kafka_controller, self.zk_client, self.broker_id,
                         self.config, self.metadata_cache, self.time, self.cluster_id,
                         # Kafka: controller.brokerEpoch -- re-registration after a session expiry renews it
                         broker_epoch_fn=lambda: self.kafka_controller.broker_epoch, authorizer=self.authorizer,
                         fetch_manager=self.fetch_manager, quotas=self.quota_managers)

    # Kafka: KafkaServer.startup (config.authorizer, authorizer.configure(config.originals)) --
    # None without authorizer.class.name: every request is allowed
    def create_authorizer(self):
        class_name = (self.config.get("authorizer.class.name") or "").strip()
        if not class_name:
            return None
        from kafkalite.security.authorizer.authorizer_utils import AuthorizerUtils
        authorizer = AuthorizerUtils.create_authorizer(class_name)
        if hasattr(authorizer, "zk_client"):   # AclAuthorizer: on this broker's ZooKeeper session
            authorizer.configure(dict(self.config.originals), self.zk_client)
        else:
            authorizer.configure(dict(self.config.originals))
        authorizer.start()
        return authorizer

    def create_group_coordinator(self):
        from kafkalite.coordinator.group.group_coordinator import GroupCoordinator
        return GroupCoordinator.create(self.config, self.zk_client, self.replica_manager, self.time)

    def start_metrics_reporter(self) -> None:
        if self.config.metrics_port:
            from kafkalite.metrics.prometheus_reporter import PrometheusReporter
            self.metrics_reporter = PrometheusReporter(self)
            self.metrics_reporter.start()

    def await_own_metadata(self, timeout_s: float) -> None:
        """Wait (bounded) until the controller's first UpdateMetadata has reached this broker, so the
        first Metadata request a client sends already lists the cluster's brokers."""
        if not self.metadata_cache.wait_for(lambda c: c.get_alive_broker(self.broker_id) is not None, timeout_s):
            self.warn(f"No UpdateMetadata from the controller within {timeout_s}s; serving anyway")

    # ------------------------------------------------------------------ identity
    # Kafka: KafkaServer.getOrGenerateClusterId
    def get_or_generate_cluster_id(self) -> str:
        cluster_id = self.zk_client.get_or_create_cluster_id()
        for d in self.config.log_dirs:
            meta = self.read_meta_properties(d)
            if meta.get("cluster.id") and meta["cluster.id"] != cluster_id:
                raise RuntimeError(f"The Cluster ID {cluster_id} doesn't match stored clusterId "
                                   f"Some({meta['cluster.id']}) in meta.properties. The broker is trying to join the "
                                   f"wrong cluster. Configured zookeeper.connect may be wrong.")
        return cluster_id

    # Kafka: KafkaServer.getOrGenerateBrokerId
    def get_broker_id(self) -> int:
        stored = {int(m["broker.id"]) for m in map(self.read_meta_properties, self.config.log_dirs)
                  if m.get("broker.id")}
        if len(stored) > 1:
            raise RuntimeError(f"Failed to match broker.id across log.dirs: {sorted(stored)}")
        if self.config.broker_id >= 0:
            if stored and self.config.broker_id not in stored:
                raise RuntimeError(f"Configured broker.id {self.config.broker_id} doesn't match stored broker.id "
                                   f"{stored.pop()} in meta.properties.")
            return self.config.broker_id
        if stored:
            return stored.pop()
        if not self.config.get("broker.id.generation.enable"):
            raise RuntimeError("broker.id is -1 and broker.id.generation.enable is false: set broker.id")
        # Kafka: generateBrokerId -- a cluster-wide sequence above the reserved ids
        return self.config.get("reserved.broker.max.id") + self.zk_client.generate_broker_sequence_id()

    @staticmethod
    def read_meta_properties(log_dir: str) -> dict[str, str]:
        path = os.path.join(log_dir, META_PROPERTIES)
        if not os.path.exists(path):
            return {}
        from kafkalite.server.kafka_config import load_properties
        return load_properties(path)

    # Kafka: KafkaServer.checkpointBrokerMetadata (BrokerMetadataCheckpoint)
    def checkpoint_broker_metadata(self) -> None:
        for d in self.log_manager.live_log_dirs:
            path = os.path.join(d, META_PROPERTIES)
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                f.write("#\n#" + self.time_string() + "\nversion=0\n"
                        f"broker.id={self.broker_id}\ncluster.id={self.cluster_id}\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)

    @staticmethod
    def time_string() -> str:
        import time as _t
        return _t.strftime("%a %b %d %H:%M:%S %Z %Y")

    # Kafka: KafkaServer.createBrokerInfo -- advertised endpoints, with port 0 replaced by the bound port.
    def create_broker_info(self) -> BrokerInfo:
        endpoints = []
        for ep in self.config.advertised_listeners:
            port = ep.port or self.socket_server.bound_port(ep.listener_name)
            host = ep.host or "localhost"
            endpoints.append(EndPoint(host, port, ep.listener_name, ep.security_protocol).connection_string())
        return BrokerInfo(self.broker_id, tuple(endpoints), dict(self.config.listener_security_protocol_map),
                          self.config.get("broker.rack"))

    def bound_port(self, listener_name: str = "PLAINTEXT") -> int:
        return self.socket_server.bound_port(listener_name)

    # ------------------------------------------------------------------ log configs
    def default_log_config(self) -> LogConfig:
        return LogConfig.from_props(self.log_default_props(), {})

    def log_default_props(self) -> dict:
        v = self.config.values
        props = {topic_key: v[broker_key] for broker_key, topic_key in BROKER_TO_TOPIC_CONFIG.items()
                 if v.get(broker_key) is not None}
        props["cleanup.policy"] = ",".join(v["log.cleanup.policy"])
        props["retention.ms"] = self.config.log_retention_time_millis
        props["segment.ms"] = self.config.log_roll_time_millis
        if v.get("log.flush.interval.ms") is not None:
            props["flush.ms"] = v["log.flush.interval.ms"]
        return {k: convert_to_string(x) for k, x in props.items()}   # as Java prints them: NaN, 1.0E-4, true

    def topic_configs(self) -> dict[str, dict]:
        return {t: self.zk_client.get_entity_configs("topics", t) for t in self.zk_client.get_all_topics_in_cluster()}

    def log_config_for(self, topic: str) -> LogConfig:
        """Kafka: LogConfig.fromProps(logManager.currentDefaultConfig.originals, zk topic overrides)."""
        return LogConfig.from_props(self.log_default_props(), self.zk_client.get_entity_configs("topics", topic))

    # ------------------------------------------------------------------ shutdown
    # Kafka: KafkaServer.shutdown -- the start-up list backwards.
    def shutdown(self) -> None:
        self.info("shutting down")
        if self._started:
            self.swallow(self.controlled_shutdown)
        steps = [
            (self.dynamic_config_manager, "shutdown"),
            (self.socket_server, "stop_processing_requests"),       # no new requests from here on
            (self.data_plane_request_handler_pool, "shutdown"),
            (self.control_plane_request_handler_pool, "shutdown"),
            (self.kafka_scheduler, "shutdown"),                     # no retention/flush/checkpoint task after this
            (self.quota_managers, "shutdown"),                      # the ThrottledChannelReaper threads
            (self.metrics_reporter, "stop"),
            (self.transaction_coordinator, "shutdown"),
            (self.group_coordinator, "shutdown"),
            (self.replica_manager, "shutdown"),
            (self.admin_manager, "shutdown"),
            (self.log_manager, "shutdown"),                         # flush, checkpoints, clean-shutdown marker
            (self.kafka_controller, "shutdown"),
            (self.authorizer, "close"),
            (self.zk_client, "close"),
            (self.socket_server, "shutdown"),
        ]
        for component, method in steps:
            if component is not None:
                self.swallow(getattr(component, method))
        self._shutdown_latch.set()
        self.info("shut down completed")

    # Kafka: KafkaServer.controlledShutdown -- ask the controller to move this broker's leaderships away before
    # stopping (controlled.shutdown.enable); retried controlled.shutdown.max.retries times, then the broker
    # stops anyway ("an unclean shutdown": its partitions are led by no one until the controller sees it gone)
    def controlled_shutdown(self) -> None:
        if not self.config.get("controlled.shutdown.enable"):
            return
        self.info("Starting controlled shutdown")
        if not self.do_controlled_shutdown(self.config.get("controlled.shutdown.max.retries")):
            self.warn("Proceeding to do an unclean shutdown as all the controlled shutdown attempts failed")

    # Kafka: KafkaServer.controlledShutdown's doControlledShutdown -- True once the controller answers with no
    # partition left to move
    def do_controlled_shutdown(self, retries: int) -> bool:
        from kafkalite.clients.network_client import NetworkClient
        from kafkalite.clients.network_client_utils import NetworkClientUtils
        from kafkalite.clients.node import Node
        from kafkalite.network.channel_builders import broker_client_channel_builder
        from kafkalite.network.selector import Selector
        from kafkalite.protocol.api_keys import ApiKeys
        from kafkalite.protocol.messages.controlled_shutdown import ControlledShutdownRequest
        cfg = self.config
        socket_timeout_ms = cfg.get("controller.socket.timeout.ms")
        log_context = f"[Controlled shutdown broker={self.broker_id}] "
        network_client = NetworkClient(
            Selector(max_receive_size=cfg.get("socket.request.max.bytes"), time=self.time, log_context=log_context,
                     channel_builder=broker_client_channel_builder(cfg, time=self.time)),
            None, client_id=str(self.broker_id), max_in_flight_requests_per_connection=1, reconnect_backoff_ms=0,
            reconnect_backoff_max_ms=0, request_timeout_ms=cfg.get("request.timeout.ms"), time=self.time,
            log_context=log_context)
        controller_node = None
        try:
            for _ in range(retries):
                # 1. the current controller, as ZooKeeper names it
                controller_id = self.zk_client.get_controller_id()
                broker = self.zk_client.get_broker(controller_id) if controller_id is not None else None
                address = broker.endpoint(cfg.inter_broker_listener_name) if broker is not None else None
                if address is None:
                    self.info(f"No controller registered in ZooKeeper (controller id {controller_id})")
                else:
                    node = Node(broker.id, address[0], address[1])
                    if controller_node is not None and controller_node != node:
                        network_client.close(controller_node.id_string)
                    controller_node = node
                    # 2. ask it to move this broker's leaderships
                    try:
                        if not NetworkClientUtils.await_ready(network_client, node, socket_timeout_ms, self.time):
                            raise TimeoutError(f"Failed to connect within {socket_timeout_ms} ms")
                        request = network_client.new_client_request(node.id_string, ApiKeys.CONTROLLED_SHUTDOWN,
                                                                    ControlledShutdownRequest(
                                                                        broker_id=self.broker_id,
                                                                        broker_epoch=self.kafka_controller.broker_epoch))
                        response = NetworkClientUtils.send_and_receive(network_client, request, self.time).response_body
                        if response.error_code == Errors.NONE.code and not response.remaining_partitions:
                            self.info("Controlled shutdown succeeded")
                            return True
                        remaining = [f"{p.topic_name}-{p.partition_index}" for p in response.remaining_partitions]
                        self.info(f"Remaining partitions to move: {remaining}")
                        self.info(f"Error from controller: {Errors.for_code(response.error_code).name}")
                    except (OSError, TimeoutError) as e:
                        network_client.close(node.id_string)
                        self.warn(f"Error during controlled shutdown, possibly because leader movement took longer "
                                  f"than the configured controller.socket.timeout.ms and/or request.timeout.ms: {e}")
                self.time.sleep(cfg.get("controlled.shutdown.retry.backoff.ms"))
                self.warn("Retrying controlled shutdown after the previous attempt failed...")
        finally:
            network_client.close()
        return False

    # Kafka: CoreUtils.swallow -- one component failing to stop must not keep the others running
    def swallow(self, action) -> None:
        try:
            action()
        except Exception as e:  # noqa: BLE001
            self.error(f"Error during shutdown of {getattr(action, '__qualname__', action)}: {e}", exc_info=True)

    # Kafka: KafkaServer.awaitShutdown
    def await_shutdown(self, timeout: float | None = None) -> bool:
        return self._shutdown_latch.wait(timeout)

    def partition(self, topic: str, partition: int):
        return self.replica_manager.get_partition(TopicPartition(topic, partition))

"""No Kafka counterpart: Kafka registers each gauge below in the constructor of the class that owns
the value (SocketServer, RequestChannel, KafkaRequestHandlerPool, ReplicaManager, KafkaController);
kafkalite registers them in one place, from a started KafkaServer, when the metrics reporter starts,
so the hot-path classes stay as they are. Each gauge names its owner as the MBean ``type``.

Functions: register_broker_metrics(server) -> list[MetricName], remove_broker_metrics(names).

The gauges of S7:
- ``kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent`` (data-plane Processors,
  averaged) and ``...ControlPlaneNetworkProcessorAvgIdlePercent``; per Processor
  ``kafka.network:type=Processor,name=IdlePercent,networkProcessor=<id>``. The idle time is the
  time a Processor spends inside ``Selector.poll`` waiting for sockets.
- ``kafka.network:type=RequestChannel,name=RequestQueueSize`` (``ControlPlaneRequestQueueSize``),
  ``...ResponseQueueSize`` (all Processors) and ``...ResponseQueueSize,processor=<id>``.
- ``kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent``
  (``ControlPlaneRequestHandlerAvgIdlePercent``): time handler threads spend waiting for a request.
- ``kafka.server:type=ReplicaManager,name=IsrShrinksPerSec`` / ``IsrExpandsPerSec`` /
  ``FailedIsrUpdatesPerSec`` (meters, marked by the partitions' state store), ``PartitionCount``, ``LeaderCount``,
  ``UnderReplicatedPartitions``, ``UnderMinIsrPartitionCount``, ``AtMinIsrPartitionCount``, ``OfflineReplicaCount``; ``kafka.controller:type=KafkaController,
  name=ActiveControllerCount``; ``kafka.server:type=ReplicaFetcherManager,name=MaxLag`` / ``FailedPartitionsCount`` /
  ``DeadThreadCount`` (``clientId=Replica``), the same three of ``type=ReplicaAlterLogDirsManager``
  (``clientId=ReplicaAlterLogDirs``), with each fetched partition's ``FetcherLagMetrics`` ``ConsumerLag``
  registered by its fetcher thread.
- ``kafka.server:type=FetchSessionCache,name=NumIncrementalFetchSessions`` / ``NumIncrementalFetchPartitionsCached``
  (gauges) and ``IncrementalFetchSessionEvictionsPerSec`` (meter) of the broker's incremental fetch sessions.
Idle percentages are ratios (0..1, as Kafka reports them) over the last 5 seconds.
"""
from __future__ import annotations

from kafkalite.metrics.kafka_metrics_group import METRICS, Gauge, MetricName, WindowedRatioGauge

IDLE_WINDOW_S = 5.0


def _processors_idle(processors):
    return WindowedRatioGauge(lambda: sum(p.idle_nanos for p in processors), lambda: len(processors), IDLE_WINDOW_S)


def register_broker_metrics(server, registry=METRICS) -> list[MetricName]:
    names: list[MetricName] = []

    def add(group, type_, name, gauge, **tags):
        metric_name = MetricName(group, type_, name, tuple(tags.items()))
        registry.new_gauge(metric_name, gauge if isinstance(gauge, Gauge) else Gauge(gauge))
        names.append(metric_name)

    ss = server.socket_server
    data_processors = list(ss.data_plane_processors.values())
    # Kafka: SocketServer (newGauge in its constructor / startup)
    add("kafka.network", "SocketServer", "NetworkProcessorAvgIdlePercent", _processors_idle(data_processors))
    if ss.control_plane_processor_opt is not None:
        add("kafka.network", "SocketServer", "ControlPlaneNetworkProcessorAvgIdlePercent",
            _processors_idle([ss.control_plane_processor_opt]))
    # Kafka: Processor (IdlePercent, tag networkProcessor)
    for p in ss.all_processors():
        add("kafka.network", "Processor", "IdlePercent", _processors_idle([p]), networkProcessor=str(p.id))
    # Kafka: RequestChannel (queue sizes, with the control plane's metric name prefix)
    for channel in (ss.data_plane_request_channel, ss.control_plane_request_channel_opt):
        if channel is None:
            continue
        prefix = channel.metric_name_prefix
        add("kafka.network", "RequestChannel", f"{prefix}RequestQueueSize", channel.request_queue_size)
        procs = list(channel.processors.values())
        add("kafka.network", "RequestChannel", f"{prefix}ResponseQueueSize",
            lambda procs=procs: sum(p.response_queue_size() for p in procs))
        for p in procs:
            add("kafka.network", "RequestChannel", "ResponseQueueSize", p.response_queue_size, processor=str(p.id))
    # Kafka: KafkaRequestHandlerPool (RequestHandlerAvgIdlePercent / ControlPlaneRequestHandlerAvgIdlePercent)
    for pool in (server.data_plane_request_handler_pool, server.control_plane_request_handler_pool):
        if pool is not None:
            add("kafka.server", "KafkaRequestHandlerPool", pool.metric_name,
                WindowedRatioGauge(lambda pool=pool: pool._idle_nanos, lambda pool=pool: len(pool.runnables),
                                   IDLE_WINDOW_S))
    # Kafka: ReplicaManager
    rm = server.replica_manager
    for meter in ("IsrShrinksPerSec", "IsrExpandsPerSec", "FailedIsrUpdatesPerSec"):
        name = MetricName("kafka.server", "ReplicaManager", meter)
        registry.new_meter(name)
        names.append(name)
    partitions = getattr(rm, "all_partitions", None)
    if isinstance(partitions, dict):
        add("kafka.server", "ReplicaManager", "PartitionCount", lambda: len(rm.all_partitions))
        add("kafka.server", "ReplicaManager", "LeaderCount",
            lambda: sum(1 for p in list(rm.all_partitions.values()) if p.is_leader()))
        add("kafka.server", "ReplicaManager", "UnderReplicatedPartitions",
            lambda: sum(1 for p in list(rm.all_partitions.values()) if p.is_under_replicated()))
        add("kafka.server", "ReplicaManager", "UnderMinIsrPartitionCount",
            lambda: sum(1 for p in list(rm.all_partitions.values()) if p.is_under_min_isr()))
        add("kafka.server", "ReplicaManager", "AtMinIsrPartitionCount",
            lambda: sum(1 for p in list(rm.all_partitions.values()) if p.is_at_min_isr()))
        add("kafka.server", "ReplicaManager", "OfflineReplicaCount", lambda: len(rm.offline_partitions))
    # Kafka: AbstractFetcherManager (MaxLag, FailedPartitionsCount, DeadThreadCount), once per manager: the
    # ReplicaFetcherManager (clientId=Replica) and the ReplicaAlterLogDirsManager (clientId=ReplicaAlterLogDirs)
    for attr, type_name in (("replica_fetcher_manager", "ReplicaFetcherManager"),
                            ("replica_alter_log_dirs_manager", "ReplicaAlterLogDirsManager")):
        fetchers = getattr(rm, attr, None)
        if fetchers is not None:
            add("kafka.server", type_name, "MaxLag", fetchers.max_lag, clientId=fetchers.client_id)
            add("kafka.server", type_name, "FailedPartitionsCount", fetchers.failed_partitions.size,
                clientId=fetchers.client_id)
            add("kafka.server", type_name, "DeadThreadCount", fetchers.dead_thread_count, clientId=fetchers.client_id)
    # Kafka: FetchSessionCache (gauges and meter made in its constructor)
    fetch_manager = getattr(server, "fetch_manager", None)
    if fetch_manager is not None:
        cache = fetch_manager.cache
        add("kafka.server", "FetchSessionCache", "NumIncrementalFetchSessions", cache.size)
        add("kafka.server", "FetchSessionCache", "NumIncrementalFetchPartitionsCached", cache.total_partitions)
        name = MetricName("kafka.server", "FetchSessionCache", "IncrementalFetchSessionEvictionsPerSec")
        registry.new_gauge(name, cache.evictions_meter)   # the cache's own Meter, stored as given
        names.append(name)
    # Kafka: KafkaController
    controller = server.kafka_controller
    if controller is not None:
        add("kafka.controller", "KafkaController", "ActiveControllerCount", lambda: 1 if controller.is_active() else 0)
    return names


def remove_broker_metrics(names, registry=METRICS) -> None:
    for name in names:
        registry.remove_metric(name)

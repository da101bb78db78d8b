"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/ReplicaFetcherThreadTest.scala -- a follower's
ReplicaFetcherThread, on a real follower Partition and Log:

- with a recording stand-in for the connection (``leader_endpoint_blocking_send``, as Kafka's test passes a
  MockBlockingSend): what Fetch, OffsetsForLeaderEpoch and ListOffsets carry (the replica id, the
  replica.fetch.* sizes and wait, the current leader epoch, the follower's log start, no fetch session), how
  fetched data lands (the follower's high watermark is the leader's bounded by its own log end; the leader's
  log start offset moves its own), and a failed OffsetsForLeaderEpoch turning into an error per partition;
- against a real in-process leader broker (one broker leading a partition whose replicas are itself and
  broker 1, which never started; the thread plays broker 1): the follower ends with the leader's batches and
  high watermark, the leader takes it into the ISR, a follower ahead of the leader is cut back by
  OffsetsForLeaderEpoch to the leader's end and not to its high watermark (KAFKA-1211, fix switched off:
  expected to fail), and shutdown ends a fetch the leader is holding, or a connection that never answers,
  long before ``replica.socket.timeout.ms``.
"""
import socket
import time

import attrs
import pytest

from kafkalite.cluster.broker_end_point import BrokerEndPoint
from kafkalite.cluster.partition import DelayedOperations, Partition
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_manager import LogManager
from kafkalite.metrics.broker_metrics import register_broker_metrics
from kafkalite.metrics.kafka_metrics_group import METRICS, MetricsRegistry
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionState
from kafkalite.record.memory_records import MemoryRecordsBuilder
from kafkalite.server.abstract_fetcher_manager import FailedPartitions
from kafkalite.server.abstract_fetcher_thread import (
    EpochData, EpochEndOffset, OffsetAndEpoch, PartitionFetchState, ReplicaState,
)
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.server.replica_fetcher_thread import ReplicaFetcherThread
from kafkalite.utils.time import SYSTEM
from support import wait_until, with_and_without_fix

TOPIC = "replicated"
TP = TopicPartition(TOPIC, 0)


# ---------------------------------------------------------------- the follower's side, real
class NoPurgatory:
    def check_and_complete(self, key):
        return 0


class StateStore:
    def fetch_topic_config(self):
        return LogConfig()


class RecordingAlterLogDirsManager:
    """Kafka: ReplicaAlterLogDirsManager, as far as a follower's truncation reaches it."""

    def __init__(self):
        self.marked: list[tuple[int, TopicPartition, int]] = []

    def mark_partitions_for_truncation(self, broker_id, tp, offset):
        self.marked.append((broker_id, tp, offset))


class RecordingPartition(Partition):
    """A real Partition that records the offsets it is truncated to (Partition has __slots__: no method can be
    replaced on the object)."""

    __slots__ = ("truncations",)

    def truncate_to(self, offset, is_future=False):
        self.truncations.append(offset)
        super().truncate_to(offset, is_future)


class FollowerReplicaManager:
    """The two ReplicaManager methods the thread uses, over one real follower Partition."""

    def __init__(self, partition):
        self.partition = partition
        self.truncations: list[int] = []
        self.replica_alter_log_dirs_manager = RecordingAlterLogDirsManager()
        partition.truncations = self.truncations

    def non_offline_partition(self, tp):
        return self.partition if tp == self.partition.topic_partition else None

    def local_log_or_exception(self, tp):
        return self.non_offline_partition(tp).local_log_or_exception()


def follower_partition(log_dir, leader_epoch=0, broker_id=1):
    log_manager = LogManager([str(log_dir)], LogConfig(), time=SYSTEM)
    partition = RecordingPartition(TP, 10_000, broker_id, SYSTEM, StateStore(),
                          DelayedOperations(TP, NoPurgatory(), NoPurgatory(), NoPurgatory()), None, log_manager)
    partition.make_follower(0, LeaderAndIsrPartitionState(
        topic_name=TOPIC, partition_index=0, controller_epoch=1, leader=0, leader_epoch=leader_epoch, isr=[0],
        zk_version=0, replicas=[0, broker_id], is_new=True), 1)
    return partition


def follower_config(log_dir, broker_id=1, disabled_fixes=frozenset(), **overrides):
    props = {"broker.id": str(broker_id), "log.dirs": str(log_dir), "zookeeper.connect": "embedded:x",
             "replica.fetch.wait.max.ms": "50", "replica.fetch.backoff.ms": "50",
             "kafkalite.test.disable.fixes": ",".join(sorted(disabled_fixes))}
    props.update({k.replace("_", "."): str(v) for k, v in overrides.items()})
    return KafkaConfig(props)


def batches(epoch, first_offset, count):
    """One batch per record, as a leader at ``epoch`` wrote them."""
    out = bytearray()
    for offset in range(first_offset, first_offset + count):
        builder = MemoryRecordsBuilder(base_offset=offset, partition_leader_epoch=epoch)
        builder.append_with_offset(offset, 1_600_000_000_000, None, b"record-%d" % offset)
        out += bytes(builder.build().buffer)
    return bytes(out)


def batch_ids(log):
    """(base offset, leader epoch, CRC) of every batch in the log: equal lists mean byte-identical batches."""
    records = log.read(log.log_start_offset, 1 << 24, None, True).records
    return [(b.base_offset, b.partition_leader_epoch, b.checksum) for b in records.batches()]


# ---------------------------------------------------------------- the leader, recorded (Kafka's MockBlockingSend)
@attrs.define
class Response:
    response_body: object


class RecordingBlockingSend:
    def __init__(self):
        self.requests: list = []
        self.answers: dict = {}       # api key -> a response body, or an exception to raise
        self.closed = False

    def send_request(self, api_key, request):
        self.requests.append((api_key, request))
        answer = self.answers[api_key]
        if isinstance(answer, BaseException):
            raise answer
        return Response(answer)

    def initiate_close(self):
        self.closed = True

    def close(self):
        self.closed = True


def fetcher_with_recorded_leader(tmp_path, **config):
    partition = follower_partition(tmp_path / "follower")
    send = RecordingBlockingSend()
    thread = ReplicaFetcherThread("ReplicaFetcherThread-0-0", 0, BrokerEndPoint(0, "localhost", 1),
                                  follower_config(tmp_path, **config), FailedPartitions(),
                                  FollowerReplicaManager(partition), SYSTEM, leader_endpoint_blocking_send=send)
    return thread, partition, send


def test_first_fetch_request_is_a_full_follower_fetch_asking_for_a_session(tmp_path):
    thread, partition, _ = fetcher_with_recorded_leader(
        tmp_path, replica_fetch_wait_max_ms=250, replica_fetch_min_bytes=7, replica_fetch_response_max_bytes=9000,
        replica_fetch_max_bytes=3000)
    partition.append_records_to_follower_or_future_replica(_memory(batches(0, 0, 4)))
    partition.log.update_high_watermark(4)
    partition.log.maybe_increment_log_start_offset(2)
    other = TopicPartition("other", 0)
    request = thread.build_fetch({TP: PartitionFetchState(4, 5, ReplicaState.FETCHING),
                                  other: PartitionFetchState(0, 5, ReplicaState.TRUNCATING)}).result
    assert (request.replica_id, request.max_wait_ms, request.min_bytes, request.max_bytes) == (1, 250, 7, 9000)
    # KIP-227: session id 0 with epoch 0 asks the leader to open a fetch session
    assert (request.session_id, request.session_epoch, request.isolation_level) == (0, 0, 0)
    [topic] = request.topics                       # a partition still truncating is not fetched
    [p] = topic.partitions
    assert (topic.topic, p.partition, p.fetch_offset, p.current_leader_epoch, p.log_start_offset,
            p.partition_max_bytes) == (TOPIC, 0, 4, 5, 2, 3000)
    # nor one truncating, or backing off after an error
    assert thread.build_fetch({TP: PartitionFetchState(4, 5, ReplicaState.TRUNCATING)}).result is None
    delayed = PartitionFetchState(4, 5, ReplicaState.FETCHING, delayed_until_ms=SYSTEM.milliseconds() + 60_000)
    assert thread.build_fetch({TP: delayed}).result is None


def test_later_fetch_requests_are_incremental_and_name_only_moved_partitions(tmp_path):
    from kafkalite.protocol.messages.fetch import FetchableTopicResponse, FetchResponse, PartitionData
    thread, partition, send = fetcher_with_recorded_leader(tmp_path)
    other = TopicPartition(TOPIC, 1)
    thread.replica_mgr.local_log_or_exception = lambda tp: partition.log
    states = {TP: PartitionFetchState(0, 5, ReplicaState.FETCHING), other: PartitionFetchState(0, 5,
                                                                                               ReplicaState.FETCHING)}
    first = thread.build_fetch(states).result
    assert (first.session_id, first.session_epoch) == (0, 0) and len(first.topics[0].partitions) == 2
    send.answers[ApiKeys.FETCH] = FetchResponse(session_id=123, responses=[FetchableTopicResponse(
        topic=TOPIC, partitions=[PartitionData(partition_index=i, error_code=0, high_watermark=0, records=b"")
                                 for i in (0, 1)])])
    assert len(thread.fetch_from_leader(first)) == 2
    # nothing moved: an incremental fetch naming no partition (it still reads both on the leader)
    second = thread.build_fetch(states).result
    assert (second.session_id, second.session_epoch, second.topics, second.forgotten_topics_data) == (123, 1, [], [])
    send.answers[ApiKeys.FETCH] = FetchResponse(session_id=123, responses=[])
    assert thread.fetch_from_leader(second) == []
    # TP's fetch offset moved, the other partition is backing off: one partition sent, one forgotten
    states = {TP: PartitionFetchState(4, 5, ReplicaState.FETCHING),
              other: PartitionFetchState(0, 5, ReplicaState.FETCHING, delayed_until_ms=SYSTEM.milliseconds() + 60_000)}
    third = thread.build_fetch(states).result
    assert (third.session_id, third.session_epoch) == (123, 2)
    assert [(t.topic, [(p.partition, p.fetch_offset) for p in t.partitions]) for t in third.topics] == [(TOPIC, [(0, 4)])]
    assert [(f.topic, f.partitions) for f in third.forgotten_topics_data] == [(TOPIC, [1])]
    # the session is gone on the leader: the next fetch is a full one again
    send.answers[ApiKeys.FETCH] = FetchResponse(error_code=Errors.FETCH_SESSION_ID_NOT_FOUND.code, session_id=0,
                                                responses=[])
    assert thread.fetch_from_leader(third) == []
    fourth = thread.build_fetch(states).result
    assert (fourth.session_id, fourth.session_epoch) == (0, 0) and len(fourth.topics[0].partitions) == 1


def test_offsets_for_leader_epoch_and_list_offsets_carry_the_replica_id(tmp_path):
    from kafkalite.protocol.messages.list_offsets import ListOffsetsPartitionResponse, ListOffsetsResponse
    from kafkalite.protocol.messages.list_offsets import ListOffsetsTopicResponse
    from kafkalite.protocol.messages.offset_for_leader_epoch import EpochEndOffset as WireEpochEndOffset
    from kafkalite.protocol.messages.offset_for_leader_epoch import (
        OffsetForLeaderEpochResponse, OffsetForLeaderTopicResult,
    )
    thread, _, send = fetcher_with_recorded_leader(tmp_path)
    send.answers[ApiKeys.OFFSET_FOR_LEADER_EPOCH] = OffsetForLeaderEpochResponse(topics=[OffsetForLeaderTopicResult(
        topic=TOPIC, partitions=[WireEpochEndOffset(error_code=0, partition=0, leader_epoch=3,
                                                                end_offset=42)])])
    assert thread.fetch_epoch_end_offsets({TP: EpochData(5, 4)}) == {TP: EpochEndOffset(Errors.NONE, 3, 42)}
    api_key, request = send.requests[-1]
    [p] = request.topics[0].partitions
    assert (api_key, request.replica_id, p.partition, p.current_leader_epoch, p.leader_epoch) == \
        (ApiKeys.OFFSET_FOR_LEADER_EPOCH, 1, 0, 5, 4)

    send.answers[ApiKeys.LIST_OFFSETS] = ListOffsetsResponse(topics=[ListOffsetsTopicResponse(
        name=TOPIC, partitions=[ListOffsetsPartitionResponse(partition_index=0, error_code=0, offset=17)])])
    assert thread.fetch_latest_offset_from_leader(TP, 5) == 17
    assert thread.fetch_earliest_offset_from_leader(TP, 5) == 17
    sent = [(r.replica_id, r.topics[0].partitions[0].timestamp, r.topics[0].partitions[0].current_leader_epoch)
            for k, r in send.requests if k is ApiKeys.LIST_OFFSETS]
    assert sent == [(1, -1, 5), (1, -2, 5)]          # LATEST_TIMESTAMP, then EARLIEST_TIMESTAMP

    send.answers[ApiKeys.LIST_OFFSETS] = ListOffsetsResponse(topics=[ListOffsetsTopicResponse(
        name=TOPIC, partitions=[ListOffsetsPartitionResponse(partition_index=0, error_code=74, offset=-1)])])
    with pytest.raises(Errors.FENCED_LEADER_EPOCH.exception_class):
        thread.fetch_latest_offset_from_leader(TP, 5)


def test_failed_epoch_request_is_an_error_for_every_partition(tmp_path):
    thread, _, send = fetcher_with_recorded_leader(tmp_path)
    send.answers[ApiKeys.OFFSET_FOR_LEADER_EPOCH] = IOError("Connection to 0 was disconnected")
    tp1 = TopicPartition(TOPIC, 1)
    answers = thread.fetch_epoch_end_offsets({TP: EpochData(0, 0), tp1: EpochData(0, 0)})
    assert set(answers) == {TP, tp1}
    assert all(a.error is not Errors.NONE and a.end_offset == -1 for a in answers.values())


def test_process_partition_data_appends_and_takes_the_leader_offsets(tmp_path):
    thread, partition, _ = fetcher_with_recorded_leader(tmp_path)
    log = partition.log
    data = attrs.make_class("PartitionData", ["error_code", "high_watermark", "log_start_offset", "records"])
    info = thread.process_partition_data(TP, 0, data(0, 10, 0, batches(0, 0, 5)))
    # the leader's high watermark is 10 but this follower has 5: its own stops at its log end
    assert (info.last_offset, log.log_end_offset, log.high_watermark) == (4, 5, 5)
    thread.process_partition_data(TP, 5, data(0, 6, 3, batches(0, 5, 2)))
    assert (log.log_end_offset, log.high_watermark, log.log_start_offset) == (7, 6, 3)
    with pytest.raises(RuntimeError, match="Offset mismatch"):   # Kafka's IllegalStateException
        thread.process_partition_data(TP, 3, data(0, 7, 3, batches(0, 3, 1)))
    assert log.log_end_offset == 7


class FollowerQuota:
    """A follower replication quota stand-in: which partitions are throttled, whether the rate is over."""

    def __init__(self, throttled=(), exceeded=False):
        self.throttled = set(throttled)
        self.exceeded = exceeded
        self.recorded: list[int] = []

    def record(self, value):
        self.recorded.append(value)

    def is_throttled(self, tp):
        return tp in self.throttled

    def is_quota_exceeded(self):
        return self.exceeded


def test_throttled_partitions_not_in_sync_are_left_out_of_the_fetch_while_the_quota_is_exceeded(tmp_path):
    # Kafka: ReplicaFetcherThread.buildFetch / shouldFollowerThrottle (FetcherLagStats.isReplicaInSync)
    thread, partition, _ = fetcher_with_recorded_leader(tmp_path)
    other = TopicPartition(TOPIC, 1)
    thread.replica_mgr.local_log_or_exception = lambda tp: partition.log
    thread.quota = quota = FollowerQuota(throttled={TP}, exceeded=True)
    states = {TP: PartitionFetchState(0, 5, ReplicaState.FETCHING), other: PartitionFetchState(0, 5,
                                                                                               ReplicaState.FETCHING)}

    def fetched():
        request = thread.build_fetch(states).result
        return sorted((t.topic, p.partition) for t in (request.topics if request else []) for p in t.partitions)
    assert fetched() == [(TOPIC, 1)]                # the throttled partition, not in sync, is left out
    thread.fetcher_lag_stats.get_and_maybe_put(TP).lag = 0
    assert fetched() == [(TOPIC, 0), (TOPIC, 1)]    # in sync (no lag at the last fetch): fetched all the same
    thread.fetcher_lag_stats.get_and_maybe_put(TP).lag = 3
    quota.exceeded = False
    thread.fetch_session_handler = type(thread.fetch_session_handler)(0)   # a full fetch again: names all
    assert fetched() == [(TOPIC, 0), (TOPIC, 1)]    # under the quota: fetched


def test_process_partition_data_records_the_bytes_of_throttled_partitions(tmp_path):
    # Kafka: ReplicaFetcherThread.processPartitionData -- quota.record(records.sizeInBytes) if throttled
    thread, partition, _ = fetcher_with_recorded_leader(tmp_path)
    data = attrs.make_class("PartitionData", ["error_code", "high_watermark", "log_start_offset", "records"])
    thread.quota = quota = FollowerQuota()
    thread.process_partition_data(TP, 0, data(0, 2, 0, batches(0, 0, 2)))
    assert quota.recorded == []
    quota.throttled.add(TP)
    records = batches(0, 2, 3)
    thread.process_partition_data(TP, 2, data(0, 5, 0, records))
    assert quota.recorded == [len(records)]


def test_shutdown_closes_the_connection(tmp_path):
    thread, _, send = fetcher_with_recorded_leader(tmp_path)
    thread.start()
    thread.shutdown()
    assert send.closed and not thread.is_alive()


def _memory(data):
    from kafkalite.record.memory_records import MemoryRecords
    return MemoryRecords.readable_records(data)


# ---------------------------------------------------------------- a real leader broker
@pytest.fixture
def leader(kafka_cluster_factory):
    """Broker 0 alone, leading TOPIC-0 whose replicas are [0, 1]; broker 1 is the thread under test."""
    cluster = kafka_cluster_factory(1)
    from kafka.admin import KafkaAdminClient, NewTopic   # kafka-python: takes an explicit assignment
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers)
    try:
        admin.create_topics([NewTopic(TOPIC, -1, -1, replica_assignments={0: [0, 1]})])
    finally:
        admin.close()
    broker = cluster.brokers[0]
    wait_until(lambda: leader_partition(broker) is not None and leader_partition(broker).is_leader(), 20,
               "broker 0 to lead the partition")
    return broker


def leader_partition(broker):
    return broker.server.replica_manager.get_partition(TP)


def produce(broker, n, start=0):
    from confluent_kafka import Producer
    errors = []
    p = Producer({"bootstrap.servers": broker.bootstrap_servers, "acks": "1", "linger.ms": 0})
    for i in range(start, start + n):
        p.produce(TOPIC, b"value-%d" % i, partition=0, on_delivery=lambda err, msg: errors.append(err) if err else None)
    assert p.flush(20) == 0 and not errors, errors


def start_fetcher(broker, tmp_path, partition, initial_offset, disabled_fixes=frozenset(), **config):
    thread = ReplicaFetcherThread("ReplicaFetcherThread-0-0", 0, BrokerEndPoint(0, "127.0.0.1", broker.port),
                                  follower_config(tmp_path, disabled_fixes=disabled_fixes, **config),
                                  FailedPartitions(), FollowerReplicaManager(partition), SYSTEM)
    thread.add_partitions({TP: OffsetAndEpoch(initial_offset, leader_partition(broker).leader_epoch)})
    thread.start()
    return thread


def test_follower_replicates_a_real_leader(leader, tmp_path):
    produce(leader, 10)
    partition = follower_partition(tmp_path / "follower")
    thread = start_fetcher(leader, tmp_path, partition, 0)
    try:
        leader_log = leader_partition(leader).log
        wait_until(lambda: partition.log.log_end_offset == leader_log.log_end_offset == 10, 20, "the follower to catch up")
        assert batch_ids(partition.log) == batch_ids(leader_log)
        # the leader recorded replica 1's fetches: it is in sync now, and its high watermark reached the follower
        wait_until(lambda: leader_partition(leader).in_sync_replica_ids == {0, 1}, 20, "the ISR to take in replica 1")
        wait_until(lambda: partition.log.high_watermark == 10, 20, "the follower's high watermark")
        produce(leader, 3, start=10)
        wait_until(lambda: partition.log.log_end_offset == 13 and partition.log.high_watermark == 13, 20,
                   "the follower to follow new records")
        assert thread.fetch_state(TP).fetch_offset == 13 and thread.failed_partitions.size() == 0
        # KIP-227: the follower fetches in a session the leader caches (a privileged one, holding the partition)
        session_id = thread.fetch_session_handler.next_metadata.session_id
        assert session_id != 0 and thread.fetch_session_handler.next_metadata.epoch > 1
        session = leader.server.fetch_manager.cache.get(session_id)
        assert session.privileged and list(session.partition_map) == [TP]
        lag = f"kafka.server:type=FetcherLagMetrics,name=ConsumerLag,clientId={thread.name},topic={TOPIC},partition=0"
        assert METRICS.get(lag).value() == 0
    finally:
        thread.shutdown()
    assert METRICS.get(lag) is None       # a fetcher's gauges go with it


def test_the_broker_reports_its_replica_fetchers(leader):
    registry = MetricsRegistry()
    register_broker_metrics(leader.server, registry)
    fetchers = leader.server.replica_manager.replica_fetcher_manager
    fetchers.failed_partitions.add(TopicPartition("gone", 0))
    values = {n: registry.get(f"kafka.server:type=ReplicaFetcherManager,name={n},clientId=Replica").value()
              for n in ("MaxLag", "FailedPartitionsCount", "DeadThreadCount")}
    fetchers.failed_partitions.remove_all({TopicPartition("gone", 0)})
    assert values == {"MaxLag": 0, "FailedPartitionsCount": 1, "DeadThreadCount": 0}
    # the ReplicaAlterLogDirsManager is an AbstractFetcherManager too, with its own three gauges
    moves = {n: registry.get(f"kafka.server:type=ReplicaAlterLogDirsManager,name={n},clientId=ReplicaAlterLogDirs")
             .value() for n in ("MaxLag", "FailedPartitionsCount", "DeadThreadCount")}
    assert moves == {"MaxLag": 0, "FailedPartitionsCount": 0, "DeadThreadCount": 0}


@pytest.mark.parametrize("disabled_fixes", with_and_without_fix("KAFKA-1211"))
def test_follower_ahead_of_the_leader_is_cut_to_the_leader_end_not_to_its_high_watermark(leader, tmp_path,
                                                                                        disabled_fixes):
    # the follower holds 15 records of epoch 0, the leader 10, and the follower restarts with a high watermark
    # checkpoint of 0: OffsetsForLeaderEpoch says epoch 0 ends at 10, so it truncates there and keeps offsets
    # 0-9 (which the leader has too); the old rule truncated everything down to its high watermark
    produce(leader, 10)
    partition = follower_partition(tmp_path / "follower")
    partition.append_records_to_follower_or_future_replica(_memory(batches(0, 0, 15)))
    thread = start_fetcher(leader, tmp_path, partition, 0, disabled_fixes)
    try:
        wait_until(lambda: thread.fetch_state(TP) is not None
                   and thread.fetch_state(TP).state is ReplicaState.FETCHING, 20, "truncation to complete")
        assert thread.replica_mgr.truncations == [10]
        # a future log of this replica (a move to another log dir) is told to truncate there too
        assert thread.replica_mgr.replica_alter_log_dirs_manager.marked == [(1, TP, 10)]
    finally:
        thread.shutdown()


def test_shutdown_ends_a_fetch_the_leader_is_holding(leader, tmp_path):
    produce(leader, 2)
    partition = follower_partition(tmp_path / "follower")
    # the leader holds a caught-up follower's fetch for up to 20 s; the socket timeout is 30 s
    thread = start_fetcher(leader, tmp_path, partition, 0, replica_fetch_wait_max_ms=20_000,
                           replica_socket_timeout_ms=30_000)
    wait_until(lambda: partition.log.log_end_offset == 2, 20, "the follower to catch up")
    purgatory = leader.server.replica_manager.delayed_fetch_purgatory
    wait_until(lambda: purgatory.num_delayed() >= 1, 20, "the leader to hold the follower's fetch")
    started = time.monotonic()
    thread.shutdown()
    assert time.monotonic() - started < 5 and not thread.is_alive()


def test_shutdown_ends_a_connection_that_never_answers(tmp_path):
    # a listener that accepts and then says nothing: the ApiVersions handshake never completes
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        silent.settimeout(20)
        partition = follower_partition(tmp_path / "follower")
        thread = ReplicaFetcherThread("ReplicaFetcherThread-0-0", 0,
                                      BrokerEndPoint(0, "127.0.0.1", silent.getsockname()[1]),
                                      follower_config(tmp_path, replica_socket_timeout_ms=30_000), FailedPartitions(),
                                      FollowerReplicaManager(partition), SYSTEM)
        thread.add_partitions({TP: OffsetAndEpoch(0, 0)})
        thread.start()
        conn, _ = silent.accept()        # the fetcher connected and is waiting for an answer
        try:
            started = time.monotonic()
            thread.shutdown()
            assert time.monotonic() - started < 5 and not thread.is_alive()
        finally:
            conn.close()


def test_a_leader_that_never_answers_costs_at_most_replica_socket_timeout_ms(tmp_path):
    # no thread interruption in Python: the wait itself is bounded; after it the partition backs off and the
    # thread connects again (a second connection arrives), still running
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        silent.settimeout(10)
        partition = follower_partition(tmp_path / "follower")
        thread = ReplicaFetcherThread("ReplicaFetcherThread-0-0", 0,
                                      BrokerEndPoint(0, "127.0.0.1", silent.getsockname()[1]),
                                      follower_config(tmp_path, replica_socket_timeout_ms=300,
                                                      replica_fetch_backoff_ms=100),
                                      FailedPartitions(), FollowerReplicaManager(partition), SYSTEM)
        thread.add_partitions({TP: OffsetAndEpoch(0, 0)})
        thread.start()
        conns = []
        try:
            conns.append(silent.accept()[0])
            conns.append(silent.accept()[0])     # within 10 s, though nothing ever answered the first
            assert thread.is_alive() and thread.fetch_state(TP) is not None
        finally:
            thread.shutdown()
            for c in conns:
                c.close()

"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/ReplicaManagerTest.scala (the control-request
cases), on a real in-process broker whose controller is itself.

- a LeaderAndIsr whose leader epoch is not higher than the partition's is ignored for that partition
  (STALE_CONTROLLER_EPOCH), one with a higher epoch is applied (Kafka 2.4's becomeLeaderOrFollower);
- a control request from a controller ZooKeeper does not name, or from an older controller epoch,
  changes nothing and does not raise the broker's known controller epoch.
"""
import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionState, LeaderAndIsrRequest
from kafkalite.protocol.messages.stop_replica import StopReplicaRequest, StopReplicaTopic
from kafkalite.testing.embedded_kafka import EmbeddedKafka
from support import wait_until


@pytest.fixture
def broker(tmp_path):
    b = EmbeddedKafka(log_dir=str(tmp_path / "logs")).start()
    yield b
    b.stop()


def wait_for_partition(server, tp, timeout=10.0):
    def leader():
        p = server.replica_manager.get_partition(tp)
        return p if p is not None and p.is_leader() else None
    return wait_until(leader, timeout, f"{tp} to get a leader", interval=0.01)


def create_topic(server, topic, config=None):
    from kafkalite.zk.admin_zk_client import AdminZkClient
    AdminZkClient(server.zk_client).create_topic(topic, 1, 1, config)
    return wait_for_partition(server, TopicPartition(topic, 0))


def leader_and_isr(rm, topic, leader_epoch, controller_epoch=None, controller_id=None):
    state = LeaderAndIsrPartitionState(topic_name=topic, partition_index=0,
                                       controller_epoch=rm.controller_epoch, leader=0, leader_epoch=leader_epoch,
                                       isr=[0], zk_version=leader_epoch, replicas=[0])
    request = LeaderAndIsrRequest.build(
        2, [state], controller_id=rm.active_controller_id if controller_id is None else controller_id,
        controller_epoch=rm.controller_epoch if controller_epoch is None else controller_epoch, live_leaders=[])
    return rm.become_leader_or_follower(1, request, lambda leaders, followers: None)


class TestReplicaManager:
    def test_leader_epoch_must_be_higher(self, broker):
        rm = broker.server.replica_manager
        partition = create_topic(broker.server, "t")
        epoch = partition.leader_epoch
        response = leader_and_isr(rm, "t", epoch)
        assert [e.error_code for e in response.partition_errors] == [Errors.STALE_CONTROLLER_EPOCH.code]
        response = leader_and_isr(rm, "t", epoch + 1)
        assert [e.error_code for e in response.partition_errors] == [Errors.NONE.code]
        assert partition.leader_epoch == epoch + 1

    def test_unknown_controller_is_not_believed(self, broker):
        rm = broker.server.replica_manager
        partition = create_topic(broker.server, "t")
        known = rm.controller_epoch
        for controller_id, controller_epoch in ((0, known + 1), (5, known), (5, known + 100)):
            response = leader_and_isr(rm, "t", partition.leader_epoch + 1, controller_epoch, controller_id)
            assert response.error_code == Errors.STALE_CONTROLLER_EPOCH.code
        assert rm.controller_epoch == known
        stop = StopReplicaRequest(controller_id=0, controller_epoch=known + 1, delete_partitions=True,
                                  topics=[StopReplicaTopic(name="t", partition_indexes=[0])])
        assert rm.stop_replicas(stop) == ({}, Errors.STALE_CONTROLLER_EPOCH)
        assert rm.get_partition(TopicPartition("t", 0)) is partition and partition.log is not None

    def test_older_controller_epoch_is_stale(self, broker):
        rm = broker.server.replica_manager
        partition = create_topic(broker.server, "t")
        response = leader_and_isr(rm, "t", partition.leader_epoch + 1, rm.controller_epoch - 1)
        assert response.error_code == Errors.STALE_CONTROLLER_EPOCH.code


def produce(rm, topic, acks, timeout_ms=30_000):
    from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
    responses = []
    records = MemoryRecords.with_records(SimpleRecord(1_600_000_000_000, None, b"v"))
    rm.append_records(timeout_ms, acks, False, True, {TopicPartition(topic, 0): records}, responses.append)
    return responses


def follower_fetch(rm, topic, replica_id, offset, max_wait_ms=0):
    """A Fetch from broker ``replica_id`` as its ReplicaFetcherThread sends it; the answer's partitions."""
    from kafkalite.protocol.messages.fetch import FetchPartition
    answers = []
    info = FetchPartition(partition=0, fetch_offset=offset, log_start_offset=0, partition_max_bytes=1 << 20)
    rm.fetch_messages(max_wait_ms, replica_id, 1, 1 << 20, False, [(TopicPartition(topic, 0), info)], answers.append)
    return answers[0] if answers else None


def lead_with_a_lagging_follower(rm, topic):
    """This broker leads ``topic``-0 with broker 1 in the ISR; broker 1 never fetches."""
    partition = rm.get_partition(TopicPartition(topic, 0))
    state = LeaderAndIsrPartitionState(topic_name=topic, partition_index=0, controller_epoch=rm.controller_epoch,
                                       leader=0, leader_epoch=partition.leader_epoch + 1, isr=[0, 1],
                                       zk_version=partition.leader_epoch + 1, replicas=[0, 1])
    request = LeaderAndIsrRequest.build(2, [state], controller_id=rm.active_controller_id,
                                        controller_epoch=rm.controller_epoch, live_leaders=[])
    rm.become_leader_or_follower(1, request, lambda leaders, followers: None)
    return partition


class TestAcksAll:
    """S33 and S34: acks=-1 waits in the produce purgatory until the high watermark passes the append."""

    def test_acks_all_waits_for_the_isr_and_completes_when_the_hw_moves(self, broker):
        rm = broker.server.replica_manager
        create_topic(broker.server, "t")
        partition = lead_with_a_lagging_follower(rm, "t")
        responses = produce(rm, "t", -1)
        assert responses == [], "acks=-1 answered before the follower had the record"
        # S32: the follower's next fetch, at the leader's log end, records its position, moves the HW and
        # completes the DelayedProduce -- in the fetch, before any answer to the follower
        fetched = follower_fetch(rm, "t", 1, partition.log.log_end_offset)
        assert partition.log.high_watermark == partition.log.log_end_offset
        [result] = responses
        assert result[TopicPartition("t", 0)].error is Errors.NONE
        assert fetched[0][1].high_watermark == 0   # the answer carries the HW as read, before the move

    def test_acks_one_answers_at_once(self, broker):
        rm = broker.server.replica_manager
        create_topic(broker.server, "t")
        lead_with_a_lagging_follower(rm, "t")
        [result] = produce(rm, "t", 1)
        assert result[TopicPartition("t", 0)].error is Errors.NONE

    def test_acks_all_times_out_when_the_follower_never_comes(self, broker):
        from kafkalite.metrics.kafka_metrics_group import METRICS
        rm = broker.server.replica_manager
        create_topic(broker.server, "t")
        lead_with_a_lagging_follower(rm, "t")

        def expired(mbean):
            meter = METRICS.get(mbean)
            return meter.count if meter is not None else 0
        aggregate = "kafka.server:type=DelayedProduceMetrics,name=ExpiresPerSec"
        per_partition = aggregate + ",topic=t,partition=0"
        before = expired(aggregate), expired(per_partition)
        responses = produce(rm, "t", -1, timeout_ms=200)
        wait_until(lambda: responses, 10, "the DelayedProduce to expire")
        [result] = responses
        assert result[TopicPartition("t", 0)].error is Errors.REQUEST_TIMED_OUT
        # Kafka: DelayedProduceMetrics.recordExpiration, once in all and once for the partition (onExpiration
        # runs after onComplete has sent the answer)
        wait_until(lambda: (expired(aggregate), expired(per_partition)) == (before[0] + 1, before[1] + 1), 10,
                   "the expiry to be counted")


class TestDeleteRecordsAndStats:
    def test_delete_records_moves_the_log_start_offset(self, broker):
        rm = broker.server.replica_manager
        partition = create_topic(broker.server, "t")
        for _ in range(5):
            produce(rm, "t", 1)
        tp = TopicPartition("t", 0)
        results = []
        rm.delete_records(1000, {tp: 3, TopicPartition("missing", 0): 1}, results.append)
        [answer] = results
        assert answer[tp] == (3, Errors.NONE) and partition.log.log_start_offset == 3
        assert answer[TopicPartition("missing", 0)] == (-1, Errors.UNKNOWN_TOPIC_OR_PARTITION)
        rm.delete_records(1000, {tp: 99}, results.append)
        assert results[-1][tp][1] is Errors.OFFSET_OUT_OF_RANGE
        rm.delete_records(1000, {tp: -1}, results.append)   # -1: up to the high watermark
        assert results[-1][tp] == (5, Errors.NONE)

    def test_append_marks_bytes_and_messages_in_once(self, broker):
        from kafkalite.metrics.broker_topic_stats import BROKER_TOPIC_STATS
        rm = broker.server.replica_manager
        create_topic(broker.server, "stats-topic")
        before = BROKER_TOPIC_STATS.topic_stats("stats-topic").messages_in_rate.count
        from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
        records = MemoryRecords.with_records(*[SimpleRecord(1_600_000_000_000, None, b"v%d" % i) for i in range(4)])
        rm.append_records(1000, 1, False, True, {TopicPartition("stats-topic", 0): records}, lambda r: None)
        assert BROKER_TOPIC_STATS.topic_stats("stats-topic").messages_in_rate.count - before == 4


@pytest.fixture
def two_dirs(tmp_path):
    """An in-process broker with two log dirs (d1, d2); its ZooKeeper store outside both."""
    d1, d2 = tmp_path / "d1", tmp_path / "d2"
    b = EmbeddedKafka(log_dir=str(tmp_path / "unused"), log_dirs=f"{d1},{d2}",
                      zookeeper_connect=f"embedded:{tmp_path / 'zk'}").start()
    yield b, d1, d2
    b.stop()


def test_a_failed_log_dir_takes_only_its_own_partitions_offline(two_dirs):
    """Kafka's ReplicaManagerTest/LogDirFailureTest: with two log dirs, the partitions of the failed one answer
    KAFKA_STORAGE_ERROR and leave the purgatories; the other dir's partitions are served as before."""
    b, d1, d2 = two_dirs
    rm = b.server.replica_manager
    create_topic(b.server, "a")
    create_topic(b.server, "b")
    pa, pb = rm.get_partition(TopicPartition("a", 0)), rm.get_partition(TopicPartition("b", 0))
    assert {pa.log.parent_dir, pb.log.parent_dir} == {str(d1), str(d2)}
    failed, kept = (pa, pb) if pa.log.parent_dir == str(d1) else (pb, pa)
    rm.handle_log_dir_failure(str(d1))
    assert rm.offline_partitions == {failed.topic_partition}
    assert rm.get_partition(failed.topic_partition) is None and rm.get_partition(kept.topic_partition) is kept
    [r1] = produce(rm, failed.topic, 1)
    assert r1[failed.topic_partition].error is Errors.KAFKA_STORAGE_ERROR
    [r2] = produce(rm, kept.topic, 1)
    assert r2[kept.topic_partition].error is Errors.NONE
    # Kafka: ReplicaManager.stopReplica -- a partition on an offline disk cannot be deleted now: the
    # controller's topic deletion waits for a restart instead of leaving its files behind
    stop = StopReplicaRequest(controller_id=rm.active_controller_id, controller_epoch=rm.controller_epoch,
                              delete_partitions=True,
                              topics=[StopReplicaTopic(name=failed.topic, partition_indexes=[0])])
    assert rm.stop_replicas(stop) == ({failed.topic_partition: Errors.KAFKA_STORAGE_ERROR}, Errors.NONE)
    assert (d1 / f"{failed.topic}-0").is_dir()


def test_a_failed_notification_leaves_the_log_dir_failure_handled(two_dirs, monkeypatch):
    """The embedded ZooKeeper store lives in the first log dir; when that is the dir that failed, writing
    /log_dir_event_notification fails -- the dir is still taken offline and nothing is raised, so the
    LogDirFailureHandler thread lives on for the next failed dir."""
    b, d1, d2 = two_dirs
    rm = b.server.replica_manager
    create_topic(b.server, "a")

    def no_space(broker_id):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(rm.zk_client, "propagate_log_dir_event", no_space)
    rm.handle_log_dir_failure(str(d1))
    assert rm.log_manager.live_log_dirs == [str(d2)]
    assert rm.log_dir_failure_handler.is_alive()


class TestFollowerFetches:
    """The leader's side of replication in ReplicaManager.fetchMessages (S32, S38)."""

    def test_fetch_from_a_broker_that_is_not_a_replica_gets_no_records(self, broker):
        # Kafka: ReplicaManagerTest.testFetchMessagesWhenNotFollowerForOnePartition
        rm = broker.server.replica_manager
        create_topic(broker.server, "t")
        produce(rm, "t", 1)
        [(_, data)] = follower_fetch(rm, "t", 7, 0)
        assert data.error is Errors.NONE and data.records.size_in_bytes() == 0

    def test_a_follower_gets_its_records_up_to_the_log_end_not_the_high_watermark(self, broker):
        rm = broker.server.replica_manager
        create_topic(broker.server, "t")
        partition = lead_with_a_lagging_follower(rm, "t")
        produce(rm, "t", 1)
        assert partition.log.high_watermark == 0
        [(_, data)] = follower_fetch(rm, "t", 1, 0)
        assert data.records.size_in_bytes() > 0 and data.high_watermark == 0
        assert partition.get_replica(1).log_end_offset == 0

    def test_a_follower_lacking_the_high_watermark_is_answered_at_once(self, broker):
        # KIP-392 (2.4): a follower at the leader's end whose last answer carried an older HW is not parked
        rm = broker.server.replica_manager
        create_topic(broker.server, "t")
        partition = lead_with_a_lagging_follower(rm, "t")
        produce(rm, "t", 1)
        follower_fetch(rm, "t", 1, 1)                 # moves the HW to 1; that answer carried HW 0
        answer = follower_fetch(rm, "t", 1, 1, max_wait_ms=30_000)
        assert answer is not None, "the follower waited although it did not know the high watermark"
        [(_, data)] = answer
        assert data.high_watermark == 1 == partition.get_replica(1).last_sent_high_watermark
        assert follower_fetch(rm, "t", 1, 1, max_wait_ms=30_000) is None   # now it knows: it waits


@pytest.fixture
def replica_managers():
    """Shuts down every ReplicaManager a test built (its purgatories' reaper threads)."""
    made = []
    yield made
    for rm in made:
        rm.shutdown(checkpoint_hw=False)


def make_replica_manager(tmp_path, mock_time, zk_client=None, alive_brokers=(), broker_id=0):
    """A ReplicaManager on its own (Kafka's ReplicaManagerTest builds one the same way, with mocks around it)."""
    from kafkalite.log.log_config import LogConfig
    from kafkalite.log.log_manager import LogManager
    from kafkalite.server.kafka_config import KafkaConfig
    from kafkalite.server.metadata_cache import AliveBroker
    from kafkalite.server.replica_manager import ReplicaManager

    class Metadata:
        def get_alive_broker(self, broker_id):
            return {b: AliveBroker(b, None, {"PLAINTEXT": ("127.0.0.1", 9000 + b)}) for b in alive_brokers}.get(broker_id)

        def get_partition_info(self, topic, partition):
            return None

    config = KafkaConfig({"broker.id": str(broker_id), "log.dirs": str(tmp_path / "logs"),
                          "zookeeper.connect": "embedded:x"})
    log_manager = LogManager([str(tmp_path / "logs")], LogConfig(), time=mock_time)
    return ReplicaManager(config, mock_time, zk_client, None, log_manager, Metadata(), lambda topic: LogConfig())


class RecordingFetcherManager:
    def __init__(self):
        self.added, self.removed = {}, []

    def add_fetcher_for_partitions(self, states):
        self.added.update(states)

    def remove_fetcher_for_partitions(self, partitions):
        self.removed.append(set(partitions))

    def shutdown_idle_fetcher_threads(self):
        pass

    def shutdown(self):
        pass


def a_follower(tmp_path, replica_managers, leader_epoch):
    """A ReplicaManager whose partition t-0 follows broker 1 at ``leader_epoch``: (rm, tp, partition)."""
    from kafkalite.utils.time import MockTime
    rm = make_replica_manager(tmp_path, MockTime(), alive_brokers=(1,))
    replica_managers.append(rm)
    rm.replica_fetcher_manager = RecordingFetcherManager()
    tp = TopicPartition("t", 0)
    partition = rm.all_partitions[tp] = rm.create_partition(tp)
    rm.make_followers(1, [(partition, follower_state("t", 1, leader_epoch))], 1, {})
    return rm, tp, partition


def follower_state(topic, leader, leader_epoch):
    return LeaderAndIsrPartitionState(topic_name=topic, partition_index=0, controller_epoch=1, leader=leader,
                                      leader_epoch=leader_epoch, isr=[leader, 0], zk_version=0, replicas=[leader, 0])


class TestRoleChanges:
    def test_make_followers_fetches_from_the_new_leader_at_the_high_watermark(self, tmp_path, replica_managers):
        from kafkalite.utils.time import MockTime
        rm = make_replica_manager(tmp_path, MockTime(), alive_brokers=(1,))
        replica_managers.append(rm)
        rm.replica_fetcher_manager = fetchers = RecordingFetcherManager()
        tp = TopicPartition("t", 0)
        partition = rm.create_partition(tp)
        errors = {}
        changed = rm.make_followers(1, [(partition, follower_state("t", 1, 3))], 1, errors)
        assert changed == [partition] and errors == {tp: Errors.NONE}
        assert fetchers.removed == [{tp}]
        state = fetchers.added[tp]
        assert (state.leader.id, state.leader.port, state.current_leader_epoch, state.init_offset) == (1, 9001, 3, 0)
        # becoming leader stops the fetcher first
        leader = LeaderAndIsrPartitionState(topic_name="t", partition_index=0, controller_epoch=1, leader=0,
                                            leader_epoch=4, isr=[0], zk_version=0, replicas=[1, 0])
        rm.make_leaders(1, [(partition, leader)], 2, errors)
        assert fetchers.removed[-1] == {tp} and partition.is_leader()

    def test_a_follower_serves_its_log_to_its_fetcher_but_no_epoch_answers(self, tmp_path, replica_managers):
        # the fetcher reads the follower's own log (local_log_or_exception needs no leadership); OffsetsForLeaderEpoch
        # is answered by leaders only (Kafka: lastOffsetForLeaderEpoch with fetchOnlyFromLeader = true)
        rm, tp, partition = a_follower(tmp_path, replica_managers, leader_epoch=3)
        assert rm.local_log_or_exception(tp) is partition.log
        with pytest.raises(Errors.NOT_LEADER_FOR_PARTITION.exception_class):
            rm.last_offset_for_leader_epoch(tp, -1, 3)

    def test_a_follower_answers_a_fetch_by_its_leader_epoch_first(self, tmp_path, replica_managers):
        # Kafka 2.4: getPartitionOrException does not ask for leadership; Partition.readRecords checks the
        # request's leader epoch first (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH), then leadership -- a
        # follower fenced by an older epoch stops fetching (onPartitionFenced) instead of retrying the same broker
        from kafkalite.protocol.messages.fetch import FetchPartition
        rm, tp, _ = a_follower(tmp_path, replica_managers, leader_epoch=6)

        def error_for(epoch):
            answers = []
            info = FetchPartition(partition=0, current_leader_epoch=epoch, fetch_offset=0, log_start_offset=-1,
                                  partition_max_bytes=1 << 20)
            rm.fetch_messages(0, -1, 1, 1 << 20, False, [(tp, info)], answers.append)
            return answers[0][0][1].error
        assert error_for(5) is Errors.FENCED_LEADER_EPOCH
        assert error_for(7) is Errors.UNKNOWN_LEADER_EPOCH
        assert error_for(6) is Errors.NOT_LEADER_FOR_PARTITION
        assert error_for(-1) is Errors.NOT_LEADER_FOR_PARTITION
        # KIP-392 (2.4): a consumer with client metadata (Fetch v11+) may read this follower, up to its high
        # watermark; a debugging consumer (-2) without it may not
        answers = []
        info = FetchPartition(partition=0, current_leader_epoch=6, fetch_offset=0, log_start_offset=-1,
                              partition_max_bytes=1 << 20)
        rm.fetch_messages(0, -1, 1, 1 << 20, False, [(tp, info)], answers.append, client_metadata=True)
        assert answers[0][0][1].error is Errors.NONE and answers[0][0][1].high_watermark == 0
        answers.clear()
        rm.fetch_messages(0, -2, 1, 1 << 20, False, [(tp, info)], answers.append)
        assert answers[0][0][1].error is Errors.NOT_LEADER_FOR_PARTITION
        with pytest.raises(Errors.FENCED_LEADER_EPOCH.exception_class):
            rm.fetch_offset_for_timestamp(tp, -1, 5, True, True)
        # OffsetsForLeaderEpoch alike (Partition.lastOffsetForLeaderEpoch: the epoch, then leadership)
        with pytest.raises(Errors.FENCED_LEADER_EPOCH.exception_class):
            rm.last_offset_for_leader_epoch(tp, 5, 5)
        with pytest.raises(Errors.UNKNOWN_LEADER_EPOCH.exception_class):
            rm.last_offset_for_leader_epoch(tp, 7, 5)
        with pytest.raises(Errors.NOT_LEADER_FOR_PARTITION.exception_class):
            rm.last_offset_for_leader_epoch(tp, 6, 5)

    def test_disabled_fixes_come_from_the_config(self, tmp_path, replica_managers):
        from kafkalite.log.log_config import LogConfig
        from kafkalite.log.log_manager import LogManager
        from kafkalite.server.kafka_config import KafkaConfig
        from kafkalite.server.replica_manager import ReplicaManager
        from kafkalite.utils.time import MockTime
        config = KafkaConfig({"broker.id": "0", "log.dirs": str(tmp_path), "zookeeper.connect": "embedded:x",
                              "kafkalite.test.disable.fixes": "KAFKA-7128,KAFKA-7415"})
        rm = ReplicaManager(config, MockTime(), None, None, LogManager([str(tmp_path)], LogConfig()), None,
                            lambda topic: LogConfig())
        replica_managers.append(rm)
        assert rm.disabled_fixes == {"KAFKA-7128", "KAFKA-7415"}
        assert rm.create_partition(TopicPartition("t", 0)).disabled_fixes == {"KAFKA-7128", "KAFKA-7415"}

    def test_stop_replica_stops_fetching_first(self, tmp_path, replica_managers):
        from kafkalite.utils.time import MockTime
        rm = make_replica_manager(tmp_path, MockTime(), alive_brokers=(1,))
        replica_managers.append(rm)
        rm.replica_fetcher_manager = fetchers = RecordingFetcherManager()
        tp = TopicPartition("t", 0)
        partition = rm.all_partitions[tp] = rm.create_partition(tp)
        rm.make_followers(1, [(partition, follower_state("t", 1, 3))], 1, {})
        stop = StopReplicaRequest(controller_id=1, controller_epoch=1, delete_partitions=False,
                                  topics=[StopReplicaTopic(name="t", partition_indexes=[0])])
        assert rm.stop_replicas(stop) == ({tp: Errors.NONE}, Errors.NONE)
        assert fetchers.removed[-1] == {tp}

    def test_a_follower_of_an_unknown_leader_fetches_nothing_but_keeps_its_log(self, tmp_path, replica_managers):
        from kafkalite.utils.time import MockTime
        rm = make_replica_manager(tmp_path, MockTime(), alive_brokers=())
        replica_managers.append(rm)
        rm.replica_fetcher_manager = fetchers = RecordingFetcherManager()
        tp = TopicPartition("t", 0)
        partition = rm.create_partition(tp)
        assert rm.make_followers(1, [(partition, follower_state("t", 1, 3))], 1, {}) == []
        assert fetchers.added == {} and partition.log is not None


class RecordingZk:
    def __init__(self):
        self.propagated = []

    def propagate_isr_changes(self, partitions):
        self.propagated.append(list(partitions))


def test_isr_changes_reach_zookeeper_after_five_quiet_seconds_or_every_minute(tmp_path, replica_managers):
    # Kafka: ReplicaManager.maybePropagateIsrChanges (IsrChangePropagationBlackOut 5 s, Interval 60 s)
    from kafkalite.utils.time import MockTime
    mock_time, zk = MockTime(), RecordingZk()
    rm = make_replica_manager(tmp_path, mock_time, zk_client=zk)
    replica_managers.append(rm)
    rm.record_isr_change(TopicPartition("a", 0))
    rm.maybe_propagate_isr_changes()
    assert zk.propagated == []                          # within the black-out
    mock_time.sleep(5001)
    rm.maybe_propagate_isr_changes()
    assert zk.propagated == [[TopicPartition("a", 0)]]
    rm.maybe_propagate_isr_changes()
    assert len(zk.propagated) == 1                      # nothing new
    for _ in range(13):                                 # a change every 5 s: the black-out never ends...
        mock_time.sleep(4999)
        rm.record_isr_change(TopicPartition("b", 0))
        rm.maybe_propagate_isr_changes()
    assert zk.propagated[-1] == [TopicPartition("b", 0)]   # ...but 60 s after the last one it goes anyway
    assert len(zk.propagated) == 2


def test_broker_zero_is_a_follower_like_any_other(tmp_path, replica_managers):
    # Request.isValidBrokerId: every id >= 0 is a broker; only -1 (consumers) and -2 (debugging) are not
    from kafkalite.utils.time import MockTime
    rm = make_replica_manager(tmp_path, MockTime(), broker_id=1)
    replica_managers.append(rm)
    tp = TopicPartition("t", 0)
    partition = rm.all_partitions[tp] = rm.create_partition(tp)
    partition.make_leader(1, LeaderAndIsrPartitionState(topic_name="t", partition_index=0, controller_epoch=1, leader=1,
                                                        leader_epoch=1, isr=[1, 0], zk_version=0, replicas=[1, 0]), 1)
    produce(rm, "t", 1)
    follower_fetch(rm, "t", 0, 1)
    assert partition.get_replica(0).log_end_offset == 1 and partition.log.high_watermark == 1


def test_high_watermarks_are_checkpointed_per_log_dir(tmp_path, replica_managers):
    from kafkalite.log.checkpoint_file import OffsetCheckpointFile
    from kafkalite.utils.time import MockTime
    rm = make_replica_manager(tmp_path, MockTime())
    replica_managers.append(rm)
    partition = rm.all_partitions[TopicPartition("t", 0)] = rm.create_partition(TopicPartition("t", 0))
    partition.make_leader(1, LeaderAndIsrPartitionState(topic_name="t", partition_index=0, controller_epoch=1, leader=0,
                                                        leader_epoch=1, isr=[0], zk_version=0, replicas=[0]), 1)
    produce(rm, "t", 1)
    produce(rm, "t", 1)
    rm.checkpoint_high_watermarks()
    checkpoint = OffsetCheckpointFile(str(tmp_path / "logs" / "replication-offset-checkpoint"))
    assert checkpoint.read() == {TopicPartition("t", 0): 2}


class TestConsumerFetchLimits:
    """ReplicaManager.readFromLocalLog's fetch.max.bytes across partitions (Fetch v3+ has no hard limit)."""

    @staticmethod
    def consumer_fetch(rm, partitions, fetch_max_bytes, hard_max_bytes_limit):
        from kafkalite.protocol.messages.fetch import FetchPartition
        answers = []
        infos = [(TopicPartition(t, 0), FetchPartition(partition=0, fetch_offset=0, log_start_offset=-1,
                                                       partition_max_bytes=1 << 20)) for t in partitions]
        rm.fetch_messages(0, -1, 1, fetch_max_bytes, hard_max_bytes_limit, infos, answers.append)
        return {tp.topic: data for tp, data in answers[0]}

    def test_a_later_partition_whose_first_batch_does_not_fit_answers_no_records(self, broker):
        # Kafka 2.4: ReplicaManager.readFromLocalLog replaces an incomplete first entry with an empty set when
        # the request has no hard limit (Fetch v3+): the consumer asks again; it never gets a cut batch
        rm = broker.server.replica_manager
        for t in ("a", "b"):
            create_topic(broker.server, t)
            produce(rm, t, 1)
        size = self.consumer_fetch(rm, ["a"], 1 << 20, False)["a"].records.size_in_bytes()
        answer = self.consumer_fetch(rm, ["a", "b"], size + size // 2, False)
        assert answer["a"].records.size_in_bytes() == size          # the first partition: its batch whole
        assert answer["b"].error is Errors.NONE and answer["b"].records.size_in_bytes() == 0
        # with room for both, both come whole
        answer = self.consumer_fetch(rm, ["a", "b"], 2 * size, False)
        assert [answer[t].records.size_in_bytes() for t in "ab"] == [size, size]

    def test_fetch_below_v3_cuts_at_the_hard_limit(self, broker):
        # Fetch v0-v2 (hardMaxBytesLimit): what fits is returned, a cut batch included (old consumers skip it)
        rm = broker.server.replica_manager
        create_topic(broker.server, "a")
        produce(rm, "a", 1)
        size = self.consumer_fetch(rm, ["a"], 1 << 20, False)["a"].records.size_in_bytes()
        assert self.consumer_fetch(rm, ["a"], size // 2, True)["a"].records.size_in_bytes() == size // 2


def test_out_of_descriptors_is_no_storage_error_to_the_controller(broker, monkeypatch):
    """kafkalite's EMFILE deviation (docs/file-descriptors.md): the log dir stays online, so the LeaderAndIsr
    answer must not say KAFKA_STORAGE_ERROR -- the controller would mark the replica offline until a restart
    (Kafka's replicasOnOfflineDirs) and the partition could be neither led nor deleted when descriptors return.
    Clients still hear KAFKA_STORAGE_ERROR with the reason."""
    import errno
    rm = broker.server.replica_manager

    def out_of_descriptors(*args, **kwargs):
        raise Errors.KAFKA_STORAGE_ERROR.exception("Error while creating log: Too many open files") from OSError(
            errno.EMFILE, "Too many open files")
    monkeypatch.setattr(rm.log_manager, "get_or_create_log", out_of_descriptors)
    response = leader_and_isr(rm, "emfile", 1)
    [error] = response.partition_errors
    assert error.error_code == Errors.UNKNOWN_SERVER_ERROR.code
    assert "Too many open files" in rm.log_creation_failures[TopicPartition("emfile", 0)]
    monkeypatch.undo()
    response = leader_and_isr(rm, "emfile", 2)     # descriptors are back: the next LeaderAndIsr makes the log
    assert [e.error_code for e in response.partition_errors] == [Errors.NONE.code]
    assert rm.get_partition(TopicPartition("emfile", 0)).log is not None


def test_an_unexpected_error_is_no_storage_error_to_the_controller(broker, monkeypatch):
    # Kafka 2.4: makeLeaders answers KAFKA_STORAGE_ERROR for a KafkaStorageException only -- the controller would
    # take the replica for one in a failed log dir and keep it offline until a restart
    rm = broker.server.replica_manager

    def bug(*args, **kwargs):
        raise RuntimeError("a bug, not a disk")
    monkeypatch.setattr(rm.log_manager, "get_or_create_log", bug)
    [error] = leader_and_isr(rm, "buggy", 1).partition_errors
    assert error.error_code == Errors.UNKNOWN_SERVER_ERROR.code


class TestFailedAppends:
    """Kafka 2.4 ReplicaManager.appendToLocalLog: what a failed partition's answer carries. A record that fails
    validation is named (record_errors, KIP-467) with the error's message; every failure but the six 'known'
    ones (processFailedRecord) carries the partition's log start offset, those six -1; no other failure has a
    message."""

    @staticmethod
    def answer(rm, topic, records, acks=1):
        responses = []
        rm.append_records(30_000, acks, False, True, {TopicPartition(topic, 0): records}, responses.append)
        [response] = responses
        return response[TopicPartition(topic, 0)]

    @staticmethod
    def with_log_start_offset_two(rm, topic):
        from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
        for key in (b"a", b"b", b"c"):
            assert TestFailedAppends.answer(rm, topic, MemoryRecords.with_records(
                SimpleRecord(1_600_000_000_000, key, b"v"))).error is Errors.NONE
        rm.get_partition(TopicPartition(topic, 0)).log.maybe_increment_log_start_offset(2)

    def test_a_record_without_a_key_on_a_compacted_topic_is_named(self, broker):
        from kafkalite.common.record_validation_exception import RecordError
        from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
        rm = broker.server.replica_manager
        create_topic(broker.server, "compacted", {"cleanup.policy": "compact"})
        self.with_log_start_offset_two(rm, "compacted")
        keyless_second = MemoryRecords.with_records(SimpleRecord(1_600_000_000_000, b"k", b"v"),
                                                    SimpleRecord(1_600_000_000_000, None, b"v"))
        r = self.answer(rm, "compacted", keyless_second)
        assert (r.error, r.base_offset, r.log_start_offset) == (Errors.INVALID_RECORD, -1, 2)
        assert r.record_errors == [RecordError(1)]
        assert r.error_message.startswith("Compacted topic cannot accept message without key")

    def test_not_enough_replicas_carries_the_log_start_offset_and_no_message(self, broker):
        rm = broker.server.replica_manager
        create_topic(broker.server, "min-isr", {"min.insync.replicas": "2"})
        self.with_log_start_offset_two(rm, "min-isr")
        from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
        r = self.answer(rm, "min-isr", MemoryRecords.with_records(SimpleRecord(1_600_000_000_000, b"k", b"v")),
                        acks=-1)
        assert (r.error, r.log_start_offset, list(r.record_errors), r.error_message) == \
            (Errors.NOT_ENOUGH_REPLICAS, 2, [], None)

    def test_a_corrupt_batch_carries_no_log_start_offset(self, broker):
        from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
        rm = broker.server.replica_manager
        create_topic(broker.server, "t")
        self.with_log_start_offset_two(rm, "t")
        corrupt = bytearray(MemoryRecords.with_records(SimpleRecord(1_600_000_000_000, b"k", b"v")).buffer)
        corrupt[-1] ^= 0x55
        r = self.answer(rm, "t", MemoryRecords(corrupt))
        assert (r.error, r.log_start_offset, list(r.record_errors), r.error_message) == \
            (Errors.CORRUPT_MESSAGE, -1, [], None)

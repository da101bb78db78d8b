"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/AbstractFetcherThreadTest.scala -- the fetcher's
rules on a MockFetcherThread whose follower and leader logs are in memory (records as (offset, leader epoch),
epochs in a real LeaderEpochFileCache; on the wire each record is a real magic-2 batch whose CRC the follower
checks, as Kafka's mock does): truncation with OffsetsForLeaderEpoch (KIP-101) in several rounds
when the leader names an epoch the follower never saw (KIP-279, KAFKA-6361), truncation to the high
watermark only without epochs (the pre-KIP-101 behaviour behind KAFKA-1211), fencing, offsets out of range
on either side, corrupt data and errors backing off. ``do_work`` is called by the test, never by a thread."""
import attrs
import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.leader_epoch_file_cache import LeaderEpochFileCache
from kafkalite.protocol.errors import Errors
from kafkalite.record.memory_records import MemoryRecords, MemoryRecordsBuilder
from kafkalite.server.abstract_fetcher_manager import FailedPartitions
from kafkalite.server.abstract_fetcher_thread import (
    AbstractFetcherThread, EpochEndOffset, OffsetAndEpoch, OffsetTruncationState, PartitionFetchState, ReplicaState,
    ResultWithPartitions,
)
from kafkalite.utils.time import MockTime
from support import with_and_without_fix

TP = TopicPartition("t", 0)
BACKOFF_MS = 500


class MockLog:
    """A replica's log: ``records`` are (offset, leader epoch); the epoch cache follows them as Log's does."""

    def __init__(self, epochs=(), log_start_offset=0, high_watermark=0):
        self.records: list[tuple[int, int]] = []
        self.cache = LeaderEpochFileCache(TP, None)
        self.log_start_offset = log_start_offset
        self.high_watermark = high_watermark
        for epoch in epochs:
            self.append([(self.log_end_offset, epoch)])

    @property
    def log_end_offset(self):
        return self.records[-1][0] + 1 if self.records else self.log_start_offset

    def append(self, records):
        for offset, epoch in records:
            assert offset == self.log_end_offset, f"append at {offset}, log end {self.log_end_offset}"
            self.cache.assign(epoch, offset)
            self.records.append((offset, epoch))

    def truncate_to(self, offset):
        self.records = [r for r in self.records if r[0] < offset]
        self.cache.truncate_from_end_async_flush(offset)
        self.high_watermark = min(self.high_watermark, offset)

    def end_offset_for(self, epoch):
        return self.cache.end_offset_for(epoch, self.log_end_offset)


@attrs.define
class PartitionData:
    error_code: int = 0
    high_watermark: int = 0
    log_start_offset: int = 0
    records: bytes = b""


def to_batches(records) -> bytes:
    """(offset, leader epoch) pairs as the leader sends them: one batch each, stamped with its epoch."""
    out = bytearray()
    for offset, epoch in records:
        builder = MemoryRecordsBuilder(base_offset=offset, partition_leader_epoch=epoch)
        builder.append_with_offset(offset, 0, None, b"v%d" % offset)
        out += bytes(builder.build().buffer)
    return bytes(out)


def from_batches(data: bytes):
    """The follower's side: every batch's CRC checked (Kafka's mock calls ensureValid) before anything is kept."""
    batches = list(MemoryRecords.readable_records(data).batches())
    for batch in batches:
        batch.ensure_valid()
    return [(b.base_offset, b.partition_leader_epoch) for b in batches]


@attrs.define
class AppendInfo:
    last_offset: int
    valid_bytes: int


class MockFetcherThread(AbstractFetcherThread):
    def __init__(self, disabled_fixes=frozenset()):
        self.mock_time = MockTime()
        super().__init__("MockFetcherThread-0-1", "mock", attrs.make_class("Broker", ["id"])(1), FailedPartitions(),
                         BACKOFF_MS, self.mock_time, disabled_fixes=disabled_fixes)
        self.replica: dict = {}
        self.leader: dict = {}
        self.leader_epoch_errors: dict = {}
        self.fetch_errors: dict = {}
        self.corrupt = set()            # partitions whose next fetch response has a byte flipped
        self.epoch_requests = []
        self.leader_epoch_supported = True
        self.leader_answers_without_epoch = False   # OffsetsForLeaderEpoch v0: an end offset, no epoch
        self.during_fetch = None        # called while the fetch is "on the wire", the partition map unlocked
        self.max_records_per_fetch = None

    # the follower
    def latest_epoch(self, tp):
        return self.replica[tp].cache.latest_epoch

    def log_end_offset(self, tp):
        return self.replica[tp].log_end_offset

    def end_offset_for_epoch(self, tp, epoch):
        e, offset = self.replica[tp].end_offset_for(epoch)
        return None if offset == -1 else OffsetAndEpoch(offset, e)

    def truncate(self, tp, truncation_state):
        self.replica[tp].truncate_to(truncation_state.offset)

    def truncate_fully_and_start_at(self, tp, offset):
        self.replica[tp] = MockLog(log_start_offset=offset, high_watermark=offset)

    def process_partition_data(self, tp, fetch_offset, data):
        log = self.replica[tp]
        assert fetch_offset == log.log_end_offset
        records = from_batches(data.records)
        log.append(records)
        log.high_watermark = min(data.high_watermark, log.log_end_offset)
        # as Log.appendAsFollower: nothing appended is lastOffset -1, validBytes 0
        return AppendInfo(records[-1][0] if records else -1, len(data.records))

    # the leader
    def build_fetch(self, partition_map):
        now = self.mock_time.milliseconds()
        ready = {tp: s for tp, s in partition_map.items() if s.is_ready_for_fetch(now)}
        return ResultWithPartitions(ready or None, frozenset())

    def fetch_epoch_end_offsets(self, partitions):
        self.epoch_requests.append({tp: d.leader_epoch for tp, d in partitions.items()})
        if self.during_fetch is not None:
            self.during_fetch()
        out = {}
        for tp, data in partitions.items():
            if tp in self.leader_epoch_errors:
                out[tp] = EpochEndOffset(self.leader_epoch_errors[tp], -1, -1)
            else:
                epoch, offset = self.leader[tp].end_offset_for(data.leader_epoch)
                out[tp] = EpochEndOffset(Errors.NONE, -1 if self.leader_answers_without_epoch else epoch, offset)
        return out

    def fetch_from_leader(self, fetch_request):
        if self.during_fetch is not None:
            self.during_fetch()
        out = []
        for tp, state in fetch_request.items():
            leader = self.leader[tp]
            if tp in self.fetch_errors:
                out.append((tp, PartitionData(error_code=self.fetch_errors[tp].code)))
            elif not leader.log_start_offset <= state.fetch_offset <= leader.log_end_offset:
                out.append((tp, PartitionData(error_code=Errors.OFFSET_OUT_OF_RANGE.code)))
            else:
                data = to_batches([r for r in leader.records if r[0] >= state.fetch_offset][:self.max_records_per_fetch])
                if tp in self.corrupt and data:
                    self.corrupt.discard(tp)
                    data = data[:30] + bytes([data[30] ^ 0x5A]) + data[31:]   # a byte of the first batch's body
                out.append((tp, PartitionData(0, leader.high_watermark, leader.log_start_offset, data)))
        return out

    def fetch_earliest_offset_from_leader(self, tp, current_leader_epoch):
        return self.leader[tp].log_start_offset

    def fetch_latest_offset_from_leader(self, tp, current_leader_epoch):
        return self.leader[tp].log_end_offset

    def is_offset_for_leader_epoch_supported(self):
        return self.leader_epoch_supported


def setup(follower: MockLog, leader: MockLog, leader_epoch: int, disabled_fixes=frozenset()):
    thread = MockFetcherThread(disabled_fixes)
    thread.replica[TP], thread.leader[TP] = follower, leader
    thread.add_partitions({TP: OffsetAndEpoch(follower.high_watermark, leader_epoch)})
    return thread


def run(thread, rounds=5):
    for _ in range(rounds):
        thread.do_work()


def test_simple_fetch():
    leader = MockLog(epochs=[0, 0, 0], high_watermark=3)
    thread = setup(MockLog(), leader, 0)
    run(thread)
    assert thread.replica[TP].records == leader.records and thread.replica[TP].high_watermark == 3
    assert thread.fetch_state(TP).state is ReplicaState.FETCHING and thread.fetch_state(TP).fetch_offset == 3


def test_truncation_to_the_leader_epoch_end_offset():
    # Kafka: testTruncation -- the follower's epoch-1 tail the leader never had is cut, then replaced
    follower = MockLog(epochs=[0, 0, 1, 1, 1], high_watermark=2)
    leader = MockLog(epochs=[0, 0, 0, 2, 2], high_watermark=5)
    thread = setup(follower, leader, 2)
    thread.do_work()
    assert thread.epoch_requests == [{TP: 1}]
    # the leader's end offset for epoch 1 is where its next epoch starts: 3 (it has epoch 0 up to 2)
    run(thread)
    assert thread.replica[TP].records == leader.records


@pytest.mark.parametrize("disabled_fixes", with_and_without_fix("KAFKA-6361"))
def test_truncation_when_the_leader_names_an_epoch_the_follower_never_saw(disabled_fixes):
    # KIP-279 / KAFKA-6361: follower epochs {1, 3}, leader epochs {1, 2}. Asked for epoch 3 the leader
    # answers (2, 10); the follower has no epoch 2: it cuts to the end of its epoch 1 (5), asks again.
    # Without the fix it cuts to min(10, its end 8) at once and keeps offsets 5-7 of epoch 3: divergent logs
    follower = MockLog(epochs=[1] * 5 + [3] * 3, high_watermark=5)
    leader = MockLog(epochs=[1] * 5 + [2] * 5, high_watermark=10)
    leader.cache.assign(4, 10)                                # the leader's own epoch (KAFKA-7415)
    thread = setup(follower, leader, 4, disabled_fixes)
    run(thread)
    assert thread.replica[TP].records == leader.records
    assert thread.epoch_requests == [{TP: 3}, {TP: 1}]


def test_a_leader_without_an_entry_for_its_own_epoch_sends_the_follower_back_to_its_high_watermark():
    # KAFKA-7415: without (new epoch, LEO) the leader cannot place the follower's newer epoch and answers
    # "undefined": the follower falls back to its high watermark, dropping what it had above it
    follower = MockLog(epochs=[1] * 5 + [3] * 3, high_watermark=5)
    leader = MockLog(epochs=[1] * 5 + [2] * 5, high_watermark=10)
    thread = setup(follower, leader, 4)
    thread.maybe_truncate()
    assert thread.epoch_requests == [{TP: 3}] and thread.fetch_state(TP).state is ReplicaState.FETCHING
    assert thread.replica[TP].log_end_offset == 5


@pytest.mark.parametrize("disabled_fixes", with_and_without_fix("KAFKA-1211"))
def test_follower_keeps_what_the_leader_also_has_above_its_high_watermark(disabled_fixes):
    # KIP-101: the follower asks where its epoch ends instead of cutting its log to its high watermark
    # (KAFKA-1211: the records above it would exist on the leader alone until the next fetch)
    follower = MockLog(epochs=[0, 0, 0, 0], high_watermark=2)
    leader = MockLog(epochs=[0, 0, 0, 0], high_watermark=4)
    thread = setup(follower, leader, 0, disabled_fixes)
    thread.maybe_truncate()
    assert thread.replica[TP].log_end_offset == 4
    thread.maybe_fetch()
    assert thread.replica[TP].records == leader.records


def test_truncation_skipped_if_no_epoch_change():
    thread = setup(MockLog(), MockLog(epochs=[0, 0]), 0)
    run(thread)
    state = thread.fetch_state(TP)
    thread.add_partitions({TP: OffsetAndEpoch(0, 0)})
    assert thread.fetch_state(TP) == state                   # same epoch: keeps fetching where it was
    thread.add_partitions({TP: OffsetAndEpoch(0, 1)})
    assert thread.fetch_state(TP).state is ReplicaState.TRUNCATING


def test_fenced_truncation_removes_the_partition_until_the_next_leader_and_isr():
    thread = setup(MockLog(epochs=[0]), MockLog(epochs=[0, 0]), 0)
    thread.leader_epoch_errors[TP] = Errors.FENCED_LEADER_EPOCH
    thread.do_work()
    assert thread.fetch_state(TP) is None and thread.failed_partitions.contains(TP)


def test_epoch_request_error_retries_after_the_backoff():
    thread = setup(MockLog(epochs=[0]), MockLog(epochs=[0, 0]), 0)
    thread.leader_epoch_errors[TP] = Errors.NOT_LEADER_FOR_PARTITION
    thread.maybe_truncate()
    state = thread.fetch_state(TP)
    assert state.state is ReplicaState.TRUNCATING and state.is_delayed(thread.mock_time.milliseconds())
    del thread.leader_epoch_errors[TP]
    thread.maybe_truncate()
    assert len(thread.epoch_requests) == 1                    # still backing off
    thread.mock_time.sleep(BACKOFF_MS)
    thread.maybe_truncate()
    assert len(thread.epoch_requests) == 2 and thread.fetch_state(TP).state is ReplicaState.FETCHING


def test_follower_fetch_out_of_range_high_truncates_to_the_leader_end():
    # Kafka: testFollowerFetchOutOfRangeHigh -- after an unclean election the leader's log is shorter
    thread = setup(MockLog(epochs=[0] * 6), MockLog(epochs=[0] * 4), 0)
    thread.update_fetch_offset_and_maybe_mark_truncation_complete({TP: OffsetTruncationState(6, True)})
    thread.maybe_fetch()
    assert thread.replica[TP].log_end_offset == 4 and thread.fetch_state(TP).fetch_offset == 4


def test_follower_fetch_out_of_range_low_starts_at_the_leader_log_start():
    # Kafka: testFollowerFetchOutOfRangeLow -- the leader deleted what the follower would fetch next
    leader = MockLog(log_start_offset=10)
    leader.append([(10, 0), (11, 0)])
    thread = setup(MockLog(epochs=[0, 0]), leader, 0)
    thread.update_fetch_offset_and_maybe_mark_truncation_complete({TP: OffsetTruncationState(2, True)})
    thread.maybe_fetch()
    assert thread.replica[TP].log_start_offset == 10 and thread.fetch_state(TP).fetch_offset == 10
    thread.maybe_fetch()
    assert thread.replica[TP].records == leader.records


def test_corrupt_message_does_not_advance_the_fetch_offset():
    # Kafka: testCorruptMessage -- a batch whose CRC does not match: nothing appended, the partition backs off
    # and stays with the thread; the next fetch (clean) succeeds
    thread = setup(MockLog(), MockLog(epochs=[0, 0]), 0)
    thread.maybe_truncate()
    thread.corrupt.add(TP)
    thread.maybe_fetch()
    state = thread.fetch_state(TP)
    assert state.fetch_offset == 0 and state.is_delayed(thread.mock_time.milliseconds())
    assert thread.replica[TP].records == [] and not thread.failed_partitions.contains(TP)
    thread.mock_time.sleep(BACKOFF_MS)
    thread.maybe_fetch()
    assert thread.fetch_state(TP).fetch_offset == 2 and thread.replica[TP].log_end_offset == 2


@pytest.mark.parametrize("error", [Errors.NOT_LEADER_FOR_PARTITION, Errors.UNKNOWN_LEADER_EPOCH,
                                   Errors.UNKNOWN_SERVER_ERROR])
def test_fetch_errors_back_off(error):
    thread = setup(MockLog(), MockLog(epochs=[0, 0]), 0)
    thread.maybe_truncate()
    thread.fetch_errors[TP] = error
    thread.maybe_fetch()
    state = thread.fetch_state(TP)
    assert state.fetch_offset == 0 and state.delayed_until_ms == thread.mock_time.milliseconds() + BACKOFF_MS


def test_fenced_fetch_removes_the_partition():
    thread = setup(MockLog(), MockLog(epochs=[0, 0]), 0)
    thread.maybe_truncate()
    thread.fetch_errors[TP] = Errors.FENCED_LEADER_EPOCH
    thread.maybe_fetch()
    assert thread.fetch_state(TP) is None and thread.failed_partitions.contains(TP)


def test_offsets_never_go_backwards_across_fetches():
    # including fetches that bring nothing (Log's append info for nothing says last offset -1)
    leader = MockLog(epochs=[0, 0])
    thread = setup(MockLog(), leader, 0)
    seen = []
    for i in range(6):
        if i % 2:
            leader.append([(leader.log_end_offset, 0)])
        thread.do_work()
        seen.append(thread.fetch_state(TP).fetch_offset)
    assert seen == sorted(seen) and seen[-1] == leader.log_end_offset == 5


def test_truncate_to_high_watermark_if_leader_epoch_request_not_supported():
    # Kafka: testTruncateToHighWatermarkIfLeaderEpochRequestNotSupported -- no OffsetsForLeaderEpoch is sent
    follower = MockLog(epochs=[0, 0, 0, 0, 0], high_watermark=3)
    thread = setup(follower, MockLog(epochs=[0] * 5, high_watermark=5), 0)
    thread.leader_epoch_supported = False
    thread.maybe_truncate()
    assert thread.epoch_requests == [] and follower.log_end_offset == 3
    assert thread.fetch_state(TP) == PartitionFetchState(3, 0, ReplicaState.FETCHING)


def test_leader_epoch_change_during_the_epoch_request_discards_its_answer():
    # Kafka: testLeaderEpochChangeDuringFetchEpochsFromLeader -- the answer was for epoch 2; by the time it
    # arrives the partition follows epoch 3: nothing is truncated, the next round asks again
    follower = MockLog(epochs=[0, 0, 1, 1, 1], high_watermark=2)
    leader = MockLog(epochs=[0, 0, 0, 2, 2], high_watermark=5)
    thread = setup(follower, leader, 2)

    def new_leader_epoch():
        thread.during_fetch = None
        thread.add_partitions({TP: OffsetAndEpoch(2, 3)})
    thread.during_fetch = new_leader_epoch
    thread.maybe_truncate()
    assert follower.log_end_offset == 5
    assert thread.fetch_state(TP) == PartitionFetchState(2, 3, ReplicaState.TRUNCATING)
    thread.maybe_truncate()          # the leader's epoch 1 ends at 3, answered as (0, 3); the follower's epoch 0 ends at 2
    assert len(thread.epoch_requests) == 2 and follower.log_end_offset == 2
    assert thread.fetch_state(TP) == PartitionFetchState(2, 3, ReplicaState.FETCHING)


def test_truncate_to_leader_offset_if_the_leader_answers_without_an_epoch():
    # OffsetsForLeaderEpoch v0 (inter-broker protocol before 2.0): min(leader's end offset, own log end)
    follower = MockLog(epochs=[0, 0, 1, 1, 1], high_watermark=1)
    thread = setup(follower, MockLog(epochs=[0, 0, 0, 0, 2, 2, 2, 2], high_watermark=8), 2)
    thread.leader_answers_without_epoch = True
    thread.maybe_truncate()          # the leader's end of epoch 1 is 4 (where its epoch 2 starts)
    assert follower.log_end_offset == 4 and thread.fetch_state(TP).fetch_offset == 4
    thread2 = setup(MockLog(epochs=[0, 0, 1], high_watermark=1), MockLog(epochs=[0, 0, 0, 0, 2, 2], high_watermark=6), 2)
    thread2.leader_answers_without_epoch = True
    thread2.maybe_truncate()         # leader says 4, the follower only has 3: it keeps its 3
    assert thread2.fetch_state(TP) == PartitionFetchState(3, 2, ReplicaState.FETCHING)


def test_an_epoch_the_follower_cannot_place_truncates_to_at_most_its_log_end():
    # getOffsetTruncationState's last rule: the follower tracks no epoch at or below the one the leader
    # answered (its records predate leader epochs): min(leader's offset, its own log end), no second round
    follower = MockLog(epochs=[3, 3, 3])
    follower.cache = LeaderEpochFileCache(TP, None)
    thread = setup(follower, MockLog(epochs=[1] * 10), 4)
    assert thread.get_offset_truncation_state(TP, EpochEndOffset(Errors.NONE, 1, 10)) == OffsetTruncationState(3, True)
    assert thread.get_offset_truncation_state(TP, EpochEndOffset(Errors.NONE, 1, 2)) == OffsetTruncationState(2, True)


def test_response_discarded_if_the_fetch_offset_changed_during_the_fetch():
    # the partition was truncated while the fetch was out: the answer is for an offset it no longer fetches
    thread = setup(MockLog(epochs=[0, 0]), MockLog(epochs=[0, 0, 0, 0], high_watermark=4), 0)
    thread.maybe_truncate()
    assert thread.fetch_state(TP).fetch_offset == 2

    def truncated_meanwhile():
        thread.during_fetch = None
        thread.replica[TP].truncate_to(1)
        thread.update_fetch_offset_and_maybe_mark_truncation_complete({TP: OffsetTruncationState(1, True)})
    thread.during_fetch = truncated_meanwhile
    thread.maybe_fetch()
    assert thread.fetch_state(TP) == PartitionFetchState(1, 0, ReplicaState.FETCHING)
    assert not thread.failed_partitions.contains(TP) and thread.replica[TP].log_end_offset == 1


def test_response_discarded_if_the_partition_went_back_to_truncating_during_the_fetch():
    # a LeaderAndIsr with a new leader epoch arrived while the fetch was out: same offset, but truncate first
    thread = setup(MockLog(), MockLog(epochs=[0, 0], high_watermark=2), 0)
    thread.maybe_truncate()

    def new_leader_epoch():
        thread.during_fetch = None
        thread.add_partitions({TP: OffsetAndEpoch(0, 1)})
    thread.during_fetch = new_leader_epoch
    thread.maybe_fetch()
    assert thread.replica[TP].records == []
    assert thread.fetch_state(TP) == PartitionFetchState(0, 1, ReplicaState.TRUNCATING)


def test_partitions_take_turns():
    # PartitionStates: a partition that got data moves to the end of the order (so that with a response size
    # limit each gets its turn); one that got nothing keeps its place and its offset
    tp1 = TopicPartition("t", 1)
    thread = setup(MockLog(), MockLog(epochs=[0, 0, 0]), 0)
    thread.replica[tp1], thread.leader[tp1] = MockLog(epochs=[0, 0]), MockLog(epochs=[0, 0])
    thread.add_partitions({tp1: OffsetAndEpoch(2, 0)})
    thread.maybe_truncate()
    assert list(thread.partition_states.partition_state_map()) == [TP, tp1]
    thread.maybe_fetch()
    assert list(thread.partition_states.partition_state_map()) == [tp1, TP]
    assert thread.fetch_state(tp1).fetch_offset == 2 and thread.fetch_state(TP).fetch_offset == 3


def test_mark_partitions_for_truncation_never_moves_the_fetch_offset_up():
    thread = setup(MockLog(), MockLog(epochs=[0] * 5), 0)
    run(thread, 2)
    thread.mark_partitions_for_truncation(TP, 8)
    assert thread.fetch_state(TP) == PartitionFetchState(5, 0, ReplicaState.TRUNCATING)
    thread.mark_partitions_for_truncation(TP, 2)
    assert thread.fetch_state(TP) == PartitionFetchState(2, 0, ReplicaState.TRUNCATING)


def test_consumer_lag_is_the_leader_high_watermark_minus_the_next_fetch_offset():
    # FetcherLagMetrics: kafka.server:type=FetcherLagMetrics,name=ConsumerLag,clientId=..,topic=..,partition=..
    from kafkalite.metrics.kafka_metrics_group import METRICS
    thread = setup(MockLog(), MockLog(epochs=[0] * 5, high_watermark=5), 0)
    thread.max_records_per_fetch = 2
    gauge_name = "kafka.server:type=FetcherLagMetrics,name=ConsumerLag,clientId=mock,topic=t,partition=0"
    lags = []
    for _ in range(4):
        thread.do_work()
        lags.append(METRICS.get(gauge_name).value())
    assert lags == [3, 1, 0, 0] and thread.fetcher_lag_stats.is_replica_in_sync(TP)


def test_consumer_lag_removed_with_the_partition():
    # Kafka: testConsumerLagRemovedWithPartition
    from kafkalite.metrics.kafka_metrics_group import METRICS
    thread = setup(MockLog(), MockLog(epochs=[0] * 5, high_watermark=5), 0)
    run(thread, 2)
    gauge_name = "kafka.server:type=FetcherLagMetrics,name=ConsumerLag,clientId=mock,topic=t,partition=0"
    assert METRICS.get(gauge_name) is not None
    thread.remove_partitions({TP})
    assert METRICS.get(gauge_name) is None and thread.fetcher_lag_stats.stats == {}

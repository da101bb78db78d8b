"""No Kafka counterpart: test doubles for the group coordinator tests.

ImmediateScheduler runs one-shot jobs at once. MockTimer (Kafka: kafka.utils.MockTimer) runs expired tasks on the caller's thread when the test
advances the MockTime, so rebalances and session expiry are deterministic. FakeReplicaManager
appends to in-memory logs that answer ``read`` like Log.read, so GroupMetadataManager can load back
what it stored.
"""
from __future__ import annotations

import heapq
import itertools

import attrs

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.utils.timer.timer import Timer


class MockTimer(Timer):
    """Kafka: kafka.utils.MockTimer -- tasks expire when time.sleep() moves the clock past them."""

    def __init__(self, time):
        self.time = time
        self._heap = []
        self._seq = itertools.count()

    def add(self, task) -> None:
        if task.delay_ms <= 0:   # already due
            task.run()
            return
        heapq.heappush(self._heap, (self.time.milliseconds() + task.delay_ms, next(self._seq), task))

    def advance_clock(self, timeout_ms: int) -> bool:
        now = self.time.milliseconds()
        ran = False
        while self._heap and self._heap[0][0] <= now:
            _, _, task = heapq.heappop(self._heap)
            if not task.is_completed:
                task.run()
                ran = True
        return ran

    def size(self) -> int:
        return sum(1 for _, _, t in self._heap if not t.is_completed)

    def shutdown(self) -> None:
        self._heap.clear()


@attrs.define
class PartitionResponse:
    error: Errors
    base_offset: int = -1


@attrs.define
class FetchDataInfo:
    records: MemoryRecords


class MemoryLog:
    """A Log stand-in: batches with assigned offsets, read back from any offset."""

    def __init__(self):
        self.batches: list[bytearray] = []
        self.log_start_offset = 0
        self.log_end_offset = 0

    def append(self, records: MemoryRecords) -> int:
        base = self.log_end_offset
        for batch in records.batches():
            buf = bytearray(batch.buffer)
            view = MemoryRecords(buf).first_batch()
            view.set_last_offset(self.log_end_offset + view.last_offset_delta)
            self.log_end_offset = view.next_offset
            self.batches.append(buf)
        return base

    def read(self, start_offset, max_length, isolation=None, min_one_message=True) -> FetchDataInfo:
        out = bytearray()
        for buf in self.batches:
            b = MemoryRecords(buf).first_batch()
            if b.last_offset >= start_offset and (not out or len(out) + len(buf) <= max_length):
                out += buf
        return FetchDataInfo(MemoryRecords(out))


class FakeReplicaManager:
    """The ReplicaManager contract the coordinator codes against, over MemoryLogs."""

    def __init__(self, partitions=range(0)):
        self.logs = {TopicPartition("__consumer_offsets", p): MemoryLog() for p in partitions}
        self.fail_with: Errors | None = None
        self.appends = 0

    def get_log(self, tp):
        return self.logs.get(tp)

    def append_records(self, timeout_ms, required_acks, internal_topics_allowed, is_from_client,
                       entries_per_partition, response_callback):
        assert internal_topics_allowed and not is_from_client
        result = {}
        for tp, records in entries_per_partition.items():
            if self.fail_with is not None:
                result[tp] = PartitionResponse(self.fail_with)
            else:
                self.appends += 1
                result[tp] = PartitionResponse(Errors.NONE, self.logs[tp].append(records))
        response_callback(result)


class ImmediateScheduler:
    """Runs one-shot jobs at once on the caller's thread; periodic ones are not run."""

    def startup(self): pass
    def shutdown(self): pass
    is_started = True

    def schedule(self, name, fun, delay_ms=0, period_ms=-1):
        if period_ms < 0:
            fun()

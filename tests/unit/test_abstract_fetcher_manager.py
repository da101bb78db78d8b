"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/AbstractFetcherManagerTest.scala -- which fetcher a
partition goes to (Java's String.hashCode, Utils.abs), one thread per (leader, fetcher id) started on demand,
reused, replaced when the leader's address changes, shut when idle; the failed partitions and dead threads the
manager reports; the names ReplicaFetcherManager gives its threads. The threads here are real
AbstractFetcherThreads over nothing (no partition ever has data), so start and shutdown are the real ones."""
import pytest

from kafkalite.cluster.broker_end_point import BrokerEndPoint
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.server.abstract_fetcher_manager import AbstractFetcherManager, BrokerIdAndFetcherId, InitialFetchState
from kafkalite.server.abstract_fetcher_thread import (
    AbstractFetcherThread, OffsetAndEpoch, ResultWithPartitions,
)
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.server.replica_fetcher_manager import ReplicaFetcherManager
from kafkalite.utils.time import SYSTEM, MockTime
from support import wait_until

LEADER_0 = BrokerEndPoint(0, "localhost", 9000)
LEADER_1 = BrokerEndPoint(1, "localhost", 9001)


class IdleFetcherThread(AbstractFetcherThread):
    """Truncates to the high watermark (no epochs), then has nothing to fetch: waits out the back-off."""

    def __init__(self, name, source_broker, failed_partitions):
        super().__init__(name, name, source_broker, failed_partitions, fetch_back_off_ms=10, time=SYSTEM)
        self.added: list[dict] = []
        self.explode = False

    def add_partitions(self, initial_fetch_states):
        self.added.append(dict(initial_fetch_states))
        super().add_partitions(initial_fetch_states)

    def do_work(self):
        if self.explode:
            raise RuntimeError("boom")
        super().do_work()

    def latest_epoch(self, tp):
        return None

    def truncate(self, tp, truncation_state):
        pass

    def build_fetch(self, partition_map):
        return ResultWithPartitions(None, frozenset())

    def is_offset_for_leader_epoch_supported(self):
        return True


class MockFetcherManager(AbstractFetcherManager):
    def __init__(self, num_fetchers=2):
        super().__init__("fetcher-manager", "fetcher-manager", num_fetchers)
        self.created: list[IdleFetcherThread] = []

    def create_fetcher_thread(self, fetcher_id, source_broker):
        thread = IdleFetcherThread(f"MockFetcher-{fetcher_id}-{source_broker.id}", source_broker,
                                   self.failed_partitions)
        self.created.append(thread)
        return thread


@pytest.fixture
def manager():
    m = MockFetcherManager()
    yield m
    m.close_all_fetchers()


def partitions_with_fetcher_id(manager, fetcher_id, count, topic="t"):
    found = [tp for tp in (TopicPartition(topic, p) for p in range(50)) if manager.get_fetcher_id(tp) == fetcher_id]
    return found[:count]


# Java, by hand: "a".hashCode() = 97; "topic".hashCode() = ((((116*31+111)*31+112)*31+105)*31+99) = 110546223;
# 31 * 110546223 = 3426932913 overflows an int: -868034383, Utils.abs 868034383 (digit sum 43: = 1 mod 3;
# ends in 83: = 3 mod 4), where Python's unbounded 3426932913 would be 0 mod 3. "polygenelubricants".hashCode()
# is Integer.MIN_VALUE; 31 * MIN_VALUE wraps to MIN_VALUE, which Utils.abs maps to 0 (Math.abs would keep it
# negative; Python's abs(2**31) % 3 would be 2).
@pytest.mark.parametrize("topic, partition, num_fetchers, fetcher_id", [
    ("a", 0, 3, 1),                    # 3007 % 3
    ("a", 2, 3, 0),                    # 3009 % 3
    ("topic", 0, 3, 1),
    ("topic", 0, 4, 3),
    ("topic", 1, 4, 2),                # -868034382 -> 868034382 % 4
    ("polygenelubricants", 0, 3, 0),
    ("polygenelubricants", 0, 1, 0),
])
def test_fetcher_id_hashes_as_java_does(topic, partition, num_fetchers, fetcher_id):
    assert MockFetcherManager(num_fetchers).get_fetcher_id(TopicPartition(topic, partition)) == fetcher_id


def test_add_and_remove_partition(manager):
    # Kafka: testAddAndRemovePartition -- the thread gets (init offset, leader epoch); removal takes it away
    tp = TopicPartition("topic", 0)
    manager.add_fetcher_for_partitions({tp: InitialFetchState(LEADER_0, current_leader_epoch=15, init_offset=10)})
    [thread] = manager.created
    assert thread.added == [{tp: OffsetAndEpoch(10, 15)}]
    assert manager.get_fetcher(tp) is thread and thread.is_alive()
    assert manager.fetcher_thread_map == {BrokerIdAndFetcherId(0, manager.get_fetcher_id(tp)): thread}
    assert thread.fetch_state(tp).current_leader_epoch == 15
    manager.remove_fetcher_for_partitions({tp})
    assert manager.get_fetcher(tp) is None and thread.partition_count() == 0


def test_one_thread_per_leader_and_fetcher_id_reused_for_more_partitions(manager):
    a0, b0, c0 = partitions_with_fetcher_id(manager, 0, 3)
    [a1] = partitions_with_fetcher_id(manager, 1, 1)
    manager.add_fetcher_for_partitions({a0: InitialFetchState(LEADER_0, 0, 0), a1: InitialFetchState(LEADER_0, 0, 0),
                                        b0: InitialFetchState(LEADER_1, 0, 0)})
    assert set(manager.fetcher_thread_map) == {BrokerIdAndFetcherId(0, 0), BrokerIdAndFetcherId(0, 1),
                                               BrokerIdAndFetcherId(1, 0)}
    assert len(manager.created) == 3 and all(t.is_alive() for t in manager.created)
    first = manager.fetcher_thread_map[BrokerIdAndFetcherId(0, 0)]
    assert first.partition_count() == 1 and first.fetch_state(a0) is not None
    # a second partition for leader 0, fetcher 0: the same thread takes it, no new thread
    manager.add_fetcher_for_partitions({c0: InitialFetchState(LEADER_0, 1, 0)})
    assert len(manager.created) == 3 and manager.get_fetcher(c0) is first and first.partition_count() == 2


def test_a_leader_at_a_new_address_gets_a_new_thread(manager):
    tp = TopicPartition("topic", 0)
    manager.add_fetcher_for_partitions({tp: InitialFetchState(LEADER_0, 0, 0)})
    [old] = manager.created
    moved = BrokerEndPoint(0, "otherhost", 9100)
    manager.add_fetcher_for_partitions({tp: InitialFetchState(moved, 1, 0)})
    assert len(manager.created) == 2 and not old.is_alive()
    assert manager.get_fetcher(tp).source_broker == moved


def test_idle_threads_are_shut_and_forgotten(manager):
    [p0] = partitions_with_fetcher_id(manager, 0, 1)
    [p1] = partitions_with_fetcher_id(manager, 1, 1)
    manager.add_fetcher_for_partitions({p0: InitialFetchState(LEADER_0, 0, 0), p1: InitialFetchState(LEADER_0, 0, 0)})
    busy, idle = manager.fetcher_thread_map[BrokerIdAndFetcherId(0, 0)], manager.fetcher_thread_map[
        BrokerIdAndFetcherId(0, 1)]
    manager.remove_fetcher_for_partitions({p1})
    manager.shutdown_idle_fetcher_threads()
    assert manager.fetcher_thread_map == {BrokerIdAndFetcherId(0, 0): busy}
    assert busy.is_alive() and not idle.is_alive()
    manager.close_all_fetchers()
    assert manager.fetcher_thread_map == {} and not busy.is_alive()


def test_failed_partitions_leave_the_count_when_removed_or_added_again(manager):
    # Kafka: testMetricFailedPartitionCount
    tp = TopicPartition("topic", 0)
    manager.failed_partitions.add(tp)
    assert manager.failed_partitions.size() == 1
    manager.remove_fetcher_for_partitions({tp})
    assert manager.failed_partitions.size() == 0
    manager.failed_partitions.add(tp)
    manager.add_fetcher_for_partitions({tp: InitialFetchState(LEADER_0, 1, 0)})
    assert manager.failed_partitions.size() == 0


def test_dead_thread_count(manager):
    # Kafka: testDeadThreadCountMetric -- a thread whose loop died, not one that was asked to stop
    [p0] = partitions_with_fetcher_id(manager, 0, 1)
    [p1] = partitions_with_fetcher_id(manager, 1, 1)
    manager.add_fetcher_for_partitions({p0: InitialFetchState(LEADER_0, 0, 0), p1: InitialFetchState(LEADER_0, 0, 0)})
    stopped, dying = manager.get_fetcher(p0), manager.get_fetcher(p1)
    stopped.shutdown()
    assert manager.dead_thread_count() == 0
    dying.explode = True
    wait_until(lambda: not dying.is_alive(), 5, "the fetcher's loop to die")
    assert manager.dead_thread_count() == 1


def test_thread_names(tmp_path):
    config = KafkaConfig({"broker.id": "3", "log.dirs": str(tmp_path), "zookeeper.connect": "embedded:x",
                          "num.replica.fetchers": "2"})
    manager = ReplicaFetcherManager(config, replica_manager=None, time=MockTime())
    threads = [manager.create_fetcher_thread(1, BrokerEndPoint(7, "localhost", 9000))]
    assert threads[0].name == "ReplicaFetcherThread-1-7" and threads[0].fetcher_id == 1
    prefixed = ReplicaFetcherManager(config, None, MockTime(), thread_name_prefix="broker-3")
    threads.append(prefixed.create_fetcher_thread(0, BrokerEndPoint(5, "localhost", 9000)))
    assert threads[1].name == "broker-3:ReplicaFetcherThread-0-5"
    assert manager.num_fetchers == 2 and manager.client_id == "Replica"
    for t in threads:
        t.leader_endpoint.close()



def test_max_lag_is_the_largest_over_every_fetcher(manager):
    [p0] = partitions_with_fetcher_id(manager, 0, 1)
    [p1] = partitions_with_fetcher_id(manager, 1, 1)
    assert manager.max_lag() == 0
    manager.add_fetcher_for_partitions({p0: InitialFetchState(LEADER_0, 0, 0), p1: InitialFetchState(LEADER_0, 0, 0)})
    manager.get_fetcher(p0).fetcher_lag_stats.get_and_maybe_put(p0).lag = 7
    manager.get_fetcher(p1).fetcher_lag_stats.get_and_maybe_put(p1).lag = 3
    assert manager.max_lag() == 7
    manager.remove_fetcher_for_partitions({p0})
    assert manager.max_lag() == 3

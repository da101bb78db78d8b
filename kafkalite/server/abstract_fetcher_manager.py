"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/AbstractFetcherManager.scala

Classes: InitialFetchState, BrokerAndFetcherId, BrokerIdAndFetcherId, FailedPartitions,
AbstractFetcherManager.

The manager owns the fetcher threads of one kind (S9): up to ``num_fetchers`` per source broker.
A partition always goes to the same fetcher of its leader, chosen by hashing its name as Kafka does
(``get_fetcher_id``), so a broker with ``num.replica.fetchers=2`` fetching from three leaders runs up to
six threads. ``add_fetcher_for_partitions`` starts a thread when a (leader, fetcher id) pair has none and
hands it the partitions; ``remove_fetcher_for_partitions`` takes them away (becoming leader, deleting);
``shutdown_idle_fetcher_threads`` stops the threads left with nothing to fetch.
"""
from __future__ import annotations

import threading

import attrs

from kafkalite.common.utils import java_string_hashcode, to_int32, utils_abs
from kafkalite.utils.logging import Logging


@attrs.frozen
class InitialFetchState:
    """Kafka: InitialFetchState(leader, currentLeaderEpoch, initOffset)."""

    leader: object   # BrokerEndPoint
    current_leader_epoch: int
    init_offset: int


@attrs.frozen
class BrokerAndFetcherId:
    """Kafka: BrokerAndFetcherId(broker, fetcherId)."""

    broker: object   # BrokerEndPoint
    fetcher_id: int


@attrs.frozen
class BrokerIdAndFetcherId:
    """Kafka: BrokerIdAndFetcherId(brokerId, fetcherId)."""

    broker_id: int
    fetcher_id: int


class FailedPartitions:
    """Kafka: FailedPartitions -- partitions a fetcher gave up on (storage error, fenced); they wait for the
    next LeaderAndIsr."""

    def __init__(self):
        self._lock = threading.Lock()
        self._partitions: set = set()

    def add(self, tp) -> None:
        with self._lock:
            self._partitions.add(tp)

    def remove_all(self, partitions) -> None:
        with self._lock:
            self._partitions.difference_update(partitions)

    def size(self) -> int:
        with self._lock:
            return len(self._partitions)

    def contains(self, tp) -> bool:
        with self._lock:
            return tp in self._partitions


class AbstractFetcherManager(Logging):
    """Kafka: AbstractFetcherManager(name, clientId, numFetchers)."""

    def __init__(self, name: str, client_id: str, num_fetchers: int):
        self.name = name
        self.client_id = client_id
        self.num_fetchers = num_fetchers
        self.fetcher_thread_map: dict[BrokerIdAndFetcherId, object] = {}
        self.failed_partitions = FailedPartitions()
        self.lock = threading.RLock()
        self.log_ident = f"[{name}] "

    def create_fetcher_thread(self, fetcher_id: int, source_broker):
        raise NotImplementedError

    # Kafka: AbstractFetcherManager.value (of the MaxLag gauge) -- the largest lag over every fetcher's partitions
    def max_lag(self) -> int:
        with self.lock:
            return max((m.lag for fetcher in self.fetcher_thread_map.values()
                        for m in list(fetcher.fetcher_lag_stats.stats.values())), default=0)

    # Kafka: AbstractFetcherManager.deadThreadCount -- fetchers whose loop ended by an exception
    def dead_thread_count(self) -> int:
        with self.lock:
            return sum(1 for fetcher in self.fetcher_thread_map.values() if fetcher.is_thread_failed)

    # Kafka: AbstractFetcherManager.getFetcher -- the fetcher that holds this partition, if any
    def get_fetcher(self, topic_partition):
        with self.lock:
            for fetcher in self.fetcher_thread_map.values():
                if fetcher.fetch_state(topic_partition) is not None:
                    return fetcher
            return None

    # Kafka: AbstractFetcherManager.getFetcherId -- Utils.abs(31 * topic.hashCode() + partition) % numFetchers
    def get_fetcher_id(self, topic_partition) -> int:
        n = to_int32(31 * java_string_hashcode(topic_partition.topic) + topic_partition.partition)
        return utils_abs(n) % self.num_fetchers

    # Kafka: AbstractFetcherManager.addFetcherForPartitions
    def add_fetcher_for_partitions(self, partition_and_offsets: dict) -> None:
        with self.lock:
            per_fetcher: dict[BrokerAndFetcherId, dict] = {}
            for tp, state in partition_and_offsets.items():
                per_fetcher.setdefault(BrokerAndFetcherId(state.leader, self.get_fetcher_id(tp)), {})[tp] = state
            for key, initial_fetch_offsets in per_fetcher.items():
                id_key = BrokerIdAndFetcherId(key.broker.id, key.fetcher_id)
                fetcher_thread = self.fetcher_thread_map.get(id_key)
                if fetcher_thread is None or fetcher_thread.source_broker != key.broker:
                    if fetcher_thread is not None:
                        fetcher_thread.shutdown()
                    fetcher_thread = self.add_and_start_fetcher_thread(key, id_key)
                from kafkalite.server.abstract_fetcher_thread import OffsetAndEpoch  # loaded with the first fetcher
                offsets_and_epochs = {tp: OffsetAndEpoch(s.init_offset, s.current_leader_epoch)
                                      for tp, s in initial_fetch_offsets.items()}
                fetcher_thread.add_partitions(offsets_and_epochs)
                self.info(f"Added fetcher to broker {key.broker} for partitions "
                          f"{sorted(map(str, offsets_and_epochs))}")
            self.failed_partitions.remove_all(partition_and_offsets)

    def add_and_start_fetcher_thread(self, key: BrokerAndFetcherId, id_key: BrokerIdAndFetcherId):
        fetcher_thread = self.create_fetcher_thread(key.fetcher_id, key.broker)
        self.fetcher_thread_map[id_key] = fetcher_thread
        fetcher_thread.start()
        return fetcher_thread

    # Kafka: AbstractFetcherManager.markPartitionsForTruncation -- the fetcher of (broker, partition) truncates it
    # again from ``truncation_offset`` (how a follower's truncation reaches the future log of a replica it moves)
    def mark_partitions_for_truncation(self, broker_id: int, topic_partition, truncation_offset: int) -> None:
        with self.lock:
            fetcher = self.fetcher_thread_map.get(BrokerIdAndFetcherId(broker_id, self.get_fetcher_id(topic_partition)))
            if fetcher is not None:
                fetcher.mark_partitions_for_truncation(topic_partition, truncation_offset)

    # Kafka: AbstractFetcherManager.removeFetcherForPartitions
    def remove_fetcher_for_partitions(self, partitions) -> None:
        partitions = set(partitions)
        if not partitions:
            return
        with self.lock:
            for fetcher in self.fetcher_thread_map.values():
                fetcher.remove_partitions(partitions)
            self.failed_partitions.remove_all(partitions)
        self.info(f"Removed fetcher for partitions {sorted(map(str, partitions))}")

    # Kafka: AbstractFetcherManager.shutdownIdleFetcherThreads
    def shutdown_idle_fetcher_threads(self) -> None:
        with self.lock:
            for key, fetcher in list(self.fetcher_thread_map.items()):
                if fetcher.partition_count() <= 0:
                    fetcher.shutdown()
                    del self.fetcher_thread_map[key]

    # Kafka: AbstractFetcherManager.closeAllFetchers -- initiate every shutdown first, then wait for each
    def close_all_fetchers(self) -> None:
        with self.lock:
            for fetcher in self.fetcher_thread_map.values():
                fetcher.initiate_shutdown()
            for fetcher in self.fetcher_thread_map.values():
                fetcher.shutdown()
            self.fetcher_thread_map.clear()

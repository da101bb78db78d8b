"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/AbstractFetcherThread.scala

Classes: ReplicaState, PartitionFetchState, OffsetTruncationState, OffsetAndEpoch, EpochData,
PartitionStates, ResultWithPartitions, FetcherLagMetrics, FetcherLagStats, AbstractFetcherThread.

A fetcher thread copies the partitions it was given from one source broker (S9). Each partition is
first **Truncating**: the thread asks the leader, with OffsetsForLeaderEpoch, where the follower's
latest leader epoch ends in the leader's log, and cuts its own log there (KIP-101; in several rounds
when the leader names an epoch the follower never saw, KIP-279). Then it is **Fetching**: one Fetch
request for all of them, each partition's answer appended at its fetch offset. A partition whose
fetch failed is delayed by ``replica.fetch.backoff.ms``; one fenced by a newer leader epoch, or whose
log failed, leaves the thread until the next LeaderAndIsr (``failed_partitions``).

Subclasses say how to talk to the leader and to the local log: ``ReplicaFetcherThread``.
``disabled_fixes`` (``kafkalite.test.disable.fixes``) brings back two of Kafka's old behaviours for tests:
KAFKA-1211 (no OffsetsForLeaderEpoch: truncate to the high watermark) and KAFKA-6361 (one round only).
Era notes: Java's ``ReentrantLock`` + ``Condition`` is a ``threading.Condition``; ``DelayedItem`` is a
deadline in milliseconds. Each partition's lag (the leader's high watermark minus the next fetch offset) is
the gauge ``kafka.server:type=FetcherLagMetrics,name=ConsumerLag,clientId=<thread>,topic=..,partition=..``;
omitted: FetcherStats' request and byte rates.
"""
from __future__ import annotations

import enum
import threading
from collections import OrderedDict

import attrs

from kafkalite.metrics.kafka_metrics_group import MetricsGroup
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.utils.shutdownable_thread import ShutdownableThread

UNDEFINED_EPOCH = -1          # Kafka: EpochEndOffset.UNDEFINED_EPOCH
UNDEFINED_EPOCH_OFFSET = -1   # Kafka: EpochEndOffset.UNDEFINED_EPOCH_OFFSET
KAFKA_1211 = "KAFKA-1211"     # switched off: truncate to the high watermark, no OffsetsForLeaderEpoch (pre-KIP-101)
KAFKA_6361 = "KAFKA-6361"     # switched off: one truncation round (pre-KIP-279)


class ReplicaState(enum.Enum):
    """Kafka: ReplicaState -- Truncating, then Fetching."""

    TRUNCATING = "Truncating"
    FETCHING = "Fetching"


@attrs.frozen
class PartitionFetchState:
    """Kafka: PartitionFetchState(fetchOffset, currentLeaderEpoch, delay, state)."""

    fetch_offset: int
    current_leader_epoch: int
    state: ReplicaState
    delayed_until_ms: int = 0   # Kafka's DelayedItem: not before this time

    def is_delayed(self, now_ms: int) -> bool:
        return now_ms < self.delayed_until_ms

    # Kafka: PartitionFetchState.isReadyForFetch
    def is_ready_for_fetch(self, now_ms: int) -> bool:
        return self.state is ReplicaState.FETCHING and not self.is_delayed(now_ms)

    # Kafka: PartitionFetchState.isTruncating
    def is_truncating(self, now_ms: int) -> bool:
        return self.state is ReplicaState.TRUNCATING and not self.is_delayed(now_ms)


@attrs.frozen
class OffsetTruncationState:
    """Kafka: OffsetTruncationState(offset, truncationCompleted)."""

    offset: int
    truncation_completed: bool = True


@attrs.frozen
class OffsetAndEpoch:
    """Kafka: OffsetAndEpoch(offset, leaderEpoch)."""

    offset: int
    leader_epoch: int


@attrs.frozen
class EpochData:
    """Kafka: OffsetsForLeaderEpochRequest.PartitionData(currentLeaderEpoch, leaderEpoch)."""

    current_leader_epoch: int
    leader_epoch: int


@attrs.frozen
class EpochEndOffset:
    """Kafka: EpochEndOffset(error, leaderEpoch, endOffset) -- the leader's answer for one partition."""

    error: Errors
    leader_epoch: int
    end_offset: int


@attrs.frozen
class ResultWithPartitions:
    """Kafka: AbstractFetcherThread.ResultWithPartitions(result, partitionsWithError)."""

    result: object
    partitions_with_error: frozenset


class PartitionStates:
    """Kafka: PartitionStates -- the partitions in fetch order; a partition that was just served moves to
    the end, so that with ``replica.fetch.response.max.bytes`` every partition gets its turn."""

    def __init__(self):
        self._map: OrderedDict = OrderedDict()

    def update_and_move_to_end(self, tp, state: PartitionFetchState) -> None:
        self._map.pop(tp, None)
        self._map[tp] = state

    def remove(self, tp) -> None:
        self._map.pop(tp, None)

    def state_value(self, tp) -> PartitionFetchState | None:
        return self._map.get(tp)

    def contains(self, tp) -> bool:
        return tp in self._map

    def partition_state_map(self) -> dict:
        return dict(self._map)

    def partition_set(self) -> set:
        return set(self._map)

    def set(self, states: dict) -> None:
        self._map = OrderedDict(states)

    def size(self) -> int:
        return len(self._map)


class FetcherLagMetrics:
    """Kafka: FetcherLagMetrics(metricId: ClientIdTopicPartition) -- one partition's lag, as a gauge."""

    def __init__(self, client_id: str, topic_partition):
        self.lag = 0
        self._group = MetricsGroup("kafka.server", "FetcherLagMetrics")
        self._tags = {"clientId": client_id, "topic": topic_partition.topic,
                      "partition": str(topic_partition.partition)}
        self._group.new_gauge("ConsumerLag", lambda: self.lag, self._tags)

    # Kafka: AbstractFetcherThread.unregister (FetcherLagMetrics.unregister)
    def unregister(self) -> None:
        self._group.remove_metric("ConsumerLag", self._tags)


class FetcherLagStats:
    """Kafka: FetcherLagStats(metricId) -- the lag of every partition a fetcher thread holds."""

    def __init__(self, client_id: str):
        self.client_id = client_id
        self.stats: dict = {}
        self._lock = threading.Lock()

    # Kafka: AbstractFetcherThread.getAndMaybePut (FetcherLagStats)
    def get_and_maybe_put(self, topic_partition) -> FetcherLagMetrics:
        with self._lock:
            metrics = self.stats.get(topic_partition)
            if metrics is None:
                metrics = self.stats[topic_partition] = FetcherLagMetrics(self.client_id, topic_partition)
            return metrics

    # Kafka: AbstractFetcherThread.isReplicaInSync (FetcherLagStats)
    def is_replica_in_sync(self, topic_partition) -> bool:
        metrics = self.stats.get(topic_partition)
        return metrics is not None and metrics.lag <= 0

    # Kafka: AbstractFetcherThread.unregister (FetcherLagStats.unregister)
    def unregister(self, topic_partition=None) -> None:
        with self._lock:
            gone = list(self.stats) if topic_partition is None else [topic_partition]
            for tp in gone:
                metrics = self.stats.pop(tp, None)
                if metrics is not None:
                    metrics.unregister()


class AbstractFetcherThread(ShutdownableThread):
    """Kafka: AbstractFetcherThread(name, clientId, sourceBroker, failedPartitions, fetchBackOffMs,
    isInterruptible)."""

    def __init__(self, name: str, client_id: str, source_broker, failed_partitions, fetch_back_off_ms: int,
                 time, is_interruptible: bool = True, disabled_fixes: frozenset = frozenset()):
        super().__init__(name, is_interruptible)
        self.client_id = client_id
        self.source_broker = source_broker
        self.failed_partitions = failed_partitions
        self.fetch_back_off_ms = fetch_back_off_ms
        self.time = time
        self.disabled_fixes = disabled_fixes
        self.partition_states = PartitionStates()
        self.partition_map_lock = threading.RLock()
        self.partition_map_cond = threading.Condition(self.partition_map_lock)
        self.fetcher_lag_stats = FetcherLagStats(client_id)

    # ---- what a subclass provides (Kafka's abstract methods)
    def process_partition_data(self, topic_partition, fetch_offset: int, partition_data):
        raise NotImplementedError

    def truncate(self, topic_partition, truncation_state: OffsetTruncationState) -> None:
        raise NotImplementedError

    def truncate_fully_and_start_at(self, topic_partition, offset: int) -> None:
        raise NotImplementedError

    def build_fetch(self, partition_map: dict) -> ResultWithPartitions:
        raise NotImplementedError

    def latest_epoch(self, topic_partition) -> int | None:
        raise NotImplementedError

    def log_end_offset(self, topic_partition) -> int:
        raise NotImplementedError

    def end_offset_for_epoch(self, topic_partition, epoch: int) -> OffsetAndEpoch | None:
        raise NotImplementedError

    def fetch_epoch_end_offsets(self, partitions: dict) -> dict:
        raise NotImplementedError

    def fetch_from_leader(self, fetch_request) -> list:
        raise NotImplementedError

    def fetch_earliest_offset_from_leader(self, topic_partition, current_leader_epoch: int) -> int:
        raise NotImplementedError

    def fetch_latest_offset_from_leader(self, topic_partition, current_leader_epoch: int) -> int:
        raise NotImplementedError

    def is_offset_for_leader_epoch_supported(self) -> bool:
        raise NotImplementedError

    # ---- the loop
    # Kafka: AbstractFetcherThread.shutdown
    def shutdown(self) -> None:
        self.initiate_shutdown()
        with self.partition_map_cond:
            self.partition_map_cond.notify_all()
        self.await_shutdown()
        self.fetcher_lag_stats.unregister()

    # Kafka: AbstractFetcherThread.doWork
    def do_work(self) -> None:
        self.maybe_truncate()
        self.maybe_fetch()

    # Kafka: AbstractFetcherThread.maybeFetch
    def maybe_fetch(self) -> None:
        with self.partition_map_cond:
            fetch_states = self.partition_states.partition_state_map()
            result = self.build_fetch(fetch_states)
            self.handle_partitions_with_errors(result.partitions_with_error, "maybeFetch")
            if result.result is None:
                self.trace(f"There are no active partitions. Back off for {self.fetch_back_off_ms} ms before "
                           f"sending a fetch request")
                self.partition_map_cond.wait(self.fetch_back_off_ms / 1000.0)
        if result.result is not None:
            self.process_fetch_request(fetch_states, result.result)

    # Kafka: AbstractFetcherThread.handlePartitionsWithErrors
    def handle_partitions_with_errors(self, partitions, method_name: str) -> None:
        if partitions:
            self.debug(f"Handling errors in {method_name} for partitions {sorted(map(str, partitions))}")
            self.delay_partitions(partitions, self.fetch_back_off_ms)

    # Kafka: AbstractFetcherThread.fetchTruncatingPartitions
    def fetch_truncating_partitions(self) -> tuple[dict, set]:
        with self.partition_map_lock:
            with_epochs, without_epochs = {}, set()
            now = self.time.milliseconds()
            for tp, state in self.partition_states.partition_state_map().items():
                if not state.is_truncating(now):
                    continue
                epoch = self.latest_epoch(tp)
                if epoch is not None and self.is_offset_for_leader_epoch_supported() \
                        and KAFKA_1211 not in self.disabled_fixes:
                    with_epochs[tp] = EpochData(state.current_leader_epoch, epoch)
                else:
                    without_epochs.add(tp)
            return with_epochs, without_epochs

    # Kafka: AbstractFetcherThread.maybeTruncate
    def maybe_truncate(self) -> None:
        with_epochs, without_epochs = self.fetch_truncating_partitions()
        if with_epochs:
            self.truncate_to_epoch_end_offsets(with_epochs)
        if without_epochs:
            self.truncate_to_high_watermark(without_epochs)

    # Kafka: AbstractFetcherThread.doTruncate
    def do_truncate(self, tp, truncation_state: OffsetTruncationState) -> bool:
        try:
            self.truncate(tp, truncation_state)
            return True
        except Exception as e:  # noqa: BLE001 -- KafkaStorageException and the rest alike
            self.error(f"Failed to truncate {tp} at offset {truncation_state.offset}: {e}", exc_info=True)
            self.mark_partition_failed(tp)
            return False

    # Kafka: AbstractFetcherThread.truncateToEpochEndOffsets -- ask the leader (unlocked), then truncate only
    # the partitions whose leader epoch did not change meanwhile (locked)
    def truncate_to_epoch_end_offsets(self, latest_epochs_for_partitions: dict) -> None:
        end_offsets = self.fetch_epoch_end_offsets(latest_epochs_for_partitions)
        with self.partition_map_lock:
            epoch_end_offsets = {}
            for tp, end in end_offsets.items():
                requested = latest_epochs_for_partitions.get(tp)
                if requested is None:
                    raise RuntimeError(f"Leader replied with partition {tp} not requested in OffsetsForLeaderEpoch "
                                       f"request")
                current = self.partition_states.state_value(tp)
                if current is not None and requested.current_leader_epoch == current.current_leader_epoch:
                    epoch_end_offsets[tp] = end
            result = self.maybe_truncate_to_epoch_end_offsets(epoch_end_offsets)
            self.handle_partitions_with_errors(result.partitions_with_error, "truncateToEpochEndOffsets")
            self.update_fetch_offset_and_maybe_mark_truncation_complete(result.result)

    # Kafka: AbstractFetcherThread.truncateToHighWatermark -- the fetch offset a follower starts at is its HW
    def truncate_to_high_watermark(self, partitions: set) -> None:
        with self.partition_map_lock:
            fetch_offsets = {}
            for tp in partitions:
                state = self.partition_states.state_value(tp)
                if state is None:
                    continue
                truncation_state = OffsetTruncationState(state.fetch_offset, True)
                self.info(f"Truncating partition {tp} to local high watermark {state.fetch_offset}")
                if self.do_truncate(tp, truncation_state):
                    fetch_offsets[tp] = truncation_state
            self.update_fetch_offset_and_maybe_mark_truncation_complete(fetch_offsets)

    # Kafka: AbstractFetcherThread.maybeTruncateToEpochEndOffsets
    def maybe_truncate_to_epoch_end_offsets(self, fetched_epochs: dict) -> ResultWithPartitions:
        fetch_offsets, with_error = {}, set()
        for tp, leader_epoch_offset in fetched_epochs.items():
            if leader_epoch_offset.error is Errors.NONE:
                truncation_state = self.get_offset_truncation_state(tp, leader_epoch_offset)
                if self.do_truncate(tp, truncation_state):
                    fetch_offsets[tp] = truncation_state
            elif leader_epoch_offset.error is Errors.FENCED_LEADER_EPOCH:
                self.on_partition_fenced(tp)
            else:
                self.info(f"Retrying leaderEpoch request for partition {tp} as the leader reported an error: "
                          f"{leader_epoch_offset.error.name}")
                with_error.add(tp)
        return ResultWithPartitions(fetch_offsets, frozenset(with_error))

    # Kafka: AbstractFetcherThread.onPartitionFenced -- wait for the next LeaderAndIsr
    def on_partition_fenced(self, tp) -> None:
        with self.partition_map_lock:
            state = self.partition_states.state_value(tp)
            if state is not None:
                self.info(f"Partition {tp} has an older epoch ({state.current_leader_epoch}) than the current "
                          f"leader. Will await the new LeaderAndIsr state before resuming fetching.")
                self.mark_partition_failed(tp)

    # Kafka: AbstractFetcherThread.processFetchRequest
    def process_fetch_request(self, fetch_states: dict, fetch_request) -> None:
        with_error: set = set()
        response_data: list = []
        try:
            self.trace(f"Sending fetch request {fetch_request}")
            response_data = self.fetch_from_leader(fetch_request)
        except Exception as e:  # noqa: BLE001 -- any failure of the round-trip backs every partition off
            if self.is_running:
                self.warn(f"Error in response for fetch request to broker {self.source_broker.id}: {e!r}")
                with self.partition_map_cond:
                    with_error |= self.partition_states.partition_set()
                    self.partition_map_cond.wait(self.fetch_back_off_ms / 1000.0)
        if response_data:
            with self.partition_map_lock:
                for tp, partition_data in response_data:
                    current = self.partition_states.state_value(tp)
                    fetch_state = fetch_states.get(tp)
                    # a partition removed, re-added or truncated while the fetch was out is not processed
                    if current is None or fetch_state is None or fetch_state.fetch_offset != current.fetch_offset \
                            or not current.is_ready_for_fetch(self.time.milliseconds()):
                        continue
                    self._process_partition_response(tp, current, fetch_state, partition_data, with_error)
        self.handle_partitions_with_errors(with_error, "processFetchRequest")

    def _process_partition_response(self, tp, current: PartitionFetchState, fetch_state: PartitionFetchState,
                                    partition_data, with_error: set) -> None:
        error = Errors.for_code(partition_data.error_code)
        if error is Errors.NONE:
            try:
                info = self.process_partition_data(tp, current.fetch_offset, partition_data)
            except (Errors.CORRUPT_MESSAGE.exception_class, Errors.INVALID_RECORD.exception_class) as e:
                # a corrupt or half-written batch: log and retry later; it must not stop the other partitions
                self.error(f"Found invalid messages during fetch for partition {tp} offset "
                           f"{current.fetch_offset}: {e}")
                with_error.add(tp)
            except Exception as e:  # noqa: BLE001 -- storage errors and the unexpected: stop fetching it
                self.error(f"Error while processing data for partition {tp} at offset {current.fetch_offset}: "
                           f"{e!r}", exc_info=not isinstance(e, ApiException))
                self.mark_partition_failed(tp)
            else:
                if info is not None:
                    next_offset = info.last_offset + 1 if info.valid_bytes > 0 else current.fetch_offset
                    self.fetcher_lag_stats.get_and_maybe_put(tp).lag = max(0, partition_data.high_watermark
                                                                           - next_offset)
                if info is not None and info.valid_bytes > 0 and self.partition_states.contains(tp):
                    self.partition_states.update_and_move_to_end(tp, PartitionFetchState(
                        next_offset, fetch_state.current_leader_epoch, ReplicaState.FETCHING))
        elif error is Errors.OFFSET_OUT_OF_RANGE:
            if not self.handle_out_of_range_error(tp, current):
                with_error.add(tp)
        elif error is Errors.UNKNOWN_LEADER_EPOCH:
            self.debug(f"Remote broker has a smaller leader epoch for partition {tp} than this replica's current "
                       f"leader epoch of {fetch_state.current_leader_epoch}.")
            with_error.add(tp)
        elif error is Errors.FENCED_LEADER_EPOCH:
            self.on_partition_fenced(tp)
        elif error is Errors.NOT_LEADER_FOR_PARTITION:
            self.debug(f"Remote broker is not the leader for partition {tp}, which could indicate that the "
                       f"partition is being moved")
            with_error.add(tp)
        else:
            self.error(f"Error for partition {tp} at offset {current.fetch_offset}: {error.name}")
            with_error.add(tp)

    # Kafka: AbstractFetcherThread.markPartitionsForTruncation
    def mark_partitions_for_truncation(self, tp, truncation_offset: int) -> None:
        with self.partition_map_cond:
            state = self.partition_states.state_value(tp)
            if state is not None:
                self.partition_states.update_and_move_to_end(tp, PartitionFetchState(
                    min(truncation_offset, state.fetch_offset), state.current_leader_epoch, ReplicaState.TRUNCATING,
                    state.delayed_until_ms))
                self.partition_map_cond.notify_all()

    # Kafka: AbstractFetcherThread.markPartitionFailed
    def mark_partition_failed(self, tp) -> None:
        with self.partition_map_lock:
            self.failed_partitions.add(tp)
            self.remove_partitions({tp})
        self.warn(f"Partition {tp} marked as failed")

    # Kafka: AbstractFetcherThread.addPartitions -- a partition whose leader epoch is unchanged keeps its state;
    # any other starts Truncating at its initial offset (the high watermark)
    def add_partitions(self, initial_fetch_states: dict) -> None:
        with self.partition_map_cond:
            for tp, initial in initial_fetch_states.items():
                current = self.partition_states.state_value(tp)
                if current is not None and current.current_leader_epoch == initial.leader_epoch:
                    updated = current
                else:
                    offset = initial.offset if initial.offset >= 0 else \
                        self.fetch_offset_and_truncate(tp, initial.leader_epoch)
                    updated = PartitionFetchState(offset, initial.leader_epoch, ReplicaState.TRUNCATING)
                self.partition_states.update_and_move_to_end(tp, updated)
            self.partition_map_cond.notify_all()

    # Kafka: AbstractFetcherThread.updateFetchOffsetAndMaybeMarkTruncationComplete
    def update_fetch_offset_and_maybe_mark_truncation_complete(self, fetch_offsets: dict) -> None:
        new_states = {}
        for tp, state in self.partition_states.partition_state_map().items():
            truncation = fetch_offsets.get(tp)
            if truncation is not None:
                next_state = ReplicaState.FETCHING if truncation.truncation_completed else ReplicaState.TRUNCATING
                state = PartitionFetchState(truncation.offset, state.current_leader_epoch, next_state,
                                            state.delayed_until_ms)
            new_states[tp] = state
        self.partition_states.set(new_states)

    # Kafka: AbstractFetcherThread.getOffsetTruncationState -- where to cut the follower's log, from the
    # leader's (epoch, end offset) for the follower's latest epoch
    def get_offset_truncation_state(self, tp, leader_epoch_offset: EpochEndOffset) -> OffsetTruncationState:
        with self.partition_map_lock:
            if leader_epoch_offset.end_offset == UNDEFINED_EPOCH_OFFSET:
                # the leader knows no epoch at or below ours: truncate to the initial offset, the HW
                fetch_offset = self.partition_states.state_value(tp).fetch_offset
                self.warn(f"Based on replica's leader epoch, leader replied with an unknown offset in {tp}. The "
                          f"initial fetch offset {fetch_offset} will be used for truncation.")
                return OffsetTruncationState(fetch_offset, True)
            replica_end_offset = self.log_end_offset(tp)
            if leader_epoch_offset.leader_epoch == UNDEFINED_EPOCH or KAFKA_6361 in self.disabled_fixes:
                # OffsetsForLeaderEpoch v0 (no epoch in the answer), or KIP-101 before KIP-279: one round
                return OffsetTruncationState(min(leader_epoch_offset.end_offset, replica_end_offset), True)
            follower = self.end_offset_for_epoch(tp, leader_epoch_offset.leader_epoch)
            if follower is None:
                self.warn(f"Based on replica's leader epoch, leader replied with epoch "
                          f"{leader_epoch_offset.leader_epoch} below any replica's tracked epochs for {tp}. The "
                          f"leader's offset only {leader_epoch_offset.end_offset} will be used for truncation.")
                return OffsetTruncationState(min(leader_epoch_offset.end_offset, replica_end_offset), True)
            if follower.leader_epoch != leader_epoch_offset.leader_epoch:
                # the leader names an epoch this replica never saw: cut to the end of our largest epoch below
                # it and ask again (KIP-279)
                intermediate = min(follower.offset, replica_end_offset)
                self.info(f"Based on replica's leader epoch, leader replied with epoch "
                          f"{leader_epoch_offset.leader_epoch} unknown to the replica for {tp}. Will truncate to "
                          f"{intermediate} and send another leader epoch request to the leader.")
                return OffsetTruncationState(intermediate, False)
            offset = min(follower.offset, leader_epoch_offset.end_offset, replica_end_offset)
            return OffsetTruncationState(offset, True)

    # Kafka: AbstractFetcherThread.handleOutOfRangeError -- True if no back-off is needed
    def handle_out_of_range_error(self, tp, fetch_state: PartitionFetchState) -> bool:
        try:
            new_offset = self.fetch_offset_and_truncate(tp, fetch_state.current_leader_epoch)
            self.partition_states.update_and_move_to_end(tp, PartitionFetchState(
                new_offset, fetch_state.current_leader_epoch, ReplicaState.FETCHING))
            self.info(f"Current offset {fetch_state.fetch_offset} for partition {tp} is out of range, which "
                      f"typically implies a leader change. Reset fetch offset to {new_offset}")
            return True
        except Errors.FENCED_LEADER_EPOCH.exception_class:
            self.on_partition_fenced(tp)
            return True
        except ApiException as e:
            self.info(f"Could not fetch offset for {tp} due to error: {e}")
            return False
        except Exception as e:  # noqa: BLE001
            self.error(f"Error getting offset for partition {tp}: {e!r}")
            return False

    # Kafka: AbstractFetcherThread.fetchOffsetAndTruncate -- the leader's end is below ours (after an unclean
    # election): truncate to it; else start at the larger of our end and the leader's start
    def fetch_offset_and_truncate(self, tp, current_leader_epoch: int) -> int:
        replica_end_offset = self.log_end_offset(tp)
        leader_end_offset = self.fetch_latest_offset_from_leader(tp, current_leader_epoch)
        if leader_end_offset < replica_end_offset:
            self.warn(f"Reset fetch offset for partition {tp} from {replica_end_offset} to current leader's "
                      f"latest offset {leader_end_offset}")
            self.truncate(tp, OffsetTruncationState(leader_end_offset, True))
            return leader_end_offset
        leader_start_offset = self.fetch_earliest_offset_from_leader(tp, current_leader_epoch)
        self.warn(f"Reset fetch offset for partition {tp} from {replica_end_offset} to current leader's start "
                  f"offset {leader_start_offset}")
        if leader_start_offset > replica_end_offset:
            self.truncate_fully_and_start_at(tp, leader_start_offset)
        return max(leader_start_offset, replica_end_offset)

    # Kafka: AbstractFetcherThread.delayPartitions
    def delay_partitions(self, partitions, delay_ms: int) -> None:
        with self.partition_map_cond:
            now = self.time.milliseconds()
            for tp in partitions:
                state = self.partition_states.state_value(tp)
                if state is not None and not state.is_delayed(now):
                    self.partition_states.update_and_move_to_end(tp, attrs.evolve(state, delayed_until_ms=now + delay_ms))
            self.partition_map_cond.notify_all()

    # Kafka: AbstractFetcherThread.removePartitions
    def remove_partitions(self, topic_partitions) -> None:
        with self.partition_map_lock:
            for tp in topic_partitions:
                self.partition_states.remove(tp)
                self.fetcher_lag_stats.unregister(tp)

    # Kafka: AbstractFetcherThread.partitionCount
    def partition_count(self) -> int:
        with self.partition_map_lock:
            return self.partition_states.size()

    # Kafka: AbstractFetcherThread.fetchState
    def fetch_state(self, tp) -> PartitionFetchState | None:
        with self.partition_map_lock:
            return self.partition_states.state_value(tp)

"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/group/GroupMetadataManager.scala

Classes: GroupMetadataManager (OffsetConfig is in offset_config.py); functions: the record helpers of
Kafka's companion object
(offset_commit_key/value, group_metadata_key/value, read_offset_message_value,
read_group_message_value).

Every group lives in one partition of the compacted internal topic ``__consumer_offsets``:
``partition_for(group) = abs(group.hashCode) % offsets.topic.num.partitions``, with Java's
String.hashCode so a group lands on the same partition as in Kafka. The broker leading that
partition is the group's coordinator. Its state is written there as records:

* an offset commit: key OffsetCommitKey(group, topic, partition) -> OffsetCommitValue;
* the group after each rebalance: key GroupMetadataKey(group) -> GroupMetadataValue (members,
  their subscriptions and assignments);
* a null value (tombstone) deletes an offset or a whole group.

When this broker becomes leader of a partition (``schedule_load_group_and_offsets``), a
scheduler thread reads the partition from its log start to its log end and rebuilds the groups
(``load_groups_and_offsets``); meanwhile requests for those groups get
COORDINATOR_LOAD_IN_PROGRESS. When it stops leading, ``remove_groups_for_partition`` unloads them.
A periodic job, ``delete-expired-group-metadata``, expires offsets after
``offsets.retention.minutes`` and removes groups that are Empty with no offsets left.

Era notes: values are written as 2.4 writes them with inter.broker.protocol 2.4: OffsetCommitValue
v1 when the commit carried an expire timestamp, else v3; GroupMetadataValue v3. Appends go
through ``replica_manager.append_records(timeout, acks, internal_topics_allowed, is_from_client,
entries, callback)``; the log magic is always 2, so ``getMagic`` is replaced by checking that the
partition has a local log.
Transactional offset commits (TxnOffsetCommit): ``store_offsets`` with a producer id writes one
transactional batch (that producer's id and epoch) and keeps the offsets pending in the group, per
producer; ``open_groups_for_producer`` remembers which groups wait for a marker from which producer.
When the transaction coordinator's markers have landed on ``__consumer_offsets``,
``schedule_handle_txn_completion`` runs ``handle_txn_completion`` on this manager's scheduler thread
(it takes group locks, and its caller may hold one): COMMIT makes the pending offsets the committed
ones, ABORT drops them. Loading a partition replays the same story: transactional offset records are
pending per producer until that producer's control batch (COMMIT applies them, ABORT drops them);
pending offsets without a marker at the end of the log stay pending, waiting for the marker that the
transaction coordinator will still write.

Era notes: ``get_offsets``' ``require_stable`` (UNSTABLE_OFFSET_COMMIT while a commit is pending) is
2.5's (KIP-447). After a failed transactional append the producer's group is forgotten only once its
pending offsets are gone (2.4 checked before failing them, so the group stayed registered).
Left out: the metrics (NumOffsets, NumGroups), offset compression codecs other than none.
"""
from __future__ import annotations

import threading
from typing import Callable

import attrs

from kafkalite.common.topic import GROUP_METADATA_TOPIC_NAME
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.common.utils import java_string_hashcode, utils_abs
from kafkalite.coordinator.group.group_metadata import (CommitRecordMetadataAndOffset, Dead, Empty, GroupMetadata,
                                                        OffsetAndMetadata, Stable, load_group)
from kafkalite.coordinator.group.member_metadata import MemberMetadata
from kafkalite.coordinator.group.offset_config import OffsetConfig  # noqa: F401  (re-exported)
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import group_metadata_records as R
from kafkalite.record.control_record_type import ControlRecordType
from kafkalite.record.end_transaction_marker import EndTransactionMarker
from kafkalite.record.memory_records import MemoryRecordsBuilder
from kafkalite.record.record_batch import RecordBatch
from kafkalite.utils.kafka_scheduler import KafkaScheduler
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM, Time

INVALID_OFFSET = -1   # Kafka: OffsetFetchResponse.INVALID_OFFSET
NO_METADATA = ""      # Kafka: OffsetFetchResponse.NO_METADATA


@attrs.frozen
class OffsetFetchPartitionData:
    """Kafka: OffsetFetchResponse.PartitionData."""

    offset: int
    leader_epoch: int | None
    metadata: str
    error: Errors


# No Kafka counterpart: java.lang.String.hashCode -- s[0]*31^(n-1) + ... over UTF-16 code units, as int32


# Kafka: GroupMetadataManager.offsetCommitKey
def offset_commit_key(group_id: str, topic_partition: TopicPartition) -> bytes:
    return R.serialize(R.OffsetCommitKey(group=group_id, topic=topic_partition.topic,
                                         partition=topic_partition.partition), 1)


# Kafka: GroupMetadataManager.groupMetadataKey
def group_metadata_key(group_id: str) -> bytes:
    return R.serialize(R.GroupMetadataKey(group=group_id), 2)


# Kafka: GroupMetadataManager.offsetCommitValue -- v1 if an expire timestamp is set, else v3
def offset_commit_value(om: OffsetAndMetadata) -> bytes:
    if om.expire_timestamp is not None:
        return R.serialize(R.OffsetCommitValue(offset=om.offset, metadata=om.metadata,
                                               commit_timestamp=om.commit_timestamp,
                                               expire_timestamp=om.expire_timestamp), 1)
    return R.serialize(R.OffsetCommitValue(offset=om.offset, metadata=om.metadata,
                                           commit_timestamp=om.commit_timestamp,
                                           leader_epoch=-1 if om.leader_epoch is None else om.leader_epoch), 3)


# Kafka: GroupMetadataManager.groupMetadataValue -- always v3 (inter.broker.protocol >= 2.3)
def group_metadata_value(group: GroupMetadata, assignment: dict[str, bytes]) -> bytes:
    members = []
    for m in group.all_member_metadata():
        if group.protocol_name is None:
            raise RuntimeError("Attempted to write non-empty group metadata with no defined protocol")
        members.append(R.MemberMetadata(
            member_id=m.member_id, group_instance_id=m.group_instance_id, client_id=m.client_id,
            client_host=m.client_host, rebalance_timeout=m.rebalance_timeout_ms,
            session_timeout=m.session_timeout_ms, subscription=m.metadata(group.protocol_name),
            assignment=assignment[m.member_id]))
    value = R.GroupMetadataValue(
        protocol_type=group.protocol_type or "", generation=group.generation_id,
        protocol=group.protocol_name, leader=group.leader_id,
        current_state_timestamp=-1 if group.current_state_timestamp is None else group.current_state_timestamp,
        members=members)
    return R.serialize(value, 3)


# Kafka: GroupMetadataManager.readOffsetMessageValue -- None for a tombstone
def read_offset_message_value(buf) -> OffsetAndMetadata | None:
    if buf is None:
        return None
    version, v = R.deserialize(R.OffsetCommitValue, buf)
    leader_epoch = v.leader_epoch if version >= 3 and v.leader_epoch >= 0 else None
    expire = v.expire_timestamp if version == 1 and v.expire_timestamp != -1 else None
    return OffsetAndMetadata(v.offset, leader_epoch, v.metadata, v.commit_timestamp, expire)


# Kafka: GroupMetadataManager.readGroupMessageValue -- None for a tombstone
def read_group_message_value(group_id: str, buf, time: Time = SYSTEM) -> GroupMetadata | None:
    if buf is None:
        return None
    version, v = R.deserialize(R.GroupMetadataValue, buf)
    members = []
    for m in v.members:
        rebalance_timeout = m.session_timeout if version == 0 else m.rebalance_timeout
        member = MemberMetadata(m.member_id, group_id, m.group_instance_id if version >= 3 else None,
                                m.client_id, m.client_host, rebalance_timeout, m.session_timeout,
                                v.protocol_type, [(v.protocol, m.subscription)])
        member.assignment = m.assignment
        members.append(member)
    state_ts = v.current_state_timestamp if version >= 2 and v.current_state_timestamp != -1 else None
    return load_group(group_id, Stable if members else Empty, v.generation, v.protocol_type or None,
                      v.protocol, v.leader, state_ts, members, time)


class GroupMetadataManager(Logging):
    """Kafka: GroupMetadataManager -- the groups of the __consumer_offsets partitions this broker leads."""

    def __init__(self, broker_id: int, config: OffsetConfig, replica_manager, time: Time = SYSTEM,
                 scheduler=None):
        self.broker_id = broker_id
        self.config = config
        self.replica_manager = replica_manager
        self.time = time
        self.log_ident = f"[GroupMetadataManager brokerId={broker_id}] "
        self.group_metadata_cache: dict[str, GroupMetadata] = {}   # Kafka: Pool[String, GroupMetadata]
        self.partition_lock = threading.RLock()
        self.loading_partitions: set[int] = set()
        self.owned_partitions: set[int] = set()
        self.shutting_down = threading.Event()
        self.group_metadata_topic_partition_count = config.offsets_topic_num_partitions
        # Kafka: new KafkaScheduler(threads = 1, threadNamePrefix = "group-metadata-manager-")
        self.scheduler = scheduler if scheduler is not None else KafkaScheduler(1, "group-metadata-manager-")
        # Kafka: openGroupsForProducer -- producer id -> groups holding its pending transactional offsets
        self.open_groups_for_producer: dict[int, set[str]] = {}
        self._producer_groups_lock = threading.Lock()

    # Kafka: GroupMetadataManager.startup
    def startup(self, enable_metadata_expiration: bool = True) -> None:
        self.scheduler.startup()
        if enable_metadata_expiration:
            self.scheduler.schedule("delete-expired-group-metadata", self.cleanup_group_metadata,
                                    delay_ms=0, period_ms=self.config.offsets_retention_check_interval_ms)

    # Kafka: GroupMetadataManager.shutdown
    def shutdown(self) -> None:
        self.shutting_down.set()
        if self.scheduler.is_started:
            self.scheduler.shutdown()
        with self.partition_lock:
            self.group_metadata_cache.clear()
            self.owned_partitions.clear()
            self.loading_partitions.clear()

    # Kafka: GroupMetadataManager.currentGroups
    def current_groups(self) -> list[GroupMetadata]:
        return list(self.group_metadata_cache.values())

    # Kafka: GroupMetadataManager.isPartitionOwned / isPartitionLoading / partitionFor
    def is_partition_owned(self, partition: int) -> bool:
        with self.partition_lock:
            return partition in self.owned_partitions

    def is_partition_loading(self, partition: int) -> bool:
        with self.partition_lock:
            return partition in self.loading_partitions

    def partition_for(self, group_id: str) -> int:
        return utils_abs(java_string_hashcode(group_id)) % self.group_metadata_topic_partition_count

    # Kafka: GroupMetadataManager.isGroupLocal / isGroupLoading / isLoading
    def is_group_local(self, group_id: str) -> bool:
        return self.is_partition_owned(self.partition_for(group_id))

    def is_group_loading(self, group_id: str) -> bool:
        return self.is_partition_loading(self.partition_for(group_id))

    def is_loading(self) -> bool:
        with self.partition_lock:
            return bool(self.loading_partitions)

    # Kafka: GroupMetadataManager.groupNotExists -- local, and absent or Dead
    def group_not_exists(self, group_id: str) -> bool:
        with self.partition_lock:
            if not self.is_group_local(group_id):
                return False
            group = self.group_metadata_cache.get(group_id)
            if group is None:
                return True
            with group.lock:
                return group.is_(Dead)

    # Kafka: GroupMetadataManager.getGroup / addGroup (putIfNotExists) / removeGroup
    def get_group(self, group_id: str) -> GroupMetadata | None:
        return self.group_metadata_cache.get(group_id)

    def add_group(self, group: GroupMetadata) -> GroupMetadata:
        with self.partition_lock:
            return self.group_metadata_cache.setdefault(group.group_id, group)

    def _offsets_partition(self, group_id: str) -> TopicPartition:
        return TopicPartition(GROUP_METADATA_TOPIC_NAME, self.partition_for(group_id))

    def _is_local(self, tp: TopicPartition) -> bool:
        """Stands in for Kafka's ``getMagic(partition).isDefined``: do we hold this partition's log?"""
        return self.replica_manager.get_log(tp) is not None

    # Kafka: GroupMetadataManager.appendForGroup -- Kafka 2.4 also passes delayedProduceLock = Some(group.lock)
    # (KAFKA-6042), so that a parked acks=-1 write completes under its group's lock. With 2.4's tryLock in
    # DelayedOperation.maybeTryComplete that loses completions while another thread holds the group lock (the
    # commit then waits for offsets.commit.timeout.ms: KAFKA-8334, fixed in 2.7 by completing delayed operations
    # outside group locks). kafkalite keeps the operation's own lock: the callbacks take the group lock
    # themselves, and no thread that holds a group lock waits for an operation's lock (it only tries it).
    def append_for_group(self, group: GroupMetadata, records: dict, callback) -> None:
        self.replica_manager.append_records(
            self.config.offset_commit_timeout_ms, self.config.offset_commit_required_acks,
            True, False, records, callback)

    def _build(self, entries: list[tuple[bytes, bytes | None]], producer_id: int = RecordBatch.NO_PRODUCER_ID,
               producer_epoch: int = RecordBatch.NO_PRODUCER_EPOCH):
        is_txn_offset_commit = producer_id != RecordBatch.NO_PRODUCER_ID
        builder = MemoryRecordsBuilder(producer_id=producer_id, producer_epoch=producer_epoch,
                                       base_sequence=0 if is_txn_offset_commit else RecordBatch.NO_SEQUENCE,
                                       is_transactional=is_txn_offset_commit)
        now = self.time.milliseconds()
        for key, value in entries:
            builder.append(now, key, value)
        return builder.build()

    # Kafka: GroupMetadataManager.storeGroup -- write the group after a rebalance
    def store_group(self, group: GroupMetadata, group_assignment: dict[str, bytes],
                    response_callback: Callable[[Errors], None]) -> None:
        tp = self._offsets_partition(group.group_id)
        if not self._is_local(tp):
            response_callback(Errors.NOT_COORDINATOR)
            return
        records = {tp: self._build([(group_metadata_key(group.group_id), group_metadata_value(group, group_assignment))])}
        generation_id = group.generation_id

        # Kafka: storeGroup.putCacheCallback -- map the append's error to one a member understands
        def put_cache_callback(response_status) -> None:
            status = response_status[tp]
            error = status.error
            if error is not Errors.NONE:
                self.debug(f"Metadata from group {group.group_id} with generation {generation_id} failed "
                           f"when appending to log due to {error.name}")
            if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                         Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND):
                error = Errors.COORDINATOR_NOT_AVAILABLE
            elif error in (Errors.NOT_LEADER_FOR_PARTITION, Errors.KAFKA_STORAGE_ERROR):
                error = Errors.NOT_COORDINATOR
            elif error is Errors.REQUEST_TIMED_OUT:
                error = Errors.REBALANCE_IN_PROGRESS
            elif error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
                self.error(f"Appending metadata message for group {group.group_id} generation {generation_id} "
                           f"failed due to {error.name}, returning UNKNOWN error code to the client")
                error = Errors.UNKNOWN_SERVER_ERROR
            response_callback(error)

        self.append_for_group(group, records, put_cache_callback)

    # Kafka: GroupMetadataManager.validateOffsetMetadataLength
    def validate_offset_metadata_length(self, metadata: str | None) -> bool:
        return metadata is None or len(metadata) <= self.config.max_metadata_size

    # Kafka: GroupMetadataManager.storeOffsets -- stage the commit, append it, then make it visible
    # (a transactional commit -- a producer id is given -- stays invisible until its marker)
    def store_offsets(self, group: GroupMetadata, consumer_id: str,
                      offset_metadata: dict[TopicPartition, OffsetAndMetadata],
                      response_callback: Callable[[dict[TopicPartition, Errors]], None],
                      producer_id: int = RecordBatch.NO_PRODUCER_ID,
                      producer_epoch: int = RecordBatch.NO_PRODUCER_EPOCH) -> None:
        filtered = {tp: om for tp, om in offset_metadata.items() if self.validate_offset_metadata_length(om.metadata)}
        with group.lock:
            if not group.has_received_consistent_offset_commits():
                self.warn(f"group: {group.group_id} with leader: {group.leader_or_null()} has received offset commits "
                          "from consumers as well as transactional producers. Mixing both types of offset commits "
                          "will generally result in surprises and should be avoided.")
        is_txn_offset_commit = producer_id != RecordBatch.NO_PRODUCER_ID
        if not filtered:
            response_callback({tp: Errors.OFFSET_METADATA_TOO_LARGE for tp in offset_metadata})
            return
        tp_log = self._offsets_partition(group.group_id)
        if not self._is_local(tp_log):
            response_callback({tp: Errors.NOT_COORDINATOR for tp in offset_metadata})
            return
        records = {tp_log: self._build([(offset_commit_key(group.group_id, tp), offset_commit_value(om))
                                        for tp, om in filtered.items()], producer_id, producer_epoch)}

        # Kafka: storeOffsets.putCacheCallback
        def put_cache_callback(response_status) -> None:
            status = response_status[tp_log]
            with group.lock:
                if status.error is Errors.NONE:
                    if not group.is_(Dead):
                        for tp, om in filtered.items():
                            commit = CommitRecordMetadataAndOffset(status.base_offset, om)
                            if is_txn_offset_commit:
                                group.on_txn_offset_commit_append(producer_id, tp, commit)
                            else:
                                group.on_offset_commit_append(tp, commit)
                    error = Errors.NONE
                else:
                    if not group.is_(Dead):
                        for tp, om in filtered.items():
                            if is_txn_offset_commit:
                                group.fail_pending_txn_offset_commit(producer_id, tp)
                            else:
                                group.fail_pending_offset_write(tp, om)
                        if is_txn_offset_commit and not group.has_pending_offset_commits_from_producer(producer_id):
                            self.remove_producer_group(producer_id, group.group_id)
                    self.debug(f"Offset commit {filtered} from group {group.group_id}, consumer {consumer_id} "
                               f"with generation {group.generation_id} failed when appending to log due to "
                               f"{status.error.name}")
                    error = status.error
                    if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                                 Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND):
                        error = Errors.COORDINATOR_NOT_AVAILABLE
                    elif error in (Errors.NOT_LEADER_FOR_PARTITION, Errors.KAFKA_STORAGE_ERROR):
                        error = Errors.NOT_COORDINATOR
                    elif error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
                        error = Errors.INVALID_COMMIT_OFFSET_SIZE
            response_callback({tp: error if tp in filtered else Errors.OFFSET_METADATA_TOO_LARGE
                               for tp in offset_metadata})

        with group.lock:
            if is_txn_offset_commit:
                self.add_producer_group(producer_id, group.group_id)
                group.prepare_txn_offset_commit(producer_id, filtered)
            else:
                group.prepare_offset_commit(filtered)
        self.append_for_group(group, records, put_cache_callback)

    # Kafka: GroupMetadataManager.getOffsets -- unknown group or partition -> offset -1, no error; with
    # require_stable (2.5, KIP-447) a partition with a commit still pending answers UNSTABLE_OFFSET_COMMIT
    def get_offsets(self, group_id: str, topic_partitions: list[TopicPartition] | None,
                    require_stable: bool = False) -> dict[TopicPartition, OffsetFetchPartitionData]:
        unknown = OffsetFetchPartitionData(INVALID_OFFSET, None, NO_METADATA, Errors.NONE)
        group = self.group_metadata_cache.get(group_id)
        if group is None:
            return {tp: unknown for tp in topic_partitions or []}
        with group.lock:
            if group.is_(Dead):
                return {tp: unknown for tp in topic_partitions or []}
            out = {}
            for tp in (topic_partitions if topic_partitions is not None else list(group.offsets)):
                om = group.offset(tp)
                if require_stable and group.has_pending_offset_commits_for_topic_partition(tp):
                    out[tp] = OffsetFetchPartitionData(INVALID_OFFSET, None, NO_METADATA, Errors.UNSTABLE_OFFSET_COMMIT)
                elif om is None:
                    out[tp] = unknown
                else:
                    out[tp] = OffsetFetchPartitionData(om.offset, om.leader_epoch, om.metadata, Errors.NONE)
            return out

    # Kafka: GroupMetadataManager.scheduleLoadGroupAndOffsets
    def schedule_load_group_and_offsets(self, offsets_partition: int,
                                        on_group_loaded: Callable[[GroupMetadata], None]) -> None:
        tp = TopicPartition(GROUP_METADATA_TOPIC_NAME, offsets_partition)
        if self.add_loading_partition(offsets_partition):
            self.info(f"Scheduling loading of offsets and group metadata from {tp}")
            self.scheduler.schedule(str(tp), lambda: self.load_groups_and_offsets(tp, on_group_loaded))
        else:
            self.info(f"Already loading offsets and group metadata from {tp}")

    # Kafka: GroupMetadataManager.addLoadingPartition
    def add_loading_partition(self, partition: int) -> bool:
        with self.partition_lock:
            if partition in self.loading_partitions:
                return False
            self.loading_partitions.add(partition)
            return True

    # Kafka: GroupMetadataManager.loadGroupsAndOffsets
    def load_groups_and_offsets(self, tp: TopicPartition, on_group_loaded: Callable[[GroupMetadata], None]) -> None:
        start_ms = self.time.milliseconds()
        try:
            self.do_load_groups_and_offsets(tp, on_group_loaded)
            self.info(f"Finished loading offsets and group metadata from {tp} in "
                      f"{self.time.milliseconds() - start_ms} milliseconds.")
        except Exception:
            self.error(f"Error loading offsets from {tp}", exc_info=True)
        finally:
            with self.partition_lock:
                self.owned_partitions.add(tp.partition)
                self.loading_partitions.discard(tp.partition)

    # Kafka: GroupMetadataManager.doLoadGroupsAndOffsets -- replay the partition; the last record per key wins,
    # a transactional offset counts only once its producer's COMMIT marker has been read
    def do_load_groups_and_offsets(self, tp: TopicPartition, on_group_loaded) -> None:
        log = self.replica_manager.get_log(tp)
        if log is None:
            self.warn(f"Attempted to load offsets and group metadata from {tp}, but found no log")
            return
        loaded_offsets: dict[tuple[str, TopicPartition], CommitRecordMetadataAndOffset] = {}
        # producer id -> (group, partition) -> its offset awaiting the producer's marker
        pending_offsets: dict[int, dict[tuple[str, TopicPartition], CommitRecordMetadataAndOffset]] = {}
        loaded_groups: dict[str, GroupMetadata] = {}
        removed_groups: set[str] = set()
        curr_offset = log.log_start_offset
        read_at_least_one = True
        while curr_offset < log.log_end_offset and read_at_least_one and not self.shutting_down.is_set():
            fetch_data_info = log.read(curr_offset, self.config.load_buffer_size, None, True)
            read_at_least_one = False
            for batch in fetch_data_info.records.batches():
                read_at_least_one = True
                if batch.is_control_batch:
                    self._load_control_batch(batch, loaded_offsets, pending_offsets)
                    curr_offset = batch.next_offset
                    continue
                is_txn_offset_commit = batch.is_transactional
                if is_txn_offset_commit:
                    producer_offsets = pending_offsets.setdefault(batch.producer_id, {})
                for record in batch:
                    if record.key is None:
                        raise RuntimeError("Group metadata/offset entry key should not be null")
                    _, key = R.read_message_key(record.key)
                    if isinstance(key, R.OffsetCommitKey):
                        target = producer_offsets if is_txn_offset_commit else loaded_offsets
                        group_tp = (key.group, TopicPartition(key.topic, key.partition))
                        if record.value is None:
                            target.pop(group_tp, None)
                        else:
                            target[group_tp] = CommitRecordMetadataAndOffset(
                                batch.base_offset, read_offset_message_value(record.value))
                    else:
                        group = read_group_message_value(key.group, record.value, self.time)
                        if group is not None:
                            removed_groups.discard(key.group)
                            loaded_groups[key.group] = group
                        else:
                            loaded_groups.pop(key.group, None)
                            removed_groups.add(key.group)
                curr_offset = batch.next_offset

        offsets_by_group: dict[str, dict[TopicPartition, CommitRecordMetadataAndOffset]] = {}
        for (group_id, part), commit in loaded_offsets.items():
            offsets_by_group.setdefault(group_id, {})[part] = commit
        # Offsets whose marker is not in the log yet stay pending: the marker is still to come.
        pending_by_group: dict[str, dict[int, dict[TopicPartition, CommitRecordMetadataAndOffset]]] = {}
        for producer_id, producer_offsets in pending_offsets.items():
            for (group_id, part), commit in producer_offsets.items():
                self.add_producer_group(producer_id, group_id)
                pending_by_group.setdefault(group_id, {}).setdefault(producer_id, {})[part] = commit
        for group in loaded_groups.values():
            self.load_group(group, offsets_by_group.get(group.group_id, {}), pending_by_group.get(group.group_id, {}))
            on_group_loaded(group)
        # Groups with offsets but no metadata: "simple" consumers that only commit, or transactional producers.
        for group_id in list(offsets_by_group) + [g for g in pending_by_group if g not in offsets_by_group]:
            if group_id not in loaded_groups:
                group = GroupMetadata(group_id, Empty, self.time)
                self.load_group(group, offsets_by_group.get(group_id, {}), pending_by_group.get(group_id, {}))
                on_group_loaded(group)
        for group_id in removed_groups:
            # A group deleted in the log must not still be in the cache (unless offsets recreated it).
            if group_id in self.group_metadata_cache and group_id not in offsets_by_group:
                raise RuntimeError(f"Unexpected unload of active group {group_id} while loading partition {tp}")

    # No Kafka counterpart (inline in doLoadGroupsAndOffsets): a transaction marker read while loading ends the
    # producer's pending offsets -- applied on COMMIT, dropped otherwise (2.4 drops them for any other type too)
    @staticmethod
    def _load_control_batch(batch, loaded_offsets, pending_offsets) -> None:
        record = next(iter(batch), None)
        if record is None:
            return
        control_type = ControlRecordType.parse(record.key)
        if control_type in (ControlRecordType.COMMIT, ControlRecordType.ABORT):
            control_type = EndTransactionMarker.deserialize(record.key, record.value).control_type
        producer_offsets = pending_offsets.pop(batch.producer_id, {})
        if control_type is ControlRecordType.COMMIT:
            for group_tp, commit in producer_offsets.items():
                current = loaded_offsets.get(group_tp)
                if current is None or current.older_than(commit):
                    loaded_offsets[group_tp] = commit

    # Kafka: GroupMetadataManager.loadGroup
    def load_group(self, group: GroupMetadata, offsets: dict[TopicPartition, CommitRecordMetadataAndOffset],
                   pending_transactional_offsets: dict | None = None) -> None:
        self.trace(f"Initialized offsets {offsets} for group {group.group_id}")
        group.initialize_offsets(offsets, pending_transactional_offsets)
        current = self.add_group(group)
        if current is not group:
            self.debug(f"Attempt to load group {group.group_id} from log with generation "
                       f"{group.generation_id} failed because there is already a cached group with "
                       f"generation {current.generation_id}")

    # Kafka: GroupMetadataManager.removeGroupsForPartition -- this broker stopped leading the partition
    def remove_groups_for_partition(self, offsets_partition: int,
                                    on_group_unloaded: Callable[[GroupMetadata], None]) -> None:
        tp = TopicPartition(GROUP_METADATA_TOPIC_NAME, offsets_partition)
        self.info(f"Scheduling unloading of offsets and group metadata from {tp}")

        # Kafka: removeGroupsForPartition.removeGroupsAndOffsets
        def remove_groups_and_offsets() -> None:
            num_offsets_removed = num_groups_removed = 0
            with self.partition_lock:
                self.loading_partitions.discard(offsets_partition)
                self.owned_partitions.discard(offsets_partition)
                for group in list(self.group_metadata_cache.values()):
                    if self.partition_for(group.group_id) == offsets_partition:
                        on_group_unloaded(group)
                        if self.group_metadata_cache.get(group.group_id) is group:
                            del self.group_metadata_cache[group.group_id]
                        self.remove_group_from_all_producers(group.group_id)
                        num_groups_removed += 1
                        num_offsets_removed += group.num_offsets()
            self.info(f"Finished unloading {tp}. Removed {num_offsets_removed} cached offsets and "
                      f"{num_groups_removed} cached groups.")

        self.scheduler.schedule(str(tp), remove_groups_and_offsets)

    # Kafka: GroupMetadataManager.cleanupGroupMetadata() -- the periodic expiration job
    def cleanup_group_metadata(self, groups=None, selector=None) -> int:
        start_ms = self.time.milliseconds()
        if groups is None:
            groups = self.current_groups()
        if selector is None:
            retention = self.config.offsets_retention_ms
            selector = lambda g: g.remove_expired_offsets(self.time.milliseconds(), retention)  # noqa: E731
        offsets_removed = 0
        for group in groups:
            group_id = group.group_id
            with group.lock:
                removed_offsets = selector(group)
                if group.is_(Empty) and not group.has_offsets():
                    self.info(f"Group {group_id} transitioned to Dead in generation {group.generation_id}")
                    group.transition_to(Dead)
                group_is_dead, generation = group.is_(Dead), group.generation_id
            tp = self._offsets_partition(group_id)
            if self._is_local(tp):
                tombstones = [(offset_commit_key(group_id, part), None) for part in removed_offsets]
                with self.partition_lock:
                    removed_from_cache = group_is_dead and self.group_metadata_cache.get(group_id) is group
                    if removed_from_cache:
                        del self.group_metadata_cache[group_id]
                if removed_from_cache and generation > 0:
                    # The group was written to the log at least once: delete it there too.
                    tombstones.append((group_metadata_key(group_id), None))
                if tombstones:
                    def on_append(status, _g=group_id, _n=len(tombstones), _tp=tp):
                        err = status[_tp].error
                        if err is not Errors.NONE:
                            self.warn(f"Failed to append {_n} tombstones to {_tp} for group {_g}: {err.name}")
                    self.replica_manager.append_records(self.config.offset_commit_timeout_ms, 1, True, False,
                                                        {tp: self._build(tombstones)}, on_append)
            offsets_removed += len(removed_offsets)
        self.info(f"Removed {offsets_removed} expired offsets in {self.time.milliseconds() - start_ms} milliseconds.")
        return offsets_removed

    # Kafka: GroupMetadataManager.scheduleHandleTxnCompletion -- on the scheduler thread: it takes group
    # locks, and the caller (a marker's append completing) may already hold one
    def schedule_handle_txn_completion(self, producer_id: int, completed_partitions, is_commit: bool) -> None:
        partitions = frozenset(completed_partitions)
        self.scheduler.schedule(f"handleTxnCompletion-{producer_id}",
                                lambda: self.handle_txn_completion(producer_id, partitions, is_commit))

    # Kafka: GroupMetadataManager.handleTxnCompletion -- the markers are written: complete the pending offsets
    def handle_txn_completion(self, producer_id: int, completed_partitions, is_commit: bool) -> None:
        for group_id in self.groups_belonging_to_partitions(producer_id, set(completed_partitions)):
            group = self.get_group(group_id)
            if group is None:
                self.info(f"Group {group_id} has moved away from {self.broker_id} after transaction marker was "
                          "written but before the cache was updated. The cache on the new group owner will be "
                          "updated instead.")
                continue
            with group.lock:
                if not group.is_(Dead):
                    group.complete_pending_txn_offset_commit(producer_id, is_commit)
                    self.remove_producer_group(producer_id, group_id)

    # Kafka: GroupMetadataManager.isGroupOpenForProducer (visible for testing)
    def is_group_open_for_producer(self, producer_id: int, group_id: str) -> bool:
        with self._producer_groups_lock:
            return group_id in self.open_groups_for_producer.get(producer_id, ())

    # Kafka: GroupMetadataManager.addProducerGroup
    def add_producer_group(self, producer_id: int, group_id: str) -> None:
        with self._producer_groups_lock:
            self.open_groups_for_producer.setdefault(producer_id, set()).add(group_id)

    # Kafka: GroupMetadataManager.removeProducerGroup
    def remove_producer_group(self, producer_id: int, group_id: str) -> None:
        with self._producer_groups_lock:
            groups = self.open_groups_for_producer.get(producer_id)
            if groups is not None:
                groups.discard(group_id)
                if not groups:
                    del self.open_groups_for_producer[producer_id]

    # Kafka: GroupMetadataManager.groupsBelongingToPartitions -- the producer's groups in those partitions
    def groups_belonging_to_partitions(self, producer_id: int, partitions: set[int]) -> set[str]:
        with self._producer_groups_lock:
            return {g for g in self.open_groups_for_producer.get(producer_id, ()) if self.partition_for(g) in partitions}

    # Kafka: GroupMetadataManager.removeGroupFromAllProducers
    def remove_group_from_all_producers(self, group_id: str) -> None:
        with self._producer_groups_lock:
            for groups in self.open_groups_for_producer.values():
                groups.discard(group_id)

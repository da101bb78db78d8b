"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/group/GroupMetadataManager.scala

Classes: OffsetConfig (Kafka: OffsetConfig.scala), GroupMetadataManager; functions: the record helpers of
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
Left out: transactional offset commits (pending per producer id, control batches while loading),
the metrics (NumOffsets, NumGroups), offset compression codecs other than none.
"""
from __future__ import annotations

import threading
from typing import Callable

import attrs

from kafkalite.common.topic import GROUP_METADATA_TOPIC_NAME
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.common.utils import java_string_hashcode, utils_abs
from kafkalite.coordinator.group.group_metadata import (Dead, Empty, GroupMetadata, OffsetAndMetadata, Stable,
                                                        load_group)
from kafkalite.coordinator.group.member_metadata import MemberMetadata
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import group_metadata_records as R
from kafkalite.record.memory_records import MemoryRecordsBuilder
from kafkalite.utils.kafka_scheduler import KafkaScheduler
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM, Time

INVALID_OFFSET = -1   # Kafka: OffsetFetchResponse.INVALID_OFFSET
NO_METADATA = ""      # Kafka: OffsetFetchResponse.NO_METADATA


@attrs.frozen
class OffsetConfig:
    """Kafka: OffsetConfig -- the offsets.* settings the manager needs (Kafka's defaults)."""

    max_metadata_size: int = 4096
    load_buffer_size: int = 5 * 1024 * 1024
    offsets_retention_ms: int = 7 * 24 * 60 * 60 * 1000
    offsets_retention_check_interval_ms: int = 600_000
    offsets_topic_num_partitions: int = 50
    offsets_topic_segment_bytes: int = 100 * 1024 * 1024
    offsets_topic_replication_factor: int = 3
    offset_commit_timeout_ms: int = 5000
    offset_commit_required_acks: int = -1

    # Kafka: GroupCoordinator.offsetConfig(config)
    @classmethod
    def from_kafka_config(cls, config) -> "OffsetConfig":
        def get(name, default):
            try:
                value = config.get(name)
            except KeyError:
                return default
            return default if value is None else value
        return cls(max_metadata_size=get("offset.metadata.max.bytes", 4096),
                   load_buffer_size=get("offsets.load.buffer.size", 5 * 1024 * 1024),
                   offsets_retention_ms=get("offsets.retention.minutes", 7 * 24 * 60) * 60_000,
                   offsets_retention_check_interval_ms=get("offsets.retention.check.interval.ms", 600_000),
                   offsets_topic_num_partitions=get("offsets.topic.num.partitions", 50),
                   offsets_topic_segment_bytes=get("offsets.topic.segment.bytes", 100 * 1024 * 1024),
                   offsets_topic_replication_factor=get("offsets.topic.replication.factor", 3),
                   offset_commit_timeout_ms=get("offsets.commit.timeout.ms", 5000),
                   offset_commit_required_acks=get("offsets.commit.required.acks", -1))


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

    # Kafka: GroupMetadataManager.appendForGroup
    def append_for_group(self, group: GroupMetadata, records: dict, callback) -> None:
        self.replica_manager.append_records(
            self.config.offset_commit_timeout_ms, self.config.offset_commit_required_acks,
            True, False, records, callback)

    def _build(self, entries: list[tuple[bytes, bytes | None]]):
        builder = MemoryRecordsBuilder()
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
    def store_offsets(self, group: GroupMetadata, consumer_id: str,
                      offset_metadata: dict[TopicPartition, OffsetAndMetadata],
                      response_callback: Callable[[dict[TopicPartition, Errors]], None]) -> None:
        filtered = {tp: om for tp, om in offset_metadata.items() if self.validate_offset_metadata_length(om.metadata)}
        if not filtered:
            response_callback({tp: Errors.OFFSET_METADATA_TOO_LARGE for tp in offset_metadata})
            return
        tp_log = self._offsets_partition(group.group_id)
        if not self._is_local(tp_log):
            response_callback({tp: Errors.NOT_COORDINATOR for tp in offset_metadata})
            return
        records = {tp_log: self._build([(offset_commit_key(group.group_id, tp), offset_commit_value(om))
                                        for tp, om in filtered.items()])}

        # Kafka: storeOffsets.putCacheCallback
        def put_cache_callback(response_status) -> None:
            status = response_status[tp_log]
            with group.lock:
                if status.error is Errors.NONE:
                    if not group.is_(Dead):
                        for tp, om in filtered.items():
                            group.on_offset_commit_append(tp, om)
                    error = Errors.NONE
                else:
                    if not group.is_(Dead):
                        for tp, om in filtered.items():
                            group.fail_pending_offset_write(tp, om)
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
            group.prepare_offset_commit(filtered)
        self.append_for_group(group, records, put_cache_callback)

    # Kafka: GroupMetadataManager.getOffsets -- unknown group or partition -> offset -1, no error
    def get_offsets(self, group_id: str, topic_partitions: list[TopicPartition] | None
                    ) -> dict[TopicPartition, OffsetFetchPartitionData]:
        unknown = OffsetFetchPartitionData(INVALID_OFFSET, None, NO_METADATA, Errors.NONE)
        group = self.group_metadata_cache.get(group_id)
        if group is None:
            return {tp: unknown for tp in topic_partitions or []}
        with group.lock:
            if group.is_(Dead):
                return {tp: unknown for tp in topic_partitions or []}
            if topic_partitions is None:
                return {tp: OffsetFetchPartitionData(om.offset, om.leader_epoch, om.metadata, Errors.NONE)
                        for tp, om in group.all_offsets().items()}
            out = {}
            for tp in topic_partitions:
                om = group.offset(tp)
                out[tp] = unknown if om is None else OffsetFetchPartitionData(
                    om.offset, om.leader_epoch, om.metadata, Errors.NONE)
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

    # Kafka: GroupMetadataManager.doLoadGroupsAndOffsets -- replay the partition; the last record per key wins
    def do_load_groups_and_offsets(self, tp: TopicPartition, on_group_loaded) -> None:
        log = self.replica_manager.get_log(tp)
        if log is None:
            self.warn(f"Attempted to load offsets and group metadata from {tp}, but found no log")
            return
        loaded_offsets: dict[tuple[str, TopicPartition], OffsetAndMetadata] = {}
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
                    curr_offset = batch.next_offset
                    continue
                for record in batch:
                    if record.key is None:
                        raise RuntimeError("Group metadata/offset entry key should not be null")
                    _, key = R.read_message_key(record.key)
                    if isinstance(key, R.OffsetCommitKey):
                        group_tp = (key.group, TopicPartition(key.topic, key.partition))
                        if record.value is None:
                            loaded_offsets.pop(group_tp, None)
                        else:
                            loaded_offsets[group_tp] = read_offset_message_value(record.value)
                    else:
                        group = read_group_message_value(key.group, record.value, self.time)
                        if group is not None:
                            removed_groups.discard(key.group)
                            loaded_groups[key.group] = group
                        else:
                            loaded_groups.pop(key.group, None)
                            removed_groups.add(key.group)
                curr_offset = batch.next_offset

        offsets_by_group: dict[str, dict[TopicPartition, OffsetAndMetadata]] = {}
        for (group_id, part), om in loaded_offsets.items():
            offsets_by_group.setdefault(group_id, {})[part] = om
        for group in loaded_groups.values():
            self.load_group(group, offsets_by_group.get(group.group_id, {}))
            on_group_loaded(group)
        # Groups with offsets but no metadata: "simple" consumers that only commit.
        for group_id, offsets in offsets_by_group.items():
            if group_id not in loaded_groups:
                group = GroupMetadata(group_id, Empty, self.time)
                self.load_group(group, offsets)
                on_group_loaded(group)
        for group_id in removed_groups:
            # A group deleted in the log must not still be in the cache (unless offsets recreated it).
            if group_id in self.group_metadata_cache and group_id not in offsets_by_group:
                raise RuntimeError(f"Unexpected unload of active group {group_id} while loading partition {tp}")

    # Kafka: GroupMetadataManager.loadGroup
    def load_group(self, group: GroupMetadata, offsets: dict[TopicPartition, OffsetAndMetadata]) -> None:
        self.trace(f"Initialized offsets {offsets} for group {group.group_id}")
        group.initialize_offsets(offsets)
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

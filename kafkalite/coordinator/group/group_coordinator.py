"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala

Classes: GroupConfig, GroupCoordinator (result records are in group_metadata.py).

The coordinator runs the classic rebalance protocol for the groups whose ``__consumer_offsets``
partition this broker leads (S37):

1. JoinGroup: ``handle_join_group`` -> ``do_unknown_join_group`` (a new member: MEMBER_ID_REQUIRED
   on v4+, or a new id) / ``do_join_group`` -> ``add_member_and_rebalance`` ->
   ``maybe_prepare_rebalance`` -> ``prepare_rebalance``, which parks a DelayedJoin (an
   InitialDelayedJoin for an Empty group) in the "Rebalance" purgatory under GroupKey.
2. Every rejoin calls ``check_and_complete``; ``try_complete_join`` completes the DelayedJoin once
   all members have joined, or the rebalance timeout expires it. ``on_complete_join`` drops the
   stragglers, ``init_next_generation`` picks a protocol, and every JoinGroup is answered; the
   leader's answer carries all members' subscriptions.
3. SyncGroup: followers park; the leader's assignment is stored (``store_group``) and then handed
   to everyone (``set_and_propagate_assignment``); the group is Stable.
4. Heartbeats: each one completes the member's DelayedHeartbeat and parks the next, due at
   ``now + session_timeout_ms`` in the "Heartbeat" purgatory under MemberKey. If it expires,
   ``on_expire_heartbeat`` removes the member and the group rebalances.

Locking (as Kafka): every group operation runs under ``group.lock``; the delayed operations use
the same lock. ``replica_manager.append_records`` may be called with it held.

Era notes: ``on_election``/``on_resignation`` are the 2.5 names of 2.4's
``handleGroupImmigration``/``handleGroupEmigration`` (both names exist here). JoinGroup v7 and
SyncGroup v5 (KIP-559: protocol type and name in the responses, checked in SyncGroup) are
today's wire. ``handle_delete_offsets`` is KIP-496 (2.4). TxnOffsetCommit v3 (KIP-447, 2.5) carries the
producer's consumer group generation and member id: ``handle_txn_commit_offsets`` takes them and checks
them as 2.5's ``doTxnCommitOffsets`` does (member id only when set, generation only when >= 0, static
member fencing); with v0-2 they are unset and nothing is checked, as in 2.4. OffsetFetch's
``require_stable`` is 2.5's too.

Transactional offsets: ``handle_txn_commit_offsets`` stores the offsets as part of the producer's
transaction (pending, invisible to OffsetFetch); ``schedule_handle_txn_completion`` is called once the
transaction's markers are on ``__consumer_offsets`` and makes them visible (COMMIT) or drops them (ABORT).
Consumer-protocol groups (KIP-848, Kafka 3.7/4.0) live in ``consumer_group_manager``
(consumer/consumer_group_manager.py); this class hands it OffsetCommit / TxnOffsetCommit / OffsetDelete /
DeleteGroups for such a group, lists them in ListGroups, describes them as Dead in DescribeGroups (Kafka 3.9) and
refuses a classic JoinGroup for their ids (INCONSISTENT_GROUP_PROTOCOL).
Left out: metrics.
"""
from __future__ import annotations

import threading
from typing import Callable

import attrs

from kafkalite.common.topic import GROUP_METADATA_TOPIC_NAME
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.group.consumer.consumer_group_config import ConsumerGroupConfig
from kafkalite.coordinator.group.delayed_heartbeat import DelayedHeartbeat
from kafkalite.coordinator.group.delayed_join import DelayedJoin, InitialDelayedJoin
from kafkalite.coordinator.group.group_metadata import (
    NO_GENERATION, NO_MEMBER_ID, CompletingRebalance, Dead, Empty, GroupMetadata, GroupSummary, JoinGroupResult,
    LeaveGroupResult, LeaveMemberResponse, OffsetAndMetadata, PreparingRebalance, Stable, SyncGroupResult, join_error)
from kafkalite.coordinator.group.group_metadata_manager import GroupMetadataManager, OffsetConfig
from kafkalite.coordinator.group.member_metadata import NEW_MEMBER_JOIN_TIMEOUT_MS, MemberMetadata, plain_protocol_set
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.transaction_result import TransactionResult
from kafkalite.server.delayed_operation import DelayedOperationPurgatory
from kafkalite.server.delayed_operation_key import GroupKey, MemberKey
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM, Time

UNKNOWN_MEMBER_ID = ""   # Kafka: JoinGroupRequest.UNKNOWN_MEMBER_ID
EMPTY_GROUP = GroupSummary("", "", "", [])       # Kafka: GroupCoordinator.EmptyGroup
DEAD_GROUP = GroupSummary("Dead", "", "", [])    # Kafka: GroupCoordinator.DeadGroup


@attrs.frozen
class GroupConfig:
    """Kafka: GroupConfig (GroupCoordinator.scala)."""

    group_min_session_timeout_ms: int = 6000
    group_max_session_timeout_ms: int = 1_800_000
    group_max_size: int = 2_147_483_647
    group_initial_rebalance_delay_ms: int = 3000


class GroupCoordinator(Logging):
    """Kafka: GroupCoordinator -- group membership and offset management."""

    def __init__(self, broker_id: int, group_config: GroupConfig, offset_config: OffsetConfig,
                 group_manager: GroupMetadataManager, heartbeat_purgatory: DelayedOperationPurgatory,
                 join_purgatory: DelayedOperationPurgatory, time: Time = SYSTEM,
                 consumer_group_config: ConsumerGroupConfig | None = None):
        self.broker_id = broker_id
        self.group_config = group_config
        self.offset_config = offset_config
        self.group_manager = group_manager
        self.heartbeat_purgatory = heartbeat_purgatory
        self.join_purgatory = join_purgatory
        self.time = time
        self.log_ident = f"[GroupCoordinator {broker_id}]: "
        self._is_active = threading.Event()
        # Kafka 4.0: the consumer-protocol groups (KIP-848) beside the classic ones -- built on first use
        self.consumer_group_config = consumer_group_config or ConsumerGroupConfig()
        self._consumer_group_manager = None
        self._consumer_group_manager_lock = threading.Lock()

    @property
    def consumer_group_manager(self):
        """The ConsumerGroupMetadataManager. Kafka 4.0 builds its GroupMetadataManager with the coordinator; here
        the consumer-group code is loaded and the manager built by the first call that asks for it (any group
        request, or a ``__consumer_offsets`` partition moving), as the JVM loads a class when code first touches
        it: a broker's start-up does not pay for it (issue 18). It holds no state before its first group."""
        manager = self._consumer_group_manager
        if manager is None:
            with self._consumer_group_manager_lock:
                if self._consumer_group_manager is None:
                    from kafkalite.coordinator.group.consumer.consumer_group_manager import (
                        ConsumerGroupMetadataManager,
                    )
                    self._consumer_group_manager = ConsumerGroupMetadataManager(self.consumer_group_config, self)
                manager = self._consumer_group_manager
        return manager

    # Kafka: GroupCoordinator.apply(config, zkClient, replicaManager, time, metrics)
    @classmethod
    def create(cls, config, zk_client, replica_manager, time: Time = SYSTEM) -> "GroupCoordinator":
        broker_id = config.broker_id
        heartbeat_purgatory = DelayedOperationPurgatory("Heartbeat", broker_id=broker_id)
        join_purgatory = DelayedOperationPurgatory("Rebalance", broker_id=broker_id)
        offset_config = OffsetConfig.from_kafka_config(config)
        group_config = GroupConfig(config.get("group.min.session.timeout.ms"),
                                   config.get("group.max.session.timeout.ms"),
                                   config.get("group.max.size"),
                                   config.get("group.initial.rebalance.delay.ms"))
        manager = GroupMetadataManager(broker_id, offset_config, replica_manager, time)
        return cls(broker_id, group_config, offset_config, manager, heartbeat_purgatory, join_purgatory, time,
                   ConsumerGroupConfig.from_kafka_config(config))

    # Kafka: GroupCoordinator.offsetsTopicConfigs
    def offsets_topic_configs(self) -> dict[str, str]:
        return {"cleanup.policy": "compact", "segment.bytes": str(self.offset_config.offsets_topic_segment_bytes),
                "compression.type": "producer"}

    # Kafka: GroupCoordinator.startup
    def startup(self, enable_metadata_expiration: bool = True) -> None:
        self.info("Starting up.")
        self.group_manager.startup(enable_metadata_expiration)
        self._is_active.set()
        self.info("Startup complete.")

    # Kafka: GroupCoordinator.shutdown
    def shutdown(self) -> None:
        self.info("Shutting down.")
        self._is_active.clear()
        self.group_manager.shutdown()
        self.heartbeat_purgatory.shutdown()
        self.join_purgatory.shutdown()
        self.info("Shutdown complete.")

    # ------------------------------------------------------------------ JoinGroup
    # Kafka: GroupCoordinator.handleJoinGroup
    def handle_join_group(self, group_id: str, member_id: str, group_instance_id: str | None,
                          require_known_member_id: bool, client_id: str, client_host: str,
                          rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str,
                          protocols: list[tuple[str, bytes]], response_callback: Callable[[JoinGroupResult], None]) -> None:
        error = self.validate_group_status(group_id, ApiKeys.JOIN_GROUP)
        if error is not None:
            response_callback(join_error(member_id, error))
            return
        if not (self.group_config.group_min_session_timeout_ms <= session_timeout_ms
                <= self.group_config.group_max_session_timeout_ms):
            response_callback(join_error(member_id, Errors.INVALID_SESSION_TIMEOUT))
            return
        if self.consumer_group_manager.group(group_id) is not None:
            # Kafka 4.0: a classic member may not join a consumer-protocol group
            response_callback(join_error(member_id, Errors.INCONSISTENT_GROUP_PROTOCOL))
            return
        is_unknown_member = member_id == UNKNOWN_MEMBER_ID
        group = self.group_manager.get_group(group_id)
        if group is None:
            # Only a member without an id may create a group.
            if not is_unknown_member:
                response_callback(join_error(member_id, Errors.UNKNOWN_MEMBER_ID))
                return
            group = self.group_manager.add_group(GroupMetadata(group_id, Empty, self.time))
        with group.lock:
            if ((self.group_is_over_capacity(group) and group.has(member_id)
                 and not group.get(member_id).is_awaiting_join)
                    or (is_unknown_member and group.size() >= self.group_config.group_max_size)):
                group.remove(member_id)
                group.remove_static_member(group_instance_id)
                response_callback(join_error(UNKNOWN_MEMBER_ID, Errors.GROUP_MAX_SIZE_REACHED))
            elif is_unknown_member:
                self.do_unknown_join_group(group, group_instance_id, require_known_member_id, client_id, client_host,
                                           rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols,
                                           response_callback)
            else:
                self.do_join_group(group, member_id, group_instance_id, client_id, client_host, rebalance_timeout_ms,
                                   session_timeout_ms, protocol_type, protocols, response_callback)
            # attempt to complete JoinGroup
            if group.is_(PreparingRebalance):
                self.join_purgatory.check_and_complete(GroupKey(group.group_id))

    # Kafka: GroupCoordinator.doUnknownJoinGroup
    def do_unknown_join_group(self, group: GroupMetadata, group_instance_id, require_known_member_id: bool,
                              client_id, client_host, rebalance_timeout_ms, session_timeout_ms, protocol_type,
                              protocols, response_callback) -> None:
        with group.lock:
            if group.is_(Dead):
                # The group was just removed (it may have moved to another coordinator): retry.
                response_callback(join_error(UNKNOWN_MEMBER_ID, Errors.COORDINATOR_NOT_AVAILABLE))
                return
            if not group.supports_protocols(protocol_type, plain_protocol_set(protocols)):
                response_callback(join_error(UNKNOWN_MEMBER_ID, Errors.INCONSISTENT_GROUP_PROTOCOL))
                return
            new_member_id = group.generate_member_id(client_id, group_instance_id)
            if group.has_static_member(group_instance_id):
                # A static member restarted: it takes over its old identity, assignment included.
                old_member_id = group.get_static_member_id(group_instance_id)
                self.info(f"Static member {group_instance_id} with unknown member id rejoins, assigning new member "
                          f"id {new_member_id}, while old member {old_member_id} will be removed.")
                current_leader = group.leader_or_null()
                member = group.replace_group_instance(old_member_id, new_member_id, group_instance_id)
                # The old id's heartbeat will expire harmlessly; schedule one for the new id.
                self.complete_and_schedule_next_heartbeat_expiration(group, member)
                group.update_member(member, protocols, response_callback)
                if group.is_(Stable) or group.is_(CompletingRebalance):
                    self.info(f"Static member joins during {group.current_state} stage will not trigger rebalance.")
                    # Answer with the current leader, so the old leader does not recompute assignments
                    # that a Stable group would never hand out.
                    group.maybe_invoke_join_callback(member, JoinGroupResult(
                        [], new_member_id, group.generation_id, group.protocol_type, group.protocol_or_null(),
                        current_leader, Errors.NONE))
                elif group.is_(Empty) or group.is_(Dead):
                    raise RuntimeError(f"Group {group.group_id} was not supposed to be in the state "
                                       f"{group.current_state} when the unknown static member {group_instance_id} rejoins.")
                # PreparingRebalance: the join waits for the rebalance like everyone else's
            elif require_known_member_id:
                # KIP-394: hand out an id and ask the member to come back with it.
                self.debug(f"Dynamic member with unknown member id joins group {group.group_id} in "
                           f"{group.current_state} state. Created a new member id {new_member_id} and request "
                           "the member to rejoin with this id.")
                group.add_pending_member(new_member_id)
                self.add_pending_member_expiration(group, new_member_id, session_timeout_ms)
                response_callback(join_error(new_member_id, Errors.MEMBER_ID_REQUIRED))
            else:
                self.debug(f"Dynamic member with unknown member id joins group {group.group_id} in "
                           f"{group.current_state} state. Created a new member id {new_member_id} for this member "
                           "and add to the group.")
                self.add_member_and_rebalance(rebalance_timeout_ms, session_timeout_ms, new_member_id,
                                              group_instance_id, client_id, client_host, protocol_type, protocols,
                                              group, response_callback)

    # Kafka: GroupCoordinator.doJoinGroup
    def do_join_group(self, group: GroupMetadata, member_id, group_instance_id, client_id, client_host,
                      rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols, response_callback) -> None:
        with group.lock:
            if group.is_(Dead):
                response_callback(join_error(member_id, Errors.COORDINATOR_NOT_AVAILABLE))
            elif not group.supports_protocols(protocol_type, plain_protocol_set(protocols)):
                response_callback(join_error(member_id, Errors.INCONSISTENT_GROUP_PROTOCOL))
            elif group.is_pending_member(member_id):
                # A member coming back with the id MEMBER_ID_REQUIRED gave it (never a static member).
                if group_instance_id is not None:
                    raise RuntimeError(f"the static member {group_instance_id} was not expected to be assigned "
                                       f"into pending member bucket with member id {member_id}")
                self.add_member_and_rebalance(rebalance_timeout_ms, session_timeout_ms, member_id, group_instance_id,
                                              client_id, client_host, protocol_type, protocols, group,
                                              response_callback)
            else:
                group_instance_id_not_found = group_instance_id is not None and not group.has_static_member(group_instance_id)
                if group.is_static_member_fenced(member_id, group_instance_id):
                    # Another process holds this group.instance.id: this one must shut down.
                    response_callback(join_error(member_id, Errors.FENCED_INSTANCE_ID))
                elif not group.has(member_id) or group_instance_id_not_found:
                    response_callback(join_error(member_id, Errors.UNKNOWN_MEMBER_ID))
                else:
                    member = group.get(member_id)
                    state = group.current_state
                    if state is PreparingRebalance:
                        self.update_member_and_rebalance(group, member, protocols, response_callback)
                    elif state is CompletingRebalance:
                        if member.matches(protocols):
                            # Same metadata (it missed our answer?): answer again for this generation.
                            response_callback(JoinGroupResult(
                                group.current_member_metadata() if group.is_leader(member_id) else [],
                                member_id, group.generation_id, group.protocol_type, group.protocol_or_null(),
                                group.leader_or_null(), Errors.NONE))
                        else:
                            self.update_member_and_rebalance(group, member, protocols, response_callback)
                    elif state is Stable:
                        if group.is_leader(member_id) or not member.matches(protocols):
                            # The leader rejoining (e.g. topic metadata changed) or new metadata: rebalance.
                            self.update_member_and_rebalance(group, member, protocols, response_callback)
                        else:
                            response_callback(JoinGroupResult(
                                [], member_id, group.generation_id, group.protocol_type, group.protocol_or_null(),
                                group.leader_or_null(), Errors.NONE))
                    else:  # Empty or Dead
                        self.warn(f"Attempt to add rejoining member {member_id} of group {group.group_id} in "
                                  f"unexpected group state {group.current_state}")
                        response_callback(join_error(member_id, Errors.UNKNOWN_MEMBER_ID))

    # ------------------------------------------------------------------ SyncGroup
    # Kafka: GroupCoordinator.handleSyncGroup
    def handle_sync_group(self, group_id: str, generation: int, member_id: str, protocol_type: str | None,
                          protocol_name: str | None, group_instance_id: str | None,
                          group_assignment: dict[str, bytes], response_callback: Callable[[SyncGroupResult], None]) -> None:
        error = self.validate_group_status(group_id, ApiKeys.SYNC_GROUP)
        if error is Errors.COORDINATOR_LOAD_IN_PROGRESS:
            # The rebalance's state was lost in the move: rejoin (older clients don't know LOAD_IN_PROGRESS here).
            response_callback(SyncGroupResult(None, None, b"", Errors.REBALANCE_IN_PROGRESS))
        elif error is not None:
            response_callback(SyncGroupResult(None, None, b"", error))
        else:
            group = self.group_manager.get_group(group_id)
            if group is None:
                response_callback(SyncGroupResult(None, None, b"", Errors.UNKNOWN_MEMBER_ID))
            else:
                self.do_sync_group(group, generation, member_id, protocol_type, protocol_name, group_instance_id,
                                   group_assignment, response_callback)

    # Kafka: GroupCoordinator.doSyncGroup
    def do_sync_group(self, group: GroupMetadata, generation_id: int, member_id: str, protocol_type, protocol_name,
                      group_instance_id, group_assignment: dict[str, bytes], response_callback) -> None:
        with group.lock:
            def fail(error: Errors) -> None:
                response_callback(SyncGroupResult(None, None, b"", error))

            if group.is_(Dead):
                return fail(Errors.COORDINATOR_NOT_AVAILABLE)
            if group.is_static_member_fenced(member_id, group_instance_id):
                return fail(Errors.FENCED_INSTANCE_ID)
            if not group.has(member_id):
                return fail(Errors.UNKNOWN_MEMBER_ID)
            if generation_id != group.generation_id:
                return fail(Errors.ILLEGAL_GENERATION)
            # KIP-559 (SyncGroup v5): the member must agree on the protocol it was told.
            if ((protocol_type is not None and protocol_type != group.protocol_type)
                    or (protocol_name is not None and protocol_name != group.protocol_name)):
                return fail(Errors.INCONSISTENT_GROUP_PROTOCOL)
            state = group.current_state
            if state is Empty:
                fail(Errors.UNKNOWN_MEMBER_ID)
            elif state is PreparingRebalance:
                fail(Errors.REBALANCE_IN_PROGRESS)
            elif state is CompletingRebalance:
                group.get(member_id).awaiting_sync_callback = response_callback
                if group.is_leader(member_id):
                    self.info(f"Assignment received from leader for group {group.group_id} for generation "
                              f"{group.generation_id}")
                    # Members the leader left out get an empty assignment.
                    assignment = {m: group_assignment.get(m, b"") for m in group.all_members()}

                    def on_stored(error: Errors) -> None:
                        with group.lock:
                            # A member may have joined meanwhile: act only if nothing moved on.
                            if group.is_(CompletingRebalance) and generation_id == group.generation_id:
                                if error is not Errors.NONE:
                                    self.reset_and_propagate_assignment_error(group, error)
                                    self.maybe_prepare_rebalance(
                                        group, f"error when storing group assignment during SyncGroup (member: {member_id})")
                                else:
                                    self.set_and_propagate_assignment(group, assignment)
                                    group.transition_to(Stable)

                    self.group_manager.store_group(group, assignment, on_stored)
            elif state is Stable:
                # Already stable: hand back the member's current assignment.
                member = group.get(member_id)
                response_callback(SyncGroupResult(group.protocol_type, group.protocol_name, member.assignment, Errors.NONE))
                self.complete_and_schedule_next_heartbeat_expiration(group, member)

    # ------------------------------------------------------------------ LeaveGroup, DeleteGroups
    # Kafka: GroupCoordinator.handleLeaveGroup -- members: [(member_id, group_instance_id)]
    def handle_leave_group(self, group_id: str, leaving_members: list[tuple[str, str | None]],
                           response_callback: Callable[[LeaveGroupResult], None]) -> None:
        error = self.validate_group_status(group_id, ApiKeys.LEAVE_GROUP)
        if error is not None:
            response_callback(LeaveGroupResult(error, []))
            return
        group = self.group_manager.get_group(group_id)
        if group is None:
            response_callback(LeaveGroupResult(Errors.NONE, [
                LeaveMemberResponse(m, i, Errors.UNKNOWN_MEMBER_ID) for m, i in leaving_members]))
            return
        with group.lock:
            if group.is_(Dead):
                response_callback(LeaveGroupResult(Errors.COORDINATOR_NOT_AVAILABLE, []))
                return
            results = []
            for member_id, group_instance_id in leaving_members:
                if member_id != UNKNOWN_MEMBER_ID and group.is_static_member_fenced(member_id, group_instance_id):
                    error = Errors.FENCED_INSTANCE_ID
                elif group.is_pending_member(member_id):
                    self.info(f"Pending member {member_id} is leaving group {group.group_id}.")
                    self.remove_pending_member_and_update_group(group, member_id)
                    self.heartbeat_purgatory.check_and_complete(MemberKey(group.group_id, member_id))
                    error = Errors.NONE
                elif not group.has(member_id) and not group.has_static_member(group_instance_id):
                    error = Errors.UNKNOWN_MEMBER_ID
                else:
                    member = group.get(group.get_static_member_id(group_instance_id)
                                       if group.has_static_member(group_instance_id) else member_id)
                    self.remove_heartbeat_for_leaving_member(group, member)
                    self.info(f"Member[group.instance.id {member.group_instance_id}, member.id {member.member_id}] "
                              f"in group {group.group_id} has left, removing it from the group")
                    self.remove_member_and_update_group(group, member, f"removing member {member_id} on LeaveGroup")
                    error = Errors.NONE
                results.append(LeaveMemberResponse(member_id, group_instance_id, error))
            response_callback(LeaveGroupResult(Errors.NONE, results))

    # Kafka: GroupCoordinator.handleDeleteGroups -- only Empty groups may go
    def handle_delete_groups(self, group_ids) -> dict[str, Errors]:
        group_errors: dict[str, Errors] = {}
        eligible: list[GroupMetadata] = []
        for group_id in group_ids:
            error = self.validate_group_status(group_id, ApiKeys.DELETE_GROUPS)
            if error is not None:
                group_errors[group_id] = error
                continue
            error = self.consumer_group_manager.delete_group(group_id)   # Kafka 4.0: only an empty one
            if error is not None:
                group_errors[group_id] = error
                continue
            group = self.group_manager.get_group(group_id)
            if group is None:
                group_errors[group_id] = (Errors.GROUP_ID_NOT_FOUND if self.group_manager.group_not_exists(group_id)
                                          else Errors.NOT_COORDINATOR)
                continue
            with group.lock:
                if group.is_(Dead):
                    group_errors[group_id] = (Errors.GROUP_ID_NOT_FOUND
                                              if self.group_manager.group_not_exists(group_id) else Errors.NOT_COORDINATOR)
                elif group.is_(Empty):
                    group.transition_to(Dead)
                    eligible.append(group)
                else:
                    group_errors[group_id] = Errors.NON_EMPTY_GROUP
        if eligible:
            removed = self.group_manager.cleanup_group_metadata(eligible, lambda g: g.remove_all_offsets())
            for g in eligible:
                group_errors[g.group_id] = Errors.NONE
            self.info(f"The following groups were deleted: {', '.join(g.group_id for g in eligible)}. "
                      f"A total of {removed} offsets were removed.")
        return group_errors

    # Kafka: GroupCoordinator.handleDeleteOffsets (KIP-496) -> (group error, {tp: error})
    def handle_delete_offsets(self, group_id: str, partitions: list[TopicPartition]
                              ) -> tuple[Errors, dict[TopicPartition, Errors]]:
        error = self.validate_group_status(group_id, ApiKeys.OFFSET_DELETE)
        if error is not None:
            return error, {}
        group = self.group_manager.get_group(group_id)
        if group is None:
            return (Errors.GROUP_ID_NOT_FOUND if self.group_manager.group_not_exists(group_id)
                    else Errors.NOT_COORDINATOR), {}
        partition_errors: dict[TopicPartition, Errors] = {}
        with group.lock:
            if group.is_(Dead):
                return (Errors.GROUP_ID_NOT_FOUND if self.group_manager.group_not_exists(group_id)
                        else Errors.NOT_COORDINATOR), {}
            consumer_group = self.consumer_group_manager.group(group_id)
            if consumer_group is not None:   # Kafka 4.0: a topic its members subscribe to keeps its offsets
                subscribed = consumer_group.subscribed_topic_names()
                deletable = [tp for tp in partitions if tp.topic not in subscribed]
                partition_errors.update({tp: Errors.GROUP_SUBSCRIBED_TO_TOPIC for tp in partitions
                                         if tp.topic in subscribed})
            elif group.is_(Empty):
                deletable = list(partitions)
            elif group.protocol_type == "consumer":   # Kafka: GroupMetadata.isConsumerGroup
                deletable = []
                for tp in partitions:
                    if group.is_subscribed_to_topic(tp.topic):
                        partition_errors[tp] = Errors.GROUP_SUBSCRIBED_TO_TOPIC
                    else:
                        deletable.append(tp)
            else:
                return Errors.NON_EMPTY_GROUP, {}
        if deletable:
            self.group_manager.cleanup_group_metadata([group], lambda g: g.remove_offsets(deletable))
            for tp in deletable:
                partition_errors[tp] = Errors.NONE
        return Errors.NONE, partition_errors

    # ------------------------------------------------------------------ Heartbeat
    # Kafka: GroupCoordinator.handleHeartbeat
    def handle_heartbeat(self, group_id: str, member_id: str, group_instance_id: str | None, generation_id: int,
                         response_callback: Callable[[Errors], None]) -> None:
        error = self.validate_group_status(group_id, ApiKeys.HEARTBEAT)
        if error is not None:
            # While loading, answer blindly: the member learns about the rebalance later.
            response_callback(Errors.NONE if error is Errors.COORDINATOR_LOAD_IN_PROGRESS else error)
            return
        group = self.group_manager.get_group(group_id)
        if group is None:
            response_callback(Errors.UNKNOWN_MEMBER_ID)
            return
        with group.lock:
            if group.is_(Dead):
                response_callback(Errors.COORDINATOR_NOT_AVAILABLE)
            elif group.is_static_member_fenced(member_id, group_instance_id):
                response_callback(Errors.FENCED_INSTANCE_ID)
            elif not group.has(member_id):
                response_callback(Errors.UNKNOWN_MEMBER_ID)
            elif generation_id != group.generation_id:
                response_callback(Errors.ILLEGAL_GENERATION)
            elif group.is_(Empty):
                response_callback(Errors.UNKNOWN_MEMBER_ID)
            elif group.is_(CompletingRebalance):
                response_callback(Errors.REBALANCE_IN_PROGRESS)
            elif group.is_(PreparingRebalance):
                # Keep the member alive, and tell it to rejoin.
                self.complete_and_schedule_next_heartbeat_expiration(group, group.get(member_id))
                response_callback(Errors.REBALANCE_IN_PROGRESS)
            else:  # Stable
                self.complete_and_schedule_next_heartbeat_expiration(group, group.get(member_id))
                response_callback(Errors.NONE)

    # ------------------------------------------------------------------ offsets
    # Kafka: GroupCoordinator.handleCommitOffsets
    def handle_commit_offsets(self, group_id: str, member_id: str, group_instance_id: str | None, generation_id: int,
                              offset_metadata: dict[TopicPartition, OffsetAndMetadata],
                              response_callback: Callable[[dict[TopicPartition, Errors]], None], *,
                              api_version: int = 9) -> None:
        error = self.validate_group_status(group_id, ApiKeys.OFFSET_COMMIT)
        if error is not None:
            response_callback({tp: error for tp in offset_metadata})
            return
        consumer_group = self.consumer_group_manager.group(group_id)
        if consumer_group is not None:   # Kafka 4.0: member id and member epoch (v9's generation_id)
            self.consumer_group_manager.commit_offsets(consumer_group, member_id, generation_id, offset_metadata,
                                                       response_callback, api_version)
            return
        group = self.group_manager.get_group(group_id)
        if group is None:
            if generation_id < 0:
                # Not using Kafka's group management (e.g. assign() + commit): allow it.
                group = self.group_manager.add_group(GroupMetadata(group_id, Empty, self.time))
            else:
                # Or a commit from an older generation of a group that is gone: reject it.
                response_callback({tp: Errors.ILLEGAL_GENERATION for tp in offset_metadata})
                return
        self.do_commit_offsets(group, member_id, group_instance_id, generation_id, offset_metadata, response_callback)

    # Kafka: GroupCoordinator.doCommitOffsets
    def do_commit_offsets(self, group: GroupMetadata, member_id, group_instance_id, generation_id: int,
                          offset_metadata, response_callback) -> None:
        with group.lock:
            def fail(error: Errors) -> None:
                response_callback({tp: error for tp in offset_metadata})

            if group.is_(Dead):
                fail(Errors.COORDINATOR_NOT_AVAILABLE)
            elif group.is_static_member_fenced(member_id, group_instance_id):
                fail(Errors.FENCED_INSTANCE_ID)
            elif generation_id < 0 and group.is_(Empty):
                # The group only uses Kafka to store offsets.
                self.group_manager.store_offsets(group, member_id, offset_metadata, response_callback)
            elif not group.has(member_id):
                fail(Errors.UNKNOWN_MEMBER_ID)
            elif generation_id != group.generation_id:
                fail(Errors.ILLEGAL_GENERATION)
            elif group.is_(Stable) or group.is_(PreparingRebalance):
                # Commits are allowed while rebalancing: the heartbeat will tell the member to rejoin.
                self.complete_and_schedule_next_heartbeat_expiration(group, group.get(member_id))
                self.group_manager.store_offsets(group, member_id, offset_metadata, response_callback)
            elif group.is_(CompletingRebalance):
                # A valid member of the new generation that has not synced yet: let it retry.
                fail(Errors.REBALANCE_IN_PROGRESS)
            else:
                raise RuntimeError(f"Logic error: unexpected group state {group.current_state}")

    # Kafka: GroupCoordinator.handleTxnCommitOffsets -- a transactional producer's offsets (TxnOffsetCommit)
    def handle_txn_commit_offsets(self, group_id: str, producer_id: int, producer_epoch: int,
                                  offset_metadata: dict[TopicPartition, OffsetAndMetadata],
                                  response_callback: Callable[[dict[TopicPartition, Errors]], None], *,
                                  member_id: str = UNKNOWN_MEMBER_ID, group_instance_id: str | None = None,
                                  generation_id: int = NO_GENERATION) -> None:
        error = self.validate_group_status(group_id, ApiKeys.TXN_OFFSET_COMMIT)
        if error is not None:
            response_callback({tp: error for tp in offset_metadata})
            return
        consumer_group = self.consumer_group_manager.group(group_id)
        if consumer_group is not None:   # Kafka 4.0: TxnOffsetCommit v3 checked against the member's epoch
            self.consumer_group_manager.commit_offsets(consumer_group, member_id, generation_id, offset_metadata,
                                                       response_callback, 9, producer_id, producer_epoch)
            return
        group = self.group_manager.get_group(group_id)
        if group is None:
            group = self.group_manager.add_group(GroupMetadata(group_id, Empty, self.time))
        self.do_txn_commit_offsets(group, member_id, group_instance_id, generation_id, producer_id, producer_epoch,
                                   offset_metadata, response_callback)

    # Kafka 2.5: GroupCoordinator.doTxnCommitOffsets (2.4: doCommitOffsets with a producer id, no member checks)
    def do_txn_commit_offsets(self, group: GroupMetadata, member_id: str, group_instance_id: str | None,
                              generation_id: int, producer_id: int, producer_epoch: int,
                              offset_metadata: dict[TopicPartition, OffsetAndMetadata], response_callback) -> None:
        with group.lock:
            def fail(error: Errors) -> None:
                response_callback({tp: error for tp in offset_metadata})

            if group.is_(Dead):
                # Just removed (perhaps moved to another coordinator): the producer looks it up again.
                fail(Errors.COORDINATOR_NOT_AVAILABLE)
            elif group.is_static_member_fenced(member_id, group_instance_id):
                fail(Errors.FENCED_INSTANCE_ID)
            elif member_id != UNKNOWN_MEMBER_ID and not group.has(member_id):
                fail(Errors.UNKNOWN_MEMBER_ID)
            elif generation_id >= 0 and generation_id != group.generation_id:
                fail(Errors.ILLEGAL_GENERATION)
            else:
                self.group_manager.store_offsets(group, member_id, offset_metadata, response_callback,
                                                 producer_id, producer_epoch)

    # Kafka: GroupCoordinator.scheduleHandleTxnCompletion -- called once a transaction's markers are on these
    # __consumer_offsets partitions (given as partition ids); completes the producer's pending offsets there
    def schedule_handle_txn_completion(self, producer_id: int, offsets_partitions,
                                       transaction_result: TransactionResult) -> None:
        partitions = {int(p) for p in offsets_partitions}
        is_commit = transaction_result is TransactionResult.COMMIT
        self.group_manager.schedule_handle_txn_completion(producer_id, partitions, is_commit)

    # Kafka: GroupCoordinator.handleFetchOffsets -- offsets whatever the group's state
    def handle_fetch_offsets(self, group_id: str, partitions: list[TopicPartition] | None = None,
                             require_stable: bool = False):
        error = self.validate_group_status(group_id, ApiKeys.OFFSET_FETCH)
        if error is not None:
            return error, {}
        return Errors.NONE, self.group_manager.get_offsets(group_id, partitions, require_stable)

    # Kafka: GroupCoordinator.handleListGroups
    def handle_list_groups(self):
        if not self._is_active.is_set():
            return Errors.COORDINATOR_NOT_AVAILABLE, []
        error = Errors.COORDINATOR_LOAD_IN_PROGRESS if self.group_manager.is_loading() else Errors.NONE
        return error, self.consumer_group_manager.list_overviews(
            [g.overview() for g in self.group_manager.current_groups()])

    # Kafka: GroupCoordinator.handleDescribeGroup
    def handle_describe_group(self, group_id: str) -> tuple[Errors, GroupSummary]:
        error = self.validate_group_status(group_id, ApiKeys.DESCRIBE_GROUPS)
        if error is not None:
            return error, EMPTY_GROUP
        if self.consumer_group_manager.group(group_id) is not None:
            return Errors.NONE, DEAD_GROUP   # Kafka 3.9: "not a classic group" describes as Dead
        group = self.group_manager.get_group(group_id)
        if group is None:
            return Errors.NONE, DEAD_GROUP
        with group.lock:
            return Errors.NONE, group.summary()

    # Kafka: GroupCoordinator.handleDeletedPartitions -- topics deleted: drop their offsets
    def handle_deleted_partitions(self, topic_partitions) -> None:
        tps = list(topic_partitions)
        removed = self.group_manager.cleanup_group_metadata(self.group_manager.current_groups(),
                                                            lambda g: g.remove_offsets(tps))
        self.info(f"Removed {removed} offsets associated with deleted partitions: {', '.join(map(str, tps))}.")

    # ------------------------------------------------------------------ validation
    # Kafka: GroupCoordinator.isValidGroupId -- offsets, describe and delete accept ""
    @staticmethod
    def is_valid_group_id(group_id: str | None, api: ApiKeys) -> bool:
        if api in (ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH, ApiKeys.DESCRIBE_GROUPS, ApiKeys.DELETE_GROUPS):
            return group_id is not None
        return bool(group_id)

    # Kafka: GroupCoordinator.validateGroupStatus -- None if the request may go on
    def validate_group_status(self, group_id: str | None, api: ApiKeys) -> Errors | None:
        if not self.is_valid_group_id(group_id, api):
            return Errors.INVALID_GROUP_ID
        if not self._is_active.is_set():
            return Errors.COORDINATOR_NOT_AVAILABLE
        if self.group_manager.is_group_loading(group_id):
            return Errors.COORDINATOR_LOAD_IN_PROGRESS
        if not self.group_manager.is_group_local(group_id):
            return Errors.NOT_COORDINATOR
        return None

    # ------------------------------------------------------------------ partition moves
    # Kafka: GroupCoordinator.onGroupUnloaded -- answer parked requests with NOT_COORDINATOR
    def on_group_unloaded(self, group: GroupMetadata) -> None:
        with group.lock:
            self.info(f"Unloading group metadata for {group.group_id} with generation {group.generation_id}")
            previous = group.current_state
            group.transition_to(Dead)
            if previous is PreparingRebalance:
                for member in group.all_member_metadata():
                    group.maybe_invoke_join_callback(member, join_error(member.member_id, Errors.NOT_COORDINATOR))
                self.join_purgatory.check_and_complete(GroupKey(group.group_id))
            elif previous is Stable or previous is CompletingRebalance:
                for member in group.all_member_metadata():
                    group.maybe_invoke_sync_callback(member, SyncGroupResult(None, None, b"", Errors.NOT_COORDINATOR))
                    self.heartbeat_purgatory.check_and_complete(MemberKey(group.group_id, member.member_id))

    # Kafka: GroupCoordinator.onGroupLoaded -- members get a fresh session
    def on_group_loaded(self, group: GroupMetadata) -> None:
        with group.lock:
            self.info(f"Loading group metadata for {group.group_id} with generation {group.generation_id}")
            assert group.is_(Stable) or group.is_(Empty)
            if self.group_is_over_capacity(group):
                self.prepare_rebalance(group, f"Freshly-loaded group is over capacity "
                                              f"({self.group_config.group_max_size}). Rebalancing in order to give "
                                              "a chance for consumers to commit offsets")
            for member in group.all_member_metadata():
                self.complete_and_schedule_next_heartbeat_expiration(group, member)

    # Kafka 2.5: GroupCoordinator.onElection (2.4: handleGroupImmigration)
    def on_election(self, offset_topic_partition_id: int, coordinator_epoch: int | None = None) -> None:
        self.group_manager.schedule_load_group_and_offsets(offset_topic_partition_id, self.on_group_loaded)

    # Kafka 2.5: GroupCoordinator.onResignation (2.4: handleGroupEmigration)
    def on_resignation(self, offset_topic_partition_id: int, coordinator_epoch: int | None = None) -> None:
        self.group_manager.remove_groups_for_partition(offset_topic_partition_id, self.on_group_unloaded)
        self.consumer_group_manager.on_unloaded(self.partition_for, offset_topic_partition_id)

    handle_group_immigration = on_election
    handle_group_emigration = on_resignation

    # ------------------------------------------------------------------ assignment propagation
    # Kafka: GroupCoordinator.setAndPropagateAssignment
    def set_and_propagate_assignment(self, group: GroupMetadata, assignment: dict[str, bytes]) -> None:
        assert group.is_(CompletingRebalance)
        for member in group.all_member_metadata():
            member.assignment = assignment[member.member_id]
        self.propagate_assignment(group, Errors.NONE)

    # Kafka: GroupCoordinator.resetAndPropagateAssignmentError
    def reset_and_propagate_assignment_error(self, group: GroupMetadata, error: Errors) -> None:
        assert group.is_(CompletingRebalance)
        for member in group.all_member_metadata():
            member.assignment = b""
        self.propagate_assignment(group, error)

    # Kafka: GroupCoordinator.propagateAssignment -- answer every parked SyncGroup
    def propagate_assignment(self, group: GroupMetadata, error: Errors) -> None:
        for member in group.all_member_metadata():
            result = SyncGroupResult(group.protocol_type, group.protocol_name, member.assignment, error)
            if group.maybe_invoke_sync_callback(member, result):
                # Restart the session: an expiry while waiting for the leader was ignored.
                self.complete_and_schedule_next_heartbeat_expiration(group, member)

    # ------------------------------------------------------------------ heartbeats (DelayedHeartbeat)
    # Kafka: GroupCoordinator.completeAndScheduleNextHeartbeatExpiration
    def complete_and_schedule_next_heartbeat_expiration(self, group: GroupMetadata, member: MemberMetadata) -> None:
        self.complete_and_schedule_next_expiration(group, member, member.session_timeout_ms)

    # Kafka: GroupCoordinator.completeAndScheduleNextExpiration
    def complete_and_schedule_next_expiration(self, group: GroupMetadata, member: MemberMetadata, timeout_ms: int) -> None:
        # complete the current heartbeat expectation ...
        member.latest_heartbeat = self.time.milliseconds()
        member_key = MemberKey(member.group_id, member.member_id)
        self.heartbeat_purgatory.check_and_complete(member_key)
        # ... and expect the next one within timeout_ms
        deadline = member.latest_heartbeat + timeout_ms
        delayed = DelayedHeartbeat(self, group, member.member_id, False, deadline, timeout_ms)
        self.heartbeat_purgatory.try_complete_else_watch(delayed, [member_key])

    # Kafka: GroupCoordinator.addPendingMemberExpiration
    def add_pending_member_expiration(self, group: GroupMetadata, pending_member_id: str, timeout_ms: int) -> None:
        key = MemberKey(group.group_id, pending_member_id)
        deadline = self.time.milliseconds() + timeout_ms
        self.heartbeat_purgatory.try_complete_else_watch(
            DelayedHeartbeat(self, group, pending_member_id, True, deadline, timeout_ms), [key])

    # Kafka: GroupCoordinator.removeHeartbeatForLeavingMember
    def remove_heartbeat_for_leaving_member(self, group: GroupMetadata, member: MemberMetadata) -> None:
        member.is_leaving = True
        self.heartbeat_purgatory.check_and_complete(MemberKey(member.group_id, member.member_id))

    # Kafka: GroupCoordinator.tryCompleteHeartbeat
    def try_complete_heartbeat(self, group: GroupMetadata, member_id: str, is_pending: bool,
                               heartbeat_deadline: int, force_complete: Callable[[], bool]) -> bool:
        with group.lock:
            if group.is_(Dead):   # the group was unloaded or deleted: nothing left to expire
                return force_complete()
            if is_pending:
                # complete once the pending member has joined
                return force_complete() if group.has(member_id) else False
            if not group.has(member_id):
                return force_complete()   # already removed (e.g. replaced static member): nothing to expire
            member = group.get(member_id)
            if member.should_keep_alive(heartbeat_deadline) or member.is_leaving:
                return force_complete()
            return False

    # Kafka: GroupCoordinator.onExpireHeartbeat -- the session timed out
    def on_expire_heartbeat(self, group: GroupMetadata, member_id: str, is_pending: bool, heartbeat_deadline: int) -> None:
        with group.lock:
            if group.is_(Dead):
                self.info(f"Received notification of heartbeat expiration for member {member_id} after group "
                          f"{group.group_id} had already been unloaded or deleted.")
            elif is_pending:
                self.info(f"Pending member {member_id} in group {group.group_id} has been removed after session "
                          "timeout expiration.")
                self.remove_pending_member_and_update_group(group, member_id)
            elif not group.has(member_id):
                self.debug(f"Member {member_id} has already been removed from the group.")
            else:
                member = group.get(member_id)
                if not member.should_keep_alive(heartbeat_deadline):
                    self.info(f"Member {member.member_id} in group {group.group_id} has failed, removing it from the group")
                    self.remove_member_and_update_group(group, member,
                                                        f"removing member {member.member_id} on heartbeat expiration")

    # Kafka: GroupCoordinator.onCompleteHeartbeat
    def on_complete_heartbeat(self) -> None:
        pass

    # ------------------------------------------------------------------ rebalance (DelayedJoin)
    # Kafka: GroupCoordinator.addMemberAndRebalance
    def add_member_and_rebalance(self, rebalance_timeout_ms, session_timeout_ms, member_id, group_instance_id,
                                 client_id, client_host, protocol_type, protocols, group: GroupMetadata,
                                 callback) -> None:
        member = MemberMetadata(member_id, group.group_id, group_instance_id, client_id, client_host,
                                rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols)
        member.is_new = True
        # lets an InitialDelayedJoin wait a little longer
        if group.is_(PreparingRebalance) and group.generation_id == 0:
            group.new_member_added = True
        group.add(member, callback)
        # A new member has no id yet to heartbeat with, so it gets the new-member timeout instead.
        self.complete_and_schedule_next_expiration(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS)
        if member.is_static_member:
            group.add_static_member(group_instance_id, member_id)
        else:
            group.remove_pending_member(member_id)
        self.maybe_prepare_rebalance(group, f"Adding new member {member_id} with group instance id {group_instance_id}")

    # Kafka: GroupCoordinator.updateMemberAndRebalance
    def update_member_and_rebalance(self, group: GroupMetadata, member: MemberMetadata, protocols, callback) -> None:
        group.update_member(member, protocols, callback)
        self.maybe_prepare_rebalance(group, f"Updating metadata for member {member.member_id}")

    # Kafka: GroupCoordinator.maybePrepareRebalance
    def maybe_prepare_rebalance(self, group: GroupMetadata, reason: str) -> None:
        with group.lock:
            if group.can_rebalance():
                self.prepare_rebalance(group, reason)

    # Kafka: GroupCoordinator.prepareRebalance
    def prepare_rebalance(self, group: GroupMetadata, reason: str) -> None:
        # members waiting in SyncGroup must rejoin
        if group.is_(CompletingRebalance):
            self.reset_and_propagate_assignment_error(group, Errors.REBALANCE_IN_PROGRESS)
        if group.is_(Empty):
            delay = self.group_config.group_initial_rebalance_delay_ms
            delayed_rebalance = InitialDelayedJoin(self, self.join_purgatory, group, delay, delay,
                                                   max(group.rebalance_timeout_ms() - delay, 0))
        else:
            delayed_rebalance = DelayedJoin(self, group, group.rebalance_timeout_ms())
        group.transition_to(PreparingRebalance)
        self.info(f"Preparing to rebalance group {group.group_id} in state {group.current_state} with old generation "
                  f"{group.generation_id} ({GROUP_METADATA_TOPIC_NAME}-{self.partition_for(group.group_id)}) "
                  f"(reason: {reason})")
        self.join_purgatory.try_complete_else_watch(delayed_rebalance, [GroupKey(group.group_id)])

    # Kafka: GroupCoordinator.removeMemberAndUpdateGroup
    def remove_member_and_update_group(self, group: GroupMetadata, member: MemberMetadata, reason: str) -> None:
        # A new member may time out with its JoinGroup parked: answer it first, so it can retry.
        group.maybe_invoke_join_callback(member, join_error(NO_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID))
        group.remove(member.member_id)
        group.remove_static_member(member.group_instance_id)
        if group.is_(Stable) or group.is_(CompletingRebalance):
            self.maybe_prepare_rebalance(group, reason)
        elif group.is_(PreparingRebalance):
            self.join_purgatory.check_and_complete(GroupKey(group.group_id))

    # Kafka: GroupCoordinator.removePendingMemberAndUpdateGroup
    def remove_pending_member_and_update_group(self, group: GroupMetadata, member_id: str) -> None:
        group.remove_pending_member(member_id)
        if group.is_(PreparingRebalance):
            self.join_purgatory.check_and_complete(GroupKey(group.group_id))

    # Kafka: GroupCoordinator.tryCompleteJoin
    def try_complete_join(self, group: GroupMetadata, force_complete: Callable[[], bool]) -> bool:
        with group.lock:
            return force_complete() if group.has_all_members_joined() else False

    # Kafka: GroupCoordinator.onExpireJoin
    def on_expire_join(self) -> None:
        pass

    # Kafka: GroupCoordinator.onCompleteJoin -- the new generation starts; answer every JoinGroup
    def on_complete_join(self, group: GroupMetadata) -> None:
        with group.lock:
            # dynamic members that did not rejoin in time are dropped
            for failed in [m for m in group.not_yet_rejoined_members() if not m.is_static_member]:
                self.remove_heartbeat_for_leaving_member(group, failed)
                group.remove(failed.member_id)
                group.remove_static_member(failed.group_instance_id)
            if group.is_(Dead):
                self.info(f"Group {group.group_id} is dead, skipping rebalance stage")
            elif not group.maybe_elect_new_joined_leader() and group.all_members():
                # Nobody rejoined: wait again until session timeouts have removed the silent members.
                self.error(f"Group {group.group_id} could not complete rebalance because no members rejoined")
                self.join_purgatory.try_complete_else_watch(
                    DelayedJoin(self, group, group.rebalance_timeout_ms()), [GroupKey(group.group_id)])
            else:
                group.init_next_generation()
                if group.is_(Empty):
                    self.info(f"Group {group.group_id} with generation {group.generation_id} is now empty "
                              f"({GROUP_METADATA_TOPIC_NAME}-{self.partition_for(group.group_id)})")

                    def on_stored(error: Errors) -> None:
                        if error is not Errors.NONE:
                            # Harmless: an empty generation has no members to confuse.
                            self.warn(f"Failed to write empty metadata for group {group.group_id}: {error.name}")

                    self.group_manager.store_group(group, {}, on_stored)
                else:
                    self.info(f"Stabilized group {group.group_id} generation {group.generation_id} "
                              f"({GROUP_METADATA_TOPIC_NAME}-{self.partition_for(group.group_id)})")
                    for member in group.all_member_metadata():
                        result = JoinGroupResult(
                            group.current_member_metadata() if group.is_leader(member.member_id) else [],
                            member.member_id, group.generation_id, group.protocol_type, group.protocol_or_null(),
                            group.leader_or_null(), Errors.NONE)
                        group.maybe_invoke_join_callback(member, result)
                        self.complete_and_schedule_next_heartbeat_expiration(group, member)
                        member.is_new = False

    # Kafka: GroupCoordinator.partitionFor
    def partition_for(self, group_id: str) -> int:
        return self.group_manager.partition_for(group_id)

    # Kafka: GroupCoordinator.groupIsOverCapacity
    def group_is_over_capacity(self, group: GroupMetadata) -> bool:
        return group.size() > self.group_config.group_max_size

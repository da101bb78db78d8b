"""Mirrors Kafka 4.0: group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupMetadataManager.java
(its consumer-group half: consumerGroupHeartbeat, consumerGroupLeave, consumerGroupDescribe, the member fencing
of the session and rebalance timeouts)

Classes: ConsumerGroupMetadataManager (its ConsumerGroupConfig is in consumer_group_config.py).

The coordinator of consumer-protocol groups (KIP-848). One heartbeat does all the work, under the group's lock:

1. validate the request (``throw_if_consumer_group_heartbeat_request_is_invalid``), get or create the group
   and the member (a member that joins with epoch 0 and no id is named here), check the member epoch;
2. apply the heartbeat's changes to the member; a new member, a changed subscription or changed partition
   counts of the subscribed topics bump the group epoch;
3. when the group epoch is ahead of the assignment epoch, the server-side assignor computes a new target
   assignment (``update_target_assignment``);
4. reconcile the member towards its target (CurrentAssignmentBuilder: revoke before assign);
5. restart the member's session timer and answer its epoch, the heartbeat interval and, when it changed (or
   the request was a full one), its assignment by topic id.

Groups live beside the classic ones: each consumer group has a classic GroupMetadata of the same id in
GroupMetadataManager that holds its offsets (so OffsetCommit/OffsetFetch, ``__consumer_offsets`` and offset
expiry stay one code path); GroupCoordinator asks ``group(group_id)`` to tell the two kinds apart.

Era notes: Kafka 3.7 (KIP-848), with 3.9's member-epoch rules and 4.0's config names
(``group.coordinator.rebalance.protocols``, ``group.consumer.*``).
Left out: the regex subscription (ConsumerGroupHeartbeat v1); persisting the group (its
ConsumerGroupMetadata / PartitionMetadata / MemberMetadata / TargetAssignment records): after a coordinator
restart or move the group is gone, its members get UNKNOWN_MEMBER_ID (Kafka: GROUP_ID_NOT_FOUND, see
``get_or_maybe_create_consumer_group``) and rejoin with epoch 0, and the offsets, which are records, survive; a returning static member does not inherit the departed
instance's assignment (it joins as a new member); the online upgrade of a non-empty classic group; rack-aware
assignment; group.consumer.max.size.
"""
from __future__ import annotations

import base64
import threading
import uuid
from collections import Counter

from kafkalite.coordinator.group.consumer.assignors import ASSIGNORS
from kafkalite.coordinator.group.consumer.consumer_group_config import ConsumerGroupConfig
from kafkalite.coordinator.group.consumer.consumer_group import ConsumerGroup
from kafkalite.coordinator.group.consumer.consumer_group_member import (
    Assignment, ConsumerGroupMember, MemberState,
)
from kafkalite.coordinator.group.consumer.consumer_group_timeouts import (
    ConsumerGroupRebalanceTimeout, ConsumerGroupSessionTimeout,
)
from kafkalite.coordinator.group.consumer.current_assignment_builder import CurrentAssignmentBuilder
from kafkalite.coordinator.group.consumer.target_assignment_builder import TargetAssignmentBuilder
from kafkalite.coordinator.group.group_metadata import Dead, Empty, GroupMetadata, GroupOverview
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import consumer_group_describe as cgd
from kafkalite.protocol.messages import consumer_group_heartbeat as cgh
from kafkalite.server.delayed_operation_key import MemberKey
from kafkalite.utils.logging import Logging

LEAVE_GROUP_MEMBER_EPOCH = -1          # Kafka 3.7: ConsumerGroupHeartbeatRequest.LEAVE_GROUP_MEMBER_EPOCH
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2   # Kafka 3.7: ConsumerGroupHeartbeatRequest.LEAVE_GROUP_STATIC_MEMBER_EPOCH


class HeartbeatError(Exception):
    """An ApiException of the heartbeat path: its error code and message go into the response."""

    def __init__(self, error: Errors, message: str | None = None):
        super().__init__(message or error.name)
        self.error = error
        self.message = message


def new_member_id() -> str:
    """Kafka 2.8: Uuid.randomUuid().toString() -- 22 url-safe base64 characters."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()


def to_assignment(topic_partitions) -> Assignment | None:
    if topic_partitions is None:
        return None
    return {tp.topic_id: set(tp.partitions) for tp in topic_partitions}


class ConsumerGroupMetadataManager(Logging):
    """Kafka 4.0: GroupMetadataManager (consumer groups)."""

    def __init__(self, config: ConsumerGroupConfig, coordinator):
        self.config = config
        self.coordinator = coordinator      # GroupCoordinator: group status, classic groups, purgatory, time
        self.groups: dict[str, ConsumerGroup] = {}
        self.groups_lock = threading.Lock()   # creation and removal of groups (each group has its own lock)
        self.session_deadlines: dict[tuple[str, str], int] = {}
        self.assignors = {name: ASSIGNORS[name]() for name in config.assignors}
        self.log_ident = f"[GroupMetadataManager {coordinator.broker_id}]: "

    @property
    def enabled(self) -> bool:
        return "consumer" in self.config.rebalance_protocols

    def group(self, group_id: str) -> ConsumerGroup | None:
        return self.groups.get(group_id)

    # ------------------------------------------------------------------ ConsumerGroupHeartbeat
    # Kafka 4.0: GroupCoordinatorService.consumerGroupHeartbeat -- errors become the response's error code
    def handle_heartbeat(self, request: cgh.ConsumerGroupHeartbeatRequest, client_id: str, client_host: str,
                         metadata_cache, api_version: int = 1) -> cgh.ConsumerGroupHeartbeatResponse:
        try:
            if not self.enabled:
                raise HeartbeatError(Errors.UNSUPPORTED_VERSION,
                                     "The consumer group protocol is not in group.coordinator.rebalance.protocols.")
            self.throw_if_consumer_group_heartbeat_request_is_invalid(request, api_version)
            error = self.coordinator.validate_group_status(request.group_id, None)
            if error is not None:
                raise HeartbeatError(error)
            if request.member_epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
                return self.consumer_group_leave(request.group_id, request.instance_id, request.member_id,
                                                 request.member_epoch)
            return self.consumer_group_heartbeat(request, client_id, client_host, metadata_cache)
        except HeartbeatError as e:
            self.info(f"[GroupId {request.group_id}] ConsumerGroupHeartbeat of member {request.member_id} "
                      f"(epoch {request.member_epoch}) failed: {e.error.name}: {e.message}")
            return cgh.ConsumerGroupHeartbeatResponse(error_code=e.error.code, error_message=e.message,
                                                      heartbeat_interval_ms=0)

    # Kafka 4.0: GroupMetadataManager.throwIfConsumerGroupHeartbeatRequestIsInvalid
    def throw_if_consumer_group_heartbeat_request_is_invalid(self, r: cgh.ConsumerGroupHeartbeatRequest,
                                                              api_version: int = 1) -> None:
        def invalid(message):
            raise HeartbeatError(Errors.INVALID_REQUEST, message)
        if not r.group_id:
            invalid("GroupId can't be empty.")
        if api_version >= 1 and not r.member_id:
            invalid("MemberId can't be empty.")   # v1: the member names itself
        if getattr(r, "subscribed_topic_regex", None):   # librdkafka 2.16 sends "" for "no regex"
            invalid("SubscribedTopicRegex is not supported by this broker (kafkalite leaves regex "
                    "subscriptions out).")
        if r.instance_id == "":
            invalid("InstanceId can't be empty.")
        if r.rack_id == "":
            invalid("RackId can't be empty.")
        if r.member_epoch > 0 or r.member_epoch == LEAVE_GROUP_MEMBER_EPOCH:
            if not r.member_id:
                invalid("MemberId can't be empty.")
        elif r.member_epoch == 0:
            if r.rebalance_timeout_ms == -1:
                invalid("RebalanceTimeoutMs must be provided in first request.")
            if r.topic_partitions is None or r.topic_partitions:
                invalid("TopicPartitions must be empty when (re-)joining.")
            if not r.subscribed_topic_names:
                invalid("SubscribedTopicNames must be set in first request.")
        elif r.member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            if not r.member_id:
                invalid("MemberId can't be empty.")
            if r.instance_id is None:
                invalid("InstanceId can't be null.")
        else:
            invalid("MemberEpoch is invalid.")
        if r.server_assignor is not None and r.server_assignor not in self.assignors:
            raise HeartbeatError(Errors.UNSUPPORTED_ASSIGNOR,
                                 f"ServerAssignor {r.server_assignor} is not supported. Supported assignors: "
                                 f"{', '.join(self.assignors)}.")

    # Kafka 4.0: GroupMetadataManager.getOrMaybeCreateConsumerGroup
    def get_or_maybe_create_consumer_group(self, group_id: str, create_if_not_exists: bool) -> ConsumerGroup:
        with self.groups_lock:
            return self._get_or_maybe_create_consumer_group(group_id, create_if_not_exists)

    def _get_or_maybe_create_consumer_group(self, group_id: str, create_if_not_exists: bool) -> ConsumerGroup:
        group = self.groups.get(group_id)
        if group is not None:
            return group
        classic = self.coordinator.group_manager.get_group(group_id)
        if classic is not None and not (classic.is_(Empty) and not classic.all_members()):
            raise HeartbeatError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
        if not create_if_not_exists:
            # Kafka answers GROUP_ID_NOT_FOUND ("Consumer group g not found."). Kafka's group survives a coordinator
            # restart in its records; kafkalite's does not, and librdkafka 2.16 stops heartbeating after a
            # GROUP_ID_NOT_FOUND. UNKNOWN_MEMBER_ID makes it rejoin with epoch 0, what a member of a lost group
            # must do.
            raise HeartbeatError(Errors.UNKNOWN_MEMBER_ID, f"Consumer group {group_id} not found (its members "
                                 "rejoin: kafkalite does not persist consumer groups).")
        # An empty classic group (offsets only) becomes the consumer group's offset store.
        self.offsets_holder(group_id)
        group = ConsumerGroup(group_id)
        self.groups[group_id] = group
        return group

    # Kafka 4.0: GroupMetadataManager.consumerGroupHeartbeat
    def consumer_group_heartbeat(self, r: cgh.ConsumerGroupHeartbeatRequest, client_id: str, client_host: str,
                                 metadata_cache) -> cgh.ConsumerGroupHeartbeatResponse:
        group = self.get_or_maybe_create_consumer_group(r.group_id, r.member_epoch == 0)
        with group.lock:
            if group.is_dead:
                raise HeartbeatError(Errors.NOT_COORDINATOR)
            owned = to_assignment(r.topic_partitions)
            member_id = r.member_id or new_member_id()
            if r.instance_id is None:
                member = self.get_or_maybe_subscribe_dynamic_member(group, member_id, r.member_epoch, owned)
            else:
                member = self.get_or_maybe_subscribe_static_member(group, member_id, r.member_epoch,
                                                                   r.instance_id, owned)
            is_new = member_id not in group.members
            updated = member.copy()
            if r.instance_id is not None:
                updated.instance_id = r.instance_id
            if r.rack_id is not None:
                updated.rack_id = r.rack_id
            if r.rebalance_timeout_ms != -1:
                updated.rebalance_timeout_ms = r.rebalance_timeout_ms
            if r.server_assignor is not None:
                updated.server_assignor_name = r.server_assignor
            if r.subscribed_topic_names is not None:
                updated.subscribed_topic_names = sorted(set(r.subscribed_topic_names))
            updated.client_id, updated.client_host = client_id, client_host

            bump = (is_new or updated.subscribed_topic_names != member.subscribed_topic_names
                    or updated.server_assignor_name != member.server_assignor_name)
            # Subscription metadata: the partition counts of every subscribed topic, the updated member's too.
            names = group.subscribed_topic_names() | set(updated.subscribed_topic_names)
            if not is_new and member.subscribed_topic_names != updated.subscribed_topic_names:
                others = {t for mid, m in group.members.items() if mid != member_id for t in m.subscribed_topic_names}
                names = others | set(updated.subscribed_topic_names)
            metadata = self.subscription_metadata(names, metadata_cache)
            if metadata != group.subscription_metadata:
                self.info(f"[GroupId {group.group_id}] Computed new subscription metadata: {metadata}.")
                group.subscription_metadata = metadata
                bump = True
            if bump:
                group.group_epoch += 1
                self.info(f"[GroupId {group.group_id}] Bumped group epoch to {group.group_epoch}.")

            if group.group_epoch > group.target_assignment_epoch:
                self.update_target_assignment(group, updated)
            target = group.target_assignment.get(member_id, {})

            reconciled = self.maybe_reconcile(group, updated, target, owned)
            group.update_member(reconciled)
            if reconciled.state is MemberState.UNREVOKED_PARTITIONS and (
                    member.state is not MemberState.UNREVOKED_PARTITIONS
                    or reconciled.member_epoch != member.member_epoch):
                # it has until its rebalance timeout to give the partitions up (parked once it is in the group)
                self.schedule_consumer_group_rebalance_timeout(group, reconciled)
            self.schedule_consumer_group_session_timeout(group, member_id)

            response = cgh.ConsumerGroupHeartbeatResponse(
                member_id=reconciled.member_id, member_epoch=reconciled.member_epoch,
                heartbeat_interval_ms=self.config.heartbeat_interval_ms)
            is_full_request = r.member_epoch == 0 or (r.rebalance_timeout_ms != -1 and
                                                      r.subscribed_topic_names is not None and owned is not None)
            if is_full_request or reconciled.assigned_partitions != member.assigned_partitions:
                response.assignment = cgh.ConsumerGroupHeartbeatAssignment(topic_partitions=[
                    cgh.ConsumerGroupHeartbeatTopicPartitions(topic_id=t, partitions=sorted(ps))
                    for t, ps in sorted(reconciled.assigned_partitions.items(), key=lambda kv: str(kv[0]))])
            return response

    # Kafka 4.0: GroupMetadataManager.getOrMaybeSubscribeDynamicConsumerGroupMember
    def get_or_maybe_subscribe_dynamic_member(self, group: ConsumerGroup, member_id: str, member_epoch: int,
                                              owned: Assignment | None) -> ConsumerGroupMember:
        member = group.members.get(member_id)
        if member is None:
            if member_epoch != 0:
                raise HeartbeatError(Errors.UNKNOWN_MEMBER_ID,
                                     f"Member {member_id} is not a member of group {group.group_id}.")
            self.info(f"[GroupId {group.group_id}] Member {member_id} joins the consumer group.")
            return ConsumerGroupMember(member_id)
        self.throw_if_member_epoch_is_invalid(member, member_epoch, owned)
        return member

    # Kafka 4.0: GroupMetadataManager.getOrMaybeSubscribeStaticConsumerGroupMember
    def get_or_maybe_subscribe_static_member(self, group: ConsumerGroup, member_id: str, member_epoch: int,
                                             instance_id: str, owned: Assignment | None) -> ConsumerGroupMember:
        existing = group.static_member(instance_id)
        if member_epoch == 0:
            if existing is None:
                return ConsumerGroupMember(member_id, instance_id=instance_id)
            if existing.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH:
                raise HeartbeatError(Errors.UNRELEASED_INSTANCE_ID,
                                     f"Static member {existing.member_id} with instance id {instance_id} is "
                                     "present in the consumer group.")
            # The instance came back under a new member id: the old one goes.
            self.remove_member_and_bump(group, existing.member_id, "replaced by a new static member")
            return ConsumerGroupMember(member_id, instance_id=instance_id)
        member = group.members.get(member_id)
        if member is None or existing is None:
            raise HeartbeatError(Errors.UNKNOWN_MEMBER_ID,
                                 f"Member {member_id} is not a member of group {group.group_id}.")
        if existing.member_id != member_id:
            raise HeartbeatError(Errors.FENCED_INSTANCE_ID,
                                 f"Static member {member_id} with instance id {instance_id} was fenced.")
        self.throw_if_member_epoch_is_invalid(member, member_epoch, owned)
        return member

    # Kafka 4.0: GroupMetadataManager.throwIfConsumerGroupMemberEpochIsInvalid
    @staticmethod
    def throw_if_member_epoch_is_invalid(member: ConsumerGroupMember, received: int,
                                         owned: Assignment | None) -> None:
        if received > member.member_epoch:
            raise HeartbeatError(Errors.FENCED_MEMBER_EPOCH,
                                 f"The consumer group member has a greater member epoch ({received}) than the one "
                                 f"known by the group coordinator ({member.member_epoch}). The member must abandon "
                                 "all its partitions and rejoin.")
        if received < member.member_epoch:
            # The previous epoch with a subset of the current assignment: the last response was lost.
            subset = owned is not None and all(ps <= member.assigned_partitions.get(t, set())
                                               for t, ps in owned.items())
            if received != member.previous_member_epoch or not subset:
                raise HeartbeatError(Errors.FENCED_MEMBER_EPOCH,
                                     f"The consumer group member has a smaller member epoch ({received}) than the "
                                     f"one known by the group coordinator ({member.member_epoch}). The member must "
                                     "abandon all its partitions and rejoin.")

    @staticmethod
    def subscription_metadata(names, metadata_cache) -> dict[str, tuple[uuid.UUID, int]]:
        out = {}
        for name in sorted(names):
            n = metadata_cache.num_partitions(name) if metadata_cache.contains(name) else None
            if n:
                out[name] = (metadata_cache.topic_id(name), n)
        return out

    # Kafka 4.0: GroupMetadataManager.updateTargetAssignment
    def update_target_assignment(self, group: ConsumerGroup, updated: ConsumerGroupMember) -> None:
        assignor_name = self.default_assignor_name(group, updated)
        builder = (TargetAssignmentBuilder(group.group_id, group.group_epoch, self.assignors[assignor_name])
                   .with_members(group.members)
                   .with_target_assignment(group.target_assignment)
                   .with_subscription_metadata(group.subscription_metadata)
                   .add_or_update_member(updated))
        group.target_assignment = builder.build()
        group.target_assignment_epoch = group.group_epoch
        group.assignor_name = assignor_name
        self.info(f"[GroupId {group.group_id}] Computed a new target assignment for epoch {group.group_epoch} "
                  f"with '{assignor_name}' assignor.")

    # Kafka 4.0: ConsumerGroup.computePreferredServerAssignor -- the members' most requested, else the default
    def default_assignor_name(self, group: ConsumerGroup, updated: ConsumerGroupMember) -> str:
        wanted = Counter(m.server_assignor_name for mid, m in group.members.items()
                         if mid != updated.member_id and m.server_assignor_name)
        if updated.server_assignor_name:
            wanted[updated.server_assignor_name] += 1
        if wanted:
            return max(sorted(wanted), key=lambda n: wanted[n])
        return self.config.assignors[0]

    # Kafka 4.0: GroupMetadataManager.maybeReconcile
    def maybe_reconcile(self, group: ConsumerGroup, member: ConsumerGroupMember, target: Assignment,
                        owned: Assignment | None) -> ConsumerGroupMember:
        if member.is_reconciled_to(group.target_assignment_epoch):
            return member
        updated = (CurrentAssignmentBuilder(member)
                   .with_target_assignment(group.target_assignment_epoch, target)
                   .with_current_partition_epoch(lambda t, p: group.current_partition_epoch(t, p, member.member_id))
                   .with_owned_topic_partitions(owned)
                   .build())
        if updated is not member:
            self.info(f"[GroupId {group.group_id}] Member {member.member_id} new assignment state: "
                      f"epoch={updated.member_epoch}, state={updated.state.value}.")
        return updated

    # ------------------------------------------------------------------ offsets (kept by the classic group)
    def offsets_holder(self, group_id: str) -> GroupMetadata:
        """The classic GroupMetadata of the same id, an Empty group that only holds the offsets."""
        manager = self.coordinator.group_manager
        holder = manager.get_group(group_id)
        if holder is None or holder.is_(Dead):
            if holder is not None:
                manager.group_metadata_cache.pop(group_id, None)
            holder = manager.add_group(GroupMetadata(group_id, Empty, self.coordinator.time))
        return holder

    # Kafka 4.0: OffsetMetadataManager.commitOffset -> ConsumerGroup.validateOffsetCommit, then the records
    def commit_offsets(self, group: ConsumerGroup, member_id: str, member_epoch: int, offset_metadata,
                       response_callback, api_version: int, producer_id: int | None = None,
                       producer_epoch: int | None = None) -> None:
        with group.lock:
            error = group.validate_offset_commit(member_id, member_epoch, producer_id is not None, api_version)
        if error is not None:
            response_callback({tp: error for tp in offset_metadata})
            return
        holder = self.offsets_holder(group.group_id)
        if producer_id is None:
            self.coordinator.group_manager.store_offsets(holder, member_id, offset_metadata, response_callback)
        else:
            self.coordinator.group_manager.store_offsets(holder, member_id, offset_metadata, response_callback,
                                                         producer_id, producer_epoch)

    # Kafka 4.0: GroupMetadataManager.listGroups -- consumer groups say "consumer" and their own state
    def list_overviews(self, overviews: list[GroupOverview]) -> list[GroupOverview]:
        out = [o for o in overviews if o.group_id not in self.groups]
        for group in list(self.groups.values()):
            with group.lock:
                out.append(GroupOverview(group.group_id, ConsumerGroup.PROTOCOL_TYPE, group.state().value))
        return out

    # ------------------------------------------------------------------ leaving and fencing
    # Kafka 4.0: GroupMetadataManager.consumerGroupLeave
    def consumer_group_leave(self, group_id: str, instance_id: str | None, member_id: str,
                             member_epoch: int) -> cgh.ConsumerGroupHeartbeatResponse:
        group = self.groups.get(group_id)
        if group is None:   # Kafka answers GROUP_ID_NOT_FOUND; see get_or_maybe_create_consumer_group
            raise HeartbeatError(Errors.UNKNOWN_MEMBER_ID, f"Consumer group {group_id} not found.")
        with group.lock:
            member = group.members.get(member_id)
            if member is None:
                raise HeartbeatError(Errors.UNKNOWN_MEMBER_ID,
                                     f"Member {member_id} is not a member of group {group_id}.")
            if member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
                if member.instance_id != instance_id:
                    raise HeartbeatError(Errors.FENCED_INSTANCE_ID,
                                         f"Static member {member_id} with instance id {instance_id} was fenced.")
                # It keeps its partitions until it comes back or its session times out: no rebalance.
                left = member.copy()
                left.update_member_epoch(LEAVE_GROUP_STATIC_MEMBER_EPOCH)
                group.update_member(left)
                self.info(f"[GroupId {group_id}] Static member {member_id} with instance id {instance_id} "
                          "temporarily left the consumer group.")
            else:
                self.info(f"[GroupId {group_id}] Member {member_id} left the consumer group.")
                self.remove_member_and_bump(group, member_id, "left")
            return cgh.ConsumerGroupHeartbeatResponse(member_id=member_id, member_epoch=member_epoch,
                                                      heartbeat_interval_ms=0)

    # Kafka 4.0: GroupMetadataManager.consumerGroupFenceMember -- out of the group; the others rebalance
    def remove_member_and_bump(self, group: ConsumerGroup, member_id: str, reason: str) -> None:
        if group.remove_member(member_id) is None:
            return
        self.session_deadlines.pop((group.group_id, member_id), None)
        self.coordinator.heartbeat_purgatory.check_and_complete(MemberKey(group.group_id, member_id))
        group.group_epoch += 1
        self.info(f"[GroupId {group.group_id}] Member {member_id} removed ({reason}); group epoch "
                  f"{group.group_epoch}.")

    # Kafka 4.0: GroupMetadataManager.scheduleConsumerGroupSessionTimeout
    def schedule_consumer_group_session_timeout(self, group: ConsumerGroup, member_id: str) -> None:
        key = MemberKey(group.group_id, member_id)
        deadline = self.coordinator.time.milliseconds() + self.config.session_timeout_ms
        self.session_deadlines[(group.group_id, member_id)] = deadline
        purgatory = self.coordinator.heartbeat_purgatory
        purgatory.check_and_complete(key)   # the previous timer of this member is done
        purgatory.try_complete_else_watch(
            ConsumerGroupSessionTimeout(self, group, member_id, deadline, self.config.session_timeout_ms), [key])

    # Kafka 4.0: GroupMetadataManager.scheduleConsumerGroupRebalanceTimeout
    def schedule_consumer_group_rebalance_timeout(self, group: ConsumerGroup, member: ConsumerGroupMember) -> None:
        timeout = member.rebalance_timeout_ms if member.rebalance_timeout_ms > 0 else self.config.session_timeout_ms
        self.coordinator.heartbeat_purgatory.try_complete_else_watch(
            ConsumerGroupRebalanceTimeout(self, group, member.member_id, member.member_epoch, timeout),
            [MemberKey(group.group_id, member.member_id)])

    # Kafka 4.0: GroupMetadataManager.consumerGroupSessionTimeout's expiry
    def on_session_timeout(self, group: ConsumerGroup, member_id: str, deadline: int) -> None:
        with group.lock:
            if self.session_deadlines.get((group.group_id, member_id)) == deadline:
                self.info(f"[GroupId {group.group_id}] Member {member_id} fenced from the group because "
                          "its session expired.")
                self.remove_member_and_bump(group, member_id, "session expired")

    # Kafka 4.0: GroupMetadataManager.consumerGroupRebalanceTimeout's expiry
    def on_rebalance_timeout(self, group: ConsumerGroup, member_id: str, member_epoch: int) -> None:
        with group.lock:
            member = group.members.get(member_id)
            if member is not None and member.member_epoch == member_epoch \
                    and member.state is MemberState.UNREVOKED_PARTITIONS:
                self.info(f"[GroupId {group.group_id}] Member {member_id} fenced from the group because "
                          "it failed to revoke its partitions within the rebalance timeout.")
                self.remove_member_and_bump(group, member_id, "rebalance timeout")

    # ------------------------------------------------------------------ describe, list, partition moves
    # Kafka 4.0: GroupMetadataManager.consumerGroupDescribe
    def consumer_group_describe(self, group_id: str, metadata_cache) -> cgd.DescribedGroup:
        error = self.coordinator.validate_group_status(group_id, None)
        if error is not None:
            return cgd.DescribedGroup(group_id=group_id, error_code=error.code, members=[])
        group = self.groups.get(group_id)
        if group is None:
            classic = self.coordinator.group_manager.get_group(group_id)
            message = (f"Group {group_id} is not a consumer group." if classic is not None
                       else f"Group {group_id} not found.")
            return cgd.DescribedGroup(group_id=group_id, error_code=Errors.GROUP_ID_NOT_FOUND.code,
                                      error_message=message, members=[])

        def assignment(a: Assignment) -> cgd.Assignment:
            return cgd.Assignment(topic_partitions=[
                cgd.TopicPartitions(topic_id=t, topic_name=metadata_cache.topic_name(t) or "",
                                    partitions=sorted(ps))
                for t, ps in sorted(a.items(), key=lambda kv: str(kv[0]))])

        with group.lock:
            return cgd.DescribedGroup(
                group_id=group_id, group_state=group.state().value, group_epoch=group.group_epoch,
                assignment_epoch=group.target_assignment_epoch,
                assignor_name=group.assignor_name or self.config.assignors[0],
                members=[cgd.Member(
                    member_id=m.member_id, instance_id=m.instance_id, rack_id=m.rack_id,
                    member_epoch=m.member_epoch, client_id=m.client_id, client_host=m.client_host,
                    subscribed_topic_names=list(m.subscribed_topic_names),
                    assignment=assignment(m.assigned_partitions),
                    target_assignment=assignment(group.target_assignment.get(m.member_id, {})))
                    for m in sorted(group.members.values(), key=lambda m: m.member_id)])

    def delete_group(self, group_id: str) -> Errors | None:
        """Kafka 4.0: ConsumerGroup.validateDeleteGroup + the tombstones: only an empty group goes."""
        group = self.groups.get(group_id)
        if group is None:
            return None
        with self.groups_lock, group.lock:
            if group.members:
                return Errors.NON_EMPTY_GROUP
            group.is_dead = True
            self.groups.pop(group_id, None)
        return None

    # Kafka 4.0: GroupMetadataManager.onUnloaded -- the __consumer_offsets partition moved away
    def on_unloaded(self, partition_for, offsets_partition: int) -> None:
        with self.groups_lock:
            moved = [self.groups.pop(g) for g in list(self.groups) if partition_for(g) == offsets_partition]
        for group in moved:
            group_id = group.group_id
            with group.lock:
                group.is_dead = True
                for member_id in list(group.members):
                    self.session_deadlines.pop((group_id, member_id), None)

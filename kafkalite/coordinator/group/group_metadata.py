"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/group/GroupMetadata.scala

Classes: GroupState and its five states (Empty, PreparingRebalance, CompletingRebalance, Stable,
Dead), GroupOverview (ListGroups), GroupSummary (DescribeGroups), GroupMetadata (one group:
members, generation, leader, protocol, committed and pending offsets), CommitRecordMetadataAndOffset.
Also OffsetAndMetadata (Kafka: core/src/main/scala/kafka/common/OffsetAndMetadata.scala). The
coordinator's result records (JoinGroupResult, SyncGroupResult, ...) are in
group_coordinator_results.py and re-exported here.

The state machine (``transition_to`` checks ``valid_previous_states``)::

    Empty --join--> PreparingRebalance --all joined / timeout--> CompletingRebalance
    CompletingRebalance --leader's SyncGroup stored--> Stable
    Stable / CompletingRebalance --join, leave, member expiry--> PreparingRebalance
    PreparingRebalance --every member gone--> Empty
    any --partition emigrates, group deleted or expired--> Dead

``group.lock`` (an RLock, Kafka's ReentrantLock) guards everything here; the coordinator, the
DelayedJoin and the DelayedHeartbeat all take it.

Era notes: ``CompletingRebalance`` is 2.4's name (``AwaitingSync`` before 1.1). Static members
(``group.instance.id``, KIP-345) and pending members (KIP-394, MEMBER_ID_REQUIRED) are 2.3/2.4.
The subscribed topics (``get_subscribed_topics``, for OffsetDelete and offset expiry) are computed once per
generation from the members' subscriptions, and when a group is loaded, as in 2.4.
Transactional offset commits (TxnOffsetCommit, KIP-98): ``prepare_txn_offset_commit`` stages them
per producer id in ``pending_transactional_offset_commits``; ``on_txn_offset_commit_append`` records
where the append landed; ``complete_pending_txn_offset_commit`` makes them the committed offsets when the
COMMIT marker is written (or drops them on ABORT). Until then OffsetFetch does not see them. Each
committed offset is kept with the log offset of the batch that wrote it (``CommitRecordMetadataAndOffset``)
so that a transactional commit completing late never replaces a newer plain commit.
Era notes: ``has_pending_offset_commits_for_topic_partition`` is 2.5's (OffsetFetch ``require_stable``,
KIP-447). ``prepare_txn_offset_commit`` stages only the offsets that are written (2.4 staged every
requested one, including those refused for too-large metadata, which then stayed pending).
"""
from __future__ import annotations

import threading
import uuid
from typing import Callable

import attrs

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.group.group_coordinator_results import (  # noqa: F401  (re-exported)
    NO_GENERATION, NO_LEADER, NO_MEMBER_ID, NO_PROTOCOL, JoinGroupResult, LeaveGroupResult, LeaveMemberResponse,
    SyncGroupResult, join_error)
from kafkalite.coordinator.group.member_metadata import MemberMetadata, MemberSummary
from kafkalite.protocol.errors import Errors
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM, Time

MEMBER_ID_DELIMITER = "-"  # Kafka: GroupMetadata.MemberIdDelimiter


class GroupState:
    """Kafka: GroupState -- a named state with the states it may be entered from."""

    def __init__(self, name: str, state: int):
        self.name = name
        self.state = state
        self.valid_previous_states: frozenset[GroupState] = frozenset()

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


# Kafka: PreparingRebalance -- waiting for every member to (re)join; joins are parked in a DelayedJoin
PreparingRebalance = GroupState("PreparingRebalance", 1)
# Kafka: CompletingRebalance -- joins answered; waiting for the leader's assignment in SyncGroup
CompletingRebalance = GroupState("CompletingRebalance", 2)
# Kafka: Stable -- assignment done; members heartbeat
Stable = GroupState("Stable", 3)
# Kafka: Dead -- no members, metadata being removed; a final state
Dead = GroupState("Dead", 4)
# Kafka: Empty -- no members, but offsets may live on (also "simple" consumers that only commit)
Empty = GroupState("Empty", 5)

Dead.valid_previous_states = frozenset({Stable, PreparingRebalance, CompletingRebalance, Empty, Dead})
CompletingRebalance.valid_previous_states = frozenset({PreparingRebalance})
Stable.valid_previous_states = frozenset({CompletingRebalance})
PreparingRebalance.valid_previous_states = frozenset({Stable, CompletingRebalance, Empty})
Empty.valid_previous_states = frozenset({PreparingRebalance})

ALL_STATES = (PreparingRebalance, CompletingRebalance, Stable, Dead, Empty)


@attrs.frozen
class OffsetAndMetadata:
    """Kafka: kafka.common.OffsetAndMetadata -- one committed offset."""

    offset: int
    leader_epoch: int | None = None        # Optional<Integer>; None = unknown
    metadata: str = ""
    commit_timestamp: int = 0
    expire_timestamp: int | None = None    # only set when the client gave a retention time (v2-4)


@attrs.frozen
class CommitRecordMetadataAndOffset:
    """Kafka: CommitRecordMetadataAndOffset -- a commit with the log offset of the batch that wrote it
    (None while the append is in flight), so the newest record in the log wins whatever the order
    in which plain and transactional commits complete."""

    appended_batch_offset: int | None
    offset_and_metadata: OffsetAndMetadata

    # Kafka: CommitRecordMetadataAndOffset.olderThan
    def older_than(self, that: "CommitRecordMetadataAndOffset") -> bool:
        return self.appended_batch_offset < that.appended_batch_offset


@attrs.frozen
class GroupOverview:
    """Kafka: GroupOverview -- ListGroups' view (2.4 had no state; KIP-518 added it)."""

    group_id: str
    protocol_type: str
    state: str


@attrs.frozen
class GroupSummary:
    """Kafka: GroupSummary -- DescribeGroups' view."""

    state: str
    protocol_type: str
    protocol: str
    members: list[MemberSummary]


class GroupMetadata(Logging):
    """Kafka: GroupMetadata -- not thread safe: callers hold ``group.lock``."""

    def __init__(self, group_id: str, initial_state: GroupState = Empty, time: Time = SYSTEM):
        self.group_id = group_id
        self.time = time
        self.lock = threading.RLock()
        self.log_ident = f"[GroupMetadata groupId={group_id}] "
        self.state = initial_state
        self.current_state_timestamp: int | None = time.milliseconds()
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.subscribed_topics: set[str] | None = None   # Kafka: subscribedTopics, per generation
        self.generation_id = 0
        self.leader_id: str | None = None
        self.members: dict[str, MemberMetadata] = {}
        # Kafka: staticMembers -- group.instance.id -> member id
        self.static_members: dict[str, str] = {}
        # Kafka: pendingMembers -- ids handed out with MEMBER_ID_REQUIRED, not yet joined
        self.pending_members: set[str] = set()
        self.num_members_awaiting_join = 0
        # Kafka: supportedProtocols -- protocol name -> number of members supporting it
        self.supported_protocols: dict[str, int] = {}
        self.offsets: dict[TopicPartition, CommitRecordMetadataAndOffset] = {}
        self.pending_offset_commits: dict[TopicPartition, OffsetAndMetadata] = {}
        # Kafka: pendingTransactionalOffsetCommits -- producer id -> its offsets awaiting a marker
        self.pending_transactional_offset_commits: dict[int, dict[TopicPartition, CommitRecordMetadataAndOffset]] = {}
        self.received_transactional_offset_commits = False
        self.received_consumer_offset_commit = False
        self.new_member_added = False

    # Kafka: GroupMetadata.inLock
    def in_lock(self, fun: Callable):
        with self.lock:
            return fun()

    # Kafka: GroupMetadata.is / not
    def is_(self, state: GroupState) -> bool:
        return self.state is state

    def not_(self, state: GroupState) -> bool:
        return self.state is not state

    # Kafka: GroupMetadata.currentState
    @property
    def current_state(self) -> GroupState:
        return self.state

    # Kafka: GroupMetadata.has / get / size / isLeader
    def has(self, member_id: str) -> bool:
        return member_id in self.members

    def get(self, member_id: str) -> MemberMetadata:
        return self.members[member_id]

    def size(self) -> int:
        return len(self.members)

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id == member_id

    # Kafka: GroupMetadata.leaderOrNull / protocolOrNull
    def leader_or_null(self) -> str | None:
        return self.leader_id

    def protocol_or_null(self) -> str | None:
        return self.protocol_name

    # Kafka: GroupMetadata.add -- the first member fixes the protocol type and leads
    def add(self, member: MemberMetadata, callback: Callable | None = None) -> None:
        if not self.members:
            self.protocol_type = member.protocol_type
        assert self.group_id == member.group_id
        assert self.protocol_type == member.protocol_type
        assert self.supports_protocols(member.protocol_type, {n for n, _ in member.supported_protocols})
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        for name, _ in member.supported_protocols:
            self.supported_protocols[name] = self.supported_protocols.get(name, 0) + 1
        member.awaiting_join_callback = callback
        if member.is_awaiting_join:
            self.num_members_awaiting_join += 1

    # Kafka: GroupMetadata.remove -- if the leader goes, any remaining member leads
    def remove(self, member_id: str) -> None:
        member = self.members.pop(member_id, None)
        if member is not None:
            for name, _ in member.supported_protocols:
                self.supported_protocols[name] -= 1
            if member.is_awaiting_join:
                self.num_members_awaiting_join -= 1
        if self.is_leader(member_id):
            self.leader_id = next(iter(self.members), None)

    # Kafka: GroupMetadata.maybeElectNewJoinedLeader -- a leader that did not rejoin is replaced
    def maybe_elect_new_joined_leader(self) -> bool:
        if self.leader_id is None:
            return False
        leader = self.members[self.leader_id]
        if leader.is_awaiting_join:
            return True
        for member_id, member in self.members.items():
            if member.is_awaiting_join:
                self.info(f"Group leader [member.id: {leader.member_id}, group.instance.id: "
                          f"{leader.group_instance_id}] failed to join before rebalance timeout, "
                          f"while new leader {member_id} was elected.")
                self.leader_id = member_id
                return True
        self.info(f"Group leader [member.id: {leader.member_id}] failed to join before rebalance "
                  "timeout, and the group couldn't proceed to next generation because no member joined.")
        return False

    # Kafka: GroupMetadata.replaceGroupInstance -- a static member rejoined under a new member id
    def replace_group_instance(self, old_member_id: str, new_member_id: str,
                               group_instance_id: str | None) -> MemberMetadata:
        if group_instance_id is None:
            raise ValueError("unexpected null group.instance.id in replace_group_instance")
        old_member = self.members.pop(old_member_id, None)
        if old_member is None:
            raise ValueError(f"Cannot replace non-existing member id {old_member_id}")
        # The old incarnation's parked requests learn that they were fenced.
        if old_member.is_awaiting_join:
            old_member.awaiting_join_callback(join_error(old_member_id, Errors.FENCED_INSTANCE_ID))
            old_member.awaiting_join_callback = None
            self.num_members_awaiting_join -= 1
        self.maybe_invoke_sync_callback(
            old_member, SyncGroupResult(self.protocol_type, self.protocol_name, b"", Errors.FENCED_INSTANCE_ID))
        old_member.member_id = new_member_id
        self.members[new_member_id] = old_member
        if self.is_leader(old_member_id):
            self.leader_id = new_member_id
        self.add_static_member(group_instance_id, new_member_id)
        return old_member

    # Kafka: GroupMetadata.isPendingMember / addPendingMember / removePendingMember
    def is_pending_member(self, member_id: str) -> bool:
        return member_id in self.pending_members

    def add_pending_member(self, member_id: str) -> None:
        self.pending_members.add(member_id)

    def remove_pending_member(self, member_id: str) -> None:
        self.pending_members.discard(member_id)

    # Kafka: GroupMetadata.hasStaticMember / getStaticMemberId / addStaticMember / removeStaticMember
    def has_static_member(self, group_instance_id: str | None) -> bool:
        return group_instance_id is not None and group_instance_id in self.static_members

    def get_static_member_id(self, group_instance_id: str) -> str:
        return self.static_members[group_instance_id]

    def add_static_member(self, group_instance_id: str | None, new_member_id: str) -> None:
        if group_instance_id is None:
            raise ValueError("unexpected null group.instance.id in add_static_member")
        self.static_members[group_instance_id] = new_member_id

    def remove_static_member(self, group_instance_id: str | None) -> None:
        if group_instance_id is not None:
            self.static_members.pop(group_instance_id, None)

    # Kafka: GroupMetadata.isStaticMemberFenced -- an instance id now owned by another member id
    def is_static_member_fenced(self, member_id: str, group_instance_id: str | None) -> bool:
        if self.has_static_member(group_instance_id) and self.get_static_member_id(group_instance_id) != member_id:
            self.error(f"given member.id {member_id} is identified as a known static member "
                       f"{group_instance_id}, but not matching the expected member.id "
                       f"{self.get_static_member_id(group_instance_id)}")
            return True
        return False

    # Kafka: GroupMetadata.hasAllMembersJoined
    def has_all_members_joined(self) -> bool:
        return len(self.members) == self.num_members_awaiting_join and not self.pending_members

    # Kafka: GroupMetadata.notYetRejoinedMembers
    def not_yet_rejoined_members(self) -> list[MemberMetadata]:
        return [m for m in self.members.values() if not m.is_awaiting_join]

    # Kafka: GroupMetadata.allMembers / allMemberMetadata
    def all_members(self) -> set[str]:
        return set(self.members)

    def all_member_metadata(self) -> list[MemberMetadata]:
        return list(self.members.values())

    # Kafka: GroupMetadata.rebalanceTimeoutMs -- the longest any member asked for
    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    # Kafka: GroupMetadata.generateMemberId -- "<client.id or group.instance.id>-<uuid>"
    def generate_member_id(self, client_id: str, group_instance_id: str | None) -> str:
        prefix = client_id if group_instance_id is None else group_instance_id
        return prefix + MEMBER_ID_DELIMITER + str(uuid.uuid4())

    # Kafka: GroupMetadata.canRebalance
    def can_rebalance(self) -> bool:
        return self.state in PreparingRebalance.valid_previous_states

    # Kafka: GroupMetadata.transitionTo
    def transition_to(self, group_state: GroupState) -> None:
        self.assert_valid_transition(group_state)
        self.state = group_state
        self.current_state_timestamp = self.time.milliseconds()

    # Kafka: GroupMetadata.selectProtocol -- every member votes for its favourite common protocol
    def select_protocol(self) -> str:
        if not self.members:
            raise RuntimeError("Cannot select protocol for empty group")
        candidates = self.candidate_protocols()
        votes: dict[str, int] = {}
        for member in self.members.values():
            choice = member.vote(candidates)
            votes[choice] = votes.get(choice, 0) + 1
        return max(votes.items(), key=lambda kv: kv[1])[0]

    # Kafka: GroupMetadata.candidateProtocols -- supported by every member
    def candidate_protocols(self) -> set[str]:
        n = len(self.members)
        return {name for name, count in self.supported_protocols.items() if count == n}

    # Kafka: GroupMetadata.supportsProtocols -- may a member with these protocols join?
    def supports_protocols(self, member_protocol_type: str, member_protocols: set[str]) -> bool:
        if self.is_(Empty):
            return bool(member_protocol_type) and bool(member_protocols)
        n = len(self.members)
        return (self.protocol_type == member_protocol_type
                and any(self.supported_protocols.get(p, 0) == n for p in member_protocols))

    # Kafka: GroupMetadata.getSubscribedTopics -- as of the current generation; None when not knowable
    def get_subscribed_topics(self) -> set[str] | None:
        return self.subscribed_topics

    # Kafka: GroupMetadata.isSubscribedToTopic -- when the topics are not known, every topic counts
    def is_subscribed_to_topic(self, topic: str) -> bool:
        return self.subscribed_topics is None or topic in self.subscribed_topics

    # Kafka: GroupMetadata.computeSubscribedTopics -- the union of the members' subscriptions in a consumer group
    # (parsed as the consumer protocol's version 0, the prefix of every version); None when the group is not a
    # consumer group, has no protocol yet, or a subscription does not parse
    def compute_subscribed_topics(self) -> set[str] | None:
        if self.protocol_type != "consumer":
            return None
        if not self.members:
            return set()
        if self.protocol_name is None:
            return None
        from kafkalite.protocol.messages.consumer_protocol import deserialize_subscription
        topics: set[str] = set()
        try:
            for member in self.members.values():
                topics.update(deserialize_subscription(member.metadata(self.protocol_name)).topics)
        except Exception as e:  # noqa: BLE001 -- Kafka: SchemaException
            self.warn(f"Failed to parse Consumer Protocol consumer:{self.protocol_name} of group {self.group_id}. "
                      f"Consumer group coordinator is not aware of the subscribed topics. ({e!r})")
            return None
        return topics

    # Kafka: GroupMetadata.updateMember -- new protocols, and (un)park its JoinGroup
    def update_member(self, member: MemberMetadata, protocols: list[tuple[str, bytes]],
                      callback: Callable | None) -> None:
        for name, _ in member.supported_protocols:
            self.supported_protocols[name] -= 1
        for name, _ in protocols:
            self.supported_protocols[name] = self.supported_protocols.get(name, 0) + 1
        member.supported_protocols = list(protocols)
        if callback is not None and not member.is_awaiting_join:
            self.num_members_awaiting_join += 1
        elif callback is None and member.is_awaiting_join:
            self.num_members_awaiting_join -= 1
        member.awaiting_join_callback = callback

    # Kafka: GroupMetadata.maybeInvokeJoinCallback
    def maybe_invoke_join_callback(self, member: MemberMetadata, join_group_result: JoinGroupResult) -> None:
        if member.is_awaiting_join:
            callback, member.awaiting_join_callback = member.awaiting_join_callback, None
            self.num_members_awaiting_join -= 1
            callback(join_group_result)

    # Kafka: GroupMetadata.maybeInvokeSyncCallback -- True if a SyncGroup was parked and is now answered
    def maybe_invoke_sync_callback(self, member: MemberMetadata, sync_group_result: SyncGroupResult) -> bool:
        if member.is_awaiting_sync:
            callback, member.awaiting_sync_callback = member.awaiting_sync_callback, None
            callback(sync_group_result)
            return True
        return False

    # Kafka: GroupMetadata.initNextGeneration
    # (static members that did not rejoin in time are still members: onCompleteJoin keeps them)
    def init_next_generation(self) -> None:
        self.generation_id += 1
        if self.members:
            self.protocol_name = self.select_protocol()
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(CompletingRebalance)
        else:
            self.protocol_name = None
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(Empty)
        self.received_consumer_offset_commit = False
        self.received_transactional_offset_commits = False

    # Kafka: GroupMetadata.currentMemberMetadata -- what the leader needs to compute an assignment
    def current_member_metadata(self) -> list[tuple[str, str | None, bytes]]:
        if self.is_(Dead) or self.is_(PreparingRebalance):
            raise RuntimeError(f"Cannot obtain member metadata for group in state {self.state}")
        return [(m.member_id, m.group_instance_id, m.metadata(self.protocol_name)) for m in self.members.values()]

    # Kafka: GroupMetadata.summary
    def summary(self) -> GroupSummary:
        if self.is_(Stable):
            members = [m.summary(self.protocol_name) for m in self.members.values()]
            return GroupSummary(str(self.state), self.protocol_type or "", self.protocol_name, members)
        members = [m.summary_no_metadata() for m in self.members.values()]
        return GroupSummary(str(self.state), self.protocol_type or "", NO_PROTOCOL, members)

    # Kafka: GroupMetadata.overview
    def overview(self) -> GroupOverview:
        return GroupOverview(self.group_id, self.protocol_type or "", str(self.state))

    # Kafka: GroupMetadata.initializeOffsets -- offsets (and still-open transactional ones) loaded from the log
    def initialize_offsets(self, offsets: dict[TopicPartition, CommitRecordMetadataAndOffset],
                           pending_txn_offsets: dict[int, dict[TopicPartition, CommitRecordMetadataAndOffset]] | None = None
                           ) -> None:
        self.offsets.update(offsets)
        for producer_id, producer_offsets in (pending_txn_offsets or {}).items():
            self.pending_transactional_offset_commits[producer_id] = dict(producer_offsets)

    # Kafka: GroupMetadata.onOffsetCommitAppend -- the commit is in the log: make it visible
    def on_offset_commit_append(self, topic_partition: TopicPartition,
                                offset_with_commit_record_metadata: CommitRecordMetadataAndOffset) -> None:
        if topic_partition in self.pending_offset_commits:
            if offset_with_commit_record_metadata.appended_batch_offset is None:
                raise RuntimeError("Cannot complete offset commit write without providing the metadata of the "
                                   "record in the log.")
            current = self.offsets.get(topic_partition)
            if current is None or current.older_than(offset_with_commit_record_metadata):
                self.offsets[topic_partition] = offset_with_commit_record_metadata
        # Absent if the topic was deleted meanwhile (remove_offsets dropped it).
        if self.pending_offset_commits.get(topic_partition) == offset_with_commit_record_metadata.offset_and_metadata:
            del self.pending_offset_commits[topic_partition]

    # Kafka: GroupMetadata.failPendingOffsetWrite
    def fail_pending_offset_write(self, topic_partition: TopicPartition, offset: OffsetAndMetadata) -> None:
        if self.pending_offset_commits.get(topic_partition) == offset:
            del self.pending_offset_commits[topic_partition]

    # Kafka: GroupMetadata.prepareOffsetCommit -- staged until the append completes
    def prepare_offset_commit(self, offsets: dict[TopicPartition, OffsetAndMetadata]) -> None:
        self.received_consumer_offset_commit = True
        self.pending_offset_commits.update(offsets)

    # Kafka: GroupMetadata.prepareTxnOffsetCommit -- staged until the append, then until the marker
    def prepare_txn_offset_commit(self, producer_id: int, offsets: dict[TopicPartition, OffsetAndMetadata]) -> None:
        self.trace(f"TxnOffsetCommit for producer {producer_id} and group {self.group_id} with offsets {offsets} "
                   "is pending")
        self.received_transactional_offset_commits = True
        producer_offsets = self.pending_transactional_offset_commits.setdefault(producer_id, {})
        for tp, om in offsets.items():
            producer_offsets[tp] = CommitRecordMetadataAndOffset(None, om)

    # Kafka: GroupMetadata.hasReceivedConsistentOffsetCommits -- not both consumer and transactional commits
    def has_received_consistent_offset_commits(self) -> bool:
        return not self.received_consumer_offset_commit or not self.received_transactional_offset_commits

    # Kafka: GroupMetadata.failPendingTxnOffsetCommit -- the record was not written: forget it
    def fail_pending_txn_offset_commit(self, producer_id: int, topic_partition: TopicPartition) -> None:
        pending = self.pending_transactional_offset_commits.get(producer_id)
        if pending is None:
            return   # the partition emigrated meanwhile
        removed = pending.pop(topic_partition, None)
        self.trace(f"TxnOffsetCommit for producer {producer_id} and group {self.group_id} with offsets {removed} "
                   "failed to be appended to the log")
        if not pending:
            del self.pending_transactional_offset_commits[producer_id]

    # Kafka: GroupMetadata.onTxnOffsetCommitAppend -- remember where the (still invisible) record landed
    def on_txn_offset_commit_append(self, producer_id: int, topic_partition: TopicPartition,
                                    commit_record_metadata_and_offset: CommitRecordMetadataAndOffset) -> None:
        pending = self.pending_transactional_offset_commits.get(producer_id)
        if pending is None:
            return   # the partition emigrated meanwhile
        staged = pending.get(topic_partition)
        if staged is not None and staged.offset_and_metadata == commit_record_metadata_and_offset.offset_and_metadata:
            pending[topic_partition] = commit_record_metadata_and_offset

    # Kafka: GroupMetadata.completePendingTxnOffsetCommit -- the marker is written: COMMIT shows, ABORT drops
    def complete_pending_txn_offset_commit(self, producer_id: int, is_commit: bool) -> None:
        pending = self.pending_transactional_offset_commits.pop(producer_id, None)
        if not is_commit:
            self.trace(f"TxnOffsetCommit for producer {producer_id} and group {self.group_id} with offsets "
                       f"{pending} aborted")
            return
        for tp, commit in (pending or {}).items():
            if commit.appended_batch_offset is None:
                raise RuntimeError(f"Trying to complete a transactional offset commit for producerId {producer_id} "
                                   f"and groupId {self.group_id} even though the offset commit record itself hasn't "
                                   "been appended to the log.")
            current = self.offsets.get(tp)
            if current is None or current.older_than(commit):
                self.trace(f"TxnOffsetCommit for producer {producer_id} and group {self.group_id} with offset "
                           f"{commit} committed and loaded into the cache.")
                self.offsets[tp] = commit
            else:
                self.trace(f"TxnOffsetCommit for producer {producer_id} and group {self.group_id} with offset "
                           f"{commit} committed, but not loaded since its offset is older than current offset {current}.")

    # Kafka: GroupMetadata.activeProducers
    def active_producers(self) -> set[int]:
        return set(self.pending_transactional_offset_commits)

    # Kafka: GroupMetadata.hasPendingOffsetCommitsFromProducer
    def has_pending_offset_commits_from_producer(self, producer_id: int) -> bool:
        return producer_id in self.pending_transactional_offset_commits

    # Kafka 2.5: GroupMetadata.hasPendingOffsetCommitsForTopicPartition (OffsetFetch require_stable)
    def has_pending_offset_commits_for_topic_partition(self, topic_partition: TopicPartition) -> bool:
        return (topic_partition in self.pending_offset_commits
                or any(topic_partition in p for p in self.pending_transactional_offset_commits.values()))

    # No Kafka counterpart: are plain (non-transactional) commits in flight?
    def has_pending_offset_commits(self) -> bool:
        return bool(self.pending_offset_commits)

    # Kafka: GroupMetadata.removeAllOffsets
    def remove_all_offsets(self) -> dict[TopicPartition, OffsetAndMetadata]:
        return self.remove_offsets(list(self.offsets))

    # Kafka: GroupMetadata.removeOffsets -- staged commits of those partitions go too, transactional ones included
    def remove_offsets(self, topic_partitions) -> dict[TopicPartition, OffsetAndMetadata]:
        removed = {}
        for tp in topic_partitions:
            self.pending_offset_commits.pop(tp, None)
            for pending in self.pending_transactional_offset_commits.values():
                pending.pop(tp, None)
            if tp in self.offsets:
                removed[tp] = self.offsets.pop(tp).offset_and_metadata
        return removed

    # Kafka: GroupMetadata.removeExpiredOffsets
    def remove_expired_offsets(self, current_timestamp: int, offset_retention_ms: int) -> dict[TopicPartition, OffsetAndMetadata]:
        """Expire offsets as 2.4 does (KIP-211, KIP-496): in Empty groups counting from when the group became
        Empty; in consumer groups with members, the offsets of topics no member subscribes to, counting from
        each commit; in groups without a protocol type, counting from each commit. A commit that carried an
        explicit expire timestamp keeps the old per-offset rule."""
        def expired(base_timestamp, subscribed_topics=frozenset()) -> dict[TopicPartition, OffsetAndMetadata]:
            out = {}
            for tp, commit in self.offsets.items():
                om = commit.offset_and_metadata
                if tp in self.pending_offset_commits or tp.topic in subscribed_topics:
                    continue
                if om.expire_timestamp is None:
                    if current_timestamp - base_timestamp(om) >= offset_retention_ms:
                        out[tp] = om
                elif current_timestamp >= om.expire_timestamp:
                    out[tp] = om
            return out

        if self.protocol_type is not None and self.is_(Empty):
            result = expired(lambda om: self.current_state_timestamp
                             if self.current_state_timestamp is not None else om.commit_timestamp)
        elif self.protocol_type == "consumer" and self.subscribed_topics is not None:
            # members exist: the offsets of topics they do not subscribe to expire from their last commit
            result = expired(lambda om: om.commit_timestamp, self.subscribed_topics)
        elif self.protocol_type is None:
            result = expired(lambda om: om.commit_timestamp)
        else:
            result = {}
        for tp in result:
            del self.offsets[tp]
        if result:
            self.info(f"Expired offsets from group '{self.group_id}': {sorted(map(str, result))}")
        return result

    # Kafka: GroupMetadata.allOffsets / offset / numOffsets / hasOffsets
    def all_offsets(self) -> dict[TopicPartition, OffsetAndMetadata]:
        return {tp: c.offset_and_metadata for tp, c in self.offsets.items()}

    def offset(self, topic_partition: TopicPartition) -> OffsetAndMetadata | None:
        commit = self.offsets.get(topic_partition)
        return None if commit is None else commit.offset_and_metadata

    # Kafka: GroupMetadata.offsetWithRecordMetadata (visible for testing)
    def offset_with_record_metadata(self, topic_partition: TopicPartition) -> CommitRecordMetadataAndOffset | None:
        return self.offsets.get(topic_partition)

    def num_offsets(self) -> int:
        return len(self.offsets)

    def has_offsets(self) -> bool:
        return bool(self.offsets or self.pending_offset_commits or self.pending_transactional_offset_commits)

    # Kafka: GroupMetadata.assertValidTransition
    def assert_valid_transition(self, target_state: GroupState) -> None:
        if self.state not in target_state.valid_previous_states:
            allowed = ",".join(sorted(s.name for s in target_state.valid_previous_states))
            raise RuntimeError(f"Group {self.group_id} should be in the {allowed} states before moving "
                               f"to {target_state} state. Instead it is in {self.state} state")

    def __repr__(self) -> str:
        return (f"GroupMetadata(groupId={self.group_id}, generation={self.generation_id}, "
                f"protocolType={self.protocol_type}, currentState={self.state}, members={list(self.members.values())})")


# Kafka: GroupMetadata.loadGroup (companion object) -- rebuild a group read from __consumer_offsets
def load_group(group_id: str, initial_state: GroupState, generation_id: int, protocol_type: str | None,
               protocol_name: str | None, leader_id: str | None, current_state_timestamp: int | None,
               members: list[MemberMetadata], time: Time = SYSTEM) -> GroupMetadata:
    group = GroupMetadata(group_id, initial_state, time)
    group.generation_id = generation_id
    group.protocol_type = protocol_type or None
    group.protocol_name = protocol_name
    group.leader_id = leader_id
    group.current_state_timestamp = current_state_timestamp
    for member in members:
        group.add(member, None)
        if member.is_static_member:
            group.add_static_member(member.group_instance_id, member.member_id)
    group.subscribed_topics = group.compute_subscribed_topics()
    return group

"""Kafka 4.0: group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/consumer/
CurrentAssignmentBuilderTest.java and GroupMetadataManagerTest.java (its consumerGroupHeartbeat cases)
-- reconciliation (revoke before assign, member epochs), the heartbeat's errors, leaving, session expiry,
static members, and what the classic side sees of a consumer group: JoinGroup refused, offsets committed
with the member epoch, ListGroups/DescribeGroups."""
import uuid

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.group.consumer.consumer_group_manager import ConsumerGroupConfig
from kafkalite.coordinator.group.consumer.consumer_group_member import ConsumerGroupMember, MemberState
from kafkalite.coordinator.group.consumer.current_assignment_builder import CurrentAssignmentBuilder
from kafkalite.coordinator.group.group_coordinator import GroupConfig, GroupCoordinator
from kafkalite.coordinator.group.group_metadata import OffsetAndMetadata
from kafkalite.coordinator.group.group_metadata_manager import GroupMetadataManager, OffsetConfig
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.consumer_group_heartbeat import (
    ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatRequestTopicPartitions,
)
from kafkalite.server.delayed_operation import DelayedOperationPurgatory
from kafkalite.utils.time import MockTime

from group_test_support import FakeReplicaManager, ImmediateScheduler, MockTimer

T = uuid.UUID(int=7)
GROUP = "cg"


# ------------------------------------------------------------------ CurrentAssignmentBuilder
def member(epoch, assigned, state=MemberState.STABLE, pending=None):
    m = ConsumerGroupMember("m", member_epoch=epoch, previous_member_epoch=epoch - 1, state=state)
    m.assigned_partitions = {T: set(assigned)} if assigned else {}
    m.partitions_pending_revocation = {T: set(pending)} if pending else {}
    return m


def build(m, target_epoch, target, owned=None, held=()):
    return (CurrentAssignmentBuilder(m).with_target_assignment(target_epoch, {T: set(target)} if target else {})
            .with_current_partition_epoch(lambda t, p: 5 if p in held else -1)
            .with_owned_topic_partitions(None if owned is None else {T: set(owned)}).build())


def test_partitions_to_give_up_are_revoked_first_at_the_same_epoch():
    m = build(member(10, {0, 1, 2}), 11, {0, 3}, owned={0, 1, 2})
    assert (m.state, m.member_epoch) == (MemberState.UNREVOKED_PARTITIONS, 10)
    assert m.assigned_partitions == {T: {0}} and m.partitions_pending_revocation == {T: {1, 2}}


def test_revocation_waits_until_the_member_no_longer_owns_them():
    m = member(10, {0}, MemberState.UNREVOKED_PARTITIONS, pending={1, 2})
    assert build(m, 11, {0, 3}, owned={0, 1}) is m      # still owns 1
    assert build(m, 11, {0, 3}, owned=None) is m        # did not say
    done = build(m, 11, {0, 3}, owned={0})
    assert (done.state, done.member_epoch) == (MemberState.STABLE, 11)
    assert done.assigned_partitions == {T: {0, 3}} and not done.partitions_pending_revocation


def test_partitions_another_member_holds_are_withheld_until_released():
    m = build(member(10, {0}), 11, {0, 1, 2}, owned={0}, held={2})
    assert (m.state, m.member_epoch, m.assigned_partitions) == (MemberState.UNRELEASED_PARTITIONS, 11, {T: {0, 1}})
    m = build(m, 11, {0, 1, 2}, owned={0, 1})
    assert (m.state, m.assigned_partitions) == (MemberState.STABLE, {T: {0, 1, 2}})


def test_a_reconciled_member_is_left_alone():
    m = member(11, {0, 1})
    assert build(m, 11, {0, 1}, owned={0, 1}) is m


# ------------------------------------------------------------------ the coordinator
class FakeMetadataCache:
    def __init__(self, topics):
        self.topics = topics    # name -> (id, partitions)

    def contains(self, name):
        return name in self.topics

    def num_partitions(self, name):
        return self.topics[name][1] if name in self.topics else None

    def topic_id(self, name):
        return self.topics[name][0]

    def topic_name(self, topic_id):
        return next((n for n, (i, _) in self.topics.items() if i == topic_id), None)


class Harness:
    def __init__(self, protocols=("classic", "consumer")):
        self.time = MockTime()
        self.timer = MockTimer(self.time)
        offset_config = OffsetConfig(offsets_topic_num_partitions=1)
        manager = GroupMetadataManager(0, offset_config, FakeReplicaManager(range(1)), self.time, ImmediateScheduler())
        self.coordinator = GroupCoordinator(
            0, GroupConfig(10, 30 * 60 * 1000, 2_147_483_647, 0), offset_config, manager,
            DelayedOperationPurgatory("Heartbeat", self.timer, reaper_enabled=False),
            DelayedOperationPurgatory("Rebalance", MockTimer(self.time), reaper_enabled=False), self.time,
            ConsumerGroupConfig(rebalance_protocols=protocols, session_timeout_ms=45_000))
        self.coordinator.startup(enable_metadata_expiration=False)
        self.coordinator.on_election(0, 0)
        self.metadata = FakeMetadataCache({"foo": (T, 6)})
        self.cgm = self.coordinator.consumer_group_manager

    def hb(self, member_id, epoch, owned=(), topics=("foo",), full=True, version=1, **kw):
        r = ConsumerGroupHeartbeatRequest(
            group_id=kw.pop("group_id", GROUP), member_id=member_id, member_epoch=epoch,
            rebalance_timeout_ms=30_000 if full else -1, subscribed_topic_names=list(topics) if full else None,
            topic_partitions=None if owned is None else
            [ConsumerGroupHeartbeatRequestTopicPartitions(topic_id=T, partitions=sorted(owned))] if owned else [],
            **kw)
        return self.cgm.handle_heartbeat(r, "client", "/127.0.0.1", self.metadata, version)

    def commit(self, member_id, epoch, version=9, offset=5):
        out = []
        self.coordinator.handle_commit_offsets(GROUP, member_id, None, epoch,
                                               {TopicPartition("foo", 0): OffsetAndMetadata(offset, None, "", 0, None)},
                                               out.append, api_version=version)
        return out[0][TopicPartition("foo", 0)]


def parts(response):
    assert response.error_code == 0, (Errors.for_code(response.error_code), response.error_message)
    if response.assignment is None:
        return None
    return {p for tp in response.assignment.topic_partitions for p in tp.partitions}


@pytest.fixture
def h():
    return Harness()


def test_second_member_gets_partitions_only_after_the_first_revokes(h):
    a = h.hb("a", 0, owned=[])
    assert (a.member_epoch, parts(a)) == (1, set(range(6)))
    b = h.hb("b", 0, owned=[])
    assert b.member_epoch == 2 and parts(b) == set()            # all six are still a's
    a = h.hb("a", 1, owned=range(6))
    kept = parts(a)
    assert a.member_epoch == 1 and len(kept) == 3                # revoke three, same epoch
    b = h.hb("b", 2, owned=[])
    assert b.assignment is None or parts(b) == set()             # nothing released yet
    a = h.hb("a", 1, owned=kept)                                 # revocation acknowledged
    assert a.member_epoch == 2
    b = h.hb("b", 2, owned=[])
    assert parts(b) == set(range(6)) - kept
    assert h.cgm.group(GROUP).state().value == "Stable"


def test_leaving_member_epoch_minus_one_gives_its_partitions_to_the_others(h):
    h.hb("a", 0, owned=[])
    h.hb("b", 0, owned=[])
    a = h.hb("a", 1, owned=range(6))
    h.hb("a", 1, owned=parts(a))
    b_parts = parts(h.hb("b", 2, owned=[]))
    left = h.hb("b", -1, owned=None, full=False)
    assert (left.error_code, left.member_epoch) == (0, -1)
    a = h.hb("a", 2, owned=set(range(6)) - b_parts)
    assert a.member_epoch == 3 and parts(a) == set(range(6))


def test_session_timeout_fences_a_silent_member(h):
    h.hb("a", 0, owned=[])
    h.hb("b", 0, owned=[])
    for _ in range(3):                      # a keeps heartbeating, b falls silent
        h.time.sleep(20_000)
        h.timer.advance_clock(0)
        h.hb("a", h.cgm.group(GROUP).members["a"].member_epoch,
             owned=h.cgm.group(GROUP).members["a"].assigned_partitions.get(T, set()))
    assert set(h.cgm.group(GROUP).members) == {"a"}
    assert h.hb("b", 2, owned=[]).error_code == Errors.UNKNOWN_MEMBER_ID.code


def test_a_member_that_does_not_revoke_in_time_is_fenced(h):
    h.hb("a", 0, owned=[])
    h.hb("b", 0, owned=[])
    assert len(parts(h.hb("a", 1, owned=range(6)))) == 3           # asked to revoke three
    for _ in range(4):                                              # keeps heartbeating, never revokes
        h.time.sleep(10_000)
        h.timer.advance_clock(0)
        if "a" in h.cgm.group(GROUP).members:
            h.hb("a", 1, owned=range(6))
        h.hb("b", 2, owned=[])
    assert set(h.cgm.group(GROUP).members) == {"b"}                 # fenced after its 30 s rebalance timeout
    assert h.hb("a", 1, owned=range(6)).error_code == Errors.UNKNOWN_MEMBER_ID.code


def test_new_partitions_of_a_subscribed_topic_bump_the_group_epoch(h):
    assert parts(h.hb("a", 0, owned=[])) == set(range(6))
    h.metadata.topics["foo"] = (T, 8)                       # CreatePartitions
    a = h.hb("a", 1, owned=range(6))
    assert (a.member_epoch, parts(a)) == (2, set(range(8)))
    h.metadata.topics["bar"] = (uuid.UUID(int=9), 2)        # a topic nobody subscribes to changes nothing
    assert h.hb("a", 2, owned=range(8)).member_epoch == 2


def test_heartbeat_errors(h):
    assert h.hb("a", 0, topics=()).error_code == Errors.INVALID_REQUEST.code
    assert h.hb("", 0, version=1).error_code == Errors.INVALID_REQUEST.code
    assert h.hb("a", 0, server_assignor="sticky").error_code == Errors.UNSUPPORTED_ASSIGNOR.code
    assert h.hb("a", 0, subscribed_topic_regex="fo.*").error_code == Errors.INVALID_REQUEST.code
    assert h.hb("a", 3, owned=[]).error_code == Errors.UNKNOWN_MEMBER_ID.code   # lost group: rejoin (Kafka: 69)
    assert h.hb("a", 0, owned=[]).member_epoch == 1
    assert h.hb("a", 5, owned=[]).error_code == Errors.FENCED_MEMBER_EPOCH.code
    assert h.hb("z", 1, owned=[]).error_code == Errors.UNKNOWN_MEMBER_ID.code
    v0 = h.hb("", 0, version=0, owned=[])                     # v0: the coordinator names the member
    assert v0.error_code == 0 and v0.member_id
    off = Harness(protocols=("classic",))
    assert off.hb("a", 0, owned=[]).error_code == Errors.UNSUPPORTED_VERSION.code


def test_range_assignor_on_request(h):
    h.hb("a", 0, owned=[], server_assignor="range")
    h.hb("b", 0, owned=[], server_assignor="range")
    group = h.cgm.group(GROUP)
    assert group.assignor_name == "range"
    assert group.target_assignment == {"a": {T: {0, 1, 2}}, "b": {T: {3, 4, 5}}}


def test_static_member_leaves_for_a_while_and_keeps_its_partitions(h):
    h.hb("a", 0, owned=[], instance_id="i1")
    left = h.hb("a", -2, owned=None, full=False, instance_id="i1")
    assert left.member_epoch == -2
    group = h.cgm.group(GROUP)
    assert group.members["a"].assigned_partitions == {T: set(range(6))}   # nobody else can take them
    assert h.hb("a2", 0, owned=[], instance_id="i2").error_code == 0
    assert h.hb("a3", 0, owned=[], instance_id="i1").error_code == 0      # the instance is back
    assert "a" not in group.members


def test_offsets_of_a_consumer_group_are_checked_against_the_member_epoch(h):
    h.hb("a", 0, owned=[])
    assert h.commit("a", 1) is Errors.NONE
    assert h.commit("a", 0) is Errors.STALE_MEMBER_EPOCH
    assert h.commit("a", 2) is Errors.STALE_MEMBER_EPOCH
    assert h.commit("x", 1) is Errors.UNKNOWN_MEMBER_ID
    assert h.commit("a", 1, version=8) is Errors.UNSUPPORTED_VERSION
    assert h.commit("", -1) is Errors.UNKNOWN_MEMBER_ID                 # not while the group has members
    error, offsets = h.coordinator.handle_fetch_offsets(GROUP, [TopicPartition("foo", 0)])
    assert offsets[TopicPartition("foo", 0)].offset == 5
    h.hb("a", -1, owned=None, full=False)
    assert h.commit("", -1, offset=7) is Errors.NONE                    # empty: admin commits go through


def test_classic_side_sees_the_consumer_group(h):
    h.hb("a", 0, owned=[])
    joined = []
    h.coordinator.handle_join_group(GROUP, "", None, False, "c", "/h", 10_000, 10_000, "consumer",
                                    [("range", b"")], joined.append)
    assert joined[0].error is Errors.INCONSISTENT_GROUP_PROTOCOL
    _, overviews = h.coordinator.handle_list_groups()
    assert [(o.group_id, o.protocol_type, o.state) for o in overviews] == [(GROUP, "consumer", "Stable")]
    assert h.coordinator.handle_describe_group(GROUP)[1].state == "Dead"   # Kafka 3.9: not a classic group
    described = h.cgm.consumer_group_describe(GROUP, h.metadata)
    assert described.group_epoch == 1 and described.members[0].assignment.topic_partitions[0].topic_name == "foo"
    assert h.coordinator.handle_delete_groups([GROUP])[GROUP] is Errors.NON_EMPTY_GROUP
    h.commit(h.cgm.group(GROUP).members and next(iter(h.cgm.group(GROUP).members)), 1)
    _, deleted = h.coordinator.handle_delete_offsets(GROUP, [TopicPartition("foo", 0), TopicPartition("bar", 0)])
    assert deleted == {TopicPartition("foo", 0): Errors.GROUP_SUBSCRIBED_TO_TOPIC,
                       TopicPartition("bar", 0): Errors.NONE}
    h.hb(next(iter(h.cgm.group(GROUP).members)), -1, owned=None, full=False)
    assert h.coordinator.handle_delete_groups([GROUP])[GROUP] is Errors.NONE     # empty: it goes
    assert h.cgm.group(GROUP) is None


def test_a_classic_group_with_members_is_not_a_consumer_group(h):
    joined = []
    h.coordinator.handle_join_group("classic", "", None, False, "c", "/h", 10_000, 10_000, "consumer",
                                    [("range", b"")], joined.append)
    assert h.hb("a", 0, owned=[], group_id="classic").error_code == Errors.GROUP_ID_NOT_FOUND.code

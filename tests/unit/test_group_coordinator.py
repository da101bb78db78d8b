"""Kafka: GroupCoordinatorTest -- joins, rebalances, sync, heartbeats, session expiry, leave,
static members, offsets (plain and transactional) and group deletion, driven by MockTime and a
synchronous MockTimer."""
import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.group.group_coordinator import GroupConfig, GroupCoordinator
from kafkalite.coordinator.group.group_metadata import (CompletingRebalance, Dead, Empty, OffsetAndMetadata,
                                                        PreparingRebalance, Stable)
from kafkalite.coordinator.group.group_metadata_manager import GroupMetadataManager, OffsetConfig
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.transaction_result import TransactionResult
from kafkalite.server.delayed_operation import DelayedOperationPurgatory
from kafkalite.utils.time import MockTime

from group_test_support import FakeReplicaManager, ImmediateScheduler, MockTimer

GROUP = "groupId"
SESSION = 10_000
REBALANCE = 60_000
INITIAL_DELAY = 50
PROTOCOLS = [("range", b"metadata")]


class Harness:
    def __init__(self, num_partitions=1, owned=(0,)):
        self.time = MockTime()
        self.hb_timer, self.join_timer = MockTimer(self.time), MockTimer(self.time)
        self.replica_manager = FakeReplicaManager(range(num_partitions))
        offset_config = OffsetConfig(offsets_topic_num_partitions=num_partitions)
        manager = GroupMetadataManager(0, offset_config, self.replica_manager, self.time, ImmediateScheduler())
        self.coordinator = GroupCoordinator(
            0, GroupConfig(10, 30 * 60 * 1000, 2_147_483_647, INITIAL_DELAY), offset_config, manager,
            DelayedOperationPurgatory("Heartbeat", self.hb_timer, reaper_enabled=False),
            DelayedOperationPurgatory("Rebalance", self.join_timer, reaper_enabled=False), self.time)
        self.coordinator.startup(enable_metadata_expiration=False)
        for p in owned:
            self.coordinator.on_election(p, 0)

    def advance(self, ms):
        self.time.sleep(ms)
        self.hb_timer.advance_clock(0)
        self.join_timer.advance_clock(0)

    def group(self, group_id=GROUP):
        return self.coordinator.group_manager.get_group(group_id)

    def join(self, member_id="", instance_id=None, protocols=PROTOCOLS, session=SESSION, group_id=GROUP,
             require_known=False, protocol_type="consumer"):
        out = []
        self.coordinator.handle_join_group(group_id, member_id, instance_id, require_known, "client", "/127.0.0.1",
                                           REBALANCE, session, protocol_type, protocols, out.append)
        return out

    def sync(self, member_id, generation, assignment=None, instance_id=None, group_id=GROUP):
        out = []
        self.coordinator.handle_sync_group(group_id, generation, member_id, None, None, instance_id,
                                           assignment or {}, out.append)
        return out

    def heartbeat(self, member_id, generation, instance_id=None, group_id=GROUP):
        out = []
        self.coordinator.handle_heartbeat(group_id, member_id, instance_id, generation, out.append)
        return out[0]

    def commit(self, member_id, generation, offsets, group_id=GROUP, instance_id=None):
        out = []
        self.coordinator.handle_commit_offsets(group_id, member_id, instance_id, generation, offsets, out.append)
        return out[0]

    def join_stable_single(self, instance_id=None, assignment=b"assigned"):
        """One member joins and syncs; returns (member id, generation)."""
        joined = self.join(instance_id=instance_id)
        self.advance(INITIAL_DELAY + 1)
        result = joined[0]
        assert result.error is Errors.NONE
        synced = self.sync(result.member_id, result.generation_id, {result.member_id: assignment}, instance_id)
        assert synced[0].error is Errors.NONE
        return result.member_id, result.generation_id

    def join_stable_pair(self):
        """Two members in a Stable group; returns (leader id, follower id, generation)."""
        a, _ = self.join_stable_single()
        b_join = self.join()
        assert self.group().is_(PreparingRebalance)
        a_join = self.join(a)
        assert a_join and b_join, "both joins complete once every member has rejoined"
        gen = a_join[0].generation_id
        b = b_join[0].member_id
        follower_sync = self.sync(b, gen)
        assert follower_sync == []  # parked until the leader syncs
        leader_sync = self.sync(a, gen, {a: b"A", b: b"B"})
        assert leader_sync[0].member_assignment == b"A" and follower_sync[0].member_assignment == b"B"
        assert self.group().is_(Stable)
        return a, b, gen


@pytest.fixture
def h():
    return Harness()


def tp(n=0):
    return TopicPartition("foo", n)


def om(offset, ts=0):
    return OffsetAndMetadata(offset, None, "", ts, None)


def test_join_with_unknown_member_id_requires_member_id_then_joins(h):
    first = h.join(require_known=True)
    assert first[0].error is Errors.MEMBER_ID_REQUIRED
    member_id = first[0].member_id
    assert member_id.startswith("client-")
    assert h.group().is_pending_member(member_id)
    second = h.join(member_id, require_known=True)
    assert second == []   # waiting in the InitialDelayedJoin
    h.advance(INITIAL_DELAY + 1)
    r = second[0]
    assert (r.error, r.member_id, r.generation_id, r.leader_id, r.protocol_name) == (
        Errors.NONE, member_id, 1, member_id, "range")
    assert r.members == [(member_id, None, b"metadata")]
    assert h.group().is_(CompletingRebalance)


def test_join_with_unknown_member_id_for_unknown_group_and_known_member_rejected(h):
    assert h.join("some-member")[0].error is Errors.UNKNOWN_MEMBER_ID
    assert h.group() is None


def test_invalid_session_timeout(h):
    for session in (5, 30 * 60 * 1000 + 1):
        r = h.join(session=session)[0]
        assert r.error is Errors.INVALID_SESSION_TIMEOUT
    assert h.group() is None


def test_invalid_group_id_and_not_coordinator():
    h = Harness(num_partitions=2, owned=(0,))
    assert h.join(group_id="")[0].error is Errors.INVALID_GROUP_ID
    foreign = next(g for g in (f"g{i}" for i in range(100)) if h.coordinator.partition_for(g) == 1)
    assert h.join(group_id=foreign)[0].error is Errors.NOT_COORDINATOR
    assert h.heartbeat("m", 1, group_id=foreign) is Errors.NOT_COORDINATOR


def test_inconsistent_group_protocol(h):
    a, _ = h.join_stable_single()
    assert h.join(protocols=[("roundrobin", b"")])[0].error is Errors.INCONSISTENT_GROUP_PROTOCOL
    assert h.join(protocol_type="connect")[0].error is Errors.INCONSISTENT_GROUP_PROTOCOL
    assert h.group().is_(Stable) and h.group().all_members() == {a}


def test_two_members_rebalance_leader_gets_members_and_sync_distributes(h):
    a, b, gen = h.join_stable_pair()
    assert gen == 2
    g = h.group()
    assert g.leader_id == a and g.get(a).assignment == b"A" and g.get(b).assignment == b"B"


def test_leader_join_result_lists_all_members_follower_none(h):
    a, _ = h.join_stable_single()
    b_join = h.join()
    a_join = h.join(a)
    assert {m[0] for m in a_join[0].members} == {a, b_join[0].member_id}
    assert b_join[0].members == [] and b_join[0].leader_id == a


def test_heartbeat_wrong_generation_and_unknown_member(h):
    a, gen = h.join_stable_single()
    assert h.heartbeat(a, gen) is Errors.NONE
    assert h.heartbeat(a, gen + 1) is Errors.ILLEGAL_GENERATION
    assert h.heartbeat("nobody", gen) is Errors.UNKNOWN_MEMBER_ID
    assert h.heartbeat("nobody", gen, group_id="other") is Errors.UNKNOWN_MEMBER_ID
    # the group is left as it was
    assert h.group().is_(Stable) and h.group().all_members() == {a}


def test_sync_wrong_generation_and_unknown_member(h):
    a, gen = h.join_stable_single()
    assert h.sync(a, gen + 1)[0].error is Errors.ILLEGAL_GENERATION
    assert h.sync("nobody", gen)[0].error is Errors.UNKNOWN_MEMBER_ID
    assert h.sync(a, gen)[0].member_assignment == b"assigned"


def test_heartbeat_during_rebalance_tells_member_to_rejoin(h):
    a, gen = h.join_stable_single()
    h.join()
    assert h.heartbeat(a, gen) is Errors.REBALANCE_IN_PROGRESS


def test_session_expiry_removes_member_and_group_becomes_empty(h):
    a, gen = h.join_stable_single()
    h.advance(SESSION - 1)
    assert h.heartbeat(a, gen) is Errors.NONE   # heartbeat just in mock_time
    h.advance(SESSION - 1)
    assert h.group().is_(Stable)
    h.advance(2)
    g = h.group()
    assert not g.has(a)
    assert g.is_(Empty) and g.generation_id == gen + 1


def test_session_expiry_of_one_member_rebalances_the_other(h):
    a, b, gen = h.join_stable_pair()
    for _ in range(3):
        h.advance(SESSION // 2)
        h.heartbeat(a, gen)     # only a stays alive
    g = h.group()
    assert not g.has(b)
    assert g.is_(PreparingRebalance)
    assert h.heartbeat(a, gen) is Errors.REBALANCE_IN_PROGRESS
    rejoin = h.join(a)
    assert rejoin[0].error is Errors.NONE and rejoin[0].generation_id == gen + 1
    assert rejoin[0].members == [(a, None, b"metadata")]


def test_leave_group_triggers_rebalance_at_once(h):
    a, b, gen = h.join_stable_pair()
    out = []
    h.coordinator.handle_leave_group(GROUP, [(b, None)], out.append)
    assert out[0].top_level_error is Errors.NONE and out[0].member_responses[0].error is Errors.NONE
    assert h.group().is_(PreparingRebalance) and not h.group().has(b)
    assert h.join(a)[0].generation_id == gen + 1


def test_leave_group_unknown_member(h):
    a, _ = h.join_stable_single()
    out = []
    h.coordinator.handle_leave_group(GROUP, [("nobody", None)], out.append)
    assert out[0].member_responses[0].error is Errors.UNKNOWN_MEMBER_ID
    assert h.group().is_(Stable)


def test_static_member_rejoin_gets_assignment_without_rebalance(h):
    old_id, gen = h.join_stable_single(instance_id="instance-1", assignment=b"mine")
    rejoin = h.join(instance_id="instance-1")   # restarted: no member id
    r = rejoin[0]
    assert r.error is Errors.NONE and r.member_id != old_id and r.member_id.startswith("instance-1-")
    assert r.generation_id == gen
    assert r.leader_id == old_id   # the old leader id: the new one must not reassign
    assert h.group().is_(Stable)
    assert h.sync(r.member_id, gen, instance_id="instance-1")[0].member_assignment == b"mine"
    # the old process is fenced
    assert h.heartbeat(old_id, gen, instance_id="instance-1") is Errors.FENCED_INSTANCE_ID
    assert h.heartbeat(r.member_id, gen, instance_id="instance-1") is Errors.NONE


def test_commit_and_fetch_offsets(h):
    a, gen = h.join_stable_single()
    assert h.commit(a, gen, {tp(0): om(42)}) == {tp(0): Errors.NONE}
    error, data = h.coordinator.handle_fetch_offsets(GROUP, [tp(0), tp(1)])
    assert error is Errors.NONE
    assert data[tp(0)].offset == 42 and data[tp(1)].offset == -1
    assert h.commit(a, gen + 1, {tp(0): om(43)}) == {tp(0): Errors.ILLEGAL_GENERATION}
    assert h.commit("nobody", gen, {tp(0): om(43)}) == {tp(0): Errors.UNKNOWN_MEMBER_ID}
    assert h.coordinator.handle_fetch_offsets(GROUP, [tp(0)])[1][tp(0)].offset == 42


def test_commit_with_generation_minus_one_for_group_without_members(h):
    assert h.commit("", -1, {tp(0): om(7)}, group_id="simple") == {tp(0): Errors.NONE}
    error, data = h.coordinator.handle_fetch_offsets("simple", None)
    assert error is Errors.NONE and data[tp(0)].offset == 7
    assert h.group("simple").is_(Empty)


def test_commit_with_positive_generation_for_unknown_group_rejected(h):
    assert h.commit("m", 3, {tp(0): om(7)}, group_id="gone") == {tp(0): Errors.ILLEGAL_GENERATION}


def test_fetch_offsets_of_unknown_group_is_minus_one_without_error(h):
    error, data = h.coordinator.handle_fetch_offsets("unknown", [tp(0), tp(3)])
    assert error is Errors.NONE
    assert {p: (d.offset, d.error) for p, d in data.items()} == {tp(0): (-1, Errors.NONE), tp(3): (-1, Errors.NONE)}


def test_commit_fails_when_append_fails_and_offset_stays_invisible(h):
    h.replica_manager.fail_with = Errors.NOT_LEADER_FOR_PARTITION
    assert h.commit("", -1, {tp(0): om(7)}, group_id="simple") == {tp(0): Errors.NOT_COORDINATOR}
    assert h.coordinator.handle_fetch_offsets("simple", [tp(0)])[1][tp(0)].offset == -1


def test_delete_groups(h):
    h.commit("", -1, {tp(0): om(7)}, group_id="simple")
    h.join_stable_single()
    result = h.coordinator.handle_delete_groups(["simple", GROUP, "unknown"])
    assert result == {"simple": Errors.NONE, GROUP: Errors.NON_EMPTY_GROUP, "unknown": Errors.GROUP_ID_NOT_FOUND}
    assert h.group("simple") is None
    assert h.coordinator.handle_fetch_offsets("simple", [tp(0)])[1][tp(0)].offset == -1


def test_describe_and_list_groups(h):
    a, _ = h.join_stable_single()
    error, summary = h.coordinator.handle_describe_group(GROUP)
    assert error is Errors.NONE and summary.state == "Stable" and summary.protocol == "range"
    assert [(m.member_id, m.assignment) for m in summary.members] == [(a, b"assigned")]
    assert h.coordinator.handle_describe_group("unknown")[1].state == "Dead"
    error, overviews = h.coordinator.handle_list_groups()
    assert error is Errors.NONE and [(o.group_id, o.protocol_type, o.state) for o in overviews] == [
        (GROUP, "consumer", "Stable")]


def test_rejoin_in_stable_with_same_metadata_returns_current_generation(h):
    a, b, gen = h.join_stable_pair()
    r = h.join(b)[0]     # follower, same metadata: no rebalance
    assert (r.error, r.generation_id, r.leader_id) == (Errors.NONE, gen, a)
    assert h.group().is_(Stable)


# ---------------------------------------------------------------- transactional offset commits
PRODUCER_ID, PRODUCER_EPOCH = 1000, 2


def txn_commit(h, offsets, group_id=GROUP, producer_id=PRODUCER_ID, **member):
    out = []
    h.coordinator.handle_txn_commit_offsets(group_id, producer_id, PRODUCER_EPOCH, offsets, out.append, **member)
    return out[0]


def fetched(h, group_id, tps, require_stable=False):
    error, data = h.coordinator.handle_fetch_offsets(group_id, tps, require_stable)
    assert error is Errors.NONE
    return {p: (d.offset, d.error) for p, d in data.items()}


def test_basic_fetch_txn_offsets(h):
    # Kafka: GroupCoordinatorTest.testBasicFetchTxnOffsets
    assert txn_commit(h, {tp(0): om(25)}) == {tp(0): Errors.NONE}
    assert fetched(h, GROUP, [tp(0)]) == {tp(0): (-1, Errors.NONE)}
    assert fetched(h, GROUP, [tp(0)], require_stable=True) == {tp(0): (-1, Errors.UNSTABLE_OFFSET_COMMIT)}
    h.coordinator.schedule_handle_txn_completion(PRODUCER_ID, [0], TransactionResult.COMMIT)
    assert fetched(h, GROUP, [tp(0)], require_stable=True) == {tp(0): (25, Errors.NONE)}


def test_fetch_txn_offsets_with_abort(h):
    # Kafka: GroupCoordinatorTest.testFetchTxnOffsetsWithAbort
    txn_commit(h, {tp(0): om(25)})
    h.coordinator.schedule_handle_txn_completion(PRODUCER_ID, [0], TransactionResult.ABORT)
    assert fetched(h, GROUP, [tp(0)], require_stable=True) == {tp(0): (-1, Errors.NONE)}


def test_fetch_txn_offsets_ignore_spurious_commit(h):
    # Kafka: GroupCoordinatorTest.testFetchTxnOffsetsIgnoreSpuriousCommit -- abort, then a stray COMMIT
    txn_commit(h, {tp(0): om(25)})
    h.coordinator.schedule_handle_txn_completion(PRODUCER_ID, [0], TransactionResult.ABORT)
    h.coordinator.schedule_handle_txn_completion(PRODUCER_ID, [0], TransactionResult.COMMIT)
    assert fetched(h, GROUP, [tp(0)]) == {tp(0): (-1, Errors.NONE)}


def test_fetch_txn_offsets_one_producer_multiple_groups():
    # Kafka: GroupCoordinatorTest.testFetchTxnOffsetsOneProducerMultipleGroups -- markers land per partition
    h = Harness(num_partitions=2, owned=(0, 1))
    groups = ["group-a", "group-b"]
    parts = [h.coordinator.partition_for(g) for g in groups]
    assert sorted(parts) == [0, 1]
    for g in groups:
        txn_commit(h, {tp(0): om(25)}, group_id=g)
    h.coordinator.schedule_handle_txn_completion(PRODUCER_ID, [parts[0]], TransactionResult.COMMIT)
    assert fetched(h, groups[0], [tp(0)]) == {tp(0): (25, Errors.NONE)}
    assert fetched(h, groups[1], [tp(0)]) == {tp(0): (-1, Errors.NONE)}
    h.coordinator.schedule_handle_txn_completion(PRODUCER_ID, [parts[1]], TransactionResult.ABORT)
    assert fetched(h, groups[1], [tp(0)], require_stable=True) == {tp(0): (-1, Errors.NONE)}


def test_fetch_txn_offsets_multiple_producers_one_group(h):
    # Kafka: GroupCoordinatorTest.testFetchTxnOffsetsMultipleProducersOneGroup
    other = PRODUCER_ID + 1
    txn_commit(h, {tp(0): om(25)})
    txn_commit(h, {tp(1): om(35)}, producer_id=other)
    h.coordinator.schedule_handle_txn_completion(PRODUCER_ID, [0], TransactionResult.ABORT)
    assert fetched(h, GROUP, [tp(0), tp(1)], require_stable=True) == {
        tp(0): (-1, Errors.NONE), tp(1): (-1, Errors.UNSTABLE_OFFSET_COMMIT)}
    h.coordinator.schedule_handle_txn_completion(other, [0], TransactionResult.COMMIT)
    assert fetched(h, GROUP, [tp(0), tp(1)]) == {tp(0): (-1, Errors.NONE), tp(1): (35, Errors.NONE)}


def test_txn_commit_offset_member_checks_of_v3(h):
    # Kafka 2.5: GroupCoordinatorTest.testTxnCommitOffsetWithInvalidMemberId / ...WithKnownMemberId /
    # ...WithIllegalGeneration / ...WithLegalGeneration / ...WithFencedInstanceId
    a, gen = h.join_stable_single(instance_id="instance-1")
    assert txn_commit(h, {tp(0): om(1)}, member_id="nobody") == {tp(0): Errors.UNKNOWN_MEMBER_ID}
    assert txn_commit(h, {tp(0): om(1)}, member_id=a, generation_id=gen + 1) == {tp(0): Errors.ILLEGAL_GENERATION}
    assert txn_commit(h, {tp(0): om(1)}, member_id="other", group_instance_id="instance-1") == {
        tp(0): Errors.FENCED_INSTANCE_ID}
    assert txn_commit(h, {tp(0): om(1)}, member_id=a, generation_id=gen, group_instance_id="instance-1") == {
        tp(0): Errors.NONE}
    # v0-2: no member id, no generation -- nothing to check, as in 2.4
    assert txn_commit(h, {tp(1): om(2)}) == {tp(1): Errors.NONE}


def test_txn_commit_offset_for_group_not_owned(h):
    assert txn_commit(h, {tp(0): om(1)}, group_id="") == {tp(0): Errors.INVALID_GROUP_ID}
    h2 = Harness(num_partitions=1, owned=())
    assert txn_commit(h2, {tp(0): om(1)}) == {tp(0): Errors.NOT_COORDINATOR}


def test_pending_txn_offsets_keep_empty_group_alive_in_expiration(h):
    # GroupMetadata.hasOffsets counts pending transactional offsets: the group is not Dead
    txn_commit(h, {tp(0): om(1)}, group_id="simple")
    h.coordinator.group_manager.cleanup_group_metadata([h.group("simple")], lambda g: {})
    assert h.group("simple") is not None and not h.group("simple").is_(Dead)



def test_a_static_member_that_misses_the_rebalance_timeout_stays_and_the_rebalance_completes(h):
    # Kafka 2.4 onCompleteJoin removes only the dynamic members that did not rejoin; a static one stays (its
    # session, longer than the rebalance timeout, decides). kafkalite asserted otherwise and wedged the group
    session = 2 * REBALANCE
    ja, jb = h.join(instance_id="a", session=session), h.join(instance_id="b", session=session)
    h.advance(INITIAL_DELAY + 1)
    h.advance(INITIAL_DELAY + 1)
    a, b, generation = ja[0].member_id, jb[0].member_id, ja[0].generation_id
    h.sync(b, generation, instance_id="b")
    h.sync(a, generation, {a: b"A", b: b"B"}, instance_id="a")
    assert h.group().is_(Stable)
    rejoin = h.join(a, instance_id="a", protocols=[("range", b"new")], session=session)
    assert h.group().is_(PreparingRebalance) and rejoin == []
    h.advance(REBALANCE + 1)   # b never rejoins
    assert [r.error for r in rejoin] == [Errors.NONE] and rejoin[0].generation_id == generation + 1
    assert h.group().is_(CompletingRebalance) and h.group().has(b)


def sub(*topics):
    from kafkalite.protocol.messages.consumer_protocol import ConsumerProtocolSubscription, serialize_subscription
    return serialize_subscription(ConsumerProtocolSubscription(topics=list(topics)))


def test_offsets_of_topics_no_member_subscribes_to_expire_in_a_live_group(h):
    # Kafka 2.4 GroupMetadata.removeExpiredOffsets (KIP-496): a consumer group with members expires the offsets
    # of the topics it does not subscribe to, from their last commit
    j = h.join(protocols=[("range", sub("foo"))])
    h.advance(INITIAL_DELAY + 1)
    m, generation = j[0].member_id, j[0].generation_id
    h.sync(m, generation, {m: b""})
    now = h.time.milliseconds()
    bar, foo = TopicPartition("bar", 0), TopicPartition("foo", 0)
    h.commit(m, generation, {bar: om(5, now), foo: om(7, now)})
    for _ in range(h.coordinator.group_manager.config.offsets_retention_ms // (SESSION // 2) + 2):
        h.advance(SESSION // 2)
        assert h.heartbeat(m, generation) is Errors.NONE
    h.coordinator.group_manager.cleanup_group_metadata()
    assert set(h.group().all_offsets()) == {foo}


def test_subscribed_topics_are_those_of_the_current_generation(h):
    # Kafka 2.4 computes them in initNextGeneration: a member rejoining with another subscription changes
    # nothing until the next generation, so OffsetDelete may still delete the new topic's offsets
    ja, jb = h.join(protocols=[("range", sub("foo"))]), h.join(protocols=[("range", sub("foo"))])
    h.advance(INITIAL_DELAY + 1)
    h.advance(INITIAL_DELAY + 1)
    a, b, generation = ja[0].member_id, jb[0].member_id, ja[0].generation_id
    h.sync(b, generation)
    h.sync(a, generation, {a: b"", b: b""})
    now = h.time.milliseconds()
    h.commit(a, generation, {TopicPartition("bar", 0): om(1, now), TopicPartition("foo", 0): om(2, now)})
    h.join(a, protocols=[("range", sub("bar"))])   # b has not rejoined yet
    assert h.group().is_(PreparingRebalance) and h.group().get_subscribed_topics() == {"foo"}
    assert h.coordinator.handle_delete_offsets(GROUP, [TopicPartition("bar", 0), TopicPartition("foo", 0)]) == \
        (Errors.NONE, {TopicPartition("bar", 0): Errors.NONE, TopicPartition("foo", 0): Errors.GROUP_SUBSCRIBED_TO_TOPIC})


def test_an_unloaded_groups_heartbeats_expire_without_touching_it(h):
    # Kafka 2.4 tryCompleteHeartbeat / onExpireHeartbeat: a Dead group (unloaded or deleted) is left alone
    m, generation = h.join_stable_single()
    group = h.group()
    with group.lock:
        group.transition_to(Dead)
    h.advance(SESSION + 1)
    assert group.has(m)

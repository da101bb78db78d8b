"""Kafka: GroupMetadataTest -- state transitions and protocol selection."""
import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.group.group_metadata import (CompletingRebalance, Dead, Empty, GroupMetadata,
                                                        OffsetAndMetadata, PreparingRebalance, Stable)
from kafkalite.coordinator.group.member_metadata import MemberMetadata
from kafkalite.utils.time import MockTime


def member(mid, protocols, group="g"):
    return MemberMetadata(mid, group, None, "client", "/127.0.0.1", 30000, 10000, "consumer", protocols)


@pytest.fixture
def group():
    return GroupMetadata("g", Empty, MockTime())


def test_can_rebalance_when_stable_or_completing_or_empty(group):
    assert group.can_rebalance()
    group.transition_to(PreparingRebalance)
    assert not group.can_rebalance()
    group.transition_to(CompletingRebalance)
    assert group.can_rebalance()
    group.transition_to(Stable)
    assert group.can_rebalance()


def test_valid_transition_path_and_dead_is_final(group):
    for state in (PreparingRebalance, CompletingRebalance, Stable, PreparingRebalance, Empty, Dead):
        group.transition_to(state)
        assert group.current_state is state
    group.transition_to(Dead)  # Dead -> Dead is allowed
    for state in (Empty, PreparingRebalance, CompletingRebalance, Stable):
        with pytest.raises(RuntimeError):
            group.transition_to(state)


@pytest.mark.parametrize("path,bad", [
    ((), Stable), ((), CompletingRebalance),
    ((PreparingRebalance,), Stable), ((PreparingRebalance,), PreparingRebalance),
    ((PreparingRebalance, CompletingRebalance), Empty), ((PreparingRebalance, CompletingRebalance), CompletingRebalance),
    ((PreparingRebalance, CompletingRebalance, Stable), Stable), ((PreparingRebalance, CompletingRebalance, Stable), Empty),
])
def test_invalid_transitions_raise_and_keep_state(group, path, bad):
    for state in path:
        group.transition_to(state)
    before = group.current_state
    with pytest.raises(RuntimeError):
        group.transition_to(bad)
    assert group.current_state is before


def test_select_protocol_by_vote(group):
    group.add(member("m1", [("range", b""), ("roundrobin", b"")]))
    assert group.select_protocol() == "range"
    group.add(member("m2", [("roundrobin", b""), ("range", b"")]))
    group.add(member("m3", [("roundrobin", b""), ("range", b"")]))
    assert group.select_protocol() == "roundrobin"


def test_select_protocol_chooses_only_common_protocols(group):
    group.add(member("m1", [("range", b""), ("sticky", b"")]))
    group.add(member("m2", [("sticky", b""), ("range", b"")]))
    group.add(member("m3", [("roundrobin", b""), ("sticky", b"")]))
    assert group.candidate_protocols() == {"sticky"}
    assert group.select_protocol() == "sticky"


def test_select_protocol_on_empty_group_raises(group):
    with pytest.raises(RuntimeError):
        group.select_protocol()


def test_supports_protocols(group):
    assert not group.supports_protocols("consumer", set())   # an empty group needs some protocol
    assert group.supports_protocols("consumer", {"range"})
    group.add(member("m1", [("range", b""), ("roundrobin", b"")]))
    group.transition_to(PreparingRebalance)
    assert group.supports_protocols("consumer", {"roundrobin", "foo"})
    assert not group.supports_protocols("consumer", {"foo"})
    assert not group.supports_protocols("connect", {"range"})


def test_init_next_generation_with_and_without_members(group):
    group.add(member("m1", [("range", b"")]), callback=lambda r: None)
    group.transition_to(PreparingRebalance)
    assert group.has_all_members_joined()
    group.init_next_generation()
    assert (group.generation_id, group.protocol_name, group.current_state) == (1, "range", CompletingRebalance)
    group.maybe_invoke_join_callback(group.get("m1"), None)
    group.transition_to(Stable)
    group.transition_to(PreparingRebalance)
    group.remove("m1")
    group.init_next_generation()
    assert (group.generation_id, group.protocol_name, group.current_state) == (2, None, Empty)


def test_leader_moves_when_leader_removed(group):
    group.add(member("m1", [("range", b"")]))
    group.add(member("m2", [("range", b"")]))
    assert group.leader_id == "m1"
    group.remove("m1")
    assert group.leader_id == "m2"
    group.remove("m2")
    assert group.leader_id is None


def test_pending_offset_commit_becomes_visible_on_append(group):
    tp = TopicPartition("foo", 0)
    om = OffsetAndMetadata(37, None, "", 1, None)
    group.prepare_offset_commit({tp: om})
    assert group.has_offsets() and group.offset(tp) is None
    group.on_offset_commit_append(tp, om)
    assert group.offset(tp) == om and not group.has_pending_offset_commits()
    other = OffsetAndMetadata(40, None, "", 2, None)
    group.prepare_offset_commit({tp: other})
    group.fail_pending_offset_write(tp, other)
    assert group.offset(tp) == om and not group.has_pending_offset_commits()

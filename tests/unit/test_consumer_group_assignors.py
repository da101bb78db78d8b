"""Kafka 4.0: group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/UniformAssignorTest.java,
OptimizedUniformAssignmentBuilderTest.java, UniformHeterogeneousAssignmentBuilderTest.java and RangeAssignorTest.java
-- the server-side assignors of the consumer group protocol (KIP-848): every subscribed partition has exactly one
owner among the members subscribed to its topic, the uniform assignor balances to within one partition and keeps
what members had, the range assignor gives consecutive ranges."""
import uuid

import pytest

from kafkalite.coordinator.group.consumer.assignors import (
    AssignmentSpec, MemberSubscription, RangeAssignor, UniformAssignor,
)

T1, T2, T3 = (uuid.UUID(int=i) for i in (1, 2, 3))


def spec(members: dict, counts: dict) -> AssignmentSpec:
    return AssignmentSpec({m: MemberSubscription(set(topics), {t: set(ps) for t, ps in current.items()})
                           for m, (topics, current) in members.items()}, counts)


def owners(result) -> dict:
    out = {}
    for m, a in result.items():
        for t, ps in a.items():
            for p in ps:
                assert (t, p) not in out, f"{t}-{p} given to {out[(t, p)]} and {m}"
                out[(t, p)] = m
    return out


def sizes(result) -> dict:
    return {m: sum(len(ps) for ps in a.values()) for m, a in result.items()}


@pytest.mark.parametrize("assignor", [UniformAssignor(), RangeAssignor()], ids=["uniform", "range"])
def test_every_partition_has_exactly_one_subscribed_owner(assignor):
    s = spec({"a": ({T1, T2}, {}), "b": ({T1}, {}), "c": ({T2, T3}, {})}, {T1: 5, T2: 4, T3: 3})
    result = assignor.assign(s)
    own = owners(result)
    assert sorted(own) == sorted((t, p) for t, n in ((T1, 5), (T2, 4), (T3, 3)) for p in range(n))
    for (t, _), m in own.items():
        assert t in s.members[m].subscribed_topic_ids


def test_uniform_balances_a_homogeneous_group():
    result = UniformAssignor().assign(spec({m: ({T1}, {}) for m in "abc"}, {T1: 6}))
    assert sizes(result) == {"a": 2, "b": 2, "c": 2}
    result = UniformAssignor().assign(spec({m: ({T1, T2}, {}) for m in "abcd"}, {T1: 3, T2: 4}))
    assert sorted(sizes(result).values()) == [1, 2, 2, 2]


def test_uniform_is_sticky_when_a_member_joins():
    first = UniformAssignor().assign(spec({"a": ({T1}, {}), "b": ({T1}, {})}, {T1: 6}))
    second = UniformAssignor().assign(spec({"a": ({T1}, first["a"]), "b": ({T1}, first["b"]), "c": ({T1}, {})},
                                           {T1: 6}))
    assert sizes(second) == {"a": 2, "b": 2, "c": 2}
    # a and b only give up partitions: they keep two of their three each
    assert second["a"][T1] <= first["a"][T1] and second["b"][T1] <= first["b"][T1]


def test_uniform_is_sticky_when_a_member_leaves():
    first = UniformAssignor().assign(spec({m: ({T1}, {}) for m in "abc"}, {T1: 6}))
    second = UniformAssignor().assign(spec({"a": ({T1}, first["a"]), "c": ({T1}, first["c"])}, {T1: 6}))
    assert sizes(second) == {"a": 3, "c": 3}
    assert second["a"][T1] >= first["a"][T1] and second["c"][T1] >= first["c"][T1]


def test_uniform_balances_heterogeneous_subscriptions_within_one():
    # b may only take T1; a and c take the rest and even out
    result = UniformAssignor().assign(spec({"a": ({T1, T2}, {}), "b": ({T1}, {}), "c": ({T2}, {})},
                                           {T1: 4, T2: 4}))
    assert max(sizes(result).values()) - min(sizes(result).values()) <= 1
    assert set(result["b"]) <= {T1} and set(result["c"]) <= {T2}


def test_uniform_ignores_topics_without_partitions_and_unsubscribed_members_get_nothing():
    result = UniformAssignor().assign(spec({"a": ({T1, T3}, {}), "b": (set(), {})}, {T1: 2}))
    assert result == {"a": {T1: {0, 1}}, "b": {}}


def test_range_gives_consecutive_ranges_first_members_one_more():
    result = RangeAssignor().assign(spec({m: ({T1, T2}, {}) for m in "abc"}, {T1: 7, T2: 3}))
    assert result["a"] == {T1: {0, 1, 2}, T2: {0}}
    assert result["b"] == {T1: {3, 4}, T2: {1}}
    assert result["c"] == {T1: {5, 6}, T2: {2}}


def test_range_only_counts_the_members_subscribed_to_a_topic():
    result = RangeAssignor().assign(spec({"a": ({T1}, {}), "b": ({T1, T2}, {})}, {T1: 4, T2: 2}))
    assert result == {"a": {T1: {0, 1}}, "b": {T1: {2, 3}, T2: {0, 1}}}

"""Scenarios of Kafka's CooperativeStickyAssignorTest and AbstractStickyAssignorTest
(clients/src/test/java/org/apache/kafka/clients/consumer/...): balance, stickiness, and the cooperative
protocol's two-phase hand-over of a partition."""
import random

from kafkalite.clients.consumer.consumer_partition_assignor import RebalanceProtocol, Subscription
from kafkalite.clients.consumer.cooperative_sticky_assignor import CooperativeStickyAssignor
from kafkalite.common.topic_partition import TopicPartition as TP


def tps(topic, *parts):
    return [TP(topic, p) for p in parts]


def assign(counts, subs, owned=None):
    owned = owned or {}
    return CooperativeStickyAssignor().assign_partitions(
        counts, {m: Subscription(t, owned_partitions=list(owned.get(m, []))) for m, t in subs.items()})


def test_name_and_protocols():
    a = CooperativeStickyAssignor()
    assert a.name() == "cooperative-sticky"
    assert RebalanceProtocol.COOPERATIVE in a.supported_protocols()


def test_one_consumer_no_topic():
    assert assign({}, {"c": []}) == {"c": []}


def test_one_consumer_one_topic():
    assert assign({"t": 3}, {"c": ["t"]}) == {"c": tps("t", 0, 1, 2)}


def test_only_assigns_partitions_from_subscribed_topics():
    assert assign({"t": 3, "other": 3}, {"c": ["t"]}) == {"c": tps("t", 0, 1, 2)}


def test_two_consumers_one_topic_two_partitions():
    assert assign({"t": 2}, {"c1": ["t"], "c2": ["t"]}) == {"c1": tps("t", 0), "c2": tps("t", 1)}


def test_add_remove_consumer_one_topic_takes_two_rebalances():
    # c1 owns everything; c2 joins. Phase one: nothing moves to c2 yet, c1 gives up one partition.
    first = assign({"t": 3}, {"c1": ["t"], "c2": ["t"]}, {"c1": tps("t", 0, 1, 2)})
    assert first["c2"] == []
    assert len(first["c1"]) == 2 and set(first["c1"]) < set(tps("t", 0, 1, 2))
    revoked = set(tps("t", 0, 1, 2)) - set(first["c1"])
    assert len(revoked) == 1
    # Phase two: c1 rejoins owning only what it kept; the revoked partition goes to c2.
    second = assign({"t": 3}, {"c1": ["t"], "c2": ["t"]}, {"c1": first["c1"], "c2": []})
    assert second["c1"] == first["c1"]
    assert set(second["c2"]) == revoked
    # c1 leaves: c2 keeps its partition and gains the rest in one go (nothing is owned by another member)
    third = assign({"t": 3}, {"c2": ["t"]}, {"c2": second["c2"]})
    assert third == {"c2": tps("t", 0, 1, 2)}


def test_sticky_when_a_consumer_leaves():
    owned = {"c1": tps("t", 0, 3), "c2": tps("t", 1, 4), "c3": tps("t", 2, 5)}
    result = assign({"t": 6}, {"c1": ["t"], "c2": ["t"]}, owned)
    assert set(owned["c1"]) <= set(result["c1"]) and set(owned["c2"]) <= set(result["c2"])
    assert sorted(result["c1"] + result["c2"]) == tps("t", 0, 1, 2, 3, 4, 5)
    assert abs(len(result["c1"]) - len(result["c2"])) <= 1


def test_conflicting_owners_lose_the_partition_to_the_pool():
    result = assign({"t": 2}, {"c1": ["t"], "c2": ["t"]}, {"c1": tps("t", 0, 1), "c2": tps("t", 1)})
    # t-1 is claimed twice, so it counts as unowned and may go to either member at once
    assert sorted(result["c1"] + result["c2"]) == tps("t", 0, 1)
    assert result["c1"] == tps("t", 0)


def test_unequal_subscriptions_are_balanced_where_possible():
    result = assign({"t1": 2, "t2": 4}, {"c1": ["t1"], "c2": ["t1", "t2"], "c3": ["t2"]})
    assert sorted(result["c1"] + result["c2"] + result["c3"], key=lambda tp: (tp.topic, tp.partition)) == \
        tps("t1", 0, 1) + tps("t2", 0, 1, 2, 3)
    assert all(tp.topic == "t1" for tp in result["c1"])
    assert all(tp.topic == "t2" for tp in result["c3"])
    assert sorted(len(v) for v in result.values()) == [2, 2, 2]


def test_random_rebalances_never_give_a_partition_to_two_members():
    rng = random.Random(7)
    members = {f"c{i}": ["t"] for i in range(4)}
    owned: dict = {}
    for _ in range(30):
        active = {m: t for m, t in members.items() if rng.random() < 0.8} or {"c0": ["t"]}
        result = assign({"t": 12}, active, {m: owned.get(m, []) for m in active})
        flat = [tp for parts in result.values() for tp in parts]
        assert len(flat) == len(set(flat))
        # a partition moving between members is first revoked: it is never handed to a new owner
        # while another active member still owns it
        for m, parts in result.items():
            for tp in parts:
                assert all(tp not in owned.get(o, []) for o in active if o != m)
        owned = {m: result.get(m, []) for m in members}

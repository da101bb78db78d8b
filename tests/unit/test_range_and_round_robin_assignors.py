"""Scenarios of Kafka's RangeAssignorTest and RoundRobinAssignorTest
(clients/src/test/java/org/apache/kafka/clients/consumer/RangeAssignorTest.java, RoundRobinAssignorTest.java).

The two Kafka test classes share their simple scenarios; here they run once per assignor
(parametrized), and the cases where range and round-robin differ are written out for each.
"""
import pytest

from kafkalite.clients.cluster import Cluster, PartitionInfo
from kafkalite.clients.consumer.consumer_partition_assignor import GroupSubscription, Subscription
from kafkalite.clients.consumer.range_assignor import RangeAssignor
from kafkalite.clients.consumer.round_robin_assignor import RoundRobinAssignor
from kafkalite.common.topic_partition import TopicPartition as TP


def tps(topic, *parts):
    return [TP(topic, p) for p in parts]


@pytest.fixture(params=[RangeAssignor, RoundRobinAssignor], ids=["RangeAssignorTest", "RoundRobinAssignorTest"])
def assign(request):
    assignor = request.param()
    return lambda counts, subs: assignor.assign_partitions(counts, {m: Subscription(t) for m, t in subs.items()})


def test_one_consumer_no_topic(assign):
    assert assign({}, {"c": []}) == {"c": []}


def test_one_consumer_nonexistent_topic(assign):
    assert assign({}, {"c": ["t"]}) == {"c": []}


def test_one_consumer_one_topic(assign):
    assert assign({"t": 3}, {"c": ["t"]}) == {"c": tps("t", 0, 1, 2)}


def test_only_assigns_partitions_from_subscribed_topics(assign):
    assert assign({"t": 3, "other": 3}, {"c": ["t"]}) == {"c": tps("t", 0, 1, 2)}


def test_one_consumer_multiple_topics(assign):
    assert assign({"t1": 1, "t2": 2}, {"c": ["t1", "t2"]}) == {"c": tps("t1", 0) + tps("t2", 0, 1)}


def test_two_consumers_one_topic_one_partition(assign):
    assert assign({"t": 1}, {"c1": ["t"], "c2": ["t"]}) == {"c1": tps("t", 0), "c2": []}


def test_two_consumers_one_topic_two_partitions(assign):
    assert assign({"t": 2}, {"c1": ["t"], "c2": ["t"]}) == {"c1": tps("t", 0), "c2": tps("t", 1)}


def test_multiple_consumers_mixed_topics(assign):
    result = assign({"t1": 3, "t2": 2}, {"c1": ["t1"], "c2": ["t1", "t2"], "c3": ["t1"]})
    assert result == {"c1": tps("t1", 0), "c2": tps("t1", 1) + tps("t2", 0, 1), "c3": tps("t1", 2)}


def test_range_two_consumers_two_topics_six_partitions():
    subs = {m: Subscription(["t1", "t2"]) for m in ("c1", "c2")}
    result = RangeAssignor().assign_partitions({"t1": 3, "t2": 3}, subs)
    assert result == {"c1": tps("t1", 0, 1) + tps("t2", 0, 1), "c2": tps("t1", 2) + tps("t2", 2)}


def test_round_robin_two_consumers_two_topics_six_partitions():
    subs = {m: Subscription(["t1", "t2"]) for m in ("c1", "c2")}
    result = RoundRobinAssignor().assign_partitions({"t1": 3, "t2": 3}, subs)
    assert result == {"c1": tps("t1", 0, 2) + tps("t2", 1), "c2": tps("t1", 1) + tps("t2", 0, 2)}


def test_range_assign_through_cluster_lookup_skips_unknown_topics():
    group = GroupSubscription({"c1": Subscription(["t", "missing"]), "c2": Subscription(["t"])})
    cluster = Cluster("c", [], [PartitionInfo("t", p, None) for p in range(4)])   # leaderless partitions count too
    result = RangeAssignor().assign(cluster, group).group_assignment
    assert result["c1"].partitions == tps("t", 0, 1)
    assert result["c2"].partitions == tps("t", 2, 3)

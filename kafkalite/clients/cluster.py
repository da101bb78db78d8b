"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/Cluster.java
(and PartitionInfo.java in the same package)

Classes: PartitionInfo -- one partition as a Metadata response describes it (leader, replicas, ISR);
Cluster -- an immutable snapshot of the brokers and partitions a client knows, indexed the ways the
clients ask: partitions of a topic, the leader of a partition, the partitions led by a node. The producer,
the consumer (its Fetcher, coordinator and assignors) and the admin client all read this one class.

A client never changes a Cluster; ``Metadata.update`` builds a new one from each Metadata response and
swaps it in, so a thread holding a snapshot (the Sender during one ``run_once``) sees a consistent view.
``Cluster.bootstrap`` makes the first snapshot from ``bootstrap.servers`` alone: nodes with negative ids
(-1, -2, ...) and no partitions, just enough to send the first Metadata request.

Left out: authorized/invalid topic sets beyond what the producer reports, topic ids, ``withPartitions``.
"""
from __future__ import annotations

import attrs

from kafkalite.clients.node import Node
from kafkalite.common.topic_partition import TopicPartition


@attrs.frozen
class PartitionInfo:
    """Kafka: org.apache.kafka.common.PartitionInfo."""

    topic: str
    partition: int
    leader: Node | None          # None while the partition has no leader
    replicas: tuple = ()
    in_sync_replicas: tuple = ()
    offline_replicas: tuple = ()

    def __str__(self) -> str:
        leader = "none" if self.leader is None else self.leader.id_string
        return (f"Partition(topic = {self.topic}, partition = {self.partition}, leader = {leader}, "
                f"replicas = {[n.id for n in self.replicas]}, isr = {[n.id for n in self.in_sync_replicas]})")


class Cluster:
    """Kafka: org.apache.kafka.common.Cluster."""

    # Kafka: Cluster.<init>
    def __init__(self, cluster_id: str | None, nodes, partitions, unauthorized_topics=(), invalid_topics=(),
                 internal_topics=(), controller: Node | None = None, is_bootstrap_configured: bool = False):
        self.cluster_id = cluster_id
        self.nodes: list[Node] = list(nodes)
        self.unauthorized_topics = frozenset(unauthorized_topics)
        self.invalid_topics = frozenset(invalid_topics)
        self.internal_topics = frozenset(internal_topics)
        self.controller = controller
        self.is_bootstrap_configured = is_bootstrap_configured
        self.nodes_by_id: dict[int, Node] = {n.id: n for n in self.nodes}
        self.partitions_by_topic_partition: dict[TopicPartition, PartitionInfo] = {}
        self.partitions_by_topic: dict[str, list[PartitionInfo]] = {}
        self.available_partitions_by_topic: dict[str, list[PartitionInfo]] = {}
        self.partitions_by_node: dict[int, list[PartitionInfo]] = {}
        for p in sorted(partitions, key=lambda p: (p.topic, p.partition)):
            self.partitions_by_topic_partition[TopicPartition(p.topic, p.partition)] = p
            self.partitions_by_topic.setdefault(p.topic, []).append(p)
            if p.leader is not None:
                self.available_partitions_by_topic.setdefault(p.topic, []).append(p)
                self.partitions_by_node.setdefault(p.leader.id, []).append(p)

    # Kafka: Cluster.empty
    @classmethod
    def empty(cls) -> "Cluster":
        return cls(None, [], [])

    # Kafka: Cluster.bootstrap -- one node per configured address, ids -1, -2, ...
    @classmethod
    def bootstrap(cls, addresses: list[tuple[str, int]]) -> "Cluster":
        nodes = [Node(-(i + 1), host, port) for i, (host, port) in enumerate(addresses)]
        return cls(None, nodes, [], is_bootstrap_configured=True)

    # Kafka: Cluster.nodeById
    def node_by_id(self, node_id: int) -> Node | None:
        return self.nodes_by_id.get(node_id)

    # Kafka: Cluster.leaderFor
    def leader_for(self, topic_partition: TopicPartition) -> Node | None:
        info = self.partitions_by_topic_partition.get(topic_partition)
        return None if info is None else info.leader

    # Kafka: Cluster.partition
    def partition(self, topic_partition: TopicPartition) -> PartitionInfo | None:
        return self.partitions_by_topic_partition.get(topic_partition)

    # Kafka: Cluster.partitionsForTopic
    def partitions_for_topic(self, topic: str) -> list[PartitionInfo]:
        return self.partitions_by_topic.get(topic, [])

    # Kafka: Cluster.partitionCountForTopic -- None when the topic is unknown
    def partition_count_for_topic(self, topic: str) -> int | None:
        partitions = self.partitions_by_topic.get(topic)
        return None if partitions is None else len(partitions)

    # Kafka: Cluster.availablePartitionsForTopic -- partitions that have a leader
    def available_partitions_for_topic(self, topic: str) -> list[PartitionInfo]:
        return self.available_partitions_by_topic.get(topic, [])

    # Kafka: Cluster.partitionsForNode -- partitions this node leads
    def partitions_for_node(self, node_id: int) -> list[PartitionInfo]:
        return self.partitions_by_node.get(node_id, [])

    # Kafka: Cluster.topics
    def topics(self) -> set[str]:
        return set(self.partitions_by_topic)

    def __str__(self) -> str:
        return (f"Cluster(id = {self.cluster_id}, nodes = [{', '.join(map(str, self.nodes))}], "
                f"partitions = [{', '.join(map(str, self.partitions_by_topic_partition.values()))}], "
                f"controller = {self.controller})")

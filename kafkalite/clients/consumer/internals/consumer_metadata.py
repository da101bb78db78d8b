"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerMetadata.java
(with the parts of clients/Metadata.java and common/Cluster.java it needs).

Classes: PartitionInfo (Kafka's common/PartitionInfo), ConsumerMetadata.

What the consumer and the admin client know of the cluster: the brokers, each topic's partitions with
their leader, replicas and ISR, the controller and the cluster id. ``update(response)`` takes a Metadata
response; ``need_update``/``request_update`` say that a refresh is due (after a NOT_LEADER error, a
disconnection, a new subscription). Until the first response the only nodes are the bootstrap servers,
with ids -1, -2, ... as Kafka gives them.

Era notes: kafkalite's shared ``clients/metadata.py`` (the producer's, S40) was being written at the same
time; this module keeps the consumer self-contained and is the place to switch over to it.
Left out: leader epochs and their validation (KIP-320), the condition-variable waits of the producer's
Metadata (the consumer polls instead), pattern subscriptions, ``metadata.max.age.ms`` refreshes.
"""
from __future__ import annotations

import attrs

from kafkalite.clients.node import Node
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors


@attrs.frozen
class PartitionInfo:
    """Kafka: org.apache.kafka.common.PartitionInfo."""

    topic: str
    partition: int
    leader: Node | None
    replicas: tuple[Node, ...]
    in_sync_replicas: tuple[Node, ...]
    offline_replicas: tuple[Node, ...] = ()


def parse_bootstrap(servers: str | list[str]) -> list[Node]:
    """Kafka: ClientUtils.parseAndValidateAddresses -- "host:port,host:port" to nodes -1, -2, ..."""
    if isinstance(servers, str):
        servers = [s for s in servers.split(",") if s.strip()]
    nodes = []
    for i, server in enumerate(servers):
        host, _, port = server.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"Invalid url in bootstrap.servers: {server}")
        nodes.append(Node(-(i + 1), host.strip("[]"), int(port)))
    if not nodes:
        raise ValueError("No resolvable bootstrap urls given in bootstrap.servers")
    return nodes


class ConsumerMetadata:
    """Kafka: ConsumerMetadata (and Metadata's cache)."""

    def __init__(self, bootstrap_servers, include_internal_topics: bool = False,
                 allow_auto_topic_creation: bool = True):
        self.bootstrap_nodes = parse_bootstrap(bootstrap_servers)
        self.include_internal_topics = include_internal_topics
        self.allow_auto_topic_creation = allow_auto_topic_creation
        self.nodes: dict[int, Node] = {}
        self.partitions_by_topic: dict[str, dict[int, PartitionInfo]] = {}
        self.internal_topics: set[str] = set()
        self.topic_errors: dict[str, Errors] = {}
        self.cluster_id: str | None = None
        self.controller: Node | None = None
        self.topics: set[str] = set()            # topics the consumer needs (Kafka: ConsumerMetadata.topics)
        self.need_full_update = True
        self.update_version = 0

    # Kafka: Metadata.requestUpdate
    def request_update(self) -> None:
        self.need_full_update = True

    # Kafka: Metadata.updateRequested
    def update_requested(self) -> bool:
        return self.need_full_update

    # Kafka: ConsumerMetadata.newMetadataRequestBuilder -- the topics of the subscription, or all
    def new_metadata_request(self, all_topics: bool = False):
        from kafkalite.protocol.messages.metadata import MetadataRequest, MetadataRequestTopic
        topics = None if all_topics else [MetadataRequestTopic(name=t) for t in sorted(self.topics)]
        return MetadataRequest(topics=topics, allow_auto_topic_creation=self.allow_auto_topic_creation)

    # Kafka: Metadata.update -- replace the cache with what the response says
    def update(self, response, all_topics: bool = False) -> None:
        self.nodes = {b.node_id: Node(b.node_id, b.host, b.port, b.rack) for b in response.brokers}
        self.cluster_id = response.cluster_id
        self.controller = self.nodes.get(response.controller_id)
        if all_topics:
            self.partitions_by_topic.clear()
        for topic in response.topics:
            error = Errors.for_code(topic.error_code)
            if error is not Errors.NONE:
                self.topic_errors[topic.name] = error
                self.partitions_by_topic.pop(topic.name, None)
                continue
            self.topic_errors.pop(topic.name, None)
            if topic.is_internal:
                self.internal_topics.add(topic.name)
            self.partitions_by_topic[topic.name] = {
                p.partition_index: PartitionInfo(
                    topic.name, p.partition_index, self.nodes.get(p.leader_id),
                    tuple(self.nodes.get(r, Node(r, "", -1)) for r in p.replica_nodes),
                    tuple(self.nodes.get(r, Node(r, "", -1)) for r in p.isr_nodes),
                    tuple(self.nodes.get(r, Node(r, "", -1)) for r in p.offline_replicas))
                for p in topic.partitions}
        self.need_full_update = False
        self.update_version += 1

    # Kafka: Cluster.nodes (bootstrap nodes until the first update)
    def fetch_nodes(self) -> list[Node]:
        return list(self.nodes.values()) or list(self.bootstrap_nodes)

    # Kafka: Cluster.leaderFor
    def leader_for(self, tp: TopicPartition) -> Node | None:
        info = self.partitions_by_topic.get(tp.topic, {}).get(tp.partition)
        return info.leader if info else None

    # Kafka: Cluster.partitionCountForTopic
    def partition_count_for_topic(self, topic: str) -> int | None:
        parts = self.partitions_by_topic.get(topic)
        return len(parts) if parts is not None else None

    # Kafka: Cluster.partitionsForTopic
    def partitions_for_topic(self, topic: str) -> list[PartitionInfo]:
        return [info for _, info in sorted(self.partitions_by_topic.get(topic, {}).items())]

    # Kafka: Cluster.nodeById
    def node_by_id(self, node_id: int) -> Node | None:
        return self.nodes.get(node_id)

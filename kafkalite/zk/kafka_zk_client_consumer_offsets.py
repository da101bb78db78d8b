"""Mirrors Kafka 2.4: core/src/main/scala/kafka/zk/KafkaZkClient.scala (its consumer offset methods) and the
ConsumerPathZNode / ConsumerOffset objects of core/src/main/scala/kafka/zk/ZkData.scala

Classes: ConsumerOffset (the znode path and its decimal-text value) and KafkaZkClientConsumerOffsets, a mixin of
KafkaZkClient. OffsetCommit v0 writes and OffsetFetch v0 reads ``/consumers/<group>/offsets/<topic>/<partition>``,
the store of the ZooKeeper-based consumer of Kafka 0.8; 2.4's broker still does.

Era notes: every ZooKeeper-mode broker through 3.9 does the same (a KRaft broker refuses v0).
Left out: the other /consumers znodes (owners, ids) of the old consumer, which no broker code touched.
"""
from __future__ import annotations

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.zookeeper.zoo_keeper_client import Code, CreateRequest, GetDataRequest, SetDataRequest

MATCH_ANY_VERSION = -1   # Kafka: ZkVersion.MatchAnyVersion


class ConsumerOffset:
    """Kafka: ConsumerOffset -- one committed offset, stored as its decimal text."""

    @staticmethod
    def path(group: str, topic: str, partition: int) -> str:
        return f"/consumers/{group}/offsets/{topic}/{partition}"

    @staticmethod
    def encode(offset: int) -> bytes:
        return str(offset).encode()

    @staticmethod
    def decode(data: bytes | None) -> int | None:
        return None if data is None else int(data.decode())


class KafkaZkClientConsumerOffsets:
    """The consumer offset part of Kafka's KafkaZkClient (self is a KafkaZkClient)."""

    # Kafka: KafkaZkClient.getConsumerOffset -- None when nothing was committed
    def get_consumer_offset(self, group: str, tp: TopicPartition) -> int | None:
        response = self._retry(GetDataRequest(ConsumerOffset.path(group, tp.topic, tp.partition)))
        if response.result_code == Code.NONODE:
            return None
        response.maybe_throw()
        return ConsumerOffset.decode(response.data)

    # Kafka: KafkaZkClient.setOrCreateConsumerOffset
    def set_or_create_consumer_offset(self, group: str, tp: TopicPartition, offset: int) -> None:
        path = ConsumerOffset.path(group, tp.topic, tp.partition)
        response = self._retry(SetDataRequest(path, ConsumerOffset.encode(offset), MATCH_ANY_VERSION))
        if response.result_code == Code.NONODE:   # Kafka: KafkaZkClient.createConsumerOffset
            self.create_recursive(path, ConsumerOffset.encode(offset))
        else:
            response.maybe_throw()

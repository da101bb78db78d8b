"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaRequestHandler.scala (the classes
BrokerTopicMetrics and BrokerTopicStats, which live at the end of that file)

Classes: BrokerTopicMetrics, BrokerTopicStats. Module attribute: ``BROKER_TOPIC_STATS``.

Meters under ``kafka.server:type=BrokerTopicMetrics``, once for the whole broker (no tag) and once
per topic (tag ``topic``): ``BytesInPerSec`` and ``MessagesInPerSec`` (marked by ReplicaManager after
each successful append to a leader), ``BytesOutPerSec`` (marked by KafkaApis for every fetch
response's records). Marking costs one dict lookup and two lock-protected additions per
partition, never per record.

Left out: BytesRejectedPerSec, Failed*/Total* request rates, replication and reassignment bytes.
"""
from __future__ import annotations

import threading

from kafkalite.metrics.kafka_metrics_group import KafkaMetricsGroup


class BrokerTopicMetrics(KafkaMetricsGroup):
    """Kafka: BrokerTopicMetrics(name: Option[String])."""

    metrics_group = "kafka.server"
    metrics_type = "BrokerTopicMetrics"

    def __init__(self, topic: str | None):
        tags = {"topic": topic} if topic is not None else None
        self.messages_in_rate = self.new_meter("MessagesInPerSec", "messages", tags)
        self.bytes_in_rate = self.new_meter("BytesInPerSec", "bytes", tags)
        self.bytes_out_rate = self.new_meter("BytesOutPerSec", "bytes", tags)
        # the replication meters exist for all topics only, as in 2.4
        self.replication_bytes_in_rate = self.new_meter("ReplicationBytesInPerSec", "bytes") if topic is None else None
        self.replication_bytes_out_rate = self.new_meter("ReplicationBytesOutPerSec", "bytes") if topic is None \
            else None


class BrokerTopicStats:
    """Kafka: BrokerTopicStats -- the all-topics metrics plus one BrokerTopicMetrics per topic."""

    def __init__(self):
        self._lock = threading.Lock()
        self.stats: dict[str, BrokerTopicMetrics] = {}
        self.all_topics_stats = BrokerTopicMetrics(None)

    # Kafka: BrokerTopicStats.topicStats
    def topic_stats(self, topic: str) -> BrokerTopicMetrics:
        stats = self.stats.get(topic)
        if stats is None:
            with self._lock:
                stats = self.stats.get(topic)
                if stats is None:
                    stats = self.stats[topic] = BrokerTopicMetrics(topic)
        return stats

    # ReplicaManager.appendToLocalLog marks these after a successful append (Kafka does it inline).
    def update_bytes_and_messages_in(self, topic: str, num_bytes: int, num_messages: int) -> None:
        t = self.topic_stats(topic)
        t.bytes_in_rate.mark(num_bytes)
        t.messages_in_rate.mark(num_messages)
        self.all_topics_stats.bytes_in_rate.mark(num_bytes)
        self.all_topics_stats.messages_in_rate.mark(num_messages)

    # Kafka: BrokerTopicStats.updateBytesOut (followers' fetches count as replication bytes there)
    def update_bytes_out(self, topic: str, is_follower: bool, value: int) -> None:
        if is_follower:
            self.all_topics_stats.replication_bytes_out_rate.mark(value)
            return
        self.topic_stats(topic).bytes_out_rate.mark(value)
        self.all_topics_stats.bytes_out_rate.mark(value)

    # Kafka: BrokerTopicStats.updateReplicationBytesIn -- what this broker's replica fetchers appended
    def update_replication_bytes_in(self, value: int) -> None:
        self.all_topics_stats.replication_bytes_in_rate.mark(value)

    def reset(self) -> None:
        with self._lock:
            self.stats.clear()
            self.all_topics_stats = BrokerTopicMetrics(None)


BROKER_TOPIC_STATS = BrokerTopicStats()

"""Mirrors Kafka 2.4: core/src/main/scala/kafka/cluster/Replica.scala

Classes: Replica -- the leader's view of one *remote* follower (in 2.4 the local replica is just
the Log). A follower's fetch offset decides whether it is in sync and moves the high watermark.
"""
from __future__ import annotations


class Replica:
    """Kafka: Replica(brokerId, topicPartition)."""

    def __init__(self, broker_id: int, topic_partition):
        self.broker_id = broker_id
        self.topic_partition = topic_partition
        self.log_end_offset = -1
        self.log_start_offset = -1
        self.last_caught_up_time_ms = 0
        self.last_fetch_time_ms = 0
        self.last_sent_high_watermark = -1

    # Kafka: Replica.updateFetchState
    def update_fetch_state(self, follower_fetch_offset: int, follower_start_offset: int, follower_fetch_time_ms: int,
                           leader_end_offset: int, last_sent_high_watermark: int) -> None:
        if follower_fetch_offset >= leader_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, follower_fetch_time_ms)
        self.log_end_offset = follower_fetch_offset
        self.log_start_offset = follower_start_offset
        self.last_fetch_time_ms = follower_fetch_time_ms
        self.last_sent_high_watermark = last_sent_high_watermark

    # Kafka: Replica.resetLastCaughtUpTime
    def reset_last_caught_up_time(self, now_ms: int) -> None:
        self.last_caught_up_time_ms = now_ms

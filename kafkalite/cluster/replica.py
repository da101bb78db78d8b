"""Mirrors Kafka 2.4: core/src/main/scala/kafka/cluster/Replica.scala

Classes: Replica -- the leader's view of one *remote* follower (in 2.4 the local replica is just
the Log). Each follower fetch tells the leader the follower's log end offset (its fetch offset);
from that the leader decides whether the follower is caught up (S32), which moves the high
watermark and the ISR.
"""
from __future__ import annotations

from kafkalite.log.log_offset_metadata import LogOffsetMetadata

UNKNOWN_OFFSET = -1   # Kafka: Log.UnknownOffset


class Replica:
    """Kafka: Replica(brokerId, topicPartition)."""

    def __init__(self, broker_id: int, topic_partition):
        self.broker_id = broker_id
        self.topic_partition = topic_partition
        self.log_end_offset_metadata = LogOffsetMetadata(UNKNOWN_OFFSET)
        self.log_start_offset = UNKNOWN_OFFSET
        # the leader's log end offset and the time when the last fetch from this follower arrived
        self.last_fetch_leader_log_end_offset = 0
        self.last_fetch_time_ms = 0
        # the largest time t such that the follower's latest fetch offset >= the leader's LEO at time t
        self.last_caught_up_time_ms = 0
        # the high watermark the leader sent in its answer to the follower's last fetch (KIP-392)
        self.last_sent_high_watermark = 0

    @property
    def log_end_offset(self) -> int:
        return self.log_end_offset_metadata.message_offset

    # Kafka: Replica.updateFetchState -- a follower fetching at offset >= the leader's LEO is caught up now;
    # one fetching at >= the LEO the leader had at its previous fetch was caught up at that previous fetch
    # (under a steady trickle of produces the follower is always one produce behind, yet never lagging).
    def update_fetch_state(self, follower_fetch_offset_metadata: LogOffsetMetadata, follower_start_offset: int,
                           follower_fetch_time_ms: int, leader_end_offset: int, last_sent_high_watermark: int) -> None:
        offset = follower_fetch_offset_metadata.message_offset
        if offset >= leader_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, follower_fetch_time_ms)
        elif offset >= self.last_fetch_leader_log_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, self.last_fetch_time_ms)
        self.log_start_offset = follower_start_offset
        self.log_end_offset_metadata = follower_fetch_offset_metadata
        self.last_fetch_leader_log_end_offset = leader_end_offset
        self.last_fetch_time_ms = follower_fetch_time_ms
        self.last_sent_high_watermark = last_sent_high_watermark

    # Kafka: Replica.resetLastCaughtUpTime -- on becoming leader
    def reset_last_caught_up_time(self, cur_leader_log_end_offset: int, cur_time_ms: int,
                                  last_caught_up_time_ms: int) -> None:
        self.last_fetch_leader_log_end_offset = cur_leader_log_end_offset
        self.last_fetch_time_ms = cur_time_ms
        self.last_caught_up_time_ms = last_caught_up_time_ms

    def __repr__(self) -> str:
        return (f"Replica(replicaId={self.broker_id}, topic={self.topic_partition.topic}, "
                f"partition={self.topic_partition.partition}, lastCaughtUpTimeMs={self.last_caught_up_time_ms}, "
                f"logStartOffset={self.log_start_offset}, logEndOffset={self.log_end_offset}, "
                f"lastFetchLeaderLogEndOffset={self.last_fetch_leader_log_end_offset}, "
                f"lastFetchTimeMs={self.last_fetch_time_ms}, lastSentHighWatermark={self.last_sent_high_watermark})")

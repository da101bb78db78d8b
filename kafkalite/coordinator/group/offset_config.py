"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/group/OffsetConfig.scala

Classes: OffsetConfig -- the ``offsets.*`` broker settings the group metadata manager works with,
with Kafka's defaults.
"""
from __future__ import annotations

import attrs


@attrs.frozen
class OffsetConfig:
    """Kafka: OffsetConfig -- the offsets.* settings the manager needs (Kafka's defaults)."""

    max_metadata_size: int = 4096
    load_buffer_size: int = 5 * 1024 * 1024
    offsets_retention_ms: int = 7 * 24 * 60 * 60 * 1000
    offsets_retention_check_interval_ms: int = 600_000
    offsets_topic_num_partitions: int = 50
    offsets_topic_segment_bytes: int = 100 * 1024 * 1024
    offsets_topic_replication_factor: int = 3
    offset_commit_timeout_ms: int = 5000
    offset_commit_required_acks: int = -1

    # Kafka: GroupCoordinator.offsetConfig(config)
    @classmethod
    def from_kafka_config(cls, config) -> "OffsetConfig":
        def get(name, default):
            try:
                value = config.get(name)
            except KeyError:
                return default
            return default if value is None else value
        return cls(max_metadata_size=get("offset.metadata.max.bytes", 4096),
                   load_buffer_size=get("offsets.load.buffer.size", 5 * 1024 * 1024),
                   offsets_retention_ms=get("offsets.retention.minutes", 7 * 24 * 60) * 60_000,
                   offsets_retention_check_interval_ms=get("offsets.retention.check.interval.ms", 600_000),
                   offsets_topic_num_partitions=get("offsets.topic.num.partitions", 50),
                   offsets_topic_segment_bytes=get("offsets.topic.segment.bytes", 100 * 1024 * 1024),
                   offsets_topic_replication_factor=get("offsets.topic.replication.factor", 3),
                   offset_commit_timeout_ms=get("offsets.commit.timeout.ms", 5000),
                   offset_commit_required_acks=get("offsets.commit.required.acks", -1))

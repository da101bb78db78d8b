"""Mirrors Kafka 4.0: group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupCoordinatorConfig.java
(the consumer group keys)

Classes: ConsumerGroupConfig.

Its own module (it was in consumer_group_manager.py) so that the group coordinator can read its configuration at
start-up without loading the consumer-group code (KIP-848), which it loads on first use (issue 18).
Left out: the classic-group and offsets keys, which GroupConfig and OffsetConfig hold.
"""
from __future__ import annotations

import attrs


@attrs.frozen
class ConsumerGroupConfig:
    """Kafka 4.0: GroupCoordinatorConfig (the consumer group keys)."""

    rebalance_protocols: tuple[str, ...] = ("classic", "consumer")
    session_timeout_ms: int = 45_000
    heartbeat_interval_ms: int = 5_000
    assignors: tuple[str, ...] = ("uniform", "range")

    @classmethod
    def from_kafka_config(cls, config) -> "ConsumerGroupConfig":
        return cls(tuple(config.get("group.coordinator.rebalance.protocols")),
                   config.get("group.consumer.session.timeout.ms"),
                   config.get("group.consumer.heartbeat.interval.ms"),
                   tuple(config.get("group.consumer.assignors")))

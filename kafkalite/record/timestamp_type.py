"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/TimestampType.java

Classes: TimestampType -- what a batch's timestamps mean: the producer's clock (CreateTime) or
the broker's clock at append (LogAppendTime, bit 3 of the batch attributes).
"""
from __future__ import annotations

import enum


class TimestampType(enum.Enum):
    """Kafka: TimestampType. ``str()`` is Kafka's display name, used by kafka-dump-log."""

    NO_TIMESTAMP_TYPE = (-1, "NoTimestampType")
    CREATE_TIME = (0, "CreateTime")
    LOG_APPEND_TIME = (1, "LogAppendTime")

    def __init__(self, id_: int, display: str):
        self.id = id_
        self.display = display

    def __str__(self) -> str:
        return self.display

    # Kafka: TimestampType.forName
    @classmethod
    def for_name(cls, name: str) -> "TimestampType":
        for t in cls:
            if t.display == name:
                return t
        raise ValueError(f"Invalid timestamp type {name}")

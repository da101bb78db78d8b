"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/RecordBatch.java

Classes: RecordBatch -- the constants every batch format shares (Kafka's interface constants).
Kafka's interface also declares the batch accessors; kafkalite has one batch format (v2), so the
accessors live on ``DefaultRecordBatch`` only. Magic 0 and 1 (LegacyRecordBatch) are left out.
"""
from __future__ import annotations


class RecordBatch:
    """Kafka: RecordBatch (constants only)."""

    MAGIC_VALUE_V0 = 0
    MAGIC_VALUE_V1 = 1
    MAGIC_VALUE_V2 = 2
    CURRENT_MAGIC_VALUE = MAGIC_VALUE_V2
    NO_TIMESTAMP = -1
    NO_PARTITION_LEADER_EPOCH = -1
    NO_PRODUCER_ID = -1
    NO_PRODUCER_EPOCH = -1
    NO_SEQUENCE = -1

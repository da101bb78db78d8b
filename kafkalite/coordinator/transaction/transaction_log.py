"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/transaction/TransactionLog.scala

Classes: TxnKey, TransactionLogKey, TransactionLogValue, TransactionLogPartitions (the record schemas);
functions key_to_bytes, value_to_bytes, read_txn_record_key, read_txn_record_value.

A transactional id's state is one record of the compacted ``__transaction_state`` topic, in the
partition ``abs(transactionalId.hashCode) % transaction.state.log.num.partitions``:
- key: int16 version 0, then ``transactional_id`` (STRING);
- value: int16 version 0, then ``producer_id`` (INT64), ``producer_epoch`` (INT16),
  ``transaction_timeout`` (INT32), ``transaction_status`` (INT8, TransactionState.byte),
  ``transaction_partitions`` (nullable array of {topic STRING, partition_ids [INT32]}; null when Empty),
  ``transaction_entry_timestamp`` (INT64, last update) and ``transaction_start_timestamp`` (INT64).
A null value (tombstone) removes an expired transactional id.
Writes always use acks=-1 and no compression (Kafka: EnforcedRequiredAcks, EnforcedCompressionType).

Era notes: 2.4 declared the schemas as ``Schema`` objects in TransactionLog; here they use kafkalite's
schema DSL as ``@message(kind="data")`` classes, like the group records. Kafka 3.x's flexible v1 value
(tagged fields) is not written.
Left out: ``formatRecordKeyAndValue`` (the dump-log formatter for this topic).
"""
from __future__ import annotations

import struct as _struct

import attrs

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.transaction.transaction_metadata import (Empty, TransactionMetadata, TransactionState,
                                                                    TxnTransitMetadata)
from kafkalite.protocol.schema import INT8, INT16, INT32, INT64, STRING, array, field, message, read, struct, write

DEFAULT_NUM_PARTITIONS = 50
DEFAULT_SEGMENT_BYTES = 100 * 1024 * 1024
DEFAULT_REPLICATION_FACTOR = 3
DEFAULT_MIN_IN_SYNC_REPLICAS = 2
DEFAULT_LOAD_BUFFER_SIZE = 5 * 1024 * 1024
ENFORCED_REQUIRED_ACKS = -1   # Kafka: TransactionLog.EnforcedRequiredAcks
KEY_CURRENT_VERSION = 0
VALUE_CURRENT_VERSION = 0
_VERSION = _struct.Struct(">h")


@message(kind="data", valid="0")
class TransactionLogKey:
    transactional_id: str = field(STRING, "0")


@struct
class TransactionLogPartitions:
    topic: str = field(STRING, "0+")
    partition_ids: list[int] = field(array(INT32), "0+")


@message(kind="data", valid="0")
class TransactionLogValue:
    producer_id: int = field(INT64, "0")
    producer_epoch: int = field(INT16, "0")
    transaction_timeout: int = field(INT32, "0")
    transaction_status: int = field(INT8, "0")
    transaction_partitions: list[TransactionLogPartitions] | None = field(
        array(TransactionLogPartitions), "0", nullable="0")
    transaction_entry_timestamp: int = field(INT64, "0")
    transaction_start_timestamp: int = field(INT64, "0")


@attrs.frozen
class TxnKey:
    """Kafka: TxnKey(version, transactionalId)."""

    version: int
    transactional_id: str


# Kafka: TransactionLog.keyToBytes
def key_to_bytes(transactional_id: str) -> bytes:
    return _VERSION.pack(KEY_CURRENT_VERSION) + write(TransactionLogKey(transactional_id=transactional_id),
                                                      KEY_CURRENT_VERSION)


# Kafka: TransactionLog.valueToBytes -- Empty carries no partitions (a null array)
def value_to_bytes(txn: TxnTransitMetadata) -> bytes:
    if txn.txn_state is Empty:
        if txn.topic_partitions:
            raise RuntimeError(f"Transaction is not expected to have any partitions since its state is "
                               f"{txn.txn_state}: {txn}")
        partitions = None
    else:
        by_topic: dict[str, list[int]] = {}
        for tp in sorted(txn.topic_partitions):
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        partitions = [TransactionLogPartitions(topic=t, partition_ids=ps) for t, ps in by_topic.items()]
    value = TransactionLogValue(producer_id=txn.producer_id, producer_epoch=txn.producer_epoch,
                                transaction_timeout=txn.txn_timeout_ms, transaction_status=txn.txn_state.byte,
                                transaction_partitions=partitions,
                                transaction_entry_timestamp=txn.txn_last_update_timestamp,
                                transaction_start_timestamp=txn.txn_start_timestamp)
    return _VERSION.pack(VALUE_CURRENT_VERSION) + write(value, VALUE_CURRENT_VERSION)


def _version_of(buf, what: str) -> int:
    if buf is None or len(buf) < 2:
        raise RuntimeError(f"Transaction log {what} of {0 if buf is None else len(buf)} bytes is too short")
    return _VERSION.unpack_from(buf, 0)[0]


# Kafka: TransactionLog.readTxnRecordKey
def read_txn_record_key(buf) -> TxnKey:
    version = _version_of(buf, "key")
    if version != KEY_CURRENT_VERSION:
        raise RuntimeError(f"Unknown version {version} from the transaction log message")
    key, _ = read(TransactionLogKey, version, buf, 2)
    return TxnKey(version, key.transactional_id)


# Kafka: TransactionLog.readTxnRecordValue -- None for a tombstone
def read_txn_record_value(transactional_id: str, buf) -> TransactionMetadata | None:
    if buf is None:
        return None
    version = _version_of(buf, "value")
    if version != VALUE_CURRENT_VERSION:
        raise RuntimeError(f"Unknown version {version} from the transaction log message value")
    v, _ = read(TransactionLogValue, version, buf, 2)
    state = TransactionState.byte_to_state(v.transaction_status)
    partitions = set()
    if state is not Empty:
        for p in v.transaction_partitions or []:
            partitions.update(TopicPartition(p.topic, i) for i in p.partition_ids)
    return TransactionMetadata(transactional_id, v.producer_id, v.producer_epoch, v.transaction_timeout, state,
                               partitions, v.transaction_start_timestamp, v.transaction_entry_timestamp)

"""Kafka: LogValidatorTest (testCompactedTopicWithoutKey..., testInvalidCreateTime*V2, testLogAppendTimeNonCompressedV2
...) for magic 2 batches, and ReplicaManagerTest's failed appends: the per-record checks of Kafka 2.4's
LogValidator.validateRecord, raised as a RecordValidationException that names the record (KIP-467), and what
ReplicaManager.appendToLocalLog answers for each kind of failed partition (processFailedRecord).

kafkalite decodes a magic 2 batch on the produce path only where a record can fail (a compacted topic, or a
``message.timestamp.difference.max.ms`` below its default); the last test keeps the default path free of it."""
import struct

import crc32c
import pytest

from kafkalite.common.record_validation_exception import RecordError, RecordValidationException
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.log import Log
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_validator import LogValidator
from kafkalite.protocol.errors import Errors, KafkaException
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.default_record_batch import (CRC_OFFSET, LAST_OFFSET_DELTA_OFFSET, MAX_TIMESTAMP_OFFSET,
                                                   RECORDS_COUNT_OFFSET, RECORDS_OFFSET)
from kafkalite.record.memory_records import MemoryRecords, MemoryRecordsBuilder, SimpleRecord
from kafkalite.record.timestamp_type import TimestampType
from kafkalite.utils.time import MockTime

NOW = 1_600_000_000_000
DAY = 86_400_000


def make_log(tmp_path, **props):
    return Log(str(tmp_path / "topic-0"), LogConfig(props), time=MockTime(now_ms=NOW),
               topic_partition=TopicPartition("topic", 0))


def batch(*records, compression=CompressionType.NONE):
    return MemoryRecords.with_records(*[SimpleRecord(ts, key, value) for ts, key, value in records],
                                      compression_type=compression)


def refused(log, records, error, batch_index, match):
    with pytest.raises(RecordValidationException) as caught:
        log.append_as_leader(records, 0)
    assert caught.value.invalid_exception.error is error
    assert caught.value.record_errors == [RecordError(batch_index)]
    assert match in str(caught.value.invalid_exception)
    assert log.log_end_offset == 0 and log.size == 0, "a refused batch reached the log"


@pytest.mark.parametrize("compression", [CompressionType.NONE, CompressionType.GZIP])
def test_a_compacted_topic_refuses_a_record_without_a_key(tmp_path, compression):
    log = make_log(tmp_path, **{"cleanup.policy": "compact"})
    keyless_third = batch((NOW, b"a", b"1"), (NOW, b"b", b"2"), (NOW, None, b"3"), compression=compression)
    refused(log, keyless_third, Errors.INVALID_RECORD, 2, "Compacted topic cannot accept message without key")
    log.append_as_leader(batch((NOW, b"a", b"1"), (NOW, b"b", None), compression=compression), 0)   # a tombstone
    assert log.log_end_offset == 2


def test_a_compact_delete_topic_refuses_it_too_and_a_delete_topic_does_not(tmp_path):
    refused(make_log(tmp_path / "cd", **{"cleanup.policy": "compact,delete"}), batch((NOW, None, b"v")),
            Errors.INVALID_RECORD, 0, "without key")
    log = make_log(tmp_path / "d")
    log.append_as_leader(batch((NOW, None, b"v")), 0)
    assert log.log_end_offset == 1


@pytest.mark.parametrize("compression", [CompressionType.NONE, CompressionType.LZ4])
def test_every_records_timestamp_is_checked_not_only_the_batch_maximum(tmp_path, compression):
    log = make_log(tmp_path, **{"message.timestamp.difference.max.ms": DAY})
    # the batch's max timestamp (NOW) is in range; its second record is two days old
    old_second = batch((NOW, None, b"a"), (NOW - 2 * DAY, None, b"b"), (NOW, None, b"c"), compression=compression)
    refused(log, old_second, Errors.INVALID_TIMESTAMP, 1, "out of range")
    log.append_as_leader(batch((NOW - DAY + 1, None, b"a"), (NOW + DAY - 1, None, b"b"), compression=compression), 0)
    assert log.log_end_offset == 2


def test_a_log_append_time_topic_does_not_check_create_times(tmp_path):
    log = make_log(tmp_path, **{"message.timestamp.difference.max.ms": DAY,
                                "message.timestamp.type": "LogAppendTime"})
    log.append_as_leader(batch((NOW - 10 * DAY, None, b"a")), 0)
    assert log.log_end_offset == 1


def test_a_producers_log_append_time_names_the_first_record(tmp_path):
    builder = MemoryRecords.builder(timestamp_type=TimestampType.LOG_APPEND_TIME, log_append_time=NOW)
    builder.append(NOW, None, b"a", ())
    refused(make_log(tmp_path), builder.build(), Errors.INVALID_TIMESTAMP, 0, "LogAppendTime")


def with_max_timestamp(records: MemoryRecords, max_timestamp: int) -> MemoryRecords:
    """The batch with its header's max timestamp replaced (and its CRC made right again)."""
    buf = bytearray(records.buffer)
    struct.pack_into(">q", buf, MAX_TIMESTAMP_OFFSET, max_timestamp)
    return with_crc(buf)


def test_a_validated_batch_gets_its_records_max_timestamp(tmp_path):
    # Kafka writes the records' max timestamp into the header (setMaxTimestamp) of every batch it validates
    log = make_log(tmp_path, **{"cleanup.policy": "compact"})
    lying = with_max_timestamp(batch((NOW - 5, b"k", b"a"), (NOW - 3, b"k", b"b")), NOW + 1000)
    log.append_as_leader(lying, 0)
    [stored] = list(log.active_segment.log.batches())
    assert stored.max_timestamp == NOW - 3
    stored.ensure_valid()


def with_crc(buf: bytearray) -> MemoryRecords:
    struct.pack_into(">I", buf, CRC_OFFSET, crc32c.crc32c(bytes(buf[CRC_OFFSET + 4:])))
    return MemoryRecords(buf)


def test_records_that_do_not_parse_are_an_invalid_record(tmp_path):
    # Kafka: DefaultRecord.readPartiallyFrom -> InvalidRecordException ("Found invalid record structure", ...)
    log = make_log(tmp_path, **{"cleanup.policy": "compact"})
    buf = bytearray(batch((NOW, b"k", b"value")).buffer)
    buf[RECORDS_OFFSET] = 0x7f   # the first record's length varint: far past the batch's end
    with pytest.raises(Errors.INVALID_RECORD.exception_class, match="record size"):
        log.append_as_leader(with_crc(buf), 0)
    two_claimed = bytearray(batch((NOW, b"k", b"value")).buffer)
    struct.pack_into(">i", two_claimed, RECORDS_COUNT_OFFSET, 2)
    struct.pack_into(">i", two_claimed, LAST_OFFSET_DELTA_OFFSET, 1)
    with pytest.raises(Errors.INVALID_RECORD.exception_class):
        log.append_as_leader(with_crc(two_claimed), 0)
    assert log.log_end_offset == 0


def test_a_payload_that_does_not_decompress_is_a_kafka_exception(tmp_path):
    # Kafka: DefaultRecordBatch's compressed iterator -> KafkaException("Failed to decompress record stream"),
    # which the ReplicaManager answers UNKNOWN_SERVER_ERROR
    log = make_log(tmp_path, **{"cleanup.policy": "compact"})
    buf = bytearray(batch((NOW, b"k", b"value" * 20), compression=CompressionType.GZIP).buffer)
    buf[RECORDS_OFFSET + 12:RECORDS_OFFSET + 20] = b"\xff" * 8
    with pytest.raises(KafkaException, match="decompress"):
        log.append_as_leader(with_crc(buf), 0)
    assert log.log_end_offset == 0


def test_compressed_inner_offsets_must_count_from_zero(tmp_path):
    log = make_log(tmp_path, **{"cleanup.policy": "compact"})
    builder = MemoryRecordsBuilder(compression_type=CompressionType.GZIP, base_offset=0)
    builder.append_with_offset(0, NOW, b"a", b"1")
    builder.append_with_offset(5, NOW, b"b", b"2")
    buf = bytearray(builder.build().buffer)
    struct.pack_into(">i", buf, LAST_OFFSET_DELTA_OFFSET, 1)   # the header agrees with its count of 2
    refused(log, with_crc(buf), Errors.INVALID_RECORD, 1, "does not have incremental offsets")


def test_a_header_key_that_is_not_utf8_is_kept(tmp_path):
    # Kafka reads header keys with Utils.utf8, which replaces what is not UTF-8; nothing is refused
    log = make_log(tmp_path, **{"cleanup.policy": "compact"})
    buf = bytearray(MemoryRecords.with_records(SimpleRecord(NOW, b"k", b"v", (("HK", b"h"),))).buffer)
    at = buf.index(b"HK", RECORDS_OFFSET)
    buf[at:at + 2] = b"\xff\xfe"
    log.append_as_leader(with_crc(buf), 0)
    assert log.log_end_offset == 1
    [record] = list(log.active_segment.log.batches())[0]
    assert record.headers == [("\ufffd\ufffd", b"h")]


def test_on_a_compacted_topic_the_key_is_checked_before_the_timestamp_type(tmp_path):
    # validateRecord: validateKey, then validateTimestamp (which refuses a producer's LogAppendTime)
    builder = MemoryRecords.builder(timestamp_type=TimestampType.LOG_APPEND_TIME, log_append_time=NOW)
    builder.append(NOW, None, b"a", ())
    refused(make_log(tmp_path, **{"cleanup.policy": "compact"}), builder.build(), Errors.INVALID_RECORD, 0,
            "without key")


def test_the_default_produce_path_decodes_no_record(tmp_path, monkeypatch):
    # DESIGN §5: with the defaults no per-record check can fail, so no record is read
    def decode(*args):
        raise AssertionError("a record was decoded on the default produce path")
    monkeypatch.setattr(LogValidator, "validate_records_in_place", staticmethod(decode))
    log = make_log(tmp_path)
    log.append_as_leader(batch((NOW - 100 * DAY, None, b"a"), (NOW, b"k", b"b")), 0)
    assert log.log_end_offset == 2
    with pytest.raises(AssertionError, match="decoded"):
        make_log(tmp_path / "c", **{"cleanup.policy": "compact"}).append_as_leader(batch((NOW, b"k", b"v")), 0)

"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/LogValidator.scala

Classes: LogValidator -- the cases of ``validateMessagesAndAssignOffsets`` that rewrite records: a produce
request of version 0-2 carrying message format v0 or v1 (Kafka 0.8-0.10 clients), converted to one magic 2
batch before it is appended, as Kafka does for topics whose ``message.format.version`` is 0.11 or later (the
only format kafkalite writes); and the record loop of the v2 in-place cases (``validate_records_in_place``),
which Log runs only where a record can fail (a compacted topic, a ``message.timestamp.difference.max.ms``
below its default). A record that fails is named in a RecordValidationException (KIP-467).

How it fits in Log.append: ``Log._append`` sees a magic 0/1 first entry and hands the records here; what comes
back is a magic 2 batch with offsets 0..n-1, which then takes the ordinary v2 path of log.py (offsets assigned
in place, LogAppendTime stamped in place, producer state, append). The v2 path comes here only for
``validate_records_in_place``: elsewhere a magic 2 batch is not decoded on the produce path (DESIGN §5).

What is checked, as in Kafka (analyzeAndValidateRecords' shallow part, then validateBatch / validateRecord):
- each entry's size against ``max.message.bytes`` (MESSAGE_TOO_LARGE) and its CRC-32 (CORRUPT_MESSAGE);
- every entry has the first entry's magic (INVALID_RECORD);
- a compressed request is one wrapper (INVALID_RECORD), whose inner messages have valid CRCs (CORRUPT_MESSAGE),
  the wrapper's magic, no compression of their own, and -- magic 1 -- relative offsets 0, 1, 2, ... (all
  INVALID_RECORD);
- CreateTime timestamps within ``message.timestamp.difference.max.ms`` of now (magic 0 has none), and a
  producer never sets LogAppendTime (INVALID_TIMESTAMP); a compacted topic needs keys (INVALID_RECORD).
What is built (convertAndAssignOffsetsNonCompressed / buildRecordsAndAssignOffsets): one magic 2 batch with
every record, offsets and keys and values kept, timestamps kept (magic 0: NO_TIMESTAMP), no producer id, and
the target codec: the topic's ``compression.type``, or with ``producer`` (the default) the request's codec.
Era notes: Kafka 2.4 runs this with the offsets assigned at once, under the log's lock; kafkalite converts
before taking the lock and lets the v2 path assign offsets, with the same result. Per-record errors
(RecordValidationException's record_errors, Produce v8) are not reported for legacy requests: they are
v0-2 requests, whose responses have no such field.
Left out: the rest of the v2 in-place cases (they live in Log, see log.py); where no per-record check is on,
the producer's max timestamp is trusted, where Kafka writes the records' own into the header; writing the old
formats (kafkalite's logs are magic 2 only, so message.format.version < 0.11 is not supported).
"""
from __future__ import annotations

import struct

from kafkalite.common.record_validation_exception import RecordError, RecordValidationException
from kafkalite.protocol.errors import (CorruptRecordException, Errors, InvalidRecordException,
                                       UnsupportedCompressionTypeException)
from kafkalite.record.abstract_legacy_record_batch import legacy_batches
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.memory_records import MemoryRecords, MemoryRecordsBuilder
from kafkalite.record.record_batch import RecordBatch
from kafkalite.record.timestamp_type import TimestampType


# Kafka: BrokerCompressionCodec.getTargetCompressionCodec -- ``producer`` keeps what the producer used
def target_compression_type(compression_type_config: str, source: CompressionType) -> CompressionType:
    if compression_type_config == "producer":
        return source
    if compression_type_config == "uncompressed":
        return CompressionType.NONE
    return CompressionType.for_name(compression_type_config)


class LogValidator:
    """Kafka: LogValidator (the Scala object): static checks and conversions of produced records."""

    # Kafka: LogValidator.validateMessagesAndAssignOffsets -- the magic 0/1 cases: validate, then convert to
    # one magic 2 batch (base offset 0; the caller assigns the real offsets)
    @staticmethod
    def validate_messages_and_assign_offsets(records: MemoryRecords, topic_partition, now: int, config
                                             ) -> MemoryRecords:
        try:
            return LogValidator._validate_and_convert(records, topic_partition, now, config)
        except (struct.error, ValueError) as e:
            # a message whose CRC holds but whose fields do not (a length past its end, codec id 5-7): Kafka
            # fails here with a BufferUnderflowException / IllegalArgumentException; kafkalite names it corrupt
            raise Errors.CORRUPT_MESSAGE.exception(f"Malformed message in topic partition {topic_partition}: {e}") \
                from None

    @staticmethod
    def _validate_and_convert(records: MemoryRecords, topic_partition, now: int, config) -> MemoryRecords:
        entries, source_codec = LogValidator.analyze_legacy_entries(records, topic_partition, config.max_message_size)
        target_codec = target_compression_type(config.compression_type, source_codec)
        timestamp_type = TimestampType.for_name(config.message_timestamp_type)
        diff_max_ms = config.message_timestamp_difference_max_ms
        first_batch = LogValidator.get_first_batch_and_maybe_validate_no_more_batches(entries, source_codec)
        non_compressed = source_codec is CompressionType.NONE and target_codec is CompressionType.NONE
        validated = []
        expected_inner_offset = 0
        for batch in entries:
            LogValidator.validate_batch(topic_partition, first_batch, batch)
            try:
                deep_records = list(batch)       # a wrapper's inner messages (decompressed), else the entry itself
            except CorruptRecordException as e:
                raise Errors.CORRUPT_MESSAGE.exception(f"{e} in topic partition {topic_partition}.") from None
            except InvalidRecordException as e:
                raise Errors.INVALID_RECORD.exception(f"{e} in topic partition {topic_partition}.") from None
            for batch_index, record in enumerate(deep_records):
                LogValidator.validate_record(batch, topic_partition, record, batch_index, now, timestamp_type,
                                             diff_max_ms, config.compact)
                if not non_compressed and batch.magic > RecordBatch.MAGIC_VALUE_V0:
                    # inner records offset should always be continuous (validateMessagesAndAssignOffsetsCompressed)
                    if record.offset != expected_inner_offset:
                        raise LogValidator._inner_offset_error(record, expected_inner_offset, topic_partition,
                                                               batch_index)
                    expected_inner_offset += 1
                validated.append(record)
        return LogValidator.build_records_and_assign_offsets(target_codec, validated)

    # Kafka: Log.analyzeAndValidateRecords (the shallow checks, for magic 0/1 entries) -- the complete entries
    # and the source codec (the last compressed entry's, as Kafka's LogAppendInfo.sourceCodec)
    @staticmethod
    def analyze_legacy_entries(records: MemoryRecords, topic_partition, max_message_size: int):
        entries, source_codec = [], CompressionType.NONE
        try:
            for entry in legacy_batches(records.buffer):
                size = entry.size_in_bytes
                if size > max_message_size:
                    raise Errors.MESSAGE_TOO_LARGE.exception(
                        f"The record batch size in the append to {topic_partition} is {size} bytes which exceeds "
                        f"the maximum configured value of {max_message_size}.")
                entry.ensure_valid()
                if entry.compression_type is not CompressionType.NONE:
                    source_codec = entry.compression_type
                entries.append(entry)
        except CorruptRecordException as e:
            raise Errors.CORRUPT_MESSAGE.exception(f"Record is corrupt in topic partition {topic_partition}: {e}") \
                from None
        if not entries:
            raise Errors.INVALID_RECORD.exception(f"Produce request to {topic_partition} carries no complete message")
        if source_codec is CompressionType.ZSTD:
            raise UnsupportedCompressionTypeException("ZStandard compression is not supported for magic values "
                                                      "below 2")
        return entries, source_codec

    # Kafka: LogValidator.getFirstBatchAndMaybeValidateNoMoreBatches
    @staticmethod
    def get_first_batch_and_maybe_validate_no_more_batches(entries: list, source_codec: CompressionType):
        # compressed messages come as one wrapper; uncompressed old-format messages are each their own "batch"
        if source_codec is not CompressionType.NONE and len(entries) > 1:
            raise Errors.INVALID_RECORD.exception("Compressed outer record has more than one batch")
        return entries[0]

    # Kafka: LogValidator.validateBatch (what applies to magic 0/1: producer fields cannot exist there)
    @staticmethod
    def validate_batch(topic_partition, first_batch, batch) -> None:
        if first_batch.magic != batch.magic:
            raise Errors.INVALID_RECORD.exception(
                f"Batch magic {batch.magic} is not the same as the first batch'es magic byte {first_batch.magic} in "
                f"topic partition {topic_partition}.")

    # Kafka: LogValidator.validateRecord
    @staticmethod
    def validate_record(batch, topic_partition, record, batch_index: int, now: int, timestamp_type: TimestampType,
                        timestamp_diff_max_ms: int, compacted_topic: bool) -> None:
        if not record.has_magic(batch.magic):
            raise RecordValidationException(Errors.INVALID_RECORD.exception(
                f"Log record {record!r}'s magic does not match outer magic {batch.magic} in topic partition "
                f"{topic_partition}."), [RecordError(batch_index)])
        # the inner messages of a wrapper carry their own CRC; an uncompressed entry's was checked shallowly
        if batch.magic <= RecordBatch.MAGIC_VALUE_V1 and batch.is_compressed():
            try:
                record.ensure_valid()
            except CorruptRecordException as e:
                raise Errors.CORRUPT_MESSAGE.exception(f"{e} in topic partition {topic_partition}.") from None
        LogValidator.validate_key(record, batch_index, topic_partition, compacted_topic)
        LogValidator.validate_timestamp(batch, record, batch_index, now, timestamp_type, timestamp_diff_max_ms)

    # Kafka: LogValidator.validateKey
    @staticmethod
    def validate_key(record, batch_index: int, topic_partition, compacted_topic: bool) -> None:
        if compacted_topic and not record.has_key():
            raise RecordValidationException(Errors.INVALID_RECORD.exception(
                f"Compacted topic cannot accept message without key in topic partition {topic_partition}."),
                [RecordError(batch_index)])

    # Kafka: LogValidator.validateTimestamp
    @staticmethod
    def validate_timestamp(batch, record, batch_index: int, now: int, timestamp_type: TimestampType,
                           timestamp_diff_max_ms: int) -> None:
        if timestamp_type is TimestampType.CREATE_TIME and record.timestamp != RecordBatch.NO_TIMESTAMP and \
                abs(record.timestamp - now) > timestamp_diff_max_ms:
            raise RecordValidationException(Errors.INVALID_TIMESTAMP.exception(
                f"Timestamp {record.timestamp} of message with offset {record.offset} is out of range. The timestamp "
                f"should be within [{now - timestamp_diff_max_ms}, {now + timestamp_diff_max_ms}]"),
                [RecordError(batch_index)])
        if batch.timestamp_type is TimestampType.LOG_APPEND_TIME:
            raise RecordValidationException(Errors.INVALID_TIMESTAMP.exception(
                f"Invalid timestamp type in message {record!r}. Producer should not set timestamp type to "
                "LogAppendTime."), [RecordError(batch_index)])

    # Kafka: LogValidator.assignOffsetsNonCompressed / validateMessagesAndAssignOffsetsCompressed -- their record
    # loop for a magic 2 batch, assigned in place: every record validated (validateRecord), a compressed batch's
    # inner offsets 0, 1, 2, ...; returns the records' max timestamp, which Kafka writes into the header. Records
    # are read partially (skipKeyValueIterator): a record that does not parse is INVALID_RECORD, a payload that
    # does not decompress a KafkaException (UNKNOWN_SERVER_ERROR), as in Kafka. Log calls this only where a
    # per-record check is on (see log.py's _assign_offsets_and_timestamps); elsewhere the produce path reads
    # batch headers only (DESIGN §5)
    @staticmethod
    def validate_records_in_place(batch, topic_partition, now: int, timestamp_type: TimestampType,
                                  timestamp_diff_max_ms: int, compacted_topic: bool) -> int:
        max_timestamp = RecordBatch.NO_TIMESTAMP
        compressed = batch.compression_type is not CompressionType.NONE
        for batch_index, record in enumerate(batch.skip_key_value_iterator()):
            LogValidator.validate_record(batch, topic_partition, record, batch_index, now, timestamp_type,
                                         timestamp_diff_max_ms, compacted_topic)
            if compressed and record.offset != batch_index:
                raise LogValidator._inner_offset_error(record, batch_index, topic_partition, batch_index)
            if record.timestamp > max_timestamp:
                max_timestamp = record.timestamp
        return max_timestamp

    @staticmethod
    def _inner_offset_error(record, expected_offset: int, topic_partition, batch_index: int):
        return RecordValidationException(Errors.INVALID_RECORD.exception(
            f"Inner record {record!r} inside the compressed record batch does not have incremental offsets, "
            f"expected offset is {expected_offset} in topic partition {topic_partition}."),
            [RecordError(batch_index)])

    # Kafka: LogValidator.buildRecordsAndAssignOffsets (and convertAndAssignOffsetsNonCompressed, the same
    # build without a codec) -- CreateTime here; a LogAppendTime topic's stamp is set by Log's v2 path
    @staticmethod
    def build_records_and_assign_offsets(compression_type: CompressionType, validated: list) -> MemoryRecords:
        builder = MemoryRecordsBuilder(compression_type=compression_type, base_offset=0)
        for offset, record in enumerate(validated):
            key, value = record.key, record.value
            builder.append_with_offset(offset, record.timestamp, None if key is None else bytes(key),
                                       None if value is None else bytes(value))
        return builder.build()

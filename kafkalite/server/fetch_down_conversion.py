"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaApis.scala (handleFetchRequest's
maybeConvertFetchedData and maybeDownConvertStorageError), kept apart so KafkaApis stays small.

Functions: maybe_convert_fetched_data -- for a Fetch of version 0-3 (a consumer that cannot read magic 2
batches), the partition's records become a LazyDownConversionRecords: magic 0 for v0-1, magic 1 for v2-3
(kafkalite/record/lazy_down_conversion_records.py). The fetch path of v4+ never comes here and keeps
sending log slices with sendfile.

As Kafka does:
- a topic whose ``compression.type`` is zstd cannot be read below Fetch v10: UNSUPPORTED_COMPRESSION_TYPE
  (KafkaApis calls this function for every version below 10; v4-9 need no conversion);
- a topic with ``message.downconversion.enable=false`` answers a consumer UNSUPPORTED_VERSION (a follower is
  served anyway);
- KAFKA_STORAGE_ERROR is reported as NOT_LEADER_FOR_PARTITION to versions that do not know it (<= 5);
- the last stable offset and aborted transactions are not part of these versions.
Left out: the message-conversion metrics (FetchMessageConversionsPerSec, the conversion time histogram).
"""
from __future__ import annotations

import attrs

from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.record.lazy_down_conversion_records import LazyDownConversionRecords
from kafkalite.record.record_batch import RecordBatch

MAX_DOWN_CONVERTED_FETCH_VERSION = 3    # Fetch v4 is the first whose consumers read magic 2
MIN_ZSTD_FETCH_VERSION = 10             # Kafka: FetchRequest v10 is the first that may carry zstd batches


# Kafka 2.7: KafkaApis.maybeDownConvertStorageError -- 2.4 does the same in FetchResponse.toStruct (and for
# Produce v0-3 in ProduceResponse.toStruct, see KafkaApis.produce_response): clients that old do not know
# KAFKA_STORAGE_ERROR and would not retry; NOT_LEADER_FOR_PARTITION makes them refresh their metadata
def maybe_down_convert_storage_error(error: Errors, version: int) -> Errors:
    if error is Errors.KAFKA_STORAGE_ERROR and version <= 5:
        return Errors.NOT_LEADER_FOR_PARTITION
    return error


# Kafka: KafkaApis.maybeConvertFetchedData -- ``log_config`` None: the partition is not local (an error answer)
def maybe_convert_fetched_data(tp, data, log_config, version: int, is_from_follower: bool, fetch_offset: int):
    if log_config is not None and log_config.compression_type == "zstd" and version < MIN_ZSTD_FETCH_VERSION:
        return _error_response(data, Errors.UNSUPPORTED_COMPRESSION_TYPE)
    if version > MAX_DOWN_CONVERTED_FETCH_VERSION:   # reads magic 2: only the storage error may need mapping
        error = maybe_down_convert_storage_error(data.error, version)
        return data if error is data.error else attrs.evolve(data, error=error)
    records = data.records
    size = 0 if records is None else records.size_in_bytes() if hasattr(records, "size_in_bytes") else len(records)
    # a log holds magic 2 only, so any bytes need converting (Kafka: hasCompatibleMagic)
    down_convert_magic = None
    if size > 0 and version <= 1:
        down_convert_magic = RecordBatch.MAGIC_VALUE_V0
    elif size > 0 and version <= MAX_DOWN_CONVERTED_FETCH_VERSION:
        down_convert_magic = RecordBatch.MAGIC_VALUE_V1
    error = maybe_down_convert_storage_error(data.error, version)
    if down_convert_magic is None:
        return attrs.evolve(data, error=error, last_stable_offset=-1, aborted_transactions=None)
    if not is_from_follower and log_config is not None and not log_config.message_down_conversion_enable:
        return _error_response(data, Errors.UNSUPPORTED_VERSION)
    try:
        converted = LazyDownConversionRecords(tp, records, down_convert_magic, fetch_offset)
    except ApiException as e:   # a zstd batch (UNSUPPORTED_COMPRESSION_TYPE), a stored batch that fails its CRC
        return _error_response(data, e.error)
    return attrs.evolve(data, error=error, last_stable_offset=-1, aborted_transactions=None,
                        records=converted.records)


# Kafka: KafkaApis.maybeConvertFetchedData's errorResponse
def _error_response(data, error: Errors):
    return attrs.evolve(data, error=error, high_watermark=-1, log_start_offset=-1, last_stable_offset=-1,
                        records=None, aborted_transactions=None)

"""Kafka: KafkaApisTest's down-conversion cases (testDownConversion...): maybe_convert_fetched_data per
partition -- which fetch versions convert, to which magic, and the errors it answers instead."""
import types

from kafkalite.protocol.errors import Errors
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.server.fetch_down_conversion import maybe_convert_fetched_data
from kafkalite.server.replica_manager import FetchPartitionData


def data(records=None, error=Errors.NONE):
    if records is None:
        records = MemoryRecords.with_records(SimpleRecord(1000, b"k", b"v"), SimpleRecord(1001, b"k", b"w"))
    return FetchPartitionData(error, 2, 0, 2, records, aborted_transactions=[])


def config(compression="producer", down_conversion=True):
    return types.SimpleNamespace(compression_type=compression, message_down_conversion_enable=down_conversion)


def test_versions_pick_the_magic():
    for version, magic in ((0, 0), (1, 0), (2, 1), (3, 1)):
        out = maybe_convert_fetched_data("t-0", data(), config(), version, False, 0)
        assert out.error is Errors.NONE and out.records[16] == magic and out.last_stable_offset == -1
        assert out.aborted_transactions is None and out.high_watermark == 2
    empty = maybe_convert_fetched_data("t-0", data(MemoryRecords.EMPTY), config(), 3, False, 0)
    assert empty.records.size_in_bytes() == 0


def test_errors_instead_of_records():
    out = maybe_convert_fetched_data("t-0", data(), config(down_conversion=False), 3, False, 0)
    assert (out.error, out.records, out.high_watermark) == (Errors.UNSUPPORTED_VERSION, None, -1)
    follower = maybe_convert_fetched_data("t-0", data(), config(down_conversion=False), 3, True, 0)
    assert follower.error is Errors.NONE and follower.records[16] == 1     # a follower is served anyway
    assert maybe_convert_fetched_data("t-0", data(), config("zstd"), 3, False, 0).error is \
        Errors.UNSUPPORTED_COMPRESSION_TYPE
    storage = maybe_convert_fetched_data("t-0", data(MemoryRecords.EMPTY, Errors.KAFKA_STORAGE_ERROR), config(), 3,
                                         False, 0)
    assert storage.error is Errors.NOT_LEADER_FOR_PARTITION               # Kafka 2.7's mapping for v <= 5
    corrupt = bytearray(data().records.buffer)
    corrupt[-1] ^= 1
    assert maybe_convert_fetched_data("t-0", data(MemoryRecords(corrupt)), config(), 3, False, 0).error is \
        Errors.CORRUPT_MESSAGE


def test_fetch_v4_to_v9_is_refused_a_zstd_topic_and_otherwise_passed_through():
    # Kafka 2.4 KafkaApis.handleFetchRequest: compressionType == zstd && versionId < 10 -> UNSUPPORTED_COMPRESSION_TYPE
    for version in range(4, 10):
        assert maybe_convert_fetched_data("t-0", data(), config("zstd"), version, False, 0).error is \
            Errors.UNSUPPORTED_COMPRESSION_TYPE
        plain = data()
        assert maybe_convert_fetched_data("t-0", plain, config(), version, False, 0) is plain   # magic 2: sent as is
    storage = maybe_convert_fetched_data("t-0", data(MemoryRecords.EMPTY, Errors.KAFKA_STORAGE_ERROR), config(), 5,
                                         False, 0)
    assert storage.error is Errors.NOT_LEADER_FOR_PARTITION and storage.high_watermark == 2
    for version in (6, 9):
        assert maybe_convert_fetched_data("t-0", data(MemoryRecords.EMPTY, Errors.KAFKA_STORAGE_ERROR), config(),
                                          version, False, 0).error is Errors.KAFKA_STORAGE_ERROR

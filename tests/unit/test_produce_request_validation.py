"""Kafka: ProduceRequestTest (testV3AndAboveShouldContainOnlyOneRecordBatch, testV3AndAboveCannotHaveNoRecordBatches,
testV3AndAboveCannotUseMagicV0/V1, testMixedTransactionalData...) and KafkaApisTest's zstd produce case:
what ProduceRequest.validateRecords refuses per partition before anything reaches the log."""
import struct

import pytest

from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.record.default_record_batch import ATTRIBUTES_OFFSET
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.server.kafka_apis import _validate_produce_records


def batch(codec_id: int = 0) -> bytes:
    buf = bytearray(MemoryRecords.with_records(SimpleRecord(1000, b"k", b"v")).buffer)
    (attributes,) = struct.unpack_from(">h", buf, ATTRIBUTES_OFFSET)
    struct.pack_into(">h", buf, ATTRIBUTES_OFFSET, (attributes & ~0x7) | codec_id)   # only the header is read
    return bytes(buf)


ZSTD = 4


def refusal(version: int, records: bytes):
    """The error validateRecords raises for these records (with its message), or None."""
    try:
        _validate_produce_records(version, MemoryRecords(records))
    except ApiException as e:
        return e.error, str(e)
    return None


@pytest.mark.parametrize("version", range(0, 10))
def test_zstd_needs_produce_v7(version):
    result = refusal(version, batch(ZSTD))
    if 3 <= version < 7:
        assert result[0] is Errors.UNSUPPORTED_COMPRESSION_TYPE and "ZStandard" in result[1]
    else:
        assert result is None   # v0-2 carry magic 0/1 (the LogValidator's business); v7+ may use zstd


@pytest.mark.parametrize("version", [3, 7, 9])
def test_v3_and_above_carry_exactly_one_batch(version):
    assert refusal(version, batch()) is None
    two = refusal(version, batch() + batch())
    assert two[0] is Errors.INVALID_RECORD and "exactly one record batch" in two[1]
    assert refusal(version, batch() + batch()[:30]) is None   # a partial tail is no batch


@pytest.mark.parametrize("version", [3, 9])
def test_v3_and_above_refuse_magic_0_and_1(version):
    legacy = bytearray(batch())
    legacy[16] = 1
    result = refusal(version, bytes(legacy))
    assert result[0] is Errors.INVALID_RECORD and "magic version 2" in result[1]


@pytest.mark.parametrize("version", [2, 3, 9])
def test_v3_and_above_cannot_have_no_record_batch(version):
    result = refusal(version, b"")
    if version < 3:
        assert result is None
    else:
        assert result[0] is Errors.INVALID_RECORD and "at least one record batch" in result[1]


@pytest.mark.parametrize("version, code", [(0, Errors.NOT_LEADER_FOR_PARTITION), (3, Errors.NOT_LEADER_FOR_PARTITION),
                                           (4, Errors.KAFKA_STORAGE_ERROR), (8, Errors.KAFKA_STORAGE_ERROR)])
def test_a_storage_error_is_not_leader_to_a_producer_that_does_not_know_it(version, code):
    # Kafka 2.4 ProduceResponse.toStruct: KAFKA_STORAGE_ERROR came with Produce v4; an older producer would take
    # it for an unknown, fatal error, so it is told NOT_LEADER_FOR_PARTITION and refreshes its metadata
    from kafkalite.common.topic_partition import TopicPartition
    from kafkalite.protocol.messages.produce import PartitionProduceData, ProduceRequest, TopicProduceData
    from kafkalite.server.kafka_apis import KafkaApis
    from kafkalite.server.replica_manager import PartitionResponse
    body = ProduceRequest(transactional_id=None, acks=1, timeout_ms=1000, topic_data=[
        TopicProduceData(name="t", partition_data=[PartitionProduceData(index=0, records=batch()),
                                                   PartitionProduceData(index=1, records=batch())])])
    statuses = {TopicPartition("t", 0): PartitionResponse(Errors.KAFKA_STORAGE_ERROR),
                TopicPartition("t", 1): PartitionResponse(Errors.NONE, base_offset=7)}
    [topic] = KafkaApis.produce_response(body, statuses, version).responses
    assert [(p.index, p.error_code) for p in topic.partition_responses] == [(0, code.code), (1, 0)]


def test_transactional_records_are_seen_from_the_first_batchs_header():
    # Kafka: ProduceRequest.hasTransactionalRecords -- transactional batches need WRITE on the transactional id
    from kafkalite.server.kafka_apis import _has_transactional_records
    txn = MemoryRecords.with_records(SimpleRecord(1000, b"k", b"v"), producer_id=7, producer_epoch=0,
                                     base_sequence=0, is_transactional=True)
    idempotent = MemoryRecords.with_records(SimpleRecord(1000, b"k", b"v"), producer_id=7, producer_epoch=0,
                                            base_sequence=0)
    legacy = bytearray(txn.buffer)
    legacy[16] = 1
    assert _has_transactional_records(txn)
    assert not _has_transactional_records(idempotent) and not _has_transactional_records(MemoryRecords(batch()))
    assert not _has_transactional_records(MemoryRecords(bytes(legacy)))
    assert not _has_transactional_records(MemoryRecords(txn.buffer[:20]))

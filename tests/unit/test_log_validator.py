"""Kafka: LogValidatorTest (the magic 0/1 up-conversion cases), through Log.append_as_leader as Produce v0-2
reaches it, plus RecordsUtilTest / LazyDownConversionRecordsTest for the way back (down-conversion).

Legacy message sets are built with kafka-python's legacy encoder (a test oracle) and down-converted sets
read with its decoder, so kafkalite's own legacy classes are not checking themselves.
"""
from unittest import mock

import pytest
from kafka.record.legacy_records import LegacyRecordBatch as KpLegacyBatch
from kafka.record.legacy_records import LegacyRecordBatchBuilder as KpLegacyBuilder

from kafkalite.common.record_validation_exception import RecordValidationException
from kafkalite.log.log import Log
from kafkalite.log.log_config import LogConfig
from kafkalite.protocol.errors import ApiException, Errors, UnsupportedCompressionTypeException
from kafkalite.record.abstract_legacy_record_batch import legacy_batches
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.default_record import DefaultRecord
from kafkalite.record.end_transaction_marker import EndTransactionMarker
from kafkalite.record.control_record_type import ControlRecordType
from kafkalite.record.lazy_down_conversion_records import LazyDownConversionRecords
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.record.records_util import down_convert
from kafkalite.record.timestamp_type import TimestampType
from kafkalite.utils.time import MockTime

NOW = 1_600_000_000_000


def legacy(magic, records, codec=0):
    builder = KpLegacyBuilder(magic=magic, compression_type=codec, batch_size=1 << 20)
    for offset, (ts, key, value) in enumerate(records):
        builder.append(offset, timestamp=ts, key=key, value=value)
    return MemoryRecords(bytearray(builder.build()))


def make_log(tmp_path, **props):
    return Log(str(tmp_path / "topic-0"), LogConfig(props), time=MockTime(now_ms=NOW))


def stored(log):
    batches = list(log.read(0, 1 << 20).records.batches())
    return batches, [(r.offset, r.timestamp, r.key, r.value) for b in batches for r in b]


RECS = [(NOW - 2, b"a", b"1"), (NOW - 1, None, b"2"), (NOW, b"c", None)]


@pytest.mark.parametrize("magic,codec", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_old_formats_become_one_v2_batch_with_offsets_keys_values_and_timestamps(tmp_path, magic, codec):
    log = make_log(tmp_path)
    log.append_as_leader(MemoryRecords.with_records(SimpleRecord(NOW, None, b"first")), 0)
    info = log.append_as_leader(legacy(magic, RECS, codec), leader_epoch=5)
    assert (info.first_offset, info.last_offset) == (1, 3)
    batches, records = stored(log)
    assert len(batches) == 2 and batches[1].magic == 2 and batches[1].partition_leader_epoch == 5
    assert batches[1].compression_type is CompressionType(codec)     # the producer's codec (compression.type=producer)
    assert batches[1].timestamp_type is TimestampType.CREATE_TIME and not batches[1].has_producer_id()
    expected_ts = [ts if magic == 1 else -1 for ts, _, _ in RECS]  # magic 0 has none: NO_TIMESTAMP
    assert records[1:] == [(1 + i, ts, k, v) for i, (ts, (_, k, v)) in enumerate(zip(expected_ts, RECS))]
    assert batches[1].max_timestamp == max(expected_ts)


def test_the_topics_compression_type_and_log_append_time_apply(tmp_path):
    log = make_log(tmp_path, **{"compression.type": "gzip", "message.timestamp.type": "LogAppendTime"})
    info = log.append_as_leader(legacy(1, RECS), 0)
    assert info.log_append_time == NOW
    [batch], records = stored(log)
    assert batch.compression_type is CompressionType.GZIP and batch.timestamp_type is TimestampType.LOG_APPEND_TIME
    assert {ts for _, ts, _, _ in records} == {NOW}


def test_v2_batches_still_skip_the_validator(tmp_path):
    log = make_log(tmp_path)
    with mock.patch.object(DefaultRecord, "read_from", side_effect=AssertionError("decoded on the v2 produce path")), \
            mock.patch("kafkalite.log.log.LogValidator.validate_messages_and_assign_offsets",
                       side_effect=AssertionError("v2 went through the legacy validator")):
        log.append_as_leader(MemoryRecords.with_records(SimpleRecord(NOW, b"k", b"v")), 0)
    assert log.log_end_offset == 1


def _corrupt(records: MemoryRecords, at: int = -1) -> MemoryRecords:
    buf = bytearray(records.buffer)
    buf[at] ^= 0x40
    return MemoryRecords(buf)


@pytest.mark.parametrize("records,error", [
    (_corrupt(legacy(0, RECS)), Errors.CORRUPT_MESSAGE),
    (_corrupt(legacy(1, RECS, codec=1)), Errors.CORRUPT_MESSAGE),                      # the wrapper's CRC
    (MemoryRecords(bytes(legacy(1, RECS[:1], 1).buffer) * 2), Errors.INVALID_RECORD),  # two wrappers
    (MemoryRecords(bytes(legacy(0, RECS[:1]).buffer) + bytes(legacy(1, RECS[:1]).buffer)), Errors.INVALID_RECORD),
    (legacy(1, [(NOW - 10 * 86_400_000, None, b"old")]), Errors.INVALID_TIMESTAMP),
], ids=["v0-crc", "v1-gzip-wrapper-crc", "two-wrappers", "mixed-magic", "timestamp-out-of-range"])
def test_invalid_old_format_requests_append_nothing(tmp_path, records, error):
    log = make_log(tmp_path, **{"message.timestamp.difference.max.ms": 86_400_000})
    assert refusal(log, records) is error
    assert log.log_end_offset == 0 and log.size == 0


def refusal(log, records):
    """The error an append as leader fails with: a per-record one (RecordValidationException) or not."""
    try:
        log.append_as_leader(records, 0)
    except RecordValidationException as e:
        return e.invalid_exception.error
    except ApiException as e:
        return e.error
    return None


def test_compacted_topic_needs_keys(tmp_path):
    log = make_log(tmp_path, **{"cleanup.policy": "compact"})
    with pytest.raises(RecordValidationException, match="without key") as caught:
        log.append_as_leader(legacy(1, RECS), 0)
    assert caught.value.invalid_exception.error is Errors.INVALID_RECORD


def test_legacy_from_a_follower_is_refused(tmp_path):
    log = make_log(tmp_path)
    with pytest.raises(Errors.INVALID_RECORD.exception_class):
        log.append_as_follower(legacy(1, RECS))


# ---------------------------------------------------------------- down-conversion
def kp_read(data: bytes, magic: int):
    out = []
    for entry in legacy_batches(data):
        for r in KpLegacyBatch(bytearray(entry.buffer), magic):
            out.append((r.offset, r.timestamp, r.key, r.value))
    return out


def v2(base_offset, *values, compression=CompressionType.NONE, ts=NOW, **kw):
    return MemoryRecords.with_records(*[SimpleRecord(ts + i, b"k", v, (("h", b"x"),)) for i, v in enumerate(values)],
                                      base_offset=base_offset, compression_type=compression, **kw)


def test_down_convert_keeps_offsets_drops_control_batches_and_uncompressed_records_below_the_fetch_offset():
    marker = MemoryRecords.with_end_transaction_marker(7, 0, EndTransactionMarker(ControlRecordType.COMMIT, 0),
                                                       NOW, initial_offset=5)
    data = bytes(v2(0, b"a", b"b", b"c").buffer) + bytes(v2(3, b"d", b"e", compression=CompressionType.GZIP).buffer) \
        + bytes(marker.buffer) + bytes(v2(6, b"f", producer_id=7, producer_epoch=0, base_sequence=0,
                                          is_transactional=True).buffer)
    batches = list(MemoryRecords(data).batches())
    converted = down_convert(batches, 1, first_offset=1)
    assert kp_read(converted.records, 1) == [(1, NOW + 1, b"k", b"b"), (2, NOW + 2, b"k", b"c"), (3, NOW, b"k", b"d"),
                                             (4, NOW + 1, b"k", b"e"), (6, NOW, b"k", b"f")]
    assert converted.record_conversion_stats.num_records_converted == 5
    assert [o for o, *_ in kp_read(down_convert(batches, 0, 4).records, 0)] == [3, 4, 6]   # a wrapper comes whole
    with pytest.raises(UnsupportedCompressionTypeException):
        down_convert(list(v2(0, b"z", compression=CompressionType.ZSTD).batches()), 1, 0)


def test_lazy_down_conversion_size_is_at_least_the_first_converted_batch():
    # ten batches of small records: converted (v0: 26 bytes of overhead per record) is larger than stored
    records = MemoryRecords(b"".join(bytes(v2(5 * b, *[b"%d" % i for i in range(5)]).buffer) for b in range(10)))
    lazy = LazyDownConversionRecords("t-0", records, 0, 0)
    assert lazy.size_in_bytes() == records.size_in_bytes()          # max(stored, first converted) = stored here
    got = [o for o, *_ in kp_read(lazy.records, 0)]
    assert got == list(range(len(got))) and 5 < len(got) < 50       # cut at the size: the rest comes next fetch
    one = v2(0, *[b"%d" % i for i in range(50)])                    # one batch converting to more than it stores
    lazy = LazyDownConversionRecords("t-0", one, 0, 0)
    assert lazy.size_in_bytes() > one.size_in_bytes() and len(kp_read(lazy.records, 0)) == 50   # sent whole
    assert LazyDownConversionRecords("t-0", MemoryRecords.EMPTY, 1, 0).records == b""


def test_mangled_old_format_requests_get_an_error_code_never_a_crash(tmp_path):
    """Random byte flips, CRC fixed up afterwards so the damage gets past the checksum: every outcome is an
    appended batch or one of Kafka's error codes (an ApiException), and a refused request appends nothing."""
    import random
    import struct as st
    import zlib
    from kafkalite.protocol.errors import ApiException
    log = make_log(tmp_path)
    rnd = random.Random(19)
    seeds = [legacy(0, RECS), legacy(1, RECS), legacy(1, RECS, codec=1)]
    for _ in range(400):
        buf = bytearray(rnd.choice(seeds).buffer)
        for _ in range(rnd.randint(1, 3)):
            buf[rnd.randrange(12, len(buf))] = rnd.randrange(256)
        if rnd.random() < 0.7 and len(buf) >= 17:          # re-sign the first message so its CRC holds
            size = st.unpack_from(">i", buf, 8)[0]
            if 0 < size <= len(buf) - 12:
                st.pack_into(">I", buf, 12, zlib.crc32(buf[16:12 + size]))
        end = log.log_end_offset
        try:
            log.append_as_leader(MemoryRecords(buf), 0)
        except ApiException:
            assert log.log_end_offset == end

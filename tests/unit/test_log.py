"""Mirrors Kafka's LogTest (the scenarios that apply to kafkalite)."""
import logging
import os
import struct
from unittest import mock

import crc32c
import pytest

from kafkalite.common.record_validation_exception import RecordValidationException
from kafkalite.log.log import EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP, Log
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_file_utils import CLEAN_SHUTDOWN_FILE
from kafkalite.protocol.errors import (
    CorruptRecordException, Errors, InvalidRecordException, OffsetOutOfRangeException, RecordTooLargeException)
from kafkalite.record.default_record import DefaultRecord
from kafkalite.record.default_record_batch import (
    ATTRIBUTES_OFFSET, BASE_SEQUENCE_OFFSET, CRC_OFFSET, LAST_OFFSET_DELTA_OFFSET, RECORDS_COUNT_OFFSET)
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime


def recs(*values, ts=None, **kw):
    ts = 1_600_000_000_000 if ts is None else ts
    return MemoryRecords.with_records(*[SimpleRecord(ts + i, None, v) for i, v in enumerate(values)], **kw)


@pytest.fixture
def mock_time():
    return MockTime(now_ms=1_600_000_000_000)


def make_log(tmp_path, mock_time, **props):
    return Log(str(tmp_path / "topic-0"), LogConfig(props), time=mock_time)


def test_append_assigns_offsets_in_place_and_reads_back(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    for i in range(5):
        r = recs(b"a%d" % i, b"b%d" % i)
        info = log.append_as_leader(r, leader_epoch=3)
        assert (info.first_offset, info.last_offset) == (2 * i, 2 * i + 1)
        assert next(r.batches()).base_offset == 2 * i  # rewritten in the caller's buffer
    assert log.log_end_offset == 10
    fetched = log.read(4, 10_000)
    batches = list(fetched.records.batches())
    assert [b.base_offset for b in batches] == [4, 6, 8]
    assert all(b.partition_leader_epoch == 3 and b.is_valid() for b in batches)
    assert [r.value for r in batches[0]] == [b"a2", b"b2"]
    assert log.latest_epoch == 3 and log.end_offset_for_epoch(3) == (3, 10)


def test_produce_path_never_decodes_records(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"segment.bytes": 300})
    with mock.patch.object(DefaultRecord, "read_from", side_effect=AssertionError("decoded on produce path")):
        for i in range(10):
            log.append_as_leader(recs(b"x" * 20, b"y" * 20), 0)
    assert log.log_end_offset == 20 and log.num_segments > 1


def test_read_returns_file_records_slice(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    log.append_as_leader(recs(b"v"), 0)
    from kafkalite.record.file_records import FileRecords
    info = log.read(0, 1000)
    assert isinstance(info.records, FileRecords) and info.records.is_slice
    assert log.read(1, 1000).records.size_in_bytes() == 0
    with pytest.raises(OffsetOutOfRangeException):
        log.read(2, 1000)


def test_read_bounded_by_max_offset(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    for _ in range(4):
        log.append_as_leader(recs(b"v", b"w"), 0)
    log.update_high_watermark(4)
    batches = list(log.read(0, 10_000, max_offset=log.high_watermark).records.batches())
    assert [b.base_offset for b in batches] == [0, 2]
    assert log.read(4, 10_000, max_offset=4).records.size_in_bytes() == 0


def test_corrupt_batch_rejected_and_leaves_no_bytes(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    log.append_as_leader(recs(b"ok"), 0)
    size = log.size
    bad = bytearray(recs(b"bad").buffer)
    bad[-1] ^= 1
    with pytest.raises(CorruptRecordException):
        log.append_as_leader(MemoryRecords(bad), 0)
    assert log.size == size == os.path.getsize(log.active_segment.log.file) and log.log_end_offset == 1


def test_too_large_old_magic_and_empty_are_rejected(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"max.message.bytes": 100})
    with pytest.raises(RecordTooLargeException):
        log.append_as_leader(recs(b"x" * 200), 0)
    old = bytearray(recs(b"x").buffer)
    old[16] = 1          # now read as a magic 1 message (Produce v0-2's format), whose CRC-32 cannot match
    with pytest.raises(CorruptRecordException, match="stored crc"):
        log.append_as_leader(MemoryRecords(old), 0)
    with pytest.raises(InvalidRecordException, match="magic 1"):     # a follower never takes the old formats
        log.append_as_follower(MemoryRecords(old))
    with pytest.raises(InvalidRecordException):
        log.append_as_leader(MemoryRecords.EMPTY, 0)
    assert log.size == 0


def test_log_append_time_stamps_batches(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"message.timestamp.type": "LogAppendTime"})
    r = recs(b"a", b"b", ts=5)
    info = log.append_as_leader(r, 0)
    batch = next(log.read(0, 1000).records.batches())
    assert info.log_append_time == mock_time.milliseconds() == batch.max_timestamp
    assert batch.is_valid() and {x.timestamp for x in batch} == {mock_time.milliseconds()}


def test_roll_at_segment_bytes(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"segment.bytes": 200})
    size = recs(b"x" * 20).size_in_bytes()
    for _ in range(10):
        log.append_as_leader(recs(b"x" * 20), 0)
    per_segment = 200 // size
    assert log.num_segments == -(-10 // per_segment)
    assert all(s.size <= 200 for s in log.log_segments())
    names = sorted(n for n in os.listdir(log.dir) if n.endswith(".log"))
    assert names[1] == "%020d.log" % per_segment


def test_roll_by_segment_ms(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"segment.ms": 1000})
    log.append_as_leader(recs(b"a", ts=mock_time.milliseconds()), 0)
    mock_time.sleep(1500)
    log.append_as_leader(recs(b"b", ts=mock_time.milliseconds()), 0)
    assert log.num_segments == 2 and log.active_segment.base_offset == 1


def test_retention_by_time_moves_log_start_offset(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"segment.bytes": 150, "retention.ms": 10_000})
    for i in range(6):
        log.append_as_leader(recs(b"x" * 30, ts=mock_time.milliseconds() - 20_000 if i < 4 else mock_time.milliseconds()), 0)
    log.update_high_watermark(log.log_end_offset)
    before = log.num_segments
    deleted = log.delete_old_segments()
    assert deleted > 0 and log.num_segments == before - deleted
    assert log.log_start_offset == log.log_segments()[0].base_offset > 0
    with pytest.raises(OffsetOutOfRangeException):
        log.read(0, 100)


def test_retention_by_size(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"segment.bytes": 150, "retention.bytes": 300})
    for _ in range(10):
        log.append_as_leader(recs(b"x" * 30), 0)
    log.update_high_watermark(log.log_end_offset)
    log.delete_old_segments()
    assert log.size <= 300 + 150 and log.log_start_offset > 0


def test_retention_waits_for_high_watermark(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"segment.bytes": 150, "retention.ms": 1})
    for _ in range(6):
        log.append_as_leader(recs(b"x" * 30, ts=1), 0)
    assert log.delete_old_segments() == 0  # HW is 0: nothing is deletable yet


def test_delete_records_via_log_start_offset(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"segment.bytes": 150})
    for _ in range(6):
        log.append_as_leader(recs(b"x" * 30), 0)
    log.update_high_watermark(6)
    log.maybe_increment_log_start_offset(4)
    log.delete_old_segments()
    assert log.log_start_offset == 4 and log.log_segments()[0].base_offset <= 4
    with pytest.raises(OffsetOutOfRangeException):
        log.maybe_increment_log_start_offset(7)


def test_a_producer_may_not_set_log_append_time(tmp_path, mock_time):
    # Kafka 2.4 LogValidator.validateTimestamp: "Producer should not set timestamp type to LogAppendTime", on a
    # CreateTime topic and on a LogAppendTime one alike (there the broker stamps the time itself)
    from kafkalite.record.timestamp_type import TimestampType
    for props in ({}, {"message.timestamp.type": "LogAppendTime"}):
        log = make_log(tmp_path / str(len(props)), mock_time, **props)
        builder = MemoryRecords.builder(timestamp_type=TimestampType.LOG_APPEND_TIME,
                                        log_append_time=mock_time.milliseconds())
        builder.append(mock_time.milliseconds(), None, b"a", ())
        with pytest.raises(RecordValidationException, match="LogAppendTime") as caught:
            log.append_as_leader(builder.build(), 0)
        assert caught.value.invalid_exception.error is Errors.INVALID_TIMESTAMP
        assert log.log_end_offset == 0
        log.append_as_leader(recs(b"a"), 0)
        assert log.log_end_offset == 1


def test_fetch_offset_by_timestamp(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"segment.bytes": 200, "index.interval.bytes": 1})
    base = mock_time.milliseconds()
    for i in range(10):
        log.append_as_leader(recs(b"v%d" % i, ts=base + i * 100), 5)
    found = log.fetch_offset_by_timestamp(base + 450)
    assert (found.offset, found.timestamp, found.leader_epoch) == (5, base + 500, 5)
    assert log.fetch_offset_by_timestamp(base + 10_000) is None
    assert log.fetch_offset_by_timestamp(EARLIEST_TIMESTAMP).offset == 0
    assert log.fetch_offset_by_timestamp(LATEST_TIMESTAMP).offset == 10
    mx = log.fetch_offset_by_timestamp(MAX_TIMESTAMP)
    assert (mx.timestamp, mx.offset) == (base + 900, 9)


def test_high_watermark_bounds(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    log.append_as_leader(recs(b"a", b"b", b"c"), 0)
    assert log.update_high_watermark(100) == 3 and log.update_high_watermark(-5) == 0
    assert log.maybe_increment_high_watermark(log.log_end_offset_metadata).message_offset == 0
    assert log.high_watermark == 3
    assert log.maybe_increment_high_watermark(log.log_end_offset_metadata) is None


def test_truncate_to_and_fully(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"segment.bytes": 150})
    for _ in range(6):
        log.append_as_leader(recs(b"x" * 30), 0)
    assert log.truncate_to(3) and log.log_end_offset == 3
    assert [b.base_offset for s in log.log_segments() for b in s.log.batches()] == [0, 1, 2]
    log.append_as_leader(recs(b"y"), 0)
    assert log.log_end_offset == 4
    log.truncate_fully_and_start_at(100)
    assert (log.log_start_offset, log.log_end_offset, log.num_segments) == (100, 100, 1)


def test_reopen_after_clean_shutdown(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"segment.bytes": 150})
    for _ in range(6):
        log.append_as_leader(recs(b"x" * 30), 0)
    log.close()
    open(tmp_path / CLEAN_SHUTDOWN_FILE, "w").close()
    again = make_log(tmp_path, mock_time, **{"segment.bytes": 150})
    assert again.log_end_offset == 6 and again.num_segments == log.num_segments
    assert again.recovery_point == 0 or again.recovery_point <= 6
    again.append_as_leader(recs(b"z"), 0)
    assert again.log_end_offset == 7


def test_recovery_truncates_partial_tail_and_logs_bytes(tmp_path, mock_time, caplog):
    log = make_log(tmp_path, mock_time)
    for _ in range(5):
        log.append_as_leader(recs(b"x" * 30), 0)
    good = log.size
    log.close()
    with open(log.active_segment.log.file, "ab") as f:
        f.write(bytes(recs(b"tail" * 10).buffer)[:50])
    with caplog.at_level(logging.WARNING):
        again = make_log(tmp_path, mock_time)
    assert again.log_end_offset == 5 and again.size == good
    assert [b.base_offset for b in again.log_segments()[0].log.batches()] == [0, 1, 2, 3, 4]


def test_recovery_truncates_at_flipped_byte_and_warns(tmp_path, mock_time, caplog):
    log = make_log(tmp_path, mock_time)
    sizes = [log.append_as_leader(recs(b"x" * 30), 0).valid_bytes for _ in range(5)]
    path = log.active_segment.log.file
    log.close()
    with open(path, "r+b") as f:
        f.seek(sizes[0] * 3 + 70)
        b = f.read(1)
        f.seek(sizes[0] * 3 + 70)
        f.write(bytes([b[0] ^ 0x55]))
    with caplog.at_level(logging.WARNING):
        again = make_log(tmp_path, mock_time)
    assert again.log_end_offset == 3 and os.path.getsize(path) == 3 * sizes[0]
    assert any(f"dropped {2 * sizes[0]} invalid bytes" in r.getMessage() for r in caplog.records)
    assert [r.value for r in next(again.read(2, 1000).records.batches())] == [b"x" * 30]


def test_idempotent_duplicate_returns_original_offsets(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    first = log.append_as_leader(recs(b"a", b"b", producer_id=7, producer_epoch=0, base_sequence=0), 0)
    log.append_as_leader(recs(b"c", producer_id=7, producer_epoch=0, base_sequence=2), 0)
    size = log.size
    dup = log.append_as_leader(recs(b"a", b"b", producer_id=7, producer_epoch=0, base_sequence=0), 0)
    assert (dup.first_offset, dup.last_offset) == (first.first_offset, first.last_offset) == (0, 1)
    assert log.size == size and log.log_end_offset == 3


def test_idempotent_gap_and_fencing_rejected_without_bytes(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    log.append_as_leader(recs(b"a", producer_id=7, producer_epoch=1, base_sequence=0), 0)
    size = log.size
    with pytest.raises(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.exception_class):
        log.append_as_leader(recs(b"b", producer_id=7, producer_epoch=1, base_sequence=5), 0)
    with pytest.raises(Errors.INVALID_PRODUCER_EPOCH.exception_class):
        log.append_as_leader(recs(b"b", producer_id=7, producer_epoch=0, base_sequence=1), 0)
    with pytest.raises(Errors.UNKNOWN_PRODUCER_ID.exception_class):
        log.append_as_leader(recs(b"b", producer_id=8, producer_epoch=0, base_sequence=3), 0)
    assert log.size == size == os.path.getsize(log.active_segment.log.file)


def test_producer_state_rebuilt_on_reload(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    log.append_as_leader(recs(b"a", producer_id=7, producer_epoch=0, base_sequence=0), 0)
    log.close()
    again = make_log(tmp_path, mock_time)
    dup = again.append_as_leader(recs(b"a", producer_id=7, producer_epoch=0, base_sequence=0), 0)
    assert dup.first_offset == 0 and again.log_end_offset == 1
    again.append_as_leader(recs(b"b", producer_id=7, producer_epoch=0, base_sequence=1), 0)
    assert again.log_end_offset == 2


def test_append_as_follower_keeps_offsets(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    log.append_as_follower(recs(b"a", b"b", base_offset=0, partition_leader_epoch=2))
    log.append_as_follower(recs(b"c", base_offset=2, partition_leader_epoch=4))
    assert log.log_end_offset == 3 and log.latest_epoch == 4
    assert log.end_offset_for_epoch(2) == (2, 2)
    with pytest.raises(Exception):
        log.append_as_follower(recs(b"d", base_offset=1))


class RecordingScheduler:
    """Records scheduled jobs; the test runs them (Kafka's LogTest uses a MockScheduler)."""

    def __init__(self):
        self.jobs = {}

    def schedule(self, name, fun, delay_ms=0, period_ms=-1):
        job = mock.Mock(fun=fun, delay_ms=delay_ms, period_ms=period_ms)
        self.jobs[name] = job
        return job


def test_periodic_producer_id_expiration(tmp_path, mock_time):
    # Kafka: LogTest.testPeriodicProducerIdExpiration
    scheduler = RecordingScheduler()
    log = Log(str(tmp_path / "topic-0"), LogConfig(), scheduler=scheduler, time=mock_time,
              max_producer_id_expiration_ms=200, producer_id_expiration_check_interval_ms=100)
    check = scheduler.jobs["PeriodicProducerExpirationCheck"]
    assert (check.delay_ms, check.period_ms) == (100, 100)
    log.append_as_leader(recs(b"a", ts=mock_time.milliseconds(), producer_id=7, producer_epoch=0, base_sequence=0), 0)
    assert set(log.producer_state_manager.active_producers()) == {7}
    mock_time.sleep(150)
    check.fun()
    assert set(log.producer_state_manager.active_producers()) == {7}   # idle 150 ms < 200 ms
    mock_time.sleep(100)
    check.fun()
    assert log.producer_state_manager.active_producers() == {}
    log.close()
    check.cancel.assert_called()


def test_delete_cancels_producer_expiration_check(tmp_path, mock_time):
    scheduler = RecordingScheduler()
    log = Log(str(tmp_path / "topic-0"), LogConfig(), scheduler=scheduler, time=mock_time)
    check = scheduler.jobs["PeriodicProducerExpirationCheck"]
    assert check.period_ms == 10 * 60 * 1000
    log.delete()
    check.cancel.assert_called()


def test_read_at_high_watermark_below_log_end_gives_full_offset_metadata(tmp_path, mock_time):
    # Kafka: Log.read answers an empty read at the bound with the segment position of the offset,
    # so a DelayedFetch parked there can count the bytes that later appends make visible.
    log = make_log(tmp_path, mock_time)
    log.append_as_leader(recs(b"a"), 0)
    log.update_high_watermark(1)
    log.append_as_leader(recs(b"b"), 0)          # log end offset 2, high watermark still 1
    for max_offset in (log.high_watermark, log.fetch_high_watermark_metadata()):
        info = log.read(1, 1 << 20, max_offset=max_offset)
        meta = info.fetch_offset_metadata
        assert info.records.size_in_bytes() == 0 and not meta.message_offset_only()
        assert (meta.message_offset, meta.segment_base_offset) == (1, 0)
        assert meta.relative_position_in_segment == next(log.read(0, 1 << 20).records.batches()).size_in_bytes
    log.update_high_watermark(2)
    visible = log.fetch_high_watermark_metadata()
    assert visible.on_same_segment(meta) and visible.position_diff(meta) > 0   # what DelayedFetch counts
    # a start beyond the bound (a follower ahead of this high watermark) also gets full metadata
    log.append_as_leader(recs(b"c"), 0)
    beyond = log.read(2, 1 << 20, max_offset=1).fetch_offset_metadata
    assert (beyond.message_offset, beyond.segment_base_offset) == (2, 0) and not beyond.message_offset_only()


def test_a_read_past_every_batch_gives_the_log_ends_position(tmp_path, mock_time):
    # Kafka 2.4 Log.read: a start offset in range with no batch at or after it (compaction removed everything up
    # to the log end) answers the log end's metadata, so a DelayedFetch parked there counts later appends;
    # an offset-only answer left it waiting for its whole max_wait_ms
    log = make_log(tmp_path, mock_time)
    for _ in range(5):
        log.append_as_leader(recs(b"a", b"b"), 0)
    log.roll()
    log.log_segments()[0].truncate_to(6)          # as if the cleaner had removed offsets 6-9 of the old segment
    assert log.log_end_offset == 10
    info = log.read(6, 1 << 20)
    meta = info.fetch_offset_metadata
    assert info.records.size_in_bytes() == 0 and not meta.message_offset_only()
    assert (meta.message_offset, meta.segment_base_offset, meta.relative_position_in_segment) == (10, 10, 0)


def with_header_field(records, offset, value):
    """The batch with one 32-bit header field replaced and its CRC recomputed (a well-formed lie)."""
    buf = bytearray(records.buffer)
    struct.pack_into(">i", buf, offset, value)
    struct.pack_into(">I", buf, CRC_OFFSET, crc32c.crc32c(bytes(buf[ATTRIBUTES_OFFSET:])))
    return MemoryRecords(buf)


@pytest.mark.parametrize("field, value, kw", [
    (LAST_OFFSET_DELTA_OFFSET, 1_000_000, {}),     # count 2 != lastOffsetDelta + 1
    (LAST_OFFSET_DELTA_OFFSET, 0, {}),
    (RECORDS_COUNT_OFFSET, 3, {}),
    (RECORDS_COUNT_OFFSET, 0, {}),                 # no records
    (BASE_SEQUENCE_OFFSET, -1, dict(producer_id=7, producer_epoch=0, base_sequence=0)),  # idempotent, no sequence
])
def test_client_batch_header_must_agree_with_itself(tmp_path, mock_time, field, value, kw):
    # Kafka: LogValidator.validateBatch (LogValidatorTest's invalid count / offset range / sequence cases)
    log = make_log(tmp_path, mock_time)
    bad = with_header_field(recs(b"a", b"b", **kw), field, value)
    assert next(bad.batches()).is_valid()          # the CRC matches: only the header check can catch it
    with mock.patch.object(DefaultRecord, "read_from", side_effect=AssertionError("decoded on produce path")):
        with pytest.raises(InvalidRecordException) as e:
            log.append_as_leader(bad, 0)
    assert e.value.error is Errors.INVALID_RECORD
    assert log.log_end_offset == 0 and log.active_segment.size == 0


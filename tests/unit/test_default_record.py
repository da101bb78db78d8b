"""Mirrors Kafka's DefaultRecordTest: varint encoding and record round trips."""
import pytest

from kafkalite.protocol.errors import InvalidRecordException
from kafkalite.record.default_record import (
    DefaultRecord, read_varint, read_varlong, size_of_varint, write_varint, write_varlong)


@pytest.mark.parametrize("value, encoded", [(0, b"\x00"), (-1, b"\x01"), (1, b"\x02"), (63, b"\x7e"),
                                            (-64, b"\x7f"), (64, b"\x80\x01"), (300, b"\xd8\x04")])
def test_zigzag_varint_matches_protobuf(value, encoded):
    out = bytearray()
    write_varint(value, out)
    assert bytes(out) == encoded
    assert read_varint(encoded, 0) == (value, len(encoded))
    assert size_of_varint(value) == len(encoded)


@pytest.mark.parametrize("value", [0, 1, -1, 2**31 - 1, -(2**31), 2**63 - 1, -(2**63)])
def test_varlong_round_trip_extremes(value):
    out = bytearray()
    write_varlong(value, out)
    assert read_varlong(out, 0) == (value, len(out))


def test_varint_out_of_int_range_is_rejected():
    out = bytearray()
    write_varlong(2**40, out)
    with pytest.raises(InvalidRecordException):
        read_varint(out, 0)


def test_record_round_trip_with_headers_and_nulls():
    out = bytearray()
    n = DefaultRecord.write_to(out, 3, 7, None, b"value", [("a", b"1"), ("b", None)])
    assert n == len(out)
    record, pos = DefaultRecord.read_from(out, 0, base_offset=100, base_timestamp=1000, base_sequence=5)
    assert pos == len(out) and record.size_in_bytes == n
    assert (record.offset, record.timestamp, record.sequence) == (103, 1007, 8)
    assert record.key is None and record.key_size == -1 and record.value == b"value"
    assert record.headers == [("a", b"1"), ("b", None)]


def test_truncated_record_raises():
    out = bytearray()
    DefaultRecord.write_to(out, 0, 0, b"k", b"v" * 20)
    with pytest.raises(InvalidRecordException):
        DefaultRecord.read_from(out[:-5], 0, 0, 0, -1)

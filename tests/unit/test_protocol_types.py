"""Tests for kafkalite.protocol.types (Kafka: ByteUtilsTest, TypeTest): both varint codecs and the primitives."""
from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafkalite.protocol import schema
from kafkalite.protocol.errors import InvalidRequestException
from kafkalite.protocol.schema import (
    BOOL, BYTES, FLOAT64, INT8, INT16, INT32, INT64, RECORDS, STRING, UINT16, UINT32, UUID, array, field, message)
from kafkalite.protocol.types import (
    read_unsigned_varint, read_varint, read_varlong, size_of_unsigned_varint, size_of_varint, size_of_varlong,
    write_unsigned_varint, write_varint, write_varlong)


def uvarint(value):
    out = bytearray()
    write_unsigned_varint(out, value)
    return bytes(out)


def varint(value):
    out = bytearray()
    write_varint(out, value)
    return bytes(out)


def varlong(value):
    out = bytearray()
    write_varlong(out, value)
    return bytes(out)


@pytest.mark.parametrize("value, encoded", [
    (0, "00"), (1, "01"), (127, "7f"), (128, "8001"), (300, "ac02"), (16383, "ff7f"), (16384, "808001"),
    (2**31 - 1, "ffffffff07"), (2**32 - 1, "ffffffff0f"),
])
def test_unsigned_varint_bytes(value, encoded):
    assert uvarint(value).hex() == encoded
    assert read_unsigned_varint(bytes.fromhex(encoded), 0) == (value, len(encoded) // 2)
    assert size_of_unsigned_varint(value) == len(encoded) // 2


@pytest.mark.parametrize("value, encoded", [
    (0, "00"), (-1, "01"), (1, "02"), (63, "7e"), (-64, "7f"), (64, "8001"), (-65, "8101"),
    (2**31 - 1, "feffffff0f"), (-2**31, "ffffffff0f"),
])
def test_zigzag_varint_bytes(value, encoded):
    assert varint(value).hex() == encoded
    assert read_varint(bytes.fromhex(encoded), 0) == (value, len(encoded) // 2)
    assert size_of_varint(value) == len(encoded) // 2


@pytest.mark.parametrize("value, encoded", [
    (0, "00"), (-1, "01"), (1, "02"), (2**63 - 1, "feffffffffffffffff01"), (-2**63, "ffffffffffffffffff01"),
])
def test_zigzag_varlong_bytes(value, encoded):
    assert varlong(value).hex() == encoded
    assert read_varlong(bytes.fromhex(encoded), 0) == (value, len(encoded) // 2)
    assert size_of_varlong(value) == len(encoded) // 2


def test_unsigned_and_zigzag_differ():
    # The same number is encoded differently by the two codecs: -1 has no unsigned form at all.
    assert uvarint(1) != varint(1)
    with pytest.raises(ValueError):
        uvarint(-1)
    with pytest.raises(ValueError):
        varint(2**31)
    with pytest.raises(ValueError):
        varlong(2**63)


@pytest.mark.parametrize("reader, data", [
    (read_unsigned_varint, "80"), (read_unsigned_varint, "ffffffffff01"), (read_varint, "ffff"),
    (read_varint, "ffffffffff01"), (read_varlong, "ffffffffffffffffffff01"), (read_varlong, ""),
])
def test_truncated_or_overlong_varints_raise(reader, data):
    with pytest.raises(InvalidRequestException):
        reader(bytes.fromhex(data), 0)


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_unsigned_varint_round_trip(value):
    data = uvarint(value) + b"\xaa"
    assert read_unsigned_varint(data, 0) == (value, len(data) - 1)


@given(st.integers(min_value=-2**31, max_value=2**31 - 1))
def test_varint_round_trip(value):
    data = b"\x01" + varint(value)
    assert read_varint(data, 1) == (value, len(data))


@given(st.integers(min_value=-2**63, max_value=2**63 - 1))
def test_varlong_round_trip(value):
    data = varlong(value)
    assert read_varlong(data, 0) == (value, len(data))
    assert len(data) == size_of_varlong(value)


@message(kind="data", valid="0-1", flexible="1+")
class Primitives:
    i8: int = field(INT8, "0+")
    i16: int = field(INT16, "0+")
    i32: int = field(INT32, "0+")
    i64: int = field(INT64, "0+")
    u16: int = field(UINT16, "0+")
    u32: int = field(UINT32, "0+")
    f64: float = field(FLOAT64, "0+")
    flag: bool = field(BOOL, "0+")
    uid: uuid.UUID = field(UUID, "0+")
    text: str | None = field(STRING, "0+", nullable="0+")
    blob: bytes | None = field(BYTES, "0+", nullable="0+")
    recs: object = field(RECORDS, "0+", nullable="0+")
    ints: list[int] | None = field(array(INT64), "0+", nullable="0+")
    texts: list[str] = field(array(STRING), "0+")


primitives = st.builds(
    Primitives,
    i8=st.integers(-2**7, 2**7 - 1), i16=st.integers(-2**15, 2**15 - 1), i32=st.integers(-2**31, 2**31 - 1),
    i64=st.integers(-2**63, 2**63 - 1), u16=st.integers(0, 2**16 - 1), u32=st.integers(0, 2**32 - 1),
    f64=st.floats(allow_nan=False), flag=st.booleans(), uid=st.uuids(),
    text=st.none() | st.text(max_size=40), blob=st.none() | st.binary(max_size=40),
    recs=st.none() | st.binary(max_size=40), ints=st.none() | st.lists(st.integers(-2**63, 2**63 - 1), max_size=5),
    texts=st.lists(st.text(max_size=5), max_size=5),
)


@given(primitives, st.sampled_from([0, 1]))
def test_primitives_round_trip(obj, version):
    data = schema.write(obj, version)
    back, end = schema.read(Primitives, version, data)
    assert end == len(data)
    if obj.recs is not None:
        assert isinstance(back.recs, memoryview)
        back.recs = bytes(back.recs)
    assert back == obj


def test_fixed_width_big_endian():
    obj = Primitives(i8=-2, i16=0x0102, i32=0x01020304, i64=-2, u16=0xFFFE, u32=0xFFFFFFFE, f64=1.0, flag=True,
                     uid=uuid.UUID(int=1), text=None, blob=None, recs=None, ints=None)
    data = schema.write(obj, 0)
    expected = (
        "fe" "0102" "01020304" "fffffffffffffffe" "fffe" "fffffffe" "3ff0000000000000" "01"
        "00000000000000000000000000000001" "ffff" "ffffffff" "ffffffff" "ffffffff" "00000000"
    )
    assert data.hex() == expected
    # v1 is flexible: nulls are uvarint 0, the empty array uvarint 1, then an empty tag section.
    assert schema.write(obj, 1).hex() == expected[:2 * 46] + "00" "00" "00" "00" "01" "00"


def test_bool_reads_any_nonzero_as_true():
    data = bytearray(schema.write(Primitives(), 0))
    data[1 + 2 + 4 + 8 + 2 + 4 + 8] = 0x05  # the bool byte follows 29 bytes of numbers
    assert schema.read(Primitives, 0, bytes(data))[0].flag is True

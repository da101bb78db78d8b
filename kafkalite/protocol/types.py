"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java

Classes: Type (base), FixedType (int8/16/32/64, uint16/32, float64, bool), UuidType, StringType,
BytesType, RecordsType, ArrayOf; plus the varint helpers of
clients/src/main/java/org/apache/kafka/common/utils/ByteUtils.java.

A type here only *describes* a wire type: its name, its default value and, for the fixed-width
ones, a ``struct`` format. The one codec that walks messages lives in ``schema.py`` and turns
each (type, version) pair into a small read and write function once, ahead of time.

Two different varints exist on the wire, and this module has both:
- the **unsigned varint** (``ByteUtils.writeUnsignedVarint``) of compact lengths and tagged
  fields in flexible versions: 7 bits per byte, low group first, high bit = "more follows";
- the **zigzag varint/varlong** (``ByteUtils.writeVarint``/``writeVarlong``) used inside
  record batches (``DefaultRecord``): ``(n << 1) ^ (n >> 63)`` first, so small negative
  numbers stay short, then the same 7-bit groups.

Era notes: UUID and UINT16 came after 2.4 (2.8 and 3.x); today's clients need them.
Left out: Kafka's Schema/Struct/Field classes of the pre-2.4 hand-written protocol, the
per-type ``validate`` and ``documentation`` methods.
"""
from __future__ import annotations

import struct
import uuid

from kafkalite.protocol.errors import InvalidRequestException

ZERO_UUID = uuid.UUID(int=0)


class Type:
    """Kafka: Type -- a wire type. ``default`` is the value a field takes when the message lacks it."""

    name = "type"
    default = None
    fixed_size = None  # byte width for fixed-width types, else None
    fmt = None  # struct format character for fixed-width types

    def __repr__(self) -> str:
        return self.name


class FixedType(Type):
    """Kafka: Type.INT8 ... Type.FLOAT64, Type.BOOLEAN -- big-endian, fixed width."""

    def __init__(self, name: str, fmt: str, default):
        self.name = name
        self.fmt = fmt
        self.default = default
        self.struct = struct.Struct(">" + fmt)
        self.fixed_size = self.struct.size


class UuidType(Type):
    """Kafka: Type.UUID -- 16 raw bytes, as a Python ``uuid.UUID``; the default is the zero uuid."""

    name = "uuid"
    default = ZERO_UUID
    fixed_size = 16


class StringType(Type):
    """Kafka: Type.STRING / NULLABLE_STRING / COMPACT_STRING -- UTF-8 with an int16 or uvarint length."""

    name = "string"
    default = ""


class BytesType(Type):
    """Kafka: Type.BYTES / COMPACT_BYTES -- int32 or uvarint length; read back as a ``bytes`` copy."""

    name = "bytes"
    default = b""


class RecordsType(Type):
    """Kafka: Type.RECORDS -- like bytes, but read back as a memoryview slice (never copied)
    and written from bytes-like values or from a file slice with ``size_in_bytes()``."""

    name = "records"
    default = None


class ArrayOf(Type):
    """Kafka: ArrayOf / CompactArrayOf -- int32 or uvarint(count + 1), then the elements.
    ``element`` is a Type or a ``@struct`` class."""

    default = None  # a list; fields use ``default=list``

    def __init__(self, element):
        self.element = element
        self.name = f"[]{getattr(element, '__name__', None) or element.name}"

    def __eq__(self, other):
        return isinstance(other, ArrayOf) and other.element == self.element

    def __hash__(self):
        return hash(("array", self.element))


INT8 = FixedType("int8", "b", 0)
INT16 = FixedType("int16", "h", 0)
INT32 = FixedType("int32", "i", 0)
INT64 = FixedType("int64", "q", 0)
UINT16 = FixedType("uint16", "H", 0)
UINT32 = FixedType("uint32", "I", 0)
FLOAT64 = FixedType("float64", "d", 0.0)
BOOL = FixedType("bool", "?", False)
UUID = UuidType()
STRING = StringType()
BYTES = BytesType()
RECORDS = RecordsType()


def array(element) -> ArrayOf:
    """``array(INT32)`` or ``array(SomeStruct)``: the type of a list field."""
    return ArrayOf(element)


# ---------------------------------------------------------------------------------------------
# Varints (ByteUtils)
# ---------------------------------------------------------------------------------------------

# Kafka: ByteUtils.writeUnsignedVarint
def write_unsigned_varint(out: bytearray, value: int) -> None:
    """Append ``value`` (0 .. 2**32-1) as an unsigned varint."""
    if value < 0 or value > 0xFFFFFFFF:
        raise ValueError(f"unsigned varint out of range: {value}")
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


# Kafka: ByteUtils.readUnsignedVarint
def read_unsigned_varint(buf, pos: int) -> tuple[int, int]:
    """Read an unsigned varint of at most 5 bytes at ``pos``; return (value, next position)."""
    value = 0
    shift = 0
    while True:
        try:
            b = buf[pos]
        except IndexError:
            raise InvalidRequestException(f"truncated varint at offset {pos}") from None
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value & 0xFFFFFFFF, pos
        shift += 7
        if shift > 28:
            raise InvalidRequestException(f"varint longer than 5 bytes at offset {pos - 5}")


# Kafka: ByteUtils.sizeOfUnsignedVarint
def size_of_unsigned_varint(value: int) -> int:
    size = 1
    while value > 0x7F:
        value >>= 7
        size += 1
    return size


def _read_raw_varint(buf, pos: int, max_bytes: int) -> tuple[int, int]:
    value = 0
    shift = 0
    for _ in range(max_bytes):
        try:
            b = buf[pos]
        except IndexError:
            raise InvalidRequestException(f"truncated varint at offset {pos}") from None
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7
    raise InvalidRequestException(f"varint longer than {max_bytes} bytes at offset {pos - max_bytes}")


# Kafka: ByteUtils.writeVarint
def write_varint(out: bytearray, value: int) -> None:
    """Append a signed int32 as a zigzag varint (record-level encoding)."""
    if not -0x80000000 <= value <= 0x7FFFFFFF:
        raise ValueError(f"varint out of int32 range: {value}")
    write_unsigned_varint(out, ((value << 1) ^ (value >> 31)) & 0xFFFFFFFF)


# Kafka: ByteUtils.readVarint
def read_varint(buf, pos: int) -> tuple[int, int]:
    raw, pos = _read_raw_varint(buf, pos, 5)
    raw &= 0xFFFFFFFF
    return (raw >> 1) ^ -(raw & 1), pos


# Kafka: ByteUtils.writeVarlong
def write_varlong(out: bytearray, value: int) -> None:
    """Append a signed int64 as a zigzag varlong (record-level encoding)."""
    if not -0x8000000000000000 <= value <= 0x7FFFFFFFFFFFFFFF:
        raise ValueError(f"varlong out of int64 range: {value}")
    raw = ((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF
    while raw > 0x7F:
        out.append((raw & 0x7F) | 0x80)
        raw >>= 7
    out.append(raw)


# Kafka: ByteUtils.readVarlong
def read_varlong(buf, pos: int) -> tuple[int, int]:
    raw, pos = _read_raw_varint(buf, pos, 10)
    raw &= 0xFFFFFFFFFFFFFFFF
    return (raw >> 1) ^ -(raw & 1), pos


# Kafka: ByteUtils.sizeOfVarint
def size_of_varint(value: int) -> int:
    return size_of_unsigned_varint(((value << 1) ^ (value >> 31)) & 0xFFFFFFFF)


# Kafka: ByteUtils.sizeOfVarlong
def size_of_varlong(value: int) -> int:
    return size_of_unsigned_varint(((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF)

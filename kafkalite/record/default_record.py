"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/DefaultRecord.java

Classes: DefaultRecord (one record inside a v2 batch); the zig-zag varint helpers of Kafka's
``ByteUtils`` (read_varint, write_varint, read_varlong, write_varlong, size_of_varint).

Record layout (all lengths and deltas are zig-zag varints, as protobuf ``sint``):
  length | attributes i8 | timestampDelta varlong | offsetDelta varint | keyLen | key
  | valueLen | value | headerCount | [keyLen | key utf8 | valueLen | value]*
A length of -1 means null (key, value or header value).

Decoding records is for tools, clients and tests: the broker's produce path never calls
``read_from`` (DESIGN §5); where a per-record check is on it reads records partially
(``read_partially_from``, PartialDefaultRecord: sizes, offset and timestamp; nothing copied).
Left out: the legacy v0/v1 ``LegacyRecord``.
"""
from __future__ import annotations

import attrs

from kafkalite.protocol.errors import InvalidRecordException
from kafkalite.record.record_batch import RecordBatch


# ---- Kafka: ByteUtils (zig-zag varints) -------------------------------------------------

# Kafka: ByteUtils.readVarlong
def read_varlong(buf, pos: int) -> tuple[int, int]:
    """Read a zig-zag varint of up to 10 bytes at ``pos``; return (value, next position)."""
    raw, shift = 0, 0
    while True:
        try:
            b = buf[pos]
        except IndexError:
            raise InvalidRecordException("varint runs past the end of the buffer") from None
        pos += 1
        raw |= (b & 0x7F) << shift
        if not b & 0x80:
            return (raw >> 1) ^ -(raw & 1), pos
        shift += 7
        if shift > 63:
            raise InvalidRecordException("varint is longer than 10 bytes")


# Kafka: ByteUtils.readVarint
def read_varint(buf, pos: int) -> tuple[int, int]:
    value, pos = read_varlong(buf, pos)
    if not -(1 << 31) <= value < (1 << 31):
        raise InvalidRecordException(f"varint {value} does not fit in 32 bits")
    return value, pos


# Kafka: ByteUtils.writeVarlong (writeVarint is the same on Python ints)
def write_varlong(value: int, out: bytearray) -> None:
    raw = ((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF
    while raw > 0x7F:
        out.append((raw & 0x7F) | 0x80)
        raw >>= 7
    out.append(raw)


write_varint = write_varlong


# Kafka: ByteUtils.sizeOfVarlong
def size_of_varint(value: int) -> int:
    raw = ((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF
    size = 1
    while raw > 0x7F:
        raw >>= 7
        size += 1
    return size


def _read_nullable_bytes(buf, pos: int) -> tuple[bytes | None, int]:
    length, pos = read_varint(buf, pos)
    if length < 0:
        return None, pos
    if pos + length > len(buf):
        raise InvalidRecordException("record field runs past the end of the record")
    return bytes(buf[pos:pos + length]), pos + length


def _skip_nullable_bytes(buf, pos: int) -> tuple[int, int]:
    """(the field's length, -1 for null; the position after it)."""
    length, pos = read_varint(buf, pos)
    if pos + max(length, 0) > len(buf):
        raise InvalidRecordException("record field runs past the end of the record")
    return length, pos + max(length, 0)


def _write_nullable_bytes(data, out: bytearray) -> None:
    if data is None:
        write_varint(-1, out)
    else:
        write_varint(len(data), out)
        out += data


# The parts DefaultRecord.readFrom and readPartiallyFrom share: the record's length, attributes, timestamp and
# offset deltas (returns where the body starts and ends, those three, and the position after them); its header
# count; and the check that the fields read fill the body exactly
def _read_record_start(buf, pos: int) -> tuple[int, int, int, int, int, int]:
    body_size, body_start = read_varint(buf, pos)
    end = body_start + body_size
    if body_size < 0 or end > len(buf):
        raise InvalidRecordException(
            f"Invalid record size: expected {body_size} bytes, {len(buf) - body_start} remain")
    attributes = buf[body_start]
    timestamp_delta, pos = read_varlong(buf, body_start + 1)
    offset_delta, pos = read_varint(buf, pos)
    return body_start, end, attributes, timestamp_delta, offset_delta, pos


def _read_header_count(buf, pos: int) -> tuple[int, int]:
    num_headers, pos = read_varint(buf, pos)
    if num_headers < 0:
        raise InvalidRecordException(f"Found invalid number of record headers {num_headers}")
    return num_headers, pos


def _check_record_end(pos: int, end: int, body_start: int) -> None:
    if pos != end:
        raise InvalidRecordException(f"Invalid record size: expected to read {end - body_start} bytes in record "
                                     f"payload, but instead read {pos - body_start}")


@attrs.define
class DefaultRecord:
    """Kafka: DefaultRecord -- a decoded record with absolute offset, timestamp and sequence."""

    size_in_bytes: int
    attributes: int
    offset: int
    timestamp: int
    sequence: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]] = attrs.field(factory=list)

    # Kafka: DefaultRecord.keySize
    @property
    def key_size(self) -> int:
        return -1 if self.key is None else len(self.key)

    # Kafka: DefaultRecord.valueSize
    @property
    def value_size(self) -> int:
        return -1 if self.value is None else len(self.value)

    # Kafka: DefaultRecord.hasKey
    def has_key(self) -> bool:
        return self.key is not None

    # Kafka: DefaultRecord.hasMagic -- a v2 record sits in any batch of magic 2 or later
    @staticmethod
    def has_magic(magic: int) -> bool:
        return magic >= 2

    # Kafka: DefaultRecord.writeTo
    @staticmethod
    def write_to(out: bytearray, offset_delta: int, timestamp_delta: int, key, value,
                 headers=()) -> int:
        """Append one encoded record to ``out``; return the bytes written (length prefix included)."""
        body = bytearray(b"\x00")  # attributes: unused in v2
        write_varlong(timestamp_delta, body)
        write_varint(offset_delta, body)
        _write_nullable_bytes(key, body)
        _write_nullable_bytes(value, body)
        write_varint(len(headers), body)
        for hkey, hvalue in headers:
            if hkey is None:
                raise ValueError("Invalid null header key found in headers")
            encoded = hkey.encode("utf-8")
            write_varint(len(encoded), body)
            body += encoded
            _write_nullable_bytes(hvalue, body)
        start = len(out)
        write_varint(len(body), out)
        out += body
        return len(out) - start

    # Kafka: DefaultRecord.readFrom
    @classmethod
    def read_from(cls, buf, pos: int, base_offset: int, base_timestamp: int, base_sequence: int,
                  log_append_time: int | None = None) -> tuple["DefaultRecord", int]:
        """Decode the record at ``pos``; return it and the position just after it."""
        start = pos
        body_start, end, attributes, timestamp_delta, offset_delta, pos = _read_record_start(buf, pos)
        key, pos = _read_nullable_bytes(buf, pos)
        value, pos = _read_nullable_bytes(buf, pos)
        num_headers, pos = _read_header_count(buf, pos)
        headers = []
        for _ in range(num_headers):
            hkey, pos = _read_nullable_bytes(buf, pos)
            if hkey is None:
                raise InvalidRecordException("Invalid negative header key size")
            hvalue, pos = _read_nullable_bytes(buf, pos)
            headers.append((hkey.decode("utf-8", errors="replace"), hvalue))   # Kafka: Utils.utf8 replaces
        _check_record_end(pos, end, body_start)
        timestamp = log_append_time if log_append_time is not None else base_timestamp + timestamp_delta
        if base_sequence >= 0:
            sequence = (base_sequence + offset_delta) & 0x7FFFFFFF
        else:
            sequence = RecordBatch.NO_SEQUENCE
        record = cls(end - start, attributes, base_offset + offset_delta, timestamp, sequence,
                     key, value, headers)
        return record, end

    # Kafka: DefaultRecord.readPartiallyFrom -- the record without its key, value and headers (their sizes are
    # read and the bytes skipped): what the broker's record checks need, with nothing copied
    @staticmethod
    def read_partially_from(buf, pos: int, base_offset: int, base_timestamp: int) -> tuple["PartialDefaultRecord", int]:
        try:
            return DefaultRecord._read_partially_from(buf, pos, base_offset, base_timestamp)
        except IndexError:   # a buffer underflow, to Kafka
            raise InvalidRecordException("Found invalid record structure") from None

    @staticmethod
    def _read_partially_from(buf, pos: int, base_offset: int, base_timestamp: int):
        body_start, end, attributes, timestamp_delta, offset_delta, pos = _read_record_start(buf, pos)
        key_size, pos = _skip_nullable_bytes(buf, pos)
        value_size, pos = _skip_nullable_bytes(buf, pos)
        num_headers, pos = _read_header_count(buf, pos)
        for _ in range(num_headers):
            header_key_size, pos = _skip_nullable_bytes(buf, pos)
            if header_key_size < 0:
                raise InvalidRecordException("Invalid negative header key size")
            _, pos = _skip_nullable_bytes(buf, pos)
        _check_record_end(pos, end, body_start)
        return PartialDefaultRecord(attributes, base_offset + offset_delta, base_timestamp + timestamp_delta,
                                    key_size, value_size), end



@attrs.frozen(slots=True)
class PartialDefaultRecord:
    """Kafka: PartialDefaultRecord -- a record read by ``read_partially_from``: its key and value sizes, not
    its bytes."""

    attributes: int
    offset: int
    timestamp: int
    key_size: int
    value_size: int

    # Kafka: DefaultRecord.hasKey
    def has_key(self) -> bool:
        return self.key_size >= 0

    has_magic = staticmethod(DefaultRecord.has_magic)

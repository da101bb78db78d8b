"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/requests/ProduceRequest.java (parse) and
ProduceResponse.java (toStruct)

Functions: read_produce_request, write_produce_response.

Kafka 2.4 reads and writes Produce by hand against its ``Struct`` schemas (later releases generate
``ProduceRequestData``/``ProduceResponseData``, straight-line code field by field). kafkalite has one generic
codec (``schema.py``) that interprets the message classes of ``messages/produce.py``; for a produce request
of one partition it costs about a hundred Python calls each way, on the path every produced byte takes
(issue 18). This module is the straight-line version of those two messages, for Produce v3-v9 (v3: first
version with ``transactional_id``; v9: first flexible one), like ``RequestHeader._parse_v1_or_v2``.

Rules: the result is exactly what ``schema.read``/``schema.write`` give (tests/unit/test_produce_fast_path.py
compares them byte for byte); anything unusual -- a truncated buffer, a negative length other than null, a
non-UTF-8 name, tagged fields that are present, per-record errors (``record_errors``) in a response --
returns None, and the caller falls back to the schema codec, which raises its usual errors or handles the
case. ``records`` stay ``memoryview`` slices of the request buffer: nothing is copied or decoded.

Left out: Produce v0-v2 (message format v0/v1, old clients: the schema codec reads them).
"""
from __future__ import annotations

import struct

from kafkalite.protocol.errors import InvalidRequestException
from kafkalite.protocol.messages.produce import (
    PartitionProduceData, ProduceRequest, ProduceResponse, TopicProduceData,
)
from kafkalite.protocol.types import read_unsigned_varint, write_unsigned_varint

FIRST_VERSION, FIRST_FLEXIBLE_VERSION, LAST_VERSION = 3, 9, 9

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_ACKS_TIMEOUT = struct.Struct(">hi")
_INDEX_LENGTH = struct.Struct(">ii")
_I32_I16_I64_I64 = struct.Struct(">ihqq")        # index, error_code, base_offset, log_append_time_ms
_I32_I16_I64_I64_I64 = struct.Struct(">ihqqq")   # ... and log_start_offset (v5+)


# Kafka: ProduceRequest.parse
def read_produce_request(version: int, mv: memoryview, offset: int) -> ProduceRequest | None:
    """The request body at ``offset`` of ``mv`` (a byte memoryview), or None: use the schema codec."""
    if not FIRST_VERSION <= version <= LAST_VERSION:
        return None
    try:
        if version >= FIRST_FLEXIBLE_VERSION:
            return _read_flexible(mv, offset)
        return _read_classic(mv, offset)
    except (struct.error, UnicodeDecodeError, IndexError, InvalidRequestException):
        return None


def _read_classic(mv: memoryview, pos: int) -> ProduceRequest | None:
    end_of_buffer = len(mv)
    (n,) = _I16.unpack_from(mv, pos)
    pos += 2
    if n >= 0:
        if pos + n > end_of_buffer:
            return None
        transactional_id = str(mv[pos:pos + n], "utf-8")
        pos += n
    elif n == -1:
        transactional_id = None
    else:
        return None
    acks, timeout_ms = _ACKS_TIMEOUT.unpack_from(mv, pos)
    pos += 6
    (topic_count,) = _I32.unpack_from(mv, pos)
    pos += 4
    if topic_count < 0:
        return None
    topic_data = []
    for _ in range(topic_count):
        (n,) = _I16.unpack_from(mv, pos)
        pos += 2
        if n < 0 or pos + n > end_of_buffer:
            return None
        name = str(mv[pos:pos + n], "utf-8")
        pos += n
        (partition_count,) = _I32.unpack_from(mv, pos)
        pos += 4
        if partition_count < 0:
            return None
        partition_data = []
        for _ in range(partition_count):
            index, n = _INDEX_LENGTH.unpack_from(mv, pos)
            pos += 8
            if n >= 0:
                end = pos + n
                if end > end_of_buffer:
                    return None
                records = mv[pos:end]
                pos = end
            elif n == -1:
                records = None
            else:
                return None
            partition_data.append(PartitionProduceData(index=index, records=records))
        topic_data.append(TopicProduceData(name=name, partition_data=partition_data))
    return ProduceRequest(transactional_id=transactional_id, acks=acks, timeout_ms=timeout_ms,
                          topic_data=topic_data)


def _uvarint(mv: memoryview, pos: int) -> tuple[int, int]:
    b = mv[pos]
    if b < 0x80:
        return b, pos + 1
    return read_unsigned_varint(mv, pos)


def _read_flexible(mv: memoryview, pos: int) -> ProduceRequest | None:
    end_of_buffer = len(mv)
    n, pos = _uvarint(mv, pos)          # compact nullable string: 0 = null, else length + 1
    if n:
        n -= 1
        if pos + n > end_of_buffer:
            return None
        transactional_id = str(mv[pos:pos + n], "utf-8")
        pos += n
    else:
        transactional_id = None
    acks, timeout_ms = _ACKS_TIMEOUT.unpack_from(mv, pos)
    pos += 6
    topic_count, pos = _uvarint(mv, pos)
    if topic_count == 0:                # a null array: the schema codec refuses it
        return None
    topic_data = []
    for _ in range(topic_count - 1):
        n, pos = _uvarint(mv, pos)
        if n == 0 or pos + n - 1 > end_of_buffer:
            return None
        name = str(mv[pos:pos + n - 1], "utf-8")
        pos += n - 1
        partition_count, pos = _uvarint(mv, pos)
        if partition_count == 0:
            return None
        partition_data = []
        for _ in range(partition_count - 1):
            (index,) = _I32.unpack_from(mv, pos)
            n, pos = _uvarint(mv, pos + 4)
            if n:
                end = pos + n - 1
                if end > end_of_buffer:
                    return None
                records = mv[pos:end]
                pos = end
            else:
                records = None
            if mv[pos] != 0:            # tagged fields present
                return None
            pos += 1
            partition_data.append(PartitionProduceData(index=index, records=records))
        if mv[pos] != 0:
            return None
        pos += 1
        topic_data.append(TopicProduceData(name=name, partition_data=partition_data))
    if mv[pos] != 0:
        return None
    return ProduceRequest(transactional_id=transactional_id, acks=acks, timeout_ms=timeout_ms,
                          topic_data=topic_data)


def _write_string(out: bytearray, raw: bytes, flexible: bool) -> bool:
    """A (compact) string's length and bytes; False when a classic string is too long (the schema says why)."""
    if flexible:
        write_unsigned_varint(out, len(raw) + 1)
    elif len(raw) > 0x7FFF:
        return False
    else:
        out += _I16.pack(len(raw))
    out += raw
    return True


# Kafka: ProduceResponse.toStruct
def write_produce_response(body: ProduceResponse, version: int) -> bytes | None:
    """``body`` encoded at ``version``, or None: use the schema codec."""
    if not FIRST_VERSION <= version <= LAST_VERSION or type(body) is not ProduceResponse or body.unknown_tagged_fields:
        return None
    flexible = version >= FIRST_FLEXIBLE_VERSION
    fixed = _I32_I16_I64_I64_I64 if version >= 5 else _I32_I16_I64_I64
    out = bytearray()
    responses = body.responses
    if flexible:
        write_unsigned_varint(out, len(responses) + 1)
    else:
        out += _I32.pack(len(responses))
    for topic in responses:
        if topic.unknown_tagged_fields:
            return None
        if not _write_string(out, topic.name.encode("utf-8"), flexible):
            return None
        partitions = topic.partition_responses
        if flexible:
            write_unsigned_varint(out, len(partitions) + 1)
        else:
            out += _I32.pack(len(partitions))
        for p in partitions:
            if p.record_errors or p.unknown_tagged_fields:
                return None
            if version >= 5:
                out += fixed.pack(p.index, p.error_code, p.base_offset, p.log_append_time_ms, p.log_start_offset)
            else:
                out += fixed.pack(p.index, p.error_code, p.base_offset, p.log_append_time_ms)
            if version >= 8:
                if flexible:
                    out += b"\x01"      # record_errors: an empty compact array
                else:
                    out += b"\x00\x00\x00\x00"
                message = p.error_message
                if message is None:
                    out += b"\x00" if flexible else b"\xff\xff"
                elif not _write_string(out, message.encode("utf-8"), flexible):
                    return None
            if flexible:
                out += b"\x00"
        if flexible:
            out += b"\x00"
    out += _I32.pack(body.throttle_time_ms)
    if flexible:
        out += b"\x00"
    return bytes(out)

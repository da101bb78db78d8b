"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/KafkaLZ4BlockOutputStream.java
and KafkaLZ4BlockInputStream.java (same directory) -- the frame-header checksum of magic 0 only.

Classes: none; functions ``xxhash32``, ``with_broken_flag_descriptor_checksum`` and
``with_proper_flag_descriptor_checksum``.

An LZ4 frame starts ``magic(4) FLG(1) BD(1) [content size(8)] [dictionary id(4)] HC(1)``, HC being the second
byte of the xxHash32 of the descriptor (FLG up to HC). Kafka 0.8-0.9 hashed from the start of the frame,
magic included (KAFKA-3160); KIP-57 fixed it for magic 1+, and Kafka 2.4 still writes and reads the broken
byte for magic 0 (``useBrokenFlagDescriptorChecksum``, ``ignoreFlagDescriptorChecksum``). kafkalite compresses
and decompresses whole frames with cramjam, which writes and checks the proper byte, so a magic 0 wrapper
gets its header byte swapped on the way out (down-conversion to magic 0) and on the way in (Produce v0-1),
as librdkafka does.
"""
from __future__ import annotations

_P1, _P2, _P3, _P4, _P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
_M = 0xFFFFFFFF
FRAME_MAGIC = b"\x04\x22\x4d\x18"


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M


# net.jpountz.xxhash.XXHash32.hash -- a plain XXH32 (the descriptor is a few bytes long)
def xxhash32(data: bytes, seed: int = 0) -> int:
    n, pos = len(data), 0
    if n >= 16:
        v1, v2, v3, v4 = (seed + _P1 + _P2) & _M, (seed + _P2) & _M, seed & _M, (seed - _P1) & _M
        while pos + 16 <= n:
            lanes = [int.from_bytes(data[pos + 4 * i:pos + 4 * i + 4], "little") for i in range(4)]
            v1 = (_rotl((v1 + lanes[0] * _P2) & _M, 13) * _P1) & _M
            v2 = (_rotl((v2 + lanes[1] * _P2) & _M, 13) * _P1) & _M
            v3 = (_rotl((v3 + lanes[2] * _P2) & _M, 13) * _P1) & _M
            v4 = (_rotl((v4 + lanes[3] * _P2) & _M, 13) * _P1) & _M
            pos += 16
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _M
    else:
        h = (seed + _P5) & _M
    h = (h + n) & _M
    while pos + 4 <= n:
        h = (_rotl((h + int.from_bytes(data[pos:pos + 4], "little") * _P3) & _M, 17) * _P4) & _M
        pos += 4
    while pos < n:
        h = (_rotl((h + data[pos] * _P5) & _M, 11) * _P1) & _M
        pos += 1
    h ^= h >> 15
    h = (h * _P2) & _M
    h ^= h >> 13
    h = (h * _P3) & _M
    return h ^ (h >> 16)


def _hc_position(frame) -> int:
    if bytes(frame[:4]) != FRAME_MAGIC or len(frame) < 7:
        raise ValueError("not an LZ4 frame")
    flg = frame[4]
    return 6 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)


# Kafka: KafkaLZ4BlockOutputStream.writeHeader (with useBrokenFlagDescriptorChecksum)
def with_broken_flag_descriptor_checksum(frame: bytes) -> bytes:
    at = _hc_position(frame)
    out = bytearray(frame)
    out[at] = (xxhash32(bytes(frame[:at])) >> 8) & 0xFF
    return bytes(out)


# Kafka: KafkaLZ4BlockInputStream.readHeader (ignoreFlagDescriptorChecksum) -- what cramjam will accept
def with_proper_flag_descriptor_checksum(frame) -> bytes:
    at = _hc_position(frame)
    out = bytearray(frame)
    out[at] = (xxhash32(bytes(frame[4:at])) >> 8) & 0xFF
    return bytes(out)

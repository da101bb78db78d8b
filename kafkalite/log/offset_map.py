"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/OffsetMap.scala

Classes: OffsetMap (what the cleaner needs of a key -> latest offset map) and SkimpyOffsetMap, the
cleaner's dedupe buffer: one flat ``bytearray`` of ``memory`` bytes cut into slots of (hash of the key,
8-byte offset), filled by open addressing. The map never stores keys, only their digests (MD5, 16 bytes),
so a fixed memory budget (``log.cleaner.dedupe.buffer.size`` shared by the cleaner threads) holds a known
number of keys: ``slots = memory // (16 + 8)``. Two keys with the same digest count as one key, as in Kafka.

Probing: the first attempts read successive 4-byte windows of the digest as the slot number; once the
digest is used up, the probe moves on linearly.

Deviation: the buffer is an anonymous ``mmap`` (zero pages the kernel commits only when a slot is written, so an
idle broker does not hold the 128 MiB default in memory), and ``clear`` maps a fresh one instead of
zero-filling the old one in place (the same result). Left out: a configurable hash algorithm
(kafkalite always uses MD5, Kafka's default).
"""
from __future__ import annotations

import mmap
import struct

_OFFSET = struct.Struct(">q")
_PROBE = struct.Struct(">i")
_EMPTY_ENTRY = bytes(16 + 8)


class OffsetMap:
    """Kafka: OffsetMap -- the interface the Cleaner uses."""

    slots: int

    def put(self, key: bytes, offset: int) -> None:
        raise NotImplementedError

    def get(self, key: bytes) -> int:
        raise NotImplementedError

    def update_latest_offset(self, offset: int) -> None:
        raise NotImplementedError

    def clear(self) -> None:
        raise NotImplementedError

    @property
    def size(self) -> int:
        raise NotImplementedError

    @property
    def latest_offset(self) -> int:
        raise NotImplementedError

    # Kafka: OffsetMap.utilization
    @property
    def utilization(self) -> float:
        return self.size / self.slots


_md5 = None   # hashlib.md5, loaded by the first put/get


def _digest(key: bytes) -> bytes:
    """MD5 of a key. hashlib (Python's OpenSSL binding, ~4 ms to load) is imported by the first key, not at
    start-up, where each cleaner thread already builds its map (issue 18)."""
    global _md5
    if _md5 is None:
        from hashlib import md5
        _md5 = md5
    return _md5(key).digest()


class SkimpyOffsetMap(OffsetMap):
    """Kafka: SkimpyOffsetMap."""

    hash_size = 16   # MD5

    # Kafka: SkimpyOffsetMap.<init>
    def __init__(self, memory: int):
        self.memory = memory
        self.bytes_per_entry = self.hash_size + 8
        self.slots = memory // self.bytes_per_entry
        self._bytes = self._new_buffer()
        self.entries = 0
        self.lookups = 0
        self.probes = 0
        self.last_offset = -1

    def _new_buffer(self):
        return mmap.mmap(-1, max(1, self.slots * self.bytes_per_entry))

    # Kafka: SkimpyOffsetMap.positionOf -- a 4-byte window of the digest, then linear steps past its end
    def _position_of(self, digest: bytes, attempt: int) -> int:
        window = min(attempt, self.hash_size - 4)
        probe = _PROBE.unpack_from(digest, window)[0] + max(0, attempt - self.hash_size + 4)
        self.probes += 1
        return (abs(probe) % self.slots) * self.bytes_per_entry

    def _is_empty(self, pos: int) -> bool:
        return self._bytes[pos:pos + self.bytes_per_entry] == _EMPTY_ENTRY

    def _offset_at(self, pos: int) -> int:
        return _OFFSET.unpack_from(self._bytes, pos + self.hash_size)[0]

    # Kafka: SkimpyOffsetMap.put -- overwrite the slot holding this digest, or take the first empty one
    def put(self, key: bytes, offset: int) -> None:
        if self.entries >= self.slots:
            raise ValueError("Attempt to add a new entry to a full offset map.")
        self.lookups += 1
        digest = _digest(key)
        buf, hs = self._bytes, self.hash_size
        attempt = 0
        pos = self._position_of(digest, attempt)
        while not self._is_empty(pos):
            if buf[pos:pos + hs] == digest:
                _OFFSET.pack_into(buf, pos + hs, offset)
                self.last_offset = offset
                return
            attempt += 1
            pos = self._position_of(digest, attempt)
        buf[pos:pos + hs] = digest
        _OFFSET.pack_into(buf, pos + hs, offset)
        self.last_offset = offset
        self.entries += 1

    # Kafka: SkimpyOffsetMap.get -- the latest offset stored for the key's digest, -1 if none
    def get(self, key: bytes) -> int:
        self.lookups += 1
        digest = _digest(key)
        buf, hs = self._bytes, self.hash_size
        max_attempts = self.slots + hs - 4
        attempt = 0
        while attempt < max_attempts:
            pos = self._position_of(digest, attempt)
            if self._is_empty(pos):
                return -1
            if buf[pos:pos + hs] == digest:
                return self._offset_at(pos)
            attempt += 1
        return -1

    # Kafka: SkimpyOffsetMap.clear
    def clear(self) -> None:
        self.entries = 0
        self.lookups = 0
        self.probes = 0
        self.last_offset = -1
        self._bytes.close()
        self._bytes = self._new_buffer()

    @property
    def size(self) -> int:
        return self.entries

    # Kafka: SkimpyOffsetMap.collisionRate
    @property
    def collision_rate(self) -> float:
        return (self.probes - self.lookups) / self.lookups if self.lookups else 0.0

    @property
    def latest_offset(self) -> int:
        return self.last_offset

    # Kafka: SkimpyOffsetMap.updateLatestOffset
    def update_latest_offset(self, offset: int) -> None:
        self.last_offset = offset

"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/CompressionType.java

Classes: CompressionType (NONE=0, GZIP=1, SNAPPY=2, LZ4=3, ZSTD=4), each able to compress and
decompress the records section of a v2 batch.

Kafka wraps streams (GZIPOutputStream, xerial SnappyOutputStream, KafkaLZ4BlockOutputStream,
ZstdOutputStream); here each codec is one call: gzip through ``zlib``, the rest through
``cramjam`` (the optional ``compression`` extra).
Formats on the wire, as the Java producer writes them:
- gzip: a gzip member (RFC 1952).
- snappy: xerial framing (magic ``\\x82SNAPPY\\x00``, two version ints, then length-prefixed raw
  blocks); some clients send one raw snappy block, which ``decompress`` also accepts.
- lz4: the LZ4 frame format (magic ``04 22 4D 18``), as KIP-57 fixed it.
- zstd: a zstd frame.
Left out: compression levels (KIP-390 is 2.8+), buffer pools.
"""
from __future__ import annotations

import enum
import struct
import zlib

_XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_BLOCK = 32 * 1024


def _cramjam():
    try:
        import cramjam
    except ImportError as e:  # pragma: no cover - cramjam is installed in tests
        raise RuntimeError("snappy/lz4/zstd need the 'compression' extra (cramjam)") from e
    return cramjam


def _snappy_compress(data: bytes) -> bytes:
    snappy = _cramjam().snappy
    out = [_XERIAL_MAGIC, struct.pack(">ii", 1, 1)]
    view = memoryview(data)
    for start in range(0, len(view), _XERIAL_BLOCK):
        block = bytes(snappy.compress_raw(view[start:start + _XERIAL_BLOCK]))
        out.append(struct.pack(">i", len(block)))
        out.append(block)
    return b"".join(out)


def _snappy_decompress(data) -> bytes:
    snappy = _cramjam().snappy
    data = bytes(data)
    if not data.startswith(_XERIAL_MAGIC):
        return bytes(snappy.decompress_raw(data))
    pos, out = 16, []  # magic (8) + version (4) + compatible version (4)
    while pos < len(data):
        (length,) = struct.unpack_from(">i", data, pos)
        pos += 4
        out.append(bytes(snappy.decompress_raw(data[pos:pos + length])))
        pos += length
    return b"".join(out)


class CompressionType(enum.Enum):
    """Kafka: CompressionType -- the codec in bits 0-2 of a batch's attributes."""

    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4

    @property
    def id(self) -> int:
        return self.value

    @property
    def lower_name(self) -> str:
        """Kafka: CompressionType.name -- the config spelling (``compression.type=gzip``)."""
        return self.name.lower()

    def __str__(self) -> str:
        return self.name

    # Kafka: CompressionType.forId
    @classmethod
    def for_id(cls, id_: int) -> "CompressionType":
        try:
            return cls(id_)
        except ValueError:
            raise ValueError(f"Unknown compression type id: {id_}") from None

    # Kafka: CompressionType.forName
    @classmethod
    def for_name(cls, name: str) -> "CompressionType":
        try:
            return cls[name.upper()]
        except KeyError:
            raise ValueError(f"Unknown compression name: {name}") from None

    # Kafka: CompressionType.wrapForOutput (whole buffer at once)
    def compress(self, data) -> bytes:
        if self is CompressionType.NONE:
            return bytes(data)
        if self is CompressionType.GZIP:
            c = zlib.compressobj(wbits=31)
            return c.compress(data) + c.flush()
        if self is CompressionType.SNAPPY:
            return _snappy_compress(data)
        if self is CompressionType.LZ4:
            return bytes(_cramjam().lz4.compress(bytes(data)))
        return bytes(_cramjam().zstd.compress(bytes(data)))

    # Kafka: CompressionType.wrapForInput (whole buffer at once)
    def decompress(self, data) -> bytes:
        if self is CompressionType.NONE:
            return bytes(data)
        if self is CompressionType.GZIP:
            return zlib.decompress(bytes(data), wbits=47)  # 32+15: gzip or zlib header
        if self is CompressionType.SNAPPY:
            return _snappy_decompress(data)
        if self is CompressionType.LZ4:
            return bytes(_cramjam().lz4.decompress(bytes(data)))
        return bytes(_cramjam().zstd.decompress(bytes(data)))

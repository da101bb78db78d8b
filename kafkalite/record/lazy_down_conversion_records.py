"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/LazyDownConversionRecords.java
(and LazyDownConversionRecordsSend.java, same directory)

Classes: LazyDownConversionRecords -- the records of one partition of a Fetch v0-3 response: the log slice
read for it, down-converted to magic 0 or 1 (records_util.down_convert): the first batch alone, then chunks of at
most 128 KiB of stored batches (at least one batch each).

Kafka's rules, kept:
- the response carries ``max(stored size, size of the first converted chunk)`` bytes (``size_in_bytes``), so
  a consumer always gets at least one whole converted batch, however small its fetch size;
- chunks are converted until that many bytes exist; the last one is cut at that size, so the answer may end
  in a partial message, which old consumers skip (as they skip a partial batch in any fetch).
Era notes / differences: Kafka converts lazily while the network thread writes the response (the point of
KIP-283: never hold a whole converted response in memory); kafkalite converts in the request handler
thread when the response is built, chunk by chunk and only as far as the size, and sends the result as
bytes (this is the one fetch path that does not use sendfile). When the converted data is shorter than the
size Kafka pads the send with an "overflow" batch header that consumers ignore; kafkalite, knowing the
size before it sends, answers the shorter bytes instead.
"""
from __future__ import annotations

from kafkalite.record.default_record_batch import DefaultRecordBatch
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.record.records_util import RecordConversionStats, down_convert

MAX_READ_SIZE = 128 * 1024      # Kafka: LazyDownConversionRecordsSend.MAX_READ_SIZE


def _stored_bytes(records) -> memoryview:
    if records is None:
        return memoryview(b"")
    if isinstance(records, MemoryRecords):
        return records.buffer
    if hasattr(records, "read_bytes"):           # a FileRecords slice of a segment
        return memoryview(records.read_bytes())
    return memoryview(records)


class LazyDownConversionRecords:
    """Kafka: LazyDownConversionRecords -- ``records`` (bytes) is what the response sends."""

    # Kafka: LazyDownConversionRecords.<init>
    def __init__(self, topic_partition, records, to_magic: int, first_offset: int):
        self.topic_partition = topic_partition
        self.to_magic = to_magic
        self.first_offset = first_offset
        self.stats = RecordConversionStats()
        self._next_batch = 0
        stored = _stored_bytes(records)
        self.batches: list[DefaultRecordBatch] = list(MemoryRecords(stored).batches())
        # To make progress, a consumer needs at least one whole converted batch: the first one sets the size
        chunks = self.iterator(0)
        first = next(chunks, None)
        if first is None:
            self._size_in_bytes, self.records = 0, b""
            return
        self._size_in_bytes = max(len(stored), len(first))
        out = bytearray(first)
        for chunk in self.iterator(MAX_READ_SIZE, start=self._next_batch):
            if len(out) >= self._size_in_bytes:
                break
            out += chunk
        # Kafka: LazyDownConversionRecordsSend.writeTo -- never more than sizeInBytes
        self.records = bytes(out[:self._size_in_bytes])

    # Kafka: LazyDownConversionRecords.sizeInBytes (of what is sent: see the module docstring)
    def size_in_bytes(self) -> int:
        return len(self.records)

    # Kafka: LazyDownConversionRecords.iterator -- converted chunks of at most ``maximum_read_size`` stored bytes
    # (one batch at least), from batch ``start`` on
    def iterator(self, maximum_read_size: int, start: int = 0):
        batches, i = self.batches, start
        while i < len(batches):
            chunk: list[DefaultRecordBatch] = []
            size = 0
            while i < len(batches) and (not chunk or size + batches[i].size_in_bytes <= maximum_read_size):
                chunk.append(batches[i])
                size += batches[i].size_in_bytes
                i += 1
            self._next_batch = i
            converted = down_convert(chunk, self.to_magic, self.first_offset)
            self.stats.num_records_converted += converted.record_conversion_stats.num_records_converted
            self.stats.temporary_memory_bytes += converted.record_conversion_stats.temporary_memory_bytes
            self.stats.conversion_time_nanos += converted.record_conversion_stats.conversion_time_nanos
            if converted.records:        # a chunk of control batches only converts to nothing
                yield converted.records

    def __repr__(self) -> str:
        return (f"LazyDownConversionRecords(size={self.size_in_bytes()}, underlying={len(self.batches)} batches, "
                f"toMagic={self.to_magic}, firstOffset={self.first_offset})")

"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/FileRecords.java
(plus FileLogInputStream.FileChannelRecordBatch)

Classes: FileRecords (record batches in a segment's ``.log`` file, or a slice of one),
FileChannelRecordBatch (a batch found in a file: header read, body loaded on demand),
LogOffsetPosition, TimestampAndOffset, FileChannel (the open descriptor a file and its slices
share) and ClosedChannelException.

Python equivalents of Kafka's FileChannel calls:
- ``channel.write`` -> one ``os.write`` of the batch bytes on an ``O_APPEND`` descriptor;
- ``channel.read(buf, pos)`` -> ``os.pread`` / ``os.preadv`` (position-independent, so readers
  need no lock against the appender);
- ``channel.transferTo`` -> ``os.sendfile(sock, fd, offset, count)``: fetch data goes from the
  page cache to the socket without passing through Python (``write_to``).
A slice shares its parent's ``FileChannel`` object (not a copy of the descriptor number) and never
closes it. Once the parent is closed, every read or sendfile through any slice raises
``ClosedChannelException``, as Java's ``transferTo`` does on a closed channel; the network layer
then closes that one connection. Each syscall pins the descriptor while it runs, so a close that
races with it takes effect when the syscall ends: the number is never reused under a reader,
and a slice never sends another file's bytes.

Left out: preallocation (``log.preallocate``), ``downConvert`` (no message-format conversion),
``renameTo``/``.deleted`` suffixes (segments are deleted at once, see LogSegment).
"""
from __future__ import annotations

import os
import threading
from typing import Iterator

import attrs

from kafkalite.protocol.errors import CorruptRecordException
from kafkalite.record.default_record_batch import (
    LENGTH_OFFSET, LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, DefaultRecordBatch, _I32)
from kafkalite.record.memory_records import MIN_RECORD_OVERHEAD
from kafkalite.record.record_batch import RecordBatch

_INT_MAX = 0x7FFFFFFF


class ClosedChannelException(OSError):
    """Java's java.nio.channels.ClosedChannelException: the file was closed under this reader."""


class FileChannel:
    """Stand-in for java.nio.channels.FileChannel: one open descriptor, shared by a file and its slices.

    ``acquire()`` pins the descriptor for one syscall (raising ``ClosedChannelException`` once the
    channel is closed) and ``release()`` unpins it; ``close()`` closes the descriptor at once when
    nothing is pinned, otherwise when the last pinned syscall ends. So the descriptor number is
    never handed back to the OS (and reused for another file) while a read or sendfile uses it.
    """

    __slots__ = ("_fd", "_in_use", "_closed", "_lock")

    def __init__(self, fd: int):
        self._fd = fd
        self._in_use = 0
        self._closed = False
        self._lock = threading.Lock()

    @property
    def fd(self) -> int:
        """The descriptor, or -1 once ``close()`` was called."""
        return -1 if self._closed else self._fd

    # Kafka: FileChannel.isOpen
    def is_open(self) -> bool:
        return not self._closed

    def acquire(self) -> int:
        with self._lock:
            if self._closed:
                raise ClosedChannelException("the file behind this FileRecords was closed")
            self._in_use += 1
            return self._fd

    def release(self) -> None:
        with self._lock:
            self._in_use -= 1
            if self._closed and self._in_use == 0:
                self._close_fd()

    # Kafka: FileChannel.close
    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._in_use == 0:
                self._close_fd()

    def _close_fd(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


@attrs.frozen
class LogOffsetPosition:
    """Kafka: FileRecords.LogOffsetPosition -- a batch's last offset, file position and size."""

    offset: int
    position: int
    size: int


@attrs.frozen
class TimestampAndOffset:
    """Kafka: FileRecords.TimestampAndOffset (leader_epoch None = Optional.empty)."""

    timestamp: int
    offset: int
    leader_epoch: int | None = None


class FileChannelRecordBatch(DefaultRecordBatch):
    """Kafka: FileLogInputStream.FileChannelRecordBatch -- header in memory, body in the file.

    Header accessors come from ``DefaultRecordBatch`` over the 61 header bytes; validation and
    iteration first read the whole batch (``load_full_batch``).
    """

    __slots__ = ("position", "_file_records", "_full")

    def __init__(self, header, file_records: "FileRecords", position: int):
        super().__init__(header)
        self.position = position
        self._file_records = file_records
        self._full: DefaultRecordBatch | None = None

    # Kafka: FileChannelRecordBatch.loadFullBatch
    def load_full_batch(self) -> DefaultRecordBatch:
        if self._full is None:
            buf = bytearray(self.size_in_bytes)
            n = self._file_records.read_into(buf, self.position)
            self._full = DefaultRecordBatch(memoryview(buf)[:n])
        return self._full

    def compute_checksum(self) -> int:
        return self.load_full_batch().compute_checksum()

    def ensure_valid(self) -> None:
        if len(self.buffer) < RECORD_BATCH_OVERHEAD:
            raise CorruptRecordException(
                f"Record batch at position {self.position} is cut short inside its {RECORD_BATCH_OVERHEAD}-byte header")
        self.load_full_batch().ensure_valid()

    def __iter__(self):
        return iter(self.load_full_batch())


class FileRecords:
    """Kafka: FileRecords -- a file (or a [start, end) slice of it) holding record batches."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = ('file', 'channel', 'start', 'end', 'is_slice', '_size', '_written_since_flush')

    # Kafka: FileRecords.<init>
    def __init__(self, file: str, channel: FileChannel | int, start: int, end: int, is_slice: bool):
        """``channel`` is the shared FileChannel (a plain descriptor is wrapped in a new one)."""
        self.file = file
        self.channel = channel if isinstance(channel, FileChannel) else FileChannel(channel)
        self.start = start
        self.end = end
        self.is_slice = is_slice
        # Kafka keeps an AtomicInteger; Python int assignment is atomic under the GIL.
        self._size = end - start if is_slice else os.fstat(self.channel.fd).st_size
        # No Kafka counterpart: whether this object changed the file since its last fsync (see close)
        self._written_since_flush = False

    @property
    def fd(self) -> int:
        """The shared descriptor, or -1 once the file was closed."""
        return self.channel.fd

    # Kafka: FileRecords.open
    @classmethod
    def open(cls, file: str, file_already_exists: bool = False, init_file_size: int = 0,
             preallocate: bool = False) -> "FileRecords":
        flags = os.O_RDWR | os.O_CREAT | os.O_APPEND
        fd = os.open(file, flags, 0o644)
        return cls(file, fd, 0, _INT_MAX, False)

    # Kafka: FileRecords.sizeInBytes
    def size_in_bytes(self) -> int:
        return self._size

    # Kafka: FileRecords.append
    def append(self, records) -> int:
        """Write a MemoryRecords' bytes at the end of the file; return how many were written."""
        if self.is_slice:
            raise RuntimeError("Cannot append to a slice of a FileRecords")
        view = records.buffer
        total = len(view)
        if self._size > _INT_MAX - total:
            raise ValueError(f"Append of size {total} bytes is too large for segment with current "
                             f"file position at {self._size}")
        written = 0
        fd = self.channel.acquire()
        try:
            try:
                while written < total:  # a regular file takes it all in one write; loop only for safety
                    written += os.write(fd, view[written:])
            except BaseException:
                # A full disk (ENOSPC) or an I/O error may leave part of the batch on disk: cut the file
                # back to what it held, so no partial batch ever sits behind later appends.
                try:
                    os.ftruncate(fd, self.start + self._size)
                except OSError:
                    pass   # the caller takes the log dir offline; recovery cuts the tail at start-up
                raise
        finally:
            self.channel.release()
        self._size += written
        self._written_since_flush = True
        return written

    # Kafka 3.x: FileRecords.availableBytes (checks) + slice
    def slice(self, position: int, size: int) -> "FileRecords":
        current = self.size_in_bytes()
        if position < 0:
            raise ValueError(f"Invalid position: {position} in read from {self}")
        if position > current:
            raise ValueError(f"Slice from position {position} exceeds end position of {self}")
        if size < 0:
            raise ValueError(f"Invalid size: {size} in read from {self}")
        end = self.start + position + size
        if end > self.start + current:
            end = self.start + current
        return FileRecords(self.file, self.channel, self.start + position, end, True)

    # Kafka: FileRecords.readInto
    def read_into(self, buf, position: int) -> int:
        """Read up to len(buf) bytes from ``position`` (relative to this slice) into ``buf``."""
        want = min(len(buf), self.size_in_bytes() - position)
        if want <= 0:
            return 0
        return self._pread_into(buf, want, self.start + position)

    def read_bytes(self, position: int = 0, size: int | None = None) -> bytes:
        """Copy bytes out of the file (tests and tools; the fetch path uses ``write_to``)."""
        size = self.size_in_bytes() - position if size is None else size
        return self._pread(max(0, size), self.start + position)

    def _pread(self, size: int, file_position: int) -> bytes:
        fd = self.channel.acquire()
        try:
            return os.pread(fd, size, file_position)
        finally:
            self.channel.release()

    def _pread_into(self, buf, size: int, file_position: int) -> int:
        fd = self.channel.acquire()
        try:
            return os.preadv(fd, [memoryview(buf)[:size]], file_position)
        finally:
            self.channel.release()

    # Kafka: FileRecords.writeTo (TransportLayer.transferFrom -> FileChannel.transferTo)
    def write_to(self, sock, offset: int, length: int) -> int:
        """sendfile() up to ``length`` bytes from ``offset`` in this slice; return bytes sent.

        A non-blocking socket may take fewer bytes than asked (the caller resumes later) or none
        (``BlockingIOError`` -> 0). A closed file raises ``ClosedChannelException``.
        """
        size = self.size_in_bytes()
        count = min(length, size - offset)
        if count <= 0:
            return 0
        fd = self.channel.acquire()
        try:
            return os.sendfile(sock.fileno(), fd, self.start + offset, count)
        except BlockingIOError:
            return 0
        finally:
            self.channel.release()

    # Kafka: FileRecords.batchesFrom / batches (FileLogInputStream.nextBatch)
    def batches(self, start: int = 0) -> Iterator[FileChannelRecordBatch]:
        """Shallow iteration: read each batch's header only, starting at ``start``."""
        position, end = self.start + start, self.start + self.size_in_bytes()
        while end - position >= LOG_OVERHEAD:
            header = self._pread(min(RECORD_BATCH_OVERHEAD, end - position), position)
            if len(header) < LOG_OVERHEAD:
                return
            (record_size,) = _I32.unpack_from(header, LENGTH_OFFSET)
            if record_size < MIN_RECORD_OVERHEAD:
                raise CorruptRecordException(
                    f"Found record size {record_size} smaller than minimum record overhead "
                    f"({MIN_RECORD_OVERHEAD}) in file {self.file} at position {position}.")
            if position + LOG_OVERHEAD + record_size > end:
                return  # a partial batch at the end (a crash mid-write, or a slice boundary)
            yield FileChannelRecordBatch(header, self, position - self.start)
            position += LOG_OVERHEAD + record_size

    # Kafka: FileRecords.searchForOffsetWithSize
    def search_for_offset_with_size(self, target_offset: int, starting_position: int) -> LogOffsetPosition | None:
        """The first batch whose last offset is >= ``target_offset`` (headers only)."""
        for batch in self.batches(starting_position):
            if batch.last_offset >= target_offset:
                return LogOffsetPosition(batch.last_offset, batch.position, batch.size_in_bytes)
        return None

    # Kafka: FileRecords.searchForTimestamp
    def search_for_timestamp(self, target_timestamp: int, starting_position: int,
                             starting_offset: int) -> TimestampAndOffset | None:
        """The first record with timestamp >= target and offset >= starting_offset.

        Batch headers narrow the search; only the matching batch is decoded (ListOffsets path).
        """
        for batch in self.batches(starting_position):
            if batch.max_timestamp >= target_timestamp:
                for record in batch:
                    if record.timestamp >= target_timestamp and record.offset >= starting_offset:
                        epoch = batch.partition_leader_epoch
                        return TimestampAndOffset(record.timestamp, record.offset,
                                                  None if epoch == RecordBatch.NO_PARTITION_LEADER_EPOCH else epoch)
        return None

    # Kafka: FileRecords.largestTimestampAfter
    def largest_timestamp_after(self, starting_position: int) -> TimestampAndOffset:
        max_ts, offset, epoch = RecordBatch.NO_TIMESTAMP, -1, RecordBatch.NO_PARTITION_LEADER_EPOCH
        for batch in self.batches(starting_position):
            if batch.max_timestamp > max_ts:
                max_ts, offset, epoch = batch.max_timestamp, batch.last_offset, batch.partition_leader_epoch
        return TimestampAndOffset(max_ts, offset, None if epoch == RecordBatch.NO_PARTITION_LEADER_EPOCH else epoch)

    # Kafka: FileRecords.truncateTo
    def truncate_to(self, target_size: int) -> int:
        """Cut the file to ``target_size`` bytes; return how many bytes were removed."""
        original = self.size_in_bytes()
        if target_size > original or target_size < 0:
            raise ValueError(f"Attempt to truncate log segment {self.file} to {target_size} bytes failed, "
                             f"size of this log segment is {original} bytes.")
        fd = self.channel.acquire()
        try:
            if target_size < os.fstat(fd).st_size:
                os.ftruncate(fd, target_size)
                self._written_since_flush = True
        finally:
            self.channel.release()
        self._size = target_size
        return original - target_size

    # Kafka: FileRecords.flush
    def flush(self) -> None:
        fd = self.channel.acquire()
        try:
            self._written_since_flush = False
            os.fsync(fd)
        finally:
            self.channel.release()

    def mark_unflushed(self) -> None:
        """No Kafka counterpart: the file may hold bytes no fsync covered (a broker that crashed wrote them),
        so the next close fsyncs it, as Kafka's close always does."""
        self._written_since_flush = True

    # Kafka: FileRecords.trim (undo preallocation; kafkalite does not preallocate)
    def trim(self) -> None:
        self.truncate_to(self.size_in_bytes())

    # Kafka: FileRecords.close
    def close(self) -> None:
        """Kafka fsyncs every segment it closes. kafkalite skips the fsync when this object wrote nothing
        since its last one: an fsync of an unchanged file still costs the disk a cache flush (0.6-3 ms
        here), 10,000 of them made a clean shutdown of 10,000 partitions take tens of seconds. What such a
        file holds is already durable: flushed by this object or, for a file opened at start-up after a clean
        shutdown, by the previous broker's close; after a crash the loader marks every segment unflushed
        (``mark_unflushed``: what the crashed broker wrote may still be only in the page cache, and the
        recovery point moves to the log end without an fsync, as in Kafka)."""
        if self.is_slice or self.fd < 0:
            return
        if self._written_since_flush:
            self.flush()
        self.trim()
        self.close_handlers()

    # Kafka: FileRecords.closeHandlers
    def close_handlers(self) -> None:
        """Close the shared channel (a slice leaves it to its parent); its slices fail from now on."""
        if not self.is_slice:
            self.channel.close()

    # Kafka: FileRecords.deleteIfExists
    def delete_if_exists(self) -> bool:
        self.close_handlers()
        try:
            os.unlink(self.file)
            return True
        except FileNotFoundError:
            return False

    # Kafka: FileRecords.renameTo (used for async topic deletion in Kafka; here for tools)
    def rename_to(self, path: str) -> None:
        os.replace(self.file, path)
        self.file = path

    def __repr__(self) -> str:
        return f"FileRecords(file={self.file}, start={self.start}, end={self.end}, size={self.size_in_bytes()})"

"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/TransactionIndex.scala

Classes: AbortedTxn (one 34-byte entry), TxnIndexSearchResult, TransactionIndex (the ``.txnindex``
file of one segment).

Each segment keeps the transactions that were *aborted* with their ABORT marker in it: producer id,
first offset, last offset (the marker's offset) and the last stable offset at the moment the marker
was written. A read_committed fetch asks the segments it reads for the aborted transactions that
overlap the fetched range (``collect_aborted_txns``) and sends them with the data, so the consumer
can drop those producers' batches. The LSO stored with each entry lets the search stop early: once
an entry's LSO is at or beyond the fetch's upper bound, no later entry can start below it.

Entry layout (big-endian): version int16 (0), producerId int64, firstOffset int64, lastOffset
int64, lastStableOffset int64. Entries are appended in increasing last offset.

The file is created only when the first aborted transaction is appended (most segments have
none); a missing file reads as an empty index. Plain ``os.pwrite``/``os.pread`` on a descriptor
stand in for Kafka's FileChannel.

Descriptors: the channel is opened by the first ``append`` or ``truncate_to`` (Kafka's ``channel()``
opening ``maybeChannel``) and then kept until ``close``; reads and the sanity check of an index whose
channel is not open read the file with a descriptor opened for that read only. Kafka 2.4 opens the channel
of an existing file in the constructor, which would keep a descriptor for every segment that ever saw an
aborted transaction; kafkalite reads the last offset there and closes the file again.
"""
from __future__ import annotations

import os
import struct

import attrs

from kafkalite.log.abstract_index import CorruptIndexException
from kafkalite.utils.logging import Logging

_ENTRY = struct.Struct(">hqqqq")
ABORTED_TXN_TOTAL_SIZE = _ENTRY.size      # Kafka: AbortedTxn.TotalSize (34)
ABORTED_TXN_CURRENT_VERSION = 0           # Kafka: AbortedTxn.CurrentVersion


@attrs.frozen
class AbortedTxn:
    """Kafka: AbortedTxn."""

    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int
    version: int = ABORTED_TXN_CURRENT_VERSION

    # Kafka: AbortedTxn.<init>(completedTxn, lastStableOffset)
    @classmethod
    def from_completed_txn(cls, completed_txn, last_stable_offset: int) -> "AbortedTxn":
        return cls(completed_txn.producer_id, completed_txn.first_offset, completed_txn.last_offset,
                   last_stable_offset)

    # Kafka: AbortedTxn.buffer
    def to_bytes(self) -> bytes:
        return _ENTRY.pack(self.version, self.producer_id, self.first_offset, self.last_offset,
                           self.last_stable_offset)

    @classmethod
    def from_bytes(cls, data, offset: int = 0) -> "AbortedTxn":
        version, pid, first, last, lso = _ENTRY.unpack_from(data, offset)
        return cls(pid, first, last, lso, version)

    # Kafka: AbortedTxn.asAbortedTransaction -- what a Fetch response carries (producer id, first offset)
    def as_aborted_transaction(self) -> tuple[int, int]:
        return self.producer_id, self.first_offset


@attrs.frozen
class TxnIndexSearchResult:
    """Kafka: TxnIndexSearchResult(abortedTransactions, isComplete)."""

    aborted_transactions: list
    is_complete: bool


class TransactionIndex(Logging):
    """Kafka: TransactionIndex(startOffset, file)."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = ('start_offset', 'file', '_fd', '_size', 'last_offset')

    # Kafka: TransactionIndex.<init>
    def __init__(self, start_offset: int, file: str):
        self.start_offset = start_offset
        self.file = file
        self._fd = -1
        self._size = 0
        self.last_offset: int | None = None
        if os.path.exists(file):
            entries = self.all_aborted_txns()
            if entries:
                self.last_offset = entries[-1].last_offset

    # Kafka: TransactionIndex.openChannel
    def _open_channel(self) -> int:
        self._fd = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o644)
        self._size = os.fstat(self._fd).st_size
        return self._fd

    # Kafka: TransactionIndex.channel
    def _channel(self) -> int:
        return self._fd if self._fd >= 0 else self._open_channel()

    # Kafka: TransactionIndex.append
    def append(self, aborted_txn: AbortedTxn) -> None:
        if self.last_offset is not None and self.last_offset >= aborted_txn.last_offset:
            raise ValueError(f"The last offset of appended transactions must increase sequentially, but "
                             f"{aborted_txn.last_offset} is not greater than current last offset {self.last_offset} "
                             f"of index {self.file}")
        fd = self._channel()
        data = aborted_txn.to_bytes()
        written = os.pwrite(fd, data, self._size)
        if written != len(data):
            raise OSError(f"Short write to transaction index {self.file}")
        self._size += len(data)
        self.last_offset = aborted_txn.last_offset

    # Kafka: TransactionIndex.flush
    def flush(self) -> None:
        if self._fd >= 0:
            os.fsync(self._fd)

    def _read_all(self) -> bytes:
        """The file's bytes: through the channel if it is open, else with a descriptor opened for this read."""
        if self._fd >= 0:
            return os.pread(self._fd, self._size, 0)
        try:
            fd = os.open(self.file, os.O_RDONLY)
        except FileNotFoundError:
            return b""
        try:
            return os.pread(fd, os.fstat(fd).st_size, 0)
        finally:
            os.close(fd)

    # Kafka: TransactionIndex.iterator -- (entry, byte position) of every whole entry
    def _iterator(self, data: bytes | None = None):
        if data is None:
            data = self._read_all()
        if len(data) < ABORTED_TXN_TOTAL_SIZE:
            return
        for position in range(0, len(data) - ABORTED_TXN_TOTAL_SIZE + 1, ABORTED_TXN_TOTAL_SIZE):
            txn = AbortedTxn.from_bytes(data, position)
            if txn.version > ABORTED_TXN_CURRENT_VERSION:
                raise CorruptIndexException(
                    f"Unexpected aborted transaction version {txn.version} in transaction index {self.file}, "
                    f"current version is {ABORTED_TXN_CURRENT_VERSION}")
            yield txn, position

    # Kafka: TransactionIndex.allAbortedTxns
    def all_aborted_txns(self) -> list[AbortedTxn]:
        return [txn for txn, _ in self._iterator()]

    # Kafka: TransactionIndex.collectAbortedTxns -- the aborted transactions overlapping
    # [fetch_offset, upper_bound_offset); complete once an entry's LSO reaches the upper bound.
    def collect_aborted_txns(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        found = []
        for txn, _ in self._iterator():
            if txn.last_offset >= fetch_offset and txn.first_offset < upper_bound_offset:
                found.append(txn)
            if txn.last_stable_offset >= upper_bound_offset:
                return TxnIndexSearchResult(found, True)
        return TxnIndexSearchResult(found, False)

    # Kafka: TransactionIndex.truncateTo -- drop the entries whose marker is at or above ``offset``
    def truncate_to(self, offset: int) -> None:
        new_last_offset = None
        for txn, position in self._iterator():
            if txn.last_offset >= offset:
                os.ftruncate(self._channel(), position)
                self._size = position
                self.last_offset = new_last_offset
                return
            new_last_offset = txn.last_offset

    # Kafka: TransactionIndex.reset
    def reset(self) -> None:
        if self._fd >= 0:
            os.ftruncate(self._fd, 0)
            self._size = 0
        elif os.path.exists(self.file):
            os.truncate(self.file, 0)
        self.last_offset = None

    # Kafka: TransactionIndex.sanityCheck -- plus (no Kafka counterpart) a file that ends in a partial entry,
    # which a crash mid-append leaves; either way the segment is recovered and its index rebuilt
    def sanity_check(self) -> None:
        data = self._read_all()
        if len(data) % ABORTED_TXN_TOTAL_SIZE != 0:
            raise CorruptIndexException(f"Transaction index file {self.file} has size {len(data)}, not a multiple "
                                        f"of the entry size {ABORTED_TXN_TOTAL_SIZE}")
        for txn, _ in self._iterator(data):
            if txn.last_offset < self.start_offset:
                raise CorruptIndexException(f"Last offset of aborted transaction {txn} in index {self.file} is "
                                            f"less than start offset {self.start_offset}")

    # Kafka: TransactionIndex.close
    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    # Kafka: TransactionIndex.deleteIfExists
    def delete_if_exists(self) -> bool:
        self.close()
        try:
            os.unlink(self.file)
            return True
        except FileNotFoundError:
            return False

    # Kafka: TransactionIndex.renameTo
    def rename_to(self, new_file: str) -> None:
        try:
            if os.path.exists(self.file):
                os.replace(self.file, new_file)
        finally:
            self.file = new_file

    def __repr__(self) -> str:
        return f"TransactionIndex(startOffset={self.start_offset}, file={self.file})"

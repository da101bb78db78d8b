"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/LazyIndex.scala

Classes: LazyIndex -- a segment's offset or time index that is opened and mapped only when it is first
used (``get``). KAFKA-7283 added it for start-up time with many segments; kafkalite uses it
for the same reason and for the map count: a broker that restarts with many partitions maps only the
indexes it reads or writes (the active segments', and those of old segments a reader reaches).

Era notes: ``close``, ``close_handler``, ``delete_if_exists``, ``rename_to`` and ``update_parent_dir``
are Kafka 2.6's (KAFKA-9373): they act on the file when the index was never loaded instead of loading it
first (2.4's LogSegment.close called ``offsetIndex.close()``, which maps the index just to trim and unmap it).
"""
from __future__ import annotations

import os
import threading

from kafkalite.log.offset_index import OffsetIndex
from kafkalite.log.time_index import TimeIndex


# One lock for every LazyIndex (Kafka has one each): it is taken only to load, rename, close or delete an
# index, and a broker with many partitions keeps one object less per index.
_lock = threading.RLock()


class LazyIndex:
    """Kafka: LazyIndex -- ``get`` loads the index on first use; until then only the file name is kept.

    ``index_args`` is (index class, base offset, max index size, writable): Kafka's ``loadIndex`` function.
    """

    __slots__ = ("_file", "_index_args", "_index")

    def __init__(self, file: str, index_args):
        self._file = file
        self._index_args = index_args
        self._index = None

    @classmethod
    def of(cls, index) -> "LazyIndex":
        """An index already loaded (a segment built by hand, or by the cleaner)."""
        lazy = cls(index.file, None)
        lazy._index = index
        return lazy

    # Kafka: LazyIndex.forOffset
    @classmethod
    def for_offset(cls, file: str, base_offset: int, max_index_size: int = -1, writable: bool = True) -> "LazyIndex":
        return cls(file, (OffsetIndex, base_offset, max_index_size, writable))

    # Kafka: LazyIndex.forTime
    @classmethod
    def for_time(cls, file: str, base_offset: int, max_index_size: int = -1, writable: bool = True) -> "LazyIndex":
        return cls(file, (TimeIndex, base_offset, max_index_size, writable))

    # Kafka: LazyIndex.file
    @property
    def file(self) -> str:
        index = self._index
        return self._file if index is None else index.file

    @file.setter
    def file(self, path: str) -> None:
        with _lock:
            self._file = path
            if self._index is not None:
                self._index.file = path

    def is_loaded(self) -> bool:
        return self._index is not None

    # Kafka: LazyIndex.get
    def get(self):
        index = self._index
        if index is not None:
            return index
        with _lock:
            if self._index is None:
                index_class, base_offset, max_index_size, writable = self._index_args
                self._index = index_class(self._file, base_offset, max_index_size, writable)
            return self._index

    # Kafka 2.6: LazyIndex.updateParentDir
    def update_parent_dir(self, parent_dir: str) -> None:
        self.file = os.path.join(parent_dir, os.path.basename(self.file))

    # Kafka 2.6: LazyIndex.renameTo
    def rename_to(self, new_file: str) -> None:
        with _lock:
            try:
                if os.path.exists(self.file):
                    os.replace(self.file, new_file)
            finally:
                self._file = new_file
                if self._index is not None:
                    self._index.file = new_file

    # Kafka 2.6: LazyIndex.deleteIfExists
    def delete_if_exists(self) -> bool:
        with _lock:
            if self._index is not None:
                return self._index.delete_if_exists()
            try:
                os.unlink(self._file)
                return True
            except FileNotFoundError:
                return False

    # Kafka 2.6: LazyIndex.close -- an index never loaded was never changed: nothing to trim
    def close(self) -> None:
        with _lock:
            if self._index is not None:
                self._index.close()

    # Kafka 2.6: LazyIndex.closeHandler
    def close_handler(self) -> None:
        with _lock:
            if self._index is not None:
                self._index.close_handler()

    def __repr__(self) -> str:
        return f"LazyIndex(file={self.file}, loaded={self._index is not None})"

"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/FetchDataInfo.scala

Kept in ``kafkalite/log/`` (Kafka has it in kafka/server/) because LogSegment and Log return it
and ``log`` must not import ``server``.

Classes: LogOffsetSnapshot and LogReadInfo (Kafka 2.4 keeps both in Log.scala; LogReadInfo is what Partition.readRecords returns -- the data and
the offsets a Fetch response carries), FetchIsolation (how far a read may see: the log end for followers, the high watermark for
read_uncommitted consumers, the last stable offset for read_committed ones), FetchDataInfo -- what a log read returns: where the read started
(``fetch_offset_metadata``), the records (a ``FileRecords`` slice, so the bytes go to the socket
with sendfile and are never copied into Python), whether the first batch did not fit and, for a
read_committed (FETCH_TXN_COMMITTED) read, the aborted transactions overlapping the records as
``[(producer_id, first_offset)]`` (None for the other isolations).
"""
from __future__ import annotations

import enum

import attrs

from kafkalite.log.log_offset_metadata import LogOffsetMetadata


class FetchIsolation(enum.Enum):
    """Kafka: FetchIsolation -- FetchLogEnd, FetchHighWatermark, FetchTxnCommitted."""

    FETCH_LOG_END = "FetchLogEnd"
    FETCH_HIGH_WATERMARK = "FetchHighWatermark"
    FETCH_TXN_COMMITTED = "FetchTxnCommitted"


@attrs.frozen
class FetchDataInfo:
    """Kafka: FetchDataInfo."""

    fetch_offset_metadata: LogOffsetMetadata
    records: object  # FileRecords slice or MemoryRecords.EMPTY; both have size_in_bytes()
    first_entry_incomplete: bool = False
    aborted_transactions: list | None = None


@attrs.frozen
class LogReadInfo:
    """Kafka: LogReadInfo(fetchedData, highWatermark, logStartOffset, logEndOffset, lastStableOffset)."""

    fetched_data: FetchDataInfo
    high_watermark: int
    log_start_offset: int
    log_end_offset: int
    last_stable_offset: int


@attrs.frozen
class LogOffsetSnapshot:
    """Kafka: LogOffsetSnapshot(logStartOffset, logEndOffset, highWatermark, lastStableOffset) -- the offsets
    a DelayedFetch compares its fetch positions with (with segment positions, to count bytes without reading)."""

    log_start_offset: int
    log_end_offset: LogOffsetMetadata
    high_watermark: LogOffsetMetadata
    last_stable_offset: LogOffsetMetadata

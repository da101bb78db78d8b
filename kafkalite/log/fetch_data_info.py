"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/FetchDataInfo.scala

Kept in ``kafkalite/log/`` (Kafka has it in kafka/server/) because LogSegment and Log return it
and ``log`` must not import ``server``.

Classes: FetchDataInfo -- what a log read returns: where the read started
(``fetch_offset_metadata``), the records (a ``FileRecords`` slice, so the bytes go to the socket
with sendfile and are never copied into Python) and whether the first batch did not fit.
Left out: aborted transactions (no transactions in kafkalite yet).
"""
from __future__ import annotations

import attrs

from kafkalite.log.log_offset_metadata import LogOffsetMetadata


@attrs.frozen
class FetchDataInfo:
    """Kafka: FetchDataInfo."""

    fetch_offset_metadata: LogOffsetMetadata
    records: object  # FileRecords slice or MemoryRecords.EMPTY; both have size_in_bytes()
    first_entry_incomplete: bool = False
    aborted_transactions: list | None = None

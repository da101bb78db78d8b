"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/LogOffsetMetadata.scala

Kafka 2.4 keeps this class in ``kafka/server/``; kafkalite puts it in ``kafkalite/log/`` because
the log produces it and ``log`` must not import ``server`` (later Kafka moved it to
``storage/.../internals/log/`` too).

Classes: LogOffsetMetadata -- an offset plus, when known, the base offset of its segment and
its byte position there. The high watermark and the log end offset carry it so that
DelayedFetch can count the bytes between two offsets without reading the log.
"""
from __future__ import annotations

import attrs

UNKNOWN_SEG_BASE_OFFSET = -1
UNKNOWN_FILE_POSITION = -1


class OffsetOrderingException(Exception):
    """Raised when positions of offsets on different segments are compared."""


@attrs.frozen
class LogOffsetMetadata:
    """Kafka: LogOffsetMetadata."""

    message_offset: int
    segment_base_offset: int = UNKNOWN_SEG_BASE_OFFSET
    relative_position_in_segment: int = UNKNOWN_FILE_POSITION

    # Kafka: LogOffsetMetadata.onOlderSegment
    def on_older_segment(self, that: "LogOffsetMetadata") -> bool:
        if self.message_offset_only():
            raise OffsetOrderingException(f"{self} cannot compare its segment info with {that} since it only has message offset info")
        return self.segment_base_offset < that.segment_base_offset

    # Kafka: LogOffsetMetadata.onSameSegment
    def on_same_segment(self, that: "LogOffsetMetadata") -> bool:
        if self.message_offset_only():
            raise OffsetOrderingException(f"{self} cannot compare its segment info with {that} since it only has message offset info")
        return self.segment_base_offset == that.segment_base_offset

    # Kafka: LogOffsetMetadata.offsetDiff
    def offset_diff(self, that: "LogOffsetMetadata") -> int:
        return self.message_offset - that.message_offset

    # Kafka: LogOffsetMetadata.positionDiff
    def position_diff(self, that: "LogOffsetMetadata") -> int:
        if not self.on_same_segment(that):
            raise OffsetOrderingException(f"{self} cannot compare its segment position with {that} since they are not on the same segment")
        if self.message_offset_only():
            raise OffsetOrderingException(f"{self} cannot compare its segment position with {that} since it only has message offset info")
        return self.relative_position_in_segment - that.relative_position_in_segment

    # Kafka: LogOffsetMetadata.messageOffsetOnly
    def message_offset_only(self) -> bool:
        return (self.segment_base_offset == UNKNOWN_SEG_BASE_OFFSET
                and self.relative_position_in_segment == UNKNOWN_FILE_POSITION)

    def __str__(self) -> str:
        return f"(offset={self.message_offset} segment=[{self.segment_base_offset}:{self.relative_position_in_segment}])"


# Kafka: LogOffsetMetadata.UnknownOffsetMetadata
UNKNOWN_OFFSET_METADATA = LogOffsetMetadata(-1, 0, 0)

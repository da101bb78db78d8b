"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/ControlRecordType.java

Classes: ControlRecordType -- what a record of a control batch means.

A control batch (attribute bit 0x20) holds one record whose *key* says what it is: an int16
version (0) and an int16 type. Type 0 is ABORT and 1 is COMMIT, the transaction markers;
consumers never hand control records to the application.

Left out: LEADER_CHANGE (KIP-595, raft) and the snapshot types of later releases, which 2.4
does not have; an unknown type parses as UNKNOWN, as in Kafka.
"""
from __future__ import annotations

import enum
import struct

from kafkalite.protocol.errors import InvalidRecordException

_KEY = struct.Struct(">hh")
CURRENT_CONTROL_RECORD_KEY_VERSION = 0   # Kafka: ControlRecordType.CURRENT_CONTROL_RECORD_KEY_VERSION
CURRENT_CONTROL_RECORD_KEY_SIZE = _KEY.size


class ControlRecordType(enum.Enum):
    """Kafka: ControlRecordType."""

    ABORT = 0
    COMMIT = 1
    UNKNOWN = -1

    # Kafka: ControlRecordType.recordKey -- the 4-byte key of a control record of this type.
    def record_key(self) -> bytes:
        if self is ControlRecordType.UNKNOWN:
            raise ValueError("Cannot serialize UNKNOWN control record type")
        return _KEY.pack(CURRENT_CONTROL_RECORD_KEY_VERSION, self.value)

    # Kafka: ControlRecordType.parse -- the type a control record's key names.
    @classmethod
    def parse(cls, key: bytes | memoryview | None) -> "ControlRecordType":
        if key is None or len(key) < CURRENT_CONTROL_RECORD_KEY_SIZE:
            raise InvalidRecordException(
                f"Invalid control record key: {CURRENT_CONTROL_RECORD_KEY_SIZE} bytes expected, "
                f"{0 if key is None else len(key)} found")
        version, type_id = _KEY.unpack_from(key, 0)
        if version < 0:
            raise InvalidRecordException(f"Invalid version found for control record: {version}")
        try:
            return cls(type_id)
        except ValueError:
            return cls.UNKNOWN

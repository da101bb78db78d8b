"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/EndTransactionMarker.java

Classes: EndTransactionMarker -- the record a transaction marker's control batch holds.

Its key is the control record key of COMMIT or ABORT (``ControlRecordType.record_key``); its
value is an int16 version (0) and the int32 epoch of the transaction coordinator that wrote it,
so a partition can refuse markers from a coordinator that has since been replaced.
"""
from __future__ import annotations

import struct

import attrs

from kafkalite.protocol.errors import InvalidRecordException
from kafkalite.record.control_record_type import ControlRecordType

_VALUE = struct.Struct(">hi")
CURRENT_END_TXN_MARKER_VERSION = 0        # Kafka: EndTransactionMarker.CURRENT_END_TXN_MARKER_VERSION
CURRENT_END_TXN_MARKER_VALUE_SIZE = _VALUE.size


@attrs.frozen
class EndTransactionMarker:
    """Kafka: EndTransactionMarker."""

    control_type: ControlRecordType       # COMMIT or ABORT
    coordinator_epoch: int

    def __attrs_post_init__(self):
        if self.control_type not in (ControlRecordType.COMMIT, ControlRecordType.ABORT):
            raise ValueError(f"Invalid control type for EndTransactionMarker: {self.control_type}")

    # Kafka: EndTransactionMarker.serializeValue
    def serialize_value(self) -> bytes:
        return _VALUE.pack(CURRENT_END_TXN_MARKER_VERSION, self.coordinator_epoch)

    def record_key(self) -> bytes:
        return self.control_type.record_key()

    # Kafka: EndTransactionMarker.deserialize -- from a control record's key and value.
    @classmethod
    def deserialize(cls, key, value) -> "EndTransactionMarker":
        control_type = ControlRecordType.parse(key)
        if control_type not in (ControlRecordType.COMMIT, ControlRecordType.ABORT):
            raise InvalidRecordException(f"Invalid control record type for end transaction marker: {control_type}")
        if value is None or len(value) < CURRENT_END_TXN_MARKER_VALUE_SIZE:
            raise InvalidRecordException(
                f"Invalid end transaction marker value size {0 if value is None else len(value)}")
        version, coordinator_epoch = _VALUE.unpack_from(value, 0)
        if version < 0:
            raise InvalidRecordException(f"Invalid version found for end transaction marker: {version}")
        return cls(control_type, coordinator_epoch)

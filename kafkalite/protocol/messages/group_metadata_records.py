"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/group/GroupMetadataManager.scala
(the record schemas declared in object GroupMetadataManager).

Classes: OffsetCommitKey, OffsetCommitValue, GroupMetadataKey, GroupMetadataValue,
MemberMetadata; functions serialize and read_message_key.

The group coordinator keeps its state as records in the compacted ``__consumer_offsets`` topic.
Every key and value is an int16 schema version followed by the struct at that version:
- key v0/v1 = OffsetCommitKey (group, topic, partition) -> value OffsetCommitValue v0-3;
- key v2 = GroupMetadataKey (group) -> value GroupMetadataValue v0-3 (with its members).
A null value is a tombstone (offsets or group deleted).

Value versions, in short:
- OffsetCommitValue: v0 has ``commit_timestamp`` (2.4 called it "timestamp"); v1 adds
  ``expire_timestamp`` (written only when the client asked for a retention time); v2 drops it
  again; v3 adds ``leader_epoch`` (KIP-320). 2.4 writes v1 when an expire timestamp is set,
  else v3 (v2 only for pre-2.1 inter-broker protocols).
- GroupMetadataValue: v1 adds the member's ``rebalance_timeout``; v2 adds
  ``current_state_timestamp``; v3 adds the member's ``group_instance_id`` (KIP-345).

Era notes: 2.4 declared these as ``Schema`` objects inside GroupMetadataManager (the names
there are the snake_case ones used here); Kafka 3.x moved them to JSON files
(group-coordinator/src/main/resources/common/message/). They use the same DSL as the wire
messages, as ``@message(kind="data")`` classes, so each has its own version range.
Left out: the v4 (flexible) values of Kafka 3.x, and the ``readOffsetMessageValue``/
``readGroupMessageValue`` logic that turns these into OffsetAndMetadata/GroupMetadata (that
belongs to the coordinator's group_metadata_manager.py).
"""
import struct as _struct

from kafkalite.protocol.errors import InvalidRequestException
from kafkalite.protocol.schema import BYTES, INT32, INT64, STRING, array, field, message, read, struct, write

_VERSION = _struct.Struct(">h")


@message(kind="data", valid="0-1")
class OffsetCommitKey:
    group: str = field(STRING, "0+")
    topic: str = field(STRING, "0+")
    partition: int = field(INT32, "0+")


@message(kind="data", valid="0-3")
class OffsetCommitValue:
    offset: int = field(INT64, "0+")
    leader_epoch: int = field(INT32, "3+", ignorable=True, default=-1)
    metadata: str = field(STRING, "0+")           # the client's free text ("" when none)
    commit_timestamp: int = field(INT64, "0+")
    expire_timestamp: int = field(INT64, "1", ignorable=True, default=-1)


@message(kind="data", valid="2")
class GroupMetadataKey:
    group: str = field(STRING, "2")


@struct
class MemberMetadata:
    member_id: str = field(STRING, "0+")
    group_instance_id: str | None = field(STRING, "3+", nullable="3+", ignorable=True, default=None)
    client_id: str = field(STRING, "0+")
    client_host: str = field(STRING, "0+")
    rebalance_timeout: int = field(INT32, "1+", ignorable=True, default=-1)
    session_timeout: int = field(INT32, "0+")
    subscription: bytes = field(BYTES, "0+")      # the member's JoinGroup metadata for the chosen protocol
    assignment: bytes = field(BYTES, "0+")        # what SyncGroup gave it


@message(kind="data", valid="0-3")
class GroupMetadataValue:
    protocol_type: str = field(STRING, "0+")
    generation: int = field(INT32, "0+")
    protocol: str | None = field(STRING, "0+", nullable="0+")   # None while the group is empty
    leader: str | None = field(STRING, "0+", nullable="0+")
    current_state_timestamp: int = field(INT64, "2+", ignorable=True, default=-1)
    members: list[MemberMetadata] = field(array(MemberMetadata), "0+")


def serialize(obj, version: int) -> bytes:
    """A ``__consumer_offsets`` key or value: the int16 schema version, then ``obj`` at it."""
    return _VERSION.pack(version) + write(obj, version)


def deserialize(cls, buf):
    """Read a value written by ``serialize``; return (version, object)."""
    if len(buf) < 2:
        raise InvalidRequestException(f"{cls.__name__}: {len(buf)} bytes is too short for a version")
    version = _VERSION.unpack_from(buf, 0)[0]
    obj, _ = read(cls, version, buf, 2)
    return version, obj


# Kafka: GroupMetadataManager.readMessageKey
def read_message_key(buf):
    """Return (version, OffsetCommitKey | GroupMetadataKey) for a ``__consumer_offsets`` key."""
    if len(buf) < 2:
        raise InvalidRequestException(f"record key of {len(buf)} bytes is too short for a version")
    version = _VERSION.unpack_from(buf, 0)[0]
    if version <= 1:
        return deserialize(OffsetCommitKey, buf)
    if version == 2:
        return deserialize(GroupMetadataKey, buf)
    raise ValueError(f"Unknown group metadata message version: {version}")  # IllegalStateException

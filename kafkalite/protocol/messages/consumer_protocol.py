"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerProtocol.java

Classes: ConsumerProtocolSubscription, ConsumerProtocolAssignment, ConsumerProtocolTopicPartition;
functions serialize_subscription, deserialize_subscription, serialize_assignment,
deserialize_assignment.

The "consumer" embedded protocol: what consumers put inside the opaque ``metadata`` bytes of
JoinGroup (their subscription) and the ``assignment`` bytes of SyncGroup. Each blob starts with
an int16 version, then the struct at that version. The broker never needs to look inside
(it stores and forwards the bytes); admin tools and kafkalite's own consumer do.

Version history, in short: v1 adds ``owned_partitions`` to the subscription for cooperative
rebalancing (KIP-429); the assignment's v1 is v0.

Era notes: 2.4 wrote these as hand-declared Schemas in ConsumerProtocol.java; today's Kafka
has ConsumerProtocolSubscription.json / ConsumerProtocolAssignment.json, whose names are used
here. As in 2.4, a blob of a newer version than 1 is read as v1 and its extra fields are
ignored (today's clients send subscription v3). Kafka's JSON calls the nested struct
``TopicPartition``; here it is ``ConsumerProtocolTopicPartition`` so it is not mistaken for
``kafkalite.common.topic_partition.TopicPartition``.
Left out: subscription v2-3 fields (``generation_id``, ``rack_id``).
"""
import struct as _struct

from kafkalite.protocol.errors import InvalidRequestException
from kafkalite.protocol.schema import BYTES, INT32, STRING, array, field, message, read, struct, write

_VERSION = _struct.Struct(">h")
CONSUMER_PROTOCOL_V0 = 0
CONSUMER_PROTOCOL_V1 = 1
CONSUMER_PROTOCOL_LATEST_VERSION = CONSUMER_PROTOCOL_V1


@struct
class ConsumerProtocolTopicPartition:
    topic: str = field(STRING, "0+")
    partitions: list[int] = field(array(INT32), "0+")


@message(kind="data", valid="0-1")
class ConsumerProtocolSubscription:
    topics: list[str] = field(array(STRING), "0+")
    user_data: bytes | None = field(BYTES, "0+", nullable="0+", default=None)   # assignor-specific
    # What the member holds now, so a cooperative assignor can avoid moving it.
    owned_partitions: list[ConsumerProtocolTopicPartition] = field(
        array(ConsumerProtocolTopicPartition), "1+", ignorable=True)


@message(kind="data", valid="0-1")
class ConsumerProtocolAssignment:
    assigned_partitions: list[ConsumerProtocolTopicPartition] = field(
        array(ConsumerProtocolTopicPartition), "0+")
    user_data: bytes | None = field(BYTES, "0+", nullable="0+", default=None)


def _serialize(obj, version: int) -> bytes:
    return _VERSION.pack(version) + write(obj, version)


def _deserialize(cls, buf):
    if len(buf) < 2:
        raise InvalidRequestException(f"{cls.__name__}: {len(buf)} bytes is too short for a version")
    version = _VERSION.unpack_from(buf, 0)[0]
    if version < CONSUMER_PROTOCOL_V0:
        raise InvalidRequestException(f"{cls.__name__}: negative version {version}")
    # Newer versions only append fields, so read them as the latest we know.
    obj, _ = read(cls, min(version, CONSUMER_PROTOCOL_LATEST_VERSION), buf, 2)
    return obj


# Kafka: ConsumerProtocol.serializeSubscription
def serialize_subscription(subscription: ConsumerProtocolSubscription,
                           version: int = CONSUMER_PROTOCOL_LATEST_VERSION) -> bytes:
    return _serialize(subscription, version)


# Kafka: ConsumerProtocol.deserializeSubscription
def deserialize_subscription(buf) -> ConsumerProtocolSubscription:
    return _deserialize(ConsumerProtocolSubscription, buf)


# Kafka: ConsumerProtocol.serializeAssignment
def serialize_assignment(assignment: ConsumerProtocolAssignment,
                         version: int = CONSUMER_PROTOCOL_LATEST_VERSION) -> bytes:
    return _serialize(assignment, version)


# Kafka: ConsumerProtocol.deserializeAssignment
def deserialize_assignment(buf) -> ConsumerProtocolAssignment:
    return _deserialize(ConsumerProtocolAssignment, buf)

"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/serialization/ (Serializer.java,
StringSerializer.java, ByteArraySerializer.java, IntegerSerializer.java, LongSerializer.java)

Classes: Serializer, StringSerializer, ByteArraySerializer, IntegerSerializer, LongSerializer;
``serializer_for(config value)``.

``key.serializer`` / ``value.serializer`` accept Kafka's Java class names
(``org.apache.kafka.common.serialization.StringSerializer``), the short class name, a Serializer class
or instance, or any callable ``f(topic, data) -> bytes``. The default is ByteArraySerializer, which also
accepts ``str`` (encoded as UTF-8) for convenience.
Left out: deserializers (the consumer's side), ``configure``'s ``serializer.encoding``.
"""
from __future__ import annotations

import struct


class Serializer:
    """Kafka: Serializer<T>."""

    # Kafka: Serializer.serialize(String topic, T data)
    def serialize(self, topic: str, data) -> bytes | None:
        raise NotImplementedError

    def close(self) -> None:
        pass


class ByteArraySerializer(Serializer):
    """Kafka: ByteArraySerializer (and, for str, StringSerializer)."""

    def serialize(self, topic, data):
        if data is None or isinstance(data, (bytes, bytearray, memoryview)):
            return None if data is None else bytes(data)
        if isinstance(data, str):
            return data.encode("utf-8")
        raise TypeError(f"ByteArraySerializer cannot serialize {type(data).__name__}")


class StringSerializer(Serializer):
    """Kafka: StringSerializer (UTF-8)."""

    def serialize(self, topic, data):
        return None if data is None else str(data).encode("utf-8")


class IntegerSerializer(Serializer):
    """Kafka: IntegerSerializer (4 bytes, big-endian)."""

    def serialize(self, topic, data):
        return None if data is None else struct.pack(">i", data)


class LongSerializer(Serializer):
    """Kafka: LongSerializer (8 bytes, big-endian)."""

    def serialize(self, topic, data):
        return None if data is None else struct.pack(">q", data)


class _CallableSerializer(Serializer):
    def __init__(self, fn):
        self.fn = fn

    def serialize(self, topic, data):
        return self.fn(topic, data)


_BY_NAME = {cls.__name__: cls for cls in (ByteArraySerializer, StringSerializer, IntegerSerializer,
                                          LongSerializer)}


def serializer_for(value) -> Serializer:
    """A Serializer from a ``key.serializer``/``value.serializer`` config value."""
    if value is None:
        return ByteArraySerializer()
    if isinstance(value, Serializer):
        return value
    if isinstance(value, type) and issubclass(value, Serializer):
        return value()
    if isinstance(value, str):
        name = value.rsplit(".", 1)[-1]
        if name in _BY_NAME:
            return _BY_NAME[name]()
        raise ValueError(f"Unknown serializer class {value}; known: {sorted(_BY_NAME)}")
    if callable(value):
        return _CallableSerializer(value)
    raise ValueError(f"Cannot use {value!r} as a serializer")

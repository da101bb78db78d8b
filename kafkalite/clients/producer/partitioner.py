"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/Partitioner.java

Classes: Partitioner -- the interface of a custom partitioner (``partitioner.class``, S43).

A custom partitioner decides every record's partition itself; without one the producer uses the
explicit ``partition`` of the record, else the key's murmur2 hash, else the built-in sticky/adaptive
partitioner (``internals/built_in_partitioner.py``). ``partitioner.class`` may be a class, an instance
or a dotted name ``package.module.ClassName``.
Left out: ``onNewBatch`` (deprecated in Kafka 3.3 together with the old sticky DefaultPartitioner).
"""
from __future__ import annotations


class Partitioner:
    """Kafka: org.apache.kafka.clients.producer.Partitioner."""

    # Kafka: Configurable.configure (a Partitioner is Configurable)
    def configure(self, configs: dict) -> None:
        pass

    # Kafka: Partitioner.partition
    def partition(self, topic: str, key, key_bytes: bytes | None, value, value_bytes: bytes | None,
                  cluster) -> int:
        raise NotImplementedError

    # Kafka: Partitioner.close
    def close(self) -> None:
        pass

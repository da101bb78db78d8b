"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/scram/internals/ScramMechanism.java
(and the type bytes of Kafka 2.7's clients/.../clients/admin/ScramMechanism.java)

Classes: ScramMechanism (SCRAM_SHA_256, SCRAM_SHA_512).

Each mechanism names its hash (hashlib's name) and the fewest PBKDF2 iterations a credential may have
(4096, RFC 7677). ``type`` is the byte the KIP-554 admin APIs use for it (2.7 era: 1 and 2; 0 is UNKNOWN).
"""
from __future__ import annotations

import enum


class ScramMechanism(enum.Enum):
    """Kafka: ScramMechanism."""

    SCRAM_SHA_256 = ("SHA-256", "sha256", 4096, 1)
    SCRAM_SHA_512 = ("SHA-512", "sha512", 4096, 2)

    def __init__(self, hash_algorithm: str, hashlib_name: str, min_iterations: int, type_byte: int):
        self.mechanism_name = "SCRAM-" + hash_algorithm
        self.hash_algorithm = hash_algorithm
        self.hashlib_name = hashlib_name
        self.min_iterations = min_iterations
        self.type = type_byte

    # Kafka: ScramMechanism.forMechanismName
    @classmethod
    def for_mechanism_name(cls, name: str) -> "ScramMechanism | None":
        for m in cls:
            if m.mechanism_name == name:
                return m
        return None

    # Kafka 2.7: org.apache.kafka.clients.admin.ScramMechanism.fromType
    @classmethod
    def from_type(cls, type_byte: int) -> "ScramMechanism | None":
        for m in cls:
            if m.type == type_byte:
                return m
        return None

    # Kafka: ScramMechanism.mechanismNames
    @classmethod
    def mechanism_names(cls) -> list[str]:
        return [m.mechanism_name for m in cls]

    # Kafka: ScramMechanism.isScram
    @classmethod
    def is_scram(cls, mechanism: str | None) -> bool:
        return cls.for_mechanism_name(mechanism or "") is not None

"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/resource/PatternType.java

Classes: PatternType -- how a resource pattern's name matches resource names (KIP-290).

LITERAL matches the name itself (or every name when it is ``*``); PREFIXED matches every name that starts with
it. ANY and MATCH appear only in filters: ANY matches patterns of any type, MATCH the patterns that would match a
given name (literal, wildcard and prefixed).
"""
from __future__ import annotations

import enum


class PatternType(enum.Enum):
    """Kafka: PatternType."""

    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4

    @property
    def code(self) -> int:
        return self.value

    # Kafka: PatternType.fromCode
    @classmethod
    def from_code(cls, code: int) -> "PatternType":
        try:
            return cls(code)
        except ValueError:
            return cls.UNKNOWN

    # Kafka: PatternType.fromString
    @classmethod
    def from_string(cls, text: str) -> "PatternType":
        return cls.__members__.get(text.strip().upper(), cls.UNKNOWN)

    # Kafka: PatternType.isSpecific -- a pattern an ACL can be stored under
    def is_specific(self) -> bool:
        return self in (PatternType.LITERAL, PatternType.PREFIXED)

    # Kafka: PatternType.isUnknown
    def is_unknown(self) -> bool:
        return self is PatternType.UNKNOWN

    def __str__(self) -> str:
        return self.name

"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/acl/AclPermissionType.java

Classes: AclPermissionType -- ALLOW or DENY (ANY in filters), with its wire code; ``acl_name`` is the store's
JSON name ("Allow", "Deny"), Kafka's ``kafka.security.auth.PermissionType`` names.
"""
from __future__ import annotations

import enum


class AclPermissionType(enum.Enum):
    """Kafka: AclPermissionType. Value = (code, the Scala PermissionType's name)."""

    UNKNOWN = (0, "Unknown")
    ANY = (1, "Any")
    DENY = (2, "Deny")
    ALLOW = (3, "Allow")

    def __init__(self, code: int, acl_name: str):
        self.code = code
        self.acl_name = acl_name

    # Kafka: AclPermissionType.fromCode
    @classmethod
    def from_code(cls, code: int) -> "AclPermissionType":
        for p in cls:
            if p.code == code:
                return p
        return cls.UNKNOWN

    # Kafka: AclPermissionType.fromString
    @classmethod
    def from_string(cls, text: str) -> "AclPermissionType":
        for p in cls:
            if text.strip().upper() == p.name:
                return p
        return cls.UNKNOWN

    # Kafka: AclPermissionType.isUnknown
    def is_unknown(self) -> bool:
        return self is AclPermissionType.UNKNOWN

    def __str__(self) -> str:
        return self.name

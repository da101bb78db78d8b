"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/acl/AclOperation.java

Classes: AclOperation -- what a principal may do to a resource, with its wire code.

Some operations imply others (Kafka's AclOperation javadoc; AclAuthorizer applies it): READ, WRITE, DELETE and
ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS. ``acl_name`` is the name the ZooKeeper store's
JSON and ``kafka-acls --operation`` use ("ClusterAction"), Kafka's ``kafka.security.auth.Operation`` names.
"""
from __future__ import annotations

import enum


class AclOperation(enum.Enum):
    """Kafka: AclOperation. Value = (code, the Scala Operation's name)."""

    UNKNOWN = (0, "Unknown")
    ANY = (1, "Any")
    ALL = (2, "All")
    READ = (3, "Read")
    WRITE = (4, "Write")
    CREATE = (5, "Create")
    DELETE = (6, "Delete")
    ALTER = (7, "Alter")
    DESCRIBE = (8, "Describe")
    CLUSTER_ACTION = (9, "ClusterAction")
    DESCRIBE_CONFIGS = (10, "DescribeConfigs")
    ALTER_CONFIGS = (11, "AlterConfigs")
    IDEMPOTENT_WRITE = (12, "IdempotentWrite")

    def __init__(self, code: int, acl_name: str):
        self.code = code
        self.acl_name = acl_name

    # Kafka: AclOperation.fromCode
    @classmethod
    def from_code(cls, code: int) -> "AclOperation":
        for op in cls:
            if op.code == code:
                return op
        return cls.UNKNOWN

    # Kafka: AclOperation.fromString -- "READ", "Read", "read", "CLUSTER_ACTION" or "ClusterAction"
    @classmethod
    def from_string(cls, text: str) -> "AclOperation":
        key = text.strip()
        for op in cls:
            if key.upper() == op.name or key.lower() == op.acl_name.lower():
                return op
        return cls.UNKNOWN

    # Kafka: AclOperation.isUnknown
    def is_unknown(self) -> bool:
        return self is AclOperation.UNKNOWN

    def implied_by(self) -> frozenset["AclOperation"]:
        """The operations whose ALLOW also allows this one (itself included) -- AclAuthorizer's allowOps."""
        if self is AclOperation.DESCRIBE:
            return frozenset({AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE,
                              AclOperation.ALTER})
        if self is AclOperation.DESCRIBE_CONFIGS:
            return frozenset({AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS})
        return frozenset({self})

    def __str__(self) -> str:
        return self.name

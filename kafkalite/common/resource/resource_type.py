"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/resource/ResourceType.java

Classes: ResourceType -- what an ACL protects, with the byte code the ACL APIs carry on the wire.

``acl_name`` is the name Kafka's ZooKeeper store and the broker's ``kafka.security.auth.ResourceType`` use
("Topic", "TransactionalId"): the child of ``/kafka-acl`` a resource lives under.
Left out: USER (code 7, Kafka 2.8's KIP-554 resource type): kafkalite's authorizer knows 2.4's five types.
"""
from __future__ import annotations

import enum


class ResourceType(enum.Enum):
    """Kafka: ResourceType. Value = (code, the Scala ResourceType's name)."""

    UNKNOWN = (0, "Unknown")
    ANY = (1, "Any")
    TOPIC = (2, "Topic")
    GROUP = (3, "Group")
    CLUSTER = (4, "Cluster")
    TRANSACTIONAL_ID = (5, "TransactionalId")
    DELEGATION_TOKEN = (6, "DelegationToken")

    def __init__(self, code: int, acl_name: str):
        self.code = code
        self.acl_name = acl_name

    # Kafka: ResourceType.fromCode -- an unknown code is UNKNOWN
    @classmethod
    def from_code(cls, code: int) -> "ResourceType":
        for t in cls:
            if t.code == code:
                return t
        return cls.UNKNOWN

    # Kafka: ResourceType.fromString -- the Java name ("TRANSACTIONAL_ID") or, as kafka.security.auth.ResourceType
    # reads it, the store's name ("TransactionalId"), case-insensitively; anything else is UNKNOWN
    @classmethod
    def from_string(cls, text: str) -> "ResourceType":
        for t in cls:
            if text.upper() == t.name or text.lower() == t.acl_name.lower():
                return t
        return cls.UNKNOWN

    # Kafka: ResourceType.isUnknown
    def is_unknown(self) -> bool:
        return self is ResourceType.UNKNOWN

    def __str__(self) -> str:
        return self.name

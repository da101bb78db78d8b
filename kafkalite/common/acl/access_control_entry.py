"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/acl/AccessControlEntry.java and
AccessControlEntryFilter.java (same directory)

Classes: AccessControlEntry (who -- a principal string "User:alice" --, from which host, which operation,
allow or deny), AccessControlEntryFilter (the same with null / ANY meaning "any").

``str()`` gives Kafka's ``(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)``.
"""
from __future__ import annotations

from typing import ClassVar

import attrs

from kafkalite.common.acl.acl_operation import AclOperation
from kafkalite.common.acl.acl_permission_type import AclPermissionType


@attrs.frozen
class AccessControlEntry:
    """Kafka: AccessControlEntry -- never ANY and never a null principal or host."""

    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType

    def __attrs_post_init__(self):
        if self.principal is None or self.host is None:
            raise ValueError("principal and host must not be null")
        if self.operation is AclOperation.ANY:
            raise ValueError("operation must not be ANY")
        if self.permission_type is AclPermissionType.ANY:
            raise ValueError("permissionType must not be ANY")

    # Kafka: AccessControlEntry.toFilter
    def to_filter(self) -> "AccessControlEntryFilter":
        return AccessControlEntryFilter(self.principal, self.host, self.operation, self.permission_type)

    # Kafka: AccessControlEntry.isUnknown
    def is_unknown(self) -> bool:
        return self.operation.is_unknown() or self.permission_type.is_unknown()

    # Kafka: AccessControlEntry.toString
    def __str__(self) -> str:
        return (f"(principal={self.principal}, host={self.host}, operation={self.operation}, "
                f"permissionType={self.permission_type})")


@attrs.frozen
class AccessControlEntryFilter:
    """Kafka: AccessControlEntryFilter."""

    ANY: ClassVar["AccessControlEntryFilter"]

    principal: str | None
    host: str | None
    operation: AclOperation
    permission_type: AclPermissionType

    # Kafka: AccessControlEntryFilter.isUnknown
    def is_unknown(self) -> bool:
        return self.operation.is_unknown() or self.permission_type.is_unknown()

    # Kafka: AccessControlEntryFilter.matches
    def matches(self, other: AccessControlEntry) -> bool:
        if self.principal is not None and self.principal != other.principal:
            return False
        if self.host is not None and self.host != other.host:
            return False
        if self.operation is not AclOperation.ANY and self.operation is not other.operation:
            return False
        return self.permission_type is AclPermissionType.ANY or self.permission_type is other.permission_type

    # Kafka: AccessControlEntryFilter.matchesAtMostOne
    def matches_at_most_one(self) -> bool:
        return self.find_indefinite_field() is None

    # Kafka: AccessControlEntryFilter.findIndefiniteField
    def find_indefinite_field(self) -> str | None:
        if self.principal is None:
            return "Principal is NULL"
        if self.host is None:
            return "Host is NULL"
        if self.operation is AclOperation.ANY:
            return "Operation is ANY"
        if self.operation is AclOperation.UNKNOWN:
            return "Operation is UNKNOWN"
        if self.permission_type is AclPermissionType.ANY:
            return "Permission type is ANY"
        if self.permission_type is AclPermissionType.UNKNOWN:
            return "Permission type is UNKNOWN"
        return None

    def __str__(self) -> str:
        return (f"(principal={'<any>' if self.principal is None else self.principal}, "
                f"host={'<any>' if self.host is None else self.host}, operation={self.operation}, "
                f"permissionType={self.permission_type})")


AccessControlEntryFilter.ANY = AccessControlEntryFilter(None, None, AclOperation.ANY, AclPermissionType.ANY)  # Kafka: AccessControlEntryFilter.ANY

"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/acl/AclBinding.java and AclBindingFilter.java
(same directory)

Classes: AclBinding (a ResourcePattern and an AccessControlEntry: one ACL), AclBindingFilter (a pattern filter and
an entry filter: what DescribeAcls and DeleteAcls select).
"""
from __future__ import annotations

from typing import ClassVar

import attrs

from kafkalite.common.acl.access_control_entry import AccessControlEntry, AccessControlEntryFilter
from kafkalite.common.resource.resource_pattern import ResourcePattern, ResourcePatternFilter


@attrs.frozen
class AclBinding:
    """Kafka: AclBinding."""

    pattern: ResourcePattern
    entry: AccessControlEntry

    # Kafka: AclBinding.isUnknown
    def is_unknown(self) -> bool:
        return self.pattern.is_unknown() or self.entry.is_unknown()

    # Kafka: AclBinding.toFilter
    def to_filter(self) -> "AclBindingFilter":
        return AclBindingFilter(self.pattern.to_filter(), self.entry.to_filter())

    # Kafka: AclBinding.toString
    def __str__(self) -> str:
        return f"(pattern={self.pattern}, entry={self.entry})"


@attrs.frozen
class AclBindingFilter:
    """Kafka: AclBindingFilter."""

    ANY: ClassVar["AclBindingFilter"]

    pattern_filter: ResourcePatternFilter
    entry_filter: AccessControlEntryFilter

    # Kafka: AclBindingFilter.isUnknown
    def is_unknown(self) -> bool:
        return self.pattern_filter.is_unknown() or self.entry_filter.is_unknown()

    # Kafka: AclBindingFilter.matches
    def matches(self, binding: AclBinding) -> bool:
        return self.pattern_filter.matches(binding.pattern) and self.entry_filter.matches(binding.entry)

    # Kafka: AclBindingFilter.matchesAtMostOne
    def matches_at_most_one(self) -> bool:
        return self.pattern_filter.matches_at_most_one() and self.entry_filter.matches_at_most_one()

    # Kafka: AclBindingFilter.findIndefiniteField
    def find_indefinite_field(self) -> str | None:
        return self.pattern_filter.find_indefinite_field() or self.entry_filter.find_indefinite_field()

    def __str__(self) -> str:
        return f"(patternFilter={self.pattern_filter}, entryFilter={self.entry_filter})"


AclBindingFilter.ANY = AclBindingFilter(ResourcePatternFilter.ANY, AccessControlEntryFilter.ANY)  # Kafka: AclBindingFilter.ANY

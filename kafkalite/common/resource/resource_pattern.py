"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/resource/ResourcePattern.java and
ResourcePatternFilter.java (same directory)

Classes: ResourcePattern (a resource type, a name and a pattern type: what an ACL is stored under),
ResourcePatternFilter (the same with ANY / MATCH / a null name, to select patterns); WILDCARD_RESOURCE.

``str()`` gives Kafka's ``ResourcePattern(resourceType=TOPIC, name=foo, patternType=LITERAL)``, which is what
``kafka-acls`` prints.
"""
from __future__ import annotations

from typing import ClassVar

import attrs

from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_type import ResourceType

WILDCARD_RESOURCE = "*"   # Kafka: ResourcePattern.WILDCARD_RESOURCE
CLUSTER_NAME = "kafka-cluster"   # Kafka: Resource.ClusterResourceName (the only name of the CLUSTER resource)


@attrs.frozen
class ResourcePattern:
    """Kafka: ResourcePattern -- never ANY, MATCH or a null name."""

    resource_type: ResourceType
    name: str
    pattern_type: PatternType

    def __attrs_post_init__(self):
        if self.resource_type is ResourceType.ANY:
            raise ValueError("resourceType must not be ANY")
        if self.pattern_type in (PatternType.MATCH, PatternType.ANY):
            raise ValueError(f"patternType must not be {self.pattern_type}")
        if self.name is None:
            raise ValueError("name must not be null")

    # Kafka: ResourcePattern.toFilter
    def to_filter(self) -> "ResourcePatternFilter":
        return ResourcePatternFilter(self.resource_type, self.name, self.pattern_type)

    # Kafka: ResourcePattern.isUnknown
    def is_unknown(self) -> bool:
        return self.resource_type.is_unknown() or self.pattern_type.is_unknown()

    # Kafka: ResourcePattern.toString
    def __str__(self) -> str:
        return f"ResourcePattern(resourceType={self.resource_type}, name={self.name}, patternType={self.pattern_type})"


@attrs.frozen
class ResourcePatternFilter:
    """Kafka: ResourcePatternFilter."""

    ANY: ClassVar["ResourcePatternFilter"]

    resource_type: ResourceType
    name: str | None
    pattern_type: PatternType

    # Kafka: ResourcePatternFilter.isUnknown
    def is_unknown(self) -> bool:
        return self.resource_type.is_unknown() or self.pattern_type.is_unknown()

    # Kafka: ResourcePatternFilter.matches -- MATCH selects the literal, wildcard and prefixed patterns that
    # apply to the name
    def matches(self, pattern: ResourcePattern) -> bool:
        if self.resource_type is not ResourceType.ANY and self.resource_type is not pattern.resource_type:
            return False
        if self.pattern_type not in (PatternType.ANY, PatternType.MATCH) and self.pattern_type is not pattern.pattern_type:
            return False
        if self.name is None:
            return True
        if self.pattern_type in (PatternType.ANY, pattern.pattern_type):
            return self.name == pattern.name
        if pattern.pattern_type is PatternType.LITERAL:
            return self.name == pattern.name or pattern.name == WILDCARD_RESOURCE
        if pattern.pattern_type is PatternType.PREFIXED:
            return self.name.startswith(pattern.name)
        raise ValueError(f"Unsupported PatternType: {pattern.pattern_type}")

    # Kafka: ResourcePatternFilter.matchesAtMostOne
    def matches_at_most_one(self) -> bool:
        return self.find_indefinite_field() is None

    # Kafka: ResourcePatternFilter.findIndefiniteField
    def find_indefinite_field(self) -> str | None:
        if self.resource_type is ResourceType.ANY:
            return "Resource type is ANY."
        if self.resource_type is ResourceType.UNKNOWN:
            return "Resource type is UNKNOWN."
        if self.name is None:
            return "Resource name is NULL."
        if self.pattern_type is PatternType.MATCH:
            return "Resource pattern type is MATCH."
        if self.pattern_type is PatternType.UNKNOWN:
            return "Resource pattern type is UNKNOWN."
        return None

    # Kafka: ResourcePatternFilter.toString
    def __str__(self) -> str:
        name = "<any>" if self.name is None else self.name
        return f"ResourcePattern(resourceType={self.resource_type}, name={name}, patternType={self.pattern_type})"


ResourcePatternFilter.ANY = ResourcePatternFilter(ResourceType.ANY, None, PatternType.ANY)   # Kafka: ResourcePatternFilter.ANY
CLUSTER_RESOURCE = ResourcePattern(ResourceType.CLUSTER, CLUSTER_NAME, PatternType.LITERAL)

"""Mirrors Kafka 2.4: core/src/main/scala/kafka/zk/ZkData.scala (the ACL half; zk_data.py holds the rest)

Classes: ZkAclStore, LiteralAclStore, ExtendedAclStore, ZkAclChangeStore, LiteralAclChangeStore,
ExtendedAclChangeStore, ResourceZNode, ExtendedAclZNode.

Where ACLs live in ZooKeeper, byte for byte as Kafka 2.4 writes them, so Kafka's own tools read kafkalite's ACLs:
- literal patterns under ``/kafka-acl/<ResourceType>/<name>`` (``/kafka-acl/Topic/orders``, the cluster under
  ``/kafka-acl/Cluster/kafka-cluster``), prefixed ones under ``/kafka-acl-extended/prefixed/<ResourceType>/<name>``;
  the data is ``{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read",
  "host":"*"}]}`` (Kafka's ``kafka.security.auth.Acl`` names: Allow/Deny, Read, ClusterAction, ...);
- a change to a literal pattern adds a sequential ``/kafka-acl-changes/acl_changes_<n>`` holding
  ``Topic:orders``; a change to a prefixed one adds ``/kafka-acl-extended-changes/acl_changes_<n>`` holding
  ``{"version":1,"resourceType":"Topic","name":"orders","patternType":"PREFIXED"}``. Every broker's authorizer
  listens on both and re-reads the named resource.

Era notes: the resource is the clients' ResourcePattern and an ACL the clients' AccessControlEntry (as Kafka
2.5's AclEntry has it) rather than 2.4's ``kafka.security.auth.Resource`` / ``Acl`` pair; the stored bytes are
the same.
"""
from __future__ import annotations

import json

from kafkalite.common.acl.access_control_entry import AccessControlEntry
from kafkalite.common.acl.acl_operation import AclOperation
from kafkalite.common.acl.acl_permission_type import AclPermissionType
from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_pattern import ResourcePattern
from kafkalite.common.resource.resource_type import ResourceType

SEQUENCE_NUMBER_PREFIX = "acl_changes_"   # Kafka: ZkAclChangeStore.SequenceNumberPrefix
ACL_VERSION = 1   # Kafka: Acl.CurrentVersion


def _json(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class ExtendedAclZNode:
    """Kafka: ExtendedAclZNode."""

    @staticmethod
    def path() -> str:
        return "/kafka-acl-extended"


class ZkAclChangeStore:
    """Kafka: ZkAclChangeStore -- where the change notifications of one family of pattern types go."""

    acl_change_path: str = ""

    # Kafka: ZkAclChangeStore.createPath
    def create_path(self) -> str:
        return f"{self.acl_change_path}/{SEQUENCE_NUMBER_PREFIX}"

    def encode(self, resource: ResourcePattern) -> bytes:
        raise NotImplementedError

    def decode(self, data: bytes) -> ResourcePattern:
        raise NotImplementedError


class _LiteralAclChangeStore(ZkAclChangeStore):
    """Kafka: LiteralAclChangeStore -- "<ResourceType>:<name>", the pre-2.0 format."""

    acl_change_path = "/kafka-acl-changes"

    # Kafka: LiteralAclChangeStore.encode
    def encode(self, resource: ResourcePattern) -> bytes:
        if resource.pattern_type is not PatternType.LITERAL:
            raise ValueError("Only literal resource patterns can be encoded")
        return f"{resource.resource_type.acl_name}:{resource.name}".encode("utf-8")

    # Kafka: LiteralAclChangeStore.decode
    def decode(self, data: bytes) -> ResourcePattern:
        text = data.decode("utf-8")
        type_name, sep, name = text.partition(":")
        resource_type = ResourceType.from_string(type_name)
        if not sep or resource_type.is_unknown() or resource_type is ResourceType.ANY:
            raise ValueError(f"expected a string in format ResourceType:ResourceName but got {text}")
        return ResourcePattern(resource_type, name, PatternType.LITERAL)


class _ExtendedAclChangeStore(ZkAclChangeStore):
    """Kafka: ExtendedAclChangeStore -- an ExtendedAclChangeEvent as JSON."""

    acl_change_path = "/kafka-acl-extended-changes"

    # Kafka: ExtendedAclChangeStore.encode
    def encode(self, resource: ResourcePattern) -> bytes:
        if resource.pattern_type is PatternType.LITERAL:
            raise ValueError("Literal pattern types are not supported")
        return _json({"version": 1, "resourceType": resource.resource_type.acl_name, "name": resource.name,
                      "patternType": resource.pattern_type.name})

    # Kafka: ExtendedAclChangeStore.decode (ExtendedAclChangeEvent.toResource)
    def decode(self, data: bytes) -> ResourcePattern:
        try:
            event = json.loads(data.decode("utf-8"))
            if event["version"] > 1:
                raise ValueError(f"Acl change event received for unsupported version: {event['version']}")
            resource_type = ResourceType.from_string(event["resourceType"])
            pattern_type = PatternType.from_string(event["patternType"])
            return ResourcePattern(resource_type, event["name"], pattern_type)
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"Failed to parse ACL change event: {e}") from e


LiteralAclChangeStore = _LiteralAclChangeStore()
ExtendedAclChangeStore = _ExtendedAclChangeStore()


class ZkAclStore:
    """Kafka: ZkAclStore -- the root under which the ACLs of one pattern type are stored."""

    pattern_type: PatternType
    acl_path: str
    change_store: ZkAclChangeStore

    # Kafka: ZkAclStore.path -- the resource type's node, or one resource's
    def path(self, resource_type: ResourceType, resource_name: str | None = None) -> str:
        if resource_name is None:
            return f"{self.acl_path}/{resource_type.acl_name}"
        return f"{self.acl_path}/{resource_type.acl_name}/{resource_name}"

    # Kafka: ZkAclStore.apply
    @staticmethod
    def for_pattern_type(pattern_type: PatternType) -> "ZkAclStore":
        for store in ZkAclStore.stores:
            if store.pattern_type is pattern_type:
                return store
        raise ValueError(f"Invalid pattern type: {pattern_type}")


class _LiteralAclStore(ZkAclStore):
    """Kafka: LiteralAclStore."""

    pattern_type = PatternType.LITERAL
    acl_path = "/kafka-acl"
    change_store = LiteralAclChangeStore


class ExtendedAclStore(ZkAclStore):
    """Kafka: ExtendedAclStore -- ``/kafka-acl-extended/<pattern type in lower case>``."""

    def __init__(self, pattern_type: PatternType):
        if pattern_type is PatternType.LITERAL:
            raise ValueError("Literal pattern types are not supported")
        self.pattern_type = pattern_type
        self.acl_path = f"{ExtendedAclZNode.path()}/{pattern_type.name.lower()}"
        self.change_store = ExtendedAclChangeStore


LiteralAclStore = _LiteralAclStore()
ZkAclStore.stores = (LiteralAclStore, ExtendedAclStore(PatternType.PREFIXED))   # Kafka: ZkAclStore.stores
ZkAclChangeStore.stores = (LiteralAclChangeStore, ExtendedAclChangeStore)        # Kafka: ZkAclChangeStore.stores


class ResourceZNode:
    """Kafka: ResourceZNode -- one resource pattern's ACLs."""

    # Kafka: ResourceZNode.path
    @staticmethod
    def path(resource: ResourcePattern) -> str:
        return ZkAclStore.for_pattern_type(resource.pattern_type).path(resource.resource_type, resource.name)

    # Kafka: ResourceZNode.encode (Acl.toJsonCompatibleMap)
    @staticmethod
    def encode(acls) -> bytes:
        ordered = sorted(acls, key=lambda a: (a.principal, a.permission_type.code, a.operation.code, a.host))
        return _json({"version": ACL_VERSION, "acls": [
            {"principal": a.principal, "permissionType": a.permission_type.acl_name,
             "operation": a.operation.acl_name, "host": a.host} for a in ordered]})

    # Kafka: ResourceZNode.decode (Acl.fromBytes)
    @staticmethod
    def decode(data: bytes | None) -> frozenset[AccessControlEntry]:
        if not data:
            return frozenset()
        js = json.loads(data.decode("utf-8"))
        if js.get("version") != ACL_VERSION:
            raise ValueError(f"Unsupported ACL json version {js.get('version')}")
        out = set()
        for item in js.get("acls", []):
            principal = item["principal"]
            if ":" not in principal:
                raise ValueError(f"Invalid principal {principal}")
            operation = AclOperation.from_string(item["operation"])
            permission = AclPermissionType.from_string(item["permissionType"])
            if operation.is_unknown() or permission.is_unknown():
                raise ValueError(f"Invalid ACL {item}")
            out.add(AccessControlEntry(principal, item["host"], operation, permission))
        return frozenset(out)

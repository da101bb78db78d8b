"""Mirrors Kafka 2.4: core/src/main/scala/kafka/zk/KafkaZkClient.scala (its ACL methods; kafka_zk_client.py holds
the rest and inherits these)

Classes: KafkaZkClientAcls -- a mixin of KafkaZkClient: read, conditionally write and delete one resource
pattern's ACL znode, create change notifications, list the stored resource types and names (the paths and JSON
of ``zk_acl_store``). Writes are compare-and-set on the znode's version; AclAuthorizer retries on a clash.
"""
from __future__ import annotations

from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_pattern import ResourcePattern
from kafkalite.common.resource.resource_type import ResourceType
from kafkalite.zk.zk_acl_store import ExtendedAclZNode, ResourceZNode, ZkAclChangeStore, ZkAclStore
from kafkalite.zookeeper.zoo_keeper_client import (Code, CreateRequest, DeleteRequest, GetDataRequest,
                                                   KeeperException, SetDataRequest)

UNKNOWN_VERSION = -2   # Kafka: ZkVersion.UnknownVersion


class KafkaZkClientAcls:
    """The ACL part of Kafka's KafkaZkClient (self is a KafkaZkClient)."""

    # Kafka: KafkaZkClient.createAclPaths
    def create_acl_paths(self) -> None:
        for store in ZkAclStore.stores:
            self.create_recursive(store.acl_path, None, throw_if_path_exists=False)
            for resource_type in ResourceType:
                if resource_type not in (ResourceType.ANY, ResourceType.UNKNOWN):
                    self.create_recursive(store.path(resource_type), None, throw_if_path_exists=False)
        for change_store in ZkAclChangeStore.stores:
            self.create_recursive(change_store.acl_change_path, None, throw_if_path_exists=False)
        self.create_recursive(ExtendedAclZNode.path(), None, throw_if_path_exists=False)

    # Kafka: KafkaZkClient.getVersionedAclsForResource -- (acls, znode version); (empty, UNKNOWN_VERSION) if absent
    def get_versioned_acls_for_resource(self, resource: ResourcePattern):
        response = self._retry(GetDataRequest(ResourceZNode.path(resource)))
        if response.result_code == Code.NONODE:
            return frozenset(), UNKNOWN_VERSION
        response.maybe_throw()
        return ResourceZNode.decode(response.data), response.stat.version

    # Kafka: KafkaZkClient.conditionalSetAclsForResource -- (True, new version) or (False, UNKNOWN_VERSION)
    def conditional_set_acls_for_resource(self, resource: ResourcePattern, acls, expected_version: int):
        response = self._retry(SetDataRequest(ResourceZNode.path(resource), ResourceZNode.encode(acls),
                                              expected_version))
        if response.result_code == Code.OK:
            return True, response.stat.version
        if response.result_code in (Code.BADVERSION, Code.NONODE):
            return False, UNKNOWN_VERSION
        response.maybe_throw()
        return False, UNKNOWN_VERSION

    # Kafka: KafkaZkClient.createAclsForResourceIfNotExists -- (True, 0) or (False, UNKNOWN_VERSION) if it exists
    def create_acls_for_resource_if_not_exists(self, resource: ResourcePattern, acls):
        path = ResourceZNode.path(resource)
        code = self._retry(CreateRequest(path, ResourceZNode.encode(acls))).result_code
        if code == Code.NONODE:   # the resource type's node is missing (a store nobody initialised)
            self.create_recursive(path.rsplit("/", 1)[0], None, throw_if_path_exists=False)
            code = self._retry(CreateRequest(path, ResourceZNode.encode(acls))).result_code
        if code == Code.OK:
            return True, 0
        if code == Code.NODEEXISTS:
            return False, UNKNOWN_VERSION
        raise KeeperException(code, path)

    # Kafka: KafkaZkClient.conditionalDelete -- True if gone (deleted now or already absent), False on a clash
    def conditional_delete(self, resource: ResourcePattern, expected_version: int) -> bool:
        code = self._retry(DeleteRequest(ResourceZNode.path(resource), expected_version)).result_code
        if code in (Code.OK, Code.NONODE):
            return True
        if code == Code.BADVERSION:
            return False
        raise KeeperException(code, ResourceZNode.path(resource))

    # Kafka: KafkaZkClient.createAclChangeNotification
    def create_acl_change_notification(self, resource: ResourcePattern) -> str:
        store = ZkAclStore.for_pattern_type(resource.pattern_type).change_store
        response = self._retry(CreateRequest(store.create_path(), store.encode(resource), sequential=True))
        if response.result_code == Code.NONODE:
            self.create_recursive(store.acl_change_path, None, throw_if_path_exists=False)
            response = self._retry(CreateRequest(store.create_path(), store.encode(resource), sequential=True))
        response.maybe_throw()
        return response.name

    # Kafka: KafkaZkClient.getResourceTypes -- the names of the children of the pattern type's store
    def get_resource_types(self, pattern_type: PatternType) -> list[str]:
        return sorted(self._get_children(ZkAclStore.for_pattern_type(pattern_type).acl_path))

    # Kafka: KafkaZkClient.getResourceNames
    def get_resource_names(self, pattern_type: PatternType, resource_type: ResourceType) -> list[str]:
        return sorted(self._get_children(ZkAclStore.for_pattern_type(pattern_type).path(resource_type)))

"""Mirrors Kafka 2.4: core/src/main/scala/kafka/security/authorizer/AuthorizerUtils.scala

Classes: AuthorizerUtils -- which operations each resource type supports (``kafka.security.auth.ResourceType``'s
``supportedOperations``: what KIP-430's authorized-operations bit fields and ``kafka-acls`` check against), ACL
binding validation, and the broker's ``createAuthorizer`` from ``authorizer.class.name``.

Era notes: ``authorizer.class.name`` accepts Kafka's class names -- ``kafka.security.authorizer.AclAuthorizer``
and 2.4's deprecated ``kafka.security.auth.SimpleAclAuthorizer``, both meaning kafkalite's AclAuthorizer -- or
the dotted path of a Python class implementing ``Authorizer``.
"""
from __future__ import annotations

import importlib

from kafkalite.common.acl.acl_operation import AclOperation as Op
from kafkalite.common.resource.resource_pattern import CLUSTER_NAME
from kafkalite.common.resource.resource_type import ResourceType

_SUPPORTED_OPERATIONS = {
    ResourceType.TOPIC: frozenset({Op.READ, Op.WRITE, Op.CREATE, Op.DESCRIBE, Op.DELETE, Op.ALTER, Op.DESCRIBE_CONFIGS,
                                   Op.ALTER_CONFIGS}),
    ResourceType.GROUP: frozenset({Op.READ, Op.DESCRIBE, Op.DELETE}),
    ResourceType.CLUSTER: frozenset({Op.CREATE, Op.CLUSTER_ACTION, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS,
                                     Op.IDEMPOTENT_WRITE, Op.ALTER, Op.DESCRIBE}),
    ResourceType.TRANSACTIONAL_ID: frozenset({Op.DESCRIBE, Op.WRITE}),
    ResourceType.DELEGATION_TOKEN: frozenset({Op.DESCRIBE}),
}

KAFKA_AUTHORIZER_CLASS_NAMES = ("kafka.security.authorizer.AclAuthorizer", "kafka.security.auth.SimpleAclAuthorizer")


class AuthorizerUtils:
    """Kafka: AuthorizerUtils."""

    # Kafka: KafkaConfig.authorizer -- the instance authorizer.class.name names (2.4 also wraps old
    # kafka.security.auth.Authorizer classes in an AuthorizerWrapper)
    @staticmethod
    def create_authorizer(class_name: str):
        from kafkalite.security.authorizer.acl_authorizer import AclAuthorizer
        if class_name in KAFKA_AUTHORIZER_CLASS_NAMES:
            return AclAuthorizer()
        module_name, _, cls_name = class_name.rpartition(".")
        try:
            return getattr(importlib.import_module(module_name), cls_name)()
        except (ImportError, AttributeError, ValueError) as e:
            raise ValueError(f"Class {class_name} cannot be found") from e

    # Kafka: AuthorizerUtils.supportedOperations
    @staticmethod
    def supported_operations(resource_type: ResourceType) -> frozenset:
        return _SUPPORTED_OPERATIONS.get(resource_type, frozenset())

    # Kafka: AuthorizerUtils.isClusterResource
    @staticmethod
    def is_cluster_resource(name: str) -> bool:
        return name == CLUSTER_NAME

    # Kafka: AuthorizerUtils.validateAclBinding -- plus what 2.4's CreateAclsRequest and AclBinding constructors
    # refuse (ANY / MATCH / UNKNOWN fields) and a principal that is not "type:name"
    @staticmethod
    def validate_acl_binding(binding) -> None:
        if binding.is_unknown():
            raise ValueError("ACL binding contains unknown elements")
        if ":" not in binding.entry.principal:
            raise ValueError(f"Invalid principal {binding.entry.principal!r}: principals are of the form 'type:name'")
        if binding.pattern.resource_type not in _SUPPORTED_OPERATIONS:
            raise ValueError(f"Unsupported resource type {binding.pattern.resource_type}")

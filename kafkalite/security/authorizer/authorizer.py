"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/server/authorizer/Authorizer.java (with Action.java,
AuthorizationResult.java, AclCreateResult.java and AclDeleteResult.java of the same directory)

Classes: Authorizer (the interface KafkaApis calls: ``authorize(request_context, actions)`` gives one
AuthorizationResult per Action), Action, AuthorizationResult, AclCreateResult, AclDeleteResult,
AclBindingDeleteResult.

The request context is the broker's RequestContext: the authorizer reads its ``principal`` (a KafkaPrincipal,
User:ANONYMOUS on a PLAINTEXT listener), ``client_address`` (the peer's IP, matched against ACL hosts),
``listener_name`` and ``header`` (the api key, for the audit log).

Era notes: create_acls / delete_acls return their results directly, not CompletionStages (kafkalite's
AclAuthorizer completes them synchronously, as 2.4's does).
Left out: AuthorizerServerInfo and the per-endpoint start futures (``start`` takes nothing and returns nothing).
"""
from __future__ import annotations

import enum
from typing import ClassVar

import attrs

from kafkalite.common.acl.acl_binding import AclBinding
from kafkalite.common.acl.acl_operation import AclOperation
from kafkalite.common.resource.resource_pattern import ResourcePattern
from kafkalite.protocol.errors import ApiException


class AuthorizationResult(enum.Enum):
    """Kafka: AuthorizationResult."""

    ALLOWED = 0
    DENIED = 1


@attrs.frozen
class Action:
    """Kafka: Action -- one operation on one (literal) resource; the log flags say whether the audit log
    records an allow at DEBUG / a deny at INFO (False for filters and KIP-430's authorized operations)."""

    operation: AclOperation
    resource_pattern: ResourcePattern
    resource_reference_count: int = 1
    log_if_allowed: bool = True
    log_if_denied: bool = True


@attrs.frozen
class AclCreateResult:
    """Kafka: AclCreateResult -- no exception means created."""

    SUCCESS: ClassVar["AclCreateResult"]

    exception: ApiException | None = None


AclCreateResult.SUCCESS = AclCreateResult()   # Kafka: AclCreateResult.SUCCESS


@attrs.frozen
class AclBindingDeleteResult:
    """Kafka: AclDeleteResult.AclBindingDeleteResult -- one deleted binding, or the failure to delete it."""

    acl_binding: AclBinding
    exception: ApiException | None = None


@attrs.frozen
class AclDeleteResult:
    """Kafka: AclDeleteResult -- what one filter deleted, or why the filter failed."""

    acl_binding_delete_results: tuple = ()
    exception: ApiException | None = None


class Authorizer:
    """Kafka: Authorizer."""

    # Kafka: Configurable.configure -- the broker's properties (Authorizer extends Configurable)
    def configure(self, configs: dict) -> None:
        pass

    # Kafka: Authorizer.start
    def start(self) -> None:
        pass

    # Kafka: Authorizer.authorize
    def authorize(self, request_context, actions: list[Action]) -> list[AuthorizationResult]:
        raise NotImplementedError

    # Kafka: Authorizer.createAcls
    def create_acls(self, request_context, acl_bindings: list[AclBinding]) -> list[AclCreateResult]:
        raise NotImplementedError

    # Kafka: Authorizer.deleteAcls
    def delete_acls(self, request_context, acl_binding_filters) -> list[AclDeleteResult]:
        raise NotImplementedError

    # Kafka: Authorizer.acls
    def acls(self, acl_binding_filter) -> list[AclBinding]:
        raise NotImplementedError

    # Kafka: Authorizer.close
    def close(self) -> None:
        pass

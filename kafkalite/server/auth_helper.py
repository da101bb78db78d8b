"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaApis.scala (its private authorization helpers; Kafka 2.8
moved them into core/src/main/scala/kafka/server/AuthHelper.scala, whose name and shape this file takes)

Classes: AuthHelper.

KafkaApis holds one AuthHelper (``apis.auth_helper``) and every handler asks it: ``authorize(request, operation,
resource_type, name)`` (one literal resource; True when no authorizer is configured), ``filter_by_authorized``
(the names of a list that pass, each authorized once with its reference count), ``authorize_cluster_operation``
(the CLUSTER resource ``kafka-cluster``; 2.4 throws ClusterAuthorizationException and lets handleError answer,
here the handler answers CLUSTER_AUTHORIZATION_FAILED itself) and ``authorized_operations`` (KIP-430: the bit
field of the operations the principal may perform on a resource, each checked without audit logging).
"""
from __future__ import annotations

from kafkalite.common.acl.acl_operation import AclOperation
from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_pattern import CLUSTER_NAME, ResourcePattern
from kafkalite.common.resource.resource_type import ResourceType
from kafkalite.security.authorizer.authorizer import Action, AuthorizationResult
from kafkalite.security.authorizer.authorizer_utils import AuthorizerUtils
from kafkalite.utils.logging import Logging


class AuthHelper(Logging):
    """Kafka 2.8: AuthHelper(authorizer) -- the authorization questions KafkaApis's handlers ask."""

    def __init__(self, authorizer=None, log_ident: str = ""):
        self.authorizer = authorizer   # Kafka: KafkaApis.authorizer (Option[Authorizer]); None allows everything
        self.log_ident = log_ident

    # Kafka: KafkaApis.authorize (2.8: AuthHelper.authorize) -- one literal resource; no authorizer allows everything
    def authorize(self, request, operation: AclOperation, resource_type: ResourceType, resource_name: str,
                  log_if_allowed: bool = True, log_if_denied: bool = True, ref_count: int = 1) -> bool:
        if self.authorizer is None:
            return True
        action = Action(operation, ResourcePattern(resource_type, resource_name, PatternType.LITERAL), ref_count,
                        log_if_allowed, log_if_denied)
        return self.authorizer.authorize(request.context, [action])[0] is AuthorizationResult.ALLOWED

    # Kafka: KafkaApis.filterAuthorized (2.8: AuthHelper.filterByAuthorized) -- each distinct name once, with how often the request names it
    def filter_by_authorized(self, request, operation: AclOperation, resource_type: ResourceType, resource_names,
                          log_if_allowed: bool = True, log_if_denied: bool = True) -> set[str]:
        names = list(resource_names)
        if self.authorizer is None:
            return set(names)
        counts: dict[str, int] = {}
        for n in names:
            counts[n] = counts.get(n, 0) + 1
        actions = [Action(operation, ResourcePattern(resource_type, n, PatternType.LITERAL), c, log_if_allowed,
                          log_if_denied) for n, c in counts.items()]
        results = self.authorizer.authorize(request.context, actions)
        return {n for n, r in zip(counts, results) if r is AuthorizationResult.ALLOWED}

    # Kafka: KafkaApis.authorizeClusterOperation (2.8: AuthHelper's) -- True if allowed (2.4 throws ClusterAuthorizationException)
    def authorize_cluster_operation(self, request, operation: AclOperation) -> bool:
        allowed = self.authorize(request, operation, ResourceType.CLUSTER, CLUSTER_NAME)
        if not allowed:
            self.info(f"Request {request.request_desc()} from {request.context.connection_id} is not authorized "
                      f"for {operation} on the cluster")
        return allowed

    # Kafka: KafkaApis.authorizedOperations (2.8: AuthHelper's) -- KIP-430's bit field (bit n = the operation whose code is n)
    def authorized_operations(self, request, resource_type: ResourceType, resource_name: str) -> int:
        supported = sorted(AuthorizerUtils.supported_operations(resource_type), key=lambda o: o.code)
        if self.authorizer is None:
            allowed = supported
        else:
            pattern = ResourcePattern(resource_type, resource_name, PatternType.LITERAL)
            results = self.authorizer.authorize(request.context,
                                                [Action(op, pattern, 1, False, False) for op in supported])
            allowed = [op for op, r in zip(supported, results) if r is AuthorizationResult.ALLOWED]
        bits = 0   # Kafka: Utils.to32BitField
        for op in allowed:
            bits |= 1 << op.code
        return bits

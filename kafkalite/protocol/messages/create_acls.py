"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/CreateAclsRequest.json and CreateAclsResponse.json
(same directory)

Classes: CreateAclsRequest (AclCreation), CreateAclsResponse (AclCreationResult).

One result per creation, in request order. Codes on the wire: resource type (2 Topic, 3 Group, 4 Cluster,
5 TransactionalId, 6 DelegationToken), pattern type (3 LITERAL, 4 PREFIXED), operation (2 ALL .. 12
IdempotentWrite), permission type (2 DENY, 3 ALLOW).

Versions: v1 adds the resource pattern type (KIP-290; v0 means LITERAL); v2 is the first flexible version; v3
admits the USER resource type (KIP-554).
Era notes: 2.4 served v0-1 (its JSON predates the generated messages); the range is today's, 0-3.
Left out: nothing inside the range (kafkalite's authorizer refuses USER resources per creation).
"""
from kafkalite.protocol.schema import INT8, INT16, INT32, STRING, array, field, message, struct


@struct
class AclCreation:
    resource_type: int = field(INT8, "0+")
    resource_name: str = field(STRING, "0+")
    resource_pattern_type: int = field(INT8, "1+", default=3)
    principal: str = field(STRING, "0+")
    host: str = field(STRING, "0+")
    operation: int = field(INT8, "0+")
    permission_type: int = field(INT8, "0+")


@message(api_key=30, kind="request", valid="0-3", flexible="2+")
class CreateAclsRequest:
    creations: list[AclCreation] = field(array(AclCreation), "0+")


@struct
class AclCreationResult:
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+")


@message(api_key=30, kind="response", valid="0-3", flexible="2+")
class CreateAclsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    results: list[AclCreationResult] = field(array(AclCreationResult), "0+")

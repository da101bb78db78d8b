"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaApis.scala (handleDescribeAcls, handleCreateAcls,
handleDeleteAcls; Kafka 3.0 moved them into core/src/main/scala/kafka/server/AclApis.scala, whose name and shape
this file takes)

Classes: AclApis.

DescribeAcls needs DESCRIBE on the cluster, CreateAcls and DeleteAcls ALTER on the cluster; without an authorizer
they answer SECURITY_DISABLED. A creation naming the CLUSTER resource by another name than ``kafka-cluster``, an
empty name, or ANY / MATCH / UNKNOWN codes fails alone with INVALID_REQUEST.

Era notes: the ACL APIs are served at today's versions (0-3); v0 requests mean LITERAL patterns and a v0
DescribeAcls answer leaves prefixed ACLs out, as Kafka does. Requests that 2.4 refuses while parsing (an ANY
pattern type in a creation, an UNKNOWN filter) are answered per entry with INVALID_REQUEST instead.
Left out: the alterAclsPurgatory (kafkalite's AclAuthorizer completes synchronously).
"""
from __future__ import annotations

from kafkalite.common.acl.access_control_entry import AccessControlEntry, AccessControlEntryFilter
from kafkalite.common.acl.acl_binding import AclBinding, AclBindingFilter
from kafkalite.common.acl.acl_operation import AclOperation
from kafkalite.common.acl.acl_permission_type import AclPermissionType
from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_pattern import CLUSTER_NAME, ResourcePattern, ResourcePatternFilter
from kafkalite.common.resource.resource_type import ResourceType
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import create_acls, delete_acls, describe_acls
from kafkalite.security.authorizer.authorizer_utils import AuthorizerUtils

NO_AUTHORIZER = "No Authorizer is configured on the broker"


def _error_text(e) -> str | None:
    return str(e) if e is not None else None


class AclApis:
    """Kafka 3.0: AclApis(authHelper, authorizer, requestHelper, ...) -- the three ACL handlers."""

    def __init__(self, auth_helper, authorizer, send_response):
        self.auth_helper = auth_helper
        self.authorizer = authorizer
        self.send_response = send_response   # Kafka 3.0: RequestHandlerHelper.sendResponseMaybeThrottle

    # Kafka: KafkaApis.handleDescribeAcls (3.0: AclApis.handleDescribeAcls)
    def handle_describe_acls(self, request) -> None:
        body = request.body
        version = request.header.api_version

        def error(e: Errors, message: str | None):
            self.send_response(request, describe_acls.DescribeAclsResponse(error_code=e.code, error_message=message,
                                                                           resources=[]))
        if not self.auth_helper.authorize_cluster_operation(request, AclOperation.DESCRIBE):
            error(Errors.CLUSTER_AUTHORIZATION_FAILED, f"Request {request.request_desc()} is not authorized.")
            return
        if self.authorizer is None:
            error(Errors.SECURITY_DISABLED, NO_AUTHORIZER)
            return
        acl_filter = AclBindingFilter(
            ResourcePatternFilter(ResourceType.from_code(body.resource_type_filter), body.resource_name_filter,
                                  PatternType.from_code(body.pattern_type_filter)),
            AccessControlEntryFilter(body.principal_filter, body.host_filter, AclOperation.from_code(body.operation),
                                     AclPermissionType.from_code(body.permission_type)))
        if acl_filter.is_unknown():
            error(Errors.INVALID_REQUEST, "The filter contains UNKNOWN elements")
            return
        by_pattern: dict[ResourcePattern, list] = {}
        for binding in self.authorizer.acls(acl_filter):
            if version == 0 and binding.pattern.pattern_type is not PatternType.LITERAL:
                continue
            by_pattern.setdefault(binding.pattern, []).append(binding.entry)
        resources = [describe_acls.DescribeAclsResource(
            resource_type=p.resource_type.code, resource_name=p.name, pattern_type=p.pattern_type.code,
            acls=[describe_acls.AclDescription(principal=e.principal, host=e.host, operation=e.operation.code,
                                               permission_type=e.permission_type.code)
                  for e in sorted(entries, key=str)])
            for p, entries in sorted(by_pattern.items(), key=lambda kv: str(kv[0]))]
        self.send_response(request, describe_acls.DescribeAclsResponse(error_code=0, resources=resources))

    # Kafka: KafkaApis.handleCreateAcls (3.0: AclApis.handleCreateAcls)
    def handle_create_acls(self, request) -> None:
        creations = request.body.creations

        def respond(results: list) -> None:
            self.send_response(request, create_acls.CreateAclsResponse(results=[
                create_acls.AclCreationResult(error_code=e.code, error_message=m) for e, m in results]))
        if not self.auth_helper.authorize_cluster_operation(request, AclOperation.ALTER):
            respond([(Errors.CLUSTER_AUTHORIZATION_FAILED, f"Request {request.request_desc()} is not authorized.")]
                    * len(creations))
            return
        if self.authorizer is None:
            respond([(Errors.SECURITY_DISABLED, NO_AUTHORIZER)] * len(creations))
            return
        results: list = [None] * len(creations)
        valid: list[tuple[int, AclBinding]] = []
        for i, c in enumerate(creations):
            try:
                binding = AclBinding(
                    ResourcePattern(ResourceType.from_code(c.resource_type), c.resource_name,
                                    PatternType.from_code(c.resource_pattern_type)),
                    AccessControlEntry(c.principal, c.host, AclOperation.from_code(c.operation),
                                       AclPermissionType.from_code(c.permission_type)))
            except ValueError as e:
                results[i] = (Errors.INVALID_REQUEST, f"Failed to create ACL: {e}")
                continue
            if binding.pattern.resource_type is ResourceType.CLUSTER and \
                    not AuthorizerUtils.is_cluster_resource(binding.pattern.name):
                results[i] = (Errors.INVALID_REQUEST, f"The only valid name for the CLUSTER resource is {CLUSTER_NAME}")
            elif not binding.pattern.name:
                results[i] = (Errors.INVALID_REQUEST, "Invalid empty resource name")
            else:
                valid.append((i, binding))
        created = self.authorizer.create_acls(request.context, [b for _, b in valid])
        for (i, _), result in zip(valid, created):
            e = result.exception
            results[i] = (Errors.NONE, None) if e is None else (Errors.for_exception(e), _error_text(e))
        respond(results)

    # Kafka: KafkaApis.handleDeleteAcls (3.0: AclApis.handleDeleteAcls)
    def handle_delete_acls(self, request) -> None:
        filters = request.body.filters
        version = request.header.api_version

        def error_response(e: Errors, message: str) -> None:
            self.send_response(request, delete_acls.DeleteAclsResponse(filter_results=[
                delete_acls.DeleteAclsFilterResult(error_code=e.code, error_message=message, matching_acls=[])
                for _ in filters]))
        if not self.auth_helper.authorize_cluster_operation(request, AclOperation.ALTER):
            error_response(Errors.CLUSTER_AUTHORIZATION_FAILED, f"Request {request.request_desc()} is not authorized.")
            return
        if self.authorizer is None:
            error_response(Errors.SECURITY_DISABLED, NO_AUTHORIZER)
            return
        parsed: list[AclBindingFilter | None] = []
        for f in filters:
            acl_filter = AclBindingFilter(
                ResourcePatternFilter(ResourceType.from_code(f.resource_type_filter), f.resource_name_filter,
                                      PatternType.from_code(f.pattern_type_filter)),
                AccessControlEntryFilter(f.principal_filter, f.host_filter, AclOperation.from_code(f.operation),
                                         AclPermissionType.from_code(f.permission_type)))
            parsed.append(None if acl_filter.is_unknown() else acl_filter)
        valid = [f for f in parsed if f is not None]
        deleted = iter(self.authorizer.delete_acls(request.context, valid))
        out = []
        for f in parsed:
            if f is None:
                out.append(delete_acls.DeleteAclsFilterResult(error_code=Errors.INVALID_REQUEST.code,
                                                              error_message="The filter contains UNKNOWN elements",
                                                              matching_acls=[]))
                continue
            result = next(deleted)
            matching = []
            for r in sorted(result.acl_binding_delete_results, key=lambda r: str(r.acl_binding)):
                b = r.acl_binding
                if version == 0 and b.pattern.pattern_type is not PatternType.LITERAL:
                    continue
                matching.append(delete_acls.DeleteAclsMatchingAcl(
                    error_code=Errors.for_exception(r.exception).code if r.exception else 0,
                    error_message=_error_text(r.exception), resource_type=b.pattern.resource_type.code,
                    resource_name=b.pattern.name, pattern_type=b.pattern.pattern_type.code,
                    principal=b.entry.principal, host=b.entry.host, operation=b.entry.operation.code,
                    permission_type=b.entry.permission_type.code))
            e = result.exception
            out.append(delete_acls.DeleteAclsFilterResult(error_code=Errors.for_exception(e).code if e else 0,
                                                          error_message=_error_text(e), matching_acls=matching))
        self.send_response(request, delete_acls.DeleteAclsResponse(filter_results=out))

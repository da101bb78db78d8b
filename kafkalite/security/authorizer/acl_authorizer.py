"""Mirrors Kafka 2.4: core/src/main/scala/kafka/security/authorizer/AclAuthorizer.scala

Classes: AclAuthorizer -- Kafka's ZooKeeper-backed authorizer (``authorizer.class.name=
kafka.security.authorizer.AclAuthorizer``; 2.4's deprecated ``kafka.security.auth.SimpleAclAuthorizer`` names the
same behaviour).

The decision (``authorize_action``): a super user (``super.users``, ``User:a;User:b``) may do anything. Otherwise
the ACLs that apply to the resource are those of its literal pattern, of the wildcard pattern ``*`` of its type and
of every prefixed pattern its name starts with. No ACL at all: allowed only if ``allow.everyone.if.no.acl.found``.
Else a matching DENY wins; then a matching ALLOW is needed. An ACL matches when its principal is the session's or
``User:*``, its host the client's IP or ``*``, and its operation the requested one or ALL -- where an ALLOW of
READ, WRITE, DELETE or ALTER also allows DESCRIBE and an ALLOW of ALTER_CONFIGS allows DESCRIBE_CONFIGS
(denies imply nothing). Every decision is logged on ``kafka.authorizer.logger``: denied at INFO, allowed at DEBUG
(TRACE for the actions whose Action says not to log).

The cache: every resource pattern's ACLs and znode version, loaded from ``/kafka-acl`` and
``/kafka-acl-extended/prefixed`` at ``configure``; an immutable dict replaced on each change, so ``authorize`` reads
it without a lock. Writes (create_acls / delete_acls, under one lock) are compare-and-set on the znode, re-read and
retried on a version clash, then announced with a change notification; every broker's change listeners
(``/kafka-acl-changes-event-process-thread`` and ``/kafka-acl-extended-changes-event-process-thread``) re-read the
named resource into their cache.

Era notes: the cache holds clients' AccessControlEntry values keyed by ResourcePattern (Kafka 2.5's AclEntry
layout) instead of 2.4's ``kafka.security.auth.Acl`` / ``Resource``; the ZooKeeper bytes are 2.4's. The authorizer
uses the broker's KafkaZkClient (``configure(configs, zk_client)``) rather than opening its own session -- the
embedded store is per process; with ``zk_client`` None it opens one on ``authorizer.zookeeper.connect`` or
``zookeeper.connect``, as Kafka does.
Left out: ``inter.broker.protocol.version`` below 2.0 (no prefixed ACLs), ``zookeeper.set.acl``.
"""
from __future__ import annotations

import logging
import random
import threading
import time as _time

from kafkalite.common.acl.access_control_entry import AccessControlEntry
from kafkalite.common.acl.acl_binding import AclBinding
from kafkalite.common.acl.acl_operation import AclOperation
from kafkalite.common.acl.acl_permission_type import AclPermissionType
from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_pattern import WILDCARD_RESOURCE, ResourcePattern
from kafkalite.common.resource.resource_type import ResourceType
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.security.auth.kafka_principal import KafkaPrincipal
from kafkalite.security.authorizer.authorizer import (AclBindingDeleteResult, AclCreateResult, AclDeleteResult,
                                                      AuthorizationResult, Authorizer)
from kafkalite.security.authorizer.authorizer_utils import AuthorizerUtils
from kafkalite.utils.logging import Logging
from kafkalite.zk.kafka_zk_client_acls import UNKNOWN_VERSION
from kafkalite.zk.zk_acl_store import SEQUENCE_NUMBER_PREFIX, ZkAclChangeStore, ZkAclStore
from kafkalite.zk.zk_node_change_notification_listener import NotificationHandler, ZkNodeChangeNotificationListener

SUPER_USERS_PROP = "super.users"                                   # Kafka: AclAuthorizer.SuperUsersProp
ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_PROP = "allow.everyone.if.no.acl.found"   # Kafka: AclAuthorizer.AllowEveryoneIfNoAclIsFoundProp
ZK_URL_PROP = "authorizer.zookeeper.url"                           # Kafka: AclAuthorizer.ZkUrlProp
WILDCARD_PRINCIPAL = "User:*"                                      # Kafka: AuthorizerUtils.WildcardPrincipal
WILDCARD_HOST = "*"                                                # Kafka: AuthorizerUtils.WildcardHost
NO_ACLS = (frozenset(), UNKNOWN_VERSION)                           # Kafka: AclAuthorizer.NoAcls

authorizer_logger = logging.getLogger("kafka.authorizer.logger")


def _key(resource: ResourcePattern) -> tuple:
    return resource.resource_type, resource.name, resource.pattern_type


class _AclChangedNotificationHandler(NotificationHandler):
    """Kafka: AclAuthorizer.AclChangedNotificationHandler (via ZkAclChangeStore.createListener's rawHandler)."""

    def __init__(self, authorizer: "AclAuthorizer", change_store):
        self.authorizer = authorizer
        self.change_store = change_store

    def process_notification(self, data: bytes) -> None:
        resource = self.change_store.decode(data)
        with self.authorizer.lock:
            self.authorizer.update_cache(resource, self.authorizer.get_acls_from_zk(resource))


class AclAuthorizer(Authorizer, Logging):
    """Kafka: AclAuthorizer."""

    max_update_retries = 10          # Kafka: AclAuthorizer.maxUpdateRetries
    retry_backoff_ms = 100           # Kafka: AclAuthorizer.retryBackoffMs
    retry_backoff_jitter_ms = 50     # Kafka: AclAuthorizer.retryBackoffJitterMs

    def __init__(self):
        self.super_users: frozenset[str] = frozenset()
        self.should_allow_everyone_if_no_acl_is_found = False
        self.zk_client = None
        self._owns_zk_client = False
        self.acl_change_listeners: list[ZkNodeChangeNotificationListener] = []
        # (resource type, name, pattern type) -> (frozenset of AccessControlEntry, znode version); replaced, never
        # mutated, so readers need no lock
        self.acl_cache: dict[tuple, tuple] = {}
        self.lock = threading.RLock()

    # Kafka: AclAuthorizer.configure -- listeners first, then the cache, so no change falls between the two
    def configure(self, configs: dict, zk_client=None) -> None:
        supers = str(configs.get(SUPER_USERS_PROP) or "").strip()
        self.super_users = frozenset(str(KafkaPrincipal.parse(s.strip())) for s in supers.split(";") if s.strip())
        self.should_allow_everyone_if_no_acl_is_found = \
            str(configs.get(ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_PROP, "false")).strip().lower() == "true"
        if zk_client is None:
            from kafkalite.zk.kafka_zk_client import KafkaZkClient
            connect = configs.get(ZK_URL_PROP) or configs.get("zookeeper.connect")
            zk_client = KafkaZkClient.create(connect, int(configs.get("zookeeper.session.timeout.ms", 6000)),
                                             name="ACL authorizer")
            self._owns_zk_client = True
        self.zk_client = zk_client
        self.zk_client.create_acl_paths()
        self.start_zk_change_listeners()
        self.load_cache()

    # Kafka: AclAuthorizer.authorize
    def authorize(self, request_context, actions) -> list[AuthorizationResult]:
        return [self.authorize_action(request_context, action) for action in actions]

    # Kafka: AclAuthorizer.authorizeAction
    def authorize_action(self, request_context, action) -> AuthorizationResult:
        resource = action.resource_pattern
        if resource.pattern_type is not PatternType.LITERAL:
            raise ValueError(f"Only literal resources are supported. Got: {resource.pattern_type}")
        principal = str(getattr(request_context, "principal", None) or KafkaPrincipal.ANONYMOUS)
        host = request_context.client_address
        operation = action.operation
        authorized = self.is_super_user(principal) or self._acls_allow_access(resource, principal, host, operation)
        self.log_audit_message(request_context, action, authorized)
        return AuthorizationResult.ALLOWED if authorized else AuthorizationResult.DENIED

    def _acls_allow_access(self, resource: ResourcePattern, principal: str, host: str, operation: AclOperation) -> bool:
        acls = self.matching_acls(resource.resource_type, resource.name)
        if not acls:   # Kafka: isEmptyAclAndAuthorized
            authorizer_logger.debug(f"No acl found for resource {resource}, authorized = "
                                    f"{self.should_allow_everyone_if_no_acl_is_found}")
            return self.should_allow_everyone_if_no_acl_is_found
        if self.matching_acl_exists((operation,), resource, principal, host, AclPermissionType.DENY, acls):
            return False   # Kafka: denyAclExists
        # Kafka: allowAclExists -- READ/WRITE/DELETE/ALTER imply DESCRIBE, ALTER_CONFIGS implies DESCRIBE_CONFIGS
        return self.matching_acl_exists(operation.implied_by(), resource, principal, host, AclPermissionType.ALLOW,
                                        acls)

    # Kafka: AclAuthorizer.isSuperUser
    def is_super_user(self, principal: str) -> bool:
        if principal in self.super_users:
            authorizer_logger.debug(f"principal = {principal} is a super user, allowing operation without checking acls.")
            return True
        return False

    # Kafka: AclAuthorizer.matchingAcls -- the wildcard, the literal and every prefix of the name
    def matching_acls(self, resource_type: ResourceType, resource_name: str) -> frozenset[AccessControlEntry]:
        cache = self.acl_cache
        found = []
        wildcard = cache.get((resource_type, WILDCARD_RESOURCE, PatternType.LITERAL))
        if wildcard is not None:
            found.append(wildcard[0])
        literal = cache.get((resource_type, resource_name, PatternType.LITERAL))
        if literal is not None:
            found.append(literal[0])
        for end in range(1, len(resource_name) + 1):
            prefixed = cache.get((resource_type, resource_name[:end], PatternType.PREFIXED))
            if prefixed is not None:
                found.append(prefixed[0])
        return frozenset().union(*found) if found else frozenset()

    # Kafka: AclAuthorizer.matchingAclExists
    def matching_acl_exists(self, operations, resource, principal: str, host: str,
                            permission_type: AclPermissionType, acls) -> bool:
        for acl in acls:
            if acl.permission_type is permission_type \
                    and (acl.principal == principal or acl.principal == WILDCARD_PRINCIPAL) \
                    and (acl.operation in operations or acl.operation is AclOperation.ALL) \
                    and (acl.host == host or acl.host == WILDCARD_HOST):
                authorizer_logger.debug(f"operation = {'/'.join(sorted(str(o) for o in operations))} on resource = "
                                        f"{resource} from host = {host} is {permission_type} based on acl = {acl}")
                return True
        return False

    # Kafka: AclAuthorizer.logAuditMessage
    def log_audit_message(self, request_context, action, authorized: bool) -> None:
        level = (logging.DEBUG if action.log_if_allowed else 5) if authorized else \
            (logging.INFO if action.log_if_denied else 5)
        if not authorizer_logger.isEnabledFor(level):
            return
        principal = getattr(request_context, "principal", None) or KafkaPrincipal.ANONYMOUS
        header = getattr(request_context, "header", None)
        api = getattr(header, "api_key", None)
        authorizer_logger.log(level, f"Principal = {principal} is {'Allowed' if authorized else 'Denied'} Operation = "
                                     f"{action.operation} from host = {request_context.client_address} on resource = "
                                     f"{action.resource_pattern} for request = {api} with resourceRefCount = "
                                     f"{action.resource_reference_count}")

    # ------------------------------------------------------------------ admin: create, delete, list
    # Kafka: AclAuthorizer.createAcls -- grouped by resource pattern, one ZooKeeper update per pattern
    def create_acls(self, request_context, acl_bindings: list[AclBinding]) -> list[AclCreateResult]:
        results: list[AclCreateResult | None] = [None] * len(acl_bindings)
        by_resource: dict[ResourcePattern, list[int]] = {}
        for i, binding in enumerate(acl_bindings):
            try:
                AuthorizerUtils.validate_acl_binding(binding)
            except ValueError as e:
                results[i] = AclCreateResult(Errors.INVALID_REQUEST.exception(f"Failed to create ACL: {e}"))
                continue
            by_resource.setdefault(binding.pattern, []).append(i)
        with self.lock:
            for resource, indexes in by_resource.items():
                new_acls = {acl_bindings[i].entry for i in indexes}
                try:
                    self.update_resource_acls(resource, lambda current, add=new_acls: current | add)
                    for i in indexes:
                        results[i] = AclCreateResult.SUCCESS
                except Exception as e:  # noqa: BLE001 -- reported per binding
                    for i in indexes:
                        results[i] = AclCreateResult(self.api_exception(e))
        return results

    # Kafka: AclAuthorizer.deleteAcls -- every cached pattern a filter matches loses the entries it matches
    def delete_acls(self, request_context, acl_binding_filters) -> list[AclDeleteResult]:
        deleted: dict[AclBinding, int] = {}
        errors: dict[AclBinding, ApiException] = {}
        with self.lock:
            for key in list(self.acl_cache):
                resource = ResourcePattern(*key)
                matching = [(f, i) for i, f in enumerate(acl_binding_filters) if f.pattern_filter.matches(resource)]
                if not matching:
                    continue
                being_deleted: dict[AclBinding, int] = {}

                def remove(current, resource=resource, matching=matching, being_deleted=being_deleted):
                    to_remove = set()
                    for acl in current:
                        for f, i in matching:
                            if f.entry_filter.matches(acl):
                                binding = AclBinding(resource, acl)
                                deleted.setdefault(binding, i)
                                being_deleted.setdefault(binding, i)
                                to_remove.add(acl)
                    return current - to_remove
                try:
                    self.update_resource_acls(resource, remove)
                except Exception as e:  # noqa: BLE001 -- reported per binding
                    for binding in being_deleted:
                        errors.setdefault(binding, self.api_exception(e))
        per_filter: list[list] = [[] for _ in acl_binding_filters]
        for binding, i in deleted.items():
            per_filter[i].append(AclBindingDeleteResult(binding, errors.get(binding)))
        return [AclDeleteResult(tuple(r)) for r in per_filter]

    # Kafka: AclAuthorizer.acls
    def acls(self, acl_binding_filter) -> list[AclBinding]:
        out = []
        for key, (entries, _) in self.acl_cache.items():
            resource = ResourcePattern(*key)
            for acl in entries:
                binding = AclBinding(resource, acl)
                if acl_binding_filter.matches(binding):
                    out.append(binding)
        return out

    # Kafka: AclAuthorizer.close
    def close(self) -> None:
        for listener in self.acl_change_listeners:
            listener.close()
        self.acl_change_listeners = []
        if self._owns_zk_client and self.zk_client is not None:
            self.zk_client.close()

    # ------------------------------------------------------------------ cache and ZooKeeper
    # Kafka: AclAuthorizer.loadCache
    def load_cache(self) -> None:
        with self.lock:
            for store in ZkAclStore.stores:
                for type_name in self.zk_client.get_resource_types(store.pattern_type):
                    resource_type = ResourceType.from_string(type_name)
                    if resource_type in (ResourceType.UNKNOWN, ResourceType.ANY):
                        self.warn(f"Ignoring unknown ResourceType: {type_name}")
                        continue
                    for name in self.zk_client.get_resource_names(store.pattern_type, resource_type):
                        resource = ResourcePattern(resource_type, name, store.pattern_type)
                        self.update_cache(resource, self.get_acls_from_zk(resource))

    # Kafka: AclAuthorizer.startZkChangeListeners
    def start_zk_change_listeners(self) -> None:
        for change_store in ZkAclChangeStore.stores:   # Kafka: ZkAclChangeStore.createListener
            listener = ZkNodeChangeNotificationListener(self.zk_client, change_store.acl_change_path,
                                                        SEQUENCE_NUMBER_PREFIX,
                                                        _AclChangedNotificationHandler(self, change_store))
            listener.init()
            self.acl_change_listeners.append(listener)

    # Kafka: AclAuthorizer.updateResourceAcls -- compare-and-set, re-read and retry on a version clash; True if the
    # ACLs changed (then the change is announced to every broker)
    def update_resource_acls(self, resource: ResourcePattern, get_new_acls) -> bool:
        current = self.acl_cache.get(_key(resource)) or self.get_acls_from_zk(resource)
        new_versioned = None
        retries = 0
        while new_versioned is None and retries <= self.max_update_retries:
            new_acls = frozenset(get_new_acls(current[0]))
            if new_acls:
                if current[1] != UNKNOWN_VERSION:
                    ok, version = self.zk_client.conditional_set_acls_for_resource(resource, new_acls, current[1])
                else:
                    ok, version = self.zk_client.create_acls_for_resource_if_not_exists(resource, new_acls)
            else:
                self.trace(f"Deleting path for {resource} because it had no ACLs remaining")
                ok, version = self.zk_client.conditional_delete(resource, current[1]), 0
            if not ok:
                self.trace(f"Failed to update ACLs for {resource}. Used version {current[1]}. Reading data and "
                           f"retrying update.")
                _time.sleep(self.backoff_time() / 1000)
                current = self.get_acls_from_zk(resource)
                retries += 1
            else:
                new_versioned = (new_acls, version)
        if new_versioned is None:
            raise RuntimeError(f"Failed to update ACLs for {resource} after trying a maximum of "
                               f"{self.max_update_retries} times")
        self.update_cache(resource, new_versioned)
        if new_versioned[0] != current[0]:
            self.debug(f"Updated ACLs for {resource} to {sorted(map(str, new_versioned[0]))} with version "
                       f"{new_versioned[1]}")
            self.update_acl_changed_flag(resource)
            return True
        return False

    # Kafka: AclAuthorizer.getAclsFromZk
    def get_acls_from_zk(self, resource: ResourcePattern) -> tuple:
        return self.zk_client.get_versioned_acls_for_resource(resource)

    # Kafka: AclAuthorizer.updateCache
    def update_cache(self, resource: ResourcePattern, versioned_acls: tuple) -> None:
        cache = dict(self.acl_cache)
        if versioned_acls[0]:
            cache[_key(resource)] = versioned_acls
        else:
            cache.pop(_key(resource), None)
        self.acl_cache = cache

    # Kafka: AclAuthorizer.updateAclChangedFlag
    def update_acl_changed_flag(self, resource: ResourcePattern) -> None:
        self.zk_client.create_acl_change_notification(resource)

    # Kafka: AclAuthorizer.backoffTime
    def backoff_time(self) -> int:
        return self.retry_backoff_ms + random.randrange(self.retry_backoff_jitter_ms)

    # Kafka: AclAuthorizer.apiException
    @staticmethod
    def api_exception(e: Exception) -> ApiException:
        if isinstance(e, ApiException):
            return e
        return Errors.UNKNOWN_SERVER_ERROR.exception(str(e))

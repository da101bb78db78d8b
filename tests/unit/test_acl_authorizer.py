"""Kafka's AclAuthorizerTest (core/src/test/scala/unit/kafka/security/authorizer/AclAuthorizerTest.scala), the
cases kafkalite's AclAuthorizer covers, against the in-process ZooKeeper store.

Two authorizers on one store stand for two brokers: a change made through one reaches the other through the
change notifications.
"""
import threading
import time

import pytest

from kafkalite.common.acl.access_control_entry import AccessControlEntry, AccessControlEntryFilter
from kafkalite.common.acl.acl_binding import AclBinding, AclBindingFilter
from kafkalite.common.acl.acl_operation import AclOperation as Op
from kafkalite.common.acl.acl_permission_type import AclPermissionType as Perm
from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_pattern import CLUSTER_RESOURCE, ResourcePattern, ResourcePatternFilter
from kafkalite.common.resource.resource_type import ResourceType
from kafkalite.security.auth.kafka_principal import KafkaPrincipal
from kafkalite.security.authorizer.acl_authorizer import AclAuthorizer
from kafkalite.security.authorizer.authorizer import Action, AuthorizationResult
from kafkalite.zk.kafka_zk_client import KafkaZkClient
from kafkalite.zk.zk_acl_store import ResourceZNode
from kafkalite.zookeeper.local_zoo_keeper import LocalZooKeeper

ALLOWED, DENIED = AuthorizationResult.ALLOWED, AuthorizationResult.DENIED


class Context:
    def __init__(self, principal="User:alice", host="192.168.1.1"):
        self.principal = KafkaPrincipal.parse(principal)
        self.client_address = host
        self.header = None


@pytest.fixture
def store():
    s = LocalZooKeeper.open(None)
    yield s
    s.close()


@pytest.fixture
def make_authorizer(store):
    made = []

    def make(**configs):
        zk = KafkaZkClient.create("embedded", backend=store)
        a = AclAuthorizer()
        a.configure(configs, zk)
        made.append((a, zk))
        return a

    yield make
    for a, zk in made:
        a.close()
        zk.close()


def topic(name, pattern=PatternType.LITERAL):
    return ResourcePattern(ResourceType.TOPIC, name, pattern)


def ace(principal="User:alice", op=Op.READ, perm=Perm.ALLOW, host="*"):
    return AccessControlEntry(principal, host, op, perm)


def add(authorizer, resource, *entries):
    results = authorizer.create_acls(None, [AclBinding(resource, e) for e in entries])
    assert all(r.exception is None for r in results), results


def check(authorizer, op, resource_name, ctx=None, resource_type=ResourceType.TOPIC):
    action = Action(op, ResourcePattern(resource_type, resource_name, PatternType.LITERAL))
    return authorizer.authorize(ctx or Context(), [action])[0]


def wait_for(cond, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        threading.Event().wait(0.02)
    return cond()


def test_empty_acl_denies_unless_allow_everyone(make_authorizer):
    assert check(make_authorizer(), Op.READ, "t") is DENIED
    assert check(make_authorizer(**{"allow.everyone.if.no.acl.found": "true"}), Op.READ, "t") is ALLOWED


def test_allow_everyone_applies_only_where_no_acl_exists(make_authorizer):
    a = make_authorizer(**{"allow.everyone.if.no.acl.found": "true"})
    add(a, topic("t"), ace("User:bob"))
    assert check(a, Op.READ, "t") is DENIED          # an ACL exists, alice has none
    assert check(a, Op.READ, "other") is ALLOWED


def test_literal_acl_allows_its_principal_operation_and_host_only(make_authorizer):
    a = make_authorizer()
    add(a, topic("t"), ace(host="192.168.1.1"))
    assert check(a, Op.READ, "t") is ALLOWED
    assert check(a, Op.WRITE, "t") is DENIED
    assert check(a, Op.READ, "t", Context("User:bob")) is DENIED
    assert check(a, Op.READ, "t", Context(host="10.0.0.1")) is DENIED
    assert check(a, Op.READ, "t2") is DENIED


def test_deny_overrides_allow(make_authorizer):
    a = make_authorizer()
    add(a, topic("t"), ace("User:*", Op.ALL), ace(op=Op.READ, perm=Perm.DENY, host="192.168.1.1"))
    assert check(a, Op.READ, "t") is DENIED
    assert check(a, Op.WRITE, "t") is ALLOWED
    assert check(a, Op.READ, "t", Context(host="10.0.0.1")) is ALLOWED
    assert check(a, Op.READ, "t", Context("User:bob")) is ALLOWED


def test_wildcard_resource_and_wildcard_principal(make_authorizer):
    a = make_authorizer()
    add(a, topic("*"), ace("User:*", Op.WRITE))
    assert check(a, Op.WRITE, "anything", Context("User:carol")) is ALLOWED
    assert check(a, Op.READ, "anything") is DENIED


def test_prefixed_acl_matches_names_that_start_with_it(make_authorizer):
    a = make_authorizer()
    add(a, topic("orders-", PatternType.PREFIXED), ace())
    assert check(a, Op.READ, "orders-eu") is ALLOWED
    assert check(a, Op.READ, "orders-") is ALLOWED
    assert check(a, Op.READ, "order") is DENIED
    assert check(a, Op.READ, "xorders-eu") is DENIED


def test_prefixed_deny_overrides_literal_allow(make_authorizer):
    a = make_authorizer()
    add(a, topic("orders-eu"), ace())
    add(a, topic("orders", PatternType.PREFIXED), ace(perm=Perm.DENY))
    assert check(a, Op.READ, "orders-eu") is DENIED


def test_implied_operations(make_authorizer):
    a = make_authorizer()
    for op in (Op.READ, Op.WRITE, Op.DELETE, Op.ALTER):
        add(a, topic(f"t-{op.name}"), ace(op=op))
        assert check(a, Op.DESCRIBE, f"t-{op.name}") is ALLOWED, op
    add(a, topic("t-create"), ace(op=Op.CREATE))
    assert check(a, Op.DESCRIBE, "t-create") is DENIED      # CREATE implies nothing
    add(a, topic("t-ac"), ace(op=Op.ALTER_CONFIGS))
    assert check(a, Op.DESCRIBE_CONFIGS, "t-ac") is ALLOWED
    assert check(a, Op.ALTER, "t-ac") is DENIED
    # a DENY of READ does not deny DESCRIBE
    add(a, topic("t-deny"), ace(op=Op.DESCRIBE), ace(op=Op.READ, perm=Perm.DENY))
    assert check(a, Op.DESCRIBE, "t-deny") is ALLOWED
    assert check(a, Op.READ, "t-deny") is DENIED


def test_all_operation_allows_everything(make_authorizer):
    a = make_authorizer()
    add(a, CLUSTER_RESOURCE, ace(op=Op.ALL))
    for op in (Op.CLUSTER_ACTION, Op.CREATE, Op.IDEMPOTENT_WRITE, Op.DESCRIBE_CONFIGS):
        assert check(a, op, "kafka-cluster", resource_type=ResourceType.CLUSTER) is ALLOWED


def test_super_users(make_authorizer):
    a = make_authorizer(**{"super.users": "User:admin; User:broker"})
    add(a, topic("t"), ace("User:admin", perm=Perm.DENY))
    assert check(a, Op.READ, "t", Context("User:admin")) is ALLOWED   # even over a DENY
    assert check(a, Op.CLUSTER_ACTION, "kafka-cluster", Context("User:broker"),
                 ResourceType.CLUSTER) is ALLOWED
    assert check(a, Op.READ, "t", Context("User:ANONYMOUS")) is DENIED


def test_zookeeper_format_is_kafkas(make_authorizer, store):
    a = make_authorizer()
    add(a, topic("t"), ace())
    add(a, topic("p", PatternType.PREFIXED), ace(op=Op.WRITE, perm=Perm.DENY, host="10.0.0.1"))
    zk = a.zk_client
    data, _ = zk.get_data_and_version("/kafka-acl/Topic/t")
    assert data == (b'{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow",'
                    b'"operation":"Read","host":"*"}]}')
    data, _ = zk.get_data_and_version("/kafka-acl-extended/prefixed/Topic/p")
    assert b'"permissionType":"Deny","operation":"Write","host":"10.0.0.1"' in data
    changes = zk._get_children("/kafka-acl-changes")
    assert [zk.get_data_and_version(f"/kafka-acl-changes/{c}")[0] for c in changes] == [b"Topic:t"]
    ext = zk._get_children("/kafka-acl-extended-changes")
    assert zk.get_data_and_version(f"/kafka-acl-extended-changes/{ext[0]}")[0] == \
        b'{"version":1,"resourceType":"Topic","name":"p","patternType":"PREFIXED"}'
    assert ResourceZNode.decode(ResourceZNode.encode({ace()})) == {ace()}


def test_cache_loaded_at_start_and_updated_from_change_notifications(make_authorizer):
    first = make_authorizer()
    add(first, topic("t"), ace())
    second = make_authorizer()                       # loads what is stored
    assert check(second, Op.READ, "t") is ALLOWED
    add(first, topic("t"), ace(op=Op.WRITE))         # reaches second through /kafka-acl-changes
    assert wait_for(lambda: check(second, Op.WRITE, "t") is ALLOWED)
    add(first, topic("x", PatternType.PREFIXED), ace())   # through /kafka-acl-extended-changes
    assert wait_for(lambda: check(second, Op.READ, "xyz") is ALLOWED)
    first.delete_acls(None, [AclBindingFilter(ResourcePatternFilter(ResourceType.TOPIC, "t", PatternType.LITERAL),
                                              AccessControlEntryFilter.ANY)])
    assert wait_for(lambda: check(second, Op.READ, "t") is DENIED)
    assert first.zk_client.get_data_and_version("/kafka-acl/Topic/t")[0] is None   # the empty node is deleted


def test_concurrent_updates_from_two_brokers_keep_both(make_authorizer):
    a, b = make_authorizer(), make_authorizer()
    threads = [threading.Thread(target=add, args=(x, topic("t"), ace(f"User:u{x is a}-{i}")))
               for i in range(5) for x in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    acls, _ = a.zk_client.get_versioned_acls_for_resource(topic("t"))
    assert len(acls) == 10


def test_describe_and_delete_with_filters(make_authorizer):
    a = make_authorizer()
    add(a, topic("t"), ace(), ace("User:bob", Op.WRITE))
    add(a, topic("t", PatternType.PREFIXED), ace())
    add(a, ResourcePattern(ResourceType.GROUP, "g", PatternType.LITERAL), ace())
    assert len(a.acls(AclBindingFilter.ANY)) == 4
    match = AclBindingFilter(ResourcePatternFilter(ResourceType.TOPIC, "t", PatternType.MATCH),
                             AccessControlEntryFilter.ANY)
    assert len(a.acls(match)) == 3
    bob = AclBindingFilter(ResourcePatternFilter.ANY, AccessControlEntryFilter("User:bob", None, Op.ANY, Perm.ANY))
    results = a.delete_acls(None, [bob])
    assert [str(r.acl_binding.entry) for r in results[0].acl_binding_delete_results] == \
        ["(principal=User:bob, host=*, operation=WRITE, permissionType=ALLOW)"]
    assert len(a.acls(AclBindingFilter.ANY)) == 3


def test_create_refuses_unknown_elements_and_bad_principals(make_authorizer):
    a = make_authorizer()
    bad = [AclBinding(topic("t"), AccessControlEntry("alice", "*", Op.READ, Perm.ALLOW)),
           AclBinding(topic("t"), AccessControlEntry("User:a", "*", Op.UNKNOWN, Perm.ALLOW))]
    results = a.create_acls(None, bad)
    assert all(r.exception is not None and r.exception.error.name == "INVALID_REQUEST" for r in results)
    assert a.acls(AclBindingFilter.ANY) == []

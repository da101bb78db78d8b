"""Kafka's KafkaApisTest cases on authorization (core/src/test/scala/unit/kafka/server/KafkaApisTest.scala):
the AuthHelper KafkaApis's handlers ask and AclApis's answers, with a recording authorizer."""
from kafkalite.common.acl.acl_operation import AclOperation as Op
from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_type import ResourceType as RT
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import create_acls, delete_acls, describe_acls
from kafkalite.security.authorizer.authorizer import AuthorizationResult, Authorizer
from kafkalite.server.acl_apis import AclApis
from kafkalite.server.auth_helper import AuthHelper
from kafkalite.server.kafka_apis import KafkaApis


class RecordingAuthorizer(Authorizer):
    def __init__(self, allowed):
        self.allowed = allowed          # set of (operation, resource name)
        self.actions = []

    def authorize(self, request_context, actions):
        self.actions += actions
        return [AuthorizationResult.ALLOWED if (a.operation, a.resource_pattern.name) in self.allowed
                else AuthorizationResult.DENIED for a in actions]


class Ctx:
    connection_id = "c"


class Req:
    def __init__(self, body=None, version=1):
        self.context = Ctx()
        self.body = body
        self.header = type("H", (), {"api_version": version})()

    def request_desc(self):
        return "req"


def apis(authorizer):
    a = KafkaApis.__new__(KafkaApis)
    a.authorizer = authorizer
    a.sent = []
    a.send_response = lambda request, body: a.sent.append(body)
    a.auth_helper = AuthHelper(authorizer)
    a.acl_apis = AclApis(a.auth_helper, authorizer, a.send_response)
    return a


def test_no_authorizer_allows_everything():
    a = apis(None)
    assert a.auth_helper.authorize(Req(), Op.WRITE, RT.TOPIC, "t")
    assert a.auth_helper.filter_by_authorized(Req(), Op.READ, RT.TOPIC, ["a", "b"]) == {"a", "b"}
    assert a.auth_helper.authorized_operations(Req(), RT.GROUP, "g") == (1 << 3) | (1 << 6) | (1 << 8)


def test_filter_authorized_asks_once_per_name_with_its_reference_count():
    auth = RecordingAuthorizer({(Op.READ, "a")})
    a = apis(auth)
    assert a.auth_helper.filter_by_authorized(Req(), Op.READ, RT.TOPIC, ["a", "b", "a", "a"]) == {"a"}
    assert [(x.resource_pattern.name, x.resource_reference_count) for x in auth.actions] == [("a", 3), ("b", 1)]
    assert all(x.resource_pattern.pattern_type is PatternType.LITERAL for x in auth.actions)


def test_authorized_operations_are_a_bit_field_of_the_supported_ones_without_audit_logging():
    auth = RecordingAuthorizer({(Op.READ, "t"), (Op.DESCRIBE, "t"), (Op.CLUSTER_ACTION, "t")})
    a = apis(auth)
    assert a.auth_helper.authorized_operations(Req(), RT.TOPIC, "t") == (1 << 3) | (1 << 8)   # ClusterAction: not a topic op
    assert not any(x.log_if_allowed or x.log_if_denied for x in auth.actions)


def test_acl_apis_without_an_authorizer_answer_security_disabled():
    a = apis(None)
    a.acl_apis.handle_create_acls(Req(create_acls.CreateAclsRequest(creations=[create_acls.AclCreation(
        resource_type=2, resource_name="t", resource_pattern_type=3, principal="User:a", host="*", operation=3,
        permission_type=3)])))
    a.acl_apis.handle_describe_acls(Req(describe_acls.DescribeAclsRequest(resource_type_filter=1, pattern_type_filter=1,
                                                                 operation=1, permission_type=1)))
    a.acl_apis.handle_delete_acls(Req(delete_acls.DeleteAclsRequest(filters=[delete_acls.DeleteAclsFilter(
        resource_type_filter=1, pattern_type_filter=1, operation=1, permission_type=1)])))
    assert a.sent[0].results[0].error_code == Errors.SECURITY_DISABLED.code
    assert a.sent[1].error_code == Errors.SECURITY_DISABLED.code
    assert a.sent[2].filter_results[0].error_code == Errors.SECURITY_DISABLED.code


def test_acl_apis_need_alter_or_describe_on_the_cluster():
    a = apis(RecordingAuthorizer(set()))
    a.info = lambda msg: None
    a.acl_apis.handle_create_acls(Req(create_acls.CreateAclsRequest(creations=[create_acls.AclCreation(
        resource_type=2, resource_name="t", resource_pattern_type=3, principal="User:a", host="*", operation=3,
        permission_type=3)])))
    a.acl_apis.handle_describe_acls(Req(describe_acls.DescribeAclsRequest(resource_type_filter=1, pattern_type_filter=1,
                                                                 operation=1, permission_type=1)))
    assert a.sent[0].results[0].error_code == Errors.CLUSTER_AUTHORIZATION_FAILED.code
    assert a.sent[1].error_code == Errors.CLUSTER_AUTHORIZATION_FAILED.code
    assert [(x.operation, x.resource_pattern.resource_type) for x in a.authorizer.actions] == \
        [(Op.ALTER, RT.CLUSTER), (Op.DESCRIBE, RT.CLUSTER)]


def test_create_acls_refuses_a_cluster_resource_by_another_name_and_any_pattern():
    class Creating(RecordingAuthorizer):
        def create_acls(self, ctx, bindings):
            self.created = bindings
            from kafkalite.security.authorizer.authorizer import AclCreateResult
            return [AclCreateResult.SUCCESS for _ in bindings]
    auth = Creating({(Op.ALTER, "kafka-cluster")})
    a = apis(auth)
    creation = dict(resource_pattern_type=3, principal="User:a", host="*", operation=3, permission_type=3)
    a.acl_apis.handle_create_acls(Req(create_acls.CreateAclsRequest(creations=[
        create_acls.AclCreation(resource_type=4, resource_name="other", **creation),
        create_acls.AclCreation(resource_type=2, resource_name="", **creation),
        create_acls.AclCreation(resource_type=2, resource_name="t", **{**creation, "resource_pattern_type": 1}),
        create_acls.AclCreation(resource_type=2, resource_name="t", **creation)])))
    assert [r.error_code for r in a.sent[0].results] == [Errors.INVALID_REQUEST.code] * 3 + [0]
    assert [b.pattern.name for b in auth.created] == ["t"]

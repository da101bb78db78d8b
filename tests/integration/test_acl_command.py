"""Kafka's AclCommandTest (core/src/test/scala/unit/kafka/admin/AclCommandTest.scala), through the admin client
(--bootstrap-server): bin/kafka-acls adds, lists and removes ACLs on a broker with the AclAuthorizer, prints
Kafka's lines, and refuses bad flag combinations with Kafka's messages. The broker's ACLs are then what real
clients' DescribeAcls see.

The broker makes User:ANONYMOUS (a PLAINTEXT client) a super user, so the tool may administer ACLs.
"""
import pytest

from harness import InProcessBroker, run_tool

AUTHORIZER = {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:ANONYMOUS"}


@pytest.fixture
def acl_broker(tmp_path):
    b = InProcessBroker(tmp_path / "logs", AUTHORIZER).start()
    yield b
    b.stop()


def test_add_list_remove(acl_broker):
    bs = acl_broker.bootstrap
    out = run_tool("kafka-acls", "--bootstrap-server", bs, "--add", "--allow-principal", "User:alice",
                   "--operation", "Read", "--operation", "Describe", "--topic", "orders").stdout
    assert out.startswith(
        "Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`: \n"
        " \t(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)\n"
        "\t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW) \n\n")
    assert "Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`: \n" in out
    run_tool("kafka-acls", "--bootstrap-server", bs, "--add", "--deny-principal", "User:bob", "--deny-host",
             "10.0.0.1", "--operation", "Write", "--topic", "orders-", "--resource-pattern-type", "prefixed")
    out = run_tool("kafka-acls", "--bootstrap-server", bs, "--list").stdout
    assert "(principal=User:bob, host=10.0.0.1, operation=WRITE, permissionType=DENY)" in out
    assert "name=orders-, patternType=PREFIXED" in out
    # MATCH: everything that applies to topic orders-eu
    out = run_tool("kafka-acls", "--bootstrap-server", bs, "--list", "--topic", "orders-eu",
                   "--resource-pattern-type", "match").stdout
    assert "User:bob" in out and "User:alice" not in out
    out = run_tool("kafka-acls", "--bootstrap-server", bs, "--list", "--principal", "User:alice").stdout
    assert out.startswith("ACLs for principal `User:alice`\n") and "User:bob" not in out
    out = run_tool("kafka-acls", "--bootstrap-server", bs, "--remove", "--force", "--allow-principal",
                   "User:alice", "--operation", "Read", "--topic", "orders").stdout
    assert "operation=READ" not in out and "operation=DESCRIBE" in out
    run_tool("kafka-acls", "--bootstrap-server", bs, "--remove", "--topic", "orders", stdin="y\n")
    out = run_tool("kafka-acls", "--bootstrap-server", bs, "--list", "--topic", "orders").stdout
    assert out == ""


def test_producer_and_consumer_conveniences(acl_broker):
    bs = acl_broker.bootstrap
    run_tool("kafka-acls", "--bootstrap-server", bs, "--add", "--allow-principal", "User:p", "--producer",
             "--topic", "t", "--transactional-id", "tx", "--idempotent")
    run_tool("kafka-acls", "--bootstrap-server", bs, "--add", "--allow-principal", "User:c", "--consumer",
             "--topic", "t", "--group", "g")
    out = run_tool("kafka-acls", "--bootstrap-server", bs, "--list").stdout
    for line in ("(principal=User:p, host=*, operation=CREATE, permissionType=ALLOW)",
                 "(principal=User:p, host=*, operation=IDEMPOTENT_WRITE, permissionType=ALLOW)",
                 "(principal=User:c, host=*, operation=READ, permissionType=ALLOW)"):
        assert line in out
    assert "resourceType=TRANSACTIONAL_ID, name=tx" in out and "resourceType=GROUP, name=g" in out
    assert "resourceType=CLUSTER, name=kafka-cluster" in out

    # what a real client sees
    from confluent_kafka.admin import (AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                                       ResourcePatternType, ResourceType)
    admin = AdminClient({"bootstrap.servers": bs})
    found = admin.describe_acls(AclBindingFilter(ResourceType.GROUP, None, ResourcePatternType.ANY, None, None,
                                                 AclOperation.ANY, AclPermissionType.ANY)).result(20)
    assert [(b.name, b.principal, b.operation) for b in found] == [("g", "User:c", AclOperation.READ)]


@pytest.mark.parametrize("args,message", [
    (["--add", "--list", "--topic", "t"], "Command must include exactly one action"),
    (["--add", "--topic", "t"], "You must specify one of: --allow-principal, --deny-principal"),
    (["--add", "--allow-principal", "User:a"], "You must provide at least one resource"),
    (["--add", "--allow-principal", "User:a", "--operation", "Write", "--group", "g"],
     "ResourceType GROUP only supports operations"),
    (["--add", "--allow-principal", "User:a", "--topic", "t", "--resource-pattern-type", "any"],
     "A '--resource-pattern-type' value of 'ANY' is not valid when adding acls."),
    (["--add", "--allow-principal", "User:a", "--consumer", "--topic", "t"], "With --consumer you must specify"),
    (["--add", "--allow-principal", "alice", "--topic", "t"], "principals must be of the form"),
])
def test_bad_flags(acl_broker, args, message):
    proc = run_tool("kafka-acls", "--bootstrap-server", acl_broker.bootstrap, *args, check=False)
    assert proc.returncode == 1 and message in proc.stderr, proc.stderr


def test_without_an_authorizer_the_broker_answers_security_disabled(inproc_broker):
    proc = run_tool("kafka-acls", "--bootstrap-server", inproc_broker.bootstrap, "--list", check=False)
    assert proc.returncode == 1
    assert "Error while executing ACL command: No Authorizer is configured on the broker" in proc.stdout


def test_authorizer_properties_write_straight_to_zookeeper_before_the_broker_starts(tmp_path):
    """Kafka's JAuthorizerService: the operator gives the broker's principal ClusterAction in the (embedded)
    ZooKeeper before starting it; the broker then works with an authorizer that refuses everyone else."""
    log_dir = tmp_path / "logs"
    log_dir.mkdir()
    zk = f"zookeeper.connect=embedded:{log_dir}"
    out = run_tool("kafka-acls", "--authorizer-properties", zk, "--add", "--allow-principal", "User:ANONYMOUS",
                   "--operation", "ClusterAction", "--cluster").stdout
    assert "resourceType=CLUSTER, name=kafka-cluster" in out and "operation=CLUSTER_ACTION" in out
    assert "operation=CLUSTER_ACTION" in run_tool("kafka-acls", "--authorizer-properties", zk, "--list").stdout
    b = InProcessBroker(log_dir, {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer"}).start()
    try:
        from confluent_kafka.admin import AdminClient, NewTopic
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        with pytest.raises(Exception, match="TOPIC_AUTHORIZATION_FAILED|[Aa]uthoriz"):
            admin.create_topics([NewTopic("t", 1, 1)])["t"].result(20)
        # the broker's own controller requests got through: its metadata names it as the controller
        assert b.server.metadata_cache.get_controller_id() == 0
    finally:
        b.stop()


def test_bootstrap_server_and_authorizer_are_exclusive():
    proc = run_tool("kafka-acls", "--bootstrap-server", "localhost:1", "--authorizer",
                    "kafka.security.authorizer.AclAuthorizer", "--list", check=False)
    assert proc.returncode == 1 and "Only one of --bootstrap-server or --authorizer must be specified" in proc.stderr

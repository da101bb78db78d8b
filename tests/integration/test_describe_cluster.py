"""DescribeCluster (API 60, KIP-700, Kafka 2.8; v1's endpoint_type Kafka 3.7, KIP-919) as today's clients ask it:
confluent-kafka's ``describe_cluster`` (with and without authorized operations), kafka-python's
``describe_cluster`` (v1, include_cluster_authorized_operations), and raw v1 requests for the endpoint types a
broker refuses."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(60)


def test_confluent_kafka_describe_cluster(broker):
    from confluent_kafka.admin import AclOperation, AdminClient
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    plain = admin.describe_cluster(request_timeout=15).result(20)
    assert [n.id for n in plain.nodes] == [0] and plain.nodes[0].port == broker.port
    assert plain.controller.id == 0 and plain.cluster_id and plain.authorized_operations is None
    with_ops = admin.describe_cluster(include_authorized_operations=True, request_timeout=15).result(20)
    # no authorizer: every cluster operation is allowed
    assert AclOperation.DESCRIBE in with_ops.authorized_operations
    assert AclOperation.ALTER in with_ops.authorized_operations


def test_kafka_python_describe_cluster_v1(broker):
    from kafka.admin import KafkaAdminClient
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        cluster = admin.describe_cluster()
    finally:
        admin.close()
    assert cluster["controller_id"] == 0 and cluster["cluster_id"]
    assert [(b["broker_id"], b["port"]) for b in cluster["brokers"]] == [(0, broker.port)]


@pytest.mark.parametrize("version, endpoint_type, error", [
    (1, 1, 0), (1, 2, 114), (1, 7, 115), (0, 1, 0)])
def test_endpoint_types_a_broker_answers(broker, version, endpoint_type, error):
    from clients import raw_request
    from harness import RawConnection
    from kafkalite.protocol.messages import describe_cluster as dcl
    conn = RawConnection(broker.port)
    try:
        r = raw_request(conn, 60, version, dcl.DescribeClusterRequest(
            include_cluster_authorized_operations=False, endpoint_type=endpoint_type))
    finally:
        conn.close()
    assert r.error_code == error
    if error == 0:
        assert [b.broker_id for b in r.brokers] == [0] and r.cluster_authorized_operations == dcl.INT32_MIN
    else:
        assert r.brokers == [] and "endpoint" in r.error_message.lower()

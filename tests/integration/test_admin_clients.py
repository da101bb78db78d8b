"""No Kafka counterpart (Kafka's closest: CreateTopicsRequestTest, DeleteTopicsRequestTest,
CreateTopicsRequestWithPolicyTest): topic administration through four real clients.

Each of kafka-python, confluent-kafka, aiokafka and kafkajs creates a topic and sees it with its
partitions, and gets Kafka's error codes for the cases Kafka rejects (AdminManager.createTopics /
AdminUtils.assignReplicasToBrokers / Topic.validate in Kafka 2.4).
"""

import pytest

from clients import ADMIN_CLIENTS, KafkaPythonAdmin
from harness import wait_until


@pytest.fixture(params=ADMIN_CLIENTS, ids=lambda c: c.name)
def admin(request, broker):
    client = request.param(broker.bootstrap)
    yield client
    client.close()


def test_create_topic_and_see_its_partitions(admin, unique_topic):
    assert admin.create(unique_topic, 3) is None
    assert unique_topic in wait_until(admin.list, 10, f"{unique_topic} in {admin.name}'s topic list")
    partitions = admin.describe(unique_topic)
    # One broker (id 0): it leads every partition and is the only replica and ISR member.
    assert partitions == {p: (0, [0], [0]) for p in range(3)}


def test_create_existing_topic_fails_with_topic_already_exists(admin, unique_topic):
    assert admin.create(unique_topic, 2) is None
    assert admin.create(unique_topic, 2) == "TOPIC_ALREADY_EXISTS"
    assert len(admin.describe(unique_topic)) == 2


@pytest.mark.parametrize("name", ["bad/name", "..", "x" * 250], ids=["slash", "dotdot", "250-chars"])
def test_invalid_topic_name_fails_with_invalid_topic_exception(admin, name):
    assert admin.create(name, 1) == "INVALID_TOPIC_EXCEPTION"
    assert name not in admin.list()


@pytest.mark.parametrize("partitions", [0, -5])
def test_bad_partition_count_fails_with_invalid_partitions(admin, unique_topic, partitions):
    if partitions == -5 and admin.name == "confluent-kafka":
        pytest.skip("librdkafka rejects num_partitions < -1 itself before sending")
    assert admin.create(unique_topic, partitions) == "INVALID_PARTITIONS"
    assert unique_topic not in admin.list()


def test_replication_factor_above_broker_count_fails(admin, unique_topic):
    assert admin.create(unique_topic, 1, replication_factor=3) == "INVALID_REPLICATION_FACTOR"
    assert unique_topic not in admin.list()


def test_validate_only_creates_nothing(admin, unique_topic):
    assert admin.create(unique_topic, 2, validate_only=True) is None
    # A validate-only request still checks: a bad one fails as a real one would.
    assert admin.create(unique_topic, 0, validate_only=True) == "INVALID_PARTITIONS"
    assert unique_topic not in admin.list()
    # ...and the name is still free.
    assert admin.create(unique_topic, 2) is None


def test_delete_topic_removes_it(admin, unique_topic):
    assert admin.create(unique_topic, 1) is None
    wait_until(lambda: unique_topic in admin.list(), 10, f"{unique_topic} to be listed")
    assert admin.delete(unique_topic) is None
    wait_until(lambda: unique_topic not in admin.list(), 15, f"{unique_topic} to leave the topic list")


def test_delete_unknown_topic_fails_with_unknown_topic_or_partition(admin, unique_topic):
    assert admin.delete(unique_topic) == "UNKNOWN_TOPIC_OR_PARTITION"


def test_kafka_python_describe_cluster(broker):
    client = KafkaPythonAdmin(broker.bootstrap)
    try:
        cluster = client.describe_cluster()
    finally:
        client.close()
    assert cluster["controller_id"] == 0
    assert [(b["broker_id"], b["host"], b["port"]) for b in cluster["brokers"]] == [(0, "127.0.0.1", broker.port)]
    # Kafka's cluster id: a 22-character base64url UUID, kept in meta.properties.
    assert isinstance(cluster["cluster_id"], str) and len(cluster["cluster_id"]) == 22

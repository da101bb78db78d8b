"""No Kafka counterpart (Kafka's are AdminManagerTest / KafkaApisTest / the admin integration tests): the
admin requests' edge cases answered as Kafka 2.4 answers them, on the wire (raw frames where the clients
would not send the case, confluent-kafka's AdminClient where they do).

- CreateTopics / CreatePartitions / DeleteTopics with timeout 0: AdminManager does not wait, and a topic it
  wrote to ZooKeeper answers REQUEST_TIMED_OUT (a validate_only one NONE); librdkafka hides that error when
  it asked for no wait.
- CreatePartitions: unknown brokers are named before the assignment count is checked; empty and duplicate
  replica lists (AdminZkClient.validateReplicaAssignment); duplicate topics in one request.
"""
from __future__ import annotations

import pytest
from clients import create_topic, raw_request
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic
from harness import RawConnection
from support import wait_until

from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import create_partitions as CP, create_topics as CT, delete_topics as DT

pytestmark = pytest.mark.timeout(90)

CREATE_TOPICS, DELETE_TOPICS, CREATE_PARTITIONS = 19, 20, 37


@pytest.fixture
def conn(broker):
    c = RawConnection(broker.port)
    yield c
    c.close()


def partition_count(bootstrap: str, topic: str) -> int:
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=10).topics.get(topic)
    return 0 if md is None or md.error is not None else len(md.partitions)


def create_partitions(conn, topics: list[tuple], timeout_ms: int = 10000, validate_only: bool = False,
                      version: int = 1) -> list[tuple]:
    """``topics``: (name, count, assignments or None). Returns [(name, Errors, message)] in answer order."""
    r = raw_request(conn, CREATE_PARTITIONS, version, CP.CreatePartitionsRequest(topics=[
        CP.CreatePartitionsTopic(name=n, count=c, assignments=None if a is None else [
            CP.CreatePartitionsAssignment(broker_ids=list(ids)) for ids in a]) for n, c, a in topics],
        timeout_ms=timeout_ms, validate_only=validate_only))
    return [(t.name, Errors.for_code(t.error_code), t.error_message) for t in r.results]


def test_create_topics_without_waiting_is_request_timed_out(broker, conn, unique_topic):
    r = raw_request(conn, CREATE_TOPICS, 5, CT.CreateTopicsRequest(topics=[CT.CreatableTopic(
        name=unique_topic, num_partitions=2, replication_factor=1, assignments=[], configs=[])], timeout_ms=0))
    assert [(t.name, Errors.for_code(t.error_code)) for t in r.topics] == [(unique_topic, Errors.REQUEST_TIMED_OUT)]
    # ... and yet it was written: the controller creates it
    wait_until(lambda: partition_count(broker.bootstrap, unique_topic) == 2, 15, "the topic to be created")
    # validate_only with no wait: nothing to wait for, NONE
    r = raw_request(conn, CREATE_TOPICS, 5, CT.CreateTopicsRequest(topics=[CT.CreatableTopic(
        name=unique_topic + "-v", num_partitions=1, replication_factor=1, assignments=[], configs=[])],
        timeout_ms=0, validate_only=True))
    assert Errors.for_code(r.topics[0].error_code) is Errors.NONE


def test_confluent_admin_with_no_operation_timeout_still_succeeds(broker, unique_topic):
    # librdkafka asks with operation_timeout 0 and hides the REQUEST_TIMED_OUT it then gets
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(unique_topic, 1, 1)], operation_timeout=0)[unique_topic].result(15)
    wait_until(lambda: partition_count(broker.bootstrap, unique_topic) == 1, 15, "the topic to be created")
    admin.create_partitions([NewPartitions(unique_topic, 3)], operation_timeout=0)[unique_topic].result(15)
    wait_until(lambda: partition_count(broker.bootstrap, unique_topic) == 3, 15, "three partitions")


def test_create_partitions_without_waiting_is_request_timed_out(broker, conn, unique_topic):
    create_topic(broker.bootstrap, unique_topic, partitions=1)
    assert create_partitions(conn, [(unique_topic, 2, None)], timeout_ms=0, validate_only=True) == \
        [(unique_topic, Errors.NONE, None)]
    assert create_partitions(conn, [(unique_topic, 3, None)], timeout_ms=0) == \
        [(unique_topic, Errors.REQUEST_TIMED_OUT, None)]
    wait_until(lambda: partition_count(broker.bootstrap, unique_topic) == 3, 15, "three partitions")


def test_delete_topics_without_waiting_is_request_timed_out(broker, conn, unique_topic):
    create_topic(broker.bootstrap, unique_topic, partitions=1)
    r = raw_request(conn, DELETE_TOPICS, 4, DT.DeleteTopicsRequest(topic_names=[unique_topic], timeout_ms=0))
    assert [(t.name, Errors.for_code(t.error_code)) for t in r.responses] == [(unique_topic, Errors.REQUEST_TIMED_OUT)]
    wait_until(lambda: partition_count(broker.bootstrap, unique_topic) == 0, 15, "the topic to be deleted")


@pytest.mark.parametrize("count,assignments,error,message", [
    # Kafka: AdminManager.createPartitions names unknown brokers before it compares the count
    (3, [[7], [8], [7]], Errors.INVALID_REPLICA_ASSIGNMENT, "Unknown broker(s) in replica assignment: 7, 8."),
    (2, [[0], [0]], Errors.INVALID_REPLICA_ASSIGNMENT,
     "Increasing the number of partitions by 1 but 2 assignments provided."),
    # Kafka: AdminZkClient.validateReplicaAssignment
    (2, [[]], Errors.INVALID_REPLICA_ASSIGNMENT, "Cannot have replication factor of 0 for partition id 1."),
    (2, [[0, 0]], Errors.INVALID_REPLICA_ASSIGNMENT,
     "Duplicate brokers not allowed in replica assignment: 0, 0 for partition id 1."),
    (1, None, Errors.INVALID_PARTITIONS, "Topic already has 1 partitions."),
    (0, None, Errors.INVALID_PARTITIONS, "Topic currently has 1 partitions, which is higher than the requested 0."),
])
def test_create_partitions_refusals(broker, conn, unique_topic, count, assignments, error, message):
    create_topic(broker.bootstrap, unique_topic, partitions=1)
    for validate_only in (True, False):
        assert create_partitions(conn, [(unique_topic, count, assignments)], validate_only=validate_only) == \
            [(unique_topic, error, message)]
    assert partition_count(broker.bootstrap, unique_topic) == 1


def test_create_partitions_duplicate_and_unknown_topics(broker, conn, unique_topic):
    create_topic(broker.bootstrap, unique_topic, partitions=1)
    other = unique_topic + "-other"
    answers = create_partitions(conn, [(unique_topic, 2, None), (unique_topic, 3, None), (other, 2, None)])
    assert sorted(answers) == sorted([
        (unique_topic, Errors.INVALID_REQUEST, "Duplicate topic in request."),
        (other, Errors.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{other}' does not exist.")])
    assert partition_count(broker.bootstrap, unique_topic) == 1

"""No Kafka counterpart (Kafka's are AdminManagerTest / KafkaApisTest / the admin integration tests): the
admin requests' edge cases answered as Kafka 2.4 answers them, on the wire (raw frames where the clients
would not send the case, confluent-kafka's AdminClient where they do).

- CreateTopics / CreatePartitions / DeleteTopics with timeout 0: AdminManager does not wait, and a topic it
  wrote to ZooKeeper answers REQUEST_TIMED_OUT (a validate_only one NONE); librdkafka hides that error when
  it asked for no wait.
- CreatePartitions: unknown brokers are named before the assignment count is checked; empty and duplicate
  replica lists (AdminZkClient.validateReplicaAssignment); duplicate topics in one request.
- DeleteTopics: an internal topic is deleted like any other; each entry of an unknown name is answered.
- ElectLeaders: an election type Kafka does not know is UNKNOWN_SERVER_ERROR (ElectionType.valueOf), never an
  unclean election; empty, null and unknown partitions.
- Alter/ListPartitionReassignments: empty requests, cancelling nothing, bad replica lists, unknown partitions.
"""
from __future__ import annotations

import pytest
from clients import create_topic, raw_request
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic
from harness import RawConnection
from support import wait_until

from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import (alter_partition_reassignments as APR, create_partitions as CP,
                                         create_topics as CT, delete_topics as DT, elect_leaders as EL,
                                         find_coordinator as FC, list_partition_reassignments as LPR)

pytestmark = pytest.mark.timeout(90)

CREATE_TOPICS, DELETE_TOPICS, CREATE_PARTITIONS, FIND_COORDINATOR = 19, 20, 37, 10
ELECT_LEADERS, ALTER_REASSIGNMENTS, LIST_REASSIGNMENTS = 43, 45, 46


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


def test_create_partitions_of_an_empty_topic_name_is_answered_and_the_connection_kept(broker, conn, unique_topic):
    # Kafka: AdminManager.createPartitions catches every Throwable per topic (ApiError.fromThrowable); kafkalite let
    # ZooKeeper's refusal of the path /brokers/topics/ escape and closed the connection
    [(name, error, _message)] = create_partitions(conn, [("", 2, None)])
    assert (name, error) == ("", Errors.UNKNOWN_SERVER_ERROR)
    create_topic(broker.bootstrap, unique_topic, partitions=1)
    assert create_partitions(conn, [(unique_topic, 2, None)]) == [(unique_topic, Errors.NONE, None)]


def test_delete_topics_internal_and_unknown_duplicates(broker_factory):
    # Kafka 2.4 refuses neither an internal topic (no check in handleDeleteTopicsRequest / AdminZkClient.deleteTopic)
    # nor answers a duplicate name differently: each entry of an unknown name is UNKNOWN_TOPIC_OR_PARTITION
    b = broker_factory({"offsets.topic.num.partitions": "1"})
    c = RawConnection(b.port)
    try:
        wait_until(lambda: raw_request(c, FIND_COORDINATOR, 1, FC.FindCoordinatorRequest(
            key="g", key_type=0)).error_code == 0, 20, "a group coordinator")
        r = raw_request(c, DELETE_TOPICS, 4, DT.DeleteTopicsRequest(
            topic_names=["__consumer_offsets", "nope", "nope"], timeout_ms=10000))
        assert [(t.name, Errors.for_code(t.error_code)) for t in r.responses] == [
            ("__consumer_offsets", Errors.NONE), ("nope", Errors.UNKNOWN_TOPIC_OR_PARTITION),
            ("nope", Errors.UNKNOWN_TOPIC_OR_PARTITION)]
    finally:
        c.close()


# ---------------------------------------------------------------- ElectLeaders, partition reassignments

def elect(conn, partitions, election_type: int = 0, version: int = 1):
    """``partitions``: {topic: [partition ids]} or None; returns (top Errors, {(topic, partition): (Errors, message)})."""
    r = raw_request(conn, ELECT_LEADERS, version, EL.ElectLeadersRequest(
        election_type=election_type, timeout_ms=10000, topic_partitions=None if partitions is None else [
            EL.TopicPartitions(topic=t, partition_id=ps) for t, ps in partitions.items()]))
    return (Errors.for_code(r.error_code), {(t.topic, p.partition_id): (Errors.for_code(p.error_code), p.error_message)
                                            for t in r.replica_election_results for p in t.partition_result})


def test_elect_leaders_edge_cases(broker, conn, unique_topic):
    create_topic(broker.bootstrap, unique_topic, partitions=2)
    t = unique_topic
    not_needed = (Errors.ELECTION_NOT_NEEDED, None)
    for election_type in (0, 1):
        assert elect(conn, {t: [0, 0, 1]}, election_type) == (Errors.NONE, {(t, 0): not_needed, (t, 1): not_needed})
    assert elect(conn, {}) == (Errors.NONE, {})
    assert elect(conn, None) == (Errors.NONE, {})     # every partition: those that needed no election are left out
    assert elect(conn, {t: [5], t + "-none": [0]}) == (Errors.NONE, {
        (t, 5): (Errors.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist."),
        (t + "-none", 0): (Errors.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist.")})
    # Kafka: ElectionType.valueOf refuses a type it does not know (the handler's error response)
    assert elect(conn, {t: [0]}, election_type=5) == (Errors.UNKNOWN_SERVER_ERROR, {
        (t, 0): (Errors.UNKNOWN_SERVER_ERROR, "Value 5 must be one of [PREFERRED, UNCLEAN]")})
    assert elect(conn, {t: [0]}, version=0)[1] == {(t, 0): not_needed}   # v0 has no election type: PREFERRED


def test_partition_reassignment_edge_cases(broker, conn, unique_topic):
    create_topic(broker.bootstrap, unique_topic, partitions=1)
    t = unique_topic

    def alter(topics):
        r = raw_request(conn, ALTER_REASSIGNMENTS, 0, APR.AlterPartitionReassignmentsRequest(topics=[
            APR.ReassignableTopic(name=n, partitions=[APR.ReassignablePartition(partition_index=i, replicas=rs)
                                                      for i, rs in ps]) for n, ps in topics.items()]))
        return Errors.for_code(r.error_code), {(x.name, p.partition_index): Errors.for_code(p.error_code)
                                               for x in r.responses for p in x.partitions}

    def listed(topics):
        r = raw_request(conn, LIST_REASSIGNMENTS, 0, LPR.ListPartitionReassignmentsRequest(topics=None if topics is None
            else [LPR.ListPartitionReassignmentsTopics(name=n, partition_indexes=ps) for n, ps in topics.items()]))
        return Errors.for_code(r.error_code), [(x.name, p.partition_index) for x in r.topics for p in x.partitions]

    assert alter({}) == (Errors.NONE, {})
    assert alter({t: [(0, None)]}) == (Errors.NONE, {(t, 0): Errors.NO_REASSIGNMENT_IN_PROGRESS})   # nothing to cancel
    assert alter({t: [(0, [])]}) == (Errors.NONE, {(t, 0): Errors.INVALID_REPLICA_ASSIGNMENT})
    assert alter({t: [(0, [0, 0])]}) == (Errors.NONE, {(t, 0): Errors.INVALID_REPLICA_ASSIGNMENT})
    assert alter({t: [(0, [3])]}) == (Errors.NONE, {(t, 0): Errors.INVALID_REPLICA_ASSIGNMENT})   # no broker 3
    assert alter({t + "-none": [(0, [0])], t: [(4, [0])]}) == (Errors.NONE, {
        (t + "-none", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION, (t, 4): Errors.UNKNOWN_TOPIC_OR_PARTITION})
    assert alter({t: [(0, [0])]}) == (Errors.NONE, {(t, 0): Errors.NONE})   # to where it is: done at once
    for topics in (None, {}, {t: [0]}, {t + "-none": [0]}):
        assert listed(topics) == (Errors.NONE, [])


@pytest.mark.parametrize("validate_only", [False, True])
def test_create_topics_v5_answers_the_topics_configs(conn, unique_topic, validate_only):
    # Kafka 2.4 (KIP-525): a topic the principal may DESCRIBE_CONFIGS is answered with its partition count,
    # replication factor and configs (AdminManager.createTopicConfigEntry, no synonyms); the Java AdminClient
    # reads result.configs() whenever num_partitions is set
    r = raw_request(conn, CREATE_TOPICS, 5, CT.CreateTopicsRequest(topics=[CT.CreatableTopic(
        name=unique_topic, num_partitions=2, replication_factor=1, assignments=[],
        configs=[CT.CreatableTopicConfig(name="retention.ms", value="1000")])], timeout_ms=10000,
        validate_only=validate_only))
    [t] = r.topics
    assert (Errors.for_code(t.error_code), t.num_partitions, t.replication_factor, t.topic_config_error_code) == \
        (Errors.NONE, 2, 1, 0)
    configs = {c.name: (c.value, c.config_source, c.read_only, c.is_sensitive) for c in t.configs}
    assert configs["retention.ms"] == ("1000", 1, False, False)                 # TOPIC_CONFIG
    assert configs["segment.bytes"] == ("1073741824", 4, False, False)          # STATIC_BROKER_CONFIG (server.properties)
    assert configs["cleanup.policy"] == ("delete", 5, False, False)             # DEFAULT_CONFIG
    assert len(configs) > 20
    # a failed topic has no configs and no counts
    r = raw_request(conn, CREATE_TOPICS, 5, CT.CreateTopicsRequest(topics=[CT.CreatableTopic(
        name=unique_topic + "-bad", num_partitions=0, replication_factor=1, assignments=[], configs=[])],
        timeout_ms=10000))
    [t] = r.topics
    assert (Errors.for_code(t.error_code), t.num_partitions, t.replication_factor, t.configs) == \
        (Errors.INVALID_PARTITIONS, -1, -1, [])


def test_create_topics_timing_out_has_no_message(broker_factory, unique_topic):
    # Kafka 2.4: CreateTopics does not check that assigned brokers exist; a topic on broker 7 gets no leader,
    # and DelayedCreatePartitions.onComplete answers REQUEST_TIMED_OUT with a null message. The topic never
    # reaches the metadata cache, so DeleteTopics finds no such topic.
    b = broker_factory()
    c = RawConnection(b.port)
    try:
        r = raw_request(c, CREATE_TOPICS, 5, CT.CreateTopicsRequest(topics=[CT.CreatableTopic(
            name=unique_topic, num_partitions=-1, replication_factor=-1, configs=[],
            assignments=[CT.CreatableReplicaAssignment(partition_index=0, broker_ids=[7])])], timeout_ms=300))
        assert [(t.name, Errors.for_code(t.error_code), t.error_message) for t in r.topics] == \
            [(unique_topic, Errors.REQUEST_TIMED_OUT, None)]
        r = raw_request(c, DELETE_TOPICS, 4, DT.DeleteTopicsRequest(topic_names=[unique_topic], timeout_ms=1000))
        assert Errors.for_code(r.responses[0].error_code) is Errors.UNKNOWN_TOPIC_OR_PARTITION
    finally:
        c.close()

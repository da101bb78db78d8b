"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/KafkaApisTest.scala (admin and offset requests): what
KafkaApis itself answers before AdminManager sees a request -- CreatePartitions for a topic the controller
is deleting is INVALID_TOPIC_EXCEPTION "The topic is queued for deletion.", and only the other topics reach
AdminManager.createPartitions; ListOffsets' OFFSET_NOT_AVAILABLE (a new leader whose high watermark lags) is
LEADER_NOT_AVAILABLE for requests older than v5."""
import pytest

from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import create_partitions as CP, list_offsets as LO
from kafkalite.server.auth_helper import AuthHelper
from kafkalite.server.kafka_apis import KafkaApis


class Header:
    api_version, correlation_id, client_id = 1, 7, "client"


class Request:
    def __init__(self, body):
        self.body, self.header = body, Header()


class Deleting:
    def __init__(self, topics):
        self.topics = topics

    def is_topic_queued_up_for_deletion(self, topic):
        return topic in self.topics


class Controller:
    def __init__(self, deleting):
        self.topic_deletion_manager = Deleting(deleting)

    def is_active(self):
        return True


class RecordingAdminManager:
    def __init__(self):
        self.asked = []

    def create_partitions(self, timeout_ms, new_partitions, validate_only, callback):
        self.asked += [t.name for t in new_partitions]
        callback({t.name: (Errors.NONE, None) for t in new_partitions})


def test_create_partitions_for_a_topic_being_deleted():
    sent = []
    apis = KafkaApis.__new__(KafkaApis)
    apis.controller = Controller({"going"})
    apis.admin_manager = RecordingAdminManager()
    apis.auth_helper = AuthHelper(None)
    apis.send_response = lambda request, response: sent.append(response)
    apis.handle_create_partitions_request(Request(CP.CreatePartitionsRequest(topics=[
        CP.CreatePartitionsTopic(name=n, count=3, assignments=None) for n in ("going", "staying", "twice", "twice")],
        timeout_ms=1000)))
    assert apis.admin_manager.asked == ["staying"]
    assert [(r.name, Errors.for_code(r.error_code), r.error_message) for r in sent[0].results] == [
        ("going", Errors.INVALID_TOPIC_EXCEPTION, "The topic is queued for deletion."),
        ("staying", Errors.NONE, None),
        ("twice", Errors.INVALID_REQUEST, "Duplicate topic in request.")]


class LaggingReplicaManager:
    """A new leader whose high watermark has not reached its epoch's start offset."""

    def fetch_offset_for_timestamp(self, tp, timestamp, current_leader_epoch, fetch_only_from_leader,
                                   is_from_consumer, isolation_level=0):
        raise Errors.OFFSET_NOT_AVAILABLE.exception("lagging")


@pytest.mark.parametrize("version,error", [(1, Errors.LEADER_NOT_AVAILABLE), (4, Errors.LEADER_NOT_AVAILABLE),
                                           (5, Errors.OFFSET_NOT_AVAILABLE), (7, Errors.OFFSET_NOT_AVAILABLE)])
def test_list_offsets_offset_not_available_only_from_v5(version, error):
    # Kafka: handleListOffsetRequestV1AndAbove -- "Only V5 and newer ListOffset calls should get OFFSET_NOT_AVAILABLE"
    sent = []
    apis = KafkaApis.__new__(KafkaApis)
    apis.replica_manager = LaggingReplicaManager()
    apis.auth_helper = AuthHelper(None)
    apis.send_response = lambda request, response: sent.append(response)
    request = Request(LO.ListOffsetsRequest(replica_id=-1, topics=[LO.ListOffsetsTopic(
        name="t", partitions=[LO.ListOffsetsPartition(partition_index=0, timestamp=-1)])]))
    request.header = type("H", (Header,), {"api_version": version})()
    apis.handle_list_offset_request(request)
    p = sent[0].topics[0].partitions[0]
    assert (Errors.for_code(p.error_code), p.offset, p.timestamp) == (error, -1, -1)


class DenyAll:
    def authorize_cluster_operation(self, request, operation):
        return False


def test_reassignment_requests_denied_name_every_partition():
    # Kafka: authorizeClusterOperation throws, and handleError answers the request's getErrorResponse
    from kafkalite.protocol.messages import alter_partition_reassignments as APR, list_partition_reassignments as LPR
    sent = []
    apis = KafkaApis.__new__(KafkaApis)
    apis.auth_helper = DenyAll()
    apis.send_response = lambda request, response: sent.append(response)
    apis.handle_alter_partition_reassignments_request(Request(APR.AlterPartitionReassignmentsRequest(topics=[
        APR.ReassignableTopic(name="t", partitions=[APR.ReassignablePartition(partition_index=i, replicas=[0])
                                                    for i in (0, 1)])])))
    denied = Errors.CLUSTER_AUTHORIZATION_FAILED
    assert Errors.for_code(sent[0].error_code) is denied
    assert [(t.name, p.partition_index, Errors.for_code(p.error_code)) for t in sent[0].responses
            for p in t.partitions] == [("t", 0, denied), ("t", 1, denied)]
    apis.handle_list_partition_reassignments_request(Request(LPR.ListPartitionReassignmentsRequest(topics=[
        LPR.ListPartitionReassignmentsTopics(name="t", partition_indexes=[2])])))
    assert Errors.for_code(sent[1].error_code) is denied
    assert [(t.name, p.partition_index, p.replicas) for t in sent[1].topics for p in t.partitions] == [("t", 2, [])]
    apis.handle_list_partition_reassignments_request(Request(LPR.ListPartitionReassignmentsRequest(topics=None)))
    assert Errors.for_code(sent[2].error_code) is denied and sent[2].topics == []


class CreateButNotDescribeConfigs:
    def authorize(self, request, operation, resource_type, name, log_if_denied=True):
        return True   # CREATE on the cluster

    def filter_by_authorized(self, request, operation, resource_type, names):
        return set()  # no DESCRIBE_CONFIGS on any topic


class CreatingAdminManager:
    def create_topics(self, timeout_ms, validate_only, to_create, callback, include_configs_and_metadata=()):
        callback({n: (Errors.TOPIC_ALREADY_EXISTS, f"Topic '{n}' already exists.") if n == "old" else (Errors.NONE, None)
                  for n in to_create}, {})


def test_create_topics_config_error_code_and_duplicates():
    # Kafka: handleCreateTopicsRequest -- TOPIC_AUTHORIZATION_FAILED in topic_config_error_code for a topic without
    # DESCRIBE_CONFIGS, reset to 0 when AdminManager failed the topic; duplicates are "Found multiple entries for
    # this topic."
    from kafkalite.protocol.messages import create_topics as CT
    sent = []
    apis = KafkaApis.__new__(KafkaApis)
    apis.controller = Controller(set())
    apis.admin_manager = CreatingAdminManager()
    apis.auth_helper = CreateButNotDescribeConfigs()
    apis.send_response = lambda request, response: sent.append(response)
    apis.handle_create_topics_request(Request(CT.CreateTopicsRequest(topics=[
        CT.CreatableTopic(name=n, num_partitions=1, replication_factor=1, assignments=[], configs=[])
        for n in ("old", "new", "dup", "dup")], timeout_ms=1000)))
    assert [(r.name, Errors.for_code(r.error_code), r.error_message, Errors.for_code(r.topic_config_error_code))
            for r in sent[0].topics] == [
        ("old", Errors.TOPIC_ALREADY_EXISTS, "Topic 'old' already exists.", Errors.NONE),
        ("new", Errors.NONE, None, Errors.TOPIC_AUTHORIZATION_FAILED),
        ("dup", Errors.INVALID_REQUEST, "Found multiple entries for this topic.", Errors.TOPIC_AUTHORIZATION_FAILED),
        ("dup", Errors.INVALID_REQUEST, "Found multiple entries for this topic.", Errors.TOPIC_AUTHORIZATION_FAILED)]

"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/KafkaApisTest.scala (admin requests): what
KafkaApis itself answers before AdminManager sees a request -- CreatePartitions for a topic the controller
is deleting is INVALID_TOPIC_EXCEPTION "The topic is queued for deletion.", and only the other topics reach
AdminManager.createPartitions."""
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import create_partitions as CP
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

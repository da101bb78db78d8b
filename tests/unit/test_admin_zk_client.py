"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/admin/AddPartitionsTest.scala (the parts about
AdminZkClient.addPartitions): where new partitions' replicas go, and how a manual assignment is refused
(AdminZkClient.validateReplicaAssignment), each with Kafka's message."""
import pytest

from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.zk.admin_zk_client import AdminOperationException, AdminZkClient


class RecordingZk:
    def __init__(self):
        self.written = []

    def set_topic_assignment(self, topic, assignment):
        self.written.append((topic, assignment))


def add(existing, brokers, count, manual=None, validate_only=False):
    zk = RecordingZk()
    result = AdminZkClient(zk).add_partitions("t", existing, brokers, count, manual, validate_only)
    return result, zk.written


def test_new_partitions_start_at_the_first_broker_not_below_partition_0s_leader():
    # partition 0 led by broker 1, which is gone: Kafka's start index is that of the next id up (2), not the
    # first broker's; partition p then goes to broker (p + start index) % n
    result, written = add({0: [1]}, [0, 2, 3], 3)
    assert result == {0: [1], 1: [3], 2: [0]} and written == [("t", result)]
    result, _ = add({0: [9]}, [0, 2, 3], 2)   # nothing at or above 9: start index 0
    assert result == {0: [9], 1: [2]}


def test_validate_only_writes_nothing():
    result, written = add({0: [0]}, [0], 2, validate_only=True)
    assert result == {0: [0], 1: [0]} and written == []


@pytest.mark.parametrize("manual,error,message", [
    ({1: []}, Errors.INVALID_REPLICA_ASSIGNMENT, "Cannot have replication factor of 0 for partition id 1."),
    ({1: [0, 0]}, Errors.INVALID_REPLICA_ASSIGNMENT,
     "Duplicate brokers not allowed in replica assignment: 0, 0 for partition id 1."),
    ({1: [0, 5]}, Errors.BROKER_NOT_AVAILABLE, "Some brokers specified for partition id 1 are not available. "
     "Specified brokers: 0, 5, available brokers: 0, 1."),
    ({1: [0, 1], 2: [1]}, Errors.INVALID_REPLICA_ASSIGNMENT, "Inconsistent replication factor between partitions, "
     "partition 0 has 2 while partitions [2] have replication factors [1], respectively."),
])
def test_manual_assignment_refusals(manual, error, message):
    with pytest.raises(ApiException) as e:
        add({0: [0, 1]}, [0, 1], 1 + len(manual), manual)
    assert (e.value.error, str(e.value)) == (error, message)


def test_missing_partition_0_is_no_client_error():
    with pytest.raises(AdminOperationException) as e:
        add({1: [0]}, [0], 3)
    assert Errors.for_exception(e.value) is Errors.UNKNOWN_SERVER_ERROR
    assert "partition id 0 is missing" in str(e.value)


def test_not_an_increase():
    with pytest.raises(ApiException) as e:
        add({0: [0], 1: [0]}, [0], 2)
    assert e.value.error is Errors.INVALID_PARTITIONS
    assert str(e.value) == ("The number of partitions for a topic can only be increased. Topic t currently has 2 "
                            "partitions, 2 would not be an increase.")


class NoTopicsZk:
    def topic_exists(self, topic):
        return False


@pytest.mark.parametrize("assignment,message", [
    ({0: [0, 0], 1: [1]}, "All partitions should have the same number of replicas"),   # sizes come first
    ({0: [0, 0], 1: [1, 1]}, "Duplicate replica assignment found: "),
    ({0: [0], 2: [1]}, "partitions should be a consecutive 0-based integer sequence"),
])
def test_validate_topic_create_refusals_in_kafkas_order(assignment, message):
    # Kafka: AdminZkClient.validateTopicCreate
    with pytest.raises(ApiException) as e:
        AdminZkClient(NoTopicsZk()).validate_topic_create("t", assignment, {})
    assert e.value.error is Errors.INVALID_REPLICA_ASSIGNMENT and str(e.value).startswith(message)

"""MetadataTest: when a refresh is due (need_full_update, metadata.max.age.ms, backoff), the condition
variable that wakes send(), and a leader change seen through a new Metadata response."""
import threading

import pytest

from kafkalite.clients.metadata import Metadata
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.metadata import (
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic)
from kafkalite.utils.time import MockTime

pytestmark = pytest.mark.timeout(30)

BROKERS = [MetadataResponseBroker(node_id=0, host="h0", port=9092),
           MetadataResponseBroker(node_id=1, host="h1", port=9092)]


def response(leader=0, topic="t", error=0):
    partitions = [MetadataResponsePartition(error_code=0, partition_index=0, leader_id=leader,
                                            replica_nodes=[0, 1], isr_nodes=[0, 1]),
                  MetadataResponsePartition(error_code=0, partition_index=1, leader_id=-1,
                                            replica_nodes=[1], isr_nodes=[])]
    return MetadataResponse(brokers=BROKERS, cluster_id="cid", controller_id=0, topics=[
        MetadataResponseTopic(error_code=error, name=topic, partitions=[] if error else partitions)])


def test_bootstrap_asks_for_an_update_at_once():
    mock_time = MockTime()
    metadata = Metadata(100, 300_000, mock_time)
    metadata.bootstrap([("a", 1), ("b", 2)])
    cluster = metadata.fetch()
    assert [n.id for n in cluster.nodes] == [-1, -2] and cluster.is_bootstrap_configured
    assert metadata.need_full_update and metadata.time_to_next_update(mock_time.milliseconds()) == 0


def test_time_to_next_update_is_max_age_then_backoff():
    # Kafka: MetadataTest.testTimeToNextUpdate / testMetadataUpdateAfterClose-style timing
    mock_time = MockTime()
    metadata = Metadata(100, 300_000, mock_time)
    metadata.bootstrap([("a", 1)])
    metadata.update(metadata.request_version, response(), mock_time.milliseconds())
    assert not metadata.need_full_update
    assert metadata.time_to_next_update(mock_time.milliseconds()) == 300_000      # metadata.max.age.ms = 5 min
    mock_time.sleep(299_000)
    assert metadata.time_to_next_update(mock_time.milliseconds()) == 1000
    metadata.request_update()
    assert metadata.time_to_next_update(mock_time.milliseconds()) == 0
    metadata.failed_update(mock_time.milliseconds())
    assert metadata.time_to_next_update(mock_time.milliseconds()) == 100          # retry.backoff.ms


def test_update_requested_while_in_flight_stays_requested():
    mock_time = MockTime()
    metadata = Metadata(100, 300_000, mock_time)
    version_sent = metadata.request_version
    metadata.add("new-topic")                       # arrives while the request is on the wire
    metadata.update(version_sent, response(), mock_time.milliseconds())
    assert metadata.need_full_update


def test_await_update_is_woken_by_update_from_another_thread():
    # Kafka: MetadataTest.testMetadataAwaitAfterClose / awaitUpdate -- wait/notify between threads
    metadata = Metadata()
    version = metadata.request_update()
    started = threading.Event()

    def network_thread():
        started.wait(5)
        metadata.update(metadata.request_version, response(), 0)

    t = threading.Thread(target=network_thread)
    t.start()
    started.set()
    metadata.await_update(version, 5000)
    t.join(5)
    assert metadata.update_version > version
    assert metadata.fetch().partition_count_for_topic("t") == 2


def test_await_update_times_out():
    metadata = Metadata()
    with pytest.raises(Errors.REQUEST_TIMED_OUT.exception_class, match="Failed to update metadata"):
        metadata.await_update(metadata.request_update(), 50)


def test_leader_change():
    metadata = Metadata()
    metadata.update(0, response(leader=0), 0)
    tp = TopicPartition("t", 0)
    assert metadata.fetch().leader_for(tp).id == 0
    assert [p.partition for p in metadata.fetch().partitions_for_node(0)] == [0]
    metadata.update(0, response(leader=1), 1)
    assert metadata.fetch().leader_for(tp).id == 1
    assert metadata.fetch().partitions_for_node(0) == []


def test_partition_without_leader_is_not_available():
    metadata = Metadata()
    metadata.update(0, response(), 0)
    cluster = metadata.fetch()
    assert cluster.leader_for(TopicPartition("t", 1)) is None
    assert [p.partition for p in cluster.available_partitions_for_topic("t")] == [0]
    assert cluster.controller.id == 0 and cluster.cluster_id == "cid"


def test_topic_with_error_is_left_out():
    metadata = Metadata()
    metadata.update(0, response(error=Errors.LEADER_NOT_AVAILABLE.code), 0)
    assert metadata.fetch().partition_count_for_topic("t") is None


def test_request_lists_the_producers_topics():
    metadata = Metadata()
    metadata.add("b")
    metadata.add("a")
    request = metadata.new_metadata_request()
    assert [t.name for t in request.topics] == ["a", "b"] and request.allow_auto_topic_creation

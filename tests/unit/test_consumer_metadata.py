"""ConsumerMetadataTest: the consumer's Metadata is the shared client Metadata plus its own request (its topics,
allow.auto.create.topics); ConsumerNetworkClient.awaitMetadataUpdate waits for update_version to move."""
import pytest

from kafkalite.clients.cluster import Cluster
from kafkalite.clients.consumer.internals.consumer_metadata import ConsumerMetadata
from kafkalite.clients.consumer.internals.consumer_network_client import ConsumerNetworkClient
from kafkalite.clients.metadata import Metadata
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.messages.metadata import (
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic)
from kafkalite.utils.time import MockTime

pytestmark = pytest.mark.timeout(30)


def response(*topics, error_topic=None):
    brokers = [MetadataResponseBroker(node_id=0, host="h0", port=9092),
               MetadataResponseBroker(node_id=1, host="h1", port=9092)]
    out = [MetadataResponseTopic(error_code=0, name=t, is_internal=t.startswith("__"), partitions=[
        MetadataResponsePartition(error_code=0, partition_index=p, leader_id=p % 2, replica_nodes=[0, 1],
                                  isr_nodes=[0, 1]) for p in range(3)]) for t in topics]
    if error_topic:
        out.append(MetadataResponseTopic(error_code=3, name=error_topic, partitions=[]))
    return MetadataResponse(brokers=brokers, cluster_id="cid", controller_id=1, topics=out)


def test_consumer_metadata_is_the_client_metadata():
    metadata = ConsumerMetadata(100, 300_000, True, MockTime())
    assert isinstance(metadata, Metadata)
    metadata.bootstrap([("a", 1), ("b", 2)])
    assert isinstance(metadata.fetch(), Cluster) and [n.id for n in metadata.fetch().nodes] == [-1, -2]
    assert metadata.update_requested()


@pytest.mark.parametrize("allow", [True, False])
def test_metadata_request_asks_for_the_consumers_topics(allow):
    # Kafka: ConsumerMetadataTest.testUserAssignment / newMetadataRequestBuilder
    metadata = ConsumerMetadata(allow_auto_topic_creation=allow)
    metadata.topics = {"b", "a"}
    request = metadata.new_metadata_request()
    assert [t.name for t in request.topics] == ["a", "b"]
    assert request.allow_auto_topic_creation is allow


def test_update_installs_a_cluster_without_the_failed_topics():
    mock_time = MockTime()
    metadata = ConsumerMetadata(time=mock_time)
    metadata.bootstrap([("a", 1)])
    metadata.topics = {"t", "missing"}
    version = metadata.update_version
    metadata.update(metadata.request_version, response("t", error_topic="missing"), mock_time.milliseconds())
    cluster = metadata.fetch()
    assert metadata.update_version == version + 1 and not metadata.update_requested()
    assert cluster.partition_count_for_topic("t") == 3 and cluster.partition_count_for_topic("missing") is None
    assert cluster.leader_for(TopicPartition("t", 1)).id == 1 and cluster.controller.id == 1
    assert not cluster.is_bootstrap_configured and sorted(n.id for n in cluster.nodes) == [0, 1]


class _UpdatingClient:
    """Stands in for NetworkClient: its DefaultMetadataUpdater would answer on the n-th poll."""

    def __init__(self, metadata, mock_time, answer_on_poll):
        self.metadata, self.time, self.answer_on_poll, self.polls = metadata, mock_time, answer_on_poll, 0

    def poll(self, timeout_ms, now):
        self.polls += 1
        self.time.sleep(min(timeout_ms, 10))
        if self.polls == self.answer_on_poll:
            self.metadata.update(self.metadata.request_version, response("t"), self.time.milliseconds())
        return []

    def wakeup(self):
        pass


def test_await_metadata_update_polls_until_the_version_moves():
    # Kafka: ConsumerNetworkClientTest.testAwaitForMetadataUpdateWithTimeout (and its successful twin)
    mock_time = MockTime()
    metadata = ConsumerMetadata(time=mock_time)
    client = _UpdatingClient(metadata, mock_time, answer_on_poll=3)
    network_client = ConsumerNetworkClient(client, metadata, mock_time)
    assert network_client.await_metadata_update(1000)
    assert client.polls == 3 and metadata.fetch().partition_count_for_topic("t") == 3


def test_await_metadata_update_times_out_but_polls_at_least_once():
    mock_time = MockTime()
    metadata = ConsumerMetadata(time=mock_time)
    client = _UpdatingClient(metadata, mock_time, answer_on_poll=-1)
    network_client = ConsumerNetworkClient(client, metadata, mock_time)
    assert not network_client.await_metadata_update(0)
    assert client.polls == 1 and metadata.update_requested()
    assert not network_client.await_metadata_update(50) and mock_time.milliseconds() >= 60

"""Mirrors Kafka 2.4: KafkaApis.getTopicMetadata's unknown-topic branch (MetadataRequestTest's internal-topic
cases): a Metadata request naming an internal topic that does not exist yet creates it whatever
``allow_auto_topic_creation`` and ``auto.create.topics.enable`` say (its coordinator needs it); any other unknown
topic is created only when both allow it."""
import pytest

from clients import raw_request
from harness import InProcessBroker, RawConnection
from kafkalite.protocol.messages import metadata as MD
from support import wait_until

pytestmark = pytest.mark.timeout(60)


def _metadata(port, name, allow):
    with RawConnection(port) as conn:
        r = raw_request(conn, 3, 7, MD.MetadataRequest(topics=[MD.MetadataRequestTopic(name=name)],
                                                       allow_auto_topic_creation=allow))
    [topic] = r.topics
    return topic


@pytest.mark.parametrize("auto_create_enable", ["true", "false"])
def test_an_internal_topic_is_created_by_metadata_even_without_auto_creation(tmp_path, auto_create_enable):
    b = InProcessBroker(tmp_path / "logs", {"auto.create.topics.enable": auto_create_enable,
                                            "offsets.topic.num.partitions": "2"}).start()
    try:
        assert _metadata(b.port, "plain", allow=False).error_code == 3   # UNKNOWN_TOPIC_OR_PARTITION
        first = _metadata(b.port, "__consumer_offsets", allow=False)
        assert first.error_code in (0, 5) and first.is_internal           # created: LEADER_NOT_AVAILABLE at first
        assert b.server.zk_client.topic_exists("__consumer_offsets")
        wait_until(lambda: _metadata(b.port, "__consumer_offsets", allow=False).error_code == 0, 30,
                   "__consumer_offsets to have leaders")
        assert not b.server.zk_client.topic_exists("plain")
    finally:
        b.stop()


@pytest.mark.parametrize("topic, prop", [("__consumer_offsets", "offsets.topic.replication.factor"),
                                         ("__transaction_state", "transaction.state.log.replication.factor")])
def test_an_internal_topic_waits_for_as_many_brokers_as_its_replication_factor(tmp_path, topic, prop):
    # Kafka: KafkaApis.createInternalTopic answers COORDINATOR_NOT_AVAILABLE while fewer brokers are alive than
    # the replication factor asks for, and creates nothing; kafkalite used to create the topic with fewer
    # replicas (for good: a cluster whose first group arrived while a broker was still starting kept a
    # __consumer_offsets of replication factor 2, and lost its group coordinator with one more broker)
    from kafkalite.protocol.messages import find_coordinator as FC
    b = InProcessBroker(tmp_path / "logs", {prop: "2"}).start()
    try:
        assert _metadata(b.port, topic, allow=True).error_code == 15   # COORDINATOR_NOT_AVAILABLE
        with RawConnection(b.port) as conn:
            r = raw_request(conn, 10, 1, FC.FindCoordinatorRequest(
                key="g", key_type=0 if topic == "__consumer_offsets" else 1))
        assert r.error_code == 15
        assert not b.server.zk_client.topic_exists(topic)
    finally:
        b.stop()


def test_a_cluster_creates_its_offsets_topic_once_enough_brokers_are_up(tmp_path):
    from kafkalite.testing.embedded_kafka_cluster import EmbeddedKafkaCluster
    cluster = EmbeddedKafkaCluster(3, base_dir=str(tmp_path), replication_factor=3, min_insync_replicas=2)
    first, second, third = cluster.brokers
    try:
        first.start()
        second.start()
        assert _metadata(first.port, "__consumer_offsets", allow=True).error_code == 15
        third.start()
        wait_until(lambda: _metadata(first.port, "__consumer_offsets", allow=True).error_code == 0, 30,
                   "__consumer_offsets to be created and led")
        replicas = {len(p.replica_nodes) for p in _metadata(first.port, "__consumer_offsets", allow=True).partitions}
        assert replicas == {3}
    finally:
        cluster.stop()

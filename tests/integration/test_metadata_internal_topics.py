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

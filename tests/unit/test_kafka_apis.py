"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/KafkaApisTest.scala (the dispatch): every API the
broker advertises reaches its own handler through KafkaApis.handle's explicit match, and an API it does not
serve closes the connection (UNSUPPORTED_VERSION, logged). TxnOffsetCommit and OffsetFetch's require_stable
reach the group coordinator with what the request said."""
import re
from pathlib import Path

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.group.group_metadata_manager import OffsetFetchPartitionData
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import offset_fetch, txn_offset_commit as toc
from kafkalite.server import kafka_apis
from kafkalite.server.kafka_apis import SERVED_APIS, KafkaApis


class FakeRequest:
    def __init__(self, api_key):
        self.api_key = api_key
        self.api_local_complete_time_nanos = -1

    def request_desc(self):
        return self.api_key.name


class FakeTime:
    def nanoseconds(self):
        return 1


def handler_for(api_key) -> str:
    """The handler KafkaApis.handle's match names for ``api_key``."""
    source = Path(kafka_apis.__file__).read_text()
    m = re.search(rf"case ApiKeys\.{api_key.name}: self\.(\w+)\(request\)", source)
    assert m, f"no case for {api_key.name} in KafkaApis.handle"
    return m.group(1)


@pytest.mark.parametrize("api_key", SERVED_APIS, ids=lambda k: k.name)
def test_each_served_api_reaches_its_handler(api_key, monkeypatch):
    called, errors = [], []
    apis = KafkaApis.__new__(KafkaApis)
    apis.time = FakeTime()
    monkeypatch.setattr(apis, "handle_error", lambda request, e: errors.append(e), raising=False)
    name = handler_for(api_key)
    assert hasattr(KafkaApis, name), f"{name} is not a KafkaApis method"
    monkeypatch.setattr(apis, name, lambda request: called.append((name, request.api_key)), raising=False)
    apis.handle(FakeRequest(api_key))
    assert called == [(name, api_key)] and not errors


def test_advertised_apis_are_the_served_ones_with_a_schema():
    assert set(KafkaApis.advertised_apis()) == {k for k in SERVED_APIS if k.request_class is not None}
    assert ApiKeys.PRODUCE in KafkaApis.advertised_apis()


def test_an_api_not_served_is_an_error():
    unserved = next(k for k in ApiKeys if k not in SERVED_APIS)
    errors = []
    apis = KafkaApis.__new__(KafkaApis)
    apis.time = FakeTime()
    apis.handle_error = lambda request, e: errors.append(type(e).__name__)
    apis.handle(FakeRequest(unserved))
    assert errors == ["UnsupportedVersionException"]


class Header:
    def __init__(self, api_version):
        self.api_version, self.correlation_id, self.client_id = api_version, 7, "client"


class BodyRequest:
    def __init__(self, body, api_version):
        self.body, self.header = body, Header(api_version)


class MetadataCacheWithFoo:
    """Topic foo has one partition."""

    def get_partition_info(self, topic, partition):
        return object() if (topic, partition) == ("foo", 0) else None

    def contains(self, topic):
        return topic == "foo"


class RecordingCoordinator:
    def __init__(self):
        self.calls = []

    def handle_txn_commit_offsets(self, group_id, producer_id, producer_epoch, offsets, callback, **member):
        self.calls.append((group_id, producer_id, producer_epoch, offsets, member))
        callback({tp: Errors.NONE for tp in offsets})

    def handle_fetch_offsets(self, group_id, partitions, require_stable=False):
        self.calls.append((group_id, partitions, require_stable))
        return Errors.NONE, {tp: OffsetFetchPartitionData(-1, None, "", Errors.UNSTABLE_OFFSET_COMMIT)
                             for tp in partitions}


def apis_with(coordinator, sent):
    apis = KafkaApis.__new__(KafkaApis)
    apis.time = type("T", (), {"milliseconds": staticmethod(lambda: 1000)})()
    apis.metadata_cache = MetadataCacheWithFoo()
    apis.group_coordinator = coordinator
    apis.log_ident = ""
    apis.send_response = lambda request, response: sent.append(response)
    return apis


def test_txn_offset_commit_with_invalid_partition():
    # Kafka: KafkaApisTest.testTxnOffsetCommitWithInvalidPartition -- an unknown partition never reaches the
    # coordinator; the known one does, with the producer and (v3) member fields
    coordinator, sent = RecordingCoordinator(), []
    body = toc.TxnOffsetCommitRequest(
        transactional_id="txn", group_id="g", producer_id=42, producer_epoch=3, generation_id=5, member_id="m",
        group_instance_id=None, topics=[toc.TxnOffsetCommitRequestTopic(name="foo", partitions=[
            toc.TxnOffsetCommitRequestPartition(partition_index=0, committed_offset=15, committed_leader_epoch=2,
                                                committed_metadata=None),
            toc.TxnOffsetCommitRequestPartition(partition_index=1, committed_offset=16, committed_leader_epoch=-1,
                                                committed_metadata="x")])])
    apis_with(coordinator, sent).handle_txn_offset_commit_request(BodyRequest(body, 3))
    [(group_id, producer_id, epoch, offsets, member)] = coordinator.calls
    assert (group_id, producer_id, epoch, member) == ("g", 42, 3, {"member_id": "m", "group_instance_id": None,
                                                                    "generation_id": 5})
    [(tp, om)] = offsets.items()
    assert tp == TopicPartition("foo", 0)
    assert (om.offset, om.leader_epoch, om.metadata, om.commit_timestamp, om.expire_timestamp) == (15, 2, "", 1000, None)
    [response] = sent
    assert [(t.name, [(p.partition_index, p.error_code) for p in t.partitions]) for t in response.topics] == [
        ("foo", [(0, Errors.NONE.code), (1, Errors.UNKNOWN_TOPIC_OR_PARTITION.code)])]


@pytest.mark.parametrize("version,asked,passed", [(7, True, True), (7, False, False), (6, True, False)])
def test_offset_fetch_require_stable_reaches_the_coordinator(version, asked, passed):
    coordinator, sent = RecordingCoordinator(), []
    body = offset_fetch.OffsetFetchRequest(group_id="g", topics=[
        offset_fetch.OffsetFetchRequestTopic(name="foo", partition_indexes=[0])], require_stable=asked)
    apis_with(coordinator, sent).handle_offset_fetch_request(BodyRequest(body, version))
    assert coordinator.calls == [("g", [TopicPartition("foo", 0)], passed)]
    assert sent[0].topics[0].partitions[0].error_code == Errors.UNSTABLE_OFFSET_COMMIT.code


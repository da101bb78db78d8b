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
from kafkalite.server.auth_helper import AuthHelper


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
    m = re.search(rf"case ApiKeys\.{api_key.name}: self\.([\w.]+)\(request\)", source)
    assert m, f"no case for {api_key.name} in KafkaApis.handle"
    return m.group(1)   # a method of KafkaApis, or "part.method" of a part it holds (acl_apis)


@pytest.mark.parametrize("api_key", SERVED_APIS, ids=lambda k: k.name)
def test_each_served_api_reaches_its_handler(api_key, monkeypatch):
    called, errors = [], []
    apis = KafkaApis.__new__(KafkaApis)
    apis.time = FakeTime()
    monkeypatch.setattr(apis, "handle_error", lambda request, e: errors.append(e), raising=False)
    name = handler_for(api_key)
    target = apis
    if "." in name:   # a handler of a part KafkaApis holds, as Kafka 3.0's aclApis
        part, method = name.split(".")
        target = type("Part", (), {})()
        setattr(apis, part, target)
    else:
        method = name
        assert hasattr(KafkaApis, name), f"{name} is not a KafkaApis method"
    monkeypatch.setattr(target, method, lambda request: called.append((name, request.api_key)), raising=False)
    apis.handle(FakeRequest(api_key))
    assert called == [(name, api_key)] and not errors


def test_advertised_apis_are_the_served_ones_with_a_schema():
    assert set(KafkaApis.advertised_apis()) == {k for k in SERVED_APIS if k.request_class is not None}
    assert ApiKeys.PRODUCE in KafkaApis.advertised_apis()


def test_an_api_not_served_is_an_error():
    # every ApiKeys member may be served one day: fall back to a key that is not a member at all
    import types
    unserved = next((k for k in ApiKeys if k not in SERVED_APIS), types.SimpleNamespace(name="NOT_AN_API"))
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
    apis.auth_helper = AuthHelper(None)
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


# ---- WriteTxnMarkers and DescribeProducers (KafkaApisTest's handleWriteTxnMarkersRequest cases) ----
from kafkalite.common.topic_partition import TopicPartition  # noqa: E402
from kafkalite.log.producer_state_manager import AppendOrigin, ProducerStateEntry  # noqa: E402
from kafkalite.protocol.errors import Errors  # noqa: E402
from kafkalite.protocol.messages import describe_producers, write_txn_markers as wtm  # noqa: E402
from kafkalite.protocol.transaction_result import TransactionResult  # noqa: E402
from kafkalite.record.end_transaction_marker import EndTransactionMarker  # noqa: E402
from kafkalite.server.replica_manager import PartitionResponse  # noqa: E402


class FakeReplicaManager:
    def __init__(self, hosted, append_errors=None):
        self.hosted, self.append_errors, self.appends = set(hosted), append_errors or {}, []

    def local_log(self, tp):
        return object() if tp in self.hosted else None

    def append_records(self, timeout_ms, required_acks, internal_topics_allowed, origin, entries, callback):
        self.appends.append((required_acks, internal_topics_allowed, origin, entries))
        callback({tp: PartitionResponse(self.append_errors.get(tp, Errors.NONE)) for tp in entries})

    def active_producer_state(self, tp):
        entry = ProducerStateEntry(7, 2, 5, 1234, 40)
        entry.add_batch(2, 9, 41, 0, 1234)
        return Errors.NONE, [(7, entry)]


class FakeGroupCoordinator:
    def __init__(self, fail=False):
        self.calls, self.fail = [], fail

    def schedule_handle_txn_completion(self, producer_id, offset_partitions, result):
        if self.fail:
            raise RuntimeError("boom")
        self.calls.append((producer_id, sorted(offset_partitions), result))


class FakeConfig:
    def get(self, key):
        return {"request.timeout.ms": 30000}[key]


class WireRequest:
    def __init__(self, body):
        self.body = body


def txn_apis(replica_manager, group_coordinator=None):
    apis = KafkaApis.__new__(KafkaApis)
    apis.replica_manager, apis.group_coordinator, apis.config = replica_manager, group_coordinator, FakeConfig()
    apis.log_ident = ""
    apis.auth_helper = AuthHelper(None)
    apis.sent = []
    apis.send_response = lambda request, body: apis.sent.append(body)
    return apis


def marker(pid, commit, *tps, epoch=1, coordinator_epoch=4):
    topics = {}
    for tp in tps:
        topics.setdefault(tp.topic, []).append(tp.partition)
    return wtm.WritableTxnMarker(producer_id=pid, producer_epoch=epoch, transaction_result=commit,
                                 coordinator_epoch=coordinator_epoch,
                                 topics=[wtm.WritableTxnMarkerTopic(name=t, partition_indexes=ps)
                                         for t, ps in topics.items()])


def errors_of(response):
    return {(m.producer_id, t.name, p.partition_index): Errors.for_code(p.error_code)
            for m in response.markers for t in m.topics for p in t.partitions}


def test_write_txn_markers_appends_control_batches_as_coordinator():
    tp, offsets = TopicPartition("t", 0), TopicPartition("__consumer_offsets", 3)
    rm, gc = FakeReplicaManager({tp, offsets}), FakeGroupCoordinator()
    apis = txn_apis(rm, gc)
    apis.handle_write_txn_markers_request(WireRequest(wtm.WriteTxnMarkersRequest(
        markers=[marker(5, True, tp, offsets), marker(6, False, tp)])))
    assert len(apis.sent) == 1
    assert errors_of(apis.sent[0]) == {(5, "t", 0): Errors.NONE, (5, "__consumer_offsets", 3): Errors.NONE,
                                       (6, "t", 0): Errors.NONE}
    acks, internal, origin, entries = rm.appends[0]
    assert (acks, internal, origin) == (-1, True, AppendOrigin.COORDINATOR)
    batch = entries[tp].first_batch()
    assert batch.is_control_batch and batch.is_transactional and (batch.producer_id, batch.producer_epoch) == (5, 1)
    record = next(iter(batch))
    assert EndTransactionMarker.deserialize(record.key, record.value).coordinator_epoch == 4
    assert gc.calls == [(5, [3], TransactionResult.COMMIT)]    # only the offsets partition, only producer 5


def test_write_txn_markers_unknown_and_not_leader_partitions():
    hosted, missing, follower = TopicPartition("t", 0), TopicPartition("t", 9), TopicPartition("t", 1)
    rm = FakeReplicaManager({hosted, follower}, {follower: Errors.NOT_LEADER_FOR_PARTITION})
    apis = txn_apis(rm, FakeGroupCoordinator())
    apis.handle_write_txn_markers_request(WireRequest(wtm.WriteTxnMarkersRequest(
        markers=[marker(5, False, hosted, missing, follower), marker(8, True, missing)])))
    assert len(apis.sent) == 1
    assert errors_of(apis.sent[0]) == {(5, "t", 0): Errors.NONE, (5, "t", 9): Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                       (5, "t", 1): Errors.NOT_LEADER_FOR_PARTITION,
                                       (8, "t", 9): Errors.UNKNOWN_TOPIC_OR_PARTITION}
    assert len(rm.appends) == 1 and set(rm.appends[0][3]) == {hosted, follower}


def test_write_txn_markers_group_coordinator_failure_is_unknown_server_error():
    offsets = TopicPartition("__consumer_offsets", 0)
    apis = txn_apis(FakeReplicaManager({offsets}), FakeGroupCoordinator(fail=True))
    apis.handle_write_txn_markers_request(WireRequest(wtm.WriteTxnMarkersRequest(markers=[marker(5, True, offsets)])))
    assert errors_of(apis.sent[0]) == {(5, "__consumer_offsets", 0): Errors.UNKNOWN_SERVER_ERROR}


def test_write_txn_markers_with_nothing_to_write_answers_at_once():
    apis = txn_apis(FakeReplicaManager(set()))
    apis.handle_write_txn_markers_request(WireRequest(wtm.WriteTxnMarkersRequest(markers=[])))
    assert len(apis.sent) == 1 and apis.sent[0].markers == []


def test_describe_producers_reports_each_producer():
    class Cache:
        def get_partition_info(self, topic, partition):
            return object() if partition == 0 else None
    apis = txn_apis(FakeReplicaManager({TopicPartition("t", 0)}))
    apis.metadata_cache = Cache()
    apis.handle_describe_producers_request(WireRequest(describe_producers.DescribeProducersRequest(
        topics=[describe_producers.TopicRequest(name="t", partition_indexes=[0, 1])])))
    [topic] = apis.sent[0].topics
    ok, unknown = topic.partitions
    assert Errors.for_code(unknown.error_code) is Errors.UNKNOWN_TOPIC_OR_PARTITION
    [p] = ok.active_producers
    assert (p.producer_id, p.producer_epoch, p.last_sequence, p.last_timestamp, p.coordinator_epoch,
            p.current_txn_start_offset) == (7, 2, 9, 1234, 5, 40)


def test_describe_groups_gives_authorized_operations_only_for_a_group_it_describes():
    # Kafka 2.4 handleDescribeGroupRequest: the operations only when error == NONE (and they were asked for)
    from kafkalite.coordinator.group.group_coordinator import DEAD_GROUP
    from kafkalite.protocol.messages import describe_groups as dg

    class Coordinator:
        def handle_describe_group(self, group_id):
            return (Errors.NONE if group_id == "here" else Errors.NOT_COORDINATOR), DEAD_GROUP
    sent = []
    body = dg.DescribeGroupsRequest(groups=["here", "elsewhere"], include_authorized_operations=True)
    apis_with(Coordinator(), sent).handle_describe_groups_request(BodyRequest(body, 3))
    [response] = sent
    operations = {g.group_id: g.authorized_operations for g in response.groups}
    assert operations["here"] > 0 and operations["elsewhere"] == -(1 << 31)

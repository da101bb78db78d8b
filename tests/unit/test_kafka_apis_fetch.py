"""KafkaApis.handleFetchRequest with fetch sessions (Kafka's KafkaApisTest fetch cases, as far as sessions go):
an incremental fetch reads every partition of its session, is authorized on all of them, and answers only
those with news; a session error answers no partition and reads nothing."""
from __future__ import annotations

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.fetch import FetchPartition, FetchRequest, FetchTopic, ForgottenTopic
from kafkalite.server.fetch_session import FetchManager, FetchSessionCache
from kafkalite.server.kafka_apis import KafkaApis
from kafkalite.server.replica_manager import FetchPartitionData
from kafkalite.utils.time import MockTime

FOO0, FOO1, BAR0 = TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("bar", 0)


class Trace:
    def purgatory_callback(self, name, callback):
        return callback

    def returned_from_purgatory_call(self):
        pass


class Request:
    def __init__(self, body, version=12):
        self.body = body
        self.header = type("H", (), {"api_version": version, "correlation_id": 1, "client_id": "c"})()
        self.trace = Trace()


class Metadata:
    def get_partition_info(self, topic, partition):
        return object() if TopicPartition(topic, partition) in (FOO0, FOO1, BAR0) else None


class Auth:
    authorizer = object()   # an authorizer is configured: the handler asks this helper

    def __init__(self):
        self.readable, self.cluster_action = {"foo", "bar", "nope"}, True

    def authorize(self, request, operation, resource_type, resource_name, **kw):
        return self.cluster_action

    def filter_by_authorized(self, request, operation, resource_type, names, **kw):
        return {n for n in names if n in self.readable}


class ReplicaManager:
    """Answers each partition with the high watermark and records set for it."""

    def __init__(self):
        self.high_watermarks = {FOO0: 10, FOO1: 20, BAR0: 30}
        self.records: dict = {}
        self.asked: list = []

    def local_log(self, tp):   # consulted for Fetch below v10 (zstd topics, down-conversion)
        return None

    def fetch_messages(self, max_wait, replica_id, min_bytes, max_bytes, hard_limit, fetch_infos, callback,
                       isolation_level, client_metadata=False, quota=None):
        self.asked.append([(tp, info.fetch_offset) for tp, info in fetch_infos])
        callback([(tp, FetchPartitionData(Errors.NONE, self.high_watermarks[tp], 0, self.high_watermarks[tp],
                                          self.records.get(tp, b""), [] if isolation_level == 1 else None))
                  for tp, _ in fetch_infos])


def apis():
    a = KafkaApis.__new__(KafkaApis)
    a.metadata_cache, a.auth_helper, a.replica_manager = Metadata(), Auth(), ReplicaManager()
    a.config = type("C", (), {"get": staticmethod(lambda key: {"fetch.max.bytes": 1 << 20}[key])})()
    a.fetch_manager = FetchManager(MockTime(), FetchSessionCache(10, 1000))
    a.quotas = None
    a.sent = []
    a.send_response = lambda request, response: a.sent.append(response)
    return a


def fetch(a, session_id, epoch, partitions=(), forget=(), replica_id=-1, isolation_level=0, version=12):
    topics: dict = {}
    for tp, offset in partitions:
        topics.setdefault(tp.topic, []).append(FetchPartition(partition=tp.partition, fetch_offset=offset,
                                                              partition_max_bytes=1000))
    forgotten: dict = {}
    for tp in forget:
        forgotten.setdefault(tp.topic, []).append(tp.partition)
    a.handle_fetch_request(Request(FetchRequest(
        replica_id=replica_id, max_wait_ms=0, min_bytes=1, isolation_level=isolation_level, session_id=session_id,
        session_epoch=epoch, topics=[FetchTopic(topic=t, partitions=ps) for t, ps in topics.items()],
        forgotten_topics_data=[ForgottenTopic(topic=t, partitions=ps) for t, ps in forgotten.items()]), version))
    response = a.sent.pop()
    return response, {TopicPartition(t.topic, p.partition_index): p for t in response.responses for p in t.partitions}


# v7 is the first version with sessions; below v10 the response also passes through maybeConvertFetchedData
@pytest.mark.parametrize("version", [7, 12])
def test_incremental_fetch_reads_the_whole_session_and_answers_what_changed(version):
    a = apis()
    response, parts = fetch(a, 0, 0, [(FOO0, 0), (FOO1, 5), (BAR0, 7)], version=version)
    session_id = response.session_id
    assert session_id > 0 and set(parts) == {FOO0, FOO1, BAR0}
    # nothing named, nothing new: every session partition is read, none is answered
    response, parts = fetch(a, session_id, 1, version=version)
    assert a.replica_manager.asked[-1] == [(FOO0, 0), (FOO1, 5), (BAR0, 7)]
    assert (response.error_code, response.session_id, parts) == (0, session_id, {})
    # foo-1's position moved and bar-0 got records; foo-0's high watermark moved
    a.replica_manager.records[BAR0] = b"some-batch"
    a.replica_manager.high_watermarks[FOO0] = 11
    response, parts = fetch(a, session_id, 2, [(FOO1, 6)], version=version)
    assert a.replica_manager.asked[-1] == [(FOO0, 0), (FOO1, 6), (BAR0, 7)]
    assert {tp: (p.high_watermark, p.records) for tp, p in parts.items()} == {FOO0: (11, b""), BAR0: (30, b"some-batch")}
    # forgetting foo-0: it is no longer read
    fetch(a, session_id, 3, forget=[FOO0], version=version)
    assert [tp for tp, _ in a.replica_manager.asked[-1]] == [FOO1, BAR0]


def test_incremental_fetch_is_authorized_on_every_session_partition():
    a = apis()
    session_id = fetch(a, 0, 0, [(FOO0, 0), (BAR0, 0)])[0].session_id
    a.auth_helper.readable = {"foo"}          # READ on bar revoked while the session lives
    _, parts = fetch(a, session_id, 1)
    assert [tp for tp, _ in a.replica_manager.asked[-1]] == [FOO0]
    assert {tp: Errors.for_code(p.error_code) for tp, p in parts.items()} == {BAR0: Errors.TOPIC_AUTHORIZATION_FAILED}


def test_a_follower_without_cluster_action_reads_nothing():
    a = apis()
    a.auth_helper.cluster_action = False
    response, parts = fetch(a, 0, 0, [(FOO0, 0), (FOO1, 0)], replica_id=1)
    assert a.replica_manager.asked == []
    assert {Errors.for_code(p.error_code) for p in parts.values()} == {Errors.TOPIC_AUTHORIZATION_FAILED}
    assert len(parts) == 2


def test_session_errors_read_nothing_and_answer_no_partition():
    a = apis()
    session_id = fetch(a, 0, 0, [(FOO0, 0)])[0].session_id
    response, parts = fetch(a, session_id + 1, 1, [(FOO0, 0)])
    assert (Errors.for_code(response.error_code), response.session_id, parts) == (
        Errors.FETCH_SESSION_ID_NOT_FOUND, 0, {})
    response, parts = fetch(a, session_id, 7)
    assert (Errors.for_code(response.error_code), parts) == (Errors.INVALID_FETCH_SESSION_EPOCH, {})
    assert len(a.replica_manager.asked) == 1   # only the first, full fetch read the log


def test_read_committed_incremental_responses_carry_the_aborted_transactions_list():
    a = apis()
    session_id = fetch(a, 0, 0, [(FOO0, 0)], isolation_level=1)[0].session_id
    a.replica_manager.records[FOO0] = b"batch"
    _, parts = fetch(a, session_id, 1, isolation_level=1)
    assert parts[FOO0].aborted_transactions == [] and parts[FOO0].records == b"batch"


def test_sessionless_fetch_answers_every_partition_in_full():
    a = apis()
    response, parts = fetch(a, 0, -1, [(FOO0, 0), (FOO1, 0), (TopicPartition("nope", 0), 0)])
    assert response.session_id == 0 and a.fetch_manager.cache.size() == 0
    assert {tp: Errors.for_code(p.error_code) for tp, p in parts.items()} == {
        FOO0: Errors.NONE, FOO1: Errors.NONE, TopicPartition("nope", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION}


class ThrottlingQuotas:
    """The broker's quota managers as a consumer fetch meets them: a bandwidth throttle time set by the test."""

    def __init__(self):
        self.throttle_ms = 0
        self.unrecorded = []
        me = self

        class Fetch:
            quotas_enabled = True

            def maybe_record_and_get_throttle_time_ms(self, request, size, now_ms):
                return me.throttle_ms

            def unrecord_quota_sensor(self, request, size, now_ms):
                me.unrecorded.append(size)

        class RequestQuota:
            def maybe_record_and_get_throttle_time_ms(self, request):
                return 0

        self.fetch, self.request = Fetch(), RequestQuota()


def test_a_throttled_fetch_leaves_the_session_as_it_was():
    # Kafka 2.4 handleFetchRequest.processResponseCallback: a throttled consumer fetch is sized with
    # getResponseSize and answered by getThrottledResponse; only an answered one calls
    # updateAndGenerateResponseData -- else a throttled full fetch makes a session the client never learns of,
    # and a throttled incremental fetch marks its news (a new high watermark) as sent
    a = apis()
    a.quotas = quotas = ThrottlingQuotas()
    a.time = MockTime()
    a.send_response_maybe_throttle = lambda request, body, *args: a.sent.append(body)
    quotas.throttle_ms = 100
    response, parts = fetch(a, 0, 0, [(FOO0, 0)])
    assert (response.session_id, parts) == (0, {})
    assert a.fetch_manager.cache.size() == 0, "a throttled full fetch created a session"
    assert quotas.unrecorded and quotas.unrecorded[0] > 0
    quotas.throttle_ms = 0
    response, parts = fetch(a, 0, 0, [(FOO0, 0)])
    session_id = response.session_id
    assert session_id > 0 and set(parts) == {FOO0}
    a.replica_manager.high_watermarks[FOO0] = 12
    quotas.throttle_ms = 100
    response, parts = fetch(a, session_id, 1)
    assert (response.session_id, parts) == (session_id, {})
    quotas.throttle_ms = 0
    response, parts = fetch(a, session_id, 2)
    assert {tp: p.high_watermark for tp, p in parts.items()} == {FOO0: 12}, "the throttled answer swallowed the news"

"""Mirrors Kafka 3.0: clients/src/test/java/org/apache/kafka/clients/admin/KafkaAdminClientTest.java's KIP-664 cases
(testListTransactions, testDescribeTransactions, testDescribeProducers..., testAbortTransaction...) and the
handler tests beside it (ListTransactionsHandlerTest, DescribeTransactionsHandlerTest, DescribeProducersHandlerTest,
AbortTransactionHandlerTest): which broker each request goes to, how answers become admin values (-1 as None),
and which errors are retried and which end the call. The network is replaced by a script of responses."""
from __future__ import annotations

import pytest

from kafkalite.clients.admin.admin_client import TRANSACTION_KEY_TYPE, KafkaAdminClient
from kafkalite.clients.admin.admin_types import AbortTransactionSpec, ProducerState, TransactionState
from kafkalite.clients.cluster import Cluster, PartitionInfo
from kafkalite.clients.node import Node
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import (
    CoordinatorNotAvailableException, Errors, ProducerFencedException, NotLeaderForPartitionException,
    TransactionalIdNotFoundException,
)
from kafkalite.protocol.messages import describe_producers as dp
from kafkalite.protocol.messages import describe_transactions as dtx
from kafkalite.protocol.messages import find_coordinator as fc
from kafkalite.protocol.messages import list_transactions as ltx
from kafkalite.protocol.messages import write_txn_markers as wtm
from kafkalite.utils.time import MockTime

N0, N1 = Node(0, "h0", 9092), Node(1, "h1", 9092)
TP0, TP1 = TopicPartition("t", 0), TopicPartition("t", 1)


class ScriptedAdmin(KafkaAdminClient):
    """KafkaAdminClient whose requests are answered by ``answer(node, api_key, request)``; polls move a MockTime."""

    def __init__(self, answer, partitions=()):
        super().__init__({"bootstrap.servers": "127.0.0.1:1", "default.api.timeout.ms": 1000}, time=MockTime())
        self.answer, self.sent = answer, []
        self.cluster = Cluster("c", [N0, N1], partitions)
        self.metadata.fetch = lambda: self.cluster
        self.client.poll = lambda timeout_ms=0, future=None: self.time.sleep(timeout_ms)

    def _refresh(self, topics=None):
        return None

    def _call(self, node, api_key, request, version=None):
        self.sent.append((node.id, api_key, request))
        return self.answer(node, api_key, request)


@pytest.fixture
def make_admin():
    made = []

    def make(answer, partitions=()):
        made.append(ScriptedAdmin(answer, partitions))
        return made[-1]
    yield make
    for admin in made:
        admin.close()


def find_coordinator(node: Node):
    return fc.FindCoordinatorResponse(error_code=0, node_id=node.id, host=node.host, port=node.port)


def test_list_transactions_asks_every_broker_and_retries_a_loading_coordinator(make_admin):
    loading = [True]

    def answer(node, api_key, request):
        assert api_key is ApiKeys.LIST_TRANSACTIONS and request.producer_id_filters == [5]
        if node.id == 0 and loading[0]:
            loading[0] = False
            return ltx.ListTransactionsResponse(error_code=Errors.COORDINATOR_LOAD_IN_PROGRESS.code,
                                                unknown_state_filters=[], transaction_states=[])
        states = [ltx.TransactionState(transactional_id="a", producer_id=5, transaction_state="Ongoing"),
                  ltx.TransactionState(transactional_id="b", producer_id=6, transaction_state="SomethingNew")]
        return ltx.ListTransactionsResponse(error_code=0, unknown_state_filters=[],
                                            transaction_states=states if node.id == 0 else [])
    admin = make_admin(answer)
    result = admin.list_transactions(producer_id_filters=[5])
    assert [n for n, _, _ in admin.sent] == [0, 0, 1]
    assert sorted(result) == [0, 1] and result[1] == []
    assert [(t.transactional_id, t.producer_id, t.state) for t in result[0]] == [
        ("a", 5, TransactionState.ONGOING), ("b", 6, TransactionState.UNKNOWN)]


def test_list_transactions_fails_on_a_coordinator_shutting_down(make_admin):
    admin = make_admin(lambda node, api_key, request: ltx.ListTransactionsResponse(
        error_code=Errors.COORDINATOR_NOT_AVAILABLE.code, unknown_state_filters=[], transaction_states=[]))
    with pytest.raises(CoordinatorNotAvailableException):
        admin.list_transactions()


def describe_answer(error: Errors, start_time_ms: int = 1000):
    return dtx.DescribeTransactionsResponse(transaction_states=[dtx.TransactionState(
        error_code=error.code, transactional_id="app", transaction_state="Ongoing", transaction_timeout_ms=60000,
        transaction_start_time_ms=start_time_ms, producer_id=7, producer_epoch=2,
        topics=[dtx.TopicData(topic="t", partitions=[0, 1])])])


def test_describe_transactions_finds_the_transaction_coordinator_and_follows_it_when_it_moves(make_admin):
    coordinators = [N0, N1]
    answers = [describe_answer(Errors.NOT_COORDINATOR), describe_answer(Errors.NONE, start_time_ms=-1)]

    def answer(node, api_key, request):
        if api_key is ApiKeys.FIND_COORDINATOR:
            assert request.key == "app" and request.key_type == TRANSACTION_KEY_TYPE
            return find_coordinator(coordinators.pop(0))
        assert api_key is ApiKeys.DESCRIBE_TRANSACTIONS and request.transactional_ids == ["app"]
        return answers.pop(0)
    admin = make_admin(answer)
    d = admin.describe_transactions(["app"])["app"]
    assert [(n, k) for n, k, _ in admin.sent if k is ApiKeys.DESCRIBE_TRANSACTIONS] == [
        (0, ApiKeys.DESCRIBE_TRANSACTIONS), (1, ApiKeys.DESCRIBE_TRANSACTIONS)]
    assert (d.coordinator_id, d.state, d.producer_id, d.producer_epoch, d.transaction_timeout_ms) == (
        1, TransactionState.ONGOING, 7, 2, 60000)
    assert d.transaction_start_time_ms is None
    assert d.topic_partitions == frozenset({TP0, TP1})


def test_describe_transactions_of_an_unknown_id_raises_kafkas_exception(make_admin):
    admin = make_admin(lambda node, api_key, request: find_coordinator(N0) if api_key is ApiKeys.FIND_COORDINATOR
                       else describe_answer(Errors.TRANSACTIONAL_ID_NOT_FOUND))
    with pytest.raises(TransactionalIdNotFoundException, match="DescribeTransactions request for transactionalId "
                                                               "`app` failed because the ID could not be found"):
        admin.describe_transactions(["app"])


def producers_answer(request, error: Errors = Errors.NONE):
    state = dp.ProducerState(producer_id=7, producer_epoch=2, last_sequence=9, last_timestamp=123,
                             coordinator_epoch=-1, current_txn_start_offset=-1)
    return dp.DescribeProducersResponse(topics=[dp.TopicResponse(name=t.name, partitions=[
        dp.PartitionResponse(partition_index=p, error_code=error.code,
                             active_producers=[] if error is not Errors.NONE else [state])
        for p in t.partition_indexes]) for t in request.topics])


def test_describe_producers_asks_each_partitions_leader_and_maps_minus_one_to_none(make_admin):
    partitions = [PartitionInfo("t", 0, N0, (N0, N1)), PartitionInfo("t", 1, N1, (N1, N0))]
    admin = make_admin(lambda node, api_key, request: producers_answer(request), partitions)
    result = admin.describe_producers([TP0, TP1])
    assert sorted((n, [(t.name, t.partition_indexes) for t in r.topics]) for n, _, r in admin.sent) == [
        (0, [("t", [0])]), (1, [("t", [1])])]
    assert result[TP0].active_producers == (ProducerState(7, 2, 9, 123, None, None),)


def test_describe_producers_retries_a_moved_leader_but_not_on_a_named_broker(make_admin):
    partitions = [PartitionInfo("t", 0, N0, (N0, N1))]
    errors = [Errors.NOT_LEADER_FOR_PARTITION, Errors.NONE]
    admin = make_admin(lambda node, api_key, request: producers_answer(request, errors.pop(0)), partitions)
    assert admin.describe_producers([TP0])[TP0].active_producers[0].producer_id == 7
    assert len(admin.sent) == 2

    admin = make_admin(lambda node, api_key, request: producers_answer(request, Errors.NOT_LEADER_FOR_PARTITION),
                       partitions)
    with pytest.raises(NotLeaderForPartitionException, match="on brokerId 1"):
        admin.describe_producers([TP0], broker_id=1)
    assert [n for n, _, _ in admin.sent] == [1]


def markers_answer(request, error: Errors):
    return wtm.WriteTxnMarkersResponse(markers=[wtm.WritableTxnMarkerResult(producer_id=m.producer_id, topics=[
        wtm.WritableTxnMarkerTopicResult(name=t.name, partitions=[
            wtm.WritableTxnMarkerPartitionResult(partition_index=p, error_code=error.code)
            for p in t.partition_indexes]) for t in m.topics]) for m in request.markers])


def test_abort_transaction_sends_one_abort_marker_to_the_leader(make_admin):
    partitions = [PartitionInfo("t", 1, N1, (N1,))]
    admin = make_admin(lambda node, api_key, request: markers_answer(request, Errors.NONE), partitions)
    admin.abort_transaction(AbortTransactionSpec(TP1, 7, 2, 4))
    [(node_id, api_key, request)] = admin.sent
    assert (node_id, api_key) == (1, ApiKeys.WRITE_TXN_MARKERS)
    [marker] = request.markers
    assert (marker.producer_id, marker.producer_epoch, marker.coordinator_epoch, marker.transaction_result) == (
        7, 2, 4, False)
    assert [(t.name, t.partition_indexes) for t in marker.topics] == [("t", [1])]


def test_abort_transaction_with_a_stale_producer_epoch_fails(make_admin):
    admin = make_admin(lambda node, api_key, request: markers_answer(request, Errors.INVALID_PRODUCER_EPOCH),
                       [PartitionInfo("t", 1, N1, (N1,))])
    with pytest.raises(ProducerFencedException, match="failed due an invalid producer epoch"):
        admin.abort_transaction(AbortTransactionSpec(TP1, 7, 2, 4))

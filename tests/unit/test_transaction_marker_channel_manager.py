"""Kafka: TransactionMarkerChannelManagerTest (+ TransactionMarkerRequestCompletionHandlerTest,
InterBrokerSendThreadTest) -- markers grouped per partition leader into WriteTxnMarkers requests, the
answers (written, retriable, fenced, disconnected), and CompleteCommit/CompleteAbort once every partition
has its marker; the send thread's handling of unreachable brokers."""
import attrs
import pytest
from group_test_support import ImmediateScheduler
from txn_test_support import NUM_PARTITIONS, FakeProducerIdManager, TxnReplicaManager, new_state_manager

from kafkalite.clients.client_response import ClientResponse
from kafkalite.clients.node import Node
from kafkalite.common.inter_broker_send_thread import InterBrokerSendThread, RequestAndCompletionHandler
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafkalite.coordinator.transaction.transaction_marker_channel_manager import (
    UNKNOWN_DESTINATION_RETRY_MS, TransactionMarkerChannelManager)
from kafkalite.coordinator.transaction.transaction_metadata import (CompleteAbort, CompleteCommit, PrepareCommit)
from kafkalite.coordinator.transaction.transaction_state_manager import TransactionConfig
from kafkalite.metrics.kafka_metrics_group import METRICS
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import write_txn_markers as W
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.server.delayed_operation import DelayedOperationPurgatory
from kafkalite.utils.time import MockTime

A0, A1, B0 = TopicPartition("a", 0), TopicPartition("a", 1), TopicPartition("b", 0)


@attrs.define
class PartitionInfo:
    leader: int


class FakeMetadataCache:
    def __init__(self):
        self.leaders = {}          # tp -> broker id
        self.alive = {1: ("h1", 9091), 2: ("h2", 9092)}

    def get_partition_info(self, topic, partition):
        leader = self.leaders.get(TopicPartition(topic, partition))
        return None if leader is None else PartitionInfo(leader)

    def get_partition_leader_endpoint(self, topic, partition, listener_name):
        assert listener_name == "PLAINTEXT"
        leader = self.leaders.get(TopicPartition(topic, partition))
        if leader is None or leader not in self.alive:
            return None
        return (leader, *self.alive[leader])


class FakeConfig:
    broker_id = 0
    inter_broker_listener_name = "PLAINTEXT"

    def get(self, name):
        return {"request.timeout.ms": 30000}[name]


class FakeNetworkClient:
    def __init__(self):
        self.wakeups = 0
        self.failed = set()
        self.ready_nodes = set()
        self.sent = []
        self.correlation = 0

    def wakeup(self):
        self.wakeups += 1

    def close(self, node_id=None):
        pass

    def new_client_request(self, node_id, api_key, body, version=None, expect_response=True, callback=None,
                           created_time_ms=None, request_timeout_ms=None):
        from kafkalite.clients.client_request import ClientRequest
        self.correlation += 1
        return ClientRequest(node_id, api_key, body, self.correlation, "c", created_time_ms, expect_response,
                             request_timeout_ms, callback)

    def ready(self, node, now):
        return node.id in self.ready_nodes

    def send(self, request, now):
        self.sent.append(request)

    def connection_delay(self, node, now):
        return 50

    def poll(self, timeout, now):
        return []

    def connection_failed(self, node):
        return node.id in self.failed


class Harness:
    def __init__(self):
        self.time = MockTime()
        self.rm = TxnReplicaManager()
        self.manager = new_state_manager(self.time, self.rm)
        self.metadata_cache = FakeMetadataCache()
        self.metadata_cache.leaders = {A0: 1, A1: 2, B0: 1}
        self.purgatory = DelayedOperationPurgatory("txn-marker-purgatory", reaper_enabled=False, timer_enabled=False)
        self.network_client = FakeNetworkClient()
        self.channel = TransactionMarkerChannelManager(FakeConfig(), self.metadata_cache, self.network_client,
                                                       self.manager, self.purgatory, self.time)
        self.coordinator = TransactionCoordinator(0, TransactionConfig(transaction_log_num_partitions=NUM_PARTITIONS),
                                                  ImmediateScheduler(), FakeProducerIdManager(), self.manager,
                                                  self.channel, self.time)
        for p in range(NUM_PARTITIONS):
            self.coordinator.handle_txn_immigration(p, 1)

    def begin(self, partitions, txn_id="txn"):
        out = []
        self.coordinator.handle_init_producer_id(txn_id, 60_000, None, out.append)
        r = out[0]
        self.coordinator.handle_add_partitions_to_transaction(txn_id, r.producer_id, r.producer_epoch, partitions,
                                                              lambda e: None)
        return r

    def commit(self, r, txn_id="txn", result=True):
        from kafkalite.protocol.transaction_result import TransactionResult
        out = []
        self.coordinator.handle_end_transaction(txn_id, r.producer_id, r.producer_epoch,
                                                TransactionResult.for_id(result), out.append)
        assert out == [Errors.NONE]

    def requests(self):
        return {r.destination.id: r for r in self.channel.drain_queued_transaction_markers()}

    def metadata(self, txn_id="txn"):
        return self.manager.get_transaction_state(txn_id)[1].transaction_metadata


def respond(request, errors_by_partition=None, disconnected=False, default=Errors.NONE, version_mismatch=None):
    errors_by_partition = errors_by_partition or {}
    markers = []
    for m in request.request.markers:
        markers.append(W.WritableTxnMarkerResult(producer_id=m.producer_id, topics=[
            W.WritableTxnMarkerTopicResult(name=t.name, partitions=[
                W.WritableTxnMarkerPartitionResult(
                    partition_index=p,
                    error_code=errors_by_partition.get(TopicPartition(t.name, p), default).code)
                for p in t.partition_indexes]) for t in m.topics]))
    header = RequestHeader(api_key=ApiKeys.WRITE_TXN_MARKERS.id, api_version=1, correlation_id=1, client_id="c")
    body = None if disconnected else W.WriteTxnMarkersResponse(markers=markers)
    if version_mismatch is not None:
        body = None
    request.handler(ClientResponse(header, None, str(request.destination.id), 0, 0, disconnected, version_mismatch,
                                   body))


@pytest.fixture
def h():
    harness = Harness()
    yield harness
    harness.purgatory.shutdown()


def test_markers_are_grouped_per_partition_leader(h):
    r = h.begin({A0, A1, B0})
    h.commit(r)
    requests = h.requests()
    assert set(requests) == {1, 2}
    [m1] = requests[1].request.markers
    assert (m1.producer_id, m1.producer_epoch, m1.transaction_result, m1.coordinator_epoch) == \
        (r.producer_id, r.producer_epoch, True, 1)
    assert {(t.name, tuple(t.partition_indexes)) for t in m1.topics} == {("a", (0,)), ("b", (0,))}
    assert requests[2].request.markers[0].topics[0].partition_indexes == [1]
    assert requests[1].api_key is ApiKeys.WRITE_TXN_MARKERS and requests[1].destination == Node(1, "h1", 9091)
    assert h.network_client.wakeups > 0
    assert h.requests() == {}   # drained


def test_all_markers_written_completes_the_commit_in_the_log(h):
    r = h.begin({A0, A1})
    h.commit(r)
    requests = h.requests()
    respond(requests[1])
    assert h.metadata().state is PrepareCommit and h.metadata().topic_partitions == {A1}
    respond(requests[2])
    m = h.metadata()
    assert (m.state, m.topic_partitions, m.pending_state) == (CompleteCommit, set(), None)
    assert h.rm.records(h.manager.partition_for("txn"))[-1][1].state is CompleteCommit


def test_abort_markers_complete_abort(h):
    r = h.begin({A0})
    h.commit(r, result=False)
    [req] = h.requests().values()
    assert req.request.markers[0].transaction_result is False
    respond(req)
    assert h.metadata().state is CompleteAbort


def test_retriable_error_requeues_to_the_current_leader(h):
    r = h.begin({A0, B0})
    h.commit(r)
    [req] = h.requests().values()
    h.metadata_cache.leaders[A0] = 2   # leadership moved
    respond(req, {A0: Errors.NOT_LEADER_FOR_PARTITION})
    assert h.metadata().topic_partitions == {A0}
    again = h.requests()
    assert list(again) == [2] and again[2].request.markers[0].topics[0].name == "a"
    respond(again[2])
    assert h.metadata().state is CompleteCommit


def test_fenced_producer_stops_the_markers(h):
    r = h.begin({A0, B0})
    h.commit(r)
    [req] = h.requests().values()
    respond(req, {A0: Errors.INVALID_PRODUCER_EPOCH})
    m = h.metadata()
    assert m.state is PrepareCommit and m.topic_partitions == {A0}
    assert h.purgatory.watched() == 0 and h.requests() == {}


def test_disconnected_broker_gets_the_markers_again(h):
    r = h.begin({A0})
    h.commit(r)
    [req] = h.requests().values()
    respond(req, disconnected=True)
    [again] = h.requests().values()
    respond(again)
    assert h.metadata().state is CompleteCommit


def test_partition_without_any_leader_is_skipped(h):
    h.channel.topic_exists = {"a"}.__contains__            # ZooKeeper no longer holds topic "deleted"
    r = h.begin({A0, TopicPartition("deleted", 0)})
    h.commit(r)
    assert h.metadata().topic_partitions == {A0}
    respond(h.requests()[1])
    assert h.metadata().state is CompleteCommit


def test_partition_the_cache_does_not_know_yet_waits_while_its_topic_exists(h):
    # A restarted coordinator loads a PrepareCommit before the UpdateMetadata that names the data partitions:
    # the markers must wait for the leader, not be skipped (2.4 skips them and the partition's LSO never moves).
    h.channel.topic_exists = {"a"}.__contains__
    r = h.begin({A0})
    del h.metadata_cache.leaders[A0]
    h.commit(r)
    assert h.metadata().topic_partitions == {A0}, "the partition was dropped from the transaction"
    assert h.requests() == {} and h.channel.unknown_destination_queue_size() == 1
    assert h.channel.send_requests(h.time.milliseconds()) <= UNKNOWN_DESTINATION_RETRY_MS
    h.metadata_cache.leaders[A0] = 1                      # the UpdateMetadata arrives
    [req] = h.requests().values()
    respond(req)
    assert h.metadata().state is CompleteCommit


def test_leader_not_reachable_waits_in_the_unknown_broker_queue(h):
    r = h.begin({A0})
    del h.metadata_cache.alive[1]
    h.commit(r)
    assert h.requests() == {} and h.channel.unknown_destination_queue_size() == 1
    gauge = METRICS.get("kafka.coordinator.transaction:type=TransactionMarkerChannelManager,"
                        "name=UnknownDestinationQueueSize")
    assert gauge is not None and gauge.value() == 1
    h.metadata_cache.alive[1] = ("h1", 9091)
    [req] = h.requests().values()
    respond(req)
    assert h.metadata().state is CompleteCommit


def test_emigration_drops_queued_markers_and_cancels_the_wait(h):
    r = h.begin({A0})
    h.commit(r)
    h.coordinator.handle_txn_emigration(h.manager.partition_for("txn"), 1)
    assert h.requests() == {} and h.purgatory.watched() == 0


def test_log_append_failure_of_the_completion_is_retried(h):
    r = h.begin({A0})
    h.commit(r)
    [req] = h.requests().values()
    h.rm.fail_with = Errors.NOT_ENOUGH_REPLICAS
    respond(req)
    assert h.metadata().state is PrepareCommit and h.channel.log_append_retry_queue_size() == 1
    h.rm.fail_with = None
    h.requests()   # the sender thread retries the appends first
    assert h.metadata().state is CompleteCommit


class OneShotSender(InterBrokerSendThread):
    def __init__(self, client, requests):
        super().__init__("test-sender", client, MockTime())
        self.pending = requests

    def generate_requests(self):
        out, self.pending = self.pending, []
        return out

    @property
    def request_timeout_ms(self):
        return 1000


def test_inter_broker_send_thread_sends_to_ready_nodes_and_fails_unreachable_ones():
    client = FakeNetworkClient()
    node1, node2 = Node(1, "h1", 1), Node(2, "h2", 2)
    completed = []
    client.ready_nodes.add(1)
    client.failed.add(2)
    sender = OneShotSender(client, [RequestAndCompletionHandler(n, ApiKeys.WRITE_TXN_MARKERS,
                                                                W.WriteTxnMarkersRequest(markers=[]), completed.append)
                                    for n in (node1, node2)])
    sender.do_work()
    assert [r.destination for r in client.sent] == ["1"]
    assert [(c.destination, c.was_disconnected()) for c in completed] == [("2", True)]
    assert not sender.has_unsent_requests()


def test_inter_broker_send_thread_times_out_unsent_requests():
    client = FakeNetworkClient()
    completed = []
    sender = OneShotSender(client, [RequestAndCompletionHandler(Node(3, "h", 3), ApiKeys.WRITE_TXN_MARKERS,
                                                                W.WriteTxnMarkersRequest(markers=[]), completed.append)])
    sender.do_work()
    assert completed == [] and sender.has_unsent_requests()
    sender.time.sleep(1001)
    sender.do_work()
    assert len(completed) == 1 and completed[0].was_disconnected()


def test_broker_without_write_txn_markers_drops_its_partitions(h):
    r = h.begin({A0, A1})
    h.commit(r)
    requests = h.requests()
    respond(requests[1], version_mismatch=RuntimeError("no WriteTxnMarkers"))
    assert h.metadata().topic_partitions == {A1}
    respond(requests[2])
    assert h.metadata().state is CompleteCommit

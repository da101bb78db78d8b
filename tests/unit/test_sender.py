"""SenderTest: produce requests per leader, completion with offsets, retries of retriable errors, idempotent
retries that keep order, and a metadata refresh that moves a retried batch to the new leader.

Like Kafka's SenderTest with its MockClient, the network is a recording fake: ``send`` keeps the request and the
test answers it by running the request's callback with a ProduceResponse."""
import pytest

from kafkalite.clients.client_request import ClientRequest
from kafkalite.clients.client_response import ClientResponse
from kafkalite.clients.cluster import Cluster, PartitionInfo
from kafkalite.clients.metadata import Metadata
from kafkalite.clients.node import Node
from kafkalite.clients.producer.internals.buffer_pool import BufferPool
from kafkalite.clients.producer.internals.record_accumulator import RecordAccumulator
from kafkalite.clients.producer.internals.sender import Sender
from kafkalite.clients.producer.internals.transaction_manager import ProducerIdAndEpoch, TransactionManager
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.produce import PartitionProduceResponse, ProduceResponse, TopicProduceResponse
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.utils.time import MockTime

pytestmark = pytest.mark.timeout(30)

N0, N1 = Node(0, "h0", 1), Node(1, "h1", 2)


class FakeClient:
    def __init__(self, mock_time):
        self.time = mock_time
        self.requests: list[ClientRequest] = []
        self.correlation = 0

    def ready(self, node, now):
        return True

    def connection_delay(self, node, now):
        return 0

    def new_client_request(self, node_id, api_key, body, version=None, expect_response=True, callback=None,
                           created_time_ms=None, request_timeout_ms=None):
        self.correlation += 1
        return ClientRequest(node_id, api_key, body, self.correlation, "test", created_time_ms or 0,
                             expect_response, request_timeout_ms or 30000, callback, version)

    def send(self, request, now):
        self.requests.append(request)

    def poll(self, timeout, now):
        return []

    def wakeup(self):
        pass

    def in_flight_request_count(self, node_id=None):
        return 0

    def respond(self, request, errors=None, base_offset=0):
        """Answer every partition of ``request``; ``errors`` maps partition -> Errors."""
        errors = errors or {}
        topics = [TopicProduceResponse(name=t.name, partition_responses=[
            PartitionProduceResponse(index=p.index, error_code=errors.get(p.index, Errors.NONE).code,
                                     base_offset=-1 if errors.get(p.index) else base_offset)
            for p in t.partition_data]) for t in request.body.topic_data]
        header = RequestHeader(api_key=0, api_version=9, correlation_id=request.correlation_id, client_id="test")
        ClientResponse(header, request.callback, request.destination, 0, self.time.milliseconds(),
                       response_body=ProduceResponse(responses=topics)).on_complete()

    def disconnect_request(self, request):
        header = RequestHeader(api_key=0, api_version=9, correlation_id=request.correlation_id, client_id="test")
        ClientResponse(header, request.callback, request.destination, 0, 0, disconnected=True).on_complete()


def cluster(leader=N0, partitions=1):
    return Cluster("c", [N0, N1], [PartitionInfo("t", p, leader) for p in range(partitions)])


def setup(mock_time, retries=3, tm=None, max_in_flight=5):
    metadata = Metadata(100, 300_000, mock_time)
    metadata.cache = cluster()
    acc = RecordAccumulator(1024, linger_ms=0, retry_backoff_ms=100, delivery_timeout_ms=120_000,
                            free=BufferPool(16 * 1024, 1024, mock_time), time=mock_time, transaction_manager=tm)
    client = FakeClient(mock_time)
    sender = Sender(client, metadata, acc, max_in_flight == 1, 1 << 20, -1, retries, mock_time, 30000, 100, tm)
    return metadata, acc, client, sender


def send(acc, metadata, mock_time, value=b"v", partition=0):
    return acc.append("t", partition, mock_time.milliseconds(), None, value, [], None, 1000, mock_time.milliseconds(),
                      metadata.fetch()).future


def test_simple():
    # Kafka: SenderTest.testSimple
    mock_time = MockTime()
    metadata, acc, client, sender = setup(mock_time)
    future = send(acc, metadata, mock_time)
    sender.run_once()
    assert len(client.requests) == 1
    request = client.requests[0]
    assert request.api_key is ApiKeys.PRODUCE and request.destination == "0" and request.body.acks == -1
    records = MemoryRecords(request.body.topic_data[0].partition_data[0].records)
    assert [r.value for r in records.records()] == [b"v"]
    assert not future.is_done()
    client.respond(request, base_offset=42)
    assert future.get(1).offset == 42
    assert acc.free.available_memory() == 16 * 1024 and not acc.has_incomplete()


def test_one_request_per_node():
    mock_time = MockTime()
    metadata, acc, client, sender = setup(mock_time)
    metadata.cache = Cluster("c", [N0, N1], [PartitionInfo("t", 0, N0), PartitionInfo("t", 1, N1)])
    send(acc, metadata, mock_time, partition=0)
    send(acc, metadata, mock_time, partition=1)
    sender.run_once()
    assert sorted(r.destination for r in client.requests) == ["0", "1"]


def test_retries_then_fails_after_retries_are_used_up():
    # Kafka: SenderTest.testRetries
    mock_time = MockTime()
    metadata, acc, client, sender = setup(mock_time, retries=1)
    future = send(acc, metadata, mock_time)
    sender.run_once()
    client.respond(client.requests[-1], {0: Errors.NOT_ENOUGH_REPLICAS})
    assert not future.is_done() and len(acc.get_deque(client_tp())) == 1    # back in the queue
    sender.run_once()
    assert len(client.requests) == 1                                       # still backing off
    mock_time.sleep(100)
    sender.run_once()
    assert len(client.requests) == 2
    client.respond(client.requests[-1], {0: Errors.NOT_ENOUGH_REPLICAS})
    assert future.is_done()
    with pytest.raises(Errors.NOT_ENOUGH_REPLICAS.exception_class):
        future.get(1)


def test_non_retriable_error_fails_at_once():
    mock_time = MockTime()
    metadata, acc, client, sender = setup(mock_time)
    future = send(acc, metadata, mock_time)
    sender.run_once()
    client.respond(client.requests[-1], {0: Errors.MESSAGE_TOO_LARGE})
    with pytest.raises(Errors.MESSAGE_TOO_LARGE.exception_class):
        future.get(1)


def test_disconnect_is_retried():
    mock_time = MockTime()
    metadata, acc, client, sender = setup(mock_time)
    future = send(acc, metadata, mock_time)
    sender.run_once()
    client.disconnect_request(client.requests[-1])
    assert not future.is_done() and metadata.need_full_update
    mock_time.sleep(100)
    sender.run_once()
    client.respond(client.requests[-1], base_offset=5)
    assert future.get(1).offset == 5


def test_metadata_refresh_on_leader_change_moves_the_retry():
    mock_time = MockTime()
    metadata, acc, client, sender = setup(mock_time)
    future = send(acc, metadata, mock_time)
    sender.run_once()
    metadata.need_full_update = False
    client.respond(client.requests[-1], {0: Errors.NOT_LEADER_FOR_PARTITION})
    assert metadata.need_full_update                          # the error asked for fresh metadata
    metadata.cache = cluster(leader=N1)                       # ... which names the new leader
    mock_time.sleep(100)
    sender.run_once()
    assert client.requests[-1].destination == "1"
    client.respond(client.requests[-1], base_offset=7)
    assert future.get(1).offset == 7


def test_idempotent_retries_keep_order():
    # Kafka: SenderTest.testIdempotenceWithMultipleInflights... -- seq 0 fails retriably, seq 1 is refused as out
    # of order; both are retried, the first alone first, and the records land in send order
    mock_time = MockTime()
    tm = TransactionManager()
    tm.set_producer_id_and_epoch(ProducerIdAndEpoch(1000, 0))
    metadata, acc, client, sender = setup(mock_time, tm=tm)
    first = send(acc, metadata, mock_time, b"a")
    sender.run_once()
    second = send(acc, metadata, mock_time, b"b")
    sender.run_once()
    r1, r2 = client.requests
    assert [batch_of(r).base_sequence for r in (r1, r2)] == [0, 1]
    client.respond(r1, {0: Errors.NOT_ENOUGH_REPLICAS})
    client.respond(r2, {0: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER})
    assert not first.is_done() and not second.is_done()
    mock_time.sleep(100)
    sender.run_once()
    assert len(client.requests) == 3 and batch_of(client.requests[2]).base_sequence == 0   # only seq 0
    client.respond(client.requests[2], base_offset=0)
    sender.run_once()
    assert batch_of(client.requests[3]).base_sequence == 1 and batch_of(client.requests[3]).producer_id == 1000
    client.respond(client.requests[3], base_offset=1)
    assert (first.get(1).offset, second.get(1).offset) == (0, 1)
    assert tm.last_acked_sequence_for(client_tp()) == 1


def test_duplicate_sequence_counts_as_success():
    mock_time = MockTime()
    tm = TransactionManager()
    tm.set_producer_id_and_epoch(ProducerIdAndEpoch(5, 0))
    metadata, acc, client, sender = setup(mock_time, tm=tm)
    future = send(acc, metadata, mock_time)
    sender.run_once()
    client.respond(client.requests[-1], {0: Errors.DUPLICATE_SEQUENCE_NUMBER})
    assert future.is_done() and future.exception() is None


def test_max_in_flight_one_mutes_the_partition():
    mock_time = MockTime()
    metadata, acc, client, sender = setup(mock_time, max_in_flight=1)
    send(acc, metadata, mock_time)
    sender.run_once()
    send(acc, metadata, mock_time)
    sender.run_once()
    assert len(client.requests) == 1                          # muted until the answer
    client.respond(client.requests[0])
    sender.run_once()
    assert len(client.requests) == 2


def test_thread_name():
    mock_time = MockTime()
    _, acc, client, _ = setup(mock_time)
    sender = Sender(client, Metadata(), acc, False, 1, -1, 0, client_id="my-client")
    assert sender.thread.name == "kafka-producer-network-thread | my-client"


def batch_of(request):
    from kafkalite.record.default_record_batch import DefaultRecordBatch
    return DefaultRecordBatch(request.body.topic_data[0].partition_data[0].records)


def client_tp():
    from kafkalite.common.topic_partition import TopicPartition
    return TopicPartition("t", 0)

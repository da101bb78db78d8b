"""No Kafka counterpart (Kafka's TransactionsTest.testSendOffsetsWithGroupId is the nearest): a
consume-transform-produce step with confluent-kafka (librdkafka) -- the transactional producer's
``send_offsets_to_transaction`` sends TxnOffsetCommit to the group coordinator, and the group's
committed offset changes only when ``commit_transaction`` has had its markers written, never on
``abort_transaction``.

A second test plays the transaction coordinator by hand on the wire against an in-process broker
(TxnOffsetCommit, then WriteTxnMarkers to ``__consumer_offsets``, then OffsetFetch with and without
``require_stable``), and restarts the broker to check that loading ``__consumer_offsets`` replays
committed, aborted and still-open transactions the same way.

The committed offset is read by a separate read_uncommitted consumer of the same group (its
OffsetFetch does not ask for stable offsets, so it sees exactly what the coordinator has made
visible); a read_committed consumer's OffsetFetch asks for stable offsets (KIP-447) and must see the
same value once the transaction is over.
"""
import itertools
import uuid

import pytest

from harness import InProcessBroker, RawConnection, wait_until
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import find_coordinator, offset_fetch, txn_offset_commit as toc, write_txn_markers as wtm
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import parse_response, serialize_request

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka import TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

TIMEOUT = 30


def create_topics(bootstrap, *names):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(n, num_partitions=1, replication_factor=1) for n in names],
                                      operation_timeout=10).values():
        future.result(timeout=TIMEOUT)


def produce_plain(bootstrap, topic, values):
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap})
    for v in values:
        producer.produce(topic, value=v)
    assert producer.flush(TIMEOUT) == 0


def committed_offset(bootstrap, group, topic, isolation="read_uncommitted"):
    """The group's committed offset of partition 0 as OffsetFetch answers it (-1001: none)."""
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                                  "isolation.level": isolation, "enable.auto.commit": False})
    try:
        [tp] = c.committed([TopicPartition(topic, 0)], timeout=TIMEOUT)
        return tp.offset
    finally:
        c.close()


def consume(consumer, count):
    got = []

    def more():
        msg = consumer.poll(0.2)
        if msg is not None and msg.error() is None:
            got.append(msg)
        return len(got) >= count
    wait_until(more, TIMEOUT, f"{count} records")
    return got


def test_send_offsets_to_transaction_visible_on_commit_only(fresh_broker):
    bootstrap = fresh_broker.bootstrap
    suffix = uuid.uuid4().hex[:8]
    source, sink, group = f"txn-in-{suffix}", f"txn-out-{suffix}", f"txn-group-{suffix}"
    create_topics(bootstrap, source, sink)
    produce_plain(bootstrap, source, [f"in-{i}".encode() for i in range(10)])

    consumer = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                                         "auto.offset.reset": "earliest", "enable.auto.commit": False,
                                         "isolation.level": "read_committed"})
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "transactional.id": f"txn-{suffix}",
                                         "transaction.timeout.ms": 60000})
    try:
        consumer.subscribe([source])
        records = consume(consumer, 10)
        producer.init_transactions(TIMEOUT)

        # 1. commit: the offsets become the group's committed offset, only once the transaction commits
        producer.begin_transaction()
        for r in records:
            producer.produce(sink, value=r.value().upper())
        producer.send_offsets_to_transaction([TopicPartition(source, 0, records[-1].offset() + 1)],
                                             consumer.consumer_group_metadata(), TIMEOUT)
        assert committed_offset(bootstrap, group, source) == confluent_kafka.OFFSET_INVALID
        producer.commit_transaction(TIMEOUT)
        assert wait_until(lambda: committed_offset(bootstrap, group, source) == 10, TIMEOUT,
                          "the committed transaction's offset")
        assert committed_offset(bootstrap, group, source, "read_committed") == 10

        # 2. abort: the offsets sent in the transaction are dropped; the committed offset stays
        produce_plain(bootstrap, source, [f"in-{i}".encode() for i in range(10, 15)])
        more = consume(consumer, 5)
        producer.begin_transaction()
        producer.produce(sink, value=b"never")
        producer.send_offsets_to_transaction([TopicPartition(source, 0, more[-1].offset() + 1)],
                                             consumer.consumer_group_metadata(), TIMEOUT)
        producer.abort_transaction(TIMEOUT)
        # a read_committed OffsetFetch waits for stable offsets: once answered, the abort has been applied
        assert committed_offset(bootstrap, group, source, "read_committed") == 10
        assert committed_offset(bootstrap, group, source) == 10

        # 3. and a later commit of the same group still works
        producer.begin_transaction()
        producer.send_offsets_to_transaction([TopicPartition(source, 0, 15)], consumer.consumer_group_metadata(),
                                             TIMEOUT)
        producer.commit_transaction(TIMEOUT)
        assert committed_offset(bootstrap, group, source, "read_committed") == 15
    finally:
        consumer.close()


# ---------------------------------------------------------------- the group side on the wire, markers by hand
_correlation = itertools.count(1)


def call(conn, api: ApiKeys, version: int, body):
    header = RequestHeader(api_key=api.id, api_version=version, correlation_id=next(_correlation),
                           client_id="txn-offsets-test")
    conn.send_frame(serialize_request(header, body))
    correlation_id, response = parse_response(api, version, conn.recv_frame())
    assert correlation_id == header.correlation_id
    return response


def txn_offset_commit(conn, group, producer_id, topic, offset):
    body = toc.TxnOffsetCommitRequest(
        transactional_id=f"t-{producer_id}", group_id=group, producer_id=producer_id, producer_epoch=0,
        generation_id=-1, member_id="", group_instance_id=None, topics=[toc.TxnOffsetCommitRequestTopic(
            name=topic, partitions=[toc.TxnOffsetCommitRequestPartition(
                partition_index=0, committed_offset=offset, committed_leader_epoch=-1, committed_metadata="")])])
    response = call(conn, ApiKeys.TXN_OFFSET_COMMIT, 3, body)
    return Errors.for_code(response.topics[0].partitions[0].error_code)


def write_marker(conn, producer_id, commit: bool):
    body = wtm.WriteTxnMarkersRequest(markers=[wtm.WritableTxnMarker(
        producer_id=producer_id, producer_epoch=0, transaction_result=commit, coordinator_epoch=0,
        topics=[wtm.WritableTxnMarkerTopic(name="__consumer_offsets", partition_indexes=[0])])])
    response = call(conn, ApiKeys.WRITE_TXN_MARKERS, 1, body)
    return Errors.for_code(response.markers[0].topics[0].partitions[0].error_code)


def offset_fetch_of(conn, group, topic, require_stable):
    body = offset_fetch.OffsetFetchRequest(group_id=group, require_stable=require_stable, topics=[
        offset_fetch.OffsetFetchRequestTopic(name=topic, partition_indexes=[0])])
    response = call(conn, ApiKeys.OFFSET_FETCH, 7, body)
    assert response.error_code == 0
    p = response.topics[0].partitions[0]
    return p.committed_offset, Errors.for_code(p.error_code)


def coordinator_ready(conn, group):
    response = call(conn, ApiKeys.FIND_COORDINATOR, 2, find_coordinator.FindCoordinatorRequest(key=group, key_type=0))
    return response.error_code == 0


def test_markers_on_consumer_offsets_complete_pending_offsets_and_survive_a_restart(tmp_path):
    props = {"offsets.topic.num.partitions": "1", "offsets.topic.replication.factor": "1"}
    topic, group = "source", "txn-group"
    committed, aborted, open_ = 4001, 4002, 4003
    broker = InProcessBroker(tmp_path / "kafka-logs", props).start()
    try:
        create_topics(broker.bootstrap, topic)
        with RawConnection(broker.port) as conn:
            wait_until(lambda: coordinator_ready(conn, group), TIMEOUT, "the group coordinator")
            wait_until(lambda: txn_offset_commit(conn, group, committed, topic, 10) is Errors.NONE, TIMEOUT,
                       "the first TxnOffsetCommit")
            assert offset_fetch_of(conn, group, topic, False) == (-1, Errors.NONE)
            assert offset_fetch_of(conn, group, topic, True) == (-1, Errors.UNSTABLE_OFFSET_COMMIT)
            assert write_marker(conn, committed, commit=True) is Errors.NONE
            # the marker's completion runs on the group-metadata-manager scheduler thread
            wait_until(lambda: offset_fetch_of(conn, group, topic, True) == (10, Errors.NONE), TIMEOUT,
                       "the committed offset")

            assert txn_offset_commit(conn, group, aborted, topic, 20) is Errors.NONE
            assert write_marker(conn, aborted, commit=False) is Errors.NONE
            wait_until(lambda: offset_fetch_of(conn, group, topic, True) == (10, Errors.NONE), TIMEOUT,
                       "the aborted offset dropped")

            assert txn_offset_commit(conn, group, open_, topic, 30) is Errors.NONE   # no marker before the restart
    finally:
        broker.stop()

    broker = InProcessBroker(tmp_path / "kafka-logs", props).start()
    try:
        with RawConnection(broker.port) as conn:
            wait_until(lambda: offset_fetch_of(conn, group, topic, False) == (10, Errors.NONE), TIMEOUT,
                       "offsets loaded from __consumer_offsets")
            assert offset_fetch_of(conn, group, topic, True) == (-1, Errors.UNSTABLE_OFFSET_COMMIT)
            assert write_marker(conn, open_, commit=True) is Errors.NONE
            wait_until(lambda: offset_fetch_of(conn, group, topic, True) == (30, Errors.NONE), TIMEOUT,
                       "the transaction left open before the restart, committed after it")
    finally:
        broker.stop()


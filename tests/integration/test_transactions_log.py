"""Mirrors Kafka's TransactionsTest / LogTest end to end, for the log side of transactions (issue 15).

The transaction coordinator is not part of this test: transactions are written with raw requests as
a transactional producer and its coordinator would write them -- a Produce carrying a transactional
batch (kafkalite's MemoryRecords builder, ``is_transactional=True``, a producer id and epoch), then a
WriteTxnMarkers (a cluster action) with COMMIT or ABORT. Checked: a read_committed Fetch sees a
transaction's records only after COMMIT and never after ABORT (listed in aborted_transactions); the
last stable offset stays at the first open transaction's first offset and moves with the marker (also
in ListOffsets with isolation level 1, and a parked read_committed fetch completes on the marker); a
zombie marker with an old producer epoch is refused; DescribeProducers shows the open transaction;
read_committed consumers of confluent-kafka, kafka-python and kcat skip an aborted transaction and
see a committed one; after a clean restart and a kill -9 the ``.txnindex`` and the LSO are right (an
open transaction still holds the LSO), and recovery of a corrupt tail rebuilds a lost index.
"""
import subprocess
import threading
import time
from pathlib import Path

import pytest

import clients
from harness import RawConnection, wait_until
from kafkalite.log.transaction_index import TransactionIndex
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import describe_producers as dp
from kafkalite.protocol.messages import write_txn_markers as wtm
from kafkalite.protocol.messages.fetch import FetchPartition, FetchRequest, FetchTopic
from kafkalite.protocol.messages.list_offsets import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from kafkalite.protocol.messages.produce import PartitionProduceData, ProduceRequest, TopicProduceData
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord

PRODUCE, FETCH, LIST_OFFSETS, WRITE_TXN_MARKERS, DESCRIBE_PRODUCERS = 0, 1, 2, 27, 61
READ_UNCOMMITTED, READ_COMMITTED = 0, 1


class RawTxnProducer:
    """One transactional producer's batches (producer id, epoch, sequence numbers), sent with raw Produce."""

    def __init__(self, conn, topic, producer_id, epoch=0, transactional_id=None):
        self.conn, self.topic, self.producer_id, self.epoch, self.seq = conn, topic, producer_id, epoch, 0
        self.transactional_id = transactional_id or f"txn-{producer_id}"

    def send(self, *values, partition=0, transactional=True):
        now = int(time.time() * 1000)
        records = MemoryRecords.with_records(
            *[SimpleRecord(now, None, v) for v in values], producer_id=self.producer_id,
            producer_epoch=self.epoch, base_sequence=self.seq, is_transactional=transactional)
        self.seq += len(values)
        body = ProduceRequest(transactional_id=self.transactional_id if transactional else None, acks=-1,
                              timeout_ms=10000, topic_data=[TopicProduceData(name=self.topic, partition_data=[
                                  PartitionProduceData(index=partition, records=bytes(records.buffer))])])
        [t] = clients.raw_request(self.conn, PRODUCE, 7, body).responses
        [p] = t.partition_responses
        assert p.error_code == 0, Errors.for_code(p.error_code)
        return p.base_offset

    def end(self, commit, partitions=(0,), epoch=None, coordinator_epoch=0):
        return write_markers(self.conn, [(self.producer_id, self.epoch if epoch is None else epoch, commit,
                                          coordinator_epoch, self.topic, list(partitions))])


def write_markers(conn, markers, version=1):
    body = wtm.WriteTxnMarkersRequest(markers=[
        wtm.WritableTxnMarker(producer_id=pid, producer_epoch=epoch, transaction_result=commit,
                              coordinator_epoch=coordinator_epoch,
                              topics=[wtm.WritableTxnMarkerTopic(name=topic, partition_indexes=partitions)])
        for pid, epoch, commit, coordinator_epoch, topic, partitions in markers])
    response = clients.raw_request(conn, WRITE_TXN_MARKERS, version, body)
    return {(m.producer_id, p.partition_index): Errors.for_code(p.error_code)
            for m in response.markers for t in m.topics for p in t.partitions}


def fetch(conn, topic, isolation, offset=0, max_wait_ms=0, min_bytes=1, version=11, correlation_id=1, check=True):
    body = FetchRequest(replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=1 << 20,
                        isolation_level=isolation, session_id=0, session_epoch=-1, forgotten_topics_data=[],
                        rack_id="", topics=[FetchTopic(topic=topic, partitions=[
                            FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=1 << 20)])])
    [t] = clients.raw_request(conn, FETCH, version, body, correlation_id).responses
    [p] = t.partitions
    assert not check or p.error_code == 0, Errors.for_code(p.error_code)
    return p


def data_values(partition_data):
    """Values of the data records (control batches left out), as a consumer would see them before filtering."""
    if not partition_data.records:
        return []
    return [bytes(r.value) for b in MemoryRecords(bytearray(partition_data.records)).batches()
            if not b.is_control_batch for r in b]


def latest_offset(conn, topic, isolation):
    body = ListOffsetsRequest(replica_id=-1, isolation_level=isolation, topics=[
        ListOffsetsTopic(name=topic, partitions=[ListOffsetsPartition(partition_index=0, timestamp=-1)])])
    [t] = clients.raw_request(conn, LIST_OFFSETS, 5, body).topics
    [p] = t.partitions
    assert p.error_code == 0
    return p.offset


def aborted(partition_data):
    if partition_data.aborted_transactions is None:
        return None
    return [(a.producer_id, a.first_offset) for a in partition_data.aborted_transactions]


def test_read_committed_fetch_follows_markers(broker, unique_topic):
    clients.create_topic(broker.bootstrap, unique_topic, 1)
    conn = RawConnection(broker.port, timeout=30)
    try:
        clients.raw_produce(conn, unique_topic, {0: clients.build_batch([b"plain"])}, acks=-1)   # offset 0
        a, b = RawTxnProducer(conn, unique_topic, 4242), RawTxnProducer(conn, unique_topic, 4243)
        assert a.send(b"a1", b"a2") == 1                                                          # 1-2
        assert b.send(b"b1") == 3                                                                 # 3

        rc = fetch(conn, unique_topic, READ_COMMITTED)
        assert (rc.high_watermark, rc.last_stable_offset) == (4, 1)
        assert data_values(rc) == [b"plain"] and aborted(rc) == []
        ru = fetch(conn, unique_topic, READ_UNCOMMITTED)
        assert ru.last_stable_offset == 1 and data_values(ru) == [b"plain", b"a1", b"a2", b"b1"]
        assert aborted(ru) is None
        assert latest_offset(conn, unique_topic, READ_COMMITTED) == 1
        assert latest_offset(conn, unique_topic, READ_UNCOMMITTED) == 4

        # DescribeProducers shows both open transactions
        body = dp.DescribeProducersRequest(topics=[dp.TopicRequest(name=unique_topic, partition_indexes=[0])])
        [t] = clients.raw_request(conn, DESCRIBE_PRODUCERS, 0, body).topics
        [p] = t.partitions
        assert {(s.producer_id, s.current_txn_start_offset, s.last_sequence) for s in p.active_producers} == \
            {(4242, 1, 1), (4243, 3, 0)}

        assert a.end(commit=True) == {(4242, 0): Errors.NONE}                                    # marker at 4
        rc = fetch(conn, unique_topic, READ_COMMITTED)
        assert rc.last_stable_offset == 3 and data_values(rc) == [b"plain", b"a1", b"a2"]

        assert b.end(commit=False) == {(4243, 0): Errors.NONE}                                   # marker at 5
        rc = fetch(conn, unique_topic, READ_COMMITTED)
        assert rc.last_stable_offset == rc.high_watermark == 6
        assert aborted(rc) == [(4243, 3)]
        assert latest_offset(conn, unique_topic, READ_COMMITTED) == 6
        # reading from past the aborted transaction, it is no longer listed
        assert aborted(fetch(conn, unique_topic, READ_COMMITTED, offset=6)) == []
    finally:
        conn.close()


def test_zombie_marker_and_unknown_partition_are_refused(broker, unique_topic):
    clients.create_topic(broker.bootstrap, unique_topic, 1)
    with RawConnection(broker.port, timeout=30) as conn:
        p = RawTxnProducer(conn, unique_topic, 5150, epoch=3)
        p.send(b"x")
        assert p.end(commit=True, epoch=2) == {(5150, 0): Errors.INVALID_PRODUCER_EPOCH}
        assert p.end(commit=True, partitions=(7,)) == {(5150, 7): Errors.UNKNOWN_TOPIC_OR_PARTITION}
        assert fetch(conn, unique_topic, READ_COMMITTED).last_stable_offset == 0      # still open
        assert p.end(commit=True, coordinator_epoch=9) == {(5150, 0): Errors.NONE}
        p.send(b"y")
        assert p.end(commit=False, coordinator_epoch=8) == {(5150, 0): Errors.TRANSACTION_COORDINATOR_FENCED}
        assert p.end(commit=False, coordinator_epoch=9) == {(5150, 0): Errors.NONE}
        rc = fetch(conn, unique_topic, READ_COMMITTED)
        assert rc.last_stable_offset == rc.high_watermark == 4 and aborted(rc) == [(5150, 2)]


def test_parked_read_committed_fetch_completes_on_the_marker(inproc_broker, unique_topic):
    b = inproc_broker
    clients.create_topic(b.bootstrap, unique_topic, 1)
    purgatory = b.server.replica_manager.delayed_fetch_purgatory
    with RawConnection(b.port, timeout=30) as conn, RawConnection(b.port, timeout=30) as waiter:
        p = RawTxnProducer(conn, unique_topic, 6160)
        p.send(b"t1", b"t2")
        got = {}

        def long_poll():
            # waits up to 60 s: only the marker (which moves the LSO) can answer it within the 30 s socket timeout
            got["p"] = fetch(waiter, unique_topic, READ_COMMITTED, max_wait_ms=60000, min_bytes=1)
        t = threading.Thread(target=long_poll)
        t.start()
        try:
            # nothing is readable below the LSO: the fetch parks in the purgatory
            wait_until(lambda: purgatory.num_delayed() == 1, 20, "the read_committed fetch to park")
            assert "p" not in got
            p.end(commit=True)
        finally:
            t.join(40)
        assert "p" in got, "the parked read_committed fetch did not complete on the COMMIT marker"
        assert data_values(got["p"]) == [b"t1", b"t2"] and got["p"].last_stable_offset == 3


def _write_mixed_transactions(bootstrap, port, topic):
    """An aborted transaction, a committed one, then a plain record: what read_committed readers must see."""
    clients.create_topic(bootstrap, topic, 1)
    with RawConnection(port, timeout=30) as conn:
        aborted_p, committed_p = RawTxnProducer(conn, topic, 7001), RawTxnProducer(conn, topic, 7002)
        aborted_p.send(b"x1", b"x2")
        committed_p.send(b"c1")
        committed_p.send(b"c2", b"c3")
        assert aborted_p.end(commit=False) == {(7001, 0): Errors.NONE}
        assert committed_p.end(commit=True) == {(7002, 0): Errors.NONE}
        clients.raw_produce(conn, topic, {0: clients.build_batch([b"p1"])}, acks=-1)
    return [b"c1", b"c2", b"c3", b"p1"], [b"x1", b"x2", b"c1", b"c2", b"c3", b"p1"]


def test_confluent_read_committed_skips_aborted(broker, unique_topic):
    committed, everything = _write_mixed_transactions(broker.bootstrap, broker.port, unique_topic)
    got = clients.read_confluent(broker.bootstrap, unique_topic, [0], len(committed), timeout=30,
                                 config={"isolation.level": "read_committed"})
    assert [c.value for c in got] == committed
    got = clients.read_confluent(broker.bootstrap, unique_topic, [0], len(everything), timeout=30,
                                 config={"isolation.level": "read_uncommitted"})
    assert [c.value for c in got] == everything      # every data record, no marker


def test_kafka_python_read_committed_skips_aborted(broker, unique_topic):
    from kafka import KafkaConsumer, TopicPartition as KpTp
    committed, everything = _write_mixed_transactions(broker.bootstrap, broker.port, unique_topic)
    for isolation, expected in (("read_committed", committed), ("read_uncommitted", everything)):
        consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, group_id=None, enable_auto_commit=False,
                                 isolation_level=isolation)
        try:
            tp = KpTp(unique_topic, 0)
            consumer.assign([tp])
            consumer.seek(tp, 0)
            out, deadline = [], time.monotonic() + 30
            while len(out) < len(expected) and time.monotonic() < deadline:
                for batch in consumer.poll(timeout_ms=500).values():
                    out += [m.value for m in batch]
            assert out == expected, isolation
        finally:
            consumer.close()


def test_kcat_read_committed_skips_aborted(broker, unique_topic):
    committed, everything = _write_mixed_transactions(broker.bootstrap, broker.port, unique_topic)
    for isolation, expected in (("read_committed", committed), ("read_uncommitted", everything)):
        proc = subprocess.run(["kcat", "-C", "-b", broker.bootstrap, "-t", unique_topic, "-o", "beginning", "-e",
                               "-q", "-f", "%s\\n", "-X", f"isolation.level={isolation}"],
                              capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert proc.stdout.split() == [v.decode() for v in expected], isolation


def _txn_index_entries(log_dirs: Path, topic: str):
    out = []
    for f in sorted((log_dirs / f"{topic}-0").glob("*.txnindex")):
        idx = TransactionIndex(int(f.name.split(".")[0]), str(f))
        out += [(t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset) for t in idx.all_aborted_txns()]
        idx.close()
    return out


def _rc_state(broker, topic, expected_lso):
    """The read_committed view once the broker is back: (LSO, HW, aborted list, values)."""
    with RawConnection(broker.port, timeout=30) as conn:
        wait_until(lambda: fetch(conn, topic, READ_COMMITTED).last_stable_offset == expected_lso, 20,
                   f"the LSO of {topic} to be {expected_lso}")
        rc = fetch(conn, topic, READ_COMMITTED)
        return rc.last_stable_offset, rc.high_watermark, aborted(rc), data_values(rc)


@pytest.mark.slow
def test_txn_index_and_lso_survive_clean_restart_and_kill_9(broker_factory, unique_topic):
    b = broker_factory()
    clients.create_topic(b.bootstrap, unique_topic, 1)
    with RawConnection(b.port, timeout=30) as conn:
        ab, op = RawTxnProducer(conn, unique_topic, 8001), RawTxnProducer(conn, unique_topic, 8002)
        ab.send(b"gone")                     # 0
        assert ab.end(commit=False) == {(8001, 0): Errors.NONE}     # 1
        clients.raw_produce(conn, unique_topic, {0: clients.build_batch([b"kept"])}, acks=-1)   # 2
        op.send(b"open")                     # 3: stays open across the restarts
        clients.raw_produce(conn, unique_topic, {0: clients.build_batch([b"after"])}, acks=-1)  # 4
    entries = [(8001, 0, 1, 2)]
    assert _txn_index_entries(b.log_dirs, unique_topic) == entries
    expected = (3, 5, [(8001, 0)], [b"gone", b"kept"])
    assert _rc_state(b, unique_topic, 3) == expected

    assert b.stop() == 0
    b.start()
    assert _rc_state(b, unique_topic, 3) == expected
    assert _txn_index_entries(b.log_dirs, unique_topic) == entries

    b.kill9()
    b.start()
    assert _rc_state(b, unique_topic, 3) == expected
    with RawConnection(b.port, timeout=30) as conn:
        assert write_markers(conn, [(8002, 0, False, 0, unique_topic, [0])]) == {(8002, 0): Errors.NONE}  # 5
        rc = fetch(conn, unique_topic, READ_COMMITTED)
        assert rc.last_stable_offset == rc.high_watermark == 6
        assert aborted(rc) == [(8001, 0), (8002, 3)]
    assert _txn_index_entries(b.log_dirs, unique_topic) == entries + [(8002, 3, 5, 6)]


@pytest.mark.slow
def test_recovery_of_corrupt_tail_rebuilds_txn_index(broker_factory, unique_topic):
    b = broker_factory()
    clients.create_topic(b.bootstrap, unique_topic, 1)
    with RawConnection(b.port, timeout=30) as conn:
        p1, p2 = RawTxnProducer(conn, unique_topic, 9001), RawTxnProducer(conn, unique_topic, 9002)
        p1.send(b"a")                        # 0
        p2.send(b"b")                        # 1
        assert p2.end(commit=False) == {(9002, 0): Errors.NONE}     # 2: aborted while p1 is open at 0
        assert p1.end(commit=False) == {(9001, 0): Errors.NONE}     # 3
    entries = [(9002, 1, 2, 0), (9001, 0, 3, 4)]
    assert _txn_index_entries(b.log_dirs, unique_topic) == entries
    b.kill9()
    part = b.log_dirs / f"{unique_topic}-0"
    for f in part.glob("*.txnindex"):
        f.unlink()
    [segment] = part.glob("*.log")
    size = segment.stat().st_size
    with open(segment, "ab") as f:
        f.write(b"\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x30garbage-after-a-crash")
    offset = b.log_size()
    b.start()
    assert _rc_state(b, unique_topic, 4) == (4, 4, [(9002, 1), (9001, 0)], [b"a", b"b"])
    assert _txn_index_entries(b.log_dirs, unique_topic) == entries
    assert segment.stat().st_size == size
    assert "invalid bytes" in b.log_text(offset)


def test_follower_that_becomes_leader_keeps_transaction_state(kafka_cluster_factory, unique_topic):
    """Replicated appends build the same producer state and .txnindex: after the leader goes, the new
    leader's LSO is still held by the open transaction, the aborted one is still listed, and a marker
    to the new leader completes the open one."""
    from kafkalite.common.topic_partition import TopicPartition
    cluster = kafka_cluster_factory(2, replication_factor=2)
    clients.create_topic(cluster.bootstrap_servers, unique_topic, 1, replication_factor=2)
    tp = TopicPartition(unique_topic, 0)

    def leader_index():
        for i, b in enumerate(cluster.brokers):
            p = b.server is not None and b.server.replica_manager.get_partition(tp)
            if p and p.is_leader():
                return i
        return None
    wait_until(lambda: leader_index() is not None, 20, "a leader")
    old = leader_index()
    leader, follower = cluster.brokers[old], cluster.brokers[1 - old]
    with RawConnection(leader.port, timeout=30) as conn:
        ab, op = RawTxnProducer(conn, unique_topic, 3301), RawTxnProducer(conn, unique_topic, 3302)
        ab.send(b"gone")                                            # 0
        op.send(b"open")                                            # 1
        assert ab.end(commit=False) == {(3301, 0): Errors.NONE}     # 2
    leader_log = leader.server.replica_manager.local_log(tp)
    follower_log = lambda: follower.server.replica_manager.local_log(tp)  # noqa: E731
    wait_until(lambda: follower_log() is not None and follower_log().log_end_offset == 3
               and follower_log().high_watermark == 3, 20, "the follower to catch up")
    assert follower_log().last_stable_offset == leader_log.last_stable_offset == 1
    assert follower_log().active_segment.txn_index.all_aborted_txns() == \
        leader_log.active_segment.txn_index.all_aborted_txns()

    leader.stop()
    wait_until(lambda: leader_index() == 1 - old, 30, "the follower to become leader")
    with RawConnection(follower.port, timeout=30) as conn:
        wait_until(lambda: fetch(conn, unique_topic, READ_COMMITTED, check=False).error_code == 0, 20, "the new leader to serve")
        rc = fetch(conn, unique_topic, READ_COMMITTED)
        assert (rc.last_stable_offset, rc.high_watermark, aborted(rc)) == (1, 3, [(3301, 0)])
        assert write_markers(conn, [(3302, 0, True, 0, unique_topic, [0])]) == {(3302, 0): Errors.NONE}
        rc = fetch(conn, unique_topic, READ_COMMITTED)
        assert rc.last_stable_offset == rc.high_watermark == 4
        assert data_values(rc) == [b"gone", b"open"] and aborted(rc) == [(3301, 0)]


def test_transactional_batch_without_transactional_id_is_refused(broker, unique_topic):
    clients.create_topic(broker.bootstrap, unique_topic, 1)
    with RawConnection(broker.port, timeout=30) as conn:
        records = MemoryRecords.with_records(SimpleRecord(int(time.time() * 1000), None, b"v"), producer_id=77,
                                             producer_epoch=0, base_sequence=0, is_transactional=True)
        responses = clients.raw_produce(conn, unique_topic, {0: records.buffer}, acks=-1)
        assert Errors.for_code(responses[0].error_code) is Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        assert fetch(conn, unique_topic, READ_UNCOMMITTED).high_watermark == 0

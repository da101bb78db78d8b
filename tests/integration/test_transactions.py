"""Mirrors Kafka 2.4's transaction integration tests (core/src/test/scala/integration/kafka/api/
TransactionsTest.scala: ``testBasicTransactions``, ``testSendOffsets``, ``testFencingOnCommit``,
``testFencingOnSend``, ``testFencingOnTransactionExpiration``, and TransactionsBounceTest's broker restarts)
with the real clients users run instead of the Java producer: kafka-python, confluent-kafka (librdkafka) and
aiokafka transactional producers; confluent-kafka, kafka-python and kcat consumers at both isolation levels.

- One transaction writes three topics and commits a group's offsets (``send_offsets_to_transaction``), a second
  does the same and aborts: read_committed readers see exactly the first one's records, read_uncommitted ones
  every data record of both and no control record (each partition's high watermark counts one marker per
  transaction beside the data), the group's committed offset moves with the committed transaction only and is
  invisible while it is open.
- A zombie (same ``transactional.id``, older epoch) is fenced: its send or commit fails with a fenced error; the
  new instance commits; read_committed sees only the new instance's records.
- A transaction left open past ``transaction.timeout.ms`` is aborted by the coordinator
  (``transaction.abort.timed.out.transaction.cleanup.interval.ms`` made small): the last stable offset that
  ListOffsets(read_committed) returns stops at the open transaction's first offset, then moves on; the
  abandoned records never reach read_committed; the abandoned producer can no longer commit.
- Broker restart, SIGTERM and kill -9: a transaction committed and one aborted just before the stop, one left
  Ongoing (completed by its producer's successor) and one left Ongoing with a short timeout (aborted by the
  coordinator after the restart) all end as they must: read_committed sees exactly the committed records.

Era notes: Kafka 2.4 answers a zombie with INVALID_PRODUCER_EPOCH (PRODUCER_FENCED is 2.7's, KIP-588); the tests
accept either (``clients.is_fenced``). Every single-broker test sets ``transaction.state.log.min.isr=1`` as
Kafka's own single-broker ``config/server.properties`` does (the default, 2, cannot be met by one replica).
"""
from __future__ import annotations

import uuid
from collections import Counter

import pytest

import clients
from clients import ConfluentTxnProducer, KafkaPythonTxnProducer
from harness import BrokerProcess
from support import wait_until

pytestmark = pytest.mark.timeout(240)

TXN_BROKER_OVERRIDES = {
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": 500,
    "group.initial.rebalance.delay.ms": 0,
}


@pytest.fixture(scope="module")
def txn_broker(tmp_path_factory):
    b = BrokerProcess(tmp_path_factory.mktemp("txn-broker"), TXN_BROKER_OVERRIDES)
    b.start()
    yield b
    b.stop()
    print(f"\n--- txn broker log tail:\n{b.log_tail(80)}")


def uid(stem: str) -> str:
    return f"{stem}-{uuid.uuid4().hex[:8]}"


def values(records) -> Counter:
    return Counter((r.partition, r.value) for r in records)


def assert_read_committed(bootstrap: str, topic: str, partitions, expected: Counter) -> None:
    """confluent-kafka, kafka-python and kcat read_committed readers see exactly ``expected``."""
    got = clients.read_to_end_confluent(bootstrap, topic, partitions, "read_committed")
    assert values(got) == expected, f"confluent-kafka read_committed of {topic}"
    got = clients.read_to_end_kafka_python(bootstrap, topic, partitions, "read_committed")
    assert values(got) == expected, f"kafka-python read_committed of {topic}"
    got = [r for r in clients.read_to_end_kcat(bootstrap, topic, "read_committed") if r.partition in partitions]
    assert values(got) == expected, f"kcat read_committed of {topic}"


def create_topics(bootstrap: str, names, partitions: int) -> None:
    for name in names:
        clients.create_topic(bootstrap, name, partitions)


# --- commit and abort across three topics and a group's offsets ------------------------------------------

@pytest.mark.parametrize("producer_class", clients.TXN_PRODUCERS, ids=lambda c: c.name)
def test_commit_and_abort_across_three_topics_and_group_offsets(txn_broker, producer_class):
    bootstrap = txn_broker.bootstrap
    stem = uid(f"txn-{producer_class.name}")
    topics, source, group = [f"{stem}-out{i}" for i in range(3)], f"{stem}-in", f"{stem}-group"
    create_topics(bootstrap, topics, 2)
    create_topics(bootstrap, [source], 1)

    def write(producer, kind):
        sent = {t: Counter() for t in topics}
        for t in topics:
            for p in (0, 1):
                for i in range(3):
                    value = f"{kind}-{t}-{p}-{i}".encode()
                    producer.send(t, p, value, key=f"k{i}".encode())
                    sent[t][(p, value)] += 1
        return sent

    producer = producer_class(bootstrap, f"{stem}-txn")
    try:
        producer.init()
        producer.begin()
        committed = write(producer, "committed")
        producer.send_offsets({(source, 0): 5}, group)
        producer.flush()
        # (librdkafka's own OffsetFetch v7 asks require_stable and would wait: 2.4's v5 answers at once)
        assert clients.committed_offsets_raw(txn_broker.port, group, source, [0]) == {0: None}, \
            "a transactional offset commit is visible before its transaction commits"
        producer.commit()
        wait_until(lambda: clients.committed_offsets(bootstrap, group, source, [0]) == {0: 5}, 30,
                   "the committed transaction's offset 5 to become the group's committed offset", interval=0.1)

        producer.begin()
        aborted = write(producer, "aborted")
        producer.send_offsets({(source, 0): 9}, group)
        producer.flush()      # the records are in the log before the abort: read_uncommitted must see them
        assert clients.committed_offsets_raw(txn_broker.port, group, source, [0]) == {0: 5}
        producer.abort()
    finally:
        producer.close()

    for t in topics:
        hw = clients.wait_stable(bootstrap, t, [0, 1])
        # 3 + 3 data records and one control batch (a marker) per transaction in each partition
        assert hw == {0: 8, 1: 8}, f"high watermarks of {t}: {hw} (3 committed + 3 aborted + 2 markers each)"
        assert_read_committed(bootstrap, t, [0, 1], committed[t])
        got = clients.read_to_end_confluent(bootstrap, t, [0, 1], "read_uncommitted")
        assert values(got) == committed[t] + aborted[t], f"read_uncommitted of {t}"
        for p in (0, 1):
            assert sorted(r.offset for r in got if r.partition == p) == [0, 1, 2, 4, 5, 6], \
                f"{t}-{p}: offsets 3 and 7 are the markers and are never delivered as records"
        got = clients.read_to_end_kafka_python(bootstrap, t, [0, 1], "read_uncommitted")
        assert values(got) == committed[t] + aborted[t], f"kafka-python read_uncommitted of {t}"

    assert clients.committed_offsets(bootstrap, group, source, [0]) == {0: 5}, \
        "the aborted transaction's offset commit (9) must not become the group's offset"


# --- zombie fencing ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("producer_class", [ConfluentTxnProducer, KafkaPythonTxnProducer], ids=lambda c: c.name)
def test_zombie_producer_is_fenced_and_new_instance_commits(txn_broker, producer_class):
    bootstrap = txn_broker.bootstrap
    topic, txn_id = uid(f"zombie-{producer_class.name}"), uid("zombie-txn")
    create_topics(bootstrap, [topic], 2)

    zombie = producer_class(bootstrap, txn_id)
    new = None
    try:
        zombie.init()
        zombie.begin()
        zombie.send(topic, 0, b"zombie-before-fencing")
        zombie.flush()

        new = producer_class(bootstrap, txn_id)
        new.init()     # bumps the epoch and aborts the zombie's open transaction
        with pytest.raises(Exception) as raised:
            zombie.send(topic, 1, b"zombie-after-fencing")
            zombie.flush()
            zombie.send(topic, 0, b"zombie-after-fencing-2")
            zombie.flush()
            zombie.commit()
        assert clients.is_fenced(raised.value), f"the zombie failed, but not as fenced: {raised.value!r}"

        new.begin()
        new.send(topic, 0, b"new-0")
        new.send(topic, 1, b"new-1")
        new.commit()
    finally:
        zombie.close()
        if new is not None:
            new.close()

    clients.wait_stable(bootstrap, topic, [0, 1])
    assert_read_committed(bootstrap, topic, [0, 1], Counter({(0, b"new-0"): 1, (1, b"new-1"): 1}))
    uncommitted = values(clients.read_to_end_confluent(bootstrap, topic, [0, 1], "read_uncommitted"))
    assert not {v for _, v in uncommitted if v.startswith(b"zombie-after")}, \
        f"the log took a fenced producer's records: {uncommitted}"


# --- the coordinator aborts a timed-out transaction --------------------------------------------------------

def test_transaction_left_open_past_its_timeout_is_aborted_and_the_lso_moves_on(txn_broker):
    bootstrap = txn_broker.bootstrap
    topic = uid("txn-timeout")
    create_topics(bootstrap, [topic], 1)
    before = [clients.Produced(0, b"k", f"before-{i}".encode(), ()) for i in range(3)]
    clients.produce_confluent(bootstrap, topic, before)

    abandoned = ConfluentTxnProducer(bootstrap, uid("abandoned-txn"), transaction_timeout_ms=4000)
    try:
        abandoned.init()
        abandoned.begin()
        for i in range(5):
            abandoned.send(topic, 0, f"abandoned-{i}".encode())
        abandoned.flush()
        after = [clients.Produced(0, b"k", f"after-{i}".encode(), ()) for i in range(3)]
        clients.produce_confluent(bootstrap, topic, after)
        # The transaction (offsets 3-7) is open: ListOffsets(read_committed) stops at its first offset.
        lso = clients.watermarks(bootstrap, topic, 0, "read_committed")[1]
        hw = clients.watermarks(bootstrap, topic, 0, "read_uncommitted")[1]
        assert (lso, hw) == (3, 11), f"(LSO, HW) with a transaction open at 3: {(lso, hw)}"

        # 4 s timeout, 0.5 s expiry checks: the coordinator aborts it, the abort marker lands at 11
        hw = clients.wait_stable(bootstrap, topic, [0], timeout=30)
        assert hw == {0: 12}, f"high watermark after the abort marker: {hw}"
        with pytest.raises(Exception):
            abandoned.commit(timeout=20)   # its transaction was aborted and its epoch bumped
    finally:
        abandoned.close()

    expected = Counter((0, r.value) for r in before + after)
    got = clients.read_to_end_confluent(bootstrap, topic, [0], "read_committed")
    assert values(got) == expected, "read_committed after the coordinator's abort"
    got = clients.read_to_end_kafka_python(bootstrap, topic, [0], "read_committed")
    assert values(got) == expected, "kafka-python read_committed (its ListOffsets asks for the LSO)"
    uncommitted = values(clients.read_to_end_confluent(bootstrap, topic, [0], "read_uncommitted"))
    assert sum(1 for _, v in uncommitted if v.startswith(b"abandoned-")) == 5


# --- broker restart with transactions in every state -------------------------------------------------------

@pytest.mark.parametrize("how", ["sigterm", "kill9"])
def test_transactions_complete_after_broker_restart(broker_factory, how):
    broker = broker_factory(TXN_BROKER_OVERRIDES)
    bootstrap = broker.bootstrap
    topic, stem = uid(f"txn-restart-{how}"), uid("restart")
    create_topics(bootstrap, [topic], 2)
    expected_committed, expected_all = Counter(), Counter()

    def write(producer, kind, n=4):
        for i in range(n):
            value = f"{kind}-{i}".encode()
            producer.send(topic, i % 2, value)
            expected_all[(i % 2, value)] += 1
            if kind.startswith("committed"):
                expected_committed[(i % 2, value)] += 1
        producer.flush()

    producers = {name: ConfluentTxnProducer(bootstrap, f"{stem}-{name}", transaction_timeout_ms=timeout)
                 for name, timeout in [("committed", None), ("aborted", None), ("open", 60000),
                                       ("expiring", 4000), ("committed-last", None)]}
    try:
        for p in producers.values():
            p.init()
        producers["committed"].begin()
        write(producers["committed"], "committed-early")
        producers["committed"].commit()
        producers["open"].begin()
        write(producers["open"], "open")                 # Ongoing at the stop; its successor aborts it
        producers["expiring"].begin()
        write(producers["expiring"], "expiring")         # Ongoing at the stop; the coordinator times it out
        producers["aborted"].begin()
        write(producers["aborted"], "aborted")
        producers["aborted"].abort()
        producers["committed-last"].begin()
        write(producers["committed-last"], "committed-last")
        producers["committed-last"].commit()             # EndTxn answered; its markers may still be in flight
        if how == "kill9":
            broker.kill9()
        else:
            broker.stop()
    finally:
        for p in producers.values():
            p.close()

    broker.start(timeout=60)
    successor = ConfluentTxnProducer(bootstrap, f"{stem}-open")
    try:
        successor.init()     # completes (aborts) the open transaction of its id first
        successor.begin()
        write(successor, "committed-by-successor")
        successor.commit()
    finally:
        successor.close()

    clients.wait_stable(bootstrap, topic, [0, 1], timeout=60)
    assert_read_committed(bootstrap, topic, [0, 1], expected_committed)
    got = clients.read_to_end_confluent(bootstrap, topic, [0, 1], "read_uncommitted")
    assert values(got) == expected_all, "read_uncommitted after the restart: every data record, once"

"""No Kafka counterpart (Kafka 3.0 tests TransactionsCommand against a mocked Admin, TransactionsCommandTest):
``bin/kafka-transactions`` run as a user runs it, a subprocess, against a broker started from server.properties,
while a confluent-kafka (librdkafka) transactional producer holds a transaction open.

The producer commits a first transaction of 2 records to partition 0 (offsets 0-1, the commit marker at 2),
then opens a second one with 3 records on partition 0 and 2 on partition 1, and stops there. Then:

- ``list`` shows the transactional id on coordinator 0, Ongoing, with the producer id the others print;
- ``describe --transactional-id`` shows epoch 0, the producer's transaction.timeout.ms, a start time, and
  both partitions (t-0,t-1);
- ``describe-producers --topic t --partition 0`` shows the producer with last sequence 4 and its open
  transaction starting at offset 3 (after the first transaction's marker); partition 1's starts at 0; with
  ``--broker-id 0`` the same answer comes from the named broker;
- ``find-hanging --max-transaction-timeout 0`` finds the open transaction on both partitions but reports none,
  since the coordinator still holds them;
- after ``abort_transaction()`` the coordinator finishes (CompleteAbort) and no transaction is open on
  either partition ("None");
- ``abort --start-offset 0`` on partition 1 writes an ABORT marker there (an offset no transaction starts at
  is refused with Kafka's message): no transaction is open on it any more, its LSO moves, and a read_committed
  consumer gets a record written after it but not the two aborted ones;
- an unknown transactional id ends the tool with Kafka's error line and exit code 1.

This needs the broker side of issue 15 (the transaction coordinator and DescribeTransactions/ListTransactions,
the log's producer state and DescribeProducers).
"""
from __future__ import annotations

import uuid

import pytest

from harness import run_tool, wait_until

pytestmark = pytest.mark.timeout(180)
TIMEOUT_MS = 45000


def tool(broker, *args, check=True):
    return run_tool("kafka-transactions", "--bootstrap-server", broker.bootstrap, *args, check=check)


def table(out: str) -> list[dict[str, str]]:
    """Kafka's prettyPrintTable output (tab after each padded column) as one dict per row."""
    lines = [line.split("\t")[:-1] for line in out.splitlines() if line]
    headers = [h.strip() for h in lines[0]]
    for line in lines:
        assert len(line) == len(headers), lines
    return [dict(zip(headers, (v.strip() for v in line))) for line in lines[1:]]


def rows_for(broker, transactional_id):
    return [r for r in table(tool(broker, "list").stdout) if r["TransactionalId"] == transactional_id]


@pytest.fixture
def open_transaction(broker, unique_topic):
    """(topic, transactional id, producer) with a committed transaction behind it and one open."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})   # kept alive until its future resolves
    admin.create_topics([NewTopic(unique_topic, 2, 1)])[unique_topic].result(30)
    transactional_id = f"txn-tool-{uuid.uuid4().hex[:8]}"
    producer = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": transactional_id,
                         "transaction.timeout.ms": TIMEOUT_MS, "linger.ms": 0})
    producer.init_transactions(30)
    producer.begin_transaction()
    for i in range(2):
        producer.produce(unique_topic, f"committed-{i}".encode(), partition=0)
    producer.commit_transaction(30)
    producer.begin_transaction()
    for i in range(3):
        producer.produce(unique_topic, f"open-{i}".encode(), partition=0)
    for i in range(2):
        producer.produce(unique_topic, f"open-{i}".encode(), partition=1)
    assert producer.flush(30) == 0
    yield unique_topic, transactional_id, producer
    try:
        producer.abort_transaction(10)
    except Exception:   # noqa: BLE001 -- the test aborted it already
        pass


def test_list_describe_and_describe_producers_of_an_open_transaction(broker, open_transaction):
    topic, transactional_id, producer = open_transaction

    [listed] = wait_until(lambda: rows_for(broker, transactional_id), 30, "the transactional id in `list`")
    assert listed["Coordinator"] == "0" and listed["TransactionState"] == "Ongoing", listed
    producer_id = listed["ProducerId"]
    assert int(producer_id) >= 0

    [described] = table(tool(broker, "describe", "--transactional-id", transactional_id).stdout)
    assert described["CoordinatorId"] == "0"
    assert described["TransactionalId"] == transactional_id
    assert described["ProducerId"] == producer_id
    assert described["ProducerEpoch"] == "0"
    assert described["TransactionState"] == "Ongoing"
    assert described["TransactionTimeoutMs"] == str(TIMEOUT_MS)
    assert int(described["CurrentTransactionStartTimeMs"]) > 0 and int(described["TransactionDurationMs"]) >= 0
    assert described["TopicPartitions"] == f"{topic}-0,{topic}-1"

    [p0] = [r for r in table(tool(broker, "describe-producers", "--topic", topic, "--partition", "0").stdout)
            if r["ProducerId"] == producer_id]
    assert p0["ProducerEpoch"] == "0"
    assert p0["LastSequence"] == "4"                  # 2 committed records, then 3 open ones
    assert int(p0["LastTimestamp"]) > 0
    assert p0["CurrentTransactionStartOffset"] == "3"   # after offsets 0-1 and the commit marker at 2
    assert int(p0["LatestCoordinatorEpoch"]) >= 0       # the commit marker carried one

    [p1] = table(tool(broker, "describe-producers", "--topic", topic, "--partition", "1").stdout)
    assert p1["ProducerId"] == producer_id and p1["CurrentTransactionStartOffset"] == "0"
    assert p1["LastSequence"] == "1"

    [on_broker] = table(tool(broker, "describe-producers", "--topic", topic, "--partition", "1",
                             "--broker-id", "0").stdout)
    assert on_broker["ProducerId"] == producer_id and on_broker["CurrentTransactionStartOffset"] == "0"

    # find-hanging with a zero timeout takes every open transaction as a candidate; none hangs, since the
    # coordinator still holds both partitions in the producer's transaction
    hanging = tool(broker, "find-hanging", "--topic", topic, "--max-transaction-timeout", "0").stdout
    assert hanging.splitlines()[0].split() == ["Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch",
                                               "StartOffset", "LastTimestamp", "Duration(min)"]
    assert table(hanging) == []

    producer.abort_transaction(30)
    wait_until(lambda: rows_for(broker, transactional_id)[0]["TransactionState"] == "CompleteAbort", 30,
               "the coordinator to complete the abort")

    def closed_on(partition):
        rows = table(tool(broker, "describe-producers", "--topic", topic, "--partition", str(partition)).stdout)
        return [r["CurrentTransactionStartOffset"] for r in rows if r["ProducerId"] == producer_id] == ["None"]
    wait_until(lambda: closed_on(0) and closed_on(1), 30, "the abort markers on both partitions")


def test_abort_by_start_offset_ends_the_transaction_on_that_partition(broker, open_transaction):
    from confluent_kafka import Consumer, Producer, TopicPartition
    topic, transactional_id, _ = open_transaction
    wait_until(lambda: rows_for(broker, transactional_id), 30, "the transaction in `list`")

    missing = tool(broker, "abort", "--topic", topic, "--partition", "1", "--start-offset", "1", check=False)
    assert missing.returncode == 1
    assert missing.stderr.strip() == f"Could not find any open transactions starting at offset 1 on partition {topic}-1"

    out = tool(broker, "abort", "--topic", topic, "--partition", "1", "--start-offset", "0")
    assert out.stdout == ""
    [p1] = table(tool(broker, "describe-producers", "--topic", topic, "--partition", "1").stdout)
    assert p1["CurrentTransactionStartOffset"] == "None"

    # the LSO of partition 1 moved: a record written after the abort reaches a read_committed consumer at once,
    # and the two aborted records before it do not
    plain = Producer({"bootstrap.servers": broker.bootstrap})
    plain.produce(topic, b"after-abort", partition=1)
    assert plain.flush(30) == 0
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"g-{transactional_id}",
                         "isolation.level": "read_committed", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 1, 0)])
    seen = []
    try:
        def got_it():
            m = consumer.poll(0.5)
            if m is not None and not m.error():
                seen.append(m.value())
            return b"after-abort" in seen
        wait_until(got_it, 20, "the record after the aborted transaction")
    finally:
        consumer.close()
    assert seen == [b"after-abort"]


def test_describe_of_an_unknown_transactional_id_fails_with_kafkas_message(broker):
    out = tool(broker, "describe", "--transactional-id", "no-such-transactional-id", check=False)
    assert out.returncode == 1
    assert out.stderr.strip() == (
        "Failed to describe transaction state of transactional-id `no-such-transactional-id`: DescribeTransactions "
        "request for transactionalId `no-such-transactional-id` failed because the ID could not be found. Enable "
        "debug logging for additional detail.")

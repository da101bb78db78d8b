"""The transaction coordinator against real clients (issue 15): confluent-kafka's and kafka-python's
``init_transactions()`` succeed, a second producer with the same transactional.id fences the first (its next
transaction fails as fenced), and ``__transaction_state`` holds the coordinator's record in Kafka's format,
read back by a consumer. With the log side merged, a confluent-kafka transaction commits end to end."""
import struct

import pytest
from clients import create_topic, read_confluent
from support import wait_until

from kafkalite.common.utils import java_string_hashcode, utils_abs

TXN_PARTITIONS = 3
OVERRIDES = {"transaction.state.log.num.partitions": str(TXN_PARTITIONS)}
EMPTY, ONGOING, COMPLETE_COMMIT = 0, 1, 4


def txn_state_records(bootstrap, transactional_id, at_least):
    """(producer id, epoch, timeout, state byte) of every __transaction_state record of ``transactional_id``."""
    partition = utils_abs(java_string_hashcode(transactional_id)) % TXN_PARTITIONS
    out = []
    for r in read_confluent(bootstrap, "__transaction_state", [partition], at_least, timeout=20):
        version, n = struct.unpack_from(">hh", r.key)
        if r.key[4:4 + n].decode() != transactional_id or r.value is None:
            continue
        assert version == 0
        v_version, pid, epoch, timeout, state = struct.unpack_from(">hqhib", r.value)
        assert v_version == 0
        out.append((pid, epoch, timeout, state))
    return out


def fenced(e: BaseException) -> bool:
    text = f"{type(e).__name__} {e}".lower()
    return "fenced" in text or "invalidproducerepoch" in text or "invalid_producer_epoch" in text


def test_confluent_init_transactions_fences_the_older_instance(broker_factory, unique_topic):
    from confluent_kafka import KafkaException, Producer
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, unique_topic)
    txn_id = f"{unique_topic}-txn"
    conf = {"bootstrap.servers": b.bootstrap, "transactional.id": txn_id, "transaction.timeout.ms": 30000}
    first = Producer(conf)
    first.init_transactions(30)
    second = Producer(conf)
    second.init_transactions(30)
    first.begin_transaction()
    first.produce(unique_topic, b"from the zombie")
    with pytest.raises(KafkaException) as raised:
        first.commit_transaction(30)
    assert raised.value.args[0].fatal() and fenced(raised.value), raised.value
    records = txn_state_records(b.bootstrap, txn_id, 2)
    pids = {pid for pid, *_ in records}
    assert len(pids) == 1 and [(e, t, s) for _, e, t, s in records[:2]] == [(0, 30000, EMPTY), (1, 30000, EMPTY)]


def test_kafka_python_init_transactions_fences_the_older_instance(broker_factory, unique_topic):
    from kafka import KafkaProducer
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, unique_topic)
    txn_id = f"{unique_topic}-txn"
    first = KafkaProducer(bootstrap_servers=b.bootstrap, transactional_id=txn_id, request_timeout_ms=15000)
    second = None
    try:
        first.init_transactions()
        second = KafkaProducer(bootstrap_servers=b.bootstrap, transactional_id=txn_id, request_timeout_ms=15000)
        second.init_transactions()
        first.begin_transaction()
        with pytest.raises(Exception) as raised:
            first.send(unique_topic, b"from the zombie").get(timeout=30)
            first.commit_transaction()
        assert fenced(raised.value), repr(raised.value)
        assert [e for _, e, _, _ in txn_state_records(b.bootstrap, txn_id, 2)][:2] == [0, 1]
    finally:
        first.close(5)
        if second is not None:
            second.close(5)


def test_confluent_commit_round_trip(broker_factory, unique_topic):
    """Needs the log side of issue 15 (transactional Produce, WriteTxnMarkers): skipped without it."""
    from confluent_kafka import KafkaException, Producer
    from kafkalite.server.kafka_apis import SERVED_APIS
    from kafkalite.protocol.api_keys import ApiKeys
    if ApiKeys.WRITE_TXN_MARKERS not in SERVED_APIS:
        pytest.skip("the broker end of WriteTxnMarkers is not merged")
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, unique_topic, partitions=2)
    txn_id = f"{unique_topic}-txn"
    p = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": txn_id})
    p.init_transactions(30)
    p.begin_transaction()
    for i in range(4):
        p.produce(unique_topic, f"v{i}".encode(), partition=i % 2)
    try:
        p.commit_transaction(30)
    except KafkaException as e:
        raise AssertionError(f"commit failed: {e}\n{b.log_tail(60)}") from None
    got = read_confluent(b.bootstrap, unique_topic, [0, 1], 4, timeout=20,
                         config={"isolation.level": "read_committed"})
    assert sorted(r.value for r in got) == [b"v0", b"v1", b"v2", b"v3"]
    wait_until(lambda: txn_state_records(b.bootstrap, txn_id, 1)[-1][3] == COMPLETE_COMMIT, 20,
               "CompleteCommit in __transaction_state")
    states = [s for *_, s in txn_state_records(b.bootstrap, txn_id, 1)]
    assert states[-3:] == [ONGOING, 2, COMPLETE_COMMIT]   # Ongoing, PrepareCommit, CompleteCommit


def test_transaction_left_open_past_its_timeout_is_aborted(broker_factory, unique_topic):
    """abortTimedOutTransactions, every transaction.abort.timed.out.transaction.cleanup.interval.ms: the open
    transaction is fenced (epoch + 1) and aborted; the producer's late commit fails."""
    from confluent_kafka import KafkaException, Producer
    from kafkalite.protocol.api_keys import ApiKeys
    from kafkalite.server.kafka_apis import SERVED_APIS
    if ApiKeys.WRITE_TXN_MARKERS not in SERVED_APIS:
        pytest.skip("the broker end of WriteTxnMarkers is not merged")
    b = broker_factory({**OVERRIDES, "transaction.abort.timed.out.transaction.cleanup.interval.ms": "200"})
    create_topic(b.bootstrap, unique_topic)
    txn_id = f"{unique_topic}-txn"
    p = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": txn_id, "transaction.timeout.ms": 1000})
    p.init_transactions(30)
    p.begin_transaction()
    p.produce(unique_topic, b"never committed")
    assert p.flush(20) == 0
    complete_abort = 5
    wait_until(lambda: txn_state_records(b.bootstrap, txn_id, 1)[-1][3] == complete_abort, 30,
               "the coordinator to abort the timed-out transaction (CompleteAbort)")
    epochs = [e for _, e, _, _ in txn_state_records(b.bootstrap, txn_id, 1)]
    assert epochs[0] == 0 and epochs[-1] == 1   # fenced by the abort
    with pytest.raises(KafkaException):
        p.commit_transaction(20)
    assert read_confluent(b.bootstrap, unique_topic, [0], 1, timeout=3,
                          config={"isolation.level": "read_committed"}) == []


def test_coordinator_threads_carry_kafkas_names_and_end_at_shutdown(tmp_path):
    import threading
    from harness import InProcessBroker
    from confluent_kafka import Producer
    b = InProcessBroker(tmp_path / "kafka-logs", OVERRIDES).start()
    try:
        Producer({"bootstrap.servers": b.bootstrap, "transactional.id": "thread-names"}).init_transactions(30)
        names = {t.name for t in threading.enumerate()}
        assert {"TxnMarkerSenderThread-0", "transaction-log-manager-0"} <= names, sorted(names)
    finally:
        b.stop()
    wait_until(lambda: not {"TxnMarkerSenderThread-0", "transaction-log-manager-0"}
               & {t.name for t in threading.enumerate() if t.is_alive()}, 10, "the coordinator's threads to end")


@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_transactional_id_survives_a_broker_restart(broker_factory, unique_topic, how):
    """loadTransactionsForTxnTopicPartition: after a restart the coordinator reads __transaction_state back, so the
    next instance keeps the producer id and gets the next epoch."""
    from confluent_kafka import Producer
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, unique_topic)
    txn_id = f"{unique_topic}-txn"
    Producer({"bootstrap.servers": b.bootstrap, "transactional.id": txn_id}).init_transactions(30)
    before = txn_state_records(b.bootstrap, txn_id, 1)
    if how == "kill9":
        b.kill9()
        b.start()
    else:
        b.restart()
    Producer({"bootstrap.servers": b.bootstrap, "transactional.id": txn_id}).init_transactions(30)
    after = txn_state_records(b.bootstrap, txn_id, 2)
    assert [(pid, epoch) for pid, epoch, _, _ in after] == [(before[0][0], 0), (before[0][0], 1)]


def test_kafka_python_commit_and_abort(broker_factory, unique_topic):
    from kafka import KafkaProducer
    from kafkalite.protocol.api_keys import ApiKeys
    from kafkalite.server.kafka_apis import SERVED_APIS
    if ApiKeys.WRITE_TXN_MARKERS not in SERVED_APIS:
        pytest.skip("the broker end of WriteTxnMarkers is not merged")
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, unique_topic)
    p = KafkaProducer(bootstrap_servers=b.bootstrap, transactional_id=f"{unique_topic}-txn", request_timeout_ms=15000)
    try:
        p.init_transactions()
        p.begin_transaction()
        p.send(unique_topic, b"aborted")
        p.abort_transaction()
        p.begin_transaction()
        p.send(unique_topic, b"committed")
        p.commit_transaction()
    finally:
        p.close(5)
    got = read_confluent(b.bootstrap, unique_topic, [0], 1, timeout=20, config={"isolation.level": "read_committed"})
    assert [r.value for r in got] == [b"committed"]


def test_aiokafka_transaction_commits(broker_factory, unique_topic):
    import asyncio
    from aiokafka import AIOKafkaProducer
    from kafkalite.protocol.api_keys import ApiKeys
    from kafkalite.server.kafka_apis import SERVED_APIS
    if ApiKeys.WRITE_TXN_MARKERS not in SERVED_APIS:
        pytest.skip("the broker end of WriteTxnMarkers is not merged")
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, unique_topic)

    async def run():
        p = AIOKafkaProducer(bootstrap_servers=b.bootstrap, transactional_id=f"{unique_topic}-txn")
        await p.start()
        try:
            async with p.transaction():
                await p.send_and_wait(unique_topic, b"aio")
        finally:
            await asyncio.wait_for(p.stop(), 10)

    asyncio.run(asyncio.wait_for(run(), 60))
    got = read_confluent(b.bootstrap, unique_topic, [0], 1, timeout=20, config={"isolation.level": "read_committed"})
    assert [r.value for r in got] == [b"aio"]


def test_new_instance_aborts_the_zombies_open_transaction(broker_factory, unique_topic):
    """InitProducerId while a transaction is Ongoing: the coordinator fences (PrepareEpochFence), aborts it with
    markers, answers CONCURRENT_TRANSACTIONS, and the retrying client gets the epoch after that."""
    from confluent_kafka import KafkaException, Producer
    from kafkalite.protocol.api_keys import ApiKeys
    from kafkalite.server.kafka_apis import SERVED_APIS
    if ApiKeys.WRITE_TXN_MARKERS not in SERVED_APIS:
        pytest.skip("the broker end of WriteTxnMarkers is not merged")
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, unique_topic)
    txn_id = f"{unique_topic}-txn"
    zombie = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": txn_id})
    zombie.init_transactions(30)
    zombie.begin_transaction()
    zombie.produce(unique_topic, b"zombie")
    assert zombie.flush(20) == 0
    fresh = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": txn_id})
    fresh.init_transactions(30)
    fresh.begin_transaction()
    fresh.produce(unique_topic, b"fresh")
    fresh.commit_transaction(30)
    with pytest.raises(KafkaException):
        zombie.commit_transaction(20)
    got = read_confluent(b.bootstrap, unique_topic, [0], 1, timeout=20, config={"isolation.level": "read_committed"})
    assert [r.value for r in got] == [b"fresh"]
    records = txn_state_records(b.bootstrap, txn_id, 1)
    states = [(e, s) for _, e, _, s in records]
    # epoch 0 Ongoing, fenced to 1 and aborted (PrepareAbort=3, CompleteAbort=5), then the new instance's epoch 2
    assert (1, 3) in states and (1, 5) in states and states[-1] == (2, COMPLETE_COMMIT), states

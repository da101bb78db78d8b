"""Mirrors Kafka 2.4's TransactionsBounceTest (core/src/test/scala/integration/kafka/api/
TransactionsBounceTest.scala, brokers bounced under a transactional copier) and the coordinator-failover half of
the ducktape ``transactions_test.py``: three broker processes over Debian's ZooKeeper, ``__transaction_state``
with ``transaction.state.log.replication.factor=3`` and ``transaction.state.log.min.isr=2``.

A confluent-kafka transactional producer opens a transaction and writes a topic led by another broker; the
broker leading its transactional id's ``__transaction_state`` partition (its coordinator,
``TransactionStateManager.partitionFor``) is killed with SIGKILL. Another ISR member becomes the partition's
leader and loads the transaction from the replicated log, so the coordinator moves with leadership: the
producer's commit completes (librdkafka finds the new coordinator on NOT_COORDINATOR); or, if the producer gets
an abortable or fatal error, it aborts or a re-initialised instance takes over, which completes or aborts the
first transaction. Either way a read_committed reader sees all or none of the first transaction -- never part
of it -- and the records of a second transaction committed after the failover.
"""
from __future__ import annotations

import uuid
from collections import Counter

import pytest

import clients
from cluster_harness import ClusterProcesses, zookeeper_available
from support import wait_until

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(300)]

TXN_PARTITIONS = 3


def start_cluster(workdir) -> ClusterProcesses:
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    return ClusterProcesses(workdir, 3, overrides={
        "transaction.state.log.replication.factor": 3,
        "transaction.state.log.min.isr": 2,
        "transaction.state.log.num.partitions": TXN_PARTITIONS,
        "transaction.abort.timed.out.transaction.cleanup.interval.ms": 1000,
        "zookeeper.session.timeout.ms": 4000,
        "replica.fetch.wait.max.ms": 100,
        "auto.leader.rebalance.enable": "false",
    }).start()


def test_transaction_coordinator_moves_with_leadership_of_transaction_state(tmp_path):
    from confluent_kafka import KafkaException
    cluster = start_cluster(tmp_path)
    try:
        txn_id = f"failover-txn-{uuid.uuid4().hex[:8]}"
        txn_partition = clients.transaction_state_partition(txn_id, TXN_PARTITIONS)
        producer = clients.ConfluentTxnProducer(cluster.bootstrap, txn_id)
        producer.init()          # creates __transaction_state on first use
        state = cluster.wait_for_isr("__transaction_state", txn_partition, [0, 1, 2], timeout=60)
        coordinator = state["leader"]
        others = [b for b in range(3) if b != coordinator]
        topic = f"failover-out-{uuid.uuid4().hex[:8]}"
        cluster.create_topic(topic, [others[0], others[1], coordinator])   # led by a broker that stays up

        first = Counter({(0, f"first-{i}".encode()): 1 for i in range(20)})
        producer.begin()
        for _, value in first:
            producer.send(topic, 0, value)
        producer.flush()
        cluster.brokers[coordinator].kill9()
        wait_until(lambda: cluster.leader("__transaction_state", txn_partition) in others, 60,
                   f"a surviving broker to lead __transaction_state-{txn_partition}")

        committed = False
        try:
            producer.commit(timeout=120)
            committed = True
        except KafkaException as e:
            error = e.args[0]
            print(f"commit after the failover failed: {error!r}")
            if error.txn_requires_abort():
                producer.abort(timeout=120)
            else:                # fatal: a new instance fences this one and completes its transaction
                producer.close()
                producer = clients.ConfluentTxnProducer(cluster.bootstrap, txn_id)
                producer.init()

        second = Counter({(0, f"second-{i}".encode()): 1 for i in range(10)})
        producer.begin()
        for _, value in second:
            producer.send(topic, 0, value)
        producer.commit(timeout=120)
        producer.close()

        bootstrap = cluster.bootstrap
        clients.wait_stable(bootstrap, topic, [0], timeout=60)
        got = Counter((r.partition, r.value) for r in
                      clients.read_to_end_confluent(bootstrap, topic, [0], "read_committed"))
        assert got - first == second, f"read_committed of the second transaction: {got - first}"
        seen_first = got - second
        if committed:
            assert seen_first == first, "the commit succeeded but read_committed misses some of its records"
        else:
            assert seen_first in (first, Counter()), f"a partial transaction is visible: {sorted(seen_first)}"
        got = clients.read_to_end_kafka_python(bootstrap, topic, [0], "read_committed")
        assert Counter((r.partition, r.value) for r in got) == seen_first + second, "kafka-python read_committed"
    except BaseException:
        print(cluster.log_tails(60))
        raise
    finally:
        cluster.stop()

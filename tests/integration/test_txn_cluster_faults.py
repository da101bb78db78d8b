"""Mirrors the leader-failover halves of Kafka 2.4's TransactionsBounceTest and of the ducktape
``transactions_test.py`` that the other cluster tests leave out: three broker processes over Debian's ZooKeeper,
``__transaction_state`` and ``__consumer_offsets`` with 3 partitions of replication factor 3, data topics of
replication factor 3 and ``min.insync.replicas=2``; confluent-kafka clients.

- An abandoned transaction (its producer gone without a commit or abort) on a partition whose leader is then
  killed with SIGKILL: the follower that takes over holds the last stable offset at the transaction's first
  offset (it rebuilt the open transaction from the replicated batches), read_committed sees none of it, the
  coordinator aborts it after ``transaction.timeout.ms`` and the marker goes to the new leader, the LSO moves on;
  the old leader, restarted, catches up and, leading again, answers the same (its aborted-transaction index came
  by replication).
- ``send_offsets_to_transaction``, then the group's coordinator (the leader of its ``__consumer_offsets``
  partition) killed with SIGKILL, then commit or abort: the new group coordinator loaded the offsets as pending,
  and the marker makes them the group's committed offsets on commit, never on abort.

The long, randomised variant is ``tests/torture/txn_cluster_torture.py`` (run here when
``KAFKALITE_LONG_TXN_CLUSTER=1``).
"""
from __future__ import annotations

import os
import sys
import uuid
from collections import Counter
from pathlib import Path

import pytest

import clients
from cluster_harness import ClusterProcesses, zookeeper_available
from support import wait_until

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(180)]

PARTITIONS = 3


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    c = ClusterProcesses(tmp_path_factory.mktemp("txn-cluster-faults"), 3, overrides={
        "transaction.state.log.num.partitions": PARTITIONS,
        "offsets.topic.num.partitions": PARTITIONS,
        "transaction.abort.timed.out.transaction.cleanup.interval.ms": 500,
        "zookeeper.session.timeout.ms": 4000,
        "replica.fetch.wait.max.ms": 100,
        "auto.leader.rebalance.enable": "false",
    }).start()
    try:
        yield c
    except BaseException:
        print(c.log_tails(60))
        raise
    finally:
        c.stop()


def retried(fn, what: str, timeout: float = 30):
    """``fn()`` until it answers without an exception (librdkafka may still hold a handle of a broker just killed)."""
    last = []

    def attempt():
        try:
            return fn()
        except Exception as e:   # noqa: BLE001 -- the last one is reported
            last[:] = [e]
            return None
    try:
        return wait_until(attempt, timeout, what, interval=0.2)
    except AssertionError as e:
        raise AssertionError(f"{e}; last error {last}") from None


def restart(cluster: ClusterProcesses, broker: int) -> None:
    """Start a SIGKILLed broker again once ZooKeeper dropped its old session (Kafka's broker, like this one,
    refuses to register while the old ``/brokers/ids`` znode is there)."""
    wait_until(lambda: not cluster.zk().exists(f"/brokers/ids/{broker}"), 30,
               f"broker {broker}'s old ZooKeeper session to expire")
    cluster.brokers[broker].start(timeout=60)


def lso_and_hw(bootstrap: str, topic: str) -> tuple[int, int]:
    return (retried(lambda: clients.watermarks(bootstrap, topic, 0, "read_committed")[1], "the LSO"),
            retried(lambda: clients.watermarks(bootstrap, topic, 0, "read_uncommitted")[1], "the HW"))


def values(records) -> list[bytes]:
    return [r.value for r in records]


def test_abandoned_transaction_survives_its_leaders_kill9_and_is_aborted_by_timeout(cluster):
    txn_id = f"abandoned-{uuid.uuid4().hex[:8]}"
    producer = clients.ConfluentTxnProducer(cluster.bootstrap, txn_id, transaction_timeout_ms=6000)
    producer.init()
    coordinator = cluster.leader("__transaction_state", clients.transaction_state_partition(txn_id, PARTITIONS))
    first, second = [b for b in range(3) if b != coordinator]
    topic = f"abandoned-out-{uuid.uuid4().hex[:8]}"
    cluster.create_topic(topic, [first, second, coordinator])     # led by a broker that is not the coordinator
    bootstrap = cluster.bootstrap
    clients.produce_confluent(bootstrap, topic, [clients.Produced(0, b"k", b"before-%d" % i, ()) for i in range(3)],
                              config={"acks": "all"})
    producer.begin()
    for i in range(5):
        producer.send(topic, 0, b"open-%d" % i)
    producer.flush()
    producer.close()                       # abandoned: no commit, no abort; offsets 3-7
    clients.produce_confluent(bootstrap, topic, [clients.Produced(0, b"k", b"after-%d" % i, ()) for i in range(3)],
                              config={"acks": "all"})
    assert lso_and_hw(bootstrap, topic) == (3, 11)

    cluster.brokers[first].kill9()
    cluster.wait_for_leader(topic, 0, second)
    # Right after the failover, before the timeout: the new leader holds the LSO at the open transaction.
    assert lso_and_hw(bootstrap, topic) == (3, 11), "the new leader's LSO with the transaction still open"
    committed = [b"before-0", b"before-1", b"before-2", b"after-0", b"after-1", b"after-2"]
    hw = clients.wait_stable(bootstrap, topic, [0], timeout=60)   # the coordinator's abort marker lands at 11
    assert hw == {0: 12}
    assert values(clients.read_to_end_confluent(bootstrap, topic, [0], "read_committed")) == committed

    restart(cluster, first)
    cluster.wait_for_isr(topic, 0, [0, 1, 2], timeout=60)
    cluster.brokers[second].kill9()        # leadership goes back to a broker that got the marker by replication
    wait_until(lambda: cluster.leader(topic, 0) in (first, coordinator), 30, "a new leader")
    bootstrap = cluster.bootstrap
    assert lso_and_hw(bootstrap, topic) == (12, 12)
    assert values(clients.read_to_end_confluent(bootstrap, topic, [0], "read_committed")) == committed
    assert values(clients.read_to_end_kafka_python(bootstrap, topic, [0], "read_committed")) == committed
    restart(cluster, second)


@pytest.mark.parametrize("outcome", ["commit", "abort"])
def test_pending_offsets_survive_the_group_coordinators_kill9(cluster, outcome):
    bootstrap = cluster.bootstrap
    source, output = f"offsets-in-{outcome}", f"offsets-out-{outcome}"
    for topic in (source, output):
        clients.create_topic(bootstrap, topic, PARTITIONS, replication_factor=3)
    group = f"offsets-group-{uuid.uuid4().hex[:8]}"
    group_partition = clients.transaction_state_partition(group, PARTITIONS)   # the same hash as partitionFor
    producer = clients.ConfluentTxnProducer(bootstrap, f"offsets-{uuid.uuid4().hex[:8]}")
    try:
        producer.init()
        producer.begin()
        producer.send(output, 0, b"with-offsets")
        producer.send_offsets({(source, 0): 42, (source, 2): 43}, group)
        producer.flush()
        group_coordinator = cluster.leader("__consumer_offsets", group_partition)
        cluster.brokers[group_coordinator].kill9()
        wait_until(lambda: cluster.leader("__consumer_offsets", group_partition) not in (group_coordinator, -1), 30,
                   "a new group coordinator")
        (producer.commit if outcome == "commit" else producer.abort)(60)
    finally:
        producer.close()
    bootstrap = cluster.bootstrap
    want = {0: 42, 2: 43} if outcome == "commit" else {0: None, 2: None}
    assert retried(lambda: clients.committed_offsets(bootstrap, group, source, [0, 2]), "the committed offsets") == want
    got = clients.read_to_end_confluent(bootstrap, output, [0], "read_committed")
    assert values(got) == ([b"with-offsets"] if outcome == "commit" else [])
    restart(cluster, group_coordinator)
    wait_until(lambda: all(len(cluster.partition_state("__consumer_offsets", p)["isr"]) == 3
                           for p in range(PARTITIONS)), 60, "every __consumer_offsets ISR to be whole again")


@pytest.mark.skipif(os.environ.get("KAFKALITE_LONG_TXN_CLUSTER") != "1",
                    reason="the long exactly-once torture on a cluster (several minutes): KAFKALITE_LONG_TXN_CLUSTER=1")
@pytest.mark.timeout(1800)
def test_exactly_once_copier_under_every_cluster_fault(tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "torture"))
    from txn_cluster_torture import torture
    result = torture(tmp_path, rounds=7, seed=1, records_per_round=1000)
    assert (result["missing"], result["duplicates"], result["misplaced"]) == (0, 0, 0), result
    assert Counter(k for k in result if k in ("txn_coordinator", "output_leader", "group_coordinator", "restart",
                                              "txn_coordinator_pause", "group_coordinator_kill")), result

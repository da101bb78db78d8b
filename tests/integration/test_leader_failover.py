"""Mirrors Kafka's leader-failure system tests (ducktape ``replication_test`` with ``clean_kill``/``hard_kill``;
2.4's ``KafkaController.onBrokerFailure``): a partition's leader is killed with ``kill -9`` while an
idempotent confluent-kafka producer writes with acks=all to three broker processes over Debian's
ZooKeeper. The controller sees the leader's session expire, elects a new leader from the ISR
(OfflinePartitionLeaderElection), the producer carries on, and every acknowledged record reads back
exactly once and in order. The killed broker comes back as a follower and catches up.
"""
import threading
import time

import pytest

import clients
from cluster_harness import ClusterProcesses, zookeeper_available
from harness import wait_until

pytestmark = pytest.mark.cluster

SESSION_TIMEOUT_MS = 6000


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    c = ClusterProcesses(tmp_path_factory.mktemp("failover"), 3, overrides={
        "zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS, "replica.fetch.wait.max.ms": 100}).start()
    yield c
    c.stop()


class BackgroundProducer:
    """An idempotent acks=all producer writing numbered records until stopped; keeps what was acknowledged."""

    def __init__(self, bootstrap, topic):
        from confluent_kafka import Producer
        self.topic = topic
        self.acked: list[bytes] = []
        self.errors: list[str] = []
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                                  "linger.ms": 5, "message.timeout.ms": 60000})
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)

    def on_delivery(self, err, msg):
        if err:
            self.errors.append(err.name())
        else:
            self.acked.append(msg.value())

    def run(self):
        n = 0
        while self.running:
            try:
                self.producer.produce(self.topic, b"r%06d" % n, partition=0, on_delivery=self.on_delivery)
                n += 1
            except BufferError:
                pass
            self.producer.poll(0.002)
        self.producer.flush(60)

    def stop(self):
        self.running = False
        self.thread.join(90)


def test_kill_9_of_the_leader_under_acks_all_load_loses_nothing(cluster, unique_topic):
    clients.create_topic(cluster.bootstrap, unique_topic, 1, replication_factor=-1)
    wait_until(lambda: len(cluster.partition_state(unique_topic, 0)["isr"]) == 3, 30, "a full ISR")
    producer = BackgroundProducer(cluster.bootstrap, unique_topic)
    producer.thread.start()
    wait_until(lambda: len(producer.acked) >= 200, 30, "acknowledged records before the kill")
    old = cluster.partition_state(unique_topic, 0)
    killed = old["leader"]
    cluster.brokers[killed].kill9()
    killed_at = time.monotonic()
    state = wait_until(lambda: (s := cluster.partition_state(unique_topic, 0))["leader"] not in (killed, -1) and s,
                       30, "a new leader")
    elected_after = time.monotonic() - killed_at
    assert elected_after < (SESSION_TIMEOUT_MS + 4000) / 1000, elected_after
    assert state["leader"] in old["isr"] and state["leader_epoch"] > old["leader_epoch"]
    acked_at_election = len(producer.acked)
    wait_until(lambda: len(producer.acked) >= acked_at_election + 200, 60, "the producer to carry on")
    cluster.brokers[killed].start(60)            # it comes back as a follower and catches up
    wait_until(lambda: len(cluster.partition_state(unique_topic, 0)["isr"]) == 3, 60, "the old leader to rejoin")
    producer.stop()
    assert producer.errors == [], producer.errors[:5]
    got = [c.value for c in clients.read_confluent(cluster.bootstrap, unique_topic, [0], len(producer.acked))]
    assert got == sorted(got), "records out of order"
    assert len(got) == len(set(got)), "duplicates"
    assert set(producer.acked) <= set(got), f"{len(set(producer.acked) - set(got))} acknowledged records lost"

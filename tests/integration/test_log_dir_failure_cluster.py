"""Mirrors Kafka 2.4: core/src/test/scala/integration/kafka/api/LogDirFailureTest.scala
(testReplicaFetcherThreadAfterLogDirFailureOnFollower's leader-side twin, testIOExceptionDuringLogRoll's
"the leader moves"), on broker processes over Debian's ZooKeeper with a really full disk.

Broker 1 has two log dirs, the first a 4 MiB tmpfs; it leads a partition replicated on all three brokers, whose
log lands in that tmpfs. Records are produced (acks=all) until the tmpfs is full. Then, as Kafka's controller
does: the broker takes the dir offline and writes /log_dir_event_notification; the controller sends it a
LeaderAndIsr for all its replicas, it answers KAFKA_STORAGE_ERROR for the one in the failed dir, and the
controller marks that replica offline -- a new leader from the remaining ISR, broker 1 out of the ISR -- while
broker 1 itself keeps running and serving its other dir. Every record acknowledged before or after reads back
from the new leader. Without the notification (or with the controller ignoring the LeaderAndIsr errors) broker 1
stays the leader of a partition it can no longer write, and every produce fails with KAFKA_STORAGE_ERROR.
"""
import pytest

from cluster_harness import ClusterProcesses, zookeeper_available
from support import mounted_tmpfs, wait_until

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(180)]

RECORD = 1000
FAILING = 1


def value(n: int) -> bytes:
    head = b"%d:" % n
    return head + b"x" * (RECORD - len(head))


@pytest.fixture
def small_fs(tmp_path):
    with mounted_tmpfs(tmp_path / "small-fs", "4m", "cannot mount a tmpfs here; tests/unit/test_controller.py::"
                       "test_a_log_dir_failure_moves_the_leadership_until_the_broker_restarts covers the controller's "
                       "side") as mnt:
        yield mnt


def produce(bootstrap, start: int, count: int, retries: int):
    """acks=all, values ``start`` .. ``start+count-1``; returns ({value: offset} acknowledged, error names)."""
    from confluent_kafka import Producer
    acked, errors = {}, []
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5, "retries": retries,
                         "enable.idempotence": False, "message.timeout.ms": 20000, "retry.backoff.ms": 200,
                         "reconnect.backoff.max.ms": 500})

    def done(err, msg):
        if err is None:
            acked[msg.value()] = msg.offset()
        else:
            errors.append(err.name())

    for n in range(start, start + count):
        while True:
            try:
                producer.produce("t", value=value(n), partition=0, on_delivery=done)
                break
            except BufferError:
                producer.poll(0.05)
        producer.poll(0)
        if len(errors) > 20:
            break
    producer.flush(30)
    return acked, errors


def read_back(bootstrap, count: int) -> dict:
    from confluent_kafka import Consumer, TopicPartition
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "log-dir-failure", "enable.auto.commit": False})
    got = {}
    try:
        consumer.assign([TopicPartition("t", 0, 0)])

        def enough():
            for m in consumer.consume(500, 0.2):
                if m.error() is None:
                    got[m.value()] = m.offset()
            return len(got) >= count
        wait_until(enough, 60, f"{count} records to read back")
    finally:
        consumer.close()
    return got


def test_a_failed_log_dir_moves_its_leaderships_and_keeps_every_ack(small_fs, tmp_path):
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    overrides = {"replica.lag.time.max.ms": 3000, "replica.fetch.wait.max.ms": 100, "replica.fetch.backoff.ms": 100,
                 "unclean.leader.election.enable": "false", "auto.leader.rebalance.enable": "false",
                 "default.replication.factor": 3, "offsets.topic.replication.factor": 3}
    other = tmp_path / "broker-1-other-dir"

    def own(i):
        return {"log.dirs": f"{small_fs},{other}"} if i == FAILING else {}

    cluster = ClusterProcesses(tmp_path / "cluster", 3, overrides, broker_overrides=own).start()
    try:
        followers = [i for i in range(3) if i != FAILING]
        cluster.create_topic("t", [FAILING, *followers])
        assert (small_fs / "t-0").is_dir(), "the partition must land in the small dir"
        assert cluster.leader("t", 0) == FAILING

        acked, errors = produce(cluster.bootstrap, 0, 8000, retries=0)
        assert "KAFKA_STORAGE_ERROR" in errors, (len(acked), set(errors))
        assert acked, "nothing was acknowledged before the dir filled up"

        # the controller hears of the failed dir and elects a leader from the rest of the ISR
        state = wait_until(lambda: (lambda s: s if s["leader"] in followers else None)(cluster.partition_state("t", 0)),
                           30, "a follower to lead t-0 after broker 1's log dir failed")
        assert FAILING not in state["isr"], state
        assert cluster.brokers[FAILING].running, "broker 1 still has a live log dir and must keep running"
        wait_until(lambda: cluster.zk().get_children("/log_dir_event_notification") == [], 10,
                   "the controller to delete the notification it handled")

        more, errors = produce(cluster.bootstrap, 100_000, 50, retries=10)
        assert not errors and len(more) == 50, errors
        acked.update(more)
        got = read_back(cluster.bootstrap, len(acked))
        lost = [v[:12] for v in acked if v not in got]
        assert not lost, f"{len(lost)} acknowledged records lost, e.g. {lost[:3]}"
    except BaseException:
        print(cluster.log_tails(60))
        raise
    finally:
        cluster.stop()

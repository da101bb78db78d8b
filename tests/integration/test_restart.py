"""No Kafka counterpart as such (Kafka's closest: ServerShutdownTest, ServerStartupTest): topics
created through a real client survive a broker restart on the same log.dirs, with the same
partition count, topic id and cluster id (meta.properties, and the in-process ZooKeeper store
persisted under log.dirs, DESIGN §6), after a clean SIGTERM and after a kill -9.
"""

import re

import pytest

from clients import KafkaPythonAdmin
from harness import wait_until


def snapshot(bootstrap, topics):
    admin = KafkaPythonAdmin(bootstrap)
    try:
        wait_until(lambda: set(topics) <= admin.list(), 15, f"{sorted(topics)} to be listed")
        return {
            "cluster_id": admin.describe_cluster()["cluster_id"],
            "topics": {t: (admin.topic_id(t), admin.describe(t)) for t in topics},
        }
    finally:
        admin.close()


def create(bootstrap, topics):
    admin = KafkaPythonAdmin(bootstrap)
    try:
        for name, partitions in topics.items():
            assert admin.create(name, partitions) is None
    finally:
        admin.close()


TOPICS = {"restart-three": 3, "restart-one": 1}


def test_topics_survive_clean_restart(fresh_broker):
    create(fresh_broker.bootstrap, TOPICS)
    before = snapshot(fresh_broker.bootstrap, TOPICS)
    assert {t: len(p) for t, (_, p) in before["topics"].items()} == TOPICS
    assert all(tid and tid != "00000000-0000-0000-0000-000000000000" for tid, _ in before["topics"].values())

    offset = fresh_broker.log_size()
    assert fresh_broker.stop() == 0, "SIGTERM should stop the broker cleanly with exit code 0"
    assert re.search(r"(?i)shut ?down complete", fresh_broker.log_text(offset)), fresh_broker.log_tail()

    fresh_broker.start()
    assert snapshot(fresh_broker.bootstrap, TOPICS) == before


@pytest.mark.slow
def test_topics_survive_kill_9(fresh_broker):
    create(fresh_broker.bootstrap, TOPICS)
    before = snapshot(fresh_broker.bootstrap, TOPICS)
    fresh_broker.kill9()
    fresh_broker.start()
    assert snapshot(fresh_broker.bootstrap, TOPICS) == before


def test_restart_twice_keeps_one_copy_of_each_topic(fresh_broker):
    create(fresh_broker.bootstrap, TOPICS)
    fresh_broker.restart()
    fresh_broker.restart()
    admin = KafkaPythonAdmin(fresh_broker.bootstrap)
    try:
        assert admin.create("restart-three", 3) == "TOPIC_ALREADY_EXISTS"
        assert set(TOPICS) <= admin.list()
    finally:
        admin.close()


def test_idempotent_producer_state_comes_back_from_its_snapshot(fresh_broker, unique_topic):
    """Kafka's ProducerStateManager snapshots (LogTest's restart cases, end to end): a clean stop leaves
    ``<log end offset>.snapshot`` beside the segment, kafka-dump-log prints it, the restarted broker loads
    the producer state from it, and the same idempotent producer (confluent-kafka) goes on with its
    sequence numbers: nothing refused, nothing written twice."""
    import subprocess
    import sys

    from confluent_kafka import Producer

    import clients
    clients.create_topic(fresh_broker.bootstrap, unique_topic, 1)
    producer = Producer({"bootstrap.servers": fresh_broker.bootstrap, "enable.idempotence": True,
                         "message.timeout.ms": 60000, "linger.ms": 0})
    errors = []

    def send(values):
        for v in values:
            producer.produce(unique_topic, v, partition=0,
                             on_delivery=lambda err, msg: errors.append(err.name()) if err else None)
            producer.flush(30)      # one batch per record: the sequence moves by one each time
    send([b"a%d" % i for i in range(10)])
    assert fresh_broker.stop() == 0
    part = fresh_broker.log_dirs / f"{unique_topic}-0"
    snapshots = sorted(p.name for p in part.glob("*.snapshot"))
    assert snapshots == ["00000000000000000010.snapshot"], snapshots
    dump = subprocess.run([sys.executable, "-m", "kafkalite.tools.dump_log_segments", "--files",
                           str(part / snapshots[0])], capture_output=True, text=True, timeout=60)
    assert re.search(r"producerId: \d+ producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: None "
                     r"firstSequence: 9 lastSequence: 9 lastOffset: 9 ", dump.stdout), dump.stdout + dump.stderr

    offset = fresh_broker.log_size()
    fresh_broker.start()
    send([b"b%d" % i for i in range(10)])
    assert errors == []
    assert f"Loading producer state from snapshot file '{part / snapshots[0]}'" in fresh_broker.log_text(offset)
    got = [c.value for c in clients.read_confluent(fresh_broker.bootstrap, unique_topic, [0], 20)]
    assert got == [b"a%d" % i for i in range(10)] + [b"b%d" % i for i in range(10)]
    # the broker knew the producer's last sequence, so the client never had to start again (a new producer
    # id or epoch, sequence 0): one producer id and epoch, sequences 0..19 in order
    dump = subprocess.run([sys.executable, "-m", "kafkalite.tools.dump_log_segments", "--files",
                           str(part / "00000000000000000000.log")], capture_output=True, text=True, timeout=60)
    batches = re.findall(r"baseSequence: (\d+) .* producerId: (\d+) producerEpoch: (\d+)", dump.stdout)
    assert [int(seq) for seq, _, _ in batches] == list(range(20)), dump.stdout
    assert len({(pid, epoch) for _, pid, epoch in batches}) == 1, dump.stdout

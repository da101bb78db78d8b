"""Mirrors Kafka 2.4's log-dir tests (``DescribeLogDirsRequestTest``, ``AlterReplicaLogDirsRequestTest``,
``LogDirsCommandTest``, KIP-113) on a broker subprocess with two ``log.dirs``:

- kafka-python's admin client (confluent-kafka 2.x has no DescribeLogDirs / AlterReplicaLogDirs call) describes
  both dirs, then moves a partition's replica from one dir to the other while confluent-kafka's producer keeps
  producing with acks=all; every acknowledged record reads back once, the old dir no longer holds the
  partition (its directory was renamed ``-delete`` and then deleted), and after a restart the broker serves
  the partition from the new dir;
- ``bin/kafka-log-dirs --describe`` prints Kafka's two lines and its JSON;
- a dir that is not one of the broker's log.dirs is LOG_DIR_NOT_FOUND, a partition the broker does not host
  REPLICA_NOT_AVAILABLE.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading

from harness import REPO_ROOT
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.record.memory_records import MemoryRecords
from support import wait_until

SEGMENT_BYTES = 16384   # several segments to copy


def start_broker(broker_factory, tmp_path):
    dirs = [str(tmp_path / "disk-a"), str(tmp_path / "disk-b")]
    broker = broker_factory({"log.dirs": ",".join(dirs), "log.segment.delete.delay.ms": "200",
                             "num.partitions": "1", "offsets.topic.replication.factor": "1"})
    return broker, dirs


def kafka_python_admin(broker):
    from kafka.admin import KafkaAdminClient
    return KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=10000)


def create_topic(admin, topic, replication_factor=1):
    from kafka.admin import NewTopic
    admin.create_topics([NewTopic(topic, 1, replication_factor, topic_configs={"segment.bytes": str(SEGMENT_BYTES)})])


def dirs_of(admin, topic, partition=0, broker=0):
    """{log dir: (size, offset lag, is future)} of the partition's logs on ``broker``, as DescribeLogDirs reports
    them."""
    found = {}
    [broker_dirs] = admin.describe_log_dirs(brokers=[broker])
    for result in broker_dirs["log_dirs"]:
        assert result["error_code"] == 0, result
        for t in result["topics"]:
            for p in t["partitions"]:
                if t["name"] == topic and p["partition_index"] == partition:
                    found[result["log_dir"]] = (p["partition_size"], p["offset_lag"], p["is_future_key"])
    return found


def produce(bootstrap, topic, values):
    from confluent_kafka import Producer
    # batches smaller than segment.bytes: a larger one would be refused (RECORD_BATCH_TOO_LARGE)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5, "batch.size": 8192})
    errors = []
    for v in values:
        producer.produce(topic, value=v.encode(), on_delivery=lambda err, _: err and errors.append(err))
    assert producer.flush(30) == 0
    assert errors == []


class BackgroundProducer(threading.Thread):
    """Produces numbered records with acks=all as fast as the client takes them, until stopped; keeps the
    acknowledged ones."""

    def __init__(self, bootstrap, topic):
        super().__init__(name="log-dirs-test-producer", daemon=True)
        from confluent_kafka import Producer
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 2,
                                  "batch.size": 8192, "queue.buffering.max.messages": 2000})
        self.topic = topic
        self.acked: list[str] = []
        self.errors: list[str] = []
        self.stopping = threading.Event()

    def on_delivery(self, err, msg):
        if err is None:
            self.acked.append(msg.value().decode())
        else:
            self.errors.append(str(err))

    def run(self):
        i = 0
        while not self.stopping.is_set():
            try:
                self.producer.produce(self.topic, value=f"live-{i}".encode(), on_delivery=self.on_delivery)
                i += 1
                self.producer.poll(0)
            except BufferError:   # the client's queue is full: serve delivery reports until there is room
                self.producer.poll(0.1)
        self.producer.flush(30)
        self.producer = None      # no reconnection attempts once the test restarts the broker

    def stop(self):
        self.stopping.set()
        self.join(30)
        assert not self.is_alive()


def read_all(bootstrap, topic):
    from kafka import KafkaConsumer, TopicPartition
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, consumer_timeout_ms=5000)
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    end = consumer.end_offsets([tp])[tp]
    values = []
    while consumer.position(tp) < end:
        for records in consumer.poll(timeout_ms=2000).values():
            values += [r.value.decode() for r in records]
    consumer.close()
    return values


def log_bytes(log) -> bytes:
    """Every batch of ``log``, as stored."""
    out, offset = b"", log.log_start_offset
    while offset < log.log_end_offset:
        chunk = log.read(offset, 1 << 20, None, True).records.read_bytes()
        out += chunk
        offset = [b for b in MemoryRecords.readable_records(chunk).batches()][-1].last_offset + 1
    return out


def partition_dirs(log_dir):
    return sorted(name for name in os.listdir(log_dir) if name.startswith("moved-0"))


def test_kafka_python_describes_and_moves_a_replica_while_records_are_produced(broker_factory, tmp_path):
    from kafka.errors import NoError
    broker, dirs = start_broker(broker_factory, tmp_path)
    admin = kafka_python_admin(broker)
    topic = "moved"
    create_topic(admin, topic)
    wait_until(lambda: dirs_of(admin, topic), 15, "the partition's log to exist")
    [source] = dirs_of(admin, topic)
    [target] = [d for d in dirs if d != source]

    before = [f"before-{i}" for i in range(20000)]
    produce(broker.bootstrap, topic, before)
    size, lag, is_future = dirs_of(admin, topic)[source]
    assert size > 3 * SEGMENT_BYTES and lag == 0 and is_future is False

    producer = BackgroundProducer(broker.bootstrap, topic)
    producer.start()
    wait_until(lambda: len(producer.acked) >= 1000, 30, "the producer to be under way")
    result = admin.alter_replica_log_dirs({(topic, 0, 0): target})
    assert {(tpr.topic, tpr.partition, tpr.broker_id): err for tpr, err in result.items()} == {(topic, 0, 0): NoError}
    acked_when_moving = len(producer.acked)
    wait_until(lambda: set(dirs_of(admin, topic)) == {target} and not dirs_of(admin, topic)[target][2], 60,
               "the replica to move to the other dir")
    acked_when_moved = len(producer.acked)
    assert acked_when_moved > acked_when_moving, "records were acknowledged while the replica moved"
    wait_until(lambda: len(producer.acked) >= acked_when_moved + 1000, 30, "more records after the move")
    producer.stop()
    assert producer.errors == []

    values = read_all(broker.bootstrap, topic)
    assert len(values) == len(set(values))
    assert set(before + producer.acked) <= set(values)
    # the old dir no longer holds the partition; the renamed copy goes after log.segment.delete.delay.ms
    assert partition_dirs(target) == ["moved-0"]
    wait_until(lambda: partition_dirs(source) == [], 15, "the old copy to be deleted")
    log = broker.log_text()
    assert re.search(r"\[ReplicaAlterLogDirsThread-\d+\]: Beginning/resuming copy of partition moved-0 from offset 0",
                     log)
    assert "The current replica is successfully replaced with the future replica for moved-0" in log
    print(f"records acknowledged: {acked_when_moving} before the move, {acked_when_moved - acked_when_moving} "
          f"during it, {len(producer.acked)} in all")

    broker.restart()
    admin.close()
    admin = kafka_python_admin(broker)
    assert set(dirs_of(admin, topic)) == {target}
    assert read_all(broker.bootstrap, topic) == values
    admin.close()


def test_errors_for_an_unknown_dir_and_an_unknown_partition(broker_factory, tmp_path):
    # Kafka 2.4 ReplicaManager.alterReplicaLogDirs: getPartitionOrException(expectLeader = false) -- a partition the
    # metadata lacks is UNKNOWN_TOPIC_OR_PARTITION (REPLICA_NOT_AVAILABLE is for one known but not created here)
    from kafka.errors import LogDirNotFoundError, UnknownTopicOrPartitionError
    broker, dirs = start_broker(broker_factory, tmp_path)
    admin = kafka_python_admin(broker)
    create_topic(admin, "moved")
    wait_until(lambda: dirs_of(admin, "moved"), 15, "the partition's log to exist")
    result = admin.alter_replica_log_dirs({("moved", 0, 0): str(tmp_path / "elsewhere"),
                                           ("not-here", 0, 0): dirs[0]})
    errors = {(tpr.topic, tpr.partition): err for tpr, err in result.items()}
    assert errors == {("moved", 0): LogDirNotFoundError, ("not-here", 0): UnknownTopicOrPartitionError}
    admin.close()
    # kafkalite's own admin client, which kafka-log-dirs uses, gets the same answers
    from kafkalite.clients.admin.admin_client import KafkaAdminClient
    from kafkalite.protocol.errors import Errors
    with KafkaAdminClient({"bootstrap.servers": broker.bootstrap}) as own:
        assert own.alter_replica_log_dirs({("moved", 0, 0): str(tmp_path / "elsewhere"), ("not-here", 0, 0): dirs[0]}) \
            == {("moved", 0, 0): Errors.LOG_DIR_NOT_FOUND, ("not-here", 0, 0): Errors.UNKNOWN_TOPIC_OR_PARTITION}
        [(log_dir, info)] = [(d, i) for d, i in own.describe_log_dirs([0])[0].items() if i.replica_infos]
        assert info.error is Errors.NONE and list(info.replica_infos) == [TopicPartition("moved", 0)]


def test_kafka_log_dirs_describe_prints_kafkas_output(broker_factory, tmp_path):
    broker, dirs = start_broker(broker_factory, tmp_path)
    admin = kafka_python_admin(broker)
    create_topic(admin, "moved")
    create_topic(admin, "other")
    wait_until(lambda: dirs_of(admin, "moved") and dirs_of(admin, "other"), 15, "both logs to exist")
    admin.close()
    produce(broker.bootstrap, "moved", ["x"] * 10)

    out = subprocess.run([str(REPO_ROOT / "bin" / "kafka-log-dirs"), "--bootstrap-server", broker.bootstrap,
                          "--describe", "--topic-list", "moved"],
                         capture_output=True, text=True, timeout=60, env=dict(os.environ, PYTHON=sys.executable))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == ["Querying brokers for log directories information",
                         "Received log directory information from brokers 0"]
    assert lines[2].startswith('{"version":1,"brokers":[{"broker":0,"logDirs":[{"logDir":')
    described = json.loads(lines[2])
    [broker_entry] = described["brokers"]
    log_dirs = {d["logDir"]: d for d in broker_entry["logDirs"]}
    assert set(log_dirs) == set(dirs)
    assert all(d["error"] is None for d in log_dirs.values())
    partitions = [p for d in log_dirs.values() for p in d["partitions"]]
    assert len(partitions) == 1 and set(partitions[0]) == {"partition", "size", "offsetLag", "isFuture"}
    assert partitions[0]["partition"] == "moved-0" and partitions[0]["size"] > 0
    assert partitions[0]["offsetLag"] == 0 and partitions[0]["isFuture"] is False

    # --broker-list and --command-config (admin client properties); no --topic-list: every partition
    config = tmp_path / "admin.properties"
    config.write_text("client.id=log-dirs-test\nrequest.timeout.ms=20000\n")
    out = subprocess.run([str(REPO_ROOT / "bin" / "kafka-log-dirs"), "--bootstrap-server", broker.bootstrap,
                          "--describe", "--broker-list", "0", "--command-config", str(config)],
                         capture_output=True, text=True, timeout=60, env=dict(os.environ, PYTHON=sys.executable))
    assert out.returncode == 0, out.stderr
    described = json.loads(out.stdout.splitlines()[2])
    assert {p["partition"] for d in described["brokers"][0]["logDirs"] for p in d["partitions"]} >= {"moved-0",
                                                                                                  "other-0"}

    usage = subprocess.run([str(REPO_ROOT / "bin" / "kafka-log-dirs"), "--describe"], capture_output=True,
                           text=True, timeout=60, env=dict(os.environ, PYTHON=sys.executable))
    assert usage.returncode == 1 and 'Missing required argument "[bootstrap-server]"' in usage.stderr


def test_both_replicas_of_a_replicated_partition_move_while_acks_all_records_are_produced(tmp_path):
    # two in-process brokers with two log dirs each, replication factor 2 and min.insync.replicas 2: the leader's
    # and the follower's replicas move at once, while the follower's ReplicaFetcherThread keeps appending to the
    # log its ReplicaAlterLogDirsThread copies; nothing acknowledged is lost and the ISR stays whole
    from kafka.errors import NoError
    from kafkalite.testing.embedded_kafka_cluster import EmbeddedKafkaCluster
    cluster = EmbeddedKafkaCluster(2, base_dir=str(tmp_path / "cluster"), replication_factor=2,
                                   min_insync_replicas=2)
    for i, b in enumerate(cluster.brokers):
        b.props["log.dirs"] = ",".join(str(tmp_path / f"broker-{i}" / d) for d in ("a", "b"))
    cluster.start()
    admin = None
    try:
        from kafka.admin import KafkaAdminClient
        admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=10000)
        topic = "moved"
        create_topic(admin, topic, replication_factor=2)
        wait_until(lambda: all(dirs_of(admin, topic, broker=i) for i in (0, 1)), 15, "both replicas' logs")
        produce(cluster.bootstrap_servers, topic, [f"before-{i}" for i in range(5000)])
        targets = {}
        for i in (0, 1):
            [source] = dirs_of(admin, topic, broker=i)
            [targets[i]] = [d for d in cluster.brokers[i].props["log.dirs"].split(",") if d != source]

        producer = BackgroundProducer(cluster.bootstrap_servers, topic)
        producer.start()
        wait_until(lambda: len(producer.acked) >= 1000, 30, "the producer to be under way")
        result = admin.alter_replica_log_dirs({(topic, 0, i): targets[i] for i in (0, 1)})
        assert set(result.values()) == {NoError}
        wait_until(lambda: all(set(dirs_of(admin, topic, broker=i)) == {targets[i]} for i in (0, 1)), 60,
                   "both replicas to move")
        moved_at = len(producer.acked)
        wait_until(lambda: len(producer.acked) >= moved_at + 1000, 30, "more records after the moves")
        producer.stop()
        assert producer.errors == []

        values = read_all(cluster.bootstrap_servers, topic)
        assert len(values) == len(set(values)) and set(producer.acked) <= set(values)
        partitions = [b.server.replica_manager.get_partition(TopicPartition(topic, 0)) for b in cluster.brokers]
        leader = next(p for p in partitions if p.is_leader())
        assert leader.in_sync_replica_ids == {0, 1}
        wait_until(lambda: len({p.log.log_end_offset for p in partitions}) == 1, 15, "the follower to catch up")
        assert [p.log.parent_dir for p in partitions] == [targets[0], targets[1]]
        assert log_bytes(partitions[0].log) == log_bytes(partitions[1].log)   # the follower's log is the leader's
    finally:
        if admin is not None:
            admin.close()
        cluster.stop()

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


def create_topic(admin, topic):
    from kafka.admin import NewTopic
    admin.create_topics([NewTopic(topic, 1, 1, topic_configs={"segment.bytes": str(SEGMENT_BYTES)})])


def dirs_of(admin, topic, partition=0):
    """{log dir: (size, offset lag, is future)} of the partition's logs, as DescribeLogDirs reports them."""
    found = {}
    [broker_dirs] = admin.describe_log_dirs()
    for result in broker_dirs["log_dirs"]:
        assert result["error_code"] == 0, result
        for t in result["topics"]:
            for p in t["partitions"]:
                if t["name"] == topic and p["partition_index"] == partition:
                    found[result["log_dir"]] = (p["partition_size"], p["offset_lag"], p["is_future_key"])
    return found


def produce(broker, topic, values):
    from confluent_kafka import Producer
    # batches smaller than segment.bytes: a larger one would be refused (RECORD_BATCH_TOO_LARGE)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 5, "batch.size": 8192})
    errors = []
    for v in values:
        producer.produce(topic, value=v.encode(), on_delivery=lambda err, _: err and errors.append(err))
    assert producer.flush(30) == 0
    assert errors == []


class BackgroundProducer(threading.Thread):
    """Produces numbered records with acks=all as fast as the client takes them, until stopped; keeps the
    acknowledged ones."""

    def __init__(self, broker, topic):
        super().__init__(name="log-dirs-test-producer", daemon=True)
        from confluent_kafka import Producer
        self.producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 2,
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

    def stop(self):
        self.stopping.set()
        self.join(30)
        assert not self.is_alive()


def read_all(broker, topic):
    from kafka import KafkaConsumer, TopicPartition
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, enable_auto_commit=False, consumer_timeout_ms=5000)
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
    produce(broker, topic, before)
    size, lag, is_future = dirs_of(admin, topic)[source]
    assert size > 3 * SEGMENT_BYTES and lag == 0 and is_future is False

    producer = BackgroundProducer(broker, topic)
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

    values = read_all(broker, topic)
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
    assert read_all(broker, topic) == values
    admin.close()


def test_errors_for_an_unknown_dir_and_a_partition_not_hosted(broker_factory, tmp_path):
    from kafka.errors import LogDirNotFoundError, ReplicaNotAvailableError
    broker, dirs = start_broker(broker_factory, tmp_path)
    admin = kafka_python_admin(broker)
    create_topic(admin, "moved")
    wait_until(lambda: dirs_of(admin, "moved"), 15, "the partition's log to exist")
    result = admin.alter_replica_log_dirs({("moved", 0, 0): str(tmp_path / "elsewhere"),
                                           ("not-here", 0, 0): dirs[0]})
    errors = {(tpr.topic, tpr.partition): err for tpr, err in result.items()}
    assert errors == {("moved", 0): LogDirNotFoundError, ("not-here", 0): ReplicaNotAvailableError}
    admin.close()
    # kafkalite's own admin client, which kafka-log-dirs uses, gets the same answers
    from kafkalite.clients.admin.admin_client import KafkaAdminClient
    from kafkalite.protocol.errors import Errors
    with KafkaAdminClient({"bootstrap.servers": broker.bootstrap}) as own:
        assert own.alter_replica_log_dirs({("moved", 0, 0): str(tmp_path / "elsewhere"), ("not-here", 0, 0): dirs[0]}) \
            == {("moved", 0, 0): Errors.LOG_DIR_NOT_FOUND, ("not-here", 0, 0): Errors.REPLICA_NOT_AVAILABLE}
        [(log_dir, info)] = [(d, i) for d, i in own.describe_log_dirs([0])[0].items() if i.replica_infos]
        assert info.error is Errors.NONE and list(info.replica_infos) == [TopicPartition("moved", 0)]


def test_kafka_log_dirs_describe_prints_kafkas_output(broker_factory, tmp_path):
    broker, dirs = start_broker(broker_factory, tmp_path)
    admin = kafka_python_admin(broker)
    create_topic(admin, "moved")
    create_topic(admin, "other")
    wait_until(lambda: dirs_of(admin, "moved") and dirs_of(admin, "other"), 15, "both logs to exist")
    admin.close()
    produce(broker, "moved", ["x"] * 10)

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

    usage = subprocess.run([str(REPO_ROOT / "bin" / "kafka-log-dirs"), "--describe"], capture_output=True,
                           text=True, timeout=60, env=dict(os.environ, PYTHON=sys.executable))
    assert usage.returncode == 1 and 'Missing required argument "[bootstrap-server]"' in usage.stderr

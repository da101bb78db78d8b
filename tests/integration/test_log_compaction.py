"""No Kafka counterpart (Kafka's LogCleanerIntegrationTest is the nearest): log compaction seen by real clients.

- confluent-kafka writes 100,000 updates over 1,000 keys plus tombstones for 100 of them; after two cleaner
  passes a confluent-kafka reader sees exactly the latest value of each live key, at the offset the producer
  was given (gaps, never renumbering), no tombstone (delete.retention.ms=0), and the log is much smaller.
- kill -9 during a clean (a test-only crash point, KAFKALITE_TEST_CLEANER_CRASH, makes the broker process
  os._exit in the middle of Log.replace_segments) leaves a log the restarted broker recovers to the same
  values, with no ``.cleaned`` / ``.swap`` file left.
- a transactional confluent-kafka producer that commits and aborts in turn: after cleaning even a
  read_uncommitted reader sees no aborted record, a read_committed one the latest committed value per key.
- ``__consumer_offsets`` is compacted: thousands of commits of one group/partition shrink to a few records,
  and the committed offset survives a restart.

Cleaning is held back while the data is written (``min.compaction.lag.ms`` of an hour) and released with an
incremental AlterConfigs, so the "before" size is the size of the dirty log. Every wait is on something the
broker writes: its ``cleaner-offset-checkpoint`` file, its log directory, or its exit.
Set KAFKALITE_LONG_COMPACTION=1 for the long variant (1,000,000 updates over 10,000 keys).
"""
import os
from pathlib import Path

import pytest

from harness import BrokerProcess, wait_until

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic  # noqa: E402

LONG = os.environ.get("KAFKALITE_LONG_COMPACTION") == "1"
UPDATES, KEYS, TOMBSTONES = (1_000_000, 10_000, 1_000) if LONG else (100_000, 1_000, 100)
SEGMENT_BYTES = 1 << 20 if LONG else 100_000

BROKER = {"log.cleaner.backoff.ms": "50", "log.cleaner.dedupe.buffer.size": str(4 << 20),
          "log.retention.check.interval.ms": "600000", "log.initial.task.delay.ms": "0"}


def topic_configs(lag_ms):
    return {"cleanup.policy": "compact", "segment.bytes": str(SEGMENT_BYTES), "min.cleanable.dirty.ratio": "0.01",
            "delete.retention.ms": "0", "min.compaction.lag.ms": str(lag_ms)}


def create_topic(bootstrap, name, lag_ms=3_600_000):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, 1, 1, config=topic_configs(lag_ms))])[name].result(20)
    return admin


def release_cleaner(admin, name):
    entry = ConfigEntry("min.compaction.lag.ms", "0", incremental_operation=AlterConfigOpType.SET)
    for f in admin.incremental_alter_configs([ConfigResource("TOPIC", name, incremental_configs=[entry])]).values():
        f.result(20)


def produce(bootstrap, topic, items):
    """Write (key, value) pairs in order; return {offset: (key, value)} from the delivery reports."""
    written, errors = {}, []

    def on_delivery(err, msg):
        if err is not None:
            errors.append(err)
        else:
            written[msg.offset()] = (msg.key(), msg.value())
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 16384, "enable.idempotence": False,
                  "acks": "all"})
    for i, (k, v) in enumerate(items):
        while True:
            try:
                p.produce(topic, key=k, value=v, partition=0, on_delivery=on_delivery)
                break
            except BufferError:
                p.poll(0.05)
        if i % 1000 == 0:
            p.poll(0)
    assert p.flush(60) == 0 and not errors, errors
    return written


def consume_all(bootstrap, topic, isolation="read_committed"):
    """Every record of partition 0 as (offset, key, value), read up to the high watermark."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{os.getpid()}-{id(topic)}",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest", "isolation.level": isolation})
    try:
        marks = []

        def high_watermark():
            # after a restart the cleaner may have run before the controller's LeaderAndIsr made the partition
            # led again: until then the client knows no such partition (UNKNOWN_PARTITION)
            try:
                marks.append(c.get_watermark_offsets(TopicPartition(topic, 0), timeout=5)[1])
                return True
            except KafkaException:
                return False
        wait_until(high_watermark, 60, f"the high watermark of {topic} (the partition led)")
        high = marks[-1]
        c.assign([TopicPartition(topic, 0, 0)])
        out = []
        # the position, not the last record: a transaction marker at the end is never delivered
        wait_until(lambda: _drain(c, out) or c.position([TopicPartition(topic, 0)])[0].offset >= high, 60,
                   f"a read of {topic} to {high}")
        return out
    finally:
        c.close()


def _drain(c, out):
    for m in c.consume(5000, 0.5):
        if m.error() is None:
            out.append((m.offset(), m.key(), m.value()))
    return False


def partition_dir(broker, topic):
    return Path(broker.log_dirs) / f"{topic}-0"


def cleaner_checkpoint(broker, topic):
    path = Path(broker.log_dirs) / "cleaner-offset-checkpoint"
    try:
        lines = path.read_text().split("\n")[2:]
    except FileNotFoundError:
        return -1
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and parts[0] == topic and parts[1] == "0":
            return int(parts[2])
    return -1


def log_bytes(broker, topic):
    d = partition_dir(broker, topic)
    return sum(p.stat().st_size for p in d.glob("*.log"))


def leftovers(broker, topic):
    return [p.name for p in partition_dir(broker, topic).iterdir() if p.name.endswith((".cleaned", ".swap"))]


def updates(n, keys, value_prefix=b"v", first_key=0):
    """n updates cycling over keys first_key .. keys-1."""
    span = keys - first_key
    return [(b"key-%d" % (first_key + i % span), value_prefix + b"-%d" % i) for i in range(n)]


def latest_by_key(written):
    latest = {}
    for off in sorted(written):
        k, v = written[off]
        latest[k] = (off, v)
    return latest


@pytest.fixture
def broker(tmp_path):
    b = BrokerProcess(tmp_path / "broker", overrides=BROKER).start()
    yield b
    b.stop()


@pytest.mark.timeout(600 if LONG else 240)
def test_compacted_topic_keeps_latest_value_per_key_at_its_offset(broker):
    topic = "compacted"
    admin = create_topic(broker.bootstrap, topic)
    written = produce(broker.bootstrap, topic, updates(UPDATES, KEYS)
                      + [(b"key-%d" % k, None) for k in range(TOMBSTONES)])
    last_tombstone = max(written)
    # updates of live keys after the tombstones, so that these leave the active segment
    written.update(produce(broker.bootstrap, topic, updates(2 * SEGMENT_BYTES // 30, KEYS, b"w", TOMBSTONES)))
    size_before = log_bytes(broker, topic)
    release_cleaner(admin, topic)
    wait_until(lambda: cleaner_checkpoint(broker, topic) > last_tombstone, 120, "a first clean past the tombstones")
    # a tombstone lives one clean plus delete.retention.ms (0): more dirty data brings the second pass
    filler_start = max(written) + 1
    written.update(produce(broker.bootstrap, topic, updates(3 * SEGMENT_BYTES // 30, KEYS, b"x", TOMBSTONES)))
    wait_until(lambda: cleaner_checkpoint(broker, topic) > filler_start, 120, "a second clean")
    checkpoint = cleaner_checkpoint(broker, topic)

    records = consume_all(broker.bootstrap, topic)
    latest = latest_by_key(written)
    for off, k, v in records:
        assert written[off] == (k, v), f"offset {off} holds {(k, v)}, written as {written[off]}"   # offsets unchanged
    seen = {}
    for off, k, v in records:
        seen[k] = (off, v)
    live = {k: ov for k, ov in latest.items() if ov[1] is not None}
    assert seen == live                                        # exactly the latest value of each live key
    assert len(live) == KEYS - TOMBSTONES
    assert not [r for r in records if r[2] is None]            # no tombstone older than delete.retention.ms
    cleaned_keys = [k for off, k, _ in records if off < checkpoint]
    assert len(cleaned_keys) == len(set(cleaned_keys))         # one record per key in the cleaned part
    offsets = [off for off, _, _ in records]
    assert offsets == sorted(offsets) and len(offsets) < max(written) + 1   # gaps, never renumbered
    size_after = log_bytes(broker, topic)
    assert size_after < size_before / 4, (size_before, size_after)
    assert not leftovers(broker, topic)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("crash_point", ["after-swap-rename", "after-old-deleted"])
def test_kill9_during_clean_recovers_the_same_values(tmp_path, monkeypatch, crash_point):
    monkeypatch.setenv("KAFKALITE_TEST_CLEANER_CRASH", crash_point)
    b = BrokerProcess(tmp_path / "broker", overrides=BROKER).start()
    try:
        topic = "crashy"
        admin = create_topic(b.bootstrap, topic)
        # "cold" keys written once, first: their only value lives in the segment the crashed swap replaces
        cold = [(b"cold-%d" % k, b"only-%d" % k) for k in range(50)]
        written = produce(b.bootstrap, topic, cold + updates(20_000, 1_000) + [(b"key-%d" % k, None) for k in range(100)]
                          + updates(2 * SEGMENT_BYTES // 30, 1_000, b"w", 100))
        release_cleaner(admin, topic)
        wait_until(lambda: not b.running, 60, "the broker to die at the crash point")
        assert b.exit_codes[-1] == 137 if b.exit_codes else b.proc.returncode == 137
        names = [p.name for p in partition_dir(b, topic).iterdir()]
        assert any(n.endswith(".swap") for n in names), names       # it died in the middle of a swap
        monkeypatch.delenv("KAFKALITE_TEST_CLEANER_CRASH")
        b.kill9()      # collect the exit code
        b.start()
        last = max(written)
        wait_until(lambda: cleaner_checkpoint(b, topic) >= last - 2 * SEGMENT_BYTES // 30, 120, "a clean after restart")
        records = consume_all(b.bootstrap, topic)
        for off, k, v in records:
            assert written[off] == (k, v)
        seen = {}
        for off, k, v in records:
            seen[k] = v
        assert {k: v for k, v in seen.items() if v is not None} == {
            k: ov[1] for k, ov in latest_by_key(written).items() if ov[1] is not None}
        assert all(seen.get(k) == v for k, v in cold)
        assert not leftovers(b, topic)
    finally:
        b.stop()


@pytest.mark.timeout(240)
def test_consumer_offsets_topic_is_compacted(tmp_path):
    b = BrokerProcess(tmp_path / "broker", overrides={
        **BROKER, "offsets.topic.num.partitions": "1", "offsets.topic.segment.bytes": "20000"}).start()
    try:
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        admin.create_topics([NewTopic("t", 1, 1)])["t"].result(20)
        c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "committer", "enable.auto.commit": False})
        for i in range(3000):
            c.commit(offsets=[TopicPartition("t", 0, i + 1)], asynchronous=False)
        _, high = c.get_watermark_offsets(TopicPartition("__consumer_offsets", 0), timeout=20)
        c.close()
        assert high >= 3000        # 3,000 commit records of > 100 bytes each were written: > 300 kB uncompacted
        # compacted: the active segment (< offsets.topic.segment.bytes) plus one record per key
        wait_until(lambda: cleaner_checkpoint(b, "__consumer_offsets") > 0
                   and log_bytes(b, "__consumer_offsets") < 300_000 / 8, 120, "__consumer_offsets to be compacted")
        b.restart()
        c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "committer", "enable.auto.commit": False})
        try:
            assert c.committed([TopicPartition("t", 0)], timeout=20)[0].offset == 3000
        finally:
            c.close()
    finally:
        b.stop()


@pytest.mark.timeout(240)
def test_aborted_transactions_are_removed_by_compaction(broker):
    """A transactional confluent-kafka producer commits and aborts in turn; after cleaning, even a
    read_uncommitted reader sees no aborted value (the records are gone from the log), and a read_committed
    reader sees the latest committed value of each key."""
    topic = "txn-compacted"
    admin = create_topic(broker.bootstrap, topic)
    p = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": "compaction-txn", "linger.ms": 5,
                  "batch.size": 16384})
    p.init_transactions(30)
    latest = {}
    for t in range(20):
        p.begin_transaction()
        for i in range(500):
            k, v = b"key-%d" % (i % 100), b"%s-%d-%d" % (b"aborted" if t % 2 else b"committed", t, i)
            p.produce(topic, key=k, value=v, partition=0)
            if t % 2 == 0:
                latest[k] = v
        assert p.flush(30) == 0     # the aborted records reach the log before the abort
        if t % 2:
            p.abort_transaction(30)
        else:
            p.commit_transaction(30)
    p.begin_transaction()       # committed filler, past the last marker, so the markers leave the active segment
    for i in range(2 * SEGMENT_BYTES // 30):
        k = b"filler-%d" % (i % 50)
        p.produce(topic, key=k, value=b"f-%d" % i, partition=0)
        latest[k] = b"f-%d" % i
        if i % 1000 == 0:
            p.poll(0)
    p.commit_transaction(30)
    size_before = log_bytes(broker, topic)
    release_cleaner(admin, topic)
    wait_until(lambda: cleaner_checkpoint(broker, topic) > 10_000, 120, "a clean past the transactions")
    uncommitted = consume_all(broker.bootstrap, topic, "read_uncommitted")
    assert not [r for r in uncommitted if r[2] is not None and r[2].startswith(b"aborted")]
    seen = {}
    for off, k, v in consume_all(broker.bootstrap, topic, "read_committed"):
        seen[k] = v
    assert seen == latest
    assert log_bytes(broker, topic) < size_before / 4

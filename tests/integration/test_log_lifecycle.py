"""No Kafka counterpart (Kafka's LogTest covers these with MockTime, and its
LogOffsetTest/ListOffsetsRequestTest with its own clients): the life of a log on a broker process.

- Segments roll at the topic's ``segment.bytes``: the partition directory fills with segment
  files named after their base offsets (S30), and reading across them gives offsets 0..n-1.
- Retention (``retention.ms``, checked every ``log.retention.check.interval.ms``) deletes the
  segments whose newest record is too old and moves the log start offset, which ListOffsets
  (earliest) reports to confluent-kafka and kafka-python alike. The LogManager waits
  ``log.initial.task.delay.ms`` (Kafka's default 30 s) before its first retention run; the test
  sets it to 5 s.
- ListOffsets by timestamp (``offsets_for_times``) finds the first offset whose timestamp is at
  or after the target, through the time index of the right segment (S32).
"""
import time

import pytest

import clients
from clients import Produced
from harness import wait_until

SEGMENT_BYTES = 16384
SMALL_BATCHES = {"batch.size": 4000, "linger.ms": 5}


def live_segments(log_dirs, topic, partition=0) -> list[int]:
    """Base offsets of the partition's segment files (not those renamed ``.deleted``)."""
    return sorted(int(p.name[:-len(".log")]) for p in (log_dirs / f"{topic}-{partition}").glob("*.log"))


def records_with_timestamps(count, first_timestamp, step_ms=10, prefix="r"):
    return [Produced(0, f"{prefix}-{i:05d}".encode(), (f"{prefix}-value-{i:05d}-" + "z" * 80).encode(),
                     (), first_timestamp + step_ms * i) for i in range(count)]


def test_segments_roll_at_segment_bytes(broker, unique_topic):
    clients.create_topic(broker.bootstrap, unique_topic, 1, {"segment.bytes": SEGMENT_BYTES})
    records = records_with_timestamps(2000, int(time.time() * 1000) - 60_000)
    clients.produce_confluent(broker.bootstrap, unique_topic, records, SMALL_BATCHES)

    bases = live_segments(broker.log_dirs, unique_topic)
    assert len(bases) >= 5, f"only {len(bases)} segments for ~{2000 * 110} bytes at segment.bytes={SEGMENT_BYTES}"
    assert bases[0] == 0
    d = broker.log_dirs / f"{unique_topic}-0"
    for base in bases[:-1]:                 # every rolled segment stayed within segment.bytes
        assert (d / f"{base:020d}.log").stat().st_size <= SEGMENT_BYTES
        assert (d / f"{base:020d}.index").exists() and (d / f"{base:020d}.timeindex").exists()

    consumed = clients.read_confluent(broker.bootstrap, unique_topic, [0], len(records))
    assert [c.offset for c in consumed] == list(range(len(records)))
    assert [c.value for c in consumed] == [r.value for r in records]
    assert set(bases) <= {c.offset for c in consumed}, "a segment is not named after an offset it starts at"


@pytest.mark.timeout(150)
def test_retention_deletes_old_segments_and_moves_log_start_offset(broker_factory, unique_topic):
    b = broker_factory({"log.retention.check.interval.ms": 300, "log.initial.task.delay.ms": 5000})
    clients.create_topic(b.bootstrap, unique_topic, 1, {"segment.bytes": SEGMENT_BYTES, "retention.ms": 60_000})
    now = int(time.time() * 1000)
    old = records_with_timestamps(1500, now - 3_600_000, prefix="old")     # an hour old: past retention
    fresh = records_with_timestamps(20, now, prefix="fresh")
    clients.produce_confluent(b.bootstrap, unique_topic, old, SMALL_BATCHES)
    clients.produce_confluent(b.bootstrap, unique_topic, fresh, SMALL_BATCHES)
    total = len(old) + len(fresh)
    assert len(live_segments(b.log_dirs, unique_topic)) >= 5

    from confluent_kafka import Consumer, TopicPartition
    consumer = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "kafkalite-watermarks"})
    try:
        def earliest():
            low, high = consumer.get_watermark_offsets(TopicPartition(unique_topic, 0), timeout=5)
            assert high == total
            return low
        assert earliest() == 0
        # The first retention run comes log.initial.task.delay.ms after start-up.
        low = wait_until(lambda: earliest() or None, 60, "retention to move the log start offset")
    finally:
        consumer.close()

    remaining = live_segments(b.log_dirs, unique_topic)
    assert remaining[0] == low, "the log start offset is not the base offset of the first kept segment"
    assert 0 < low <= len(old), "retention deleted a segment holding fresh records, or nothing"
    from kafka import KafkaConsumer, TopicPartition as KpTp
    kp = KafkaConsumer(bootstrap_servers=b.bootstrap)
    try:
        assert kp.beginning_offsets([KpTp(unique_topic, 0)]) == {KpTp(unique_topic, 0): low}
    finally:
        kp.close()
    consumed = clients.read_confluent(b.bootstrap, unique_topic, [0], total - low,
                                      config={"auto.offset.reset": "earliest"})
    assert [c.offset for c in consumed][-len(fresh):] == list(range(len(old), total))
    assert [c.value for c in consumed][-len(fresh):] == [r.value for r in fresh]


def test_offsets_for_times_finds_first_offset_at_or_after(broker, unique_topic):
    clients.create_topic(broker.bootstrap, unique_topic, 1, {"segment.bytes": SEGMENT_BYTES})
    base = int(time.time() * 1000) - 600_000
    records = records_with_timestamps(2000, base, step_ms=10)
    clients.produce_confluent(broker.bootstrap, unique_topic, records, SMALL_BATCHES)
    assert len(live_segments(broker.log_dirs, unique_topic)) >= 5, "the lookups should cross segments"

    cases = {                                   # target timestamp -> expected offset
        base - 5_000: 0,                        # before everything: the first record
        base: 0,
        base + 10 * 777: 777,                   # an exact timestamp
        base + 10 * 777 + 1: 778,               # between two records: the later one
        base + 10 * 1500 - 3: 1500,
        base + 10 * 1999: 1999,                 # the last record
    }
    from confluent_kafka import Consumer, TopicPartition
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "kafkalite-times"})
    try:
        for target, offset in cases.items():
            [tp] = consumer.offsets_for_times([TopicPartition(unique_topic, 0, target)], timeout=10)
            assert tp.error is None and tp.offset == offset, f"confluent: timestamp {target - base} -> {tp.offset}"
        [after] = consumer.offsets_for_times([TopicPartition(unique_topic, 0, base + 10 * 2000)], timeout=10)
        assert after.offset == -1, "a timestamp after the last record finds no offset"
    finally:
        consumer.close()

    from kafka import KafkaConsumer, TopicPartition as KpTp
    kp = KafkaConsumer(bootstrap_servers=broker.bootstrap)
    tp = KpTp(unique_topic, 0)
    try:
        for target, offset in cases.items():
            found = kp.offsets_for_times({tp: target})[tp]
            assert found is not None and (found.offset, found.timestamp) == (offset, base + 10 * offset)
        assert kp.offsets_for_times({tp: base + 10 * 2000})[tp] is None
    finally:
        kp.close()

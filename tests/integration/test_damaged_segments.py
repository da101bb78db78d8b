"""No Kafka counterpart (Kafka 2.4 trusts its segments after a clean shutdown): a broker stopped cleanly
whose active segment was then damaged -- zeros or garbage appended, the last batch cut short, or the
.log cut below its last index entry -- starts, logs what it dropped, and serves every valid record and
every record produced afterwards, to a real client."""
import os

import pytest

import clients


def damage(segment, index, how):
    size = os.path.getsize(segment)
    if how == "zero-tail":
        with open(segment, "ab") as f:
            f.write(b"\0" * 4096)
    elif how == "garbage-tail":
        with open(segment, "ab") as f:
            f.write(os.urandom(2048))
    elif how == "cut-batch":
        os.truncate(segment, size - 10)
    elif how == "index-past-end":
        with open(index, "rb") as f:
            entries = f.read()
        last_position = int.from_bytes(entries[-4:], "big")
        assert last_position > 0, "the index has no entry to point past the end"
        os.truncate(segment, last_position - 1)


@pytest.mark.parametrize("how", ["zero-tail", "garbage-tail", "cut-batch", "index-past-end"])
def test_damaged_segment_after_clean_shutdown(broker_factory, unique_topic, how):
    b = broker_factory({"log.index.interval.bytes": "1"})
    clients.create_topic(b.bootstrap, unique_topic, 1)
    before = clients.make_records(50)
    from confluent_kafka import Producer
    producer = Producer({"bootstrap.servers": b.bootstrap, "linger.ms": 0})
    for r in before:   # one batch per record, so damage at the end costs at most a few records
        producer.produce(unique_topic, key=r.key, value=r.value, partition=0)
        assert producer.flush(10) == 0
    assert b.stop() == 0
    part = b.log_dirs / f"{unique_topic}-0"
    segment, index = part / "00000000000000000000.log", part / "00000000000000000000.index"
    damage(segment, index, how)
    since = b.log_size()
    b.start()
    log = b.log_text(since)
    assert "after a clean shutdown" in log or "beyond the end" in log, log[-3000:]
    after = clients.make_records(20)
    clients.produce_confluent(b.bootstrap, unique_topic, after)
    from confluent_kafka import Consumer, TopicPartition
    consumer = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "damaged-segments"})
    end = consumer.get_watermark_offsets(TopicPartition(unique_topic, 0), timeout=10)[1]
    consumer.close()
    got = clients.read_confluent(b.bootstrap, unique_topic, [0], end, timeout=30)
    assert len(got) == end
    values = [c.value for c in got]
    kept = values[:len(values) - len(after)]
    assert values[len(kept):] == [r.value for r in after], "records produced after the restart are missing"
    assert kept == [r.value for r in before[:len(kept)]] and len(kept) >= 40, f"{len(kept)} of 50 kept"
    if how in ("zero-tail", "garbage-tail"):
        assert len(kept) == 50

"""No Kafka counterpart (Kafka's LogTest recovery cases and the system tests' clean/hard bounce):
nothing acknowledged is lost, and a damaged log tail is cut off at start-up.

- A confluent-kafka producer (acks=1) writes in a thread while the broker process is stopped
  with SIGTERM (clean shutdown) or SIGKILL (``kill -9``); its delivery callbacks record every
  acknowledged offset. After a restart each of those offsets holds the record acknowledged there.
- A segment whose tail was cut short, or whose last batch had a byte flipped, while the broker was
  down after a ``kill -9``: recovery (``LogLoader.recover_log`` -> ``LogSegment.recover``) validates the
  batches after the recovery point, truncates to the last valid one and logs "Corruption found
  ... dropped N invalid bytes"; every earlier record reads back. (As in Kafka, recovery runs only
  after an unclean shutdown: a clean one leaves the ``.kafka_cleanshutdown`` marker and the
  segments are trusted.)
"""
import os
import re
import struct
import threading

import pytest

import clients
from harness import RawConnection, wait_until


class AckedProducer(threading.Thread):
    """Produces ``key-<n>``/``value-<n>`` to partition 0 until stopped; keeps what was acked."""

    def __init__(self, bootstrap, topic):
        super().__init__(name="acked-producer", daemon=True)
        from confluent_kafka import Producer
        self.topic = topic
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": 1, "enable.idempotence": False,
                                  "linger.ms": 2, "message.timeout.ms": 20000, "retries": 0})
        self.acked = {}          # offset -> (key, value)
        self.failed = 0
        self.stopping = threading.Event()

    def _delivered(self, err, msg):
        if err is None:
            self.acked[msg.offset()] = (msg.key(), msg.value())
        else:
            self.failed += 1

    def run(self):
        n = 0
        while not self.stopping.is_set():
            try:
                self.producer.produce(self.topic, key=b"key-%d" % n, value=b"value-%d" % n, partition=0,
                                      on_delivery=self._delivered)
                n += 1
            except BufferError:
                self.producer.poll(0.05)
            self.producer.poll(0)
        # Drop what was never sent: only acknowledged records matter here.
        self.producer.purge(in_queue=True, in_flight=False)
        self.producer.poll(0)

    def stop(self) -> dict:
        self.stopping.set()
        self.join(30)
        assert not self.is_alive()
        return dict(self.acked)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("how", ["sigterm", "kill9"])
def test_acknowledged_records_survive_restart(broker_factory, unique_topic, how):
    b = broker_factory()
    clients.create_topic(b.bootstrap, unique_topic, 1)
    producer = AckedProducer(b.bootstrap, unique_topic)
    producer.start()
    wait_until(lambda: len(producer.acked) >= 3000, 60, "3000 acknowledged records")
    if how == "sigterm":
        assert b.stop() == 0, "the broker did not exit cleanly on SIGTERM"
    else:
        b.kill9()
    acked = producer.stop()
    since = b.log_size()
    b.start()
    if how == "kill9":
        assert "Recovering unflushed segment" in b.log_text(since), "no recovery after kill -9"

    last = max(acked)
    consumed = clients.read_confluent(b.bootstrap, unique_topic, [0], last + 1)
    by_offset = {c.offset: (c.key, c.value) for c in consumed}
    missing = [o for o in acked if o not in by_offset]
    assert not missing, f"{len(missing)} acknowledged offsets missing after {how}, e.g. {missing[:5]}"
    wrong = [o for o, kv in acked.items() if by_offset[o] != kv]
    assert not wrong, f"{len(wrong)} acknowledged offsets hold other records, e.g. {wrong[:5]}"
    assert sorted(by_offset)[: last + 1] == list(range(last + 1)), "offsets are not contiguous"


def _batch_positions(data: bytes) -> list[tuple[int, int]]:
    """(position, size) of every batch in a segment file, from the headers."""
    out, pos = [], 0
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from(">i", data, pos + 8)
        out.append((pos, 12 + length))
        pos += 12 + length
    return out


@pytest.mark.timeout(120)
@pytest.mark.parametrize("damage", ["cut-tail", "flipped-byte"])
def test_corrupt_tail_is_truncated_at_startup(broker_factory, unique_topic, damage):
    b = broker_factory()
    clients.create_topic(b.bootstrap, unique_topic, 1)
    values = [[b"batch-%02d-record-%d" % (i, j) for j in range(10)] for i in range(20)]
    with RawConnection(b.port) as conn:
        for i, batch in enumerate(values):
            [r] = clients.raw_produce(conn, unique_topic, {0: clients.build_batch(batch)}, correlation_id=i).values()
            assert (r.error_code, r.base_offset) == (0, 10 * i)
    b.kill9()   # unclean: no .kafka_cleanshutdown marker, so start-up recovers the segment

    segment = b.log_dirs / f"{unique_topic}-0" / "00000000000000000000.log"
    data = segment.read_bytes()
    batches = _batch_positions(data)
    assert len(batches) == 20 and sum(size for _, size in batches) == len(data)
    last_pos, last_size = batches[-1]
    if damage == "cut-tail":
        os.truncate(segment, len(data) - 5)
        expected_dropped = last_size - 5
    else:
        flipped = bytearray(data)
        flipped[len(data) - 3] ^= 0xFF          # inside the last record's value: the CRC no longer matches
        segment.write_bytes(bytes(flipped))
        expected_dropped = last_size

    since = b.log_size()
    b.start()
    log = b.log_text(since)
    m = re.search(r"Corruption found in segment 0: dropped (\d+) invalid bytes", log)
    assert m, f"no truncation line in the broker log:\n{log[-3000:]}"
    assert int(m.group(1)) == expected_dropped
    assert segment.stat().st_size == last_pos

    consumed = clients.read_confluent(b.bootstrap, unique_topic, [0], 190, timeout=30)
    assert [c.offset for c in consumed] == list(range(190))
    assert [c.value for c in consumed] == [v for batch in values[:19] for v in batch]
    # The log goes on from the truncation point.
    with RawConnection(b.port) as conn:
        [r] = clients.raw_produce(conn, unique_topic, {0: clients.build_batch([b"after"])}).values()
    assert (r.error_code, r.base_offset) == (0, 190)

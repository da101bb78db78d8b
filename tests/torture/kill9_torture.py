"""No Kafka counterpart (Kafka's system tests bounce brokers the same way): the kill -9 torture.

An idempotent confluent-kafka producer (``acks=all``, ``enable.idempotence=true``) writes
numbered records to every partition of one topic while the broker process is killed with
SIGKILL and restarted, ``--cycles`` times. Then the whole topic is read back and checked:

- **lost**: an acknowledged record that is not in the log (must be 0);
- **duplicates**: a record that is in the log twice (must be 0: the broker's producer state,
  rebuilt from the log and its snapshots at start-up, rejects the producer's retries);
- **reordered**: a partition whose sequence numbers do not rise strictly (must be 0).

Records that were sent but never acknowledged may or may not be in the log: Kafka promises
nothing about them, and neither does this check.

Run it (the long variant; CI runs two cycles through tests/integration/test_kill9_torture.py):

    python tests/torture/kill9_torture.py --cycles 20

It starts its own broker (``bin/kafka-server-start server.properties`` on a free port and a
temporary ``log.dirs``) and prints one line per cycle and a summary; it exits 1 when any
count above is not 0.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

from harness import BrokerProcess, wait_until  # noqa: E402


class IdempotentLoad(threading.Thread):
    """Produces ``<partition>:<n>`` with n rising per partition until stopped; keeps the acks."""

    def __init__(self, bootstrap: str, topic: str, partitions: int):
        super().__init__(name="idempotent-load", daemon=True)
        from confluent_kafka import Producer
        self.topic = topic
        self.partitions = partitions
        self.producer = Producer({
            "bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
            "linger.ms": 5, "message.timeout.ms": 120000, "reconnect.backoff.max.ms": 200,
        })
        self.acked: set[bytes] = set()
        self.failed: list[str] = []
        self.fatal: str | None = None
        self.stopping = threading.Event()

    def _delivered(self, err, msg) -> None:
        if err is None:
            self.acked.add(msg.value())
        else:
            self.failed.append(str(err))
            if err.fatal():
                self.fatal = str(err)

    def run(self) -> None:
        from confluent_kafka import KafkaException
        n = 0
        while not self.stopping.is_set() and self.fatal is None:
            partition = n % self.partitions
            value = b"%d:%d" % (partition, n // self.partitions)
            try:
                try:
                    self.producer.produce(self.topic, value=value, partition=partition,
                                          on_delivery=self._delivered)
                    n += 1
                except BufferError:
                    self.producer.poll(0.05)
                self.producer.poll(0)
            except KafkaException as e:   # a fatal idempotence error surfaces here, too
                self.fatal = str(e)

    def stop(self, flush_timeout: float = 120.0) -> int:
        """Stops producing and waits for every outstanding record's ack (or failure);
        returns how many were still outstanding when the flush gave up (should be 0)."""
        self.stopping.set()
        self.join(30)
        if self.fatal is not None:
            return 0
        return self.producer.flush(flush_timeout)


def read_back(bootstrap: str, topic: str, partitions: int, timeout: float = 60.0) -> dict[int, list[bytes]]:
    """Every record of every partition, in offset order, read from offset 0 to the end offset."""
    from confluent_kafka import Consumer, TopicPartition
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "kill9-torture-check",
                         "enable.auto.commit": False, "enable.partition.eof": True})
    try:
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                for p in range(partitions)}
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        records: dict[int, list[bytes]] = {p: [] for p in range(partitions)}
        positions = {p: 0 for p in range(partitions)}
        deadline = time.monotonic() + timeout
        while any(positions[p] < ends[p] for p in range(partitions)):
            if time.monotonic() > deadline:
                raise AssertionError(f"read-back stopped at {positions} of {ends}")
            msg = consumer.poll(0.5)
            if msg is None or msg.error():
                continue
            records[msg.partition()].append(msg.value())
            positions[msg.partition()] = msg.offset() + 1
        return records
    finally:
        consumer.close()


def check(acked: set[bytes], records: dict[int, list[bytes]]) -> dict[str, int]:
    seen: set[bytes] = set()
    duplicates = reordered = 0
    for partition, values in records.items():
        last = -1
        for value in values:
            if value in seen:
                duplicates += 1
            seen.add(value)
            p, n = (int(x) for x in value.split(b":"))
            if p != partition or n <= last:
                reordered += 1
            last = max(last, n)
    return {"acked": len(acked), "in_log": len(seen), "lost": len(acked - seen),
            "duplicates": duplicates, "reordered": reordered}


def torture(workdir: Path, cycles: int, acks_per_cycle: int = 2000, partitions: int = 3,
            say=print) -> dict[str, int]:
    from confluent_kafka.admin import AdminClient, NewTopic
    broker = BrokerProcess(workdir).start()
    topic = "kill9-torture"
    try:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
        load = IdempotentLoad(broker.bootstrap, topic, partitions)
        load.start()
        for cycle in range(1, cycles + 1):
            target = len(load.acked) + acks_per_cycle
            wait_until(lambda: len(load.acked) >= target or load.fatal, 120, f"{target} acknowledged records")
            assert load.fatal is None, f"the producer hit a fatal error: {load.fatal}"
            broker.kill9()
            broker.start(60)
            say(f"cycle {cycle}/{cycles}: kill -9 after {len(load.acked)} acks, restarted")
        outstanding = load.stop()
        assert load.fatal is None, f"the producer hit a fatal error: {load.fatal}"
        assert outstanding == 0, f"{outstanding} records still unacknowledged after the final flush"
        result = check(load.acked, read_back(broker.bootstrap, topic, partitions))
        result["delivery_failures"] = len(load.failed)
        return result
    finally:
        broker.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--acks-per-cycle", type=int, default=2000)
    parser.add_argument("--partitions", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kill9-torture-") as tmp:
        started = time.monotonic()
        result = torture(Path(tmp), args.cycles, args.acks_per_cycle, args.partitions)
    print(f"{args.cycles} kill -9 cycles in {time.monotonic() - started:.0f}s: "
          + ", ".join(f"{k} {v}" for k, v in result.items()))
    bad = result["lost"] + result["duplicates"] + result["reordered"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

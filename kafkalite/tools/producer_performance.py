"""Mirrors Kafka 2.4: tools/src/main/java/org/apache/kafka/tools/ProducerPerformance.java

``kafka-producer-perf-test --topic T --num-records N --record-size S --throughput R
--producer-props k=v [k=v ...] [--producer.config FILE] [--payload-file F --payload-delimiter D]``

Sends N records of S random bytes (upper-case letters, as Kafka does) through kafkalite's own
``KafkaProducer``, at most R records/s (``-1`` = no limit), and prints what Kafka's tool prints: a
progress line every 5 seconds,
``N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency.``
and at the end the summary with percentiles,
``N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency, P ms 50th, P ms 95th,
P ms 99th, P ms 99.9th.`` Latency is measured per record from ``send`` to its callback.

Python note: argparse stands in for argparse4j (Kafka's parser), because ``--producer-props`` takes a
list of values, which click options cannot.
Left out: ``--print-metrics``, ``--transactional-id``/``--transaction-duration-ms``.
"""
from __future__ import annotations

import argparse
import random
import sys
import time as _time

from kafkalite.clients.producer.kafka_producer import KafkaProducer


class Stats:
    """Kafka: ProducerPerformance.Stats -- totals, a 5-second window, and sampled latencies."""

    REPORTING_INTERVAL_MS = 5000

    def __init__(self, num_records: int, out=sys.stdout):
        self.start = self.window_start = _time.monotonic()
        self.iteration = self.count = self.bytes = 0
        self.max_latency = self.total_latency = 0
        self.window_count = self.window_max_latency = self.window_total_latency = self.window_bytes = 0
        self.sampling = num_records // min(num_records, 500000)
        self.latencies: list[int] = []
        self.out = out

    # Kafka: Stats.record
    def record(self, iteration: int, latency: int, nbytes: int, now: float) -> None:
        self.count += 1
        self.bytes += nbytes
        self.total_latency += latency
        self.max_latency = max(self.max_latency, latency)
        self.window_count += 1
        self.window_bytes += nbytes
        self.window_total_latency += latency
        self.window_max_latency = max(self.window_max_latency, latency)
        if iteration % self.sampling == 0:
            self.latencies.append(latency)
        if (now - self.window_start) * 1000 >= self.REPORTING_INTERVAL_MS:
            self.print_window()
            self.new_window()

    # Kafka: Stats.nextCompletion -- the callback of one record
    def next_completion(self, start: float, nbytes: int):
        iteration = self.iteration
        self.iteration += 1

        def on_completion(metadata, exception):
            now = _time.monotonic()
            self.record(iteration, int((now - start) * 1000), nbytes, now)
            if exception is not None:
                print(f"{type(exception).__name__}: {exception}", file=sys.stderr)
        return on_completion

    # Kafka: Stats.printWindow
    def print_window(self) -> None:
        elapsed = _time.monotonic() - self.window_start
        rec_per_sec = self.window_count / elapsed if elapsed else 0.0
        mb_per_sec = self.window_bytes / elapsed / (1024.0 * 1024.0) if elapsed else 0.0
        avg = self.window_total_latency / self.window_count if self.window_count else 0.0
        print(f"{self.window_count} records sent, {rec_per_sec:.1f} records/sec ({mb_per_sec:.2f} MB/sec), "
              f"{avg:.1f} ms avg latency, {float(self.window_max_latency):.1f} ms max latency.",
              file=self.out, flush=True)

    # Kafka: Stats.newWindow
    def new_window(self) -> None:
        self.window_start = _time.monotonic()
        self.window_count = self.window_max_latency = self.window_total_latency = self.window_bytes = 0

    # Kafka: Stats.printTotal
    def print_total(self) -> None:
        elapsed = _time.monotonic() - self.start
        rec_per_sec = self.count / elapsed if elapsed else 0.0
        mb_per_sec = self.bytes / elapsed / (1024.0 * 1024.0) if elapsed else 0.0
        avg = self.total_latency / self.count if self.count else 0.0
        p50, p95, p99, p999 = self.percentiles(0.5, 0.95, 0.99, 0.999)
        print(f"{self.count} records sent, {rec_per_sec:f} records/sec ({mb_per_sec:.2f} MB/sec), "
              f"{avg:.2f} ms avg latency, {float(self.max_latency):.2f} ms max latency, {p50} ms 50th, "
              f"{p95} ms 95th, {p99} ms 99th, {p999} ms 99.9th.", file=self.out, flush=True)

    # Kafka: Stats.percentiles
    def percentiles(self, *percentiles: float) -> list[int]:
        values = sorted(self.latencies)
        if not values:
            return [0] * len(percentiles)
        return [values[int(p * len(values))] if int(p * len(values)) < len(values) else values[-1]
                for p in percentiles]


class ThroughputThrottler:
    """Kafka: ThroughputThrottler -- sleep so that at most target_throughput records go out per second."""

    def __init__(self, target_throughput: float, start: float):
        self.target_throughput = target_throughput
        self.start = start

    # Kafka: ThroughputThrottler.shouldThrottle
    def should_throttle(self, amount_so_far: int, send_start: float) -> bool:
        if self.target_throughput < 0:
            return False
        elapsed = send_start - self.start
        return elapsed <= 0 or amount_so_far / elapsed > self.target_throughput

    # Kafka: ThroughputThrottler.throttle
    def throttle(self, amount_so_far: int) -> None:
        if self.target_throughput == 0:
            _time.sleep(3600)
            return
        wait = self.start + amount_so_far / self.target_throughput - _time.monotonic()
        if wait > 0.002:   # Kafka: ThroughputThrottler.MIN_SLEEP_NS, 2 ms
            _time.sleep(wait)


def _parse_props(lines) -> dict:
    props = {}
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("!"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise SystemExit(f"Invalid property: {line}")
        props[key.strip()] = value.strip()
    return props


# Kafka: ProducerPerformance.argParser
def arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kafka-producer-perf-test",
                                     description="This tool is used to verify the producer performance.")
    parser.add_argument("--topic", required=True, metavar="TOPIC", help="produce messages to this topic")
    parser.add_argument("--num-records", required=True, type=int, metavar="NUM-RECORDS",
                        help="number of messages to produce")
    payload = parser.add_mutually_exclusive_group(required=True)
    payload.add_argument("--record-size", type=int, metavar="RECORD-SIZE", help="message size in bytes")
    payload.add_argument("--payload-file", metavar="PAYLOAD-FILE",
                         help="file to read the message payloads from (one per delimiter)")
    parser.add_argument("--payload-delimiter", default="\\n", metavar="PAYLOAD-DELIMITER",
                        help="delimiter between payloads in --payload-file (default: \\n)")
    parser.add_argument("--throughput", required=True, type=float, metavar="THROUGHPUT",
                        help="throttle maximum message throughput to *approximately* THROUGHPUT messages/sec; "
                             "-1 disables throttling")
    parser.add_argument("--producer-props", nargs="+", default=[], metavar="PROP-NAME=PROP-VALUE",
                        help="kafka producer related configuration properties like bootstrap.servers,client.id etc")
    parser.add_argument("--producer.config", dest="producer_config", metavar="CONFIG-FILE",
                        help="producer config properties file")
    return parser


# Kafka: ProducerPerformance.main
def main(argv=None, out=sys.stdout) -> int:
    args = arg_parser().parse_args(argv)
    props = {}
    if args.producer_config:
        with open(args.producer_config, encoding="utf-8") as f:
            props.update(_parse_props(f))
    props.update(_parse_props(args.producer_props))
    if "bootstrap.servers" not in props:
        print("Either --producer-props or --producer.config must be specified with bootstrap.servers.",
              file=sys.stderr)
        return 1
    props.setdefault("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer")
    props.setdefault("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer")
    payloads = None
    if args.payload_file:
        delimiter = args.payload_delimiter.encode().decode("unicode_escape")
        with open(args.payload_file, encoding="utf-8") as f:
            payloads = [p.encode("utf-8") for p in f.read().split(delimiter) if p]
        print(f"Number of messages read: {len(payloads)}", file=out)
    else:
        rng = random.Random()
        payload = bytes(rng.randrange(26) + 65 for _ in range(args.record_size))
    producer = KafkaProducer(props)
    try:
        stats = Stats(args.num_records, out)
        start = _time.monotonic()
        throttler = ThroughputThrottler(args.throughput, start)
        for i in range(args.num_records):
            if payloads is not None:
                payload = random.choice(payloads)
            send_start = _time.monotonic()
            producer.send(args.topic, payload, callback=stats.next_completion(send_start, len(payload)))
            if throttler.should_throttle(i, send_start):
                throttler.throttle(i)
        producer.flush()
        stats.print_total()
    finally:
        producer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

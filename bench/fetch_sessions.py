"""No Kafka counterpart: what incremental fetch sessions (KIP-227, issue 17) do for a consumer of 1,000
partitions.

One kafkalite broker process at a time, behind a byte-counting TCP proxy (bench/fetch_wire_proxy.py, its
``advertised.listeners`` pointing at the proxy), with fetch sessions on (``max.incremental.fetch.session.cache.
slots=1000``, the default) or off (``=0``: every fetch is answered in full, session id 0); the two runs are
interleaved for ``--reps`` repetitions. Each run creates a 1,000-partition topic, starts a trickle producer
(``--rate`` records/s of 100 B spread over the partitions, its own process) and a kafka-python consumer of all
1,000 partitions (its own process, ``fetch_max_wait_ms=0``, so it fetches as fast as the round trip allows),
and measures for ``--seconds``: Fetch requests per second, bytes per request and per response on the wire,
records consumed per second, and the broker's CPU seconds per 1,000 fetches.

kafka-python is the consumer because librdkafka (confluent-kafka) has no KIP-227 client side: it always sends
session epoch -1 and gets full answers, with or without the broker's sessions.

    python -m bench.fetch_sessions                  # about a minute and a half
    python -m bench.fetch_sessions --reps 1 --seconds 5
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench.brokers import REPO, Kafkalite, proc_cpu_seconds
from bench.fetch_wire_proxy import FetchWireProxy

TOPIC = "fetch-sessions-bench"
PARTITIONS = 1000

PRODUCER = r"""
import sys, time
from confluent_kafka import Producer
bootstrap, topic, partitions, rate, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "acks": "1"})
start, i = time.monotonic(), 0
while time.monotonic() - start < seconds:
    p.produce(topic, b"x" * 100, partition=(i * 7919) % partitions)
    p.poll(0)
    i += 1
    time.sleep(max(0.0, start + i / rate - time.monotonic()))
p.flush(10)
print(i)
"""

CONSUMER = r"""
import json, sys, time
from kafka import KafkaConsumer, TopicPartition
bootstrap, topic, partitions, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
c = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, fetch_max_wait_ms=0,
                  auto_offset_reset="latest")
c.assign([TopicPartition(topic, i) for i in range(partitions)])
c.seek_to_end()
warm_end = time.monotonic() + 2.0
while time.monotonic() < warm_end:          # the first (full) fetch and positions, outside the window
    c.poll(100)
print("ready", flush=True)
sys.stdin.readline()
records, start = 0, time.monotonic()
while time.monotonic() - start < seconds:
    records += sum(len(v) for v in c.poll(100).values())
print(json.dumps({"records": records, "seconds": time.monotonic() - start}), flush=True)
c.close()
"""


def create_topic(bootstrap: str) -> None:
    from kafka.admin import KafkaAdminClient, NewTopic
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])
    finally:
        admin.close()


def one_run(slots: int, seconds: float, rate: float, workdir: str) -> dict:
    proxy = FetchWireProxy(decode=False)
    broker = Kafkalite(workdir, [f"max.incremental.fetch.session.cache.slots={slots}",
                                 f"advertised.listeners=PLAINTEXT://127.0.0.1:{proxy.port}",
                                 "offsets.topic.replication.factor=1"])
    proxy.set_upstream(broker.port)
    broker.start()
    bootstrap = f"127.0.0.1:{proxy.port}"
    try:
        create_topic(bootstrap)
        consumer = subprocess.Popen([sys.executable, "-c", CONSUMER, bootstrap, TOPIC, str(PARTITIONS),
                                     str(seconds)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert consumer.stdout.readline().strip() == "ready"
        producer = subprocess.Popen([sys.executable, "-c", PRODUCER, bootstrap, TOPIC, str(PARTITIONS), str(rate),
                                     str(seconds + 2)], stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)                        # the producer connected and trickling
        proxy.reset_counters()
        cpu0 = proc_cpu_seconds(broker.proc.pid)
        consumer.stdin.write("go\n")
        consumer.stdin.flush()
        out = json.loads(consumer.stdout.readline())
        cpu = proc_cpu_seconds(broker.proc.pid) - cpu0
        with proxy.lock:
            (req_n, resp_n), (req_b, resp_b) = list(proxy.fetch_count), list(proxy.fetch_bytes)
        consumer.wait(30)
        producer.wait(30)
    finally:
        broker.stop()
        proxy.close()
    fetches = max(resp_n, 1)
    return {"slots": slots, "fetches_per_s": resp_n / out["seconds"], "request_bytes": req_b / max(req_n, 1),
            "response_bytes": resp_b / fetches, "records_per_s": out["records"] / out["seconds"],
            "broker_cpu_s_per_1000_fetches": 1000 * cpu / fetches}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rate", type=float, default=200.0, help="trickle producer records/s")
    args = ap.parse_args(argv)
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-fetch-sessions-") as workdir:
        for rep in range(args.reps):
            for slots in (1000, 0):
                sub = tempfile.mkdtemp(dir=workdir)
                result = one_run(slots, args.seconds, args.rate, sub)
                runs.append(result)
                print(json.dumps(result), flush=True)
    print(f"\n{PARTITIONS}-partition kafka-python consumer, fetch_max_wait_ms=0, trickle producer "
          f"{args.rate:g} records/s, {args.reps} x {args.seconds:g} s per mode (medians)\n")
    print("| fetch sessions | Fetch requests/s | bytes per request | bytes per response | records/s "
          "| broker CPU-s per 1,000 fetches |")
    print("|---|---:|---:|---:|---:|---:|")
    for slots, label in ((1000, "on (1,000 slots)"), (0, "off (0 slots)")):
        mine = [r for r in runs if r["slots"] == slots]
        med = {k: statistics.median(r[k] for r in mine) for k in mine[0] if k != "slots"}
        print(f"| {label} | {med['fetches_per_s']:.0f} | {med['request_bytes']:,.0f} | {med['response_bytes']:,.0f} "
              f"| {med['records_per_s']:.0f} | {med['broker_cpu_s_per_1000_fetches']:.2f} |")
    print(f"\ncommit {subprocess.run(['git', '-C', REPO, 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()}"
          f", load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

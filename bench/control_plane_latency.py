"""No Kafka counterpart: the experiment of S26-S27 (KAFKA-4453, seed 000).

Loads one broker's data plane with produce requests and measures how long the controller's own
requests (LeaderAndIsr, UpdateMetadata -- triggered by creating a topic every 0.25 s) take to reach
it, in three set-ups:

- shared:    no ``control.plane.listener.name``: control requests join the data plane's queue;
- control:   a CONTROLLER listener with ``control.plane.listener.name=CONTROLLER`` (KIP-291): one
             Processor, a queue of 20 and one handler thread of their own;
- priority:  S27's alternative -- no control plane, but the data plane's request queue replaced by a
             priority queue in which LeaderAndIsr/UpdateMetadata/StopReplica overtake data requests.

Figures per set-up: time from "topic created in ZooKeeper" to "this broker's MetadataCache knows it"
(p50 / p99 / max), UpdateMetadata's RequestQueueTimeMs and TotalTimeMs (from the broker's own
RequestMetrics histograms), and the produce load achieved.
The broker runs in this process with ``num.io.threads=1`` so that its handler thread is the
bottleneck; the load is N confluent-kafka producers (one connection each, acks=1).

    python bench/control_plane_latency.py                 # defaults: 48 producers, 8 s per set-up
    python bench/control_plane_latency.py --producers 96 --seconds 15

The whole case -- a preferred-leader election reaching an old leader with an acks=all backlog, on three
broker processes -- is ``bench/control_plane_election.py``.
"""
from __future__ import annotations

import argparse
import itertools
import logging
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafkalite.metrics import request_metrics as request_metrics_module  # noqa: E402
from kafkalite.metrics.kafka_metrics_group import METRICS  # noqa: E402
from kafkalite.server.kafka_config import KafkaConfig  # noqa: E402
from kafkalite.server.kafka_server import KafkaServer  # noqa: E402


def pct(values, q):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def run(mode: str, producers: int, seconds: float, value_size: int) -> dict:
    from confluent_kafka import Producer
    METRICS.clear()
    request_metrics_module.reset()
    props = {"broker.id": 0, "log.dirs": tempfile.mkdtemp(prefix="cp-bench-"), "num.io.threads": 1,
             "num.network.threads": 3, "offsets.topic.replication.factor": 1, "num.partitions": 8,
             "listeners": "PLAINTEXT://127.0.0.1:0"}
    if mode == "control":
        props.update({"listeners": "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
                      "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                      "control.plane.listener.name": "CONTROLLER"})
    if mode == "priority":
        props["kafkalite.request.priority"] = "control-first"
    server = KafkaServer(KafkaConfig.from_props(props))
    server.startup()
    bootstrap = f"127.0.0.1:{server.bound_port('PLAINTEXT')}"
    server.admin_manager.admin_zk_client.create_topic("load", 8, 1)
    while not server.metadata_cache.contains("load"):
        time.sleep(0.01)
    stop = threading.Event()
    delivered = [0]

    def load():
        ps = [Producer({"bootstrap.servers": bootstrap, "acks": 1, "linger.ms": 0, "batch.num.messages": 1,
                        "queue.buffering.max.messages": 2000, "enable.idempotence": False,
                        "log_level": 0}) for _ in range(producers)]
        payload = b"x" * value_size

        def on_delivery(err, msg):
            if err is None:
                delivered[0] += 1
        while not stop.is_set():
            for p in ps:
                try:
                    p.produce("load", payload, on_delivery=on_delivery)
                except BufferError:
                    pass
                p.poll(0)
            time.sleep(0.001)
        for p in ps:
            p.flush(10)

    loader = threading.Thread(target=load, name="bench-load", daemon=True)
    loader.start()
    time.sleep(2.0)   # let the backlog build
    waits = []
    deadline = time.monotonic() + seconds
    start_delivered = delivered[0]
    t_load = time.monotonic()
    for i in itertools.count():
        if time.monotonic() >= deadline:
            break
        topic = f"ctl-{i}"
        t0 = time.monotonic()
        server.admin_manager.admin_zk_client.create_topic(topic, 1, 1)
        while not server.metadata_cache.contains(topic) and time.monotonic() - t0 < 30:
            time.sleep(0.0005)
        waits.append((time.monotonic() - t0) * 1000)
        time.sleep(0.25)
    produce_rate = (delivered[0] - start_delivered) / (time.monotonic() - t_load)
    um = request_metrics_module.request_metrics("UpdateMetadata").histograms
    pr = request_metrics_module.request_metrics("Produce").histograms
    result = {
        "mode": mode, "topics": len(waits),
        "wait_p50": pct(waits, 0.5), "wait_p99": pct(waits, 0.99), "wait_max": max(waits),
        "um_queue_p50": um["RequestQueueTimeMs"].percentile(0.5), "um_queue_max": um["RequestQueueTimeMs"].max,
        "um_total_p50": um["TotalTimeMs"].percentile(0.5),
        "produce_queue_p50": pr["RequestQueueTimeMs"].percentile(0.5), "produce_rate": produce_rate,
    }
    stop.set()
    loader.join(30)
    server.shutdown()
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--producers", type=int, default=48)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--value-size", type=int, default=1000)
    ap.add_argument("--modes", default="shared,control,priority")
    args = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    rows = [run(m, args.producers, args.seconds, args.value_size) for m in args.modes.split(",")]
    print(f"\n{args.producers} producers, acks=1, {args.value_size}-byte values, num.io.threads=1, "
          f"{args.seconds:.0f} s per set-up\n")
    head = ("set-up", "topics", "new topic visible p50/p99/max ms", "UpdateMetadata queue p50/max ms",
            "UpdateMetadata total p50 ms", "Produce queue p50 ms", "produce msg/s")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print(f"| {r['mode']} | {r['topics']} | {r['wait_p50']:.1f} / {r['wait_p99']:.1f} / {r['wait_max']:.1f} | "
              f"{r['um_queue_p50']:.2f} / {r['um_queue_max']:.2f} | {r['um_total_p50']:.2f} | "
              f"{r['produce_queue_p50']:.2f} | {r['produce_rate']:.0f} |")
    print(f"\n(python {sys.version.split()[0]}; percentiles are nearest-rank over the topics created)")


if __name__ == "__main__":
    main()

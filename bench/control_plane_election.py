"""No Kafka counterpart: the experiment of S26 (KAFKA-4453, seed 000) on three broker processes -- a
preferred-leader election that must reach an old leader whose data plane has an acks=all produce backlog.

Three kafkalite brokers over Debian's ZooKeeper (``tests/integration/cluster_harness.py``), each with one
request handler thread (``num.io.threads=1``) and its metrics on a port of its own. One partition on [P, L, C]
(C the controller) is led by L, because P restarted and controlled shutdown handed its leadership over.
N confluent-kafka producers write to it with acks=all; their requests queue at L. Then kafkalite's admin
client asks the controller for a preferred-leader election (ElectLeaders, as ``bin/kafka-leader-election``
does). The controller sends LeaderAndIsr to P (become leader) and to L (become follower):

- shared:  no ``control.plane.listener.name``: L's LeaderAndIsr waits in L's data-plane queue behind the
           produce requests. Until L handles it, L still believes it leads: it appends produce requests
           that can no longer complete (the followers now fetch from P) and parks them in its purgatory,
           where they time out after the producers' ``request.timeout.ms`` or are answered
           NOT_LEADER_FOR_PARTITION once L steps down;
- control: a CONTROLLER listener with its own Processor, queue and handler (KIP-291): L steps down at once.

Figures per set-up, read from the brokers' metrics endpoints (``kafkalite.metrics.port``): L's request
queue when the election starts, how long after the admin's request P leads and L follows (the first
LeaderAndIsr each one completes), the time L's LeaderAndIsr spent in a request queue (RequestQueueTimeMs),
the stale window in between (L still leading, P already leading), the produce requests that expired in L's
purgatory (``DelayedProduceMetrics`` ExpiresPerSec) in the election, and the producers' throughput.

    python bench/control_plane_election.py          # 48 acks=all + 96 acks=1 producers, 5 runs per set-up (~2 min)
    python bench/control_plane_election.py --producers 96 --request-timeout-ms 500
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for _p in (REPO / "tests", REPO / "tests" / "integration", REPO):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from support import free_port, wait_until  # noqa: E402

TOPIC = "kafka-4453"
SAMPLE = re.compile(r'^([a-z_]+)(\{[^}]*\})? (\S+)$')


def scrape(port: int) -> dict[str, float]:
    """The broker's Prometheus text, as {'name{labels}': value}."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        m = SAMPLE.match(line)
        if m:
            out[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return out


def leader_and_isr_count(metrics: dict) -> float:
    return metrics.get('kafka_network_requestmetrics_requestspersec_total{request="LeaderAndIsr"}', 0.0)


def queue_time_sum(metrics: dict) -> tuple[float, float]:
    return (metrics.get('kafka_network_requestmetrics_requestqueuetimems_sum{request="LeaderAndIsr"}', 0.0),
            metrics.get('kafka_network_requestmetrics_requestqueuetimems_count{request="LeaderAndIsr"}', 0.0))


def produce_queue_p50(metrics: dict) -> float:
    return metrics.get('kafka_network_requestmetrics_requestqueuetimems{quantile="0.5",request="Produce"}',
                       metrics.get('kafka_network_requestmetrics_requestqueuetimems{request="Produce",quantile="0.5"}',
                                   float("nan")))


def expirations(metrics: dict) -> float:
    return metrics.get("kafka_server_delayedproducemetrics_expirespersec_total", 0.0)


def queue_size(metrics: dict) -> float:
    return metrics.get("kafka_network_requestchannel_requestqueuesize", 0.0)


def run(mode: str, producers: int, flood: int, request_timeout_ms: int, value_size: int, workdir: str) -> dict:
    from cluster_harness import ClusterProcesses
    from confluent_kafka import Producer
    from kafkalite.clients.admin.admin_client import KafkaAdminClient
    from kafkalite.common.topic_partition import TopicPartition
    from kafkalite.protocol.messages.elect_leaders import PREFERRED
    metrics_ports = [free_port() for _ in range(3)]
    cluster = ClusterProcesses(Path(workdir) / mode, 3, control_plane=(mode == "control"), overrides={
        "num.io.threads": 1, "auto.leader.rebalance.enable": "false"},
        broker_overrides=lambda i: {"kafkalite.metrics.port": metrics_ports[i]}).start()
    stop = threading.Event()
    loader = None
    delivered, errors = [0], {}
    try:
        c = cluster.controller_id()
        p, old = [i for i in range(3) if i != c]
        cluster.create_topic(TOPIC, [p, old, c])
        cluster.brokers[p].stop()
        cluster.brokers[p].start(60)
        wait_until(lambda: (s := cluster.partition_state(TOPIC, 0))["leader"] == old and len(s["isr"]) == 3, 60,
                   f"broker {old} to lead with a full ISR")

        def on_delivery(err, msg):
            if err is None:
                delivered[0] += 1
            else:
                errors[err.name()] = errors.get(err.name(), 0) + 1

        def load():
            ps = [Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all" if i < producers else "1",
                            "linger.ms": 0, "batch.num.messages": 1, "request.timeout.ms": request_timeout_ms,
                            "message.timeout.ms": 120000, "queue.buffering.max.messages": 1000,
                            "enable.idempotence": False, "log_level": 0}) for i in range(producers + flood)]
            payload = b"x" * value_size
            while not stop.is_set():
                for pr in ps:
                    try:
                        pr.produce(TOPIC, payload, partition=0, on_delivery=on_delivery)
                    except BufferError:
                        pass
                    pr.poll(0)
                time.sleep(0.001)
            for pr in ps:   # what the brokers have not answered yet is given up, so every producer closes at once
                pr.purge(in_queue=True, in_flight=True, blocking=False)
                pr.flush(1)
            ps.clear()

        loader = threading.Thread(target=load, name="bench-load", daemon=True)
        loader.start()
        lport, pport = metrics_ports[old], metrics_ports[p]
        # the backlog: at least half the producers' requests waiting in the old leader's queue
        backlog = wait_until(lambda: (q := queue_size(scrape(lport))) >= (producers + flood) // 2 and q, 60,
                             "a produce backlog at the old leader")
        t_load, d_load = time.monotonic(), delivered[0]
        before_l, before_p = scrape(lport), scrape(pport)
        # bootstrapped from the controller alone: its Metadata and ElectLeaders never queue behind L's backlog
        admin = KafkaAdminClient({"bootstrap.servers": cluster.brokers[c].bootstrap})
        t0 = time.monotonic()
        result = admin.elect_leaders(PREFERRED, {TopicPartition(TOPIC, 0)})
        t_admin = time.monotonic() - t0
        admin.close()
        t_new = t_old = None
        deadline = time.monotonic() + 180
        while (t_new is None or t_old is None) and time.monotonic() < deadline:
            if t_new is None and leader_and_isr_count(scrape(pport)) > leader_and_isr_count(before_p):
                t_new = time.monotonic() - t0
            if t_old is None and leader_and_isr_count(scrape(lport)) > leader_and_isr_count(before_l):
                t_old = time.monotonic() - t0
            time.sleep(0.005)
        after_l = scrape(lport)
        s_sum, s_count = queue_time_sum(after_l)
        b_sum, b_count = queue_time_sum(before_l)
        rate = (delivered[0] - d_load) / (time.monotonic() - t_load)
        return {"mode": mode, "backlog": backlog, "election_result": {str(k): v for k, v in result.items()},
                "admin_ms": t_admin * 1000, "new_leader_ms": (t_new or float("nan")) * 1000,
                "old_leader_ms": (t_old or float("nan")) * 1000,
                "stale_ms": ((t_old or float("nan")) - (t_new or float("nan"))) * 1000,
                "lai_queue_ms": (s_sum - b_sum) / (s_count - b_count) if s_count > b_count else float("nan"),
                "produce_queue_ms": produce_queue_p50(after_l),
                "expired": expirations(after_l) - expirations(before_l), "errors": dict(errors), "rate": rate}
    finally:
        stop.set()
        if loader is not None:
            loader.join(120)
        cluster.stop()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--producers", type=int, default=48, help="acks=all producers on the old leader")
    ap.add_argument("--flood", type=int, default=96,
                    help="acks=1 producers on the old leader as well, to keep its handler thread busier")
    ap.add_argument("--request-timeout-ms", type=int, default=1000,
                    help="the producers' request.timeout.ms: how long an acks=all produce may wait in the purgatory")
    ap.add_argument("--value-size", type=int, default=1000)
    ap.add_argument("--modes", default="shared,control")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per set-up, interleaved; the table shows medians")
    args = ap.parse_args(argv)
    from cluster_harness import zookeeper_available
    if not zookeeper_available():
        print("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper", file=sys.stderr)
        return 2
    workdir = tempfile.mkdtemp(prefix="kl-cp-election-")
    modes = args.modes.split(",")
    runs: dict[str, list[dict]] = {m: [] for m in modes}
    for rep in range(args.reps):
        for m in modes:
            r = run(m, args.producers, args.flood, args.request_timeout_ms, args.value_size, f"{workdir}/{rep}")
            runs[m].append(r)
            print(f"rep {rep + 1} {m}: LeaderAndIsr queued {r['lai_queue_ms']:.1f} ms at the old leader, which "
                  f"follows after {r['old_leader_ms']:.0f} ms; {r['expired']:.0f} produce requests expired",
                  flush=True)
    keys = ("backlog", "admin_ms", "new_leader_ms", "old_leader_ms", "stale_ms", "lai_queue_ms", "produce_queue_ms",
            "expired", "rate")
    rows = [{"mode": m, **{k: statistics.median(r[k] for r in runs[m]) for k in keys},
             "errors": {e: sum(r["errors"].get(e, 0) for r in runs[m]) for r0 in runs[m] for e in r0["errors"]}}
            for m in modes]
    print(f"\n3 brokers, num.io.threads=1, {args.producers} producers with acks=all"
          + (f" and {args.flood} with acks=1" if args.flood else "")
          + f" ({args.value_size}-byte values, request.timeout.ms={args.request_timeout_ms}) on the old leader; "
          f"a preferred-leader election\n")
    head = ("set-up", "old leader's queue at the election", "ElectLeaders answered ms", "new leader leads ms",
            "old leader follows ms", "both lead ms", "old leader's LeaderAndIsr queue ms", "its Produce queue p50 ms",
            "produce requests expired in its purgatory", "produce msg/s")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print(f"| {r['mode']} | {r['backlog']:.0f} | {r['admin_ms']:.0f} | {r['new_leader_ms']:.0f} | "
              f"{r['old_leader_ms']:.0f} | {r['stale_ms']:.0f} | {r['lai_queue_ms']:.1f} | {r['produce_queue_ms']:.1f} | "
              f"{r['expired']:.0f} | "
              f"{r['rate']:.0f} |")
    for r in rows:
        if r["errors"]:
            print(f"({r['mode']}: producer errors {r['errors']})")
    print(f"\n(python {sys.version.split()[0]}; medians of {args.reps} runs per set-up; times from the admin "
          f"client's ElectLeaders request)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

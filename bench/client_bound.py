"""No Kafka counterpart: who bounds the 100 B produce rows of ``python -m bench`` -- the client or the broker
(issue 18, "kafkalite/Tansu >= 1.0 in every produce row").

    python -m bench.client_bound [--reps 4] [--records 400000] [--no-peer]

Starts one kafkalite broker and, when it is installed, one Tansu, and runs the bench's confluent-kafka producer
of 100 B records (acks=1, linger 5 ms, 1 and 6 partitions) against each, interleaved. Per run it prints the
time the Python ``produce()`` loop took, the time ``flush()`` then waited for the last acknowledgements, the
MB/s of both together (what the bench's row reports), the broker's CPU seconds (utime+stime from /proc) and
the client process's CPU seconds and cores (getrusage over the run), then the medians. When the client uses
more than one core and the broker a fraction of one, and the flush wait is the same for both brokers, the row
measures the client's ``produce()`` loop: its ratio is decided by the run-to-run spread, not by the broker.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time

from bench.brokers import Kafkalite, Tansu, find_tansu
from bench.workers import create, produce_one, producer_config

MB = 1 << 20


def produce_run(bootstrap: str, topic: str, records: int, partitions: int, size: int = 100) -> dict:
    """The bench's 100 B producer (bench/workers.py ``produce``), timed in two parts."""
    from confluent_kafka import Producer
    create(bootstrap, topic, partitions)
    failed: list = []
    p = Producer(producer_config(bootstrap, errors=failed))
    value = os.urandom(size)
    p.produce(topic, value)   # the connection and the topic's metadata, outside the timing
    p.flush(30)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    for _ in range(records):
        produce_one(p, topic, value)
    t1 = time.perf_counter()
    left = p.flush(60)
    t2 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    if left or failed:
        raise RuntimeError(f"{left} records not acknowledged and {len(failed)} failed on {bootstrap}"
                           f"{': ' + failed[0] if failed else ''}")
    client = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    return {"loop_s": t1 - t0, "flush_s": t2 - t1, "mb_per_s": records * size / MB / (t2 - t0),
            "client_cpu_s": client, "client_cores": client / (t2 - t0)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.client_bound", description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--records", type=int, default=400_000, help="per run (the bench's 100 B rows send 400,000)")
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="kafkalite-client-bound-")
    brokers = [("kafkalite", Kafkalite(workdir))]
    tansu = None if args.no_peer else find_tansu()
    if tansu:
        brokers.append(("tansu", Tansu(workdir, tansu)))
    rows: dict[tuple[str, int], list[dict]] = {}
    try:
        for _, b in brokers:
            b.start()
        for rep in range(args.reps):
            for name, b in (brokers if rep % 2 == 0 else brokers[::-1]):
                for parts in (1, 6):
                    c0 = b.cpu_seconds()
                    r = produce_run(b.bootstrap, f"client-bound-{rep}-p{parts}", args.records, parts)
                    r["broker_cpu_s"] = b.cpu_seconds() - c0
                    rows.setdefault((name, parts), []).append(r)
                    print(f"{name:<9} p{parts} rep {rep}: loop {r['loop_s']:.3f} s, flush {r['flush_s']:.3f} s, "
                          f"{r['mb_per_s']:.1f} MB/s; broker {r['broker_cpu_s']:.2f} CPU-s, client "
                          f"{r['client_cpu_s']:.2f} CPU-s ({r['client_cores']:.2f} cores)", flush=True)
    finally:
        for _, b in brokers:
            b.stop()
    print("\n| broker | partitions | loop s | flush s | MB/s | broker CPU-s | client cores |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for (name, parts), rs in rows.items():
        med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
        print(f"| {name} | {parts} | {med['loop_s']:.3f} | {med['flush_s']:.3f} | {med['mb_per_s']:.1f} | "
              f"{med['broker_cpu_s']:.2f} | {med['client_cores']:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

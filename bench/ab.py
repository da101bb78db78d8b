"""No Kafka counterpart: an A/B of two kafkalite brokers side by side, for a shared machine (issue 18).

    python -m bench.ab A_DIR B_DIR [--reps 3] [--scale 1] [--sc p100a1p1,kcat16k,...]
                       [--a-override key=value ...] [--b-override key=value ...]

A_DIR and B_DIR are checkouts of kafkalite (``git archive <commit> | tar -x -C DIR``, or the same directory
twice with different ``--b-override`` settings); each broker runs ``python -m kafkalite DIR/server.properties``
with ``PYTHONPATH=DIR``. Both run at the same time and every scenario alternates between them (A, B, then B,
A, ...), so neighbours' load hits both alike. Printed per run and as medians: the broker's CPU per GB of
payload (utime+stime from /proc/<pid>/stat, and each part: the Python work is mostly utime, while stime also
carries the loopback's softirq work that other processes' traffic can land on), and MB/s (which on a shared
machine says little). The load generators are ``bench/workers.py``'s. Scenario names:
``p<size><acks><parts>`` are confluent-kafka producers, ``kcat16k`` kcat -P with 1 MB batches, ``kcatc1k`` kcat
-C of a 6-partition 1 KiB topic, ``c1k``/``c100`` confluent-kafka consumers, ``raw1m`` the raw Produce v7 of
1 MiB batches (``bench/raw_produce.py``; see ``SCENARIOS``).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from bench.brokers import REPO, free_port, metadata_ok

GB = 1 << 30
TICK = os.sysconf("SC_CLK_TCK")
LARGE = dict(batch_size=1_000_000, linger_ms=20)

SCENARIOS = {
    "p100a1p1": ("produce", dict(records=2_000_000, size=100, acks="1", partitions=1)),
    "p100a1p6": ("produce", dict(records=2_000_000, size=100, acks="1", partitions=6)),
    "p100aallp1": ("produce", dict(records=2_000_000, size=100, acks="all", partitions=1)),
    "p100aallp6": ("produce", dict(records=2_000_000, size=100, acks="all", partitions=6)),
    "p1k1p1": ("produce", dict(records=500_000, size=1024, acks="1", partitions=1)),
    "p1kallp1": ("produce", dict(records=500_000, size=1024, acks="all", partitions=1)),
    "p16k": ("produce", dict(records=40_000, size=16384, acks="1", partitions=1, **LARGE)),
    "kcat16k": ("kcat", dict(records=40_000, size=16384, acks="1", partitions=1, **LARGE)),
    "kcatc1k": ("kcat_consume", dict(records=500_000, size=1024, partitions=6)),
    "c1k": ("consume", dict(records=500_000, size=1024, partitions=6)),
    "c100": ("consume", dict(records=1_500_000, size=100, partitions=1)),
    "raw1m": ("raw_produce", dict(total_mb=256, record_size=16384, records_per_batch=63)),
}


def cpu_seconds(pid: int) -> tuple[float, float]:
    """(utime, stime) of every thread of ``pid``, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


class Broker:
    """One kafkalite broker from a checkout directory, stopped by its PID."""

    def __init__(self, name: str, code: str, overrides: list[str], workdir: str):
        self.name, self.port = name, free_port()
        log_dir = tempfile.mkdtemp(dir=workdir)
        cmd = [sys.executable, "-m", "kafkalite", os.path.join(code, "server.properties"),
               "--override", f"listeners=PLAINTEXT://127.0.0.1:{self.port}", "--override", f"log.dirs={log_dir}"]
        for o in overrides:
            cmd += ["--override", o]
        with open(os.path.join(workdir, f"{name}.log"), "ab") as log:
            self.proc = subprocess.Popen(cmd, cwd=code, env=dict(os.environ, PYTHONPATH=code), stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 30
        while not metadata_ok(self.port, timeout=0.5):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"broker {name} from {code} did not start; see {workdir}/{name}.log")
            time.sleep(0.05)
        self.bootstrap = f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)


def worker(kind: str, params: dict) -> dict:
    r = subprocess.run([sys.executable, "-m", "bench.workers", kind, json.dumps(params)], cwd=REPO,
                       capture_output=True, timeout=600)
    if r.returncode:
        raise RuntimeError(f"worker {kind} failed: {r.stderr.decode(errors='replace')[-500:]}")
    return json.loads(r.stdout.decode().strip().splitlines()[-1])


def run(sc: str, kind: str, params: dict, broker: Broker, rep: int) -> tuple[float, float, float]:
    """One measured run: (utime per GB, stime per GB, MB/s)."""
    q = dict(params, bootstrap=broker.bootstrap, topic=f"{sc}-{rep}")
    if kind in ("consume", "kcat_consume"):
        q["topic"] = f"{sc}-fill"
        if rep == 0:
            worker("produce", dict(bootstrap=broker.bootstrap, topic=q["topic"], records=params["records"],
                                   size=params["size"], acks="1", partitions=params["partitions"]))
        if kind == "consume":
            q.pop("size")
    u0, s0 = cpu_seconds(broker.proc.pid)
    result = worker(kind, q)
    u1, s1 = cpu_seconds(broker.proc.pid)
    if result.get("errors") or not result.get("bytes"):
        raise RuntimeError(f"{sc} on {broker.name}: {result}")
    gb = result["bytes"] / GB
    return (u1 - u0) / gb, (s1 - s0) / gb, result.get("mb_per_s") or 0.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__.split("\n\n")[0])
    ap.add_argument("a_dir")
    ap.add_argument("b_dir")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply record counts")
    ap.add_argument("--sc", default="p100a1p1,kcat16k,kcatc1k", help="comma-separated scenario names")
    ap.add_argument("--a-override", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--b-override", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args(argv)
    names = [s for s in args.sc.split(",") if s]
    unknown = [s for s in names if s not in SCENARIOS]
    if unknown:
        ap.error(f"unknown scenarios {unknown}; known: {', '.join(SCENARIOS)}")
    workdir = tempfile.mkdtemp(prefix="kafkalite-ab-")
    brokers: list[Broker] = []
    results: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    try:
        brokers.append(Broker("A", os.path.abspath(args.a_dir), args.a_override, workdir))
        brokers.append(Broker("B", os.path.abspath(args.b_dir), args.b_override, workdir))
        for sc in names:
            kind, params = SCENARIOS[sc]
            if "records" in params:
                params = dict(params, records=max(200, int(params["records"] * args.scale)))
            else:   # raw1m: megabytes
                params = dict(params, total_mb=max(8, int(params["total_mb"] * args.scale)))
            for rep in range(args.reps):
                for b in (brokers if rep % 2 == 0 else brokers[::-1]):
                    u, s, mb = run(sc, kind, params, b, rep)
                    results.setdefault((sc, b.name), []).append((u, s, mb))
                    print(f"{sc:<11} {b.name} rep {rep}: CPU-s/GB {u + s:.2f} (user {u:.2f}, sys {s:.2f}) "
                          f"MB/s {mb:.0f}", flush=True)
            topics = [f"{sc}-fill"] if kind in ("consume", "kcat_consume") else [f"{sc}-{r}" for r in range(args.reps)]
            for b in brokers:
                worker("delete", {"bootstrap": b.bootstrap, "topics": topics})
    finally:
        for b in brokers:
            b.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    print("\n| scenario | A CPU-s/GB (user/sys) | B CPU-s/GB (user/sys) | B/A | A MB/s | B MB/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for sc in names:
        med = {}
        for n in "AB":
            v = results[(sc, n)]
            med[n] = (statistics.median(u + s for u, s, _ in v), statistics.median(u for u, _, _ in v),
                      statistics.median(s for _, s, _ in v), statistics.median(m for _, _, m in v))
        a, b = med["A"], med["B"]
        print(f"| {sc} | {a[0]:.2f} ({a[1]:.2f}/{a[2]:.2f}) | {b[0]:.2f} ({b[1]:.2f}/{b[2]:.2f}) | "
              f"{b[0] / a[0]:.2f} | {a[3]:.0f} | {b[3]:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

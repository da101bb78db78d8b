"""No Kafka counterpart (Kafka's 2014 benchmark post measured the same three rows): what replication
costs. Three kafkalite broker processes over Debian's ZooKeeper on 127.0.0.1, one producer
(confluent-kafka, in its own process), interleaved repetitions of

- RF=1, acks=1 -- no replication (the baseline);
- RF=3, acks=1 -- asynchronous replication: the leader answers after its own append, followers copy;
- RF=3, acks=all (min.insync.replicas=2) -- synchronous: answered once the high watermark passed the
  batch, i.e. after a follower fetch round-trip.

    python -m bench.replication                 # about 3 minutes
    python -m bench.replication --records 20000 --reps 1     # a quick look

Prints a Markdown table with each row's median MB/s and its ratio to the baseline, and writes
``bench/results/replication.json``. Kafka's own figures (2014, three machines): 3x synchronous
replication ran at about 0.5x the unreplicated rate; asynchronous at about 0.9x. On one machine
the three brokers share its cores, so the followers' work competes with the leader's.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from bench.brokers import REPO, Kafkalite, free_port

ROWS = (("rf1-acks1", 1, "1"), ("rf3-acks1", 3, "1"), ("rf3-acksall", 3, "all"))


def zookeeper_ok(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"ruok")
            return s.recv(4) == b"imok"
    except OSError:
        return False


class ZooKeeper:
    """Debian's ZooKeeper, as ``bin/zookeeper-server-start`` runs it, on a free port; stopped by PID."""

    def __init__(self, workdir: str):
        self.port = free_port()
        self.data_dir = os.path.join(workdir, "zookeeper")
        self.props = os.path.join(workdir, "zookeeper.properties")
        with open(os.path.join(REPO, "config", "zookeeper.properties")) as f:
            text = f.read().replace("dataDir=/tmp/kafkalite-zookeeper", f"dataDir={self.data_dir}")
        with open(self.props, "w") as f:
            f.write(text.replace("clientPort=2181", f"clientPort={self.port}"))
        self.proc = None

    def start(self, timeout: float = 60.0) -> None:
        log = open(os.path.join(os.path.dirname(self.props), "zookeeper.log"), "ab")
        self.proc = subprocess.Popen([os.path.join(REPO, "bin", "zookeeper-server-start"), self.props], stdout=log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while not zookeeper_ok(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("ZooKeeper did not start; see zookeeper.log")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)


def run_worker(kind: str, params: dict) -> dict:
    out = subprocess.run([sys.executable, "-m", "bench.workers", kind, json.dumps(params)], cwd=REPO,
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"worker {kind} failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="kl-bench-repl-")
    zk = ZooKeeper(workdir)
    brokers = []
    results: dict[str, list[float]] = {name: [] for name, _, _ in ROWS}
    try:
        zk.start()
        for i in range(3):
            b = Kafkalite(workdir, [f"broker.id={i}", f"zookeeper.connect=127.0.0.1:{zk.port}/bench",
                                    "min.insync.replicas=2", "offsets.topic.replication.factor=3"])
            b.start()
            brokers.append(b)
        bootstrap = ",".join(b.bootstrap for b in brokers)
        for rep in range(args.reps):
            for name, rf, acks in ROWS:
                r = run_worker("produce", {"bootstrap": bootstrap, "topic": f"{name}-{rep}", "records": args.records,
                                           "size": args.size, "acks": acks, "replication_factor": rf})
                if r["errors"]:
                    raise RuntimeError(f"{name}: {r['errors']} records not acknowledged ({r['first_error']})")
                results[name].append(r["mb_per_s"])
                print(f"rep {rep + 1}: {name:12s} {r['mb_per_s']:7.1f} MB/s  {r['records_per_s']:9.0f} rec/s",
                      flush=True)
    finally:
        for b in brokers:
            b.stop()
        zk.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    base = statistics.median(results["rf1-acks1"])
    print(f"\n{args.reps} interleaved repetitions, {args.records} records of {args.size} B each, 1 partition\n")
    print("| scenario | MB/s (median) | ratio to RF=1 acks=1 |\n|---|---|---|")
    for name, rf, acks in ROWS:
        med = statistics.median(results[name])
        print(f"| RF={rf}, acks={acks} | {med:.1f} | {med / base:.2f} |")
    os.makedirs(os.path.join(REPO, "bench", "results"), exist_ok=True)
    with open(os.path.join(REPO, "bench", "results", "replication.json"), "w") as f:
        json.dump({"records": args.records, "size": args.size, "reps": args.reps, "mb_per_s": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

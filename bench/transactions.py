"""No Kafka counterpart (Kafka's KIP-98 design measured the same thing: transactions cost a fixed amount per
commit, so their overhead shrinks as transactions grow): what transactional produce costs against plain
idempotent produce, in the same run. One kafkalite broker on 127.0.0.1, one confluent-kafka producer per run
(in its own process, ``bench/workers.py``), interleaved repetitions of

- idempotent -- ``enable.idempotence=true`` (acks=all), no transactions: the baseline;
- commit every 1,000 -- ``transactional.id`` set, ``begin_transaction()``, 1,000 records, ``commit_transaction()``;
- commit every 100 -- the same with 100 records per transaction.

Every run sends the same number of records of the same size to a fresh 1-partition topic; the clock runs
from the first ``produce()`` to the last commit (or flush), after one warm-up record that gets each producer
its connection and producer id. Each commit costs the producer an EndTxn round
trip, and the broker an append to ``__transaction_state`` (PrepareCommit), a WriteTxnMarkers to the
partition's leader (itself) and a second append (CompleteCommit); the first record of each transaction costs
an AddPartitionsToTxn.

    python -m bench.transactions                       # 100,000 records of 100 B, 3 repetitions: ~1-3 minutes
    python -m bench.transactions --records 20000 --reps 1

Prints a Markdown table of records/s (medians) and each row's ratio to the idempotent baseline, and writes
``bench/results/transactions.json``. ``python -m bench`` runs the same three producers as its
"transactions" scenarios (kafkalite against the peer). Figures, never assertions.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from bench.brokers import REPO, Kafkalite

MB = 1 << 20
MODES = (("idempotent", 0), ("commit every 1,000", 1000), ("commit every 100", 100))


def produce_transactional(bootstrap: str, topic: str, records: int, size: int, commit_every: int = 0,
                          partitions: int = 1, create_topic: bool = True, timeout: float = 60.0) -> dict:
    """confluent-kafka producer of ``records`` random values of ``size`` bytes: idempotent only when
    ``commit_every`` is 0, else transactional, committing every ``commit_every`` records (and the rest)."""
    from confluent_kafka import Producer

    from bench.workers import create, produce_one
    if create_topic:
        create(bootstrap, topic, partitions)
    errors = []
    config = {"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5, "batch.size": 1000000,
              "queue.buffering.max.messages": 1000000, "queue.buffering.max.kbytes": 1048576,
              "delivery.report.only.error": True, "message.timeout.ms": int(timeout * 1000),
              "on_delivery": lambda err, msg: errors.append(str(err)) if err else None}
    if commit_every:
        config.update({"transactional.id": f"bench-{topic}-{os.getpid()}", "transaction.timeout.ms": 60000})
    p = Producer(config)
    if commit_every:
        p.init_transactions(timeout)
    value = os.urandom(size)
    # warm-up, outside the clock: one record (in its own transaction) so that both producers have their
    # connection, producer id and epoch before the first timed record
    if commit_every:
        p.begin_transaction()
    p.produce(topic, value)
    p.commit_transaction(timeout) if commit_every else p.flush(timeout)
    commits = 0
    t0 = time.perf_counter()
    try:
        for i in range(records):
            if commit_every and i % commit_every == 0:
                p.begin_transaction()
            produce_one(p, topic, value)
            if commit_every and (i + 1) % commit_every == 0:
                p.commit_transaction(timeout)
                commits += 1
        if commit_every and records % commit_every:
            p.commit_transaction(timeout)
            commits += 1
        left = p.flush(timeout)
    except Exception as e:   # noqa: BLE001 -- a failed commit: report it, as the other workers report errors
        return {"records": 0, "bytes": 0, "seconds": time.perf_counter() - t0, "records_per_s": None,
                "mb_per_s": None, "commits": commits, "errors": 1, "first_error": str(e)[:300]}
    dt = time.perf_counter() - t0
    failed = len(errors) + left
    if failed:
        return {"records": records - failed, "bytes": (records - failed) * size, "seconds": dt,
                "records_per_s": None, "mb_per_s": None, "commits": commits, "errors": failed,
                "first_error": errors[0] if errors else None}
    return {"records": records, "bytes": records * size, "seconds": dt, "records_per_s": records / dt,
            "mb_per_s": records * size / MB / dt, "commits": commits, "errors": 0}


def scenarios(n) -> list[dict]:
    """The three producers as ``python -m bench`` scenarios (``n`` scales a record count)."""
    return [{"id": f"transactions-{'idempotent' if every == 0 else f'commit-{every}'}", "group": "transactions",
             "kind": "transactions", "label": f"{label}, 100 B, 1 partition", "metric": "records_per_s",
             "unit": "records/s", "higher": True, "goal": "", "extra": ["mb_per_s"],
             "params": dict(records=n(100_000), size=100, commit_every=every)}
            for label, every in MODES]


def run_worker(params: dict) -> dict:
    out = subprocess.run([sys.executable, "-m", "bench.workers", "transactions", json.dumps(params)], cwd=REPO,
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"transactions worker failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.transactions", description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--kl-override", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="kl-bench-txn-")
    results: dict[str, list[float]] = {label: [] for label, _ in MODES}
    cpu: dict[str, list[float]] = {label: [] for label, _ in MODES}
    broker = Kafkalite(workdir, args.kl_override)
    try:
        broker.start()
        for rep in range(args.reps):
            for label, every in MODES:
                cpu0 = broker.cpu_seconds()
                r = run_worker({"bootstrap": broker.bootstrap, "topic": f"txn-{every}-{rep}", "records": args.records,
                                "size": args.size, "commit_every": every})
                if r["errors"]:
                    raise RuntimeError(f"{label}: {r['errors']} errors ({r.get('first_error')})")
                results[label].append(r["records_per_s"])
                cpu[label].append(broker.cpu_seconds() - cpu0)
                print(f"rep {rep + 1}: {label:20s} {r['records_per_s']:9.0f} records/s  {r['commits']:5d} commits  "
                      f"broker CPU {cpu[label][-1]:.2f} s", flush=True)
    finally:
        broker.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    base = statistics.median(results["idempotent"])
    print(f"\n{args.reps} interleaved repetitions, {args.records} records of {args.size} B each, 1 partition\n")
    print("| producer | records/s (median) | ratio to idempotent | broker CPU s (median) | runs |\n|---|---:|---:|---:|---|")
    for label, _ in MODES:
        med = statistics.median(results[label])
        runs = ", ".join(f"{v:,.0f}" for v in results[label])
        print(f"| {label} | {med:,.0f} | {med / base:.2f} | {statistics.median(cpu[label]):.2f} | {runs} |")
    os.makedirs(os.path.join(REPO, "bench", "results"), exist_ok=True)
    with open(os.path.join(REPO, "bench", "results", "transactions.json"), "w") as f:
        json.dump({"records": args.records, "size": args.size, "reps": args.reps, "records_per_s": results,
                   "broker_cpu_s": cpu}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

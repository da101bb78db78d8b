"""No Kafka counterpart (Kafka's are ProducerPerformance, ConsumerPerformance, EndToEndLatency):
the load generators, each run in its own process so it never shares a GIL with the harness.

    python -m bench.workers <kind> '<json params>'    -> prints one JSON line (the result)

Kinds: ``create``, ``delete``, ``produce``, ``consume``, ``latency``, ``idle``, ``kcat``, ``perftest``,
``transactions`` (idempotent or transactional produce, from ``bench/transactions.py``), ``down_conversion``
(fill a topic or read it at Fetch v3 / v11, from ``bench/down_conversion.py``), ``raw_produce`` (one prepared
~1 MiB ProduceRequest v7 sent N times pipelined on one connection, from ``bench/raw_produce.py``).
Vocabulary follows Kafka's perf tests: records, record size, acks, batch size, linger.
MB means 2**20 bytes, as kafka-producer-perf-test prints it.
"""
from __future__ import annotations

import json
import os
import re
import selectors
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

MB = 1 << 20


def _admin(bootstrap):
    from confluent_kafka.admin import AdminClient
    return AdminClient({"bootstrap.servers": bootstrap})


def create(bootstrap: str, topic: str, partitions: int = 1, timeout: float = 30.0, replication_factor: int = 1,
           config: dict | None = None) -> dict:
    """Create ``topic`` and wait until every partition has a leader (and, replicated, a full ISR) in Metadata."""
    from confluent_kafka.admin import NewTopic
    admin = _admin(bootstrap)
    for f in admin.create_topics([NewTopic(topic, partitions, replication_factor, config=config or {})]).values():
        f.result(timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        md = admin.list_topics(topic, timeout=5)
        t = md.topics.get(topic)
        if t is not None and t.error is None and len(t.partitions) == partitions \
                and all(p.leader >= 0 and len(p.isrs) == replication_factor for p in t.partitions.values()):
            return {"created": topic}
        time.sleep(0.05)
    raise RuntimeError(f"topic {topic} has no leaders after {timeout}s")


def delete(bootstrap: str, topics: list[str]) -> dict:
    admin = _admin(bootstrap)   # held until the results are in: a dropped AdminClient fails its futures (_DESTROY)
    try:
        for f in admin.delete_topics(topics).values():
            f.result(30)
        return {"deleted": topics}
    except Exception as e:  # noqa: BLE001 - a peer without DeleteTopics only costs memory
        return {"deleted": None, "error": str(e)}


def producer_config(bootstrap: str, acks: str = "1", linger_ms: int = 5, batch_size: int = 1000000,
                    errors: list | None = None) -> dict:
    """The bench's confluent-kafka producer settings: a deep queue, no idempotence, only failed deliveries
    reported (appended to ``errors`` as text)."""
    config = {"bootstrap.servers": bootstrap, "acks": acks, "linger.ms": linger_ms, "batch.size": batch_size,
              "queue.buffering.max.messages": 1000000, "queue.buffering.max.kbytes": 1048576,
              "message.max.bytes": max(batch_size, 1000000), "delivery.report.only.error": True,
              "enable.idempotence": False, "message.timeout.ms": 60000}
    if errors is not None:
        config["on_delivery"] = lambda err, msg: errors.append(str(err)) if err else None
    return config


def produce_one(p, topic: str, value: bytes) -> None:
    """``p.produce`` once, waiting in ``poll`` while the producer's queue is full."""
    while True:
        try:
            p.produce(topic, value)
            return
        except BufferError:
            p.poll(0.005)


def produce(bootstrap: str, topic: str, records: int, size: int, acks: str = "1", partitions: int = 1,
            linger_ms: int = 5, batch_size: int = 1000000, create_topic: bool = True,
            replication_factor: int = 1) -> dict:
    """confluent-kafka (librdkafka) producer: ``records`` values of ``size`` random bytes, no key."""
    from confluent_kafka import Producer
    if create_topic:
        create(bootstrap, topic, partitions, replication_factor=replication_factor)
    errors: list = []
    p = Producer(producer_config(bootstrap, acks, linger_ms, batch_size, errors))
    value = os.urandom(size)
    t0 = time.perf_counter()
    for _ in range(records):
        produce_one(p, topic, value)
    left = p.flush(90)
    dt = time.perf_counter() - t0
    failed = len(errors) + left
    if failed:  # a run that lost records measured nothing comparable
        return {"records": records - failed, "bytes": (records - failed) * size, "seconds": dt,
                "records_per_s": None, "mb_per_s": None, "errors": failed, "first_error": errors[0] if errors else None}
    return {"records": records, "bytes": records * size, "seconds": dt, "records_per_s": records / dt,
            "mb_per_s": records * size / MB / dt, "errors": 0,
            "first_error": errors[0] if errors else None}


def consume(bootstrap: str, topic: str, records: int, partitions: int = 1, timeout: float = 120.0) -> dict:
    """confluent-kafka consumer, assigned every partition from offset 0, until ``records`` are read."""
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-{os.getpid()}", "enable.auto.commit": False,
                  "fetch.max.bytes": 52428800, "max.partition.fetch.bytes": 1048576,
                  "queued.min.messages": 200000, "fetch.wait.max.ms": 100})
    t0 = time.perf_counter()
    c.assign([TopicPartition(topic, i, 0) for i in range(partitions)])
    got = nbytes = errors = 0
    deadline = time.monotonic() + timeout
    while got < records and time.monotonic() < deadline:
        for m in c.consume(10000, 0.5):
            if m.error():
                errors += 1
                continue
            got += 1
            nbytes += len(m)
    dt = time.perf_counter() - t0
    c.close()
    return {"records": got, "bytes": nbytes, "seconds": dt, "records_per_s": got / dt,
            "mb_per_s": nbytes / MB / dt, "errors": errors + (records - got)}


def latency(bootstrap: str, topic: str, rate: int = 1000, seconds: float = 5.0, warmup: float = 1.0,
            size: int = 100) -> dict:
    """End-to-end latency (Kafka's EndToEndLatency): one producer thread sends at a fixed ``rate``,
    one consumer thread reads; each value carries its send time (CLOCK_MONOTONIC, same process)."""
    from confluent_kafka import Consumer, Producer, TopicPartition
    create(bootstrap, topic, 1)
    p = Producer({"bootstrap.servers": bootstrap, "acks": "1", "linger.ms": 0, "enable.idempotence": False})
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"lat-{os.getpid()}", "enable.auto.commit": False,
                  "fetch.wait.max.ms": 100, "fetch.min.bytes": 1})
    c.assign([TopicPartition(topic, 0, 0)])
    total = int(rate * (warmup + seconds))
    samples: list[int] = []
    done = threading.Event()

    def consume_loop():
        seen = 0
        while seen < total and not done.is_set():
            m = c.poll(0.05)  # returns at the first message (consume(n, t) would wait for n)
            if m is not None and not m.error():
                now = time.monotonic_ns()
                sent, measured = struct.unpack_from(">qb", m.value())
                seen += 1
                if measured:
                    samples.append(now - sent)
        done.set()

    reader = threading.Thread(target=consume_loop, daemon=True)
    reader.start()
    pad = b"\0" * (size - 9)
    start = time.monotonic()
    for i in range(total):
        due = start + i / rate
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        p.produce(topic, struct.pack(">qb", time.monotonic_ns(), i >= rate * warmup) + pad)
        p.poll(0)
    p.flush(30)
    done.wait(30)
    done.set()
    reader.join(5)
    c.close()
    samples.sort()
    expected = total - int(rate * warmup)

    def pct(q):
        return samples[min(len(samples) - 1, int(q * len(samples)))] / 1e6 if samples else float("nan")
    return {"samples": len(samples), "p50_ms": pct(0.50), "p99_ms": pct(0.99), "p999_ms": pct(0.999),
            "max_ms": samples[-1] / 1e6 if samples else float("nan"), "errors": expected - len(samples),
            "rate": rate}


def _api_versions_frame(cid: int) -> bytes:
    header = struct.pack(">hhih", 18, 0, cid, 5) + b"bench"
    return struct.pack(">i", len(header)) + header


def _round_trip_all(socks: list[socket.socket], cid: int, timeout: float) -> int:
    """Send ApiVersions v0 on every socket, read every response; return how many failed."""
    sel = selectors.DefaultSelector()
    frame = _api_versions_frame(cid)
    pending = {}
    failed = 0
    for s in socks:
        try:
            s.sendall(frame)
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
            pending[s] = bytearray()
        except OSError:
            failed += 1
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        for key, _ in sel.select(0.2):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                failed += 1
                sel.unregister(s)
                del pending[s]
                continue
            buf = pending[s]
            buf += data
            if len(buf) >= 4 and len(buf) >= 4 + struct.unpack_from(">i", buf)[0]:
                ok = struct.unpack_from(">i", buf, 4)[0] == cid
                failed += 0 if ok else 1
                sel.unregister(s)
                del pending[s]
    sel.close()
    for s in socks:
        s.setblocking(True)
    return failed + len(pending)


def idle(port: int, pid: int, conns: int = 1000, hold: float = 2.0) -> dict:
    """Open ``conns`` connections, prove each is served (ApiVersions), hold them idle, prove it again.
    Accept time = first connect() to the last first response. Memory from the broker's VmRSS."""
    from bench.brokers import proc_rss_kib
    rss0 = proc_rss_kib(pid)
    socks = []
    t0 = time.perf_counter()
    connect_errors = 0
    for _ in range(conns):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        except OSError:
            connect_errors += 1
    failed1 = _round_trip_all(socks, 1, 30)
    accept_s = time.perf_counter() - t0
    time.sleep(hold)  # the scenario *is* holding idle connections for a while
    rss1 = proc_rss_kib(pid)
    fds_held = len(os.listdir(f"/proc/{pid}/fd"))   # while every connection is open, not after the closes
    failed2 = _round_trip_all(socks, 2, 30)
    for s in socks:
        s.close()
    return {"conns": conns, "accept_seconds": accept_s, "rss_before_kib": rss0, "rss_after_kib": rss1,
            "kib_per_conn": (rss1 - rss0) / conns, "fds_held": fds_held,
            "errors": connect_errors + failed1 + failed2}


def kcat(bootstrap: str, topic: str, records: int, size: int, acks: str = "1", partitions: int = 1,
         linger_ms: int = 5, batch_size: int = 1000000) -> dict:
    """kcat -P: one message per line of a prepared file; timed from spawn to exit."""
    create(bootstrap, topic, partitions)
    line = (os.urandom(size).hex()[: size - 1] + "\n").encode()
    with tempfile.NamedTemporaryFile(suffix=".txt") as f:
        for _ in range(records // 1000):
            f.write(line * 1000)
        f.write(line * (records % 1000))
        f.flush()
        t0 = time.perf_counter()
        r = subprocess.run(["kcat", "-P", "-b", bootstrap, "-t", topic, "-X", f"acks={acks}",
                            "-X", f"linger.ms={linger_ms}", "-X", f"batch.size={batch_size}", "-l", f.name],
                           capture_output=True, timeout=300)
        dt = time.perf_counter() - t0
    nbytes = records * (size - 1)
    if r.returncode != 0:
        return {"records": 0, "bytes": 0, "seconds": dt, "records_per_s": None, "mb_per_s": None, "errors": 1,
                "stderr": r.stderr.decode(errors="replace")[-300:]}
    return {"records": records, "bytes": nbytes, "seconds": dt, "records_per_s": records / dt,
            "mb_per_s": nbytes / MB / dt, "errors": 0}


def kcat_consume(bootstrap: str, topic: str, records: int, size: int, partitions: int = 1) -> dict:
    """kcat -C (librdkafka in C, no Python per message) from the beginning until ``records`` are read."""
    t0 = time.perf_counter()
    r = subprocess.run(["kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q",
                        "-c", str(records), "-X", "fetch.max.bytes=52428800"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        return {"records": 0, "bytes": 0, "seconds": dt, "records_per_s": None, "mb_per_s": None, "errors": 1,
                "stderr": r.stderr.decode(errors="replace")[-300:]}
    return {"records": records, "bytes": records * size, "seconds": dt, "records_per_s": records / dt,
            "mb_per_s": records * size / MB / dt, "errors": 0}


PERF_LINE = re.compile(r"(\d+) records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\)")


def perftest(bootstrap: str, topic: str, records: int, size: int, acks: str = "1", partitions: int = 1,
             script: str = "") -> dict:
    """kafkalite's own bin/kafka-producer-perf-test; parses its final Kafka-style summary line."""
    create(bootstrap, topic, partitions)
    t0 = time.perf_counter()
    r = subprocess.run([script, "--topic", topic, "--num-records", str(records), "--record-size", str(size),
                        "--throughput", "-1", "--producer-props", f"bootstrap.servers={bootstrap}", f"acks={acks}"],
                       capture_output=True, timeout=300, text=True)
    dt = time.perf_counter() - t0
    found = PERF_LINE.findall(r.stdout)
    if r.returncode != 0 or not found:
        return {"records": 0, "bytes": 0, "seconds": dt, "records_per_s": None, "mb_per_s": None, "errors": 1,
                "stderr": (r.stderr or r.stdout)[-300:]}
    n, rps, mbps = found[-1]
    return {"records": int(n), "bytes": int(n) * size, "seconds": dt, "records_per_s": float(rps),
            "mb_per_s": float(mbps), "errors": 0}


def transactions(**params) -> dict:
    """Idempotent or transactional produce (``commit_every`` records per transaction): bench/transactions.py."""
    from bench.transactions import produce_transactional
    return produce_transactional(**params)


def down_conversion(**params) -> dict:
    """Fill a topic, or read it with raw Fetch v3 (down-converted) or v11 (sendfile): bench/down_conversion.py."""
    from bench.down_conversion import worker
    return worker(**params)


def raw_produce(**params) -> dict:
    """One prepared ProduceRequest v7 (acks=1, one ~1 MiB batch) resent pipelined: bench/raw_produce.py."""
    from bench.raw_produce import raw_produce as run
    return run(**params)


KINDS = {"create": create, "delete": delete, "produce": produce, "consume": consume, "latency": latency,
         "idle": idle, "kcat": kcat, "kcat_consume": kcat_consume, "perftest": perftest, "transactions": transactions,
         "down_conversion": down_conversion, "raw_produce": raw_produce}

if __name__ == "__main__":
    out = KINDS[sys.argv[1]](**json.loads(sys.argv[2]))
    sys.stdout.write(json.dumps(out) + "\n")

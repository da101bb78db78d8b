"""No Kafka counterpart (KIP-283 measured the same trade-off: down-conversion costs the broker CPU and memory
that the zero-copy path does not): what serving an old consumer costs. One kafkalite broker on 127.0.0.1, one
topic filled once by a confluent-kafka producer (1 KiB JSON-like values, uncompressed or gzip), read from the beginning
to the end (v11: ten times per run, to rise above /proc's 10 ms CPU resolution), by the same raw fetch loop
at two versions, interleaved:

- Fetch v11 -- the stored magic 2 batches, sent from the segment file with sendfile (the zero-copy path);
- Fetch v3  -- the same batches down-converted to magic 1 (LazyDownConversionRecords): decoded, rewritten as
  one message per record (uncompressed) or one gzip wrapper per batch, sent from memory.

The reader is a plain socket loop in its own process (``bench/workers.py`` kind ``down_conversion``) that only
walks the offsets of what it gets, so the client costs the same at both versions; 1 MiB per fetch. Figures:
fetch MB/s of payload (values) and the broker's CPU-s per GB of payload (utime+stime from /proc, the figure
that matters on a shared machine), plus the wire MB/s.

    python -m bench.down_conversion                     # 60,000 records, 3 repetitions: ~1-2 minutes
    python -m bench.down_conversion --records 20000 --reps 1
    python -m bench --only down_conversion              # the same scenarios inside the full bench run

Prints a Markdown table (medians); figures, never assertions.
"""
from __future__ import annotations

import argparse
import random
import shutil
import socket
import statistics
import struct
import sys
import tempfile
import time

from bench.brokers import Kafkalite, kafka_request, read_response

MB, GB = 1 << 20, 1 << 30
FILL_TOPIC = "down_conversion-fill"
SIZE = 1024
CODECS = ("none", "gzip")
PASSES = {11: 10, 3: 1}    # sendfile is so cheap that one pass is below /proc's 10 ms CPU resolution


def _value(i: int) -> bytes:
    """1 KiB that compresses about as JSON log lines do (gzip ~2-3x): some words, then hex of random bytes."""
    words = b'{"record": %08d, "bench": "kafkalite down-conversion", "payload": "' % i
    return (words + random.Random(i).randbytes(SIZE).hex().encode())[:SIZE - 2] + b'"}'


def fill(bootstrap: str, topic: str, records: int, compression: str) -> dict:
    """Create ``topic`` and write ``records`` values of 1 KiB with confluent-kafka (batches of up to 64 KiB)."""
    from confluent_kafka import Producer

    from bench.workers import create
    create(bootstrap, topic, 1)
    errors = []
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 65536,
                  "compression.type": compression, "queue.buffering.max.messages": 1000000,
                  "delivery.report.only.error": True,
                  "on_delivery": lambda err, msg: errors.append(str(err)) if err else None})
    for i in range(records):
        while True:
            try:
                p.produce(topic, _value(i), key=b"%d" % i)
                break
            except BufferError:
                p.poll(0.005)
    left = p.flush(120)
    return {"records": records, "errors": len(errors) + left}


def _fetch_body(topic: str, offset: int, version: int, partition_max_bytes: int) -> bytes:
    from kafkalite.protocol.messages.fetch import FetchPartition, FetchRequest, FetchTopic
    from kafkalite.protocol.schema import write
    return write(FetchRequest(replica_id=-1, max_wait_ms=100, min_bytes=1, max_bytes=64 * MB, topics=[
        FetchTopic(topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=offset,
                                                           partition_max_bytes=partition_max_bytes)])]), version)


def _next_offset(records, offset: int) -> int:
    """Past the last complete batch (magic 2: base + lastOffsetDelta) or message (magic 0/1: its offset; a
    wrapper's is its last inner offset) of a fetched records section."""
    pos, n = 0, len(records)
    while pos + 17 <= n:
        base, length = struct.unpack_from(">qi", records, pos)
        if pos + 12 + length > n:
            break
        if records[pos + 16] >= 2:
            offset = base + struct.unpack_from(">i", records, pos + 23)[0] + 1
        else:
            offset = base + 1
        pos += 12 + length
    return offset


def fetch_all(bootstrap: str, topic: str, version: int, records: int, size: int = SIZE,
              partition_max_bytes: int = MB, passes: int = 1, timeout: float = 240.0) -> dict:
    """Read offsets 0..records-1 of partition 0 ``passes`` times with raw FetchRequests of ``version``."""
    from kafkalite.protocol.messages.fetch import FetchResponse
    from kafkalite.protocol.schema import read
    host, port = bootstrap.rsplit(":", 1)
    wire, corr, errors, done = 0, 0, 0, 0
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        t0 = time.perf_counter()
        for _ in range(passes):
            offset = 0
            while offset < records and time.perf_counter() - t0 < timeout:
                corr += 1
                sock.sendall(kafka_request(1, version, corr, _fetch_body(topic, offset, version, partition_max_bytes)))
                body = read_response(sock, corr)
                response, _ = read(FetchResponse, version, memoryview(body)[4:])
                [part] = response.responses[0].partitions
                if part.error_code:
                    return {"records": offset, "bytes": 0, "errors": 1, "first_error": f"error code {part.error_code}"}
                data = part.records or b""
                wire += len(data)
                offset = _next_offset(data, offset)
            done += offset
            if offset < records:
                errors = 1
                break
        dt = time.perf_counter() - t0
    return {"records": done, "bytes": done * size, "seconds": dt, "records_per_s": done / dt,
            "mb_per_s": done * size / MB / dt, "wire_mb_per_s": wire / MB / dt, "fetches": corr,
            "errors": errors}


def worker(action: str, **params) -> dict:
    """``bench/workers.py`` kind ``down_conversion``: ``fill`` or ``fetch`` (in the worker's own process)."""
    return fill(**params) if action == "fill" else fetch_all(**params)


# ---------------------------------------------------------------- inside ``python -m bench``
def scenarios(n) -> list[dict]:
    out = []
    for codec in CODECS:
        for version, what in ((11, "sendfile"), (3, "down-converted to magic 1")):
            out.append({"id": f"down_conversion-{codec}-fetch-v{version}", "group": "down_conversion",
                        "kind": "down_conversion", "label": f"Fetch v{version} ({what}), 1 KiB, {codec}",
                        "metric": "mb_per_s", "unit": "MB/s", "higher": True, "extra": ["wire_mb_per_s"],
                        "params": dict(records=n(60_000), version=version, compression=codec,
                                       passes=PASSES[version])})
    return out


_FILLED: set = set()


def run_scenario(sc: dict, broker, measured, run_worker) -> dict:
    """One repetition: fill the codec's topic once per broker, then a measured read of it at the version."""
    if broker.name != "kafkalite":
        return {"result": {"errors": 0, "skipped": "kafkalite only (Fetch v0-3 down-conversion)"}}
    p = sc["params"]
    topic = f"{FILL_TOPIC}-{p['compression']}"
    if (broker.name, topic) not in _FILLED:
        run_worker("down_conversion", dict(action="fill", bootstrap=broker.bootstrap, topic=topic,
                                           records=p["records"], compression=p["compression"]))
        _FILLED.add((broker.name, topic))
    return measured(broker, "down_conversion", dict(action="fetch", bootstrap=broker.bootstrap, topic=topic,
                                                    version=p["version"], records=p["records"],
                                                    passes=p["passes"]))


def topics_to_delete(sc: dict) -> list[str]:
    """After the last scenario of a codec (v3, which follows v11), its topic goes."""
    if sc["params"]["version"] == 3:
        _FILLED.discard(("kafkalite", f"{FILL_TOPIC}-{sc['params']['compression']}"))
        return [f"{FILL_TOPIC}-{sc['params']['compression']}"]
    return []


# ---------------------------------------------------------------- standalone
def main(argv=None) -> int:
    from bench.__main__ import measured, run_worker
    ap = argparse.ArgumentParser(prog="python -m bench.down_conversion", description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=60_000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="kafkalite-bench-dc-")
    broker = Kafkalite(workdir)
    rows = {}
    try:
        print(f"kafkalite up in {broker.start():.2f}s (pid {broker.pid})", file=sys.stderr)
        for codec in CODECS:
            topic = f"{FILL_TOPIC}-{codec}"
            run_worker("down_conversion", dict(action="fill", bootstrap=broker.bootstrap, topic=topic,
                                               records=args.records, compression=codec))
            for rep in range(args.reps):
                for version in (11, 3):
                    run = measured(broker, "down_conversion", dict(action="fetch", bootstrap=broker.bootstrap,
                                                                   topic=topic, version=version, records=args.records,
                                                                   passes=PASSES[version]))
                    rows.setdefault((codec, version), []).append(run)
                    r = run["result"]
                    print(f"  {codec} v{version} rep {rep}: {r.get('mb_per_s') or 0:.1f} MB/s, "
                          f"{run.get('cpu_s_per_gb', float('nan')):.2f} CPU-s/GB, errors={r.get('errors')}",
                          file=sys.stderr)
    finally:
        broker.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    def med(runs, get):
        values = [get(r) for r in runs if get(r) is not None]
        return statistics.median(values) if values else float("nan")
    print(f"\n{args.records:,} records of 1 KiB, {args.reps} repetitions, medians\n")
    print("| topic | Fetch | path | payload MB/s | wire MB/s | broker CPU-s/GB | v3 / v11 CPU |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for codec in CODECS:
        base = med(rows[(codec, 11)], lambda r: r.get("cpu_s_per_gb"))
        for version in (11, 3):
            runs = rows[(codec, version)]
            cpu = med(runs, lambda r: r.get("cpu_s_per_gb"))
            print(f"| {codec} | v{version} | {'sendfile' if version == 11 else 'down-converted'} | "
                  f"{med(runs, lambda r: r['result'].get('mb_per_s')):.1f} | "
                  f"{med(runs, lambda r: r['result'].get('wire_mb_per_s')):.1f} | {cpu:.2f} | "
                  f"{cpu / base if base else float('nan'):.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""No Kafka counterpart: what TLS costs the fetch path (issue 16). Zero-copy fetch sends log segments with
``os.sendfile``; through TLS that is impossible (the bytes must be encrypted in user space), so
SslTransportLayer.transfer_from reads each file region into memory and writes it through the SSL engine,
as Kafka's does (FileChannel.transferTo into a non-file channel).

One kafkalite broker with a PLAINTEXT and an SSL listener (test certificates made by
``kafkalite.tools.gen_certs``), one 1-partition topic filled once with 16 KiB records (confluent-kafka over
PLAINTEXT), then, interleaved, a confluent-kafka consumer (its own process) reads the whole partition from
offset 0 over PLAINTEXT and over SSL (server-verified). Reported per listener: MB/s (median and range) and
the broker's CPU seconds per GB fetched. A second table isolates the broker's fetch path: a raw client (its
own process; Python's ssl module decrypts in C) sends the same Fetch request, 8 MB of the partition from
offset 0, again and again over one connection and only counts the bytes of each response.

    python -m bench.ssl_fetch                    # about a minute
    python -m bench.ssl_fetch --mb 100 --reps 1  # a quick look
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

from bench.brokers import REPO, Kafkalite, free_port, proc_cpu_seconds

TOPIC = "ssl-fetch-bench"
RECORD = 16 * 1024   # large records: the consumer's per-record Python work stays out of the figure


class TwoListenerKafkalite(Kafkalite):
    def __init__(self, workdir: str, certs: str):
        super().__init__(workdir)
        self.ssl_port = free_port()
        self.certs = certs

    def command(self) -> list[str]:
        cmd = super().command()
        cmd += ["--override", f"listeners=PLAINTEXT://127.0.0.1:{self.port},SSL://127.0.0.1:{self.ssl_port}",
                "--override", f"ssl.keystore.location={self.certs}/broker.pem",
                "--override", "ssl.keystore.type=PEM",
                "--override", f"ssl.truststore.location={self.certs}/ca.crt"]
        return cmd


FILL = r"""
import sys
from confluent_kafka import Producer
bootstrap, topic, n, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1000000, "acks": "1"})
value = b"x" * size
for i in range(n):
    while True:
        try:
            p.produce(topic, value, partition=0)
            break
        except BufferError:
            p.poll(0.05)
assert p.flush(120) == 0
"""

READ = r"""
import json, sys, time
from confluent_kafka import Consumer, TopicPartition
bootstrap, topic, n, ssl_ca = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
config = {"bootstrap.servers": bootstrap, "group.id": "bench", "enable.auto.commit": False,
          "fetch.max.bytes": 52428800, "max.partition.fetch.bytes": 10485760, "fetch.wait.max.ms": 10}
if ssl_ca != "-":
    config.update({"security.protocol": "SSL", "ssl.ca.location": ssl_ca})
c = Consumer(config)
start = time.monotonic()   # connection, TLS handshake and all (librdkafka prefetches in the background)
c.assign([TopicPartition(topic, 0, 0)])
got, nbytes = 0, 0
deadline = start + 300
while got < n and time.monotonic() < deadline:
    for m in c.consume(num_messages=10000, timeout=1.0):
        if m.error():
            continue
        got += 1
        nbytes += len(m.value())
elapsed = time.monotonic() - start
c.close()
print(json.dumps({"records": got, "bytes": nbytes, "seconds": elapsed}))
"""


RAW = r"""
import json, socket, ssl, sys, time
from kafkalite.protocol.messages.fetch import FetchPartition, FetchRequest, FetchTopic
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import serialize_request
host, port, topic, ssl_ca, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5])
sock = socket.create_connection((host, port))
if ssl_ca != "-":
    sock = ssl.create_default_context(cafile=ssl_ca).wrap_socket(sock, server_hostname=host)
body = FetchRequest(max_wait_ms=0, min_bytes=1, max_bytes=8 << 20, topics=[FetchTopic(topic=topic,
                    partitions=[FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=8 << 20)])])
buf = memoryview(bytearray(16 << 20))
total, n, start = 0, 0, time.monotonic()
while time.monotonic() - start < seconds:
    n += 1
    frame = serialize_request(RequestHeader(api_key=1, api_version=11, correlation_id=n, client_id="raw"), body)
    sock.sendall(len(frame).to_bytes(4, "big") + frame)
    got = 0
    while got < 4:
        got += sock.recv_into(buf[got:4])
    size = int.from_bytes(buf[:4], "big")
    got = 0
    while got < size:
        got += sock.recv_into(buf[:min(size - got, len(buf))])
    total += size + 4
print(json.dumps({"bytes": total, "seconds": time.monotonic() - start, "requests": n}))
"""


def run_raw(port: int, ssl_ca: str | None, seconds: float) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [REPO, os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", RAW, "127.0.0.1", str(port), TOPIC, ssl_ca or "-", str(seconds)],
                          capture_output=True, text=True, timeout=seconds + 60, env=env)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_reader(bootstrap: str, records: int, ssl_ca: str | None) -> dict:
    proc = subprocess.run([sys.executable, "-c", READ, bootstrap, TOPIC, str(records), ssl_ca or "-"],
                          capture_output=True, text=True, timeout=360)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ssl_fetch")
    parser.add_argument("--mb", type=int, default=300, help="MB of records in the topic")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each raw-fetch repetition")
    args = parser.parse_args(argv)
    from kafkalite.tools import gen_certs
    workdir = tempfile.mkdtemp(prefix="kl-ssl-bench-")
    certs = os.path.join(workdir, "certs")
    gen_certs.generate(certs, clients=())
    broker = TwoListenerKafkalite(workdir, certs)
    records = args.mb * 1024 * 1024 // RECORD
    results: dict[str, list[tuple[float, float]]] = {"PLAINTEXT": [], "SSL": []}
    raw: dict[str, list[tuple[float, float]]] = {"PLAINTEXT": [], "SSL": []}
    try:
        broker.start()
        subprocess.run([sys.executable, "-c", FILL, f"127.0.0.1:{broker.port}", TOPIC, str(records), str(RECORD)],
                       check=True, timeout=600)
        run_reader(f"127.0.0.1:{broker.port}", min(records, 10000), None)   # warm the page cache and the broker
        for _ in range(args.reps):
            for name, port, ca in (("PLAINTEXT", broker.port, None), ("SSL", broker.ssl_port, f"{certs}/ca.crt")):
                cpu0 = proc_cpu_seconds(broker.pid)
                r = run_reader(f"127.0.0.1:{port}", records, ca)
                cpu = proc_cpu_seconds(broker.pid) - cpu0
                if r["records"] != records:
                    raise RuntimeError(f"{name}: read {r['records']} of {records} records")
                mb_s = r["bytes"] / r["seconds"] / 1e6
                results[name].append((mb_s, cpu / (r["bytes"] / 1e9)))
                print(f"{name:9} {mb_s:8.1f} MB/s  broker CPU {cpu:6.2f} s", flush=True)
                cpu0 = proc_cpu_seconds(broker.pid)
                r = run_raw(port, ca, args.seconds)
                cpu = proc_cpu_seconds(broker.pid) - cpu0
                mb_s = r["bytes"] / r["seconds"] / 1e6
                raw[name].append((mb_s, cpu / (r["bytes"] / 1e9)))
                print(f"{name:9} raw {mb_s:8.1f} MB/s  broker CPU {cpu:6.2f} s", flush=True)
    finally:
        broker.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    for title, table in ((f"{args.mb} MB of 16 KiB records, {args.reps} repetitions, confluent-kafka consumer",
                          results),
                         (f"raw repeated 8 MB Fetch, {args.seconds:.0f} s per repetition", raw)):
        base = statistics.median(x for x, _ in table["PLAINTEXT"])
        print(f"\n{title}\n")
        print("| listener | fetch MB/s (median) | range | ratio to PLAINTEXT | broker CPU s per GB (median) |")
        print("|---|---:|---|---:|---:|")
        for name, rows in table.items():
            mbs = [x for x, _ in rows]
            med = statistics.median(mbs)
            print(f"| {name} | {med:.1f} | {min(mbs):.0f}–{max(mbs):.0f} | {med / base:.2f} | "
                  f"{statistics.median(c for _, c in rows):.2f} |")
    os.makedirs(os.path.join(REPO, "bench", "results"), exist_ok=True)
    with open(os.path.join(REPO, "bench", "results", "ssl_fetch.json"), "w") as f:
        json.dump({"mb": args.mb, "reps": args.reps, "consumer": results, "raw": raw}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

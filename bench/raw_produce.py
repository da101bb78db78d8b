"""No Kafka counterpart: a producer as cheap as the socket -> file loop's sender (bench/machine.py), so the
produce row of issue 18's "large batches >= 50% of the loop" measures the broker and not its client.

kcat -P spends about as much CPU per GB reading and splitting its input file as the broker spends storing
it, so on two cores the kcat row is bound by both processes together. Here the client builds one
ProduceRequest v7 (acks=1, one partition, one DefaultRecordBatch of ``records_per_batch`` records of
``record_size`` bytes: 63 x 16 KiB is ~1 MiB) once, and sends it N times pipelined on one connection, each
with its own correlation id; a reader thread reads every response and checks its correlation id (in send
order) and every partition's error_code. The same bytes can be resent: the broker assigns the offsets and
the batch CRC does not cover the base offset. Timed from the first send to the last response.

Functions: ``prepare_request`` (the request body), ``request_header`` (one frame's size + header),
``read_responses`` (the reader; also used by tests/unit/test_bench_raw_produce.py on a socketpair),
``raw_produce`` (the worker kind ``raw_produce`` of bench/workers.py).

Left out: acks=0 (no responses to time), several partitions or connections, compression.
"""
from __future__ import annotations

import os
import resource
import socket
import struct
import threading
import time

MB = 1 << 20
GB = 1 << 30
PRODUCE, VERSION = 0, 7
CLIENT_ID = b"bench-raw"

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_HEADER = struct.Struct(">ihhih")   # frame size, api_key, api_version, correlation_id, client_id length


def prepare_batch(record_size: int, records_per_batch: int) -> bytes:
    """One v2 record batch (no key, random values), built by kafkalite's own MemoryRecords."""
    from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
    value = os.urandom(record_size)
    return bytes(MemoryRecords.with_records(*[SimpleRecord(0, None, value) for _ in range(records_per_batch)]).buffer)


def prepare_request(topic: str, batch: bytes, acks: int = 1, timeout_ms: int = 30000, partition: int = 0) -> bytes:
    """ProduceRequest v3-v8 body: null transactional_id, acks, timeout, one topic, one partition, ``batch``."""
    name = topic.encode()
    return (struct.pack(">hhii", -1, acks, timeout_ms, 1) + _I16.pack(len(name)) + name
            + struct.pack(">iii", 1, partition, len(batch)) + batch)


def request_header(correlation_id: int, body_len: int) -> bytes:
    """The 4-byte frame size and request header v1 (api_key 0, version 7, client id) of one request."""
    return _HEADER.pack(10 + len(CLIENT_ID) + body_len, PRODUCE, VERSION, correlation_id, len(CLIENT_ID)) + CLIENT_ID


def _partition_errors(resp: bytes, topic: bytes) -> list[int]:
    """error_codes of a ProduceResponse v7 body (after the correlation id); raises on a foreign topic."""
    pos = 0
    (topics,) = _I32.unpack_from(resp, pos)
    pos += 4
    codes = []
    for _ in range(topics):
        (n,) = _I16.unpack_from(resp, pos)
        pos += 2
        if resp[pos:pos + n] != topic:
            raise ValueError(f"response for topic {resp[pos:pos + n]!r}")
        pos += n
        (parts,) = _I32.unpack_from(resp, pos)
        pos += 4
        for _ in range(parts):
            codes.append(_I16.unpack_from(resp, pos + 4)[0])
            pos += 4 + 2 + 8 + 8 + 8   # partition, error_code, base_offset, log_append_time, log_start_offset
    return codes


def read_responses(sock: socket.socket, count: int, topic: str, first_correlation_id: int = 0) -> dict:
    """Read ``count`` ProduceResponse v7 frames from ``sock``; count the bad ones.

    A response is an error if its correlation id is not the next one sent, it names no partition, or any
    partition's error_code is not 0. Stops early at end of stream (each missing response is an error)."""
    f = sock.makefile("rb", buffering=1 << 16)
    name = topic.encode()
    got = errors = 0
    first_error = None
    try:
        for i in range(count):
            head = f.read(4)
            if len(head) < 4:
                break
            (size,) = _I32.unpack(head)
            resp = f.read(size)
            if len(resp) < size:
                break
            got += 1
            (cid,) = _I32.unpack_from(resp, 0)
            try:
                codes = _partition_errors(resp[4:], name)
            except (struct.error, ValueError) as e:
                codes = [f"unreadable response: {e}"]
            bad = cid != first_correlation_id + i or not codes or any(c != 0 for c in codes)
            if bad:
                errors += 1
                if first_error is None:
                    first_error = f"correlation id {cid} (expected {first_correlation_id + i}), error codes {codes}"
    finally:
        f.close()
    missing = count - got
    if missing and first_error is None:
        first_error = f"connection closed after {got} of {count} responses"
    return {"responses": got, "errors": errors + missing, "first_error": first_error}


def _cpu_self() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def raw_produce(bootstrap: str, topic: str, total_mb: int = 512, record_size: int = 16384,
                records_per_batch: int = 63, create_topic: bool = True) -> dict:
    """Send one prepared ~1 MiB ProduceRequest v7 (acks=1) ``total_mb`` / batch-size times, pipelined."""
    if create_topic:
        from bench.workers import create
        create(bootstrap, topic, 1)
    batch = prepare_batch(record_size, records_per_batch)
    body = prepare_request(topic, batch)
    n = max(1, total_mb * MB // len(batch))
    host, port = bootstrap.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    got: dict = {}
    reader = threading.Thread(target=lambda: got.update(read_responses(s, n, topic)), daemon=True)
    cpu0 = _cpu_self()
    t0 = time.perf_counter()
    reader.start()
    try:
        for i in range(n):
            s.sendall(request_header(i, len(body)))
            s.sendall(body)
    except OSError as e:   # the broker closed the connection: the reader counts what is missing
        got.setdefault("send_error", str(e))
    reader.join(300)
    dt = time.perf_counter() - t0
    cpu = _cpu_self() - cpu0
    s.close()
    if reader.is_alive() or "errors" not in got:
        got = {"errors": n, "first_error": "no responses within 300 s"}
    records, nbytes = n * records_per_batch, n * len(batch)
    out = {"requests": n, "batch_bytes": len(batch), "records": records, "bytes": nbytes, "seconds": dt,
           "errors": got["errors"], "first_error": got.get("first_error") or got.get("send_error"),
           "client_cpu_s_per_gb": cpu / (nbytes / GB)}
    if got["errors"]:   # a run that lost requests measured nothing comparable
        out.update(records_per_s=None, mb_per_s=None)
    else:
        out.update(records_per_s=records / dt, mb_per_s=nbytes / MB / dt)
    return out

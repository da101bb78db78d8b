"""No Kafka counterpart (KIP-72's promise, checked from outside): no client can pin the broker's memory.

Against a broker process with ``queued.max.request.bytes`` = 100 MB (Kafka's MemoryPool):
- 20 connections each declare a 50 MB request and then push its bytes as fast as the broker takes them,
  never finishing; 20 more send only a 50 MB size prefix and disconnect. The broker's resident memory
  (VmRSS from /proc) stays within the pool's size plus a fixed margin while they do it: only two of the
  frames get a buffer, the other connections are muted until memory comes back.
- Once they are gone the memory is back near the baseline (the pool's bytes are released and the buffers
  freed), and a real client produces and consumes again.
"""
import socket
import struct
import time

import clients
from harness import wait_until
from support import rss

MB = 1 << 20
POOL = 100 * MB
MARGIN = 40 * MB


def test_greedy_clients_stay_within_queued_max_request_bytes(broker_factory, unique_topic):
    b = broker_factory({"queued.max.request.bytes": str(POOL)})
    pid = b.proc.pid
    clients.create_topic(b.bootstrap, unique_topic, 1)
    clients.produce_confluent(b.bootstrap, unique_topic, clients.make_records(100))
    baseline = rss(pid)

    greedy = []
    for _ in range(20):
        s = socket.create_connection(("127.0.0.1", b.port))
        s.setblocking(False)
        s.send(struct.pack(">i", 50 * MB))
        greedy.append(s)
    for _ in range(20):
        with socket.create_connection(("127.0.0.1", b.port)) as s:
            s.sendall(struct.pack(">i", 50 * MB))
    chunk = b"\x01" * (256 * 1024)
    sent = [0] * len(greedy)
    peak = 0
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline:
        for i, s in enumerate(greedy):
            if sent[i] < 50 * MB - len(chunk):   # never the last bytes: no frame is ever complete
                try:
                    sent[i] += s.send(chunk)
                except BlockingIOError:
                    pass
        peak = max(peak, rss(pid))
    total_sent = sum(sent)
    print(f"baseline {baseline / MB:.0f} MB, peak {peak / MB:.0f} MB, sent {total_sent / MB:.0f} MB "
          f"over 20 connections")
    assert total_sent > POOL, "the clients could not even fill the pool; the test proves nothing"
    assert peak <= baseline + POOL + MARGIN, f"RSS peaked at {peak / MB:.0f} MB (baseline {baseline / MB:.0f} MB)"

    for s in greedy:
        s.close()
    wait_until(lambda: rss(pid) <= baseline + MARGIN, 20,
               f"RSS to come back near the baseline of {baseline / MB:.0f} MB")
    more = clients.make_records(50)
    clients.produce_confluent(b.bootstrap, unique_topic, more)
    got = clients.read_confluent(b.bootstrap, unique_topic, [0], 150, timeout=30)
    assert len(got) == 150

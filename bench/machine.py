"""No Kafka counterpart: this machine's own limits, the trivial Python loops of issue 7 item 3.

- ``socket_to_file``: a forked sender ``sendall``s length-prefixed 1 MiB frames over loopback; the
  receiver ``recv_into``s each frame into one reused buffer and ``os.write``s it to a fresh file
  (what a produce path does at best: no protocol, no CRC, no index). The file is unlinked after the
  run, so the next run writes into the page-cache memory this one just freed. With ``keep=True`` the
  file stays (the caller removes it with ``remove_kept``), as a broker keeps its log: each run then
  writes into memory the page cache had not used. On this VM the two differed by up to ~5x in session 11
  (docs/benchmarks.md, "Large batches: where the broker's time goes"); how much depends on how recently the
  guest used its free memory (a review's 1-rep run saw 2,338 against 2,934 MB/s). Five kept runs of 512 MiB
  reach vm.dirty_background_ratio here, so the last of them overlaps background writeback.
- ``sendfile_to_socket``: a forked sender ``os.sendfile``s a page-cached file to a socket; the
  receiver ``recv_into``s and discards (what a fetch path does at best).

Both are timed at the receiver, first byte to last, and return ``(MB/s, CPU-s/GB)``: MB = 2**20 bytes,
and the CPU is both processes' (receiver: getrusage of this process; sender: wait4 of the child), the
figure to set beside a broker's CPU-s/GB on a machine that others share.
"""
from __future__ import annotations

import os
import resource
import socket
import struct
import time

MB = 1 << 20
FRAME = 1 << 20


def _pair():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    return srv


def _cpu_self() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _finish(pid, n, dt, cpu0):
    cpu = _cpu_self() - cpu0
    _, _, child = os.wait4(pid, 0)
    cpu += child.ru_utime + child.ru_stime
    return n / MB / dt, cpu / (n / (1 << 30))


def _recv_exact(sock, view) -> bool:
    got, n = 0, len(view)
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            return False
        got += k
    return True


def socket_to_file(workdir: str, total_mb: int = 512, keep: bool = False) -> tuple[float, float]:
    srv = _pair()
    port = srv.getsockname()[1]
    pid = os.fork()
    if pid == 0:  # sender
        try:
            s = socket.create_connection(("127.0.0.1", port))
            payload = memoryview(struct.pack(">i", FRAME) + os.urandom(FRAME))
            for _ in range(total_mb):
                s.sendall(payload)
            s.close()
        finally:
            os._exit(0)
    cpu0 = _cpu_self()
    conn, _ = srv.accept()
    path = os.path.join(workdir, f"machine-limit-kept-{time.monotonic_ns()}.seg" if keep else "machine-limit.seg")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    size_buf = bytearray(4)
    buf = bytearray(FRAME)
    view = memoryview(buf)
    t0 = None
    n = 0
    try:
        while _recv_exact(conn, memoryview(size_buf)):
            if t0 is None:
                t0 = time.perf_counter()
            size = struct.unpack(">i", size_buf)[0]
            _recv_exact(conn, view[:size])
            os.write(fd, view[:size])
            n += size
        dt = time.perf_counter() - t0
    finally:
        os.close(fd)
        if not keep:
            os.unlink(path)
        conn.close()
        srv.close()
    return _finish(pid, n, dt, cpu0)


def remove_kept(workdir: str) -> None:
    """Unlink the files ``socket_to_file(keep=True)`` left in ``workdir``."""
    for name in os.listdir(workdir):
        if name.startswith("machine-limit-kept-"):
            os.unlink(os.path.join(workdir, name))


def sendfile_to_socket(workdir: str, total_mb: int = 256) -> tuple[float, float]:
    path = os.path.join(workdir, "machine-limit-src.seg")
    with open(path, "wb") as f:
        chunk = os.urandom(MB)
        for _ in range(total_mb):
            f.write(chunk)
    with open(path, "rb") as f:  # into the page cache, as a recently written log is
        while f.read(8 * MB):
            pass
    srv = _pair()
    port = srv.getsockname()[1]
    pid = os.fork()
    if pid == 0:  # sender
        try:
            s = socket.create_connection(("127.0.0.1", port))
            fd = os.open(path, os.O_RDONLY)
            off, end = 0, total_mb * MB
            while off < end:
                off += os.sendfile(s.fileno(), fd, off, min(FRAME, end - off))
            s.close()
        finally:
            os._exit(0)
    cpu0 = _cpu_self()
    conn, _ = srv.accept()
    buf = bytearray(FRAME)
    t0 = None
    n = 0
    try:
        while True:
            k = conn.recv_into(buf)
            if k == 0:
                break
            if t0 is None:
                t0 = time.perf_counter()
            n += k
        dt = time.perf_counter() - t0
    finally:
        conn.close()
        srv.close()
        os.unlink(path)
    return _finish(pid, n, dt, cpu0)

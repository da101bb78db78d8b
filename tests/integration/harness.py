"""No Kafka counterpart: the integration-test harness (Kafka's own integration tests use
kafka.utils.TestUtils and KafkaServerTestHarness, which start brokers inside the JVM).

Holds:
- ``wait_until(condition, timeout, message)``: poll a condition against a deadline; the
  only way these tests wait (Kafka's ``TestUtils.waitUntilTrue``).
- ``free_port()``: a TCP port on 127.0.0.1 that nothing listens on.
- ``BrokerProcess``: one broker started the way a user starts it,
  ``bin/kafka-server-start server.properties --override key=value ...``, as a subprocess in
  its own process group; its stdout and stderr go to a log file. ``start()``, ``stop()``
  (SIGTERM, by PID), ``kill9()``, ``restart()`` (same port, same log.dirs), ``bootstrap``,
  ``log_text()``.
- ``InProcessBroker``: ``KafkaServer`` started inside the test process, for tests that look
  at ``threading.enumerate()``.
- ``RawConnection``: a blocking socket that speaks Kafka's size-prefixed framing, for the
  few tests that are about bytes on the wire; plus encoders for request headers v1/v2.

Clusters of broker processes over a real ZooKeeper: ``cluster_harness.ClusterProcesses``.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import struct
import subprocess
import time
from pathlib import Path

from support import free_port, wait_until  # noqa: E402,F401 -- re-exported for the integration tests

REPO_ROOT = Path(__file__).resolve().parents[2]
STARTED_LINE = "started (kafka.server.KafkaServer)"
STARTED_RE = re.compile(r"\[KafkaServer id=\d+\] started \(kafka\.server\.KafkaServer\)")


def run_tool(tool: str, *args, stdin: str | None = None, check: bool = True,
             timeout: float = 60) -> subprocess.CompletedProcess:
    """Run ``bin/<tool> args`` as a user would; with ``check`` its exit code must be 0."""
    proc = subprocess.run([str(REPO_ROOT / "bin" / tool), *map(str, args)], input=stdin, capture_output=True,
                          text=True, timeout=timeout)
    if check:
        assert proc.returncode == 0, f"{tool} {args} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def port_accepts(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class BrokerProcess:
    """A broker subprocess started with the README's command and ``--override`` flags."""

    def __init__(self, workdir: Path, overrides: dict | None = None, port: int | None = None,
                 properties: Path | None = None, root: Path = REPO_ROOT):
        self.root = Path(root)
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.properties = Path(properties) if properties else self.root / "server.properties"
        self.port = port or free_port()
        self.log_dirs = self.workdir / "kafka-logs"
        self.log_path = self.workdir / "broker.log"
        # An override given as None is left out, so the properties file's own value applies.
        merged = {
            "listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
            "log.dirs": str(self.log_dirs),
            **(overrides or {}),
        }
        self.overrides = {k: v for k, v in merged.items() if v is not None}
        self.proc: subprocess.Popen | None = None
        self.exit_codes: list[int] = []

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        cmd = [str(self.root / "bin" / "kafka-server-start"), str(self.properties)]
        for key, value in self.overrides.items():
            cmd += ["--override", f"{key}={value}"]
        return cmd

    def log_size(self) -> int:
        return self.log_path.stat().st_size if self.log_path.exists() else 0

    def log_text(self, since: int = 0) -> str:
        """The broker's output (all starts of it), from byte offset ``since``."""
        if not self.log_path.exists():
            return ""
        with open(self.log_path, "rb") as f:
            f.seek(since)
            return f.read().decode("utf-8", "replace")

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def start(self, timeout: float = 30.0) -> "BrokerProcess":
        assert self.proc is None, "broker already running"
        script = self.root / "bin" / "kafka-server-start"
        assert script.exists(), f"{script} does not exist yet (issue 2 adds it)"
        offset = self.log_size()
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        with open(self.log_path, "ab") as log:
            log.write(f"=== {' '.join(self.command())}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(self.command(), cwd=self.root, env=env, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

        def ready():
            if self.proc.poll() is not None:
                raise RuntimeError(f"broker exited with {self.proc.returncode} during start-up")
            return STARTED_RE.search(self.log_text(offset)) and port_accepts(self.port)

        try:
            wait_until(ready, timeout, f"the broker to log '{STARTED_LINE}' and accept on {self.bootstrap}")
        except BaseException as e:
            self.kill9()
            raise AssertionError(f"{e}\n--- broker log ---\n{self.log_tail()}") from None
        return self

    def _signal(self, sig: int) -> None:
        # start_new_session made the broker its own process group (pgid == pid), so the group
        # holds only this broker and anything a wrapper script started for it.
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM by PID and wait; SIGKILL if it does not exit in time. Returns the exit code
        (negative for a signal, as Popen reports it)."""
        if self.proc is None:
            return self.exit_codes[-1] if self.exit_codes else 0
        self._signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL)
            self.proc.wait(10)
            code = "hung on SIGTERM"
        self.proc = None
        self.exit_codes.append(code)
        return code

    def kill9(self) -> None:
        if self.proc is None:
            return
        self._signal(signal.SIGKILL)
        self.proc.wait(10)
        self.exit_codes.append(self.proc.returncode)
        self.proc = None

    def restart(self, timeout: float = 30.0) -> "BrokerProcess":
        self.stop()
        wait_until(lambda: not port_accepts(self.port), 10, f"port {self.port} to close")
        return self.start(timeout)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class InProcessBroker:
    """``KafkaServer`` in this process, on an ephemeral port (the issue-2 contract)."""

    def __init__(self, log_dirs: Path, props: dict | None = None):
        from kafkalite.server.kafka_config import KafkaConfig
        from kafkalite.server.kafka_server import KafkaServer

        self.config = KafkaConfig.from_props({
            "broker.id": "0",
            "listeners": "PLAINTEXT://127.0.0.1:0",
            "log.dirs": str(log_dirs),
            # one broker: its internal topics as the shipped server.properties sets them (Kafka's defaults of 3
            # would leave the group and transaction coordinators unavailable, as in Kafka)
            "offsets.topic.replication.factor": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            **(props or {}),
        })
        self.server = KafkaServer(self.config)
        self.port: int | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> "InProcessBroker":
        self.server.startup()
        self.port = self.server.bound_port("PLAINTEXT")
        return self

    def stop(self) -> None:
        self.server.shutdown()


# --- raw wire access -------------------------------------------------------------------------

def uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def compact_string(s: str) -> bytes:
    data = s.encode()
    return uvarint(len(data) + 1) + data


def nullable_string(s: str | None) -> bytes:
    if s is None:
        return struct.pack(">h", -1)
    data = s.encode()
    return struct.pack(">h", len(data)) + data


def request_header(api_key: int, api_version: int, correlation_id: int,
                   client_id: str | None = "kafkalite-raw-test", header_version: int = 1) -> bytes:
    """Request header v1 (key, version, correlation id, nullable client id); v2 adds an empty
    tagged-field section."""
    head = struct.pack(">hhi", api_key, api_version, correlation_id) + nullable_string(client_id)
    return head + (b"\x00" if header_version >= 2 else b"")


class RawConnection:
    """A blocking socket that sends and receives Kafka's size-prefixed frames."""

    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)

    @property
    def local_port(self) -> int:
        return self.sock.getsockname()[1]

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_frame(self, payload: bytes) -> None:
        self.sock.sendall(struct.pack(">i", len(payload)) + payload)

    def send_request(self, api_key: int, api_version: int, correlation_id: int, body: bytes = b"",
                     header_version: int = 1) -> None:
        self.send_frame(request_header(api_key, api_version, correlation_id,
                                       header_version=header_version) + body)

    def _recv_exactly(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError(f"connection closed by the broker after {len(buf)} of {n} bytes")
            buf += chunk
        return bytes(buf)

    def recv_frame(self) -> bytes:
        """One response frame without its size prefix."""
        (size,) = struct.unpack(">i", self._recv_exactly(4))
        return self._recv_exactly(size)

    def closed_by_peer(self, timeout: float = 10.0) -> bool:
        """True once the broker has closed this connection (EOF or reset) within ``timeout``;
        False if it is still open then. Any bytes it sends first are read and ignored."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                if self.sock.recv(65536) == b"":
                    return True
            except (ConnectionResetError, BrokenPipeError):
                return True
            except socket.timeout:
                return False
        return False

    def close(self) -> None:
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --- ApiVersions on the wire (the one API whose bytes these tests check by hand) -------------

API_VERSIONS = 18


def parse_api_versions_v0(frame: bytes) -> tuple[int, int, dict[int, tuple[int, int]]]:
    """Response header v0 + ApiVersionsResponse v0 → (correlation id, error code, ranges).
    Fails if the frame holds more or fewer bytes than that."""
    corr, error, count = struct.unpack_from(">ihi", frame, 0)
    pos, ranges = 10, {}
    for _ in range(count):
        key, lo, hi = struct.unpack_from(">hhh", frame, pos)
        ranges[key] = (lo, hi)
        pos += 6
    assert pos == len(frame), f"{len(frame) - pos} bytes left after an ApiVersions v0 body"
    return corr, error, ranges


def read_uvarint(data: bytes, pos: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def skip_tagged_fields(data: bytes, pos: int) -> int:
    count, pos = read_uvarint(data, pos)
    for _ in range(count):
        _tag, pos = read_uvarint(data, pos)
        size, pos = read_uvarint(data, pos)
        pos += size
    return pos


def parse_api_versions_v3(frame: bytes) -> tuple[int, int, dict[int, tuple[int, int]], int]:
    """Response header **v0** (KIP-511: always v0 for ApiVersions) + ApiVersionsResponse v3
    → (correlation id, error code, ranges, throttle time). Fails on leftover bytes."""
    corr, error = struct.unpack_from(">ih", frame, 0)
    count, pos = read_uvarint(frame, 6)
    ranges = {}
    for _ in range(count - 1):
        key, lo, hi = struct.unpack_from(">hhh", frame, pos)
        ranges[key] = (lo, hi)
        pos = skip_tagged_fields(frame, pos + 6)
    (throttle,) = struct.unpack_from(">i", frame, pos)
    pos = skip_tagged_fields(frame, pos + 4)
    assert pos == len(frame), f"{len(frame) - pos} bytes left after an ApiVersions v3 body"
    return corr, error, ranges, throttle


def api_versions_v3_body(software_name: str = "kafkalite-raw-test", software_version: str = "0.1.0") -> bytes:
    return compact_string(software_name) + compact_string(software_version) + b"\x00"


def check_alive(conn: RawConnection, correlation_id: int) -> dict[int, tuple[int, int]]:
    """Send ApiVersions v0 on ``conn`` and assert a well-formed, matching, error-free answer."""
    conn.send_request(API_VERSIONS, 0, correlation_id)
    corr, error, ranges = parse_api_versions_v0(conn.recv_frame())
    assert (corr, error) == (correlation_id, 0)
    assert API_VERSIONS in ranges
    return ranges

"""No Kafka counterpart (Kafka's tests share kafka.utils.TestUtils): the helpers every test directory
uses, in one place -- ``wait_until`` (the only way the tests wait: a condition polled against a
deadline, Kafka's ``TestUtils.waitUntilTrue``), ``free_port``, ``recv_exact``, ``with_and_without_fix``, ``RecordingWatcher``,
``mounted_tmpfs`` (a small filesystem that really fills up).

``tests/conftest.py`` puts this directory on ``sys.path``, so any test imports it as ``support``.
"""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time


def wait_until(condition, timeout=15.0, message="condition", interval=0.02):
    """Call ``condition()`` until it returns something truthy, and return that value; fail with
    ``message`` once ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = condition()
            if value:
                return value
        except Exception as e:  # a condition may raise while the thing it waits on is not ready
            last_error = e
        if time.monotonic() >= deadline:
            extra = f" (last error: {last_error!r})" if last_error else ""
            raise AssertionError(f"timed out after {timeout}s waiting for {message}{extra}")
        time.sleep(interval)


def with_and_without_fix(fix: str) -> list:
    """Parameters for a test that must pass with one of Kafka's replication fixes and fail without it:
    ``disabled_fixes`` is empty (the test passes), then ``{fix}`` (``kafkalite.test.disable.fixes``; the
    test is expected to fail, strictly: if it passed, it would not be testing the fix)."""
    import pytest
    return [pytest.param(frozenset(), id="fixed"),
            pytest.param(frozenset({fix}), id=f"{fix}-off",
                         marks=pytest.mark.xfail(strict=True, reason=f"{fix}'s fix switched off"))]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def recv_exact(sock, n: int) -> bytes:
    """Exactly ``n`` bytes from a blocking socket; EOFError if the peer closes first."""
    out = bytearray()
    while len(out) < n:
        chunk = sock.recv(min(1 << 16, n - len(out)))
        if not chunk:
            raise EOFError(f"connection closed after {len(out)} of {n} bytes")
        out += chunk
    return bytes(out)


class RecordingWatcher:
    """A ZooKeeper watcher (``ZNodeChangeHandler`` and ``ZNodeChildChangeHandler`` alike) for ``path`` that queues
    "created", "deleted", "changed" and "children"; ``next()`` waits for the next one."""

    def __init__(self, path: str, timeout: float = 5.0):
        import queue
        self.path = path
        self.timeout = timeout
        self.events = queue.Queue()

    def handle_creation(self):
        self.events.put("created")

    def handle_deletion(self):
        self.events.put("deleted")

    def handle_data_change(self):
        self.events.put("changed")

    def handle_child_change(self):
        self.events.put("children")

    def next(self):
        return self.events.get(timeout=self.timeout)


def rss(pid: int) -> int:
    """The resident set size of process ``pid`` in bytes (Linux: /proc/<pid>/status)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@contextlib.contextmanager
def mounted_tmpfs(path, size: str, why_skipped: str):
    """A tmpfs of ``size`` (mount's ``size=``: "4m", "64k") mounted at ``path`` while the block runs, unmounted
    after; the test is skipped, saying ``why_skipped``, where it cannot be mounted (not root, no permission)."""
    import pytest
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                                           capture_output=True, stdin=subprocess.DEVNULL).returncode != 0:
        pytest.skip(why_skipped)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], stdin=subprocess.DEVNULL)


class HeldScheduler:
    """A broker's KafkaScheduler whose threads have not come round yet: one-off tasks wait for ``run`` (periodic
    ones are dropped). For tests of work Kafka hands to the scheduler, e.g. the leader-epoch cache's
    background writes."""

    def __init__(self):
        self.once: list[tuple[str, object]] = []

    def schedule(self, name, fun, delay_ms=0, period_ms=-1):
        if period_ms < 0:
            self.once.append((name, fun))

    def schedule_once(self, name, fun):
        self.schedule(name, fun)

    def names(self) -> list[str]:
        return [name for name, _ in self.once]

    def run(self) -> None:
        tasks, self.once = self.once, []
        for _, fun in tasks:
            fun()

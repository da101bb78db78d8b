"""No Kafka counterpart: sample the running kafkalite broker with py-spy while a load runs.

``record(pid, out_path, load)`` starts ``py-spy record --format raw --threads --nonblocking`` on the
broker, runs ``load()`` (a callable that drives produce or fetch traffic), then stops py-spy with
SIGINT so it writes its collapsed stacks. ``summarise(path)`` turns those stacks into the top frames
by self samples (where the CPU is) and by inclusive samples (which kafkalite functions hold it),
plus the share of samples per thread. py-spy counts only non-idle samples (a thread blocked in a
syscall or waiting for the GIL is idle), so the percentages are of broker CPU in Python.
"""
from __future__ import annotations

import collections
import os
import re
import shutil
import signal
import subprocess
import time

# Frames where a thread waits (py-spy can count a waking or GIL-contending thread as active there);
# the CPU ranking leaves them out and reports their share separately.
WAITS = ("Condition.wait", "EpollSelector.select", "select.py", "Event.wait", "Queue.get", "sleep",
         "Thread.join", "_thread.lock")
FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")


def available() -> bool:
    return shutil.which("py-spy") is not None


def record(pid: int, out_path: str, load, rate: int = 250) -> None:
    spy = subprocess.Popen(["py-spy", "record", "--pid", str(pid), "--rate", str(rate), "--format", "raw",
                            "--threads", "--nonblocking", "-o", out_path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        time.sleep(0.5)  # let py-spy attach before the load starts
        load()
    finally:
        os.kill(spy.pid, signal.SIGINT)
        try:
            spy.wait(20)
        except subprocess.TimeoutExpired:
            os.kill(spy.pid, signal.SIGKILL)
            spy.wait(5)


def _short(frame: str) -> str:
    m = FRAME.match(frame)
    if not m:
        return frame
    path = m.group("file")
    if path.startswith("kafkalite/"):
        pass
    elif "/kafkalite/" in path:
        path = "kafkalite/" + path.split("/kafkalite/", 1)[1]
    else:
        path = os.path.basename(path)
    return f"{path}:{m.group('func')}"


def summarise(path: str, top: int = 15) -> dict:
    """{'samples': n, 'wait_pct': p, 'self': [(frame, pct)], 'inclusive': [(frame, pct)], 'threads': [...]}.

    ``self`` ranks leaf frames outside the wait frames; ``inclusive`` ranks kafkalite's own functions
    by the samples in which they are on the stack (waits included); all percentages are of all samples."""
    self_c, incl_c, thread_c = collections.Counter(), collections.Counter(), collections.Counter()
    total = waiting = 0
    if not os.path.exists(path):
        return {"samples": 0, "wait_pct": 0.0, "self": [], "inclusive": [], "threads": []}
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack or not count.isdigit():
                continue
            n = int(count)
            parts = stack.split(";")
            thread = re.sub(r"^thread \(\d+\): ?", "", parts[0]) or "?"
            thread = re.sub(r"-\d+$", "-N", thread)
            frames = [_short(p) for p in parts[1:]]
            total += n
            thread_c[thread] += n
            if frames and any(w in frames[-1] for w in WAITS):
                waiting += n
            elif frames:
                self_c[frames[-1]] += n
            for fr in set(frames):
                incl_c[fr] += n

    def pct(counter, only_kafkalite=False):
        rows = [(k, 100.0 * v / total) for k, v in counter.most_common()
                if not only_kafkalite or k.startswith("kafkalite/")]
        return rows[:top]
    return {"samples": total, "wait_pct": 100.0 * waiting / max(total, 1), "self": pct(self_c), "inclusive": pct(incl_c, True), "threads": pct(thread_c)}

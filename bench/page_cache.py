"""No Kafka counterpart: what an ``os.write`` of 1 MiB costs into page-cache memory the guest has not used lately,
against memory another file has just freed (docs/benchmarks.md, "Large batches: where the broker's time goes").

``python -m bench.page_cache [--mb 300] [--dir DIR]`` writes ``--mb`` frames of 1 MiB to a new file while the
previous file is kept (a log's case), then again after the previous files were unlinked (the case of
bench/machine.py's socket -> file loop), and prints the median milliseconds per ``os.write`` of each.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

MB = 1 << 20


def write_file(path: str, mb: int, frame: bytes) -> float:
    """Median seconds per os.write of one frame into a new file at ``path``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    times = []
    try:
        for _ in range(mb):
            t = time.perf_counter()
            os.write(fd, frame)
            times.append(time.perf_counter() - t)
    finally:
        os.close(fd)
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=300, help="MiB per file (default 300)")
    ap.add_argument("--dir", default=None, help="where to write (default: a temporary directory)")
    args = ap.parse_args(argv)
    d = tempfile.mkdtemp(prefix="kl-page-cache-", dir=args.dir)
    frame = os.urandom(MB)
    try:
        kept = [write_file(os.path.join(d, f"kept-{i}"), args.mb, frame) for i in range(2)]
        for name in os.listdir(d):
            os.unlink(os.path.join(d, name))
        freed = [write_file(os.path.join(d, f"after-unlink-{i}"), args.mb, frame) for i in range(2)]
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print(f"previous file kept:     {', '.join(f'{t * 1e3:.3f}' for t in kept)} ms per MiB")
    print(f"previous file unlinked: {', '.join(f'{t * 1e3:.3f}' for t in freed)} ms per MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

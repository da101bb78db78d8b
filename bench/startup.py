"""No Kafka counterpart: start-up to the first Metadata answer, repeated (bench's ``startup`` scenario alone).

``python -m bench.startup [-n 10] [--override key=value ...]`` spawns ``python -m kafkalite server.properties``
on a fresh log dir as bench/__main__.py does, polls Metadata v1 every 5 ms and prints, per run and as
min/median, the wall seconds to the first answer and the broker's CPU seconds (utime+stime of all its threads)
at that moment -- CPU time is the figure to compare on a shared machine. One untimed start comes first so
the timed ones load cached bytecode, as a user's broker does (see docs/benchmarks.md, Start-up).
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile

from bench.brokers import Kafkalite


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=10, help="runs (default 10)")
    ap.add_argument("--override", action="append", default=[], help="extra broker override key=value")
    args = ap.parse_args()
    workdir = tempfile.mkdtemp(prefix="kl-startup-")
    walls, cpus = [], []
    try:
        # One untimed start first: it writes __pycache__ (bench/brokers.py lets the broker write bytecode), so
        # the timed starts load cached bytecode as a user's installed broker does.
        warm = Kafkalite(workdir, args.override)
        try:
            warm.start()
        finally:
            warm.stop()
            shutil.rmtree(warm.log_dir, ignore_errors=True)
        for i in range(args.n):
            b = Kafkalite(workdir, args.override)
            try:
                wall = b.start()
                cpu = b.cpu_seconds()
            finally:
                b.stop()
                shutil.rmtree(b.log_dir, ignore_errors=True)
            walls.append(wall)
            cpus.append(cpu)
            print(f"run {i}: {wall:.3f} s wall, {cpu:.3f} CPU-s")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"wall: min {min(walls):.3f} median {statistics.median(walls):.3f} s")
    print(f"cpu:  min {min(cpus):.3f} median {statistics.median(cpus):.3f} CPU-s")


if __name__ == "__main__":
    main()

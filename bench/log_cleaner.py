"""No Kafka counterpart: the log cleaner's throughput (issue 17), MB/s of dirty log cleaned.

Builds one compacted partition log on local disk (records of ``--value-bytes`` over ``--keys`` keys, written in
batches of 100 records as a producer would send them, 1 MiB segments), then runs the Cleaner on its whole dirty
part as a ``kafka-log-cleaner-thread`` does (offset map, then the copy of every segment into ``.cleaned`` files
and the swap), in this process, with ``log.cleaner.dedupe.buffer.size`` 128 MiB and
``log.cleaner.io.buffer.size`` 512 KiB (Kafka's defaults). Reported (median and range over ``--reps``, a fresh
log each time): MB/s of dirty log cleaned (bytes read by the copy / the whole clean's wall time), the offset
map's MB/s, records per second, and what was left (the recopy percent). MB = 2^20 bytes, as the cleaner's own
log line prints it.

    python -m bench.log_cleaner                # 64 MiB of dirty log, 3 repetitions (about a minute)
    python -m bench.log_cleaner --mb 8 --reps 1  # a quick look
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.cleaner import Cleaner
from kafkalite.log.log import Log
from kafkalite.log.log_cleaner_manager import LogToClean, cleanable_offsets
from kafkalite.log.log_config import LogConfig
from kafkalite.log.offset_map import SkimpyOffsetMap
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord

MB = 1 << 20
TP = TopicPartition("bench-compacted", 0)


def build_log(dir_: str, mb: int, keys: int, value_bytes: int) -> Log:
    log = Log(f"{dir_}/{TP.topic}-0", LogConfig({"cleanup.policy": "compact", "segment.bytes": MB}),
              topic_partition=TP)
    value = b"v" * value_bytes
    now = int(time.time() * 1000)
    i = 0
    while log.size < mb * MB:
        records = [SimpleRecord(now, b"key-%d" % ((i + j) % keys), value) for j in range(100)]
        log.append_as_leader(MemoryRecords.with_records(*records), 0)
        i += 100
    log.roll()
    log.update_high_watermark(log.log_end_offset)
    return log


def one_run(mb: int, keys: int, value_bytes: int) -> dict:
    dir_ = tempfile.mkdtemp(prefix="bench-cleaner-")
    try:
        log = build_log(dir_, mb, keys, value_bytes)
        dirty_bytes = log.size
        cleaner = Cleaner(0, SkimpyOffsetMap(128 * MB), io_buffer_size=512 * 1024 // 2, max_io_buffer_size=MB,
                          dup_buffer_load_factor=0.9)
        first_dirty, uncleanable = cleanable_offsets(log, None, int(time.time() * 1000))
        start = time.perf_counter()
        _, stats = cleaner.clean(LogToClean(TP, log, first_dirty, uncleanable))
        elapsed = time.perf_counter() - start
        map_secs = max(stats.elapsed_index_secs, 1e-3)
        result = {"dirty_mb": dirty_bytes / MB, "secs": elapsed, "mb_per_s": stats.bytes_read / MB / elapsed,
                  "map_mb_per_s": stats.map_bytes_read / MB / map_secs,
                  "records_per_s": stats.messages_read / elapsed,
                  "recopy_percent": 100 * stats.bytes_written / max(stats.bytes_read, 1),
                  "size_after_mb": log.size / MB}
        log.close()
        return result
    finally:
        shutil.rmtree(dir_, ignore_errors=True)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=int, default=64, help="MiB of dirty log to clean")
    ap.add_argument("--keys", type=int, default=10_000)
    ap.add_argument("--value-bytes", type=int, default=100)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print the runs as JSON too")
    args = ap.parse_args(argv)
    runs = [one_run(args.mb, args.keys, args.value_bytes) for _ in range(args.reps)]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    lo_hi = lambda k: f"{min(r[k] for r in runs):.1f}-{max(r[k] for r in runs):.1f}"  # noqa: E731
    print(f"log cleaner: {args.mb} MiB dirty log, {args.keys:,} keys, {args.value_bytes} B values, "
          f"{args.reps} run(s)")
    print("| figure | median | range |\n|---|---:|---|")
    print(f"| cleaned MB/s (dirty log bytes / clean wall time) | {med['mb_per_s']:.1f} | {lo_hi('mb_per_s')} |")
    print(f"| offset map MB/s | {med['map_mb_per_s']:.1f} | {lo_hi('map_mb_per_s')} |")
    print(f"| records/s | {med['records_per_s']:,.0f} | {lo_hi('records_per_s')} |")
    print(f"| seconds per clean | {med['secs']:.1f} | {lo_hi('secs')} |")
    print(f"| recopy % | {med['recopy_percent']:.2f} | {lo_hi('recopy_percent')} |")
    if args.json:
        print(json.dumps(runs))
    return med


if __name__ == "__main__":
    main()

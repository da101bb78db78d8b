"""No Kafka counterpart: read throughput (rows/s) of the ``kafkalite`` PySpark data source.

    python -m bench.spark_source_throughput                 # 300,000 records, 3 reps, prints a Markdown table
    python -m bench.spark_source_throughput --rows 100000 --reps 5

One in-process broker, one 3-partition topic filled by kafkalite's producer (key ~8 B, value 100 B, one
header), one SparkSession ``local[2]``. Interleaved per repetition, it times:
- ``fetch+decode``: the source's own ``read_range`` for the 3 partitions in this process, no Spark: the cost
  of Fetch, record-batch decoding and Arrow building, which bounds what Spark can get;
- ``batch read -> count``: ``spark.read.format("kafkalite")...load().groupBy().count()``, with and without
  ``includeHeaders``;
- ``batch read -> noop``: the same rows written to Spark's ``noop`` sink (every column materialised).
Each figure is the median over the repetitions after one warm-up; rows/s = rows / median seconds.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time


def fill_topic(bootstrap: str, topic: str, rows: int) -> None:
    from kafkalite.clients.producer.kafka_producer import KafkaProducer
    value = b"v" * 100
    with KafkaProducer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 512 * 1024,
                        "buffer.memory": 256 * 1024 * 1024}) as producer:
        for i in range(rows):
            producer.send(topic, value=value, key=b"key-%d" % (i % 1000), partition=i % 3,
                          headers=[("source", b"bench")])
        producer.flush()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.spark_source_throughput")
    p.add_argument("--rows", type=int, default=300_000)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args(argv)

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import pyspark
    from pyspark.sql import SparkSession

    from kafkalite.spark import register
    from kafkalite.spark.data_source import KafkaSourceOptions, KafkaBatchReader, read_range
    from kafkalite.testing.embedded_kafka import EmbeddedKafka

    with EmbeddedKafka(num_partitions=3) as broker:
        bootstrap, topic = broker.bootstrap_servers, "bench-spark-source"
        t = time.perf_counter()
        fill_topic(bootstrap, topic, args.rows)
        print(f"# filled {topic} with {args.rows} records in {time.perf_counter() - t:.1f} s", file=sys.stderr)

        spark = (SparkSession.builder.master("local[2]").appName("kafkalite-bench")
                 .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", "2")
                 .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        register(spark)

        def load(headers: bool):
            return (spark.read.format("kafkalite").option("kafka.bootstrap.servers", bootstrap)
                    .option("subscribe", topic).option("includeHeaders", str(headers).lower()).load())

        def in_process():
            options = KafkaSourceOptions.parse({"kafka.bootstrap.servers": bootstrap, "subscribe": topic},
                                               streaming=False)
            n = sum(b.num_rows for part in KafkaBatchReader(options).partitions()
                    for b in read_range(options, part))
            assert n == args.rows, n

        def count(headers: bool):
            def run():
                n = load(headers).groupBy().count().collect()[0][0]
                assert n == args.rows, n
            return run

        def noop():
            load(False).write.format("noop").mode("overwrite").save()

        scenarios = {"fetch+decode in one process (no Spark)": in_process,
                     "batch read -> count": count(False),
                     "batch read -> count, includeHeaders": count(True),
                     "batch read -> noop sink": noop}
        times: dict[str, list[float]] = {name: [] for name in scenarios}
        for rep in range(args.reps + 1):                 # rep 0 warms up and is not kept
            for name, run in scenarios.items():
                t = time.perf_counter()
                run()
                if rep:
                    times[name].append(time.perf_counter() - t)
        spark.stop()

    load_avg = os.getloadavg()[0]
    print(f"{args.rows:,} records (value 100 B, key ~8 B, one header), 3 partitions, Spark local[2], "
          f"pyspark {pyspark.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"load average {load_avg:.1f} at the end; median of {args.reps} after one warm-up.\n")
    print("| scenario | median s | rows/s |")
    print("| --- | ---: | ---: |")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"| {name} | {med:.2f} | {args.rows / med:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

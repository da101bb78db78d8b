"""No Kafka counterpart: the README's streaming pipeline on kafkalite and PySpark.

    python -m kafkalite.spark.pipeline                      # own broker in-process, Spark local[2]
    python -m kafkalite.spark.pipeline --bootstrap-server 127.0.0.1:9092 --master spark://host:7077

1. page-view events (JSON ``{"page": ..., "user": ..., "ts": <epoch ms>}``, keyed by user) are produced to
   ``--input-topic`` with kafkalite's KafkaProducer; event time moves forward a little with every event;
2. a Structured Streaming job reads them with ``format("kafkalite")``, counts views per page in tumbling
   event-time windows with a watermark, and writes each finished window (append mode) to ``--output-topic``
   with ``format("kafkalite")``; ``maxOffsetsPerTrigger`` splits the backlog into micro-batches, so the
   watermark advances and windows close batch by batch (``trigger(availableNow=True)``);
3. the output topic is read back with a batch read and the windowed counts are printed.

A window is written once the watermark has passed its end; the newest windows are still open when the
backlog runs out, and are not printed (run the job again after more events arrive and they will be).
Without ``--bootstrap-server`` it starts a kafkalite broker process for the run (the pipeline only ever
talks to brokers over the wire). With a cluster ``--master``,
the workers need ``pip install 'kafkalite[spark]'`` and must reach ``--bootstrap-server``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m kafkalite.spark.pipeline", description=__doc__.split("\n\n")[0])
    p.add_argument("--bootstrap-server", help="a running broker (default: start one in-process)")
    p.add_argument("--master", default="local[2]", help="Spark master URL, e.g. spark://host:7077 (default local[2])")
    p.add_argument("--input-topic", default="page-views")
    p.add_argument("--output-topic", default="page-view-counts")
    p.add_argument("--events", type=int, default=2000, help="page views to produce (default 2000)")
    p.add_argument("--window", default="10 seconds", help="tumbling event-time window (default 10 seconds)")
    p.add_argument("--watermark", default="5 seconds", help="allowed lateness (default 5 seconds)")
    p.add_argument("--max-offsets-per-trigger", type=int, default=500)
    p.add_argument("--checkpoint", help="checkpoint directory (default: a new temporary one)")
    return p.parse_args(argv)


PAGES = ["/", "/products", "/cart", "/checkout", "/about"]


def produce_page_views(bootstrap: str, topic: str, n: int, seed: int = 7) -> None:
    """``n`` views, 50 ms of event time apart, a few arriving up to 2 s late (out of order)."""
    from kafkalite.clients.producer.kafka_producer import KafkaProducer
    rng = random.Random(seed)
    start_ms = (int(time.time()) // 60 - 5) * 60_000        # a whole minute, a few minutes ago
    with KafkaProducer({"bootstrap.servers": bootstrap, "linger.ms": 5}) as producer:
        for i in range(n):
            ts = start_ms + i * 50 - (rng.randrange(2000) if rng.random() < 0.1 else 0)
            user = f"user-{rng.randrange(50)}"
            event = {"page": rng.choice(PAGES), "user": user, "ts": ts}
            producer.send(topic, value=json.dumps(event).encode(), key=user.encode(), timestamp=ts)
        producer.flush()


def build_spark(master: str):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.master(master).appName("kafkalite-page-views") \
        .config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false") \
        .config("spark.ui.showConsoleProgress", "false")
    if master.startswith("local"):
        builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    from kafkalite.spark import register
    register(spark)
    return spark


def run_windowed_counts(spark, bootstrap: str, args: argparse.Namespace, checkpoint: str):
    """The streaming job: page views in, per-page counts per event-time window out."""
    from pyspark.sql import functions as F
    views = (spark.readStream.format("kafkalite")
             .option("kafka.bootstrap.servers", bootstrap)
             .option("subscribe", args.input_topic)
             .option("startingOffsets", "earliest")
             .option("maxOffsetsPerTrigger", args.max_offsets_per_trigger)
             .load()
             .select(F.from_json(F.col("value").cast("string"), "page STRING, user STRING, ts LONG").alias("v"))
             .select("v.page", F.timestamp_millis("v.ts").alias("event_time")))
    counts = (views.withWatermark("event_time", args.watermark)
              .groupBy(F.window("event_time", args.window), "page")
              .count())
    out = counts.select(
        F.col("page").alias("key"),
        F.to_json(F.struct(F.date_format("window.start", "yyyy-MM-dd HH:mm:ss").alias("window_start"),
                           F.date_format("window.end", "yyyy-MM-dd HH:mm:ss").alias("window_end"),
                           "page", "count")).alias("value"))
    query = (out.writeStream.format("kafkalite")
             .option("kafka.bootstrap.servers", bootstrap)
             .option("topic", args.output_topic)
             .option("checkpointLocation", checkpoint)
             .outputMode("append")
             .trigger(availableNow=True)
             .start())
    query.awaitTermination()
    return query


def print_counts(spark, bootstrap: str, topic: str) -> list[dict]:
    """Print the newest count of every (window, page) in ``topic`` (keyed by page, so each page's counts sit
    in one partition in order; an earlier run's counts are superseded, as in a compacted topic)."""
    rows = (spark.read.format("kafkalite").option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", topic).load().selectExpr("partition", "offset", "CAST(value AS STRING) AS v")
            .orderBy("partition", "offset").collect())
    newest = {}
    for r in rows:
        count = json.loads(r.v)
        newest[(count["window_start"], count["page"])] = count
    results = [newest[k] for k in sorted(newest)]
    print(f"{'window start':<20} {'window end':<20} {'page':<10} {'views':>5}")
    for r in results:
        print(f"{r['window_start']:<20} {r['window_end']:<20} {r['page']:<10} {r['count']:>5}")
    print(f"{len(results)} window counts in topic {topic}")
    return results


def start_demo_broker(workdir: str) -> tuple[subprocess.Popen, str]:
    """A kafkalite broker *process* for the run (the pipeline talks to brokers over the wire only):
    ``python -m kafkalite`` with a properties file of its own, on a free port, data under ``workdir``."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    props = os.path.join(workdir, "server.properties")
    with open(props, "w") as f:
        f.write(f"broker.id=0\nlisteners=PLAINTEXT://127.0.0.1:{port}\nlog.dirs={workdir}/kafka-logs\n"
                "num.partitions=3\noffsets.topic.replication.factor=1\ngroup.initial.rebalance.delay.ms=0\n")
    log = open(os.path.join(workdir, "broker.log"), "wb")
    proc = subprocess.Popen([sys.executable, "-m", "kafkalite", props], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    log.close()
    deadline = time.monotonic() + 30
    while True:   # until the broker accepts connections, or gives up
        if proc.poll() is not None:
            raise RuntimeError(f"the demo broker exited with {proc.returncode}; see {workdir}/broker.log")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"127.0.0.1:{port}"
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"the demo broker did not listen within 30 s; see {workdir}/broker.log")
            time.sleep(0.1)


def stop_demo_broker(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def main(argv=None) -> int:
    args = parse_args(argv)
    broker = None
    bootstrap = args.bootstrap_server
    if bootstrap is None:
        if not args.master.startswith("local"):
            print("--master is a cluster: give --bootstrap-server a broker its executors can reach",
                  file=sys.stderr)
            return 2
        broker, bootstrap = start_demo_broker(tempfile.mkdtemp(prefix="kafkalite-pipeline-broker-"))
        print(f"Started a kafkalite broker process at {bootstrap}")
    checkpoint = args.checkpoint or tempfile.mkdtemp(prefix="kafkalite-pipeline-")
    spark = None
    try:
        produce_page_views(bootstrap, args.input_topic, args.events)
        print(f"Produced {args.events} page views to {args.input_topic}")
        spark = build_spark(args.master)
        query = run_windowed_counts(spark, bootstrap, args, checkpoint)
        batches = [p["numInputRows"] for p in query.recentProgress]
        print(f"Streaming query done: {len(batches)} micro-batches, input rows per batch {batches}")
        print_counts(spark, bootstrap, args.output_topic)
        return 0
    finally:
        if spark is not None:
            spark.stop()
        if broker is not None:
            stop_demo_broker(broker)

if __name__ == "__main__":
    sys.exit(main())

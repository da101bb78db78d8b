"""No Kafka counterpart: Structured Streaming reads of the ``kafkalite`` data source
(Spark: KafkaMicroBatchSourceSuite): admission control with availableNow, restart from the checkpoint,
failOnDataLoss."""
import json

import pytest

pytestmark = pytest.mark.spark


def _stream(spark, broker, topic, **options):
    reader = (spark.readStream.format("kafkalite").option("kafka.bootstrap.servers", broker.bootstrap_servers)
              .option("subscribe", topic).option("startingOffsets", "earliest"))
    for k, v in options.items():
        reader = reader.option(k, v)
    return reader.load().select("partition", "offset", "value")


def _collecting(df, checkpoint, batches):
    """A foreachBatch sink that keeps each micro-batch's (partition, offset, value) rows in ``batches``."""
    def keep(batch_df, batch_id):
        batches.append([(r.partition, r.offset, bytes(r.value)) for r in batch_df.collect()])
    return df.writeStream.foreachBatch(keep).option("checkpointLocation", str(checkpoint))


def test_available_now_reads_in_bounded_batches_and_resumes_without_gap_or_duplicate(
        spark, spark_broker, topic_name, produce, tmp_path, run_available_now):
    first = produce(topic_name, [dict(value=b"a%d" % i, partition=i % 3) for i in range(60)])
    batches = []
    query = run_available_now(_collecting(_stream(spark, spark_broker, topic_name, maxOffsetsPerTrigger=25),
                                          tmp_path, batches))
    sizes = [len(b) for b in batches if b]
    assert len(sizes) >= 3 and max(sizes) <= 25 and sum(sizes) == 60
    assert [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]] == sizes
    run1 = [row for b in batches for row in b]
    assert sorted(run1) == sorted((m.partition, m.offset, b"a%d" % i) for i, m in enumerate(first))

    second = produce(topic_name, [dict(value=b"b%d" % i, partition=i % 3) for i in range(30)])
    batches.clear()
    run_available_now(_collecting(_stream(spark, spark_broker, topic_name, maxOffsetsPerTrigger=25),
                                  tmp_path, batches))
    run2 = [row for b in batches for row in b]
    assert all(len(b) <= 25 for b in batches)
    assert sorted(run2) == sorted((m.partition, m.offset, b"b%d" % i) for i, m in enumerate(second))


def test_records_below_the_log_start_fail_the_query_or_are_skipped(spark, spark_broker, topic_name, produce,
                                                                    tmp_path, run_available_now):
    from confluent_kafka import TopicPartition as CTP
    from confluent_kafka.admin import AdminClient
    produce(topic_name, [dict(value=b"old%d" % i, partition=i % 3) for i in range(30)])   # offsets 0..9 each
    batches = []
    run_available_now(_collecting(_stream(spark, spark_broker, topic_name), tmp_path, batches))
    assert sum(len(b) for b in batches) == 30          # the checkpoint now says 10 for every partition

    produce(topic_name, [dict(value=b"new%d" % i, partition=i % 3) for i in range(30)])   # offsets 10..19
    admin = AdminClient({"bootstrap.servers": spark_broker.bootstrap_servers})
    for future in admin.delete_records([CTP(topic_name, p, 15) for p in range(3)]).values():
        future.result(30)                                # log start offset 15 > checkpointed 10

    batches.clear()
    with pytest.raises(Exception, match="failOnDataLoss") as failure:
        run_available_now(_collecting(_stream(spark, spark_broker, topic_name), tmp_path, batches))
    assert "Cannot fetch offset 10" in str(failure.value)
    assert batches == []

    run_available_now(_collecting(_stream(spark, spark_broker, topic_name, failOnDataLoss="false"),
                                  tmp_path, batches))
    rows = [row for b in batches for row in b]
    assert sorted((p, o) for p, o, _ in rows) == sorted((p, o) for p in range(3) for o in range(15, 20))

    starting = json.dumps({topic_name: {"0": 0, "1": 0, "2": 0}})
    batch = (spark.read.format("kafkalite").option("kafka.bootstrap.servers", spark_broker.bootstrap_servers)
             .option("subscribe", topic_name).option("startingOffsets", starting))
    with pytest.raises(Exception, match="failOnDataLoss"):
        batch.load().collect()
    assert batch.option("failOnDataLoss", "false").load().count() == 15

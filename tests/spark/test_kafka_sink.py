"""No Kafka counterpart: batch and streaming writes of the ``kafkalite`` data source (Spark: KafkaSinkSuite),
read back by a real client (confluent-kafka / librdkafka)."""
import time

import pytest

pytestmark = pytest.mark.spark

HEADERS = "array<struct<key string, value binary>>"


def _read_back(bootstrap, topic, n, timeout_s=60):
    """Every record of ``topic``'s 3 partitions, as (partition, key, value, headers), via librdkafka."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check-{topic}",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(3)])
    out, deadline = [], time.monotonic() + timeout_s
    try:
        while len(out) < n and time.monotonic() < deadline:
            m = consumer.poll(0.5)
            if m is not None and not m.error():
                out.append((m.partition(), m.key(), m.value(), tuple(m.headers() or ())))
        extra = consumer.poll(0.5)   # nothing beyond the n records
        assert extra is None or extra.error(), f"unexpected extra record {extra.value()!r}"
    finally:
        consumer.close()
    return out


def test_batch_write_lands_with_keys_partitions_and_headers(spark, spark_broker, topic_name):
    rows = [(f"key-{i}".encode(), f"value-{i}", i % 3, [(f"h{i}", b"x" * i)], topic_name) for i in range(12)]
    df = spark.createDataFrame(rows, f"key binary, value string, partition int, headers {HEADERS}, topic string")
    df.write.format("kafkalite").option("kafka.bootstrap.servers", spark_broker.bootstrap_servers) \
        .mode("append").save()
    got = _read_back(spark_broker.bootstrap_servers, topic_name, 12)
    assert sorted(got) == sorted((i % 3, f"key-{i}".encode(), f"value-{i}".encode(), ((f"h{i}", b"x" * i),))
                                 for i in range(12))


def test_stream_write_lands_with_keys_partitions_and_headers(spark, spark_broker, topic_name, produce,
                                                             tmp_path, run_available_now):
    source, sink = topic_name + "-in", topic_name + "-out"
    produce(source, [dict(key=b"k%d" % i, value=b"v%d" % i, partition=i % 3, headers=[("n", b"%d" % i)])
                     for i in range(15)])
    df = (spark.readStream.format("kafkalite").option("kafka.bootstrap.servers", spark_broker.bootstrap_servers)
          .option("subscribe", source).option("startingOffsets", "earliest").option("includeHeaders", "true")
          .load()
          .selectExpr("key", "upper(CAST(value AS STRING)) AS value", "2 - partition AS partition", "headers",
                      "'ignored' AS topic"))   # the topic option wins over the column, as in Spark
    run_available_now(df.writeStream.format("kafkalite")
                      .option("kafka.bootstrap.servers", spark_broker.bootstrap_servers)
                      .option("topic", sink).option("checkpointLocation", str(tmp_path)))
    got = _read_back(spark_broker.bootstrap_servers, sink, 15)
    assert sorted(got) == sorted((2 - i % 3, b"k%d" % i, b"V%d" % i, (("n", b"%d" % i),)) for i in range(15))


def test_write_without_topic_is_refused_before_any_task_runs(spark, spark_broker):
    df = spark.createDataFrame([("v",)], "value string")
    with pytest.raises(Exception, match="topic option required"):
        df.write.format("kafkalite").option("kafka.bootstrap.servers", spark_broker.bootstrap_servers) \
            .mode("append").save()

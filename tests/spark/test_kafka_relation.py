"""No Kafka counterpart: batch reads of the ``kafkalite`` data source (Spark: KafkaRelationSuite)."""
import json

import pytest

pytestmark = pytest.mark.spark

BASE_TS = 1_700_000_000_000


def _reader(spark, broker, **options):
    reader = spark.read.format("kafkalite").option("kafka.bootstrap.servers", broker.bootstrap_servers)
    for k, v in options.items():
        reader = reader.option(k, v)
    return reader.load()


def test_batch_read_returns_exactly_the_produced_records(spark, spark_broker, topic_name, produce):
    records = [dict(key=b"k%d" % i, value=b"v%d" % i, partition=i % 3, timestamp=BASE_TS + i * 1000,
                    headers=[("n", b"%d" % i), ("empty", None)] if i % 2 else [])
               for i in range(30)]
    metadata = produce(topic_name, records)
    expected = {(topic_name, m.partition, m.offset, r["key"], r["value"], r["timestamp"], 0,
                 tuple((k, v) for k, v in r["headers"]))
                for r, m in zip(records, metadata)}

    df = _reader(spark, spark_broker, subscribe=topic_name, includeHeaders="true")
    assert [f.name for f in df.schema.fields] == ["key", "value", "topic", "partition", "offset", "timestamp",
                                                   "timestampType", "headers"]
    rows = df.selectExpr("key", "value", "topic", "partition", "offset", "unix_millis(timestamp) AS ts",
                         "timestampType", "headers").collect()
    got = {(r.topic, r.partition, r.offset, bytes(r.key), bytes(r.value), r.ts, r.timestampType,
            tuple((h.key, None if h.value is None else bytes(h.value)) for h in r.headers))
           for r in rows}
    assert len(rows) == 30
    assert got == expected
    assert {r.partition for r in rows} == {0, 1, 2}


def test_json_starting_and_ending_offsets_select_exactly_the_ranges(spark, spark_broker, topic_name, produce):
    produce(topic_name, [dict(value=b"%d" % i, partition=i % 3) for i in range(30)])   # offsets 0..9 each
    starting = json.dumps({topic_name: {"0": 2, "1": -2, "2": 5}})
    ending = json.dumps({topic_name: {"0": 6, "1": 3, "2": -1}})
    rows = _reader(spark, spark_broker, subscribe=topic_name, startingOffsets=starting,
                   endingOffsets=ending).select("partition", "offset").collect()
    expected = {(0, o) for o in range(2, 6)} | {(1, o) for o in range(0, 3)} | {(2, o) for o in range(5, 10)}
    assert sorted((r.partition, r.offset) for r in rows) == sorted(expected)

    assigned = _reader(spark, spark_broker, assign=json.dumps({topic_name: [1]}),
                       endingOffsets=json.dumps({topic_name: {"1": 4}})).select("partition", "offset").collect()
    assert sorted((r.partition, r.offset) for r in assigned) == [(1, o) for o in range(4)]

    with pytest.raises(Exception, match="must specify all TopicPartitions"):
        _reader(spark, spark_broker, subscribe=topic_name,
                startingOffsets=json.dumps({topic_name: {"0": 1}})).collect()

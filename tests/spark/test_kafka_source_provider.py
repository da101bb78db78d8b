"""No Kafka counterpart: option checks and the per-trigger rate limit of the ``kafkalite`` source, no JVM
(Spark: KafkaSourceProviderSuite and KafkaMicroBatchStream.rateLimit)."""
import pytest

from kafkalite.common.topic_partition import TopicPartition

pytestmark = pytest.mark.spark

A, B, C = (TopicPartition("t", p) for p in range(3))


@pytest.fixture
def ds(spark_requirements):
    from kafkalite.spark import data_source
    return data_source


def test_rate_limit_shares_the_limit_by_lag_and_never_starves_a_small_partition(ds):
    assert ds.rate_limit(25, {A: 0, B: 0, C: 0}, {A: 20, B: 20, C: 20}) == {A: 8, B: 8, C: 8}
    assert ds.rate_limit(10, {A: 5, B: 7}, {A: 105, B: 8}) == {A: 14, B: 8}       # 9.9 -> 9; 0.099 -> 1
    assert ds.rate_limit(100, {A: 0, B: 3}, {A: 20, B: 10}) == {A: 20, B: 10}     # under the limit: all
    assert ds.rate_limit(5, {A: 7, B: 0}, {A: 7, B: 50}) == {A: 7, B: 5}          # no lag: unchanged


def test_options_are_checked_like_sparks(ds):
    parse = ds.KafkaSourceOptions.parse
    ok = parse({"Kafka.Bootstrap.Servers": "h:1", "SUBSCRIBE": "a, b", "maxOffsetsPerTrigger": "7",
                "startingOffsets": '{"a":{"0":-2,"1":5}}'}, streaming=True)
    assert (ok.strategy, ok.strategy_value, ok.max_offsets_per_trigger) == ("subscribe", ["a", "b"], 7)
    assert ok.starting_offsets == {TopicPartition("a", 0): -2, TopicPartition("a", 1): 5}
    assert ok.fail_on_data_loss is True and ok.include_headers is False
    assert parse({"kafka.bootstrap.servers": "h:1", "assign": '{"x":[0,2]}'}, streaming=False).strategy_value \
        == [TopicPartition("x", 0), TopicPartition("x", 2)]
    for bad, message in [({"subscribe": "a"}, "kafka.bootstrap.servers"),
                         ({"kafka.bootstrap.servers": "h:1"}, "One of the following options"),
                         ({"kafka.bootstrap.servers": "h:1", "subscribe": "a", "assign": '{"a":[0]}'},
                          "One of the following options"),
                         ({"kafka.bootstrap.servers": "h:1", "subscribe": "a", "startingOffsets": "latest"},
                          "must not be latest"),
                         ({"kafka.bootstrap.servers": "h:1", "subscribe": "a", "endingOffsets": '{"a":{"0":-2}}'},
                          "must not be earliest"),
                         ({"kafka.bootstrap.servers": "h:1", "subscribe": "a", "failOnDataLoss": "maybe"},
                          "'true' or 'false'")]:
        with pytest.raises(ValueError, match=message):
            parse(bad, streaming=False)
    with pytest.raises(ValueError, match="not valid in streaming"):
        parse({"kafka.bootstrap.servers": "h:1", "subscribe": "a", "endingOffsets": "latest"}, streaming=True)


def test_offsets_json_round_trips_in_a_stable_order(ds):
    offsets = {TopicPartition("b", 10): 1, TopicPartition("a", 2): 5, TopicPartition("b", 9): 3}
    as_json = ds.offsets_to_json(offsets)
    assert list(as_json) == ["a", "b"] and list(as_json["b"]) == ["9", "10"]
    assert ds.offsets_from_json(as_json) == offsets


def test_arrow_schema_is_what_spark_expects(ds):
    from pyspark.sql.pandas.types import to_arrow_schema
    for headers in (False, True):
        expected = to_arrow_schema(ds.kafka_schema(headers), timezone="UTC")
        assert ds.arrow_schema(headers).equals(expected)
        assert all(f.nullable for f in ds.arrow_schema(headers))

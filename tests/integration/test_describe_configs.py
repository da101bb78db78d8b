"""DescribeConfigs as Kafka's AdminManager answers it: each config's source is its most specific synonym
(topic override → this broker's dynamic config → dynamic default → server.properties → built-in default), and
the synonyms themselves when the client asks (KIP-226)."""
from __future__ import annotations

import pytest
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic

pytestmark = pytest.mark.timeout(60)


def describe(admin, resource):
    """confluent-kafka (librdkafka) always asks for synonyms."""
    [(_, future)] = admin.describe_configs([resource]).items()
    return future.result(15)


def test_topic_override_then_broker_then_default(broker, unique_topic):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    [f.result(15) for f in admin.create_topics(
        [NewTopic(unique_topic, 1, 1, config={"retention.ms": "3600000"})]).values()]
    configs = describe(admin, ConfigResource(ConfigResource.Type.TOPIC, unique_topic))

    retention = configs["retention.ms"]
    assert retention.value == "3600000" and retention.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    # librdkafka keys synonyms by name, so log.retention.hours' static and default entries fold into one here;
    # test_synonyms_in_kafkas_order below reads the raw list
    assert list(retention.synonyms)[:2] == ["retention.ms", "log.retention.hours"]

    segment = configs["segment.bytes"]      # server.properties sets log.segment.bytes: a static broker value
    assert segment.source == ConfigSource.STATIC_BROKER_CONFIG.value
    assert [s.name for s in segment.synonyms.values()][0] == "log.segment.bytes"

    cleanup = configs["compression.type"]   # not in server.properties: the default
    assert cleanup.source == ConfigSource.DEFAULT_CONFIG.value and not cleanup.is_read_only


def test_broker_configs_read_only_unless_dynamic(broker):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    configs = describe(admin, ConfigResource(ConfigResource.Type.BROKER, "0"))
    assert configs["num.io.threads"].is_read_only
    assert configs["num.io.threads"].source == ConfigSource.STATIC_BROKER_CONFIG.value
    assert not configs["max.connections.per.ip"].is_read_only
    assert configs["max.connections.per.ip"].source == ConfigSource.DEFAULT_CONFIG.value


@pytest.mark.parametrize("include_synonyms", [False, True])
def test_synonyms_in_kafkas_order(broker, unique_topic, include_synonyms):
    from clients import raw_request
    from harness import RawConnection
    from kafkalite.protocol.messages.describe_configs import DescribeConfigsRequest, DescribeConfigsResource
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    [f.result(15) for f in admin.create_topics(
        [NewTopic(unique_topic, 1, 1, config={"retention.ms": "3600000"})]).values()]
    conn = RawConnection(broker.port)
    try:
        response = raw_request(conn, 32, 3, DescribeConfigsRequest(
            resources=[DescribeConfigsResource(resource_type=2, resource_name=unique_topic,
                                               configuration_keys=["retention.ms"])],
            include_synonyms=include_synonyms))
    finally:
        conn.close()
    [result] = response.results
    [entry] = result.configs
    assert (entry.name, entry.value, entry.config_source) == ("retention.ms", "3600000", 1)
    synonyms = [(s.name, s.value, s.source) for s in entry.synonyms]
    if not include_synonyms:
        assert synonyms == []
    else:   # most specific first: the topic override, server.properties, then the built-in default
        assert synonyms == [("retention.ms", "3600000", 1), ("log.retention.hours", "168", 4),
                            ("log.retention.hours", "168", 5)]


def test_doubles_are_shown_as_java_shows_them(broker, unique_topic):
    # Kafka: ConfigDef.convertToString -> Double.toString: Double.MAX_VALUE is 1.7976931348623157E308, and the
    # topic's ratio written as 5e-1 reads back 0.5 (Python would print 1.7976931348623157e+308)
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    configs = describe(admin, ConfigResource(ConfigResource.Type.BROKER, "0"))
    assert configs["log.cleaner.io.max.bytes.per.second"].value == "1.7976931348623157E308"
    [f.result(15) for f in admin.create_topics(
        [NewTopic(unique_topic, 1, 1, config={"min.cleanable.dirty.ratio": "1e-4"})]).values()]
    topic = describe(admin, ConfigResource(ConfigResource.Type.TOPIC, unique_topic))
    assert topic["min.cleanable.dirty.ratio"].value == "1.0E-4"
    # Kafka: AdminManager.createTopicConfigEntry -- the TOPIC_CONFIG synonym is the parsed value too, not the text
    # as it was stored
    assert topic["min.cleanable.dirty.ratio"].synonyms["min.cleanable.dirty.ratio"].value == "1.0E-4"

"""No Kafka counterpart (Kafka 2.4's AdminManager.createTopics / alterConfigs / incrementalAlterConfigs, seen from
confluent-kafka's AdminClient against the shared broker process): which error a bad topic config gets.

- a value that does not parse or is not allowed (``retention.ms=abc``, ``cleanup.policy=bogus``) is a
  ConfigException: CreateTopics answers INVALID_CONFIG, AlterConfigs and IncrementalAlterConfigs INVALID_REQUEST,
  each with Kafka's message naming the key and the value;
- an unknown config name is an InvalidConfigurationException: INVALID_CONFIG for all three;
- nothing is created or changed in either case.
"""
import pytest

pytestmark = pytest.mark.timeout(60)

# key, value, Kafka's ConfigDef words for it
BAD_VALUES = [("retention.ms", "abc", "Not a number of type LONG"),
              ("cleanup.policy", "bogus", "String must be one of: compact, delete"),
              ("min.insync.replicas", "0", "Value must be at least 1")]


@pytest.fixture
def admin(broker):
    from confluent_kafka.admin import AdminClient
    return AdminClient({"bootstrap.servers": broker.bootstrap})


def error_of(future):
    from confluent_kafka import KafkaException
    with pytest.raises(KafkaException) as e:
        future.result(timeout=15)
    return e.value.args[0]


def topics(admin):
    return set(admin.list_topics(timeout=10).topics)


@pytest.mark.parametrize("key,value,words", BAD_VALUES)
def test_create_topics_with_a_bad_value_is_invalid_config(admin, unique_topic, key, value, words):
    from confluent_kafka.admin import NewTopic
    f = admin.create_topics([NewTopic(unique_topic, 1, 1, config={key: value})], request_timeout=15)[unique_topic]
    err = error_of(f)
    assert err.name() == "INVALID_CONFIG"
    assert f"Invalid value {value} for configuration {key}: {words}" in err.str()
    assert unique_topic not in topics(admin)


def _existing(admin, name):
    from confluent_kafka.admin import NewTopic
    admin.create_topics([NewTopic(name, 1, 1)], request_timeout=15)[name].result(timeout=15)


def _retention(admin, name):
    from confluent_kafka.admin import ConfigResource
    res = ConfigResource("TOPIC", name)
    return admin.describe_configs([res])[res].result(timeout=15)["retention.ms"].value


@pytest.mark.parametrize("key,value,words", BAD_VALUES)
def test_alter_configs_with_a_bad_value_is_invalid_request(admin, unique_topic, key, value, words):
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource
    _existing(admin, unique_topic)
    before = _retention(admin, unique_topic)
    res = ConfigResource("TOPIC", unique_topic, set_config={key: value})
    err = error_of(admin.alter_configs([res], request_timeout=15)[res])
    assert err.name() == "INVALID_REQUEST"
    assert f"Invalid value {value} for configuration {key}: {words}" in err.str()
    inc = ConfigResource("TOPIC", unique_topic, incremental_configs=[
        ConfigEntry(key, value, incremental_operation=AlterConfigOpType.SET)])
    err = error_of(admin.incremental_alter_configs([inc], request_timeout=15)[inc])
    assert err.name() == "INVALID_REQUEST"
    assert _retention(admin, unique_topic) == before


def test_an_unknown_config_name_is_invalid_config_for_create_and_alter(admin, unique_topic):
    from confluent_kafka.admin import ConfigResource, NewTopic
    name = unique_topic
    f = admin.create_topics([NewTopic(name, 1, 1, config={"no.such.config": "1"})], request_timeout=15)[name]
    assert error_of(f).name() == "INVALID_CONFIG"
    _existing(admin, name)
    res = ConfigResource("TOPIC", name, set_config={"no.such.config": "1"})
    err = error_of(admin.alter_configs([res], request_timeout=15)[res])
    assert err.name() == "INVALID_CONFIG" and "Unknown topic config name: no.such.config" in err.str()

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
              ("min.insync.replicas", "0", "Value must be at least 1"),
              # Kafka: ApiVersionValidator
              ("message.format.version", "garbage", "Version `garbage` is not a valid version"),
              # Kafka 2.4 would convert every append to v1; kafkalite writes v2 only and says so
              ("message.format.version", "0.10.2",
               "kafkalite stores message format v2 only (Kafka 0.11.0 and later); 0.10.2-IV0 writes v1")]


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


def test_an_existing_topic_is_topic_already_exists_whatever_its_configs(admin, unique_topic):
    # Kafka 2.4's AdminManager.createTopics: metadataCache.contains(topic) comes before LogConfig.validate, so
    # "create if it does not exist" tools see TOPIC_ALREADY_EXISTS
    from confluent_kafka.admin import NewTopic
    _existing(admin, unique_topic)
    for config in ({"retention.ms": "abc"}, {"no.such.config": "1"}):
        f = admin.create_topics([NewTopic(unique_topic, 1, 1, config=config)], request_timeout=15)[unique_topic]
        assert error_of(f).name() == "TOPIC_ALREADY_EXISTS"


def test_create_topics_checks_the_configs_before_the_replication_factor(admin, unique_topic):
    # Kafka 2.4's AdminManager.createTopics: LogConfig.validate(configs) comes first
    from confluent_kafka.admin import NewTopic
    f = admin.create_topics([NewTopic(unique_topic, 1, 3, config={"retention.ms": "abc"})],
                            request_timeout=15)[unique_topic]
    assert error_of(f).name() == "INVALID_CONFIG"


def _existing(admin, name):
    from confluent_kafka.admin import NewTopic
    admin.create_topics([NewTopic(name, 1, 1)], request_timeout=15)[name].result(timeout=15)


def _config(admin, name, key):
    from confluent_kafka.admin import ConfigResource
    res = ConfigResource("TOPIC", name)
    return admin.describe_configs([res])[res].result(timeout=15)[key].value


@pytest.mark.parametrize("key,value,words", BAD_VALUES)
def test_alter_configs_with_a_bad_value_is_invalid_request(admin, unique_topic, key, value, words):
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource
    _existing(admin, unique_topic)
    before = _config(admin, unique_topic, key)
    res = ConfigResource("TOPIC", unique_topic, set_config={key: value})
    err = error_of(admin.alter_configs([res], request_timeout=15)[res])
    assert err.name() == "INVALID_REQUEST"
    # Kafka 2.4's AdminManager.alterConfigs message, the resource as ConfigResource.toString prints it
    assert err.str() == (f"Invalid config value for resource ConfigResource(type=TOPIC, name='{unique_topic}'): "
                         f"Invalid value {value} for configuration {key}: {words}")
    inc = ConfigResource("TOPIC", unique_topic, incremental_configs=[
        ConfigEntry(key, value, incremental_operation=AlterConfigOpType.SET)])
    err = error_of(admin.incremental_alter_configs([inc], request_timeout=15)[inc])
    assert err.name() == "INVALID_REQUEST"
    assert f"Invalid value {value} for configuration {key}: {words}" in err.str()
    assert _config(admin, unique_topic, key) == before


def test_an_unknown_config_name_is_invalid_config_for_create_and_alter(admin, unique_topic):
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic
    name = unique_topic
    f = admin.create_topics([NewTopic(name, 1, 1, config={"no.such.config": "1"})], request_timeout=15)[name]
    assert error_of(f).name() == "INVALID_CONFIG"
    _existing(admin, name)
    res = ConfigResource("TOPIC", name, set_config={"no.such.config": "1"})
    err = error_of(admin.alter_configs([res], request_timeout=15)[res])
    assert err.name() == "INVALID_CONFIG" and "Unknown topic config name: no.such.config" in err.str()
    inc = ConfigResource("TOPIC", name, incremental_configs=[
        ConfigEntry("no.such.config", "1", incremental_operation=AlterConfigOpType.SET)])
    err = error_of(admin.incremental_alter_configs([inc], request_timeout=15)[inc])
    assert err.name() == "INVALID_CONFIG" and "Unknown topic config name: no.such.config" in err.str()


# --- a stored config that does not parse (written past the broker's checks, e.g. by `kafka-configs --zookeeper`)

def test_describe_configs_of_a_topic_whose_stored_override_does_not_parse_fails_that_resource_only(tmp_path):
    # Kafka: AdminManager.describeConfigs catches every Throwable per resource (ApiError.fromThrowable): the bad
    # topic gets UNKNOWN_SERVER_ERROR, the others their configs, and the connection stays open
    from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic
    from harness import InProcessBroker
    b = InProcessBroker(tmp_path / "logs").start()
    try:
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        for name in ("bad", "good"):
            admin.create_topics([NewTopic(name, 1, 1)], request_timeout=15)[name].result(timeout=15)
        b.server.zk_client.set_or_create_entity_configs("topics", "bad", {"min.cleanable.dirty.ratio": "0,5"})
        bad, good = ConfigResource("TOPIC", "bad"), ConfigResource("TOPIC", "good")
        futures = admin.describe_configs([bad, good], request_timeout=15)
        err = error_of(futures[bad])
        assert err.code() == -1   # UNKNOWN_SERVER_ERROR (librdkafka names it UNKNOWN)
        assert "Invalid value 0,5 for configuration min.cleanable.dirty.ratio" in err.str()
        assert futures[good].result(timeout=15)["cleanup.policy"].value == "delete"
    finally:
        b.stop()


def test_an_internal_topic_whose_configs_do_not_parse_is_not_created_and_the_requests_are_answered(tmp_path):
    # offsets.topic.segment.bytes has to be >= 1 for the broker and >= 14 for a topic: Kafka's createTopic
    # catches everything, Metadata answers the topic with Errors.forException, FindCoordinator with
    # COORDINATOR_NOT_AVAILABLE; neither closes the connection
    from harness import InProcessBroker, RawConnection
    from clients import raw_request
    from kafkalite.protocol.messages import find_coordinator as FC, metadata as MD
    b = InProcessBroker(tmp_path / "logs", {"offsets.topic.segment.bytes": "10"}).start()
    try:
        with RawConnection(b.port) as conn:
            r = raw_request(conn, 10, 2, FC.FindCoordinatorRequest(key="g", key_type=0), correlation_id=1)
            assert r.error_code == 15   # COORDINATOR_NOT_AVAILABLE
            r = raw_request(conn, 3, 7, MD.MetadataRequest(topics=[MD.MetadataRequestTopic(name="__consumer_offsets")],
                                                           allow_auto_topic_creation=True), correlation_id=2)
            [topic] = r.topics
            assert topic.error_code == -1 and topic.is_internal   # UNKNOWN_SERVER_ERROR
        assert not b.server.zk_client.topic_exists("__consumer_offsets")
    finally:
        b.stop()


@pytest.mark.parametrize("version", ["0.11.0", "2.3-IV1", "2.4.1"])
def test_a_message_format_version_kafkalite_writes_is_accepted(admin, unique_topic, version):
    # message format v2 (0.11.0 and later), read as Kafka's ApiVersion.apply reads it; DescribeConfigs gives the
    # text as it was set
    from confluent_kafka.admin import NewTopic
    admin.create_topics([NewTopic(unique_topic, 1, 1, config={"message.format.version": version})],
                        request_timeout=15)[unique_topic].result(timeout=15)
    assert _config(admin, unique_topic, "message.format.version") == version


def test_a_topic_that_kept_an_old_message_format_can_change_its_other_configs(tmp_path):
    # a stored message.format.version below 0.11.0 (kafkalite accepted one before it refused them) is not set
    # again by an AlterConfigs of another key: AdminManager validates the change against the stored overrides,
    # so only setting or changing the version is refused
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic
    from harness import InProcessBroker
    b = InProcessBroker(tmp_path / "logs").start()
    try:
        admin = _admin_for(b)
        admin.create_topics([NewTopic("old", 1, 1)], request_timeout=15)["old"].result(timeout=15)
        b.server.zk_client.set_or_create_entity_configs("topics", "old", {"message.format.version": "0.10.2"})
        res = ConfigResource("TOPIC", "old", incremental_configs=[
            ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)])
        admin.incremental_alter_configs([res], request_timeout=15)[res].result(timeout=15)
        assert _config(admin, "old", "retention.ms") == "3600000"
        res = ConfigResource("TOPIC", "old", incremental_configs=[
            ConfigEntry("message.format.version", "0.10.1", incremental_operation=AlterConfigOpType.SET)])
        err = error_of(admin.incremental_alter_configs([res], request_timeout=15)[res])
        assert err.name() == "INVALID_REQUEST" and "kafkalite stores message format v2 only" in err.str()
    finally:
        b.stop()


def _admin_for(b):
    from confluent_kafka.admin import AdminClient
    return AdminClient({"bootstrap.servers": b.bootstrap})

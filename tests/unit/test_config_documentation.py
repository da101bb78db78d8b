"""DescribeConfigs v3+ (KIP-569): every broker and topic key kafkalite knows has Kafka's ConfigDef type and a line of
documentation; the wire ids are DescribeConfigsResponse.ConfigType's."""
from kafkalite.common.config.config_def import CONFIG_TYPE_NAMES, Type, config_type_of, type_of
from kafkalite.log.log_config import LogConfigDef
from kafkalite.server.config_documentation import BROKER_CONFIG_DOCS, TOPIC_CONFIG_DOCS
from kafkalite.common.config.config_exception import ConfigException
from kafkalite.server.kafka_config import CONFIG_DEF, KafkaConfig


def test_every_broker_and_topic_key_has_a_type_and_documentation():
    assert [k for k, (t, _d, _v) in CONFIG_DEF.items() if type_of(t) is None] == []
    assert [k for k, (t, _d, _c) in LogConfigDef.items() if type_of(t) is None] == []
    assert [k for k in CONFIG_DEF if not BROKER_CONFIG_DOCS.get(k)] == []
    assert [k for k in LogConfigDef if not TOPIC_CONFIG_DOCS.get(k)] == []


def test_wire_ids_are_kafkas_config_types():
    assert [config_type_of(t.name) for t in Type] == list(range(1, 10))
    assert config_type_of("long") == 5 and config_type_of(None) == 0 and config_type_of("MAP") == 0
    assert CONFIG_TYPE_NAMES[9] == "PASSWORD" and Type.PASSWORD.is_sensitive() and not Type.STRING.is_sensitive()


def test_kafkas_types_for_keys_whose_type_is_not_int():
    assert CONFIG_DEF["offsets.topic.replication.factor"][0] == "SHORT"
    assert CONFIG_DEF["transaction.state.log.replication.factor"][0] == "SHORT"
    assert CONFIG_DEF["ssl.keystore.password"][0] == "PASSWORD"
    assert LogConfigDef["cleanup.policy"][0] == "list" and LogConfigDef["min.cleanable.dirty.ratio"][0] == "double"


def test_a_short_key_takes_16_bit_values_only():
    assert KafkaConfig({"offsets.topic.replication.factor": "3"}, do_log=False).get(
        "offsets.topic.replication.factor") == 3
    try:
        KafkaConfig({"offsets.topic.replication.factor": "40000"}, do_log=False)
    except ConfigException as e:
        assert "Not a number of type SHORT" in str(e)
    else:
        raise AssertionError("40000 is not a SHORT")

"""Mirrors Kafka 2.4: clients/src/test/java/org/apache/kafka/common/config/ConfigDefTest.java (parseType's
reading of each type and its errors; Range, ValidString, ValidList), and that the broker's table
(KafkaConfig), the topic's (LogConfig) and the SSL settings all read text through the one
``config_def.parse_type``."""
import pytest

from kafkalite.common.config.config_def import Range, Type, ValidList, ValidString, parse_type
from kafkalite.common.config.config_exception import ConfigException
from kafkalite.log.log_config import LogConfig
from kafkalite.security.ssl.ssl_configs import ssl_config_values
from kafkalite.server.kafka_config import KafkaConfig


@pytest.mark.parametrize("value, type_, parsed", [
    (" true\t", Type.BOOLEAN, True), ("FALSE", Type.BOOLEAN, False), (True, Type.BOOLEAN, True),
    (" 12 ", Type.INT, 12), ("-2147483648", Type.INT, -(1 << 31)), ("9223372036854775807", Type.LONG, (1 << 63) - 1),
    ("-32768", Type.SHORT, -32768), ("0.5d", Type.DOUBLE, 0.5), ("1e3", Type.DOUBLE, 1000.0), (3, Type.DOUBLE, 3.0),
    ("0x1.8p-1", Type.DOUBLE, 0.75), ("-0X.8P1d", Type.DOUBLE, -1.0),
    (" a , b,,c, ", Type.LIST, ["a", "b", "", "c", ""]), ("  ", Type.LIST, []), ("a\t,\tb", Type.LIST, ["a", "b"]),
    (" x ", Type.STRING, "x"), (" secret ", Type.PASSWORD, "secret"), ("\x01x\x1f", Type.STRING, "x"),
])
def test_parse_type_reads_text_as_java(value, type_, parsed):
    assert parse_type("k", value, type_) == parsed


@pytest.mark.parametrize("value, type_, words", [
    ("yes", Type.BOOLEAN, "Expected value to be either true or false"),
    ("true\u00a0", Type.BOOLEAN, "Expected value to be either true or false"),   # String.trim keeps U+00A0
    ("2147483648", Type.INT, "Not a number of type INT"), ("1_000", Type.LONG, "Not a number of type LONG"),
    ("40000", Type.SHORT, "Not a number of type SHORT"), ("inf", Type.DOUBLE, "Not a number of type DOUBLE"),
    ("0x1.8", Type.DOUBLE, "Not a number of type DOUBLE"),   # Java's hexadecimal form needs its p exponent
    (1.5, Type.INT, "Expected value to be a 32-bit integer, but it was a float"),
    (1.5, Type.LONG, "Expected value to be a 64-bit integer (long), but it was a float"),
    (object(), Type.DOUBLE, "Expected value to be a double, but it was a object"),
    (7, Type.LIST, "Expected a comma separated list."),
])
def test_parse_type_refuses_in_configdefs_words(value, type_, words):
    with pytest.raises(ConfigException) as e:
        parse_type("k", value, type_)
    assert str(e.value) == f"Invalid value {value} for configuration k: {words}"


def test_validators():
    Range.between(0, 1)("r", 0.5)
    for value, words in ((-1, "Value must be at least 0"), (2, "Value must be no more than 1")):
        with pytest.raises(ConfigException, match=words):
            Range.between(0, 1)("r", value)
    with pytest.raises(ConfigException, match="Invalid value x for configuration s: String must be one of: a, b"):
        ValidString.in_("a", "b")("s", "x")
    # ValidList names the first item that is not allowed; an empty item is one
    with pytest.raises(ConfigException, match="Invalid value  for configuration l: String must be one of: a, b"):
        ValidList.in_("a", "b")("l", ["a", ""])


@pytest.mark.parametrize("key", ["log.cleanup.policy", "group.coordinator.rebalance.protocols"])
def test_the_brokers_lists_keep_empty_items_for_validlist(key):
    # ConfigDef.parseType keeps the empty item of "compact," and ValidList refuses it; kafkalite's broker table
    # used to drop it and accept the value
    value = {"log.cleanup.policy": "compact,", "group.coordinator.rebalance.protocols": "classic,"}[key]
    with pytest.raises(ConfigException, match="String must be one of"):
        KafkaConfig.from_props({"zookeeper.connect": "localhost:2181", key: value}, do_log=False)


def test_the_brokers_booleans_are_trimmed_as_java_trims():
    base = {"zookeeper.connect": "localhost:2181"}
    assert KafkaConfig.from_props({**base, "auto.create.topics.enable": "\tfalse "}, do_log=False) \
        .get("auto.create.topics.enable") is False
    with pytest.raises(ConfigException, match="Expected value to be either true or false"):
        KafkaConfig.from_props({**base, "auto.create.topics.enable": "false\u2003"}, do_log=False)


def test_topic_and_ssl_values_read_through_the_same_parser():
    config = LogConfig({"cleanup.policy": "compact , delete"})
    assert config.compact and config.delete
    with pytest.raises(ConfigException, match="Not a number of type INT"):
        LogConfig({"segment.bytes": "1_000_000"})
    assert ssl_config_values({"ssl.enabled.protocols": " TLSv1.2 ,\tTLSv1.3 "})["ssl.enabled.protocols"] == \
        ["TLSv1.2", "TLSv1.3"]


@pytest.mark.parametrize("value, text", [(0.5, "0.5"), (1e10, "1.0E10"), (1e-4, "1.0E-4"), (1e7, "1.0E7"),
                                         (1.7976931348623157e308, "1.7976931348623157E308"), (True, "true"),
                                         (["compact", "delete"], "compact,delete"), (12, "12"), (None, None)])
def test_convert_to_string_is_javas_tostring(value, text):
    from kafkalite.common.config.config_def import convert_to_string
    assert convert_to_string(value) == text


def test_a_double_in_a_message_is_printed_as_java_prints_it():
    with pytest.raises(ConfigException) as e:
        LogConfig({"min.cleanable.dirty.ratio": "1e10"})
    assert str(e.value) == "Invalid value 1.0E10 for configuration min.cleanable.dirty.ratio: " \
                           "Value must be no more than 1"


@pytest.mark.parametrize("ratio, shown", [("NaN", "NaN"), ("1e-4", "1.0E-4")])
def test_the_brokers_doubles_reach_the_topic_defaults_as_java_text(tmp_path, ratio, shown):
    # KafkaServer hands LogConfig the broker's values as text (Kafka: copyKafkaConfigToLog hands them typed):
    # Python's "nan" / "0.0001" would not parse as Java's NaN, or would read back differently
    from kafkalite.server.kafka_server import KafkaServer
    server = KafkaServer(KafkaConfig.from_props({"zookeeper.connect": "", "log.dirs": str(tmp_path),
                                                 "log.cleaner.min.cleanable.ratio": ratio}, do_log=False))
    assert server.log_default_props()["min.cleanable.dirty.ratio"] == shown
    server.default_log_config()   # parses: NaN passes Range.between(0, 1) as in Java

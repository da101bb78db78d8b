"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/log/LogConfigTest.scala (the invalid-value cases), in the words
of Kafka's ConfigDef: a topic config value that does not parse or that a validator refuses is a ConfigException
naming the key, the value as parsed and what is allowed; an unknown name and a conflict between values are
InvalidConfigurationException (what AdminManager answers for each: tests/integration/test_topic_config_errors.py).
"""
import pytest

from kafkalite.common.config.config_exception import ConfigException
from kafkalite.log.log_config import LogConfig
from kafkalite.protocol.errors import InvalidConfigurationException


@pytest.mark.parametrize("key,value,message", [
    ("retention.ms", "abc", "Invalid value abc for configuration retention.ms: Not a number of type LONG"),
    ("retention.ms", "99999999999999999999",
     "Invalid value 99999999999999999999 for configuration retention.ms: Not a number of type LONG"),
    ("max.message.bytes", "3000000000",
     "Invalid value 3000000000 for configuration max.message.bytes: Not a number of type INT"),
    ("min.cleanable.dirty.ratio", "x", "Invalid value x for configuration min.cleanable.dirty.ratio: "
                                        "Not a number of type DOUBLE"),
    ("unclean.leader.election.enable", "yes", "Invalid value yes for configuration unclean.leader.election.enable: "
                                              "Expected value to be either true or false"),
    ("min.insync.replicas", " 0 ", "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"),
    ("min.cleanable.dirty.ratio", "1.5", "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: "
                                         "Value must be no more than 1"),
    ("cleanup.policy", "compact, bogus ", "Invalid value bogus for configuration cleanup.policy: "
                                          "String must be one of: compact, delete"),
    ("message.timestamp.type", " Later ", "Invalid value Later for configuration message.timestamp.type: "
                                          "String must be one of: CreateTime, LogAppendTime"),
    # read as Java reads them: no underscores (Long.parseLong), no "inf" (Double.parseDouble), empty list items
    # go to ValidList (Kafka splits with limit -1), only characters up to U+0020 are trimmed (String.trim)
    ("retention.ms", "1_000", "Invalid value 1_000 for configuration retention.ms: Not a number of type LONG"),
    ("retention.ms", "\u00a0100", "Invalid value \u00a0100 for configuration retention.ms: Not a number of type LONG"),
    ("min.cleanable.dirty.ratio", "inf", "Invalid value inf for configuration min.cleanable.dirty.ratio: "
                                         "Not a number of type DOUBLE"),
    ("cleanup.policy", "compact,", "Invalid value  for configuration cleanup.policy: "
                                   "String must be one of: compact, delete"),
])
def test_a_value_that_does_not_parse_or_is_not_allowed_is_a_config_exception(key, value, message):
    with pytest.raises(ConfigException) as e:
        LogConfig.validate({key: value})
    assert str(e.value) == message
    assert not isinstance(e.value, InvalidConfigurationException)


@pytest.mark.parametrize("key,value", [("retention.ms", " +100 "), ("min.cleanable.dirty.ratio", "0.5d"),
                                       ("min.cleanable.dirty.ratio", ".5"), ("min.cleanable.dirty.ratio", "1e-1"),
                                       ("cleanup.policy", "compact, delete"), ("cleanup.policy", "")])
def test_what_java_parses_is_accepted(key, value):
    LogConfig.validate({key: value})




def test_an_unknown_name_and_a_conflict_are_invalid_configuration():
    with pytest.raises(InvalidConfigurationException, match="Unknown topic config name: no.such"):
        LogConfig.validate({"no.such": "1"})
    with pytest.raises(InvalidConfigurationException, match="min.compaction.lag.ms"):
        LogConfig.validate({"min.compaction.lag.ms": "10", "max.compaction.lag.ms": "5"})

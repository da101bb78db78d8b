"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/api/ApiVersionTest.scala (testApply, the validator), and
kafkalite's refusal of the message formats it does not write."""
import pytest

from kafkalite.api.api_version import ALL_VERSIONS, LATEST_VERSION, ApiVersion, api_version_validator, \
    ensure_stored_format
from kafkalite.common.config.config_exception import ConfigException


@pytest.mark.parametrize("text, version", [
    ("0.8.0", "0.8.0"), ("0.8.0.0", "0.8.0"), ("0.8.0.1", "0.8.0"), ("0.9.0", "0.9.0"),
    ("0.10.0-IV0", "0.10.0-IV0"), ("0.10.0", "0.10.0-IV1"), ("0.10.0.1", "0.10.0-IV1"),
    ("0.10.1", "0.10.1-IV2"), ("0.11.0", "0.11.0-IV2"), ("1.0", "1.0-IV0"), ("1.0.1", "1.0-IV0"),
    ("2.0-IV0", "2.0-IV0"), ("2.0", "2.0-IV1"), ("2.4", "2.4-IV1"), ("2.4.1", "2.4-IV1"), ("2.4-IV0", "2.4-IV0"),
])
def test_apply_reads_short_and_full_versions(text, version):
    assert ApiVersion.apply(text).version == version


@pytest.mark.parametrize("text", ["garbage", "", "2", "2.5", "0.10", "3.0-IV0", "2.4-IV9"])
def test_apply_refuses_what_is_not_a_version(text):
    with pytest.raises(ValueError, match=f"Version `{text}` is not a valid version"):
        ApiVersion.apply(text)


def test_versions_are_in_order_with_their_record_versions():
    assert [v.id for v in ALL_VERSIONS] == list(range(len(ALL_VERSIONS))) and LATEST_VERSION.version == "2.4-IV1"
    assert {v.version: v.record_version for v in ALL_VERSIONS if v.short_version in ("0.9.0", "0.10.2", "0.11.0")} == \
        {"0.9.0": 0, "0.10.2-IV0": 1, "0.11.0-IV0": 2, "0.11.0-IV1": 2, "0.11.0-IV2": 2}


def test_validator_message_is_kafkas():
    with pytest.raises(ConfigException) as e:
        api_version_validator("message.format.version", "garbage")
    assert str(e.value) == ("Invalid value garbage for configuration message.format.version: "
                            "Version `garbage` is not a valid version")


@pytest.mark.parametrize("text", ["0.8.2", "0.9.0", "0.10.0-IV0", "0.10.2"])
def test_formats_kafkalite_does_not_write_are_refused(text):
    with pytest.raises(ConfigException, match="kafkalite stores message format v2 only"):
        ensure_stored_format("message.format.version", text)


@pytest.mark.parametrize("text", ["0.11.0-IV0", "1.1", "2.4-IV1"])
def test_formats_kafkalite_writes_pass(text):
    ensure_stored_format("message.format.version", text)


def test_a_stored_override_kafkalite_does_not_write_loads_with_a_warning(tmp_path, caplog):
    # refused where it is set or changed (LogConfig.validate: CreateTopics, AlterConfigs, a config change),
    # loaded where it is stored -- as Kafka loads any valid version -- so a topic set to 0.10.2 before kafkalite
    # refused it does not stop the broker, can still change its other configs, and LogManager says once that
    # its batches are written in v2; a stored value that is no version stops start-up, as Kafka's fromProps
    from kafkalite.log.log_config import LogConfig
    from kafkalite.log.log_manager import LogManager
    stored = {"message.format.version": "0.10.2"}
    with pytest.raises(ConfigException, match="kafkalite stores message format v2 only"):
        LogConfig.validate(stored)
    with pytest.raises(ConfigException, match="kafkalite stores message format v2 only"):
        LogConfig.validate(stored, previous={"message.format.version": "2.4"})
    LogConfig.validate({**stored, "retention.ms": "1000"}, previous=stored)
    with pytest.raises(ConfigException, match="is not a valid version"):
        LogConfig.from_props({}, {"message.format.version": "garbage"})
    assert LogConfig.from_props({}, stored).message_format_version == "0.10.2"
    with caplog.at_level("WARNING", logger="kafka.log.LogManager"):
        LogManager([str(tmp_path)], LogConfig(), topic_configs={
            "old": stored, "new": {"message.format.version": "2.4"}, "junk": {"message.format.version": "garbage"}})
    warned = [r.getMessage() for r in caplog.records if "message.format.version" in r.getMessage()]
    assert len(warned) == 1 and "Topic old:" in warned[0] and "written in message format v2" in warned[0]


def test_validate_checks_keys_in_the_tables_order():
    # Kafka: ConfigDef.parse walks its LinkedHashMap of keys, so the first bad key in LogConfig's order is named
    from kafkalite.log.log_config import LogConfig
    with pytest.raises(ConfigException, match="segment.bytes"):
        LogConfig.validate({"segment.ms": "x", "segment.bytes": "y"})
    with pytest.raises(ConfigException, match="max.compaction.lag.ms"):
        LogConfig.validate({"file.delete.delay.ms": "-1", "max.compaction.lag.ms": "0"})

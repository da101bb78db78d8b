"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/LogConfig.scala (keys from
clients/.../common/config/TopicConfig.java)

Classes: LogConfig (typed topic-level settings), ConfigEntry (one row for DescribeConfigs),
LogConfigDef (the table of keys, types, defaults and allowed values).

A topic's effective config is the broker's defaults (``log.*`` keys of server.properties,
mapped to topic keys through ``SERVER_DEFAULT_CONFIG_NAMES``) overlaid with the topic's
overrides (stored in ZooKeeper under /config/topics/<topic>).

The throttled-replica lists (``leader.replication.throttled.replicas`` /
``follower.replication.throttled.replicas``: ``*`` or ``partition:broker,...``) are checked as Kafka's
ThrottledReplicaListValidator does; TopicConfigHandler hands them to the replication quota managers.

Era notes: ``max.message.bytes`` defaults to 1048588 (1 MiB + 12, today's default); Kafka 2.4
used 1000012. ``message.format.version`` is checked by ApiVersionValidator; ``validate`` (CreateTopics,
AlterConfigs, a config change) also refuses setting it below 0.11.0, since kafkalite writes message format v2
only (kafkalite/api/api_version.py). A stored override of such a version (set before kafkalite refused it, or
written to ZooKeeper directly) is loaded, as Kafka would, LogManager warns that it has no effect, and the
topic's other configs can still be changed.
"""
from __future__ import annotations

import re

import attrs

from kafkalite.api.api_version import api_version_validator, ensure_stored_format
from kafkalite.common.config.config_def import Range, ValidList, ValidString, convert_to_string, parse_type
from kafkalite.common.config.config_exception import ConfigException
from kafkalite.protocol.errors import InvalidConfigurationException

LONG_MAX = (1 << 63) - 1

_THROTTLED_REPLICA = re.compile(r"([0-9]+:[0-9]+)?")


# Kafka: ThrottledReplicaListValidator.ensureValid -- every entry "partition:broker" (or empty), or the first
# one the literal "*"; Kafka's ConfigException prints the parsed list as Java does, "[0:1, x]"
def ensure_valid_throttled_replica_list(name: str, items: list) -> None:
    entries = [str(v).strip() for v in items]
    if not (all(_THROTTLED_REPLICA.fullmatch(v) for v in entries) or (entries and entries[0] == "*")):
        raise ConfigException(name, f"[{', '.join(entries)}]", f"{name} must be the literal '*' or a list of "
                              "replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...")


# (key, type, default, validator) -- Kafka: LogConfig.configDef's rows, in its order; the validator is called
# with (key, parsed value) and raises ConfigException (config_def's Range, ValidString, ValidList, or LogConfig's
# own)
_DEFS = [
    ("segment.bytes", "int", 1024 * 1024 * 1024, Range.at_least(14)),
    ("segment.ms", "long", 7 * 24 * 3600 * 1000, Range.at_least(1)),
    ("segment.jitter.ms", "long", 0, Range.at_least(0)),
    ("segment.index.bytes", "int", 10 * 1024 * 1024, Range.at_least(0)),
    ("flush.messages", "long", LONG_MAX, Range.at_least(0)),
    ("flush.ms", "long", LONG_MAX, Range.at_least(0)),
    ("retention.bytes", "long", -1, None),
    ("retention.ms", "long", 7 * 24 * 3600 * 1000, Range.at_least(-1)),
    ("max.message.bytes", "int", 1024 * 1024 + 12, Range.at_least(0)),
    ("index.interval.bytes", "int", 4096, Range.at_least(0)),
    ("delete.retention.ms", "long", 24 * 3600 * 1000, Range.at_least(0)),
    ("min.compaction.lag.ms", "long", 0, Range.at_least(0)),
    ("max.compaction.lag.ms", "long", LONG_MAX, Range.at_least(1)),
    ("file.delete.delay.ms", "long", 60000, Range.at_least(0)),
    ("min.cleanable.dirty.ratio", "double", 0.5, Range.between(0, 1)),
    ("cleanup.policy", "list", "delete", ValidList.in_("compact", "delete")),
    ("unclean.leader.election.enable", "boolean", False, None),
    ("min.insync.replicas", "int", 1, Range.at_least(1)),
    ("compression.type", "string", "producer",
     ValidString.in_("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")),
    ("preallocate", "boolean", False, None),
    ("message.format.version", "string", "2.4-IV1", api_version_validator),
    ("message.timestamp.type", "string", "CreateTime", ValidString.in_("CreateTime", "LogAppendTime")),
    ("message.timestamp.difference.max.ms", "long", LONG_MAX, Range.at_least(0)),
    ("leader.replication.throttled.replicas", "list", "", ensure_valid_throttled_replica_list),
    ("follower.replication.throttled.replicas", "list", "", ensure_valid_throttled_replica_list),
    ("message.downconversion.enable", "boolean", True, None),
]
LogConfigDef = {key: (typ, default, check) for key, typ, default, check in _DEFS}

# Kafka: KafkaServer.copyKafkaConfigToLog -- broker key that supplies each topic key's default.
SERVER_DEFAULT_CONFIG_NAMES = {
    "segment.bytes": "log.segment.bytes", "segment.ms": "log.roll.ms",
    "segment.jitter.ms": "log.roll.jitter.ms", "segment.index.bytes": "log.index.size.max.bytes",
    "flush.messages": "log.flush.interval.messages", "flush.ms": "log.flush.interval.ms",
    "retention.bytes": "log.retention.bytes", "retention.ms": "log.retention.ms",
    "max.message.bytes": "message.max.bytes", "index.interval.bytes": "log.index.interval.bytes",
    "file.delete.delay.ms": "log.segment.delete.delay.ms",
    "delete.retention.ms": "log.cleaner.delete.retention.ms",
    "min.compaction.lag.ms": "log.cleaner.min.compaction.lag.ms",
    "max.compaction.lag.ms": "log.cleaner.max.compaction.lag.ms",
    "min.cleanable.dirty.ratio": "log.cleaner.min.cleanable.ratio",
    "cleanup.policy": "log.cleanup.policy", "unclean.leader.election.enable": "unclean.leader.election.enable",
    "min.insync.replicas": "min.insync.replicas", "compression.type": "compression.type",
    "preallocate": "log.preallocate", "message.format.version": "log.message.format.version",
    "message.timestamp.type": "log.message.timestamp.type",
    "message.timestamp.difference.max.ms": "log.message.timestamp.difference.max.ms",
    "message.downconversion.enable": "log.message.downconversion.enable",
}


def _parse(key: str, value):
    """Kafka: ConfigDef.parse for one key -- ConfigDef.parseType (config_def.parse_type), then the key's validator."""
    typ, _default, check = LogConfigDef[key]
    parsed = parse_type(key, value, typ)
    if check is not None:
        check(key, parsed)
    if typ == "list":
        return [v for v in parsed if v]   # ValidList saw the empty items; the lists LogConfig keeps have none
    return parsed


@attrs.frozen
class ConfigEntry:
    """One config as DescribeConfigs reports it (source names of DescribeConfigsResponse)."""

    name: str
    value: str
    source: str  # DYNAMIC_TOPIC_CONFIG | STATIC_BROKER_CONFIG | DEFAULT_CONFIG
    is_default: bool
    read_only: bool = False
    is_sensitive: bool = False


class LogConfig:
    """Kafka: LogConfig -- every topic-level setting, typed, with Kafka's field names."""

    # Kafka: LogConfig.<init>
    def __init__(self, props: dict | None = None, overridden_configs: set[str] | frozenset = frozenset()):
        props = dict(props or {})
        LogConfig.validate_names(props)
        self.originals = props
        self.overridden_configs = frozenset(overridden_configs)
        values = {key: _parse(key, props[key]) if key in props else d for key, (_t, d, _c) in LogConfigDef.items()}
        values["cleanup.policy"] = _parse("cleanup.policy", values["cleanup.policy"])
        self.values = values
        self.segment_size = values["segment.bytes"]
        self.segment_ms = values["segment.ms"]
        self.segment_jitter_ms = values["segment.jitter.ms"]
        self.max_index_size = values["segment.index.bytes"]
        self.flush_interval = values["flush.messages"]
        self.flush_ms = values["flush.ms"]
        self.retention_size = values["retention.bytes"]
        self.retention_ms = values["retention.ms"]
        self.max_message_size = values["max.message.bytes"]
        self.index_interval = values["index.interval.bytes"]
        self.file_delete_delay_ms = values["file.delete.delay.ms"]
        self.delete_retention_ms = values["delete.retention.ms"]
        self.compaction_lag_ms = values["min.compaction.lag.ms"]
        self.max_compaction_lag_ms = values["max.compaction.lag.ms"]
        self.min_cleanable_ratio = values["min.cleanable.dirty.ratio"]
        self.compact = "compact" in values["cleanup.policy"]
        self.delete = "delete" in values["cleanup.policy"]
        self.unclean_leader_election_enable = values["unclean.leader.election.enable"]
        self.min_in_sync_replicas = values["min.insync.replicas"]
        self.compression_type = values["compression.type"]
        self.preallocate = values["preallocate"]
        self.message_format_version = values["message.format.version"]
        self.message_timestamp_type = values["message.timestamp.type"]
        self.message_timestamp_difference_max_ms = values["message.timestamp.difference.max.ms"]
        self.message_down_conversion_enable = values["message.downconversion.enable"]

    # Kafka: LogConfig.randomSegmentJitter
    def random_segment_jitter(self) -> int:
        import random
        if self.segment_jitter_ms == 0:
            return 0
        return random.randrange(min(self.segment_jitter_ms, self.segment_ms))

    # Kafka: LogConfig.fromProps
    @classmethod
    def from_props(cls, defaults: dict, overrides: dict) -> "LogConfig":
        props = dict(defaults)
        props.update(overrides)
        return cls(props, set(overrides))

    # Kafka: LogConfig.configNames
    @staticmethod
    def config_names() -> list[str]:
        return sorted(LogConfigDef)

    # Kafka: LogConfig.validateNames
    @staticmethod
    def validate_names(props: dict) -> None:
        for name in props:
            if name not in LogConfigDef:
                raise InvalidConfigurationException(f"Unknown topic config name: {name}")

    # Kafka: LogConfig.validate
    @staticmethod
    def validate(props: dict, previous: dict | None = None) -> None:
        """An unknown name or a conflict between values raises InvalidConfigurationException (an ApiException,
        INVALID_CONFIG); a value that does not parse or is not allowed raises ConfigException naming the key, the
        value and what is allowed, as Kafka's ConfigDef.parse (keys in the table's order) -- each request's
        handler picks the error code. ``previous``: the topic's overrides before this change, if it has any; a
        ``message.format.version`` kafkalite does not write is refused only where it is set or changed, so a
        topic that kept an old one (see the module docstring) can still change its other configs."""
        LogConfig.validate_names(props)
        for key in LogConfigDef:
            if key in props:
                _parse(key, props[key])
        version = props.get("message.format.version")
        if version is not None and (previous is None or previous.get("message.format.version") != version):
            ensure_stored_format("message.format.version", version)
        cfg = LogConfig(props)
        if cfg.compaction_lag_ms > cfg.max_compaction_lag_ms:
            raise InvalidConfigurationException(
                f"conflict topic config setting min.compaction.lag.ms ({cfg.compaction_lag_ms}) > "
                f"max.compaction.lag.ms ({cfg.max_compaction_lag_ms})")

    def describe(self) -> list[ConfigEntry]:
        """Every config with its value and where it came from (for DescribeConfigs)."""
        entries = []
        for key in self.config_names():
            value = self.values[key]
            default = LogConfigDef[key][1]
            if key in self.overridden_configs:
                source, is_default = "DYNAMIC_TOPIC_CONFIG", False
            elif key in self.originals and convert_to_string(value) != convert_to_string(default):
                source, is_default = "STATIC_BROKER_CONFIG", False
            else:
                source, is_default = "DEFAULT_CONFIG", True
            entries.append(ConfigEntry(key, convert_to_string(value), source, is_default))
        return entries

    def __repr__(self) -> str:
        overrides = {k: self.values[k] for k in sorted(self.overridden_configs)}
        return f"LogConfig(overrides={overrides})"

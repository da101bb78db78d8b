"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/config/ConfigException.java

ConfigException -- a config value that does not parse or is not allowed, as ConfigDef's parsing and its validators
throw it. It is not an ApiException: each caller decides what a client is told. Kafka 2.4's AdminManager answers
CreateTopics with INVALID_CONFIG for it and AlterConfigs / IncrementalAlterConfigs with INVALID_REQUEST; at
start-up it stops the broker with its message (key, value and what is allowed).
"""
from __future__ import annotations

from kafkalite.common.utils import java_double_to_string


class ConfigException(Exception):
    """Kafka: org.apache.kafka.common.config.ConfigException -- ``ConfigException(name, value, message)`` reads
    "Invalid value <value> for configuration <name>: <message>"; ``ConfigException(message)`` is the message."""

    def __init__(self, name: str, value=None, message: str | None = None):
        if message is None:
            super().__init__(name)
        else:
            # Java's string concatenation prints a double as Double.toString does (1.0E10, not 10000000000.0)
            shown = java_double_to_string(value) if isinstance(value, float) else value
            super().__init__(f"Invalid value {shown} for configuration {name}: {message}")
        self.name = name
        self.value = value

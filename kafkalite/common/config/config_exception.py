"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/config/ConfigException.java

ConfigException -- a config value that does not parse or is not allowed, as ConfigDef's parsing and its validators
throw it. It is not an ApiException: each caller decides what a client is told. Kafka 2.4's AdminManager answers
CreateTopics with INVALID_CONFIG for it and AlterConfigs / IncrementalAlterConfigs with INVALID_REQUEST; at
start-up it stops the broker with its message (key, value and what is allowed).
"""
from __future__ import annotations


class ConfigException(Exception):
    """Kafka: org.apache.kafka.common.config.ConfigException -- ``ConfigException(name, value, message)`` reads
    "Invalid value <value> for configuration <name>: <message>"; ``ConfigException(message)`` is the message."""

    def __init__(self, name: str, value=None, message: str | None = None):
        if message is None:
            super().__init__(name)
        else:
            super().__init__(f"Invalid value {value} for configuration {name}: {message}")
        self.name = name
        self.value = value

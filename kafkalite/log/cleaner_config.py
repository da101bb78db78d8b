"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/CleanerConfig.scala

Classes: CleanerConfig (the settings of the log cleaner, read from the broker's ``log.cleaner.*`` keys by
``cleaner_config``, Kafka's ``LogCleaner.cleanerConfig``).

Left out: ``log.cleaner.io.max.bytes.per.second`` is read but kafkalite's cleaner does not throttle its I/O
(no Throttler); a configurable hash algorithm (always MD5).
"""
from __future__ import annotations

import attrs


@attrs.frozen
class CleanerConfig:
    """Kafka: CleanerConfig."""

    num_threads: int = 1
    dedupe_buffer_size: int = 4 * 1024 * 1024
    dedupe_buffer_load_factor: float = 0.9
    io_buffer_size: int = 1024 * 1024
    max_message_size: int = 32 * 1024 * 1024
    max_io_bytes_per_second: float = float("inf")
    back_off_ms: int = 15 * 1000
    enable_cleaner: bool = True
    hash_algorithm: str = "MD5"


# Kafka: LogCleaner.cleanerConfig -- ``config`` is a KafkaConfig (anything with ``get(key)``)
def cleaner_config(config) -> CleanerConfig:
    return CleanerConfig(
        num_threads=config.get("log.cleaner.threads"),
        dedupe_buffer_size=config.get("log.cleaner.dedupe.buffer.size"),
        dedupe_buffer_load_factor=config.get("log.cleaner.io.buffer.load.factor"),
        io_buffer_size=config.get("log.cleaner.io.buffer.size"),
        max_message_size=config.get("message.max.bytes"),
        max_io_bytes_per_second=config.get("log.cleaner.io.max.bytes.per.second"),
        back_off_ms=config.get("log.cleaner.backoff.ms"),
        enable_cleaner=config.get("log.cleaner.enable"))

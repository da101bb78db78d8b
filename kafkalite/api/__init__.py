"""Mirrors Kafka 2.4: core/src/main/scala/kafka/api/ -- the broker's protocol and message-format versions."""

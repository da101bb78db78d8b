"""Kafka's org.apache.kafka.common.security.ssl: the SSL factory, context building and principal mapping."""

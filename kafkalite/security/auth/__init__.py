"""Kafka's org.apache.kafka.common.security.auth: principals and authentication contexts."""

"""kafkalite.security: principals, principal builders and TLS (Kafka's org.apache.kafka.common.security)."""

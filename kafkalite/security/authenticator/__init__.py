"""kafkalite.security.authenticator: SASL on the broker and in kafkalite's clients (Kafka's
org.apache.kafka.common.security.authenticator, .plain.internals and .scram.internals)."""

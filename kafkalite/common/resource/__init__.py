"""No Kafka counterpart: the package of Kafka's org.apache.kafka.common.resource (resource types, pattern types,
patterns and their filters), shared by the broker's authorizer and the admin client."""

"""No Kafka counterpart: the package of Kafka's org.apache.kafka.common.config (ConfigDef's value types)."""

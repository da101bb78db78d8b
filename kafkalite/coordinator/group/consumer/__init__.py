"""No Kafka counterpart: the package of the consumer group protocol (KIP-848), Kafka 4.0's
group-coordinator/src/main/java/org/apache/kafka/coordinator/group/{modern,modern/consumer,assignor}."""

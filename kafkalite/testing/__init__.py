"""No Kafka counterpart (Kafka's tests use KafkaServerTestHarness): helpers for running kafkalite
inside your own tests. ``EmbeddedKafka`` starts a broker in-process; ``plugin`` registers the
``kafka_broker`` pytest fixture."""

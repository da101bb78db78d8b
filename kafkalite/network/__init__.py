"""The network layer: Kafka's ``kafka.network`` (core, Scala) and ``org.apache.kafka.common.network``
(clients, Java) merged into one package, as the broker's Processors and the clients' NetworkClient
share the same Selector classes (S48).
"""

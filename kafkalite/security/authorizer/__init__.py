"""Kafka's authorizers: the Authorizer interface (org.apache.kafka.server.authorizer) and AclAuthorizer
(kafka.security.authorizer)."""

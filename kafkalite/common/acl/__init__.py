"""No Kafka counterpart: the package of Kafka's org.apache.kafka.common.acl (operations, permission types, access
control entries, bindings and their filters), shared by the broker's authorizer and the admin client."""

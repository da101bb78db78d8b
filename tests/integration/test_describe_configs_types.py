"""DescribeConfigs v3/v4 (KIP-569, Kafka 2.6): every entry carries Kafka's ConfigDef type, and a line of
documentation when the client asks for it.

Which client can see what (the installed versions):
- kafka-python 3.x negotiates DescribeConfigs v4 and returns each entry's ``config_type``; its
  ``describe_configs`` has no include_documentation switch, so the documentation is asked through its own
  request class and connection manager (``include_documentation=True``).
- confluent-kafka (librdkafka 2.x) asks an older version and its ConfigEntry has no type or documentation
  attribute: it is checked for the sources and the hidden password only.
- kafkalite's own KafkaAdminClient exposes ConfigEntry.type / .documentation (Kafka 2.6's ConfigEntry).
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(60)

# kafka-python names the wire ids by Kafka's ConfigType names
BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST, PASSWORD = ("BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE",
                                                             "LIST", "PASSWORD")


def test_kafka_python_sees_kafkas_types_and_documentation(broker, unique_topic):
    from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic
    from kafka.protocol.admin import DescribeConfigsRequest
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        admin.create_topics([NewTopic(unique_topic, 1, 1, topic_configs={"retention.ms": "3600000"})])
        topic = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, unique_topic)],
                                       config_filter="all")["topic"][unique_topic]
        types = {name: entry["config_type"] for name, entry in topic.items()}
        assert types["retention.ms"] == LONG and types["segment.bytes"] == INT
        assert types["cleanup.policy"] == LIST and types["min.cleanable.dirty.ratio"] == DOUBLE
        assert types["preallocate"] == BOOLEAN and types["compression.type"] == STRING
        assert not [n for n, t in types.items() if t in (0, "UNKNOWN")]
        broker_configs = admin.describe_configs([ConfigResource(ConfigResourceType.BROKER, "0")],
                                                config_filter="all")["broker"]["0"]
        assert broker_configs["offsets.topic.replication.factor"]["config_type"] == SHORT
        assert broker_configs["auto.create.topics.enable"]["config_type"] == BOOLEAN
        assert broker_configs["ssl.keystore.password"]["config_type"] == PASSWORD
        assert broker_configs["ssl.keystore.password"]["is_sensitive"] is True

        request = DescribeConfigsRequest(resources=[(ConfigResourceType.TOPIC, unique_topic, None)],
                                         include_synonyms=True, include_documentation=True, min_version=3)
        response = admin._manager.run(admin._manager.send, request)
        [result] = response.results
        docs = {c.name: c.documentation for c in result.configs}
        assert all(docs.values()), [n for n, d in docs.items() if not d]
        assert "tombstone" in docs["delete.retention.ms"].lower()
    finally:
        admin.close()


def test_kafkalite_admin_client_type_documentation_and_hidden_password(broker_factory, tmp_path):
    from kafkalite.clients.admin.admin_client import KafkaAdminClient
    from kafkalite.clients.admin.admin_types import ConfigResource, ConfigResourceType, ConfigSource, ConfigType
    b = broker_factory({"ssl.keystore.password": "s3cret"})
    resource = ConfigResource(ConfigResourceType.BROKER, "0")
    with KafkaAdminClient({"bootstrap.servers": b.bootstrap}) as admin:
        plain = {e.name: e for e in admin.describe_configs([resource])[resource]}
        entries = {e.name: e for e in admin.describe_configs([resource], include_synonyms=True,
                                                             include_documentation=True)[resource]}
    assert plain["num.io.threads"].documentation is None           # only when asked
    assert plain["num.io.threads"].type is ConfigType.INT           # the type always
    io = entries["num.io.threads"]
    assert io.type is ConfigType.INT and "request handler threads" in io.documentation
    assert entries["log.dirs"].type is ConfigType.STRING and entries["log.dirs"].documentation
    assert entries["queued.max.request.bytes"].type is ConfigType.LONG
    password = entries["ssl.keystore.password"]
    assert password.type is ConfigType.PASSWORD and password.is_sensitive and password.value is None
    assert password.source is ConfigSource.STATIC_BROKER_CONFIG
    assert [(s.name, s.value) for s in password.synonyms] == [("ssl.keystore.password", None)]
    assert not [n for n, e in entries.items() if e.type is ConfigType.UNKNOWN or not e.documentation]


def test_confluent_kafka_sees_the_password_hidden(broker_factory):
    from confluent_kafka.admin import AdminClient, ConfigResource
    b = broker_factory({"ssl.keystore.password": "s3cret"})
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    [(_, future)] = admin.describe_configs([ConfigResource(ConfigResource.Type.BROKER, "0")]).items()
    configs = future.result(15)
    assert configs["ssl.keystore.password"].is_sensitive and configs["ssl.keystore.password"].value is None
    assert configs["num.io.threads"].value == "8" and not configs["num.io.threads"].is_sensitive

"""DescribeTopicPartitions (API 75, KIP-966, Kafka 3.7): pages of partitions with ResponsePartitionLimit,
Cursor and NextCursor, asked raw and through kafka-python's ``describe_topic_partitions``, and what
confluent-kafka's ``describe_topics`` sends (counted on the broker's request metrics)."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(90)


def _create(bootstrap, topics: dict[str, int]):
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})
    [f.result(20) for f in admin.create_topics([NewTopic(t, n, 1) for t, n in topics.items()]).values()]


def _page(conn, topics, limit, cursor=None, correlation_id=1):
    from clients import raw_request
    from kafkalite.protocol.messages import describe_topic_partitions as dtp
    return raw_request(conn, 75, 0, dtp.DescribeTopicPartitionsRequest(
        topics=[dtp.DescribeTopicPartitionsTopicRequest(name=t) for t in topics], response_partition_limit=limit,
        cursor=None if cursor is None else dtp.Cursor(topic_name=cursor[0], partition_index=cursor[1])),
        correlation_id=correlation_id)


def test_pages_follow_the_cursor_across_topics(broker, unique_topic):
    from harness import RawConnection
    a, b = unique_topic + "-a", unique_topic + "-b"
    _create(broker.bootstrap, {a: 5, b: 3})
    conn = RawConnection(broker.port)
    try:
        seen, cursor, pages = [], None, 0
        while True:
            pages += 1
            response = _page(conn, [b, a, unique_topic + "-missing"], 3, cursor, correlation_id=pages)
            for t in response.topics:
                seen += [(t.name, t.error_code, p.partition_index) for p in t.partitions] or [(t.name, t.error_code)]
                for p in t.partitions:
                    assert p.eligible_leader_replicas == [] and p.last_known_elr == []   # no ELR
                    assert p.leader_id == 0 and p.replica_nodes == [0] and p.isr_nodes == [0]
            if response.next_cursor is None:
                break
            cursor = (response.next_cursor.topic_name, response.next_cursor.partition_index)
            assert pages < 10
        # sorted by name, 3 partitions a page; the unknown topic comes last, with its error
        assert pages == 3
        assert seen == [(a, 0, i) for i in range(5)] + [(b, 0, i) for i in range(3)] + [
            (unique_topic + "-missing", 3)]

        first = _page(conn, [a, b], 3, correlation_id=20)
        assert [(c.topic_name, c.partition_index) for c in [first.next_cursor]] == [(a, 3)]
        exact = _page(conn, [a], 5, correlation_id=21)        # a page that ends with the last topic: no cursor
        assert exact.next_cursor is None and len(exact.topics[0].partitions) == 5
        full = _page(conn, [a, b], 5, correlation_id=22)      # page full at a topic boundary: cursor at b's start
        assert (full.next_cursor.topic_name, full.next_cursor.partition_index) == (b, 0)
        assert [t.name for t in full.topics] == [a]

        bad = _page(conn, [a], 3, cursor=(b, 0), correlation_id=23)   # the cursor's topic must be asked for
        assert [(t.name, t.error_code) for t in bad.topics] == [(a, 42)]
        negative = _page(conn, [a], 3, cursor=(a, -1), correlation_id=24)
        assert [(t.name, t.error_code) for t in negative.topics] == [(a, 42)]
        invalid = _page(conn, ["no spaces allowed"], 10, correlation_id=26)
        assert [(t.name, t.error_code, t.partitions) for t in invalid.topics] == [("no spaces allowed", 17, [])]
        everything = _page(conn, [], 2000, correlation_id=25)      # no names: every topic, unknown ones left out
        names = [t.name for t in everything.topics]
        assert a in names and b in names and names == sorted(names)
    finally:
        conn.close()


def test_kafka_python_pages_with_describe_topic_partitions(broker, unique_topic):
    from kafka.admin import KafkaAdminClient
    _create(broker.bootstrap, {unique_topic: 4})
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        first = admin.describe_topic_partitions([unique_topic], response_partition_limit=3)
        assert [p["partition_index"] for p in first["topics"][0]["partitions"]] == [0, 1, 2]
        assert first["next_cursor"] == {"topic_name": unique_topic, "partition_index": 3}
        rest = admin.describe_topic_partitions([unique_topic], response_partition_limit=3, cursor=first["next_cursor"])
        assert [p["partition_index"] for p in rest["topics"][0]["partitions"]] == [3]
        assert rest["next_cursor"] is None
        topic = rest["topics"][0]
        assert topic["error_code"] == 0 and not topic["is_internal"] and topic["topic_authorized_operations"] > 0
    finally:
        admin.close()


def test_confluent_kafka_describe_topics_answers_through_metadata(broker_factory, unique_topic):
    """librdkafka (confluent-kafka 2.16) describes topics with Metadata, not DescribeTopicPartitions, even though
    the broker advertises API 75: the broker's request metrics say which API it used. If a later librdkafka
    switches to API 75, this test says so (and kafkalite already answers it)."""
    import urllib.request
    from confluent_kafka import TopicCollection
    from confluent_kafka.admin import AdminClient
    from harness import free_port
    metrics_port = free_port()
    b = broker_factory({"kafkalite.metrics.port": str(metrics_port)})
    _create(b.bootstrap, {unique_topic: 3})

    def count(api):
        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith("kafka_network_requestmetrics_requestspersec_total")
                   and f'request="{api}"' in line)

    metadata_before = count("Metadata")
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    [description] = admin.describe_topics(TopicCollection([unique_topic])).values()
    result = description.result(20)
    assert [p.id for p in result.partitions] == [0, 1, 2] and result.partitions[0].leader.id == 0
    assert count("Metadata") > metadata_before
    assert count("DescribeTopicPartitions") == 0


def test_kafkalite_admin_client_describes_topics_page_by_page(broker_factory, unique_topic):
    """kafkalite's admin client (as Kafka 3.7's) describes topics with DescribeTopicPartitions when the broker has
    it, following NextCursor: 5 partitions at 2 a page are 3 requests."""
    import urllib.request
    from harness import free_port
    from kafkalite.clients.admin.admin_client import KafkaAdminClient
    metrics_port = free_port()
    b = broker_factory({"kafkalite.metrics.port": str(metrics_port)})
    _create(b.bootstrap, {unique_topic: 5})

    def count():
        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith("kafka_network_requestmetrics_requestspersec_total")
                   and 'request="DescribeTopicPartitions"' in line)

    with KafkaAdminClient({"bootstrap.servers": b.bootstrap}) as admin:
        before = count()
        description = admin.describe_topics([unique_topic], partition_size_limit_per_response=2)[unique_topic]
        after = count()
    assert [p.partition for p in description.partitions] == [0, 1, 2, 3, 4]
    assert all(p.leader.id == 0 and p.elr == () and p.last_known_elr == () for p in description.partitions)
    assert description.topic_id is not None and description.topic_id.int != 0
    assert after - before == 3


def test_without_api_75_the_admin_client_and_kafka_topics_fall_back_to_metadata(inproc_broker, unique_topic,
                                                                                 monkeypatch):
    """A broker that does not advertise DescribeTopicPartitions (any 2.x or ZooKeeper-mode 3.x Kafka): the admin
    client describes through Metadata and kafka-topics prints 2.4's lines (no TopicId, no Elr columns)."""
    from harness import run_tool
    from kafkalite.clients.admin.admin_client import KafkaAdminClient
    from kafkalite.protocol.api_keys import ApiKeys
    from kafkalite.server import kafka_apis
    monkeypatch.setattr(kafka_apis, "SERVED_APIS",
                        tuple(k for k in kafka_apis.SERVED_APIS if k is not ApiKeys.DESCRIBE_TOPIC_PARTITIONS))
    _create(inproc_broker.bootstrap, {unique_topic: 2})
    with KafkaAdminClient({"bootstrap.servers": inproc_broker.bootstrap}) as admin:
        description = admin.describe_topics([unique_topic])[unique_topic]
    assert [p.partition for p in description.partitions] == [0, 1]
    assert all(p.elr is None for p in description.partitions)
    lines = run_tool("kafka-topics", "--bootstrap-server", inproc_broker.bootstrap, "--describe",
                     "--topic", unique_topic).stdout.splitlines()
    assert lines[0].startswith(f"Topic: {unique_topic}\tPartitionCount: 2\t")
    assert lines[1:] == [f"\tTopic: {unique_topic}\tPartition: {p}\tLeader: 0\tReplicas: 0\tIsr: 0" for p in (0, 1)]

"""OffsetDelete (API 47, KIP-496, Kafka 2.4) as real clients and the tool use it: kafka-python's
``delete_group_offsets`` against a group with an active confluent-kafka consumer (GROUP_SUBSCRIBED_TO_TOPIC for
the subscribed topic, the other topic's offset deleted), ``kafka-consumer-groups --delete-offsets`` once the group
is empty (Kafka's output), GROUP_ID_NOT_FOUND for an unknown group, and a restarted broker that does not bring
the deleted offsets back (they were tombstoned in __consumer_offsets).

confluent-kafka 2.16's AdminClient has no delete_consumer_group_offsets, so it takes the consumer's part."""
from __future__ import annotations

import pytest

from harness import run_tool, wait_until

pytestmark = pytest.mark.timeout(120)


def test_delete_offsets_with_kafka_python_and_the_tool_and_restart(broker_factory, unique_topic):
    from confluent_kafka import Consumer
    from confluent_kafka.admin import AdminClient, NewTopic
    from kafka import TopicPartition as KTP
    from kafka.admin import KafkaAdminClient
    from kafka.errors import GroupIdNotFoundError, GroupSubscribedToTopicError, NoError
    from kafkalite.clients.admin.admin_client import KafkaAdminClient as LiteAdmin
    from kafkalite.common.topic_partition import TopicPartition

    b = broker_factory()
    subscribed, other, kept, group = unique_topic + "-sub", unique_topic + "-other", unique_topic + "-kept", unique_topic
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    [f.result(20) for f in admin.create_topics([NewTopic(subscribed, 2, 1), NewTopic(other, 1, 1),
                                                NewTopic(kept, 1, 1)]).values()]
    with LiteAdmin({"bootstrap.servers": b.bootstrap}) as lite:
        lite.alter_consumer_group_offsets(group, {TopicPartition(subscribed, 0): 3, TopicPartition(subscribed, 1): 4,
                                                  TopicPartition(other, 0): 5, TopicPartition(kept, 0): 6})

    consumer = Consumer({"bootstrap.servers": b.bootstrap, "group.id": group, "enable.auto.commit": False,
                         "session.timeout.ms": 6000})
    kp = KafkaAdminClient(bootstrap_servers=b.bootstrap)
    try:
        consumer.subscribe([subscribed])
        wait_until(lambda: consumer.poll(0.2) is None and len(consumer.assignment()) == 2, 30,
                   "the consumer to be assigned both partitions")
        result = kp.delete_group_offsets(group, [KTP(subscribed, 0), KTP(other, 0)])
        assert result == {KTP(subscribed, 0): GroupSubscribedToTopicError, KTP(other, 0): NoError}
        with pytest.raises(GroupIdNotFoundError):
            kp.delete_group_offsets(group + "-unknown", [KTP(other, 0)])
    finally:
        consumer.close()

    try:
        # the group is Empty now: the tool deletes both partitions of the subscribed topic
        out = run_tool("kafka-consumer-groups", "--bootstrap-server", b.bootstrap, "--delete-offsets",
                       "--group", group, "--topic", subscribed)
        lines = out.stdout.splitlines()
        assert lines[0] == f"Request succeed for deleting offsets with topic {subscribed} group {group}"
        assert lines[1:3] == ["", "%-30s %-15s %-15s" % ("TOPIC", "PARTITION", "STATUS")]
        assert lines[3:] == ["%-30s %-15s %-15s" % (subscribed, p, "Successful") for p in (0, 1)]

        refused = run_tool("kafka-consumer-groups", "--bootstrap-server", b.bootstrap, "--delete-offsets",
                           "--group", group, "--topic", f"{other}:0,7", check=False)
        rows = refused.stdout.splitlines()
        assert rows[:2] == ["", "Error: Encounter some partition level error, see the follow-up details:"]
        assert rows[-2:] == ["%-30s %-15s %-15s" % (other, 0, "Successful"),
                             "%-30s %-15s %-15s" % (other, 7, "Error: No such topic or partition on the broker.")]
        with LiteAdmin({"bootstrap.servers": b.bootstrap}) as lite:
            remaining = {(tp.topic, tp.partition): om.offset
                         for tp, om in lite.list_consumer_group_offsets(group).items()}
        assert remaining == {(kept, 0): 6}
    finally:
        kp.close()

    b.restart()
    with LiteAdmin({"bootstrap.servers": b.bootstrap}) as lite:
        after = {(tp.topic, tp.partition): om.offset for tp, om in lite.list_consumer_group_offsets(group).items()}
    assert after == {(kept, 0): 6}

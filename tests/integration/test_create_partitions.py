"""CreatePartitions end to end (KafkaApis.handle_create_partitions_request → AdminManager.create_partitions →
the topic znode → the controller's PartitionModificationsHandler → LeaderAndIsr for the new partitions)."""
from __future__ import annotations

import pytest
from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from harness import wait_until

pytestmark = pytest.mark.timeout(60)


def _result(futures):
    return {t: f.result(15) for t, f in futures.items()}


def test_added_partitions_get_leaders_and_take_records(broker, unique_topic):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    _result(admin.create_topics([NewTopic(unique_topic, 2, 1)]))
    _result(admin.create_partitions([NewPartitions(unique_topic, 5)]))

    def leaders():
        md = admin.list_topics(unique_topic, timeout=5).topics[unique_topic]
        return sorted((p.id, p.leader) for p in md.partitions.values())

    assert wait_until(lambda: leaders() == [(p, 0) for p in range(5)], timeout=15, message="5 partitions led by 0")
    producer = Producer({"bootstrap.servers": broker.bootstrap})
    delivered = []
    producer.produce(unique_topic, b"to-the-new-partition", partition=4,
                     on_delivery=lambda err, msg: delivered.append((err, msg.partition(), msg.offset())))
    assert producer.flush(15) == 0
    assert delivered == [(None, 4, 0)]


@pytest.mark.parametrize("count,message", [(2, "already has 2 partitions"), (1, "higher than the requested 1")])
def test_not_increasing_is_invalid_partitions(broker, unique_topic, count, message):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    _result(admin.create_topics([NewTopic(unique_topic, 2, 1)]))
    with pytest.raises(KafkaException) as e:
        _result(admin.create_partitions([NewPartitions(unique_topic, count)]))
    err = e.value.args[0]
    assert err.name() == "INVALID_PARTITIONS" and message in err.str()


def test_unknown_topic(broker, unique_topic):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    with pytest.raises(KafkaException) as e:
        _result(admin.create_partitions([NewPartitions(unique_topic, 3)]))
    assert e.value.args[0].name() == "UNKNOWN_TOPIC_OR_PART"


def test_validate_only_adds_nothing(broker, unique_topic):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    _result(admin.create_topics([NewTopic(unique_topic, 1, 1)]))
    _result(admin.create_partitions([NewPartitions(unique_topic, 4)], validate_only=True))
    md = admin.list_topics(unique_topic, timeout=5).topics[unique_topic]
    assert len(md.partitions) == 1

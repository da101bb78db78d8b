"""Mirrors Kafka 2.4's ReplicationQuotasTest (core/src/test/scala/unit/kafka/server/ReplicationQuotasTest.scala)
in its reassignment form, on two broker processes over Debian's ZooKeeper, driven by kafkalite's admin client
(IncrementalAlterConfigs on each broker, AlterPartitionReassignments to the controller):

- a topic on broker 0 holds ~200 KB; broker 0's ``leader.replication.throttled.rate`` and broker 1's
  ``follower.replication.throttled.rate`` are 1 byte/s and the topic's ``leader.replication.throttled.replicas``
  / ``follower.replication.throttled.replicas`` name the replicas (what ``kafka-reassign-partitions --throttle``
  sets); a reassignment adds broker 1. With ``replica.fetch.max.bytes`` at 10 KiB the first fetch goes through
  (nothing recorded yet), then the rate is over the bound for the whole sample window: the new replica stays
  far behind and out of the ISR;
- the broker rates removed, the new replica catches up and joins the ISR, and the reassignment completes;
- a negative rate is refused ("Value must be at least 0") and a malformed throttled-replica list too.
"""
import time

import pytest

from cluster_harness import ClusterProcesses, zookeeper_available
from support import wait_until

pytestmark = pytest.mark.cluster

TOPIC = "throttled"
LEADER_RATE, FOLLOWER_RATE = "leader.replication.throttled.rate", "follower.replication.throttled.rate"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    c = ClusterProcesses(tmp_path_factory.mktemp("repl-quotas"), 2, overrides={
        "replica.fetch.wait.max.ms": 100, "replica.fetch.max.bytes": 10240}).start()
    yield c
    c.stop()


@pytest.fixture
def admin(cluster):
    from kafkalite.clients.admin.admin_client import KafkaAdminClient
    client = KafkaAdminClient({"bootstrap.servers": cluster.bootstrap, "client.id": "repl-quotas-test"})
    yield client
    client.close()


def alter(admin, resource_type, name, **ops):
    """SET each key=value (DELETE for None) on one resource."""
    from kafkalite.clients.admin.admin_types import AlterConfigOp, ConfigResource, OpType
    admin.incremental_alter_configs({ConfigResource(resource_type, name): [
        AlterConfigOp(k.replace("_", "."), v, OpType.DELETE if v is None else OpType.SET) for k, v in ops.items()]})


def produce(cluster, count, size):
    from confluent_kafka import Producer
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": 1, "linger.ms": 0,
                         "batch.size": 4096})
    for i in range(count):
        producer.produce(TOPIC, b"%06d" % i + b"x" * (size - 6), partition=0)
    assert producer.flush(30) == 0


def test_a_throttled_new_replica_stays_behind_until_the_throttle_is_removed(cluster, admin):
    from kafkalite.clients.admin.admin_types import ConfigResourceType
    from kafkalite.common.topic_partition import TopicPartition
    broker, topic_type = ConfigResourceType.BROKER, ConfigResourceType.TOPIC
    alter(admin, broker, "0", **{LEADER_RATE: "1"})
    alter(admin, broker, "1", **{FOLLOWER_RATE: "1"})
    cluster.create_topic(TOPIC, [0])
    # as the tool does, through AlterConfigs: a topic's config change notification is what reaches
    # TopicConfigHandler (a topic created with these configs is throttled from the brokers' next start)
    alter(admin, topic_type, TOPIC, leader_replication_throttled_replicas="0:0",
          follower_replication_throttled_replicas="0:1")
    produce(cluster, 200, 1000)
    leader_end = cluster.log_end_offset(0, TOPIC, 0)
    assert leader_end == 200

    tp = TopicPartition(TOPIC, 0)
    assert admin.alter_partition_reassignments({tp: [0, 1]}) == {tp: None}
    wait_until(lambda: cluster.partition_dir(1, TOPIC, 0).exists() and cluster.log_end_offset(1, TOPIC, 0) > 0,
               20, "the new replica's first fetch")
    held_from = time.monotonic()
    wait_until(lambda: time.monotonic() > held_from + 3, 10, "3 s of throttled replication")
    behind = cluster.log_end_offset(1, TOPIC, 0)
    assert 0 < behind < leader_end // 2, f"the throttled replica fetched {behind} of {leader_end} records"
    assert cluster.partition_state(TOPIC, 0)["isr"] == [0]
    assert list(admin.list_partition_reassignments()[tp].adding_replicas) == [1]

    alter(admin, broker, "0", **{LEADER_RATE: None})       # the throttle removed: unlimited again
    alter(admin, broker, "1", **{FOLLOWER_RATE: None})
    cluster.wait_for_isr(TOPIC, 0, [0, 1], timeout=20)
    wait_until(lambda: admin.list_partition_reassignments() == {}, 20, "the reassignment to complete")
    assert cluster.log_batches(0, TOPIC, 0) == cluster.log_batches(1, TOPIC, 0)
    alter(admin, topic_type, TOPIC, leader_replication_throttled_replicas=None,
          follower_replication_throttled_replicas=None)


def test_bad_throttle_values_are_refused(cluster, admin):
    from kafkalite.clients.admin.admin_types import ConfigResourceType
    with pytest.raises(Exception, match=f"Invalid value -1 for configuration {LEADER_RATE}: Value must be at least 0"):
        alter(admin, ConfigResourceType.BROKER, "0", **{LEADER_RATE: "-1"})
    cluster.create_topic("bad-throttle", [0])
    with pytest.raises(Exception, match="must be the literal '\\*' or a list of replicas"):
        alter(admin, ConfigResourceType.TOPIC, "bad-throttle", leader_replication_throttled_replicas="0-0")

"""Mirrors Kafka 2.4's ReplicationQuotasTest (core/src/test/scala/unit/kafka/server/ReplicationQuotasTest.scala)
in its reassignment form, on two broker processes over Debian's ZooKeeper, driven by kafkalite's admin client
and ``bin/kafka-reassign-partitions``:

- a topic on broker 0 holds ~200 KB; ``kafka-reassign-partitions --execute --throttle 1`` adds broker 1: it sets
  ``leader.replication.throttled.rate`` / ``follower.replication.throttled.rate`` to 1 byte/s on both brokers and
  the topic's ``leader.replication.throttled.replicas`` / ``follower.replication.throttled.replicas`` ("0:0" the
  current replica, "0:1" the new one), then starts the reassignment. With ``replica.fetch.max.bytes`` at
  10 KiB the first fetch goes through (nothing recorded yet), then the rate is over the bound for the whole
  sample window: the new replica stays far behind and out of the ISR;
- the broker rates removed (IncrementalAlterConfigs), the new replica catches up and joins the ISR, the
  reassignment completes, and ``--verify`` clears the rates and the topic's lists;
- a negative rate is refused ("Value must be at least 0") and a malformed throttled-replica list too.
"""
import json
import time

import pytest

from cluster_harness import ClusterProcesses, zookeeper_available
from harness import run_tool
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


def test_a_throttled_new_replica_stays_behind_until_the_throttle_is_removed(cluster, admin, tmp_path):
    from kafkalite.clients.admin.admin_types import ConfigResource, ConfigResourceType
    from kafkalite.common.topic_partition import TopicPartition
    cluster.create_topic(TOPIC, [0])
    produce(cluster, 200, 1000)
    leader_end = cluster.log_end_offset(0, TOPIC, 0)
    assert leader_end == 200

    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": TOPIC, "partition": 0, "replicas": [0, 1]}]}))
    out = run_tool("kafka-reassign-partitions", "--bootstrap-server", cluster.bootstrap, "--execute",
                   "--reassignment-json-file", plan, "--throttle", 1).stdout.splitlines()
    assert out[-3:] == ["Warning: You must run --verify periodically, until the reassignment completes, to ensure "
                        "the throttle is removed.", "The inter-broker throttle limit was set to 1 B/s",
                        f"Successfully started partition reassignment for {TOPIC}-0"]
    topic_configs = {e.name: e.value for e in admin.describe_configs(
        [ConfigResource(ConfigResourceType.TOPIC, TOPIC)])[ConfigResource(ConfigResourceType.TOPIC, TOPIC)]
        if e.name.endswith("throttled.replicas")}
    assert topic_configs == {"leader.replication.throttled.replicas": "0:0",
                             "follower.replication.throttled.replicas": "0:1"}

    for broker in ("0", "1"):    # DescribeConfigs shows the dynamic-only rates, as Kafka 2.6 does (KAFKA-9625)
        resource = ConfigResource(ConfigResourceType.BROKER, broker)
        rates = {e.name: (e.value, e.source.name) for e in admin.describe_configs([resource])[resource]
                 if e.name in (LEADER_RATE, FOLLOWER_RATE)}
        assert rates == {LEADER_RATE: ("1", "DYNAMIC_BROKER_CONFIG"), FOLLOWER_RATE: ("1", "DYNAMIC_BROKER_CONFIG")}

    tp = TopicPartition(TOPIC, 0)
    wait_until(lambda: cluster.partition_dir(1, TOPIC, 0).exists() and cluster.log_end_offset(1, TOPIC, 0) > 0,
               20, "the new replica's first fetch")
    held_from = time.monotonic()
    wait_until(lambda: time.monotonic() > held_from + 3, 10, "3 s of throttled replication")
    behind = cluster.log_end_offset(1, TOPIC, 0)
    assert 0 < behind < leader_end // 2, f"the throttled replica fetched {behind} of {leader_end} records"
    assert cluster.partition_state(TOPIC, 0)["isr"] == [0]
    assert list(admin.list_partition_reassignments()[tp].adding_replicas) == [1]

    for broker in ("0", "1"):                              # the throttle removed: unlimited again
        alter(admin, ConfigResourceType.BROKER, broker, **{LEADER_RATE: None, FOLLOWER_RATE: None})
    cluster.wait_for_isr(TOPIC, 0, [0, 1], timeout=20)
    wait_until(lambda: admin.list_partition_reassignments() == {}, 20, "the reassignment to complete")
    assert cluster.log_batches(0, TOPIC, 0) == cluster.log_batches(1, TOPIC, 0)
    out = run_tool("kafka-reassign-partitions", "--bootstrap-server", cluster.bootstrap, "--verify",
                   "--reassignment-json-file", plan).stdout.splitlines()
    assert out == ["Status of partition reassignment:", f"Reassignment of partition {TOPIC}-0 is complete.",
                   "Clearing broker-level throttles on brokers 0,1",
                   f"Clearing topic-level throttles on topic {TOPIC}"]
    described = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, TOPIC)])
    assert {e.name: e.value for e in next(iter(described.values())) if e.name.endswith("throttled.replicas")} == {
        "leader.replication.throttled.replicas": "", "follower.replication.throttled.replicas": ""}


def test_bad_throttle_values_are_refused(cluster, admin):
    from kafkalite.clients.admin.admin_types import ConfigResourceType
    with pytest.raises(Exception, match=f"Invalid value -1 for configuration {LEADER_RATE}: Value must be at least 0"):
        alter(admin, ConfigResourceType.BROKER, "0", **{LEADER_RATE: "-1"})
    cluster.create_topic("bad-throttle", [0])
    with pytest.raises(Exception, match="must be the literal '\\*' or a list of replicas"):
        alter(admin, ConfigResourceType.TOPIC, "bad-throttle", leader_replication_throttled_replicas="0-0")

"""Mirrors Kafka 2.4's reassignment tests (``ReassignPartitionsClusterTest``, ``AdminClientIntegrationTest``'s
``testAlterPartitionReassignments`` / ``testListPartitionReassignments``; KIP-455) on three broker processes
over Debian's ZooKeeper, driven by kafka-python's admin client (AlterPartitionReassignments and
ListPartitionReassignments go to the controller):

- a partition moves from [a, b] to [b, x] while a producer writes with acks=all: while the new replica
  cannot fetch (SIGSTOP) the controller lists the move in progress (replicas [b, x, a], adding [x],
  removing [a]); once it has caught up the topic znode says [b, x], the old replica's directory is gone,
  both new replicas hold byte-identical logs and every acknowledged record reads back once;
- no partitions can be added to a topic while one of its partitions moves (REASSIGNMENT_IN_PROGRESS);
- a reassignment in progress is cancelled (replicas null): the partition is back on its origin replicas and
  the replica that was being added is deleted;
- ``bin/kafka-reassign-partitions`` does the same with Kafka's files and output: --generate proposes a plan,
  --execute starts it (printing the current assignment to roll back with), --list and --verify show it in
  progress and then complete, --cancel finds nothing left to cancel;
- the controller is killed (kill -9) in the middle of a move: the next controller finds the move in the
  topic znode (RS, AR, RR are written before anything else happens) and finishes it;
- invalid targets (duplicates, negative ids, a broker that is not alive) get INVALID_REPLICA_ASSIGNMENT,
  an unknown partition UNKNOWN_TOPIC_OR_PARTITION, cancelling nothing NO_REASSIGNMENT_IN_PROGRESS;
- 2.4's ZooKeeper route: a plan written to /admin/reassign_partitions is carried out and the znode deleted.
"""
import json

import pytest

from cluster_harness import ClusterProcesses, zookeeper_available
from harness import run_tool
from support import wait_until

pytestmark = pytest.mark.cluster

SESSION_TIMEOUT_MS = 6000


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    c = ClusterProcesses(tmp_path_factory.mktemp("reassign"), 3, overrides={
        "replica.fetch.wait.max.ms": 100, "zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS}).start()
    yield c
    c.stop()


@pytest.fixture
def admin(cluster):
    """kafka-python's admin client, connected to the controller before a test pauses another broker (its
    requests then go to the controller; it would otherwise pick any broker, perhaps the paused one, first)."""
    from kafka.admin import KafkaAdminClient
    client = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=20000)
    client.list_partition_reassignments()
    yield client
    client.close()


def roles(cluster):
    """(a, b, x): x is a broker that is not the controller (it may be paused), a and b the other two."""
    controller = cluster.controller_id()
    x = next(i for i in (2, 1, 0) if i != controller)
    a, b = [i for i in (0, 1, 2) if i != x]
    return a, b, x


def topic_znode(cluster, topic):
    data, _ = cluster.zk().get(f"/brokers/topics/{topic}")
    return json.loads(data)


def produce(cluster, topic, values):
    from confluent_kafka import Producer
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "enable.idempotence": True})
    acked = []
    for v in values:
        producer.produce(topic, v, partition=0, on_delivery=lambda err, msg: err or acked.append(msg.value()))
    assert producer.flush(30) == 0
    return acked


def read_back(cluster, topic, n):
    from kafka import KafkaConsumer, TopicPartition
    consumer = KafkaConsumer(bootstrap_servers=cluster.bootstrap, enable_auto_commit=False,
                             consumer_timeout_ms=10000)
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        values = []
        for record in consumer:
            values.append(record.value)
            if len(values) >= n:
                break
        return values
    finally:
        consumer.close()


def test_reassignment_moves_the_data_and_deletes_the_old_replica(cluster, admin):
    from kafka import TopicPartition
    a, b, x = roles(cluster)
    topic, tp = "moving", TopicPartition("moving", 0)
    cluster.create_topic(topic, [a, b])
    acked = produce(cluster, topic, [b"before-%04d" % i for i in range(300)])

    cluster.pause(x)                     # the new replica cannot fetch: the move stays in progress
    try:
        assert admin.alter_partition_reassignments({tp: [b, x]}) == {tp: None}
        ongoing = admin.list_partition_reassignments()
        assert ongoing == {tp: {"replicas": [b, x, a], "adding_replicas": [x], "removing_replicas": [a]}}
        znode = topic_znode(cluster, topic)
        assert znode["partitions"]["0"] == [b, x, a]
        assert znode["adding_replicas"] == {"0": [x]} and znode["removing_replicas"] == {"0": [a]}
        acked += produce(cluster, topic, [b"during-%04d" % i for i in range(200)])   # still served by [a, b]
    finally:
        cluster.resume(x)

    wait_until(lambda: topic_znode(cluster, topic)["partitions"]["0"] == [b, x], 30, "the reassignment to complete")
    assert topic_znode(cluster, topic)["adding_replicas"] == {} and topic_znode(cluster, topic)["removing_replicas"] == {}
    assert admin.list_partition_reassignments() == {}
    state = cluster.wait_for_isr(topic, 0, [b, x])
    assert state["leader"] in (b, x)
    wait_until(lambda: not cluster.partition_dir(a, topic, 0).exists(), 20, "the old replica's directory to go")
    acked += produce(cluster, topic, [b"after-%04d" % i for i in range(100)])
    wait_until(lambda: cluster.log_batches(b, topic, 0) == cluster.log_batches(x, topic, 0), 20,
               "byte-identical logs on the new replicas")
    assert read_back(cluster, topic, len(acked)) == acked


def test_cancelling_a_reassignment_goes_back_to_the_origin_replicas(cluster, admin):
    from kafka import TopicPartition
    from kafka.errors import ReassignmentInProgressError
    a, b, x = roles(cluster)
    topic, tp = "cancelled", TopicPartition("cancelled", 0)
    cluster.create_topic(topic, [a, b])
    acked = produce(cluster, topic, [b"c-%04d" % i for i in range(50)])
    cluster.pause(x)
    try:
        assert admin.alter_partition_reassignments({tp: [x, b]}) == {tp: None}
        assert admin.list_partition_reassignments([tp])[tp]["adding_replicas"] == [x]
        with pytest.raises(ReassignmentInProgressError):    # AdminManager.createPartitions refuses meanwhile
            admin.create_partitions({topic: 2})
        assert admin.alter_partition_reassignments({tp: None}) == {tp: None}     # cancel
        assert admin.list_partition_reassignments([tp]) == {}
    finally:
        cluster.resume(x)
    znode = topic_znode(cluster, topic)
    assert sorted(znode["partitions"]["0"]) == sorted([a, b]) and znode["adding_replicas"] == {}
    wait_until(lambda: not cluster.partition_dir(x, topic, 0).exists(), 20, "the half-made replica to be deleted")
    cluster.wait_for_isr(topic, 0, [a, b])
    assert read_back(cluster, topic, len(acked)) == acked


def test_invalid_reassignments_are_refused_with_kafkas_errors(cluster, admin):
    from kafka import TopicPartition
    from kafka.errors import (InvalidReplicationAssignmentError, NoReassignmentInProgressError,
                              UnknownTopicOrPartitionError)
    a, b, _ = roles(cluster)
    topic = "refused"
    cluster.create_topic(topic, [a, b])
    tps = {0: TopicPartition(topic, 0)}
    assert admin.alter_partition_reassignments({tps[0]: [a, a]}) == {tps[0]: InvalidReplicationAssignmentError}
    assert admin.alter_partition_reassignments({tps[0]: [a, -1]}) == {tps[0]: InvalidReplicationAssignmentError}
    assert admin.alter_partition_reassignments({tps[0]: [a, 7]}) == {tps[0]: InvalidReplicationAssignmentError}
    assert admin.alter_partition_reassignments({TopicPartition("nope", 0): [a]}) == \
        {TopicPartition("nope", 0): UnknownTopicOrPartitionError}
    assert admin.alter_partition_reassignments({tps[0]: None}) == {tps[0]: NoReassignmentInProgressError}
    assert topic_znode(cluster, topic)["partitions"]["0"] == [a, b]


def test_a_new_controller_finishes_a_reassignment_the_old_one_started(cluster, admin):
    from kafka import TopicPartition
    controller = cluster.controller_id()
    x = next(i for i in (2, 1, 0) if i != controller)
    a, b = controller, next(i for i in (0, 1, 2) if i not in (controller, x))
    topic, tp = "orphaned", TopicPartition("orphaned", 0)
    cluster.create_topic(topic, [a, b])                  # led by a, the controller
    acked = produce(cluster, topic, [b"o-%04d" % i for i in range(100)])
    cluster.pause(x)
    try:
        assert admin.alter_partition_reassignments({tp: [b, x]}) == {tp: None}
        cluster.brokers[a].kill9()                       # the controller dies with the move half done
    finally:
        cluster.resume(x)
    wait_until(lambda: cluster.controller_id() != a, SESSION_TIMEOUT_MS / 1000 + 10, "a new controller")
    wait_until(lambda: topic_znode(cluster, topic)["partitions"]["0"] == [b, x], 30,
               "the new controller to finish the reassignment")
    state = cluster.wait_for_isr(topic, 0, [b, x])
    assert state["leader"] in (b, x)
    wait_until(lambda: cluster.log_batches(b, topic, 0) == cluster.log_batches(x, topic, 0), 20,
               "byte-identical logs on the new replicas")
    assert read_back(cluster, topic, len(acked)) == acked
    cluster.brokers[a].start()


def test_kafka_reassign_partitions_tool(cluster, admin, tmp_path):
    a, b, x = roles(cluster)
    topic = "tooled"
    cluster.create_topic(topic, [a, b])
    acked = produce(cluster, topic, [b"t-%04d" % i for i in range(50)])
    # the controller alone as bootstrap: the tool's admin client then never picks the paused broker
    bootstrap = ["--bootstrap-server", cluster.brokers[cluster.controller_id()].bootstrap]

    topics_file = tmp_path / "topics.json"
    topics_file.write_text(json.dumps({"topics": [{"topic": topic}], "version": 1}))
    out = run_tool("kafka-reassign-partitions", *bootstrap, "--generate", "--topics-to-move-json-file", topics_file,
                   "--broker-list", f"{b},{x}").stdout.splitlines()
    assert out[0] == "Current partition replica assignment"
    assert json.loads(out[1]) == {"version": 1, "partitions": [
        {"topic": topic, "partition": 0, "replicas": [a, b], "log_dirs": ["any", "any"]}]}
    assert out[3] == "Proposed partition reassignment configuration"
    proposed = json.loads(out[4])["partitions"][0]
    assert sorted(proposed["replicas"]) == sorted([b, x])

    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": topic, "partition": 0, "replicas": [b, x]}]}))
    cluster.pause(x)
    try:
        out = run_tool("kafka-reassign-partitions", *bootstrap, "--execute", "--reassignment-json-file", plan).stdout
        assert out.splitlines() == [
            "Current partition replica assignment", "",
            json.dumps({"version": 1, "partitions": [{"topic": topic, "partition": 0, "replicas": [a, b],
                                                     "log_dirs": ["any", "any"]}]}, separators=(",", ":")), "",
            "Save this to use as the --reassignment-json-file option during rollback",
            f"Successfully started partition reassignment for {topic}-0"]
        listed = run_tool("kafka-reassign-partitions", *bootstrap, "--list").stdout.splitlines()
        assert listed == ["Current partition reassignments:",
                          f"{topic}-0: replicas: {b},{x},{a}. adding: {x}. removing: {a}."]
        assert run_tool("kafka-reassign-partitions", *bootstrap, "--verify", "--reassignment-json-file",
                        plan).stdout.splitlines() == ["Status of partition reassignment:",
                                                      f"Reassignment of partition {topic}-0 is still in progress."]
        again = run_tool("kafka-reassign-partitions", *bootstrap, "--execute", "--reassignment-json-file", plan,
                         check=False)
        assert again.returncode == 1 and "Use --additional to override this" in again.stdout
    finally:
        cluster.resume(x)
    wait_until(lambda: run_tool("kafka-reassign-partitions", *bootstrap, "--verify", "--reassignment-json-file",
                                plan).stdout.splitlines()[1:] == [
        f"Reassignment of partition {topic}-0 is complete.", "Clearing broker-level throttles on brokers 0,1,2",
        f"Clearing topic-level throttles on topic {topic}"], 30, "--verify to report the reassignment complete")
    assert run_tool("kafka-reassign-partitions", *bootstrap, "--list").stdout.strip() == \
        "No partition reassignments found."
    # Kafka 2.6's cancelAssignment clears the throttles too, unless --preserve-throttles
    assert run_tool("kafka-reassign-partitions", *bootstrap, "--cancel", "--reassignment-json-file",
                    plan).stdout.splitlines() == [
        "None of the specified partition reassignments are active.", "Clearing broker-level throttles on brokers 0,1,2",
        f"Clearing topic-level throttles on topic {topic}"]
    assert run_tool("kafka-reassign-partitions", *bootstrap, "--cancel", "--preserve-throttles",
                    "--reassignment-json-file", plan).stdout.strip() == \
        "None of the specified partition reassignments are active."
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 1, "partitions": [{"topic": topic, "partition": 0, "replicas": [b, 9]}]}))
    refused = run_tool("kafka-reassign-partitions", *bootstrap, "--execute", "--reassignment-json-file", bad,
                       check=False)
    assert (refused.returncode, refused.stdout.strip()) == (1, "Unknown broker id 9")
    assert read_back(cluster, topic, len(acked)) == acked


def test_a_reassignment_written_to_zookeeper_runs_and_its_znode_goes(cluster, admin):
    """2.4's ZooKeeper route (what kafka-reassign-partitions --zookeeper did): the controller watches
    /admin/reassign_partitions, moves what it lists, takes a partition it cannot move (an unknown one) out at
    once, and deletes the znode when the last partition is done; a second znode is picked up too (the watch
    is set again)."""
    a, b, x = roles(cluster)
    zk = cluster.zk()
    for round_, (topic, origin, target) in enumerate([("zk-moving", [a, b], [b, x]), ("zk-moving-2", [x, a], [a, b])]):
        cluster.create_topic(topic, origin)
        acked = produce(cluster, topic, [b"zk-%04d" % i for i in range(50)])
        partitions = [{"topic": topic, "partition": 0, "replicas": target}]
        if round_ == 0:
            partitions.append({"topic": "no-such-topic", "partition": 0, "replicas": [a]})
        zk.create("/admin/reassign_partitions", json.dumps({"version": 1, "partitions": partitions}).encode(),
                  makepath=True)
        wait_until(lambda: topic_znode(cluster, topic)["partitions"]["0"] == target, 30,
                   f"{topic}'s reassignment through ZooKeeper to complete")
        wait_until(lambda: zk.exists("/admin/reassign_partitions") is None, 20,
                   "the controller to delete /admin/reassign_partitions")
        cluster.wait_for_isr(topic, 0, target)
        assert read_back(cluster, topic, len(acked)) == acked
    assert admin.list_partition_reassignments() == {}

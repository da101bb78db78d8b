"""Mirrors Kafka 2.4's LeaderElectionCommandTest (core/src/test/scala/unit/kafka/admin/): ``bin/kafka-leader-election``
run as a user runs it, a subprocess, against a 3-broker cluster (in-process, ``kafka_cluster_factory``) whose
partitions lost their preferred leaders when a broker restarted:

- ``--topic t --partition p`` moves the leadership of p back to its preferred replica and prints Kafka's
  "Successfully completed leader election (PREFERRED) for partitions t-p";
- ``--path-to-json-file`` with a partition already led by its preferred replica and an unknown one prints
  "Valid replica already elected ..." and "Error completing leader election ..." and exits 1;
- ``--all-topic-partitions`` elects every partition that needs it;
- ``--election-type UNCLEAN`` gives a leaderless partition the live replica that is out of its ISR (where
  PREFERRED fails with PreferredLeaderNotAvailableException);
- missing or clashing flags stop the tool with Kafka's messages.
"""
from __future__ import annotations

import json
import subprocess

import pytest

from harness import REPO_ROOT
from kafkalite.common.topic_partition import TopicPartition
from support import wait_until

pytestmark = pytest.mark.timeout(120)
TOPIC = "elect"


def tool(*args) -> subprocess.CompletedProcess:
    return subprocess.run([str(REPO_ROOT / "bin" / "kafka-leader-election"), *args], capture_output=True,
                          text=True, timeout=60)


def context(cluster):
    return cluster.controller().server.kafka_controller.controller_context


def leader(cluster, p: int) -> int:
    return context(cluster).partition_leadership_info[TopicPartition(TOPIC, p)].leader_and_isr.leader


def preferred(cluster, p: int) -> int:
    return context(cluster).partition_replica_assignment(TopicPartition(TOPIC, p))[0]


def lose_preferred_leaders(cluster, victim: int) -> list[int]:
    """Restart ``victim``: controlled shutdown hands its leaderships to others, and with
    auto.leader.rebalance.enable=false nothing gives them back. Returns the partitions it lost."""
    moved = [p for p in range(3) if preferred(cluster, p) == victim]
    cluster.brokers[victim].stop()
    cluster.brokers[victim].start()
    wait_until(lambda: all(len(context(cluster).partition_leadership_info[TopicPartition(TOPIC, p)]
                               .leader_and_isr.isr) == 3 for p in range(3)), 30, "full ISRs again")
    assert moved and all(leader(cluster, p) != victim for p in moved)
    return moved


@pytest.fixture
def cluster(kafka_cluster_factory):
    from confluent_kafka.admin import AdminClient, NewTopic
    cluster = kafka_cluster_factory(3, replication_factor=3, auto_leader_rebalance_enable=False)
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic(TOPIC, 3, 3)])[TOPIC].result(10)
    wait_until(lambda: all(TopicPartition(TOPIC, p) in context(cluster).partition_leadership_info
                           for p in range(3)), 10, "leaders for every partition")
    return cluster


def test_preferred_election_of_one_partition_then_a_json_file_then_all(cluster, tmp_path):
    victim = next(b for b in range(3) if b != cluster.brokers.index(cluster.controller()))
    moved = lose_preferred_leaders(cluster, victim)
    p = moved[0]
    b = cluster.bootstrap_servers

    out = tool("--bootstrap-server", b, "--election-type", "PREFERRED", "--topic", TOPIC, "--partition", str(p))
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines() == [f"Successfully completed leader election (PREFERRED) for partitions {TOPIC}-{p}"]
    assert leader(cluster, p) == victim

    # a JSON file: the same partition again (nothing to do) and one that does not exist
    path = tmp_path / "election.json"
    path.write_text(json.dumps({"partitions": [{"topic": TOPIC, "partition": p}, {"topic": "nope", "partition": 0}]}))
    out = tool("--bootstrap-server", b, "--election-type", "preferred", "--path-to-json-file", str(path))
    assert out.returncode == 1
    assert out.stdout.splitlines() == [
        f"Valid replica already elected for partitions {TOPIC}-{p}",
        "Error completing leader election (PREFERRED) for partition: nope-0: "
        "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: The partition does not exist."]
    assert out.stderr.strip() == ('Exception in thread "main" kafka.common.AdminCommandFailedException: '
                                  "1 replica(s) could not be elected")

    # every partition of the cluster: only those that needed an election are reported
    moved = lose_preferred_leaders(cluster, victim)
    out = tool("--bootstrap-server", b, "--election-type", "PREFERRED", "--all-topic-partitions")
    assert out.returncode == 0, out.stdout + out.stderr
    partitions = ", ".join(f"{TOPIC}-{q}" for q in sorted(moved))
    assert out.stdout.splitlines() == [f"Successfully completed leader election (PREFERRED) for partitions {partitions}"]
    assert all(leader(cluster, q) == preferred(cluster, q) for q in range(3))


@pytest.mark.parametrize("args,message", [
    (["--topic", "t", "--partition", "0"], "Missing required option(s): election-type, bootstrap-server"),
    (["--bootstrap-server", "127.0.0.1:1", "--election-type", "PREFERRED"],
     "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file"),
    (["--bootstrap-server", "127.0.0.1:1", "--election-type", "PREFERRED", "--topic", "t", "--all-topic-partitions"],
     "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file"),
    (["--bootstrap-server", "127.0.0.1:1", "--election-type", "PREFERRED", "--topic", "t"],
     "Missing required option(s): partition"),
    (["--bootstrap-server", "127.0.0.1:1", "--election-type", "UNCLEAN", "--all-topic-partitions", "--partition", "1"],
     "Option partition is only allowed if topic is used"),
])
def test_bad_flags_stop_the_tool_with_kafkas_messages(args, message):
    out = tool(*args)
    assert out.returncode == 1
    assert out.stderr.strip() == f'Exception in thread "main" kafka.common.AdminCommandFailedException: {message}'


def test_unclean_election_gives_a_leaderless_partition_a_replica_outside_the_isr(kafka_cluster_factory):
    """[A, B] with B stopped (it leaves the ISR) and then A stopped: the partition has no leader, and with
    unclean.leader.election.enable off B does not lead when it comes back. ``--election-type UNCLEAN`` elects it."""
    from kafkalite.clients.admin.admin_client import KafkaAdminClient
    from kafkalite.clients.admin.admin_types import NewTopic
    cluster = kafka_cluster_factory(3, replication_factor=2, auto_leader_rebalance_enable=False,
                                    controlled_shutdown_max_retries=1)
    c = cluster.brokers.index(cluster.controller())
    a, b = [i for i in range(3) if i != c]
    with KafkaAdminClient({"bootstrap.servers": cluster.bootstrap_servers}) as admin:
        admin.create_topics([NewTopic("unclean", replica_assignments={0: [a, b]})])
    tp = TopicPartition("unclean", 0)
    ctx = cluster.controller().server.kafka_controller.controller_context

    def state():
        return ctx.partition_leadership_info[tp].leader_and_isr if tp in ctx.partition_leadership_info else None
    wait_until(lambda: state() is not None and len(state().isr) == 2, 15, "a full ISR")
    cluster.brokers[b].stop()
    wait_until(lambda: state().isr == [a], 15, f"the ISR to be [{a}]")
    cluster.brokers[a].stop()
    wait_until(lambda: state().leader == -1, 30, "the partition to have no leader")
    cluster.brokers[b].start()
    b_alive = cluster.brokers[b]

    out = tool("--bootstrap-server", b_alive.bootstrap_servers, "--election-type", "PREFERRED", "--topic", "unclean",
               "--partition", "0")
    assert out.returncode == 1 and state().leader == -1   # the preferred replica is down: no preferred election
    assert out.stdout.startswith("Error completing leader election (PREFERRED) for partition: unclean-0: "
                                 "org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: "), out.stdout

    out = tool("--bootstrap-server", b_alive.bootstrap_servers, "--election-type", "UNCLEAN", "--topic", "unclean",
               "--partition", "0")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines() == ["Successfully completed leader election (UNCLEAN) for partitions unclean-0"]
    assert state().leader == b and state().isr == [b]

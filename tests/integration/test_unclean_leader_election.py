"""Mirrors Kafka 2.4's core/src/test/.../integration/UncleanLeaderElectionTest ``testTopicUncleanLeaderElectionEnable``
and DynamicBrokerReconfigurationTest ``testUncleanLeaderElectionEnable``, on three broker processes over Debian's
ZooKeeper: two topics on the same two brokers, the brokers' ``unclean.leader.election.enable=false``. The follower
stops, then the leader; the old follower comes back, not in the ISR, and both partitions stay offline (leader
-1). Setting the first topic's ``unclean.leader.election.enable=true`` elects the old follower for that topic at
once (TopicConfigHandler → ``KafkaController.enableTopicUncleanLeaderElection``) and for that topic only; then the
controller broker's dynamic ``unclean.leader.election.enable=true`` does the same for the second
(DynamicLogConfig → ``enableDefaultUncleanLeaderElection``). No other event happens meanwhile: without those two
calls the partitions would wait for their old leader.
"""
import pytest

import clients
from cluster_harness import ClusterProcesses, zookeeper_available
from support import wait_until

pytestmark = pytest.mark.cluster


def alter(bootstrap: str, resource_type: str, name: str, key: str, value: str) -> None:
    """IncrementalAlterConfigs through confluent-kafka's AdminClient."""
    from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource
    entry = ConfigEntry(key, value, incremental_operation=AlterConfigOpType.SET)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.incremental_alter_configs([ConfigResource(resource_type, name,
                                                                  incremental_configs=[entry])]).values():
        future.result(15)


def test_enabling_unclean_election_dynamically_elects_an_out_of_sync_replica(tmp_path, unique_topic):
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    cluster = ClusterProcesses(tmp_path / "unclean", 3, overrides={
        "zookeeper.session.timeout.ms": 4000, "replica.fetch.wait.max.ms": 100,
        "unclean.leader.election.enable": "false", "min.insync.replicas": 1}).start()
    try:
        by_topic, by_default = unique_topic + "-topic", unique_topic + "-default"
        leader, follower = 1, 2
        for topic in (by_topic, by_default):
            cluster.create_topic(topic, [leader, follower])
            clients.produce_confluent(cluster.bootstrap, topic, clients.make_records(5), {"acks": "all"})
        assert cluster.brokers[follower].stop() == 0
        for topic in (by_topic, by_default):
            cluster.wait_for_isr(topic, 0, [leader])
            clients.produce_confluent(cluster.bootstrap, topic, clients.make_records(3), {"acks": "all"})
        assert cluster.brokers[leader].stop() == 0
        for topic in (by_topic, by_default):
            cluster.wait_for_leader(topic, 0, -1)
        cluster.brokers[follower].start(60)
        # the controller has handled the follower's return once the follower's metadata lists it as a live broker
        # (UpdateMetadata of onBrokerStartup, sent before the offline partitions' election is tried)
        from confluent_kafka.admin import AdminClient
        wait_until(lambda: follower in AdminClient({"bootstrap.servers": cluster.brokers[follower].bootstrap})
                   .list_topics(timeout=5).brokers, 30, "the returned follower to be a live broker again")
        for topic in (by_topic, by_default):
            state = cluster.partition_state(topic, 0)
            assert (state["leader"], state["isr"]) == (-1, [leader]), (topic, state)

        alter(cluster.bootstrap, "TOPIC", by_topic, "unclean.leader.election.enable", "true")
        state = cluster.wait_for_leader(by_topic, 0, follower, 30)
        assert state["isr"] == [follower], state
        assert cluster.leader(by_default, 0) == -1, "the topic override applies to its own topic only"

        # the controller's own dynamic broker config (the client libraries cannot name the cluster-wide default;
        # the controller reads its own config, whichever level it comes from)
        alter(cluster.bootstrap, "BROKER", str(cluster.controller_id()), "unclean.leader.election.enable", "true")
        state = cluster.wait_for_leader(by_default, 0, follower, 30)
        assert state["isr"] == [follower], state

        # both are usable again, with what the old follower had (the 3 records written without it are gone)
        for topic in (by_topic, by_default):
            got = clients.read_confluent(cluster.bootstrap, topic, [0], 5, timeout=30)
            assert len(got) == 5, (topic, got)
    finally:
        cluster.stop()

"""Mirrors Kafka 2.4's preferred-leader election tests (``PreferredReplicaLeaderElectionCommandTest``,
``AdminClientIntegrationTest.testElectPreferredLeaders``, KIP-183 / KIP-460) on in-process clusters:

- after a leader moved away (its broker restarted), confluent-kafka's and kafka-python's admin clients ask
  for a preferred-replica election (ElectLeaders) and the first assigned replica leads again; a partition
  already led by its preferred replica answers ELECTION_NOT_NEEDED; an unknown one UNKNOWN_TOPIC_OR_PARTITION;
- with ``auto.leader.rebalance.enable`` the controller's auto-leader-rebalance-task does the same on its own.
"""
from kafkalite.common.topic_partition import TopicPartition
from support import wait_until

TOPIC = "preferred"


def create_topic(cluster, partitions=3):
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic(TOPIC, partitions, 3)])[TOPIC].result(10)
    wait_until(lambda: len(leaders(cluster)) == partitions, 10, "leaders for every partition")
    return admin


def controller_context(cluster):
    return cluster.controller().server.kafka_controller.controller_context


def leaders(cluster):
    ctx = controller_context(cluster)
    return {tp.partition: lice.leader_and_isr.leader for tp, lice in ctx.partition_leadership_info.items()
            if tp.topic == TOPIC}


def preferred(cluster, p):
    return controller_context(cluster).partition_replica_assignment(TopicPartition(TOPIC, p))[0]


def move_leaderships_off(cluster, broker):
    """Restart ``broker``: its leaderships go to others (controlled shutdown) and do not come back by themselves."""
    cluster.brokers[broker].stop()
    cluster.brokers[broker].start()
    wait_until(lambda: all(len(controller_context(cluster).partition_leadership_info[TopicPartition(TOPIC, p)]
                               .leader_and_isr.isr) == 3 for p in range(3)), 30, "full ISRs again")


def test_admin_clients_elect_preferred_leaders(kafka_cluster_factory):
    cluster = kafka_cluster_factory(3, replication_factor=3, auto_leader_rebalance_enable=False)
    create_topic(cluster)
    victim = next(b for b in range(3) if b != cluster.brokers.index(cluster.controller()))
    moved = [p for p in range(3) if preferred(cluster, p) == victim]
    move_leaderships_off(cluster, victim)
    assert all(leaders(cluster)[p] != victim for p in moved)

    # every partition of the cluster (no list): only those that needed an election are reported
    from confluent_kafka import ElectionType
    from confluent_kafka import TopicPartition as CTP
    from confluent_kafka.admin import AdminClient
    confluent = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    result = confluent.elect_leaders(ElectionType.PREFERRED, None).result(15)
    assert {(tp.topic, tp.partition): err for tp, err in result.items()} == {(TOPIC, p): None for p in moved}
    assert all(leaders(cluster)[p] == preferred(cluster, p) for p in range(3))

    # named partitions, after another move: each gets its answer
    move_leaderships_off(cluster, victim)
    named = [CTP(TOPIC, p) for p in range(3)] + [CTP("nope", 0)]
    result = confluent.elect_leaders(ElectionType.PREFERRED, named).result(15)
    errors = {(tp.topic, tp.partition): (err.name() if err else None) for tp, err in result.items()}
    assert errors == {**{(TOPIC, p): None if p in moved else "ELECTION_NOT_NEEDED" for p in range(3)},
                      ("nope", 0): "UNKNOWN_TOPIC_OR_PART"}, errors
    assert all(leaders(cluster)[p] == preferred(cluster, p) for p in range(3))


def test_kafka_python_elects_preferred_leaders(kafka_cluster_factory):
    cluster = kafka_cluster_factory(3, replication_factor=3, auto_leader_rebalance_enable=False)
    create_topic(cluster)
    victim = next(b for b in range(3) if b != cluster.brokers.index(cluster.controller()))
    moved = [p for p in range(3) if preferred(cluster, p) == victim]
    move_leaderships_off(cluster, victim)
    assert moved and all(leaders(cluster)[p] != victim for p in moved)
    from kafka.admin import KafkaAdminClient
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=15000)
    try:
        response = admin.elect_leaders(0, {TOPIC: [0, 1, 2]})     # 0: preferred
    finally:
        admin.close()
    results = {(r.topic, p.partition_id): p.error_code
               for r in response.replica_election_results for p in r.partition_result}
    assert results == {(TOPIC, p): 0 if p in moved else 84 for p in range(3)}   # 84: ELECTION_NOT_NEEDED
    assert all(leaders(cluster)[p] == preferred(cluster, p) for p in range(3))


def test_auto_leader_rebalance_gives_preferred_replicas_their_leaderships_back(kafka_cluster_factory):
    cluster = kafka_cluster_factory(3, replication_factor=3, leader_imbalance_check_interval_seconds=1)
    create_topic(cluster)
    victim = next(b for b in range(3) if b != cluster.brokers.index(cluster.controller()))
    moved = [p for p in range(3) if preferred(cluster, p) == victim]
    move_leaderships_off(cluster, victim)
    wait_until(lambda: all(leaders(cluster)[p] == victim for p in moved), 30,
               "the auto-leader-rebalance-task to hand the leaderships back")

"""Mirrors Kafka 2.4's controlled-shutdown tests (core/src/test/.../ControllerIntegrationTest
``testControlledShutdown``, and the ducktape rolling-bounce test): a broker that stops asks the controller
(ControlledShutdown) to move its leaderships to other ISR members and to take it out of the ISRs it follows
first (``ControlledShutdownPartitionLeaderElectionStrategy``), so clients never find a partition without a
leader.

- in process: ``do_controlled_shutdown`` moves every leadership of the broker away and takes it out of
  every ISR before the broker stops;
- broker processes over Debian's ZooKeeper: a rolling restart of all three brokers with SIGTERM under an
  idempotent acks=all load: no error reaches the producer, nothing acknowledged is lost.
"""
import threading

import pytest

import clients
from cluster_harness import ClusterProcesses, zookeeper_available
from support import wait_until
from kafkalite.common.topic_partition import TopicPartition


def test_controlled_shutdown_moves_leaderships_and_isr_membership_first(kafka_cluster_factory):
    from confluent_kafka.admin import AdminClient, NewTopic
    cluster = kafka_cluster_factory(3, replication_factor=3, min_insync_replicas=2)
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic("moving", 6, 3)])["moving"].result(10)
    controller = cluster.controller()
    ctx = controller.server.kafka_controller.controller_context
    tps = [TopicPartition("moving", p) for p in range(6)]
    wait_until(lambda: all(tp in ctx.partition_leadership_info for tp in tps), 10, "leaders for every partition")
    victim = next(i for i, b in enumerate(cluster.brokers) if b is not controller)
    led_before = [tp for tp in tps if ctx.partition_leadership_info[tp].leader_and_isr.leader == victim]
    assert led_before, "the victim leads some partitions"
    assert cluster.brokers[victim].server.do_controlled_shutdown(1) is True
    for tp in tps:
        lai = ctx.partition_leadership_info[tp].leader_and_isr
        assert lai.leader != victim and victim not in lai.isr, (tp, lai)
    wait_until(lambda: all(not cluster.brokers[victim].server.partition("moving", tp.partition).is_leader()
                           for tp in led_before), 10, "the victim to hear it leads nothing")


LOAD_RECORDS = 200


@pytest.mark.cluster
def test_rolling_restart_under_load_loses_nothing(tmp_path):
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    from confluent_kafka import Producer
    cluster = ClusterProcesses(tmp_path / "rolling", 3, overrides={"replica.fetch.wait.max.ms": 100}).start()
    try:
        topic = "rolling"
        clients.create_topic(cluster.bootstrap, topic, 3, replication_factor=-1)
        wait_until(lambda: all(len(cluster.partition_state(topic, p)["isr"]) == 3 for p in range(3)), 30,
                   "full ISRs")
        acked, errors, running = [], [], [True]
        producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "enable.idempotence": True,
                             "linger.ms": 5, "message.timeout.ms": 120000})

        def produce():
            n = 0
            while running[0]:
                try:
                    producer.produce(topic, b"r%06d" % n, partition=n % 3, on_delivery=lambda err, msg: (
                        errors.append(err.name()) if err else acked.append(msg.value())))
                    n += 1
                except BufferError:
                    pass
                producer.poll(0.005)
            producer.flush(120)
        thread = threading.Thread(target=produce, daemon=True)
        thread.start()
        for i in range(3):
            before = len(acked)
            wait_until(lambda: len(acked) >= before + LOAD_RECORDS, 60, "acknowledged records between restarts")
            broker = cluster.brokers[i]
            started = broker.log_size()
            assert broker.stop() == 0
            assert "Controlled shutdown succeeded" in broker.log_text(started), broker.log_tail()
            broker.start(60)
            wait_until(lambda: all(len(cluster.partition_state(topic, p)["isr"]) == 3 for p in range(3)), 60,
                       f"full ISRs after restarting broker {i}")
        before = len(acked)
        wait_until(lambda: len(acked) >= before + LOAD_RECORDS, 60, "acknowledged records after the last restart")
        running[0] = False
        thread.join(150)
        assert errors == [], errors[:5]
        got = [c.value for c in clients.read_confluent(cluster.bootstrap, topic, range(3), len(acked))]
        assert len(got) == len(set(got)), "duplicates"
        assert set(acked) <= set(got), f"{len(set(acked) - set(got))} acknowledged records lost"
    finally:
        cluster.stop()

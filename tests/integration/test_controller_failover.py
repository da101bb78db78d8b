"""Mirrors Kafka 2.4's controller-failover tests (core/src/test/.../controller/ControllerIntegrationTest
``testControllerMoveIncrementsControllerEpoch`` and ``testControllerMoveOnTopicCreation`` -- whose latch on the
event thread is a SIGSTOP here -- and the ducktape ``replication_test`` with the controller as the broker that is
killed): three broker processes over Debian's ZooKeeper.

- ``kill -9`` of the controller under an acks=all load: another broker wins ``/controller`` with a higher
  ``/controller_epoch`` (``KafkaController.elect``), elects leaders for the dead broker's partitions from their
  ISRs (``onBrokerFailure``), creates a new topic, and the producer loses nothing.
- SIGSTOP of the controller until its ZooKeeper session expires: a new controller is elected and makes changes
  (new leaders, a new topic); the old one, resumed with SIGCONT, changes nothing: ``/controller``,
  ``/controller_epoch`` and every partition state znode keep what the new controller wrote, the brokers refuse
  the old controller's epoch with STALE_CONTROLLER_EPOCH, and the old controller resigns and comes back as a
  plain broker.
- SIGSTOP of the controller for less than its session timeout while an operator deletes ``/controller``: the
  woken controller still has its session and acts on a topic creation it was notified of, but its write fails
  the ``/controller_epoch`` zkVersion check (a ZooKeeper multi), so it logs ControllerMovedException and resigns.
"""
import json
import threading

import pytest

import clients
from cluster_harness import ClusterProcesses, zookeeper_available
from harness import RawConnection
from support import wait_until
from kafkalite.protocol.errors import Errors

pytestmark = pytest.mark.cluster

SESSION_TIMEOUT_MS = 4000


def start_cluster(workdir) -> ClusterProcesses:
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    # no auto leader rebalance: a preferred leader moved back by the new controller would look like the zombie's work
    return ClusterProcesses(workdir, 3, overrides={
        "zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS, "replica.fetch.wait.max.ms": 100,
        "auto.leader.rebalance.enable": "false"}).start()


def controller_epoch(cluster) -> tuple[int, int]:
    """(epoch, zkVersion) of ``/controller_epoch``."""
    data, stat = cluster.zk().get("/controller_epoch")
    return int(data), stat.version


def controller_in_metadata(bootstrap: str) -> int:
    """The controller id confluent-kafka (librdkafka) reads from a Metadata response."""
    from confluent_kafka.admin import AdminClient
    return AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).controller_id


def leaders_in_metadata(bootstrap: str, topic: str) -> dict[int, int]:
    """partition → leader as a fresh confluent-kafka client reads them from a Metadata response."""
    from confluent_kafka.admin import AdminClient
    metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic=topic, timeout=10)
    return {p: pm.leader for p, pm in metadata.topics[topic].partitions.items()}


class AcksAllLoad:
    """An idempotent acks=all confluent-kafka producer writing numbered records until stopped."""

    def __init__(self, bootstrap: str, topic: str, partitions: int):
        from confluent_kafka import Producer
        self.topic, self.partitions = topic, partitions
        self.acked: list[bytes] = []
        self.errors: list[str] = []
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                                  "linger.ms": 5, "message.timeout.ms": 90000})
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def on_delivery(self, err, msg):
        (self.errors.append(err.name()) if err else self.acked.append(msg.value()))

    def run(self):
        n = 0
        while self.running:
            try:
                self.producer.produce(self.topic, b"r%07d" % n, partition=n % self.partitions,
                                      on_delivery=self.on_delivery)
                n += 1
            except BufferError:
                pass
            self.producer.poll(0.002)
        self.producer.flush(90)

    def stop(self):
        self.running = False
        self.thread.join(120)
        assert not self.thread.is_alive(), "the producer did not finish flushing"


def test_kill_9_of_the_controller_under_load_moves_control_to_another_broker(tmp_path, unique_topic):
    cluster = start_cluster(tmp_path / "kill9-controller")
    try:
        clients.create_topic(cluster.bootstrap, unique_topic, 3, replication_factor=3)
        wait_until(lambda: all(len(cluster.partition_state(unique_topic, p)["isr"]) == 3 for p in range(3)), 30,
                   "full ISRs")
        old_controller = cluster.controller_id()
        old_epoch, _ = controller_epoch(cluster)
        led_by_old = [p for p in range(3) if cluster.leader(unique_topic, p) == old_controller]
        load = AcksAllLoad(cluster.bootstrap, unique_topic, 3)
        wait_until(lambda: len(load.acked) >= 300, 30, "acknowledged records before the kill")

        cluster.brokers[old_controller].kill9()
        survivors = [i for i in range(3) if i != old_controller]
        new_controller = wait_until(lambda: (c := cluster.controller_id()) in survivors and c, 30,
                                    "another broker to win /controller")
        new_epoch, _ = controller_epoch(cluster)
        assert new_epoch > old_epoch
        # it carries on: the dead broker's leaderships move to live ISR members, and it leaves every ISR
        for p in range(3):
            state = wait_until(lambda: (s := cluster.partition_state(unique_topic, p))["leader"] in survivors
                               and old_controller not in s["isr"] and s, 30, f"partition {p} without broker "
                               f"{old_controller}")
            if p in led_by_old:
                assert state["controller_epoch"] == new_epoch, state
        wait_until(lambda: controller_in_metadata(cluster.bootstrap) == new_controller, 30,
                   "the brokers to name the new controller in their metadata")
        wait_until(lambda: set(leaders_in_metadata(cluster.bootstrap, unique_topic).values()) <= set(survivors), 30,
                   "clients to see only live leaders")
        # ... and creates topics
        created = unique_topic + "-after"
        clients.create_topic(cluster.bootstrap, created, 2, replication_factor=2)
        for p in range(2):
            state = wait_until(lambda: cluster.partition_state(created, p), 30, f"{created}-{p} to get a leader")
            assert state["leader"] in survivors and state["controller_epoch"] == new_epoch, state
        acked_now = len(load.acked)
        wait_until(lambda: len(load.acked) >= acked_now + 300, 60, "the producer to carry on")

        cluster.brokers[old_controller].start(60)        # back as a plain broker; the controller stays
        wait_until(lambda: all(len(cluster.partition_state(unique_topic, p)["isr"]) == 3 for p in range(3)), 60,
                   "the old controller to rejoin every ISR")
        assert cluster.controller_id() == new_controller and controller_epoch(cluster)[0] == new_epoch
        load.stop()
        assert load.errors == [], load.errors[:5]
        got = [c.value for c in clients.read_confluent(cluster.bootstrap, unique_topic, range(3), len(load.acked))]
        assert len(got) == len(set(got)), "duplicates"
        assert set(load.acked) <= set(got), f"{len(set(load.acked) - set(got))} acknowledged records lost"
    finally:
        cluster.stop()


def create_topic_in_zookeeper(cluster, topic: str, assignment: dict[int, list[int]]) -> None:
    """What 2.4's ``kafka-topics --zookeeper … --create`` does (AdminZkClient): write the assignment znode and
    leave the rest to the controller, which the TopicChange watch wakes."""
    from kafkalite.zk.zk_data import TopicZNode
    cluster.zk().create(TopicZNode.path(topic), TopicZNode.encode(assignment), makepath=True)


def stale_leader_and_isr(cluster, broker: int, topic: str, partition: int, controller_id: int, epoch: int) -> int:
    """Send broker ``broker`` the LeaderAndIsr a zombie controller ``controller_id`` of ``epoch`` would send to make
    itself the leader again (a leader epoch above the current one); return the error code."""
    from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionState, LeaderAndIsrRequest
    state = cluster.partition_state(topic, partition)
    replicas = json.loads(cluster.zk().get(f"/brokers/topics/{topic}")[0])["partitions"][str(partition)]
    ps = LeaderAndIsrPartitionState(topic_name=topic, partition_index=partition, controller_epoch=epoch,
                                    leader=controller_id, leader_epoch=state["leader_epoch"] + 1,
                                    isr=[controller_id], zk_version=1000, replicas=replicas)
    broker_epoch = cluster.zk().get(f"/brokers/ids/{broker}")[1].czxid
    request = LeaderAndIsrRequest.build(4, [ps], controller_id=controller_id, controller_epoch=epoch,
                                        broker_epoch=broker_epoch, live_leaders=[])
    conn = RawConnection(cluster.brokers[broker].port)
    try:
        return clients.raw_request(conn, 4, 4, request, correlation_id=1).error_code
    finally:
        conn.sock.close()


def test_a_paused_controller_resumed_after_its_session_expired_changes_nothing(tmp_path, unique_topic):
    cluster = start_cluster(tmp_path / "zombie-controller")
    try:
        clients.create_topic(cluster.bootstrap, unique_topic, 3, replication_factor=3)
        wait_until(lambda: all(len(cluster.partition_state(unique_topic, p)["isr"]) == 3 for p in range(3)), 30,
                   "full ISRs")
        zombie = cluster.controller_id()
        old_epoch, old_epoch_version = controller_epoch(cluster)
        led_by_zombie = [p for p in range(3) if cluster.leader(unique_topic, p) == zombie]
        zombie_log = cluster.brokers[zombie].log_size()

        cluster.pause(zombie)
        # While it sleeps, a topic is created the ZooKeeper way: the TopicChange notification waits, unread, in the
        # zombie's socket until it wakes -- a change it will try to act on with its old epoch.
        created = unique_topic + "-while-paused"
        create_topic_in_zookeeper(cluster, created, {0: [zombie, (zombie + 1) % 3, (zombie + 2) % 3]})
        survivors = [i for i in range(3) if i != zombie]
        new_controller = wait_until(lambda: (c := cluster.controller_id()) in survivors and c,
                                    SESSION_TIMEOUT_MS / 1000 + 30, "a new controller after the session expired")
        new_epoch, _ = controller_epoch(cluster)
        assert new_epoch == old_epoch + 1
        # the new controller makes changes: leaders away from the silent broker, the new topic's partition
        for p in range(3):
            wait_until(lambda: (s := cluster.partition_state(unique_topic, p))["leader"] in survivors
                       and zombie not in s["isr"], 30, f"{unique_topic}-{p} to be led without broker {zombie}")
        created_state = wait_until(lambda: cluster.partition_state(created, 0), 30, f"{created}-0 to get a leader")
        assert created_state["leader"] in survivors and created_state["controller_epoch"] == new_epoch
        wait_until(lambda: controller_in_metadata(cluster.brokers[survivors[0]].bootstrap) == new_controller, 30,
                   "the brokers to name the new controller")

        # the brokers already refuse what the zombie would send them
        for b in survivors:
            assert stale_leader_and_isr(cluster, b, unique_topic, 0, zombie, old_epoch) == \
                Errors.STALE_CONTROLLER_EPOCH.code

        states_before = {p: cluster.partition_state(unique_topic, p) for p in range(3)}
        created_before = cluster.partition_state(created, 0)
        cluster.resume(zombie)
        # it notices its session is gone, resigns, and registers again as a plain broker
        wait_until(lambda: "Resigned" in cluster.brokers[zombie].log_text(zombie_log), 60,
                   "the old controller to resign")
        wait_until(lambda: cluster.zk().exists(f"/brokers/ids/{zombie}"), 60, "the old controller to re-register")
        # ... and is back in every ISR as a follower of the new leaders
        wait_until(lambda: all(len(cluster.partition_state(unique_topic, p)["isr"]) == 3 for p in range(3)), 60,
                   "the old controller to rejoin the ISRs")
        wait_until(lambda: len(cluster.partition_state(created, 0)["isr"]) == 3, 60,
                   f"the old controller to join {created}-0's ISR")

        # nothing the zombie did stuck: /controller, /controller_epoch and every state znode are the new
        # controller's; the leaders it lost stay lost (no write of its epoch, no leader epoch bump by it)
        assert cluster.controller_id() == new_controller
        assert controller_epoch(cluster)[0] == new_epoch
        assert controller_epoch(cluster)[1] == old_epoch_version + 1
        for p in range(3):
            state = cluster.partition_state(unique_topic, p)
            assert state["controller_epoch"] == new_epoch or state == states_before[p], (p, state)
            assert state["leader"] == states_before[p]["leader"], (p, state, states_before[p])
            assert state["leader_epoch"] == states_before[p]["leader_epoch"], (p, state, states_before[p])
        state = cluster.partition_state(created, 0)
        assert state["controller_epoch"] == new_epoch
        assert (state["leader"], state["leader_epoch"]) == (created_before["leader"], created_before["leader_epoch"])
        wait_until(lambda: set(leaders_in_metadata(cluster.bootstrap, unique_topic).values()) <= set(survivors), 30,
                   "clients to see only live leaders")
        wait_until(lambda: controller_in_metadata(cluster.brokers[zombie].bootstrap) == new_controller, 30,
                   "the old controller's broker to name the new controller")
        for p in led_by_zombie:
            assert cluster.leader(unique_topic, p) != zombie
        # the old controller's epoch is refused by every broker, the resumed one included
        for b in range(3):
            assert stale_leader_and_isr(cluster, b, unique_topic, 0, zombie, old_epoch) == \
                Errors.STALE_CONTROLLER_EPOCH.code

        # and the cluster still works end to end
        records = clients.make_records(50)
        clients.produce_confluent(cluster.bootstrap, created, records)
        got = clients.read_confluent(cluster.bootstrap, created, [0], 50, timeout=30)
        assert [c.value for c in got] == [r.value for r in records]
    finally:
        cluster.stop()


def test_a_paused_controller_that_kept_its_session_is_fenced_by_the_epoch_znode_version(tmp_path, unique_topic):
    """The zombie a session expiry does not catch: while the controller sleeps (for less than its session timeout)
    an operator deletes ``/controller`` and another broker takes over. Woken, the old controller still believes it
    is active and acts on the topic creation it was notified of while asleep -- its session is valid, so only the
    check on ``/controller_epoch``'s version in each of its writes (a ZooKeeper multi) stops it. It then sees
    ``/controller`` name another broker and resigns."""
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    cluster = ClusterProcesses(tmp_path / "fenced-zombie", 3, overrides={
        "zookeeper.session.timeout.ms": 20000, "replica.fetch.wait.max.ms": 100,
        "auto.leader.rebalance.enable": "false"}).start()
    try:
        zombie = cluster.controller_id()
        old_epoch, old_epoch_version = controller_epoch(cluster)
        zombie_log = cluster.brokers[zombie].log_size()
        cluster.pause(zombie)
        # first the topic (the zombie, as controller, watches /brokers/topics), then the controller move (it
        # watches /controller): it will read the two notifications in this order when it wakes
        created = unique_topic + "-while-paused"
        create_topic_in_zookeeper(cluster, created, {0: [zombie, (zombie + 1) % 3, (zombie + 2) % 3],
                                                     1: [(zombie + 1) % 3, zombie, (zombie + 2) % 3]})
        cluster.zk().delete("/controller")
        survivors = [i for i in range(3) if i != zombie]
        new_controller = wait_until(lambda: (c := cluster.controller_id()) in survivors and c, 15,
                                    "another broker to take /controller")
        assert controller_epoch(cluster)[0] == old_epoch + 1
        states = {p: wait_until(lambda: cluster.partition_state(created, p), 15, f"{created}-{p} to get a leader")
                  for p in range(2)}
        assert all(s["controller_epoch"] == old_epoch + 1 for s in states.values()), states
        assert cluster.zk().exists(f"/brokers/ids/{zombie}"), "the zombie's session must still be alive"
        cluster.resume(zombie)

        wait_until(lambda: "Resigned" in cluster.brokers[zombie].log_text(zombie_log), 30,
                   "the old controller to resign")
        text = cluster.brokers[zombie].log_text(zombie_log)
        assert "Controller epoch zkVersion check fails" in text, cluster.brokers[zombie].log_tail(80)
        assert "successfully elected" not in text
        # the zombie wrote nothing: the epoch znode, /controller and the state znodes are the new controller's
        assert controller_epoch(cluster) == (old_epoch + 1, old_epoch_version + 1)
        assert cluster.controller_id() == new_controller
        for p in range(2):
            wait_until(lambda: len(cluster.partition_state(created, p)["isr"]) == 3, 30,
                       f"every replica of {created}-{p} in its ISR")
            state = cluster.partition_state(created, p)
            assert state["controller_epoch"] == old_epoch + 1, state
            assert (state["leader"], state["leader_epoch"]) == (states[p]["leader"], states[p]["leader_epoch"]), \
                (state, states[p])
        wait_until(lambda: controller_in_metadata(cluster.brokers[zombie].bootstrap) == new_controller, 30,
                   "the old controller's broker to name the new controller")
        records = clients.make_records(20, partitions=2)
        clients.produce_confluent(cluster.bootstrap, created, records)
        got = clients.read_confluent(cluster.bootstrap, created, [0, 1], 20, timeout=30)
        assert sorted(c.value for c in got) == sorted(r.value for r in records)
    finally:
        cluster.stop()

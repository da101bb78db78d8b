"""Kafka's KafkaZkClientTest, the parts kafkalite uses, against the in-process LocalZooKeeper.

Every test takes ``zk_factory`` (a new KafkaZkClient, each with its own session, all on one store), so
tests/integration/test_kazoo_backend.py re-runs the ``BACKEND_NEUTRAL`` ones against a real ZooKeeper.
"""
import json
import os

import pytest

from support import RecordingWatcher

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import ControllerMovedException
from kafkalite.zk.kafka_zk_client import KafkaZkClient
from kafkalite.zk.zk_data import (
    BrokerInfo, ConfigType, LeaderAndIsr, LeaderIsrAndControllerEpoch, TopicPartitionStateZNode, ZkData,
)
from kafkalite.zookeeper.local_zoo_keeper import LocalZooKeeper
from kafkalite.zookeeper.zoo_keeper_client import (
    Code, GetDataRequest, KeeperException, SetDataRequest,
)

TIMEOUT = 10


@pytest.fixture
def zk_factory():
    store = LocalZooKeeper.open(None)
    clients = []

    def make() -> KafkaZkClient:
        zk = KafkaZkClient.create("embedded", backend=store)
        clients.append(zk)
        return zk

    yield make
    for c in clients:
        c.close()
    store.close()


def raw(zk: KafkaZkClient, path: str):
    r = zk.zoo_keeper_client.handle_request(GetDataRequest(path))
    assert r.result_code == Code.OK, path
    return r.data, r.stat


def broker_info(broker_id, port=9092, rack=None):
    return BrokerInfo(broker_id, (f"PLAINTEXT://localhost:{port}", f"CONTROLLER://localhost:{port + 1}"),
                      {"PLAINTEXT": "PLAINTEXT", "CONTROLLER": "PLAINTEXT"}, rack=rack)


def test_register_broker_json_and_epoch(zk_factory):
    zk = zk_factory()
    zk.create_top_level_paths()
    epoch0 = zk.register_broker(broker_info(0, rack="r1"))
    epoch1 = zk.register_broker(broker_info(1, port=9192))
    data, stat = raw(zk, "/brokers/ids/0")
    assert stat.czxid == epoch0 < epoch1
    assert stat.ephemeral_owner == zk.session_id
    js = json.loads(data)
    assert list(js) == ["listener_security_protocol_map", "endpoints", "rack", "jmx_port", "host", "timestamp",
                        "port", "version"]
    assert js["version"] == 4 and js["host"] == "localhost" and js["port"] == 9092 and js["jmx_port"] == -1
    assert js["endpoints"] == ["PLAINTEXT://localhost:9092", "CONTROLLER://localhost:9093"]
    assert js["listener_security_protocol_map"] == {"PLAINTEXT": "PLAINTEXT", "CONTROLLER": "PLAINTEXT"}
    assert js["rack"] == "r1" and js["timestamp"].isdigit()
    assert b" " not in data
    assert "rack" not in json.loads(raw(zk, "/brokers/ids/1")[0])
    brokers = zk.get_all_broker_and_epochs_in_cluster()
    assert [(b.id, e) for b, e in brokers.items()] == [(0, epoch0), (1, epoch1)]
    assert zk.get_broker(1).endpoint("CONTROLLER") == ("localhost", 9193)
    assert zk.get_broker(7) is None
    # a second registration of the same id from another session is refused
    other = zk_factory()
    with pytest.raises(KeeperException) as e:
        other.register_broker(broker_info(0))
    assert e.value.code == Code.NODEEXISTS


def test_broker_registration_vanishes_with_session_and_child_watch_fires(zk_factory):
    controller, broker = zk_factory(), zk_factory()
    controller.create_top_level_paths()
    handler = RecordingWatcher("/brokers/ids", TIMEOUT)
    controller.register_znode_child_change_handler(handler)
    assert controller.get_sorted_broker_list() == []  # arms the child watch
    broker.register_broker(broker_info(5))
    assert handler.next() == "children"
    assert controller.get_sorted_broker_list() == [5]  # re-arms
    broker.close()
    assert handler.next() == "children"
    assert controller.get_sorted_broker_list() == []


def test_controller_election(zk_factory):
    a, b = zk_factory(), zk_factory()
    a.create_top_level_paths()
    assert a.get_controller_id() is None
    assert a.register_controller_and_increment_controller_epoch(1) == (1, 1)
    data, _ = raw(a, "/controller")
    js = json.loads(data)
    assert list(js) == ["version", "brokerid", "timestamp"] and js["brokerid"] == 1 and js["version"] == 1
    assert raw(a, "/controller_epoch")[0] == b"1"
    with pytest.raises(ControllerMovedException):
        b.register_controller_and_increment_controller_epoch(2)
    assert b.get_controller_id() == 1
    epoch, stat = b.get_controller_epoch()
    assert (epoch, stat.version) == (1, 1)

    # b watches /controller as KafkaController does, and re-elects when it goes away
    handler = RecordingWatcher("/controller", TIMEOUT)
    assert b.register_znode_change_handler_and_check_existence(handler) is True
    a.close()
    assert handler.next() == "deleted"
    assert b.register_controller_and_increment_controller_epoch(2) == (2, 2)
    assert b.get_controller_id() == 2


def test_zombie_controller_writes_are_fenced(zk_factory):
    a, b = zk_factory(), zk_factory()
    a.create_top_level_paths()
    _, old_version = a.register_controller_and_increment_controller_epoch(1)
    a.delete_controller(old_version)
    _, new_version = b.register_controller_and_increment_controller_epoch(2)
    assert new_version == old_version + 1
    a.create_topic_assignment("t", {0: [1]})
    tp = TopicPartition("t", 0)
    with pytest.raises(ControllerMovedException):
        a.create_topic_partition_states_raw({tp: LeaderIsrAndControllerEpoch(LeaderAndIsr.initial(1, [1]), 1)},
                                            old_version)
    assert a.get_topic_partition_states([tp]) == {}
    with pytest.raises(ControllerMovedException):
        a.delete_controller(old_version)
    assert a.get_controller_id() == 2


def test_topic_assignment_round_trip(zk_factory):
    zk = zk_factory()
    zk.create_top_level_paths()
    topic_id = zk.create_topic_assignment("orders", {1: [2, 0], 0: [0, 1]})
    assert len(topic_id) == 22
    data, _ = raw(zk, "/brokers/topics/orders")
    assert data == (b'{"version":2,"partitions":{"0":[0,1],"1":[2,0]},"adding_replicas":{},'
                    b'"removing_replicas":{},"topic_id":"' + topic_id.encode() + b'"}')
    assert zk.topic_exists("orders") and not zk.topic_exists("nope")
    assert zk.get_all_topics_in_cluster() == {"orders"}
    assert zk.get_replica_assignment_for_topics(["orders", "nope"]) == {
        TopicPartition("orders", 0): [0, 1], TopicPartition("orders", 1): [2, 0]}
    assert zk.get_partition_assignment_for_topic("orders") == {0: [0, 1], 1: [2, 0]}
    zk.set_topic_assignment("orders", {0: [0, 1], 1: [2, 0], 2: [1, 2]})
    assert zk.get_partition_assignment_for_topics(["orders"]) == {"orders": {0: [0, 1], 1: [2, 0], 2: [1, 2]}}
    assert zk.get_topic_ids_for_topics(["orders"]) == {"orders": topic_id}  # kept across set
    with pytest.raises(KeeperException):
        zk.create_topic_assignment("orders", {0: [0]})


def test_partition_state_round_trip_and_conditional_isr_update(zk_factory):
    zk = zk_factory()
    zk.create_top_level_paths()
    _, epoch_version = zk.register_controller_and_increment_controller_epoch(0)
    zk.create_topic_assignment("t", {0: [0, 1], 1: [1, 0]})
    tp0, tp1 = TopicPartition("t", 0), TopicPartition("t", 1)
    states = {tp0: LeaderIsrAndControllerEpoch(LeaderAndIsr.initial(0, [0, 1]), 1),
              tp1: LeaderIsrAndControllerEpoch(LeaderAndIsr.initial(1, [1, 0]), 1)}
    responses = zk.create_topic_partition_states_raw(states, epoch_version)
    assert [(r.ctx, r.result_code) for r in responses] == [(tp0, Code.OK), (tp1, Code.OK)]
    assert raw(zk, TopicPartitionStateZNode.path(tp0))[0] == \
        b'{"controller_epoch":1,"leader":0,"version":1,"leader_epoch":0,"isr":[0,1]}'
    assert zk.get_topic_partition_states([tp0, tp1]) == states

    shrunk = LeaderAndIsr(0, 1, [0], 0)
    result = zk.update_leader_and_isr({tp0: shrunk}, 1, epoch_version)
    assert result.partitions_to_retry == [] and result.finished_partitions[tp0] == shrunk.with_zk_version(1)
    assert zk.get_topic_partition_state(tp0).leader_and_isr == LeaderAndIsr(0, 1, [0], 1)
    # a stale zkVersion (someone else updated the state node) must be retried, not written
    stale = LeaderAndIsr(1, 2, [1], 0)
    result = zk.update_leader_and_isr({tp0: stale}, 1, epoch_version)
    assert result.partitions_to_retry == [tp0] and result.finished_partitions == {}
    assert zk.get_topic_partition_state(tp0).leader_and_isr.leader == 0
    # creating an existing state node reports NODEEXISTS per partition
    again = zk.create_topic_partition_states_raw({tp1: states[tp1]}, epoch_version)
    assert again[0].result_code == Code.NODEEXISTS


def test_topic_deletion_paths(zk_factory):
    zk = zk_factory()
    zk.create_top_level_paths()
    zk.create_topic_assignment("gone", {0: [0]})
    zk.create_topic_partition_states_raw(
        {TopicPartition("gone", 0): LeaderIsrAndControllerEpoch(LeaderAndIsr.initial(0, [0]), 1)}, -1)
    zk.create_delete_topic_path("gone")
    assert zk.get_topic_deletions() == ["gone"] and zk.is_topic_marked_for_deletion("gone")
    zk.delete_topic_z_node("gone")
    zk.delete_topic_deletions(["gone"])
    assert zk.get_topic_deletions() == [] and not zk.topic_exists("gone")
    assert zk.get_all_topics_in_cluster() == set()


def test_entity_configs_and_change_notifications(zk_factory):
    zk = zk_factory()
    zk.create_top_level_paths()
    assert zk.get_entity_configs(ConfigType.TOPIC, "t") == {}
    zk.set_or_create_entity_configs(ConfigType.TOPIC, "t", {"retention.ms": "1000"})
    assert raw(zk, "/config/topics/t")[0] == b'{"version":1,"config":{"retention.ms":"1000"}}'
    zk.set_or_create_entity_configs(ConfigType.TOPIC, "t", {"cleanup.policy": "compact"})
    assert zk.get_entity_configs(ConfigType.TOPIC, "t") == {"cleanup.policy": "compact"}
    zk.set_or_create_entity_configs(ConfigType.BROKER, "<default>", {"log.retention.ms": "5"})
    assert zk.get_all_entities_with_config(ConfigType.BROKER) == ["<default>"]
    first = zk.create_config_change_notification("topics/t")
    second = zk.create_config_change_notification("topics/t")
    assert first.startswith("/config/changes/config_change_") and len(first.rsplit("_", 1)[1]) == 10
    assert second > first
    assert raw(zk, first)[0] == b'{"version":2,"entity_path":"topics/t"}'


def test_cluster_id_and_isr_change_notifications(zk_factory):
    a, b = zk_factory(), zk_factory()
    a.create_top_level_paths()
    cluster_id = a.get_or_create_cluster_id()
    assert len(cluster_id) == 22 and b.get_or_create_cluster_id("other") == cluster_id
    assert raw(a, "/cluster/id")[0] == b'{"version":"1","id":"' + cluster_id.encode() + b'"}'
    handler = RecordingWatcher("/isr_change_notification", TIMEOUT)
    a.register_znode_child_change_handler(handler)
    assert a.get_all_isr_change_notifications() == []
    b.propagate_isr_changes([TopicPartition("t", 0), TopicPartition("t", 1)])
    assert handler.next() == "children"
    seqs = a.get_all_isr_change_notifications()
    assert len(seqs) == 1 and len(seqs[0]) == 10
    assert a.get_partitions_from_isr_change_notifications(seqs) == {TopicPartition("t", 0), TopicPartition("t", 1)}
    a.delete_isr_change_notifications(seqs)
    assert a.get_all_isr_change_notifications() == []


def test_log_dir_event_notifications(zk_factory):
    # Kafka: KafkaZkClientTest.testLogDirEventNotificationsDeletion and its getters
    a, b = zk_factory(), zk_factory()
    a.create_top_level_paths()
    handler = RecordingWatcher("/log_dir_event_notification", TIMEOUT)
    a.register_znode_child_change_handler(handler)
    assert a.get_all_log_dir_event_notifications() == []
    first = b.propagate_log_dir_event(3)
    assert handler.next() == "children"
    b.propagate_log_dir_event(4)
    assert first.startswith("/log_dir_event_notification/log_dir_event_")
    assert json.loads(raw(a, first)[0]) == {"version": 1, "broker": 3, "event": 1}
    seqs = a.get_all_log_dir_event_notifications()
    assert len(seqs) == 2 and all(len(s) == 10 for s in seqs)
    assert a.get_broker_ids_from_log_dir_events(seqs) == [3, 4]
    a.delete_log_dir_event_notifications(seqs[:1])
    assert a.get_all_log_dir_event_notifications() == seqs[1:]
    a.delete_log_dir_event_notifications()
    assert a.get_all_log_dir_event_notifications() == []


def test_data_change_handler_rearms_through_reads(zk_factory):
    a, b = zk_factory(), zk_factory()
    a.create_top_level_paths()
    a.set_or_create_entity_configs(ConfigType.TOPIC, "w", {"a": "1"})
    handler = RecordingWatcher("/config/topics/w", TIMEOUT)
    assert b.register_znode_change_handler_and_check_existence(handler) is True
    a.set_or_create_entity_configs(ConfigType.TOPIC, "w", {"a": "2"})
    assert handler.next() == "changed"
    b.zoo_keeper_client.handle_request(GetDataRequest("/config/topics/w"))  # re-arm as a handler would
    a.zoo_keeper_client.handle_request(SetDataRequest("/config/topics/w", b"{}"))
    assert handler.next() == "changed"


BACKEND_NEUTRAL = [
    test_register_broker_json_and_epoch, test_broker_registration_vanishes_with_session_and_child_watch_fires,
    test_controller_election, test_zombie_controller_writes_are_fenced, test_topic_assignment_round_trip,
    test_partition_state_round_trip_and_conditional_isr_update, test_topic_deletion_paths,
    test_entity_configs_and_change_notifications, test_cluster_id_and_isr_change_notifications,
    test_log_dir_event_notifications,
    test_data_change_handler_rearms_through_reads,
]


def test_embedded_store_persists_topics_across_restart(tmp_path):
    zk = KafkaZkClient.create("", data_dir=str(tmp_path))
    zk.create_top_level_paths()
    zk.register_broker(broker_info(0))
    zk.create_topic_assignment("kept", {0: [0]})
    zk.close()
    zk2 = KafkaZkClient.create("embedded", data_dir=str(tmp_path))
    assert zk2.get_partition_assignment_for_topic("kept") == {0: [0]}
    assert zk2.get_all_brokers_in_cluster() == []  # ephemeral registration did not survive
    zk2.close()


def test_broker_sequence_ids_increase(tmp_path):
    """Kafka: KafkaZkClient.generateBrokerSequenceId -- brokers with broker.id=-1 each get the next number."""
    from kafkalite.zk.kafka_zk_client import KafkaZkClient
    client = KafkaZkClient.create("", 6000, str(tmp_path))
    try:
        client.create_top_level_paths()
        ids = [client.generate_broker_sequence_id() for _ in range(3)]
        assert ids == [ids[0], ids[0] + 1, ids[0] + 2] and ids[0] >= 1
    finally:
        client.close()


def test_reassign_partitions_znode_is_2_4s_json_and_bad_data_reads_as_none():
    from kafkalite.common.topic_partition import TopicPartition
    from kafkalite.zk.zk_data import ReassignPartitionsZNode
    reassignment = {TopicPartition("t", 0): [1, 2], TopicPartition("t", 3): [2]}
    data = ReassignPartitionsZNode.encode(reassignment)
    assert data == (b'{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]},'
                    b'{"topic":"t","partition":3,"replicas":[2]}]}')
    assert ReassignPartitionsZNode.decode(data) == reassignment
    assert ReassignPartitionsZNode.decode(b"not json") == {} and ReassignPartitionsZNode.decode(None) == {}


def test_create_top_level_paths_is_one_group_commit_on_a_fresh_store(tmp_path, monkeypatch):
    """Issue 18: the ~20 top-level znodes of a fresh ZooKeeper go in one pipelined batch, which the embedded store
    fsyncs once (not once per path); a second call finds them all and writes nothing."""
    store = LocalZooKeeper.open(str(tmp_path))
    zk = KafkaZkClient.create("embedded", backend=store)
    fsyncs = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (fsyncs.append(fd), real_fsync(fd)))
    try:
        zk.create_top_level_paths()
        assert len(fsyncs) == 1
        for path in ZkData.PERSISTENT_ZK_PATHS:
            assert zk.path_exists(path), path
        zxid = store.zxid
        zk.create_top_level_paths()
        assert len(fsyncs) == 1 and store.zxid == zxid
    finally:
        monkeypatch.undo()
        zk.close()
        store.close()


def test_top_level_paths_fall_back_to_kafkas_one_by_one_creates_when_the_batch_is_refused(zk_factory, monkeypatch):
    """The batch creates every parent too; a parent this client may not create under (NOAUTH from an ACL'd
    chroot) must not fail a start whose paths exist: Kafka's makeSurePersistentPathExists decides then."""
    import types
    zk = zk_factory()
    zk.create_top_level_paths()
    real = zk._retry_all

    def refused_parent(requests, *args, **kwargs):
        responses = real(requests, *args, **kwargs)
        return [types.SimpleNamespace(result_code=Code.NOAUTH) if req.path == "/brokers" else resp
                for req, resp in zip(requests, responses)]
    monkeypatch.setattr(zk, "_retry_all", refused_parent)
    zk.create_top_level_paths()          # falls back, finds every path there, raises nothing
    assert raw(zk, "/brokers/ids")[1] is not None

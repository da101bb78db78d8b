"""No Kafka counterpart (Kafka fences these with ClusterAction ACLs, KIP-380's broker epoch and the
controller epoch): control requests forged by a plain client change nothing.

A client sends LEADER_AND_ISR, UPDATE_METADATA, STOP_REPLICA and CONTROLLED_SHUTDOWN frames, at their oldest and newest
versions, claiming to come from a controller with epoch 4096 (or this broker's own id as controller
id), carrying a made-up broker epoch where the version has one, and asking to move an existing topic's
leader away, mark it leaderless, or delete its partition. The broker answers STALE_CONTROLLER_EPOCH
or STALE_BROKER_EPOCH and keeps listening to its real controller: the existing topic keeps its leader
and its records, and a topic created afterwards gets a leader at once.
"""
import pytest

import clients
from harness import RawConnection
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionState, LeaderAndIsrRequest
from kafkalite.protocol.messages.stop_replica import (StopReplicaPartitionV0, StopReplicaRequest,
                                                      StopReplicaTopic)
from kafkalite.protocol.messages.update_metadata import UpdateMetadataPartitionState, UpdateMetadataRequest

FORGED_EPOCH = 4096
FORGED_BROKER_EPOCH = 1 << 40
REFUSED = {Errors.STALE_CONTROLLER_EPOCH.code, Errors.STALE_BROKER_EPOCH.code}


def leader_and_isr(version, topic, controller_id):
    state = LeaderAndIsrPartitionState(topic_name=topic, partition_index=0, controller_epoch=FORGED_EPOCH,
                                       leader=7, leader_epoch=1000, isr=[7], zk_version=1000, replicas=[7, 0])
    return LeaderAndIsrRequest.build(version, [state], controller_id=controller_id, controller_epoch=FORGED_EPOCH,
                                     broker_epoch=FORGED_BROKER_EPOCH, live_leaders=[])


def update_metadata(version, topic, controller_id):
    state = UpdateMetadataPartitionState(topic_name=topic, partition_index=0, controller_epoch=FORGED_EPOCH,
                                         leader=-1, leader_epoch=1000, isr=[], zk_version=1000, replicas=[0])
    return UpdateMetadataRequest.build(version, [state], controller_id=controller_id,
                                       controller_epoch=FORGED_EPOCH, broker_epoch=FORGED_BROKER_EPOCH,
                                       live_brokers=[])


def stop_replica(version, topic, controller_id):
    if version == 0:
        where = {"ungrouped_partitions": [StopReplicaPartitionV0(topic_name=topic, partition_index=0)]}
    else:
        where = {"topics": [StopReplicaTopic(name=topic, partition_indexes=[0])]}
    return StopReplicaRequest(controller_id=controller_id, controller_epoch=FORGED_EPOCH,
                              broker_epoch=FORGED_BROKER_EPOCH, delete_partitions=True, **where)


def controlled_shutdown(version, topic, controller_id):
    # "broker 0 is stopping, move its leaderships away": with no broker epoch (v0-1) or a made-up one
    from kafkalite.protocol.messages.controlled_shutdown import ControlledShutdownRequest
    return ControlledShutdownRequest(broker_id=0, broker_epoch=FORGED_BROKER_EPOCH)


FORGERIES = [(4, leader_and_isr, v) for v in (0, 4)] + [(6, update_metadata, v) for v in (0, 7)] + \
            [(5, stop_replica, v) for v in (0, 2)] + [(7, controlled_shutdown, v) for v in (1, 3)]


def test_forged_control_requests_change_nothing(fresh_broker, unique_topic):
    b = fresh_broker
    clients.create_topic(b.bootstrap, unique_topic, 1)
    records = clients.make_records(20)
    clients.produce_confluent(b.bootstrap, unique_topic, records)
    answers = []
    with_epoch_1 = [(k, build, v, cid) for k, build, v in FORGERIES for cid in (0, 9)]
    for i, (api_key, build, version, controller_id) in enumerate(with_epoch_1):
        conn = RawConnection(b.port)
        try:
            response = clients.raw_request(conn, api_key, version, build(version, unique_topic, controller_id),
                                           correlation_id=i + 1)
            answers.append((build.__name__, version, controller_id, response.error_code))
        finally:
            conn.sock.close()
    refused = [a for a in answers if a[3] not in REFUSED]
    assert not refused, f"forged requests accepted: {refused}"

    # The broker still follows its real controller: the old topic is intact and led by broker 0...
    got = clients.read_confluent(b.bootstrap, unique_topic, [0], 20, timeout=30)
    assert [c.value for c in got] == [r.value for r in records]
    # ...and a new topic gets its leader at once (create_topic waits at most 15 s for every leader).
    clients.create_topic(b.bootstrap, unique_topic + "-after", 3)
    clients.produce_confluent(b.bootstrap, unique_topic + "-after", clients.make_records(30, partitions=3))
    log = b.log_text()
    assert "Latest known controller epoch is 4096" not in log
    # The refusals are warnings, in log4j's words as Kafka writes them: WARN, not Python's WARNING.
    assert " WARN [ReplicaManager broker=0] Ignoring LeaderAndIsr request" in log and " WARNING " not in log


@pytest.mark.parametrize("version", [2, 4])
def test_leader_and_isr_with_another_broker_epoch_is_stale(fresh_broker, unique_topic, version):
    conn = RawConnection(fresh_broker.port)
    try:
        response = clients.raw_request(conn, 4, version, leader_and_isr(version, unique_topic, 0))
    finally:
        conn.sock.close()
    assert response.error_code == Errors.STALE_BROKER_EPOCH.code


def test_real_controller_after_a_zookeeper_session_expiry_is_obeyed(inproc_broker):
    """Kafka's BrokerEpochIntegrationTest, the other half (test written by the fencing work on a branch):
    the session expires, the broker registers again (a new czxid, so a new broker epoch) and elects itself
    again (controller epoch 2). Its control requests carry the new broker epoch and the new controller
    epoch, and both are accepted: KafkaApis takes the broker epoch from the controller (Kafka:
    controller.brokerEpoch), ReplicaManager finds epoch 2 in ZooKeeper."""
    from clients import KafkaPythonAdmin, make_records, produce_kafka_python, read_kafka_python
    from harness import wait_until
    server = inproc_broker.server
    admin = KafkaPythonAdmin(inproc_broker.bootstrap)
    try:
        assert admin.create("before-expiry", 1) is None
        old_broker_epoch = server.kafka_controller.broker_epoch
        server.zk_client.zoo_keeper_client.backend.expire_session(server.zk_client.session_id)
        wait_until(lambda: server.kafka_controller.broker_epoch > old_broker_epoch and server.kafka_controller.is_active()
                   and server.replica_manager.controller_epoch == 2, 15, "the broker to register and elect itself again")
        assert admin.create("after-expiry", 1) is None
        records = make_records(3)
        produce_kafka_python(inproc_broker.bootstrap, "after-expiry", records, acks="all")
        assert [r.value for r in read_kafka_python(inproc_broker.bootstrap, "after-expiry", [0], 3, timeout=20)] == \
            [r.value for r in records]
    finally:
        admin.close()

"""ControllerIntegrationTest / TopicDeletionManagerTest scenarios (Kafka: core/src/test/.../controller/):
KafkaController against a LocalZooKeeper in a temp dir, with a channel manager double that records the requests
(and answers StopReplica, so topic deletion can finish). One test runs the real ControllerChannelManager against a
broker double on a socket.
"""
from __future__ import annotations

import socket
import struct
import threading

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.controller.controller_channel_manager import ControllerChannelManager, LeaderAndIsrRequestBuilder
from kafkalite.controller.controller_context import ControllerContext
from kafkalite.controller.kafka_controller import KafkaController
from kafkalite.controller.partition_state_machine import PartitionState
from kafkalite.protocol import schema
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.messages.api_versions import ApiVersion, ApiVersionsResponse
from kafkalite.protocol.messages.leader_and_isr import (
    LeaderAndIsrPartitionState, LeaderAndIsrRequest, LeaderAndIsrResponse,
)
from kafkalite.protocol.messages.stop_replica import StopReplicaPartitionError, StopReplicaResponse
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import parse_request_body
from kafkalite.protocol.response_header import ResponseHeader
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.zk.kafka_zk_client import KafkaZkClient, topic_id_to_uuid
from kafkalite.zk.zk_data import BrokerInfo, LeaderAndIsr
from kafkalite.zookeeper.local_zoo_keeper import LocalZooKeeper
from socket_doubles import SocketBrokerDouble
from support import wait_until

pytestmark = pytest.mark.timeout(60)

LAI, UM, SR = ApiKeys.LEADER_AND_ISR, ApiKeys.UPDATE_METADATA, ApiKeys.STOP_REPLICA


class RecordingChannelManager:
    """Stands in for ControllerChannelManager: records requests (built at the newest version) and answers
    StopReplica(delete=true) with success for every partition, through the real callback."""

    def __init__(self):
        self.requests = []   # (broker_id, api_key, body)
        self.brokers = set()
        self.lock = threading.Lock()

    def startup(self):
        pass

    def shutdown(self):
        self.brokers.clear()

    def add_broker(self, broker):
        self.brokers.add(broker.id)

    def remove_broker(self, broker_id):
        self.brokers.discard(broker_id)

    def send_request(self, broker_id, api_key, builder, callback=None):
        body = builder.build(api_key.max_version)
        with self.lock:
            self.requests.append((broker_id, api_key, body))
        if api_key is SR and body.delete_partitions and callback is not None:
            errors = [StopReplicaPartitionError(topic_name=t, partition_index=p, error_code=0)
                      for t, p in body.partitions()]
            callback(StopReplicaResponse(error_code=0, partition_errors=errors))

    def of(self, api_key, broker_id=None):
        with self.lock:
            return [b for (i, k, b) in self.requests if k is api_key and (broker_id is None or i == broker_id)]

    def clear(self):
        with self.lock:
            self.requests.clear()


def make_config(broker_id, tmp_path):
    return KafkaConfig.from_props({"broker.id": str(broker_id), "log.dirs": str(tmp_path / f"logs{broker_id}"),
                                   "listeners": f"PLAINTEXT://127.0.0.1:{9092 + broker_id}"}, do_log=False)


def broker_info(broker_id, port=None):
    port = port or 9092 + broker_id
    return BrokerInfo(broker_id, (f"PLAINTEXT://127.0.0.1:{port}",), {"PLAINTEXT": "PLAINTEXT"})


class Cluster:
    """Brokers registered in one shared LocalZooKeeper, each with its own session (its own KafkaZkClient)."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.store = LocalZooKeeper.open(str(tmp_path / "zk"))
        self.zk_clients = {}
        self.controllers = {}
        self.channels = {}
        admin = self.new_zk_client("admin")
        admin.create_top_level_paths()
        self.admin = admin

    def new_zk_client(self, name):
        return KafkaZkClient.create(None, backend=self.store, name=name)

    def register(self, broker_id, port=None):
        zk = self.new_zk_client(f"broker-{broker_id}")
        self.zk_clients[broker_id] = zk
        return zk, zk.register_broker(broker_info(broker_id, port))

    def start_controller(self, broker_id, channel_manager=None):
        zk = self.zk_clients[broker_id]
        channel = channel_manager or RecordingChannelManager()
        controller = KafkaController(make_config(broker_id, self.tmp_path), zk, broker_info=broker_info(broker_id),
                                     broker_epoch=0, controller_channel_manager=channel)
        self.controllers[broker_id] = controller
        self.channels[broker_id] = channel
        controller.startup()
        return controller, channel

    def kill(self, broker_id):
        """The broker process dies: its controller stops, its session closes (ephemerals vanish)."""
        controller = self.controllers.pop(broker_id, None)
        if controller is not None:
            controller.shutdown()
        self.zk_clients.pop(broker_id).close()

    def close(self):
        for broker_id in list(self.zk_clients):
            self.kill(broker_id)
        self.admin.close()
        self.store.release()


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path)
    yield c
    c.close()


def test_single_broker_elects_itself_and_bumps_epoch(cluster):
    cluster.register(0)
    controller, channel = cluster.start_controller(0)
    wait_until(lambda: controller.is_active(), message="controller 0 elected")
    assert controller.controller_id == 0
    assert controller.epoch == 1
    epoch, stat = cluster.admin.get_controller_epoch()
    assert epoch == 1 and controller.controller_context.epoch_zk_version == stat.version
    assert cluster.admin.get_controller_id() == 0
    # failover sends UpdateMetadata to every live broker -- here, itself
    wait_until(lambda: channel.of(UM, 0), message="UpdateMetadata to broker 0")
    assert [b.id for b in channel.of(UM, 0)[0].live_brokers] == [0]


def test_second_controller_waits_then_takes_over(cluster):
    cluster.register(0)
    cluster.register(1)
    c0, _ = cluster.start_controller(0)
    wait_until(lambda: c0.is_active(), message="controller 0 elected")
    c1, ch1 = cluster.start_controller(1)
    wait_until(lambda: c1.controller_id == 0, message="controller 1 sees controller 0")
    assert not c1.is_active()
    assert ch1.of(UM) == []
    cluster.kill(0)
    wait_until(lambda: c1.is_active(), message="controller 1 takes over")
    assert c1.epoch == 2
    assert cluster.admin.get_controller_epoch()[0] == 2
    # the new controller sees broker 0 gone
    assert c1.controller_context.live_broker_ids == {1}


def test_new_topic_partitions_go_online_with_first_live_replica(cluster):
    cluster.register(0)
    cluster.register(2)   # broker 1 is not alive
    controller, channel = cluster.start_controller(0)
    wait_until(lambda: controller.is_active(), message="controller elected")
    channel.clear()
    cluster.admin.create_topic_assignment("t", {0: [1, 0, 2], 1: [2, 0]})
    tp0, tp1 = TopicPartition("t", 0), TopicPartition("t", 1)
    wait_until(lambda: len(channel.of(LAI)) == 2, message="LeaderAndIsr to both live replicas")
    states = cluster.admin.get_topic_partition_states([tp0, tp1])
    assert states[tp0].leader_and_isr.leader == 0 and states[tp0].leader_and_isr.isr == [0, 2]
    assert states[tp1].leader_and_isr.leader == 2 and states[tp1].leader_and_isr.isr == [2, 0]
    assert states[tp0].controller_epoch == controller.epoch
    assert channel.of(LAI, 1) == []   # dead broker gets nothing
    for broker_id in (0, 2):
        [lai] = channel.of(LAI, broker_id)
        parts = {(s.topic_name, s.partition_index): s for s in lai.partition_states()}
        assert set(parts) == {("t", 0), ("t", 1)}
        assert all(s.is_new for s in parts.values())
        assert parts[("t", 0)].leader == 0 and parts[("t", 0)].replicas == [1, 0, 2]
        assert lai.controller_id == 0 and lai.controller_epoch == controller.epoch
        um = channel.of(UM, broker_id)[-1]
        assert {(s.topic_name, s.partition_index) for s in um.partition_states()} == {("t", 0), ("t", 1)}
    wait_until(lambda: controller.controller_context.partition_states.get(tp1) is PartitionState.OnlinePartition, message="partitions Online")
    assert controller.controller_context.partition_states[tp0] is PartitionState.OnlinePartition


def test_topic_deletion_sends_stop_replica_then_removes_znodes(cluster):
    cluster.register(0)
    cluster.register(1)
    controller, channel = cluster.start_controller(0)
    wait_until(lambda: controller.is_active(), message="controller elected")
    cluster.admin.create_topic_assignment("gone", {0: [0, 1]})
    wait_until(lambda: len(channel.of(LAI)) == 2, message="topic created")
    channel.clear()
    cluster.admin.create_delete_topic_path("gone")
    wait_until(lambda: not cluster.admin.topic_exists("gone"), message="topic znode removed")
    wait_until(lambda: not cluster.admin.is_topic_marked_for_deletion("gone"), message="deletion request removed")
    for broker_id in (0, 1):
        deletes = [b for b in channel.of(SR, broker_id) if b.delete_partitions]
        assert [b.partitions() for b in deletes] == [[("gone", 0)]]
    # brokers were told the topic is being deleted (leader -2) before the replicas were stopped
    um_states = [s for b in channel.of(UM) for s in b.partition_states() if s.topic_name == "gone"]
    assert um_states and all(s.leader == LeaderAndIsr.LEADER_DURING_DELETE for s in um_states)
    wait_until(lambda: "gone" not in controller.controller_context.all_topics, message="context forgot the topic")
    assert TopicPartition("gone", 0) not in controller.controller_context.partition_leadership_info


def test_control_requests_carry_each_brokers_own_epoch(cluster):
    """BrokerEpochIntegrationTest.testControllerBrokerEpochCacheMatchesWithZk: every LeaderAndIsr, UpdateMetadata
    and StopReplica to broker b carries b's epoch, the czxid of /brokers/ids/b (KIP-380), which b checks."""
    epochs = {b: cluster.register(b)[1] for b in (0, 1)}
    assert epochs[0] != epochs[1]
    controller, channel = cluster.start_controller(0)
    wait_until(lambda: controller.is_active(), message="controller elected")
    assert controller.controller_context.live_broker_id_and_epochs == epochs
    cluster.admin.create_topic_assignment("e", {0: [0, 1]})
    wait_until(lambda: len(channel.of(LAI)) == 2, message="LeaderAndIsr to both replicas")
    cluster.admin.create_delete_topic_path("e")
    wait_until(lambda: not cluster.admin.topic_exists("e"), message="topic deleted")
    for broker_id in (0, 1):
        sent = channel.of(LAI, broker_id) + channel.of(UM, broker_id) + channel.of(SR, broker_id)
        assert {type(b).__name__ for b in sent} == {"LeaderAndIsrRequest", "UpdateMetadataRequest",
                                                    "StopReplicaRequest"}
        assert {(b.broker_epoch, b.controller_id, b.controller_epoch) for b in sent} == {(epochs[broker_id], 0, 1)}


def test_broker_failure_elects_new_leader_from_isr(cluster):
    cluster.register(0)
    cluster.register(1)
    cluster.register(2)
    controller, channel = cluster.start_controller(0)
    wait_until(lambda: controller.is_active(), message="controller elected")
    tp = TopicPartition("f", 0)
    cluster.admin.create_topic_assignment("f", {0: [1, 2, 0]})
    wait_until(lambda: len(channel.of(LAI)) == 3, message="topic created")
    assert cluster.admin.get_topic_partition_state(tp).leader_and_isr.leader == 1
    channel.clear()
    cluster.kill(1)
    wait_until(lambda: cluster.admin.get_topic_partition_state(tp).leader_and_isr.leader == 2, message="new leader 2")
    lai = cluster.admin.get_topic_partition_state(tp).leader_and_isr
    assert lai.isr == [2, 0] and lai.leader_epoch == 1
    wait_until(lambda: channel.of(LAI, 2), message="LeaderAndIsr to the new leader")
    state = [s for b in channel.of(LAI, 2) for s in b.partition_states()][0]
    assert state.leader == 2 and state.leader_epoch == 1
    assert channel.of(LAI, 1) == []
    assert controller.controller_context.live_broker_ids == {0, 2}


class ControlPlaneDouble(SocketBrokerDouble):
    """A broker's control-plane socket: answers ApiVersions with the full table and every control request with
    an empty success response, recording (header, request) pairs."""

    def __init__(self):
        self.received = []
        super().__init__(4)

    def _serve(self, conn):
        with conn:
            while True:
                head = conn.recv(4, socket.MSG_WAITALL)
                if len(head) < 4:
                    return
                frame = conn.recv(struct.unpack(">i", head)[0], socket.MSG_WAITALL)
                header, offset = RequestHeader.parse(frame)
                api = ApiKeys.for_id(header.api_key)
                if api is ApiKeys.API_VERSIONS:
                    body = ApiVersionsResponse(error_code=0, api_keys=[
                        ApiVersion(api_key=a.id, min_version=a.min_version, max_version=a.max_version)
                        for a in ApiKeys])
                else:
                    self.received.append((header, parse_request_body(header, frame, offset)))
                    body = api.response_class(error_code=0)
                payload = ResponseHeader(correlation_id=header.correlation_id).to_bytes(
                    api.response_header_version(header.api_version)) + schema.write(body, header.api_version)
                conn.sendall(struct.pack(">i", len(payload)) + payload)

    def of(self, api_key):
        return [(h, r) for h, r in self.received if h.api_key == api_key.id]

def test_controller_channel_manager_sends_over_the_network(tmp_path):
    """The real ControllerChannelManager: one named send thread per broker, ApiVersions first, then
    LeaderAndIsr at the newest version both sides support (v4), response handed to the callback."""
    broker = ControlPlaneDouble()
    ctx = ControllerContext()
    ctx.add_live_brokers_and_epochs({broker_info(5, broker.port): 42})
    manager = ControllerChannelManager(ctx, make_config(3, tmp_path))
    manager.startup()
    try:
        names = [t.name for t in threading.enumerate()]
        assert "Controller-3-to-broker-5-send-thread" in names
        state = LeaderAndIsrPartitionState(topic_name="t", partition_index=0, controller_epoch=1, leader=5,
                                           leader_epoch=0, isr=[5], zk_version=0, replicas=[5], is_new=True)
        done = threading.Event()
        responses = []
        manager.send_request(5, LAI, LeaderAndIsrRequestBuilder(3, 1, 42, [state], []),
                             lambda r: (responses.append(r), done.set()))
        assert done.wait(10)
        assert isinstance(responses[0], LeaderAndIsrResponse)
        header, request = broker.of(LAI)[0]
        assert header.api_version == 4 and header.client_id == "3"
        assert isinstance(request, LeaderAndIsrRequest)
        assert request.broker_epoch == 42 and request.partition_states()[0].topic_name == "t"
    finally:
        manager.shutdown()
        broker.close()
    assert "Controller-3-to-broker-5-send-thread" not in [t.name for t in threading.enumerate()]


def test_single_broker_controller_sends_to_itself_over_the_network(cluster):
    """No shortcut: the controller reaches its own broker through its registered endpoint."""
    broker = ControlPlaneDouble()
    try:
        cluster.register(0, port=broker.port)
        zk = cluster.zk_clients[0]
        controller = KafkaController(make_config(0, cluster.tmp_path), zk, broker_info=broker_info(0, broker.port))
        cluster.controllers[0] = controller
        controller.startup()
        wait_until(lambda: controller.is_active(), message="controller elected")
        wait_until(lambda: broker.of(UM), message="UpdateMetadata over the socket")
        cluster.admin.create_topic_assignment("net", {0: [0]})
        wait_until(lambda: broker.of(LAI), message="LeaderAndIsr over the socket")
        header, request = broker.of(LAI)[0]
        assert header.api_version == 4
        [state] = request.partition_states()
        assert (state.topic_name, state.partition_index, state.leader, state.is_new) == ("net", 0, 0, True)
        wait_until(lambda: any(s.topic_name == "net" for _, r in broker.of(UM) for s in r.partition_states()), message="UpdateMetadata with the new topic")
        um_header, um = broker.of(UM)[-1]
        assert um_header.api_version == ApiKeys.UPDATE_METADATA.max_version
        if um_header.api_version >= 7:   # topic ids travel from the topic znode to the broker
            [topic_state] = [t for t in um.topic_states if t.topic_name == "net"]
            assert topic_state.topic_id == topic_id_to_uuid(cluster.admin.get_topic_ids_for_topics(["net"])["net"])
        assert "Controller-0-to-broker-0-send-thread" in [t.name for t in threading.enumerate()]
    finally:
        cluster.kill(0)
        broker.close()


def _failover_zk_round_trips(tmp_path, topics, partitions):
    """A controller failing over onto ``topics`` x ``partitions`` existing partitions: (ZooKeeper round trips of
    the new controller's session until it sent its LeaderAndIsr, the LeaderAndIsr requests it sent)."""
    c = Cluster(tmp_path)
    try:
        c.register(0)
        first, _ = c.start_controller(0)
        wait_until(lambda: first.is_active(), message="controller elected")
        for t in range(topics):
            c.admin.create_topic_assignment(f"t{t}", {p: [0] for p in range(partitions)})
        wait_until(lambda: sum(s is PartitionState.OnlinePartition
                               for s in first.controller_context.partition_states.values()) == topics * partitions,
                   message="every partition online")
        c.kill(0)
        zk, _ = c.register(0)
        round_trips = []
        real = zk.zoo_keeper_client.handle_requests
        zk.zoo_keeper_client.handle_requests = lambda requests: (round_trips.append(len(requests)), real(requests))[1]
        channel = RecordingChannelManager()
        trips_at_first_lai = []
        real_send = channel.send_request

        def send_request(broker_id, api_key, builder, callback=None):
            if api_key is LAI and not trips_at_first_lai:
                trips_at_first_lai.append(len(round_trips))
            real_send(broker_id, api_key, builder, callback)
        channel.send_request = send_request
        controller, _ = c.start_controller(0, channel)
        wait_until(lambda: controller.is_active() and channel.of(LAI, 0), message="failover LeaderAndIsr")
        wait_until(lambda: sum(len(list(r.partition_states())) for r in channel.of(LAI, 0)) == topics * partitions,
                   message="every partition in a LeaderAndIsr")
        return trips_at_first_lai[0], len(channel.of(LAI, 0))
    finally:
        c.close()


def test_controller_failover_reads_partition_states_in_batches(tmp_path):
    """Kafka: KafkaController.initializeControllerContext reads the topics' assignments and the partitions'
    state znodes with pipelined multi-gets (KafkaZkClient.getTopicPartitionStates over one batch), and the
    replica state machine's start-up sends one LeaderAndIsr per broker (ControllerBrokerRequestBatch): the number
    of ZooKeeper round trips and of requests does not grow with the number of partitions."""
    small = _failover_zk_round_trips(tmp_path / "small", topics=2, partitions=3)
    large = _failover_zk_round_trips(tmp_path / "large", topics=2, partitions=40)
    assert large == small and large[1] == 1


class FailedDirChannelManager(RecordingChannelManager):
    """Also answers every LeaderAndIsr, through the real callback: KAFKA_STORAGE_ERROR for the (broker, partition)
    pairs in ``failed`` -- a replica in that broker's failed log dir -- and NONE for the others."""

    def __init__(self):
        super().__init__()
        self.failed: set = set()
        self.silent: set = set()   # brokers whose LeaderAndIsr answers never come

    def send_request(self, broker_id, api_key, builder, callback=None):
        super().send_request(broker_id, api_key, builder, callback)
        if api_key is LAI and callback is not None and broker_id not in self.silent:
            from kafkalite.protocol.errors import Errors
            from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionError
            body = builder.build(api_key.max_version)
            errors = [LeaderAndIsrPartitionError(
                topic_name=s.topic_name, partition_index=s.partition_index,
                error_code=(Errors.KAFKA_STORAGE_ERROR if (broker_id, s.topic_name, s.partition_index) in self.failed
                            else Errors.NONE).code) for s in body.partition_states()]
            callback(LeaderAndIsrResponse(error_code=0, partition_errors=errors))


def test_a_log_dir_failure_moves_the_leadership_until_the_broker_restarts(cluster):
    """KafkaController.processLogDirEventNotification -> onBrokerLogDirFailure -> LeaderAndIsr to the broker; its
    KAFKA_STORAGE_ERROR answers go into replicasOnOfflineDirs (processLeaderAndIsrResponseReceived) and the replica
    is offline on a live broker: a new leader from the ISR, the replica out of it. A restart clears the mark
    (onBrokerFailure / onBrokerStartup); the notification znodes are deleted once handled."""
    for b in (0, 1, 2):
        cluster.register(b)
    channel = FailedDirChannelManager()
    controller, _ = cluster.start_controller(0, channel)
    wait_until(lambda: controller.is_active(), message="controller elected")
    tp, other = TopicPartition("d", 0), TopicPartition("d", 1)
    cluster.admin.create_topic_assignment("d", {0: [1, 2, 0], 1: [1, 0, 2]})
    wait_until(lambda: len(channel.of(LAI)) == 3, message="topic created")
    channel.clear()
    channel.failed = {(1, "d", 0)}                 # d-0's replica on broker 1 sits in the dir that failed
    cluster.zk_clients[1].propagate_log_dir_event(1)
    wait_until(lambda: cluster.admin.get_topic_partition_state(tp).leader_and_isr.leader == 2, message="new leader 2")
    assert cluster.admin.get_topic_partition_state(tp).leader_and_isr.isr == [2, 0]
    assert [s.partition_index for b in channel.of(LAI, 1) for s in b.partition_states()][:2] == [0, 1], \
        "broker 1 is asked about all its replicas"
    state = cluster.admin.get_topic_partition_state(other).leader_and_isr
    assert state.leader == 1 and state.isr == [1, 0, 2], "its replica in a live dir keeps leading"
    ctx = controller.controller_context
    assert {b: s for b, s in ctx.replicas_on_offline_dirs.items() if s} == {1: {tp}}
    assert not ctx.is_replica_online(1, tp)
    wait_until(lambda: cluster.admin.get_all_log_dir_event_notifications() == [], message="notification deleted")
    # the broker restarts with the dir repaired: the mark goes, its replica is online again
    channel.failed = set()
    cluster.kill(1)
    wait_until(lambda: 1 not in ctx.live_broker_ids, message="broker 1 gone")
    assert 1 not in ctx.replicas_on_offline_dirs
    ctx.replicas_on_offline_dirs[1] = {tp}         # as if the mark had outlived the broker
    channel.silent = {1}                           # and no answer of the restarted broker clears it
    cluster.register(1)
    wait_until(lambda: 1 in ctx.live_broker_ids and channel.of(LAI, 1), message="broker 1 back")
    assert ctx.is_replica_online(1, tp), "a restarted broker's replicas are online until it answers otherwise"

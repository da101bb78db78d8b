"""Mirrors Kafka 2.4: core/src/main/scala/kafka/controller/ControllerChannelManager.scala

Classes: QueueItem, ControllerBrokerStateInfo, ControllerChannelManager, RequestSendThread,
StopReplicaRequestInfo, ControllerBrokerRequestBatch, and the three request builders
(LeaderAndIsrRequestBuilder, UpdateMetadataRequestBuilder, StopReplicaRequestBuilder).

The controller talks to every live broker -- itself included, there is no shortcut -- through one
``RequestSendThread`` per broker (``Controller-<controllerId>-to-broker-<brokerId>-send-thread``), each with its own
queue and its own ``NetworkClient`` connected to the broker's endpoint for ``control.plane.listener.name`` (or the
inter-broker listener when no control plane is configured, KIP-291), as registered in ``/brokers/ids/<id>``.
UpdateMetadata v7 (Kafka 2.8) also carries each topic's id, from the topic znode.
A send thread takes one request at a time, waits until the broker is reachable, sends it and waits for the
answer; on failure it reconnects and retries the same request every 100 ms until the broker is removed.

``ControllerBrokerRequestBatch`` collects the LeaderAndIsr, UpdateMetadata and StopReplica work of one controller
step and ``send_requests_to_brokers(controller_epoch)`` turns it into at most one request of each kind per broker.
Responses become controller events (``LeaderAndIsrResponseReceived`` ...), put on the event queue.

Era notes: Kafka 2.4 picks control request versions from ``inter.broker.protocol.version`` and its controller
NetworkClient does not discover versions. kafkalite negotiates with ApiVersions instead (the newest of
LeaderAndIsr v4 / UpdateMetadata v7 / StopReplica v2 the broker supports), so the request builders get their
version from the NetworkClient. Python cannot interrupt a blocked thread: shutting a send thread down wakes its
queue and its NetworkClient (``initiate_close``).
Left out: metrics (queue size gauges, request rate), IBP-based version selection, offline log dirs.
"""
from __future__ import annotations

import queue
from typing import TYPE_CHECKING, Callable, Iterable

import attrs

from kafkalite.clients.client_request import RequestBuilder
from kafkalite.clients.network_client import NetworkClient
from kafkalite.clients.network_client_utils import NetworkClientUtils
from kafkalite.clients.node import Node
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.controller.controller_context import ControllerContext, PartitionAndReplica
from kafkalite.controller.controller_events import (
    LeaderAndIsrResponseReceived, TopicDeletionStopReplicaResponseReceived, UpdateMetadataResponseReceived,
)
from kafkalite.network.channel_builders import broker_client_channel_builder
from kafkalite.network.selector import Selector
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.messages.update_metadata import (
    UpdateMetadataBroker, UpdateMetadataEndpoint, UpdateMetadataPartitionState, UpdateMetadataRequest,
)
from kafkalite.utils.logging import Logging
from kafkalite.utils.shutdownable_thread import ShutdownableThread
from kafkalite.utils.time import SYSTEM, Time
from kafkalite.zk.kafka_zk_client import topic_id_to_uuid

if TYPE_CHECKING:   # LeaderAndIsr and StopReplica load with the first topic; UpdateMetadata is sent at start-up
    from kafkalite.protocol.messages.leader_and_isr import (
        LeaderAndIsrLiveLeader, LeaderAndIsrPartitionState, LeaderAndIsrRequest,
    )
    from kafkalite.protocol.messages.stop_replica import StopReplicaRequest
from kafkalite.zk.zk_data import BrokerInfo, LeaderAndIsr, LeaderIsrAndControllerEpoch

# Kafka: SecurityProtocol ids, as UpdateMetadata endpoints carry them
SECURITY_PROTOCOL_IDS = {"PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3}

_STOP = object()   # wakes a send thread blocked on its queue at shutdown


@attrs.define
class QueueItem:
    """Kafka: QueueItem -- one request waiting in a broker's queue."""

    api_key: ApiKeys
    request: RequestBuilder
    callback: Callable | None
    enqueue_time_ms: int


@attrs.define
class ControllerBrokerStateInfo:
    """Kafka: ControllerBrokerStateInfo -- everything the controller keeps per broker."""

    network_client: NetworkClient
    broker_node: Node
    message_queue: queue.Queue
    request_send_thread: "RequestSendThread"


class ControllerChannelManager(Logging):
    """Kafka: ControllerChannelManager."""

    def __init__(self, controller_context: ControllerContext, config, time: Time = SYSTEM,
                 state_change_logger=None, thread_name_prefix: str | None = None):
        self.controller_context = controller_context
        self.config = config
        self.time = time
        self.state_change_logger = state_change_logger
        self.thread_name_prefix = thread_name_prefix
        self.broker_state_info: dict[int, ControllerBrokerStateInfo] = {}
        self.log_ident = f"[Channel manager on controller {config.broker_id}]: "

    # Kafka: ControllerChannelManager.startup
    def startup(self) -> None:
        for broker in self.controller_context.live_brokers.values():
            self.add_new_broker(broker)
        for broker_id in list(self.broker_state_info):
            self.start_request_send_thread(broker_id)

    # Kafka: ControllerChannelManager.shutdown
    def shutdown(self) -> None:
        for state in list(self.broker_state_info.values()):
            self.remove_existing_broker(state)

    # Kafka: ControllerChannelManager.sendRequest
    def send_request(self, broker_id: int, api_key: ApiKeys, request: RequestBuilder,
                     callback: Callable | None = None) -> None:
        state = self.broker_state_info.get(broker_id)
        if state is not None:
            state.message_queue.put(QueueItem(api_key, request, callback, self.time.milliseconds()))
        else:
            self.warn(f"Not sending request {api_key.api_name} to broker {broker_id}, since it is offline.")

    # Kafka: ControllerChannelManager.addBroker
    def add_broker(self, broker: BrokerInfo) -> None:
        if broker.id not in self.broker_state_info:
            self.add_new_broker(broker)
            self.start_request_send_thread(broker.id)

    # Kafka: ControllerChannelManager.removeBroker
    def remove_broker(self, broker_id: int) -> None:
        state = self.broker_state_info.get(broker_id)
        if state is not None:
            self.remove_existing_broker(state)

    # Kafka: ControllerChannelManager.addNewBroker
    def add_new_broker(self, broker: BrokerInfo) -> None:
        self.debug(f"Controller {self.config.broker_id} trying to connect to broker {broker.id}")
        listener = self.config.control_plane_listener_name or self.config.inter_broker_listener_name
        address = broker.endpoint(listener)
        if address is None:
            self.error(f"Broker {broker.id} has no endpoint for listener {listener}; endpoints {broker.endpoints}")
            return
        broker_node = Node(broker.id, address[0], address[1], broker.rack)
        selector = Selector(max_receive_size=self.config.get("socket.request.max.bytes"), time=self.time,
                            log_context=f"[Controller id={self.config.broker_id}, targetBrokerId={broker.id}] ",
                            channel_builder=broker_client_channel_builder(self.config, listener, self.time))
        network_client = NetworkClient(
            selector, None, client_id=str(self.config.broker_id), max_in_flight_requests_per_connection=1,
            reconnect_backoff_ms=0, reconnect_backoff_max_ms=0,
            request_timeout_ms=self.config.get("request.timeout.ms"), time=self.time,
            log_context=f"[Controller id={self.config.broker_id}, targetBrokerId={broker.id}] ")
        prefix = f"{self.thread_name_prefix}:" if self.thread_name_prefix else ""
        thread_name = f"{prefix}Controller-{self.config.broker_id}-to-broker-{broker.id}-send-thread"
        message_queue: queue.Queue = queue.Queue()
        thread = RequestSendThread(self.config.broker_id, self.controller_context, message_queue, network_client,
                                   broker_node, self.config, self.time, thread_name)
        self.broker_state_info[broker.id] = ControllerBrokerStateInfo(network_client, broker_node, message_queue,
                                                                      thread)

    # Kafka: ControllerChannelManager.removeExistingBroker
    def remove_existing_broker(self, state: ControllerBrokerStateInfo) -> None:
        try:
            # Shut the thread down first: it must not use the client while we close it.
            state.request_send_thread.initiate_shutdown()
            state.request_send_thread.await_shutdown()
            state.network_client.close()
            self.broker_state_info.pop(state.broker_node.id, None)
        except Exception as e:   # noqa: BLE001
            self.error(f"Error while removing broker by the controller: {e!r}", exc_info=e)

    # Kafka: ControllerChannelManager.startRequestSendThread
    def start_request_send_thread(self, broker_id: int) -> None:
        thread = self.broker_state_info[broker_id].request_send_thread
        if not thread.is_alive() and not thread.is_shutdown_complete:
            thread.start()

    def api_version(self, broker_id: int, api_key: ApiKeys) -> int | None:
        """The version negotiated with ``broker_id`` for ``api_key``, once known (for logs and tests)."""
        state = self.broker_state_info.get(broker_id)
        versions = state.network_client.api_versions.get(str(broker_id)) if state else None
        return versions.latest_usable_version(api_key) if versions else None


class RequestSendThread(ShutdownableThread):
    """Kafka: RequestSendThread."""

    RETRY_BACKOFF_MS = 100

    def __init__(self, controller_id: int, controller_context: ControllerContext, message_queue: queue.Queue,
                 network_client: NetworkClient, broker_node: Node, config, time: Time, name: str):
        super().__init__(name)
        self.controller_id = controller_id
        self.controller_context = controller_context
        self.message_queue = message_queue
        self.network_client = network_client
        self.broker_node = broker_node
        self.config = config
        self.time = time
        self.socket_timeout_ms = config.get("controller.socket.timeout.ms")
        self.log_ident = f"[RequestSendThread controllerId={controller_id}] "

    def interrupt(self) -> None:
        self.message_queue.put(_STOP)
        self.network_client.initiate_close()

    # Kafka: RequestSendThread.doWork
    def do_work(self) -> None:
        item = self.message_queue.get()
        if item is _STOP:
            return
        client_response = None
        is_send_successful = False
        while self.is_running and not is_send_successful:
            try:
                if not self.broker_ready():
                    self.pause(self.RETRY_BACKOFF_MS)
                    continue
                client_request = self.network_client.new_client_request(
                    self.broker_node.id_string, item.api_key, item.request, request_timeout_ms=self.socket_timeout_ms)
                client_response = NetworkClientUtils.send_and_receive(self.network_client, client_request, self.time)
                is_send_successful = True
            except Exception as e:   # noqa: BLE001 -- retry the same request until the broker goes away
                if not self.is_running:
                    return
                self.warn(f"Controller {self.controller_id} epoch {self.controller_context.epoch} fails to send "
                          f"request {item.api_key.api_name} to broker {self.broker_node}. Reconnecting to broker: "
                          f"{e!r}")
                self.network_client.close(self.broker_node.id_string)
                self.pause(self.RETRY_BACKOFF_MS)
        if client_response is None:
            return
        api = ApiKeys.for_id(client_response.request_header.api_key)
        if api not in (ApiKeys.LEADER_AND_ISR, ApiKeys.STOP_REPLICA, ApiKeys.UPDATE_METADATA):
            raise RuntimeError(f"Unexpected apiKey received: {api}")   # KafkaException
        self.debug(f"Received response {client_response.response_body} for request {api.api_name} with "
                   f"correlation id {client_response.request_header.correlation_id} sent to broker "
                   f"{self.broker_node}")
        if item.callback is not None:
            item.callback(client_response.response_body)

    # Kafka: RequestSendThread.brokerReady
    def broker_ready(self) -> bool:
        try:
            if not NetworkClientUtils.is_ready(self.network_client, self.broker_node, self.time.milliseconds()):
                if not NetworkClientUtils.await_ready(self.network_client, self.broker_node, self.socket_timeout_ms,
                                                      self.time):
                    raise TimeoutError(f"Failed to connect within {self.socket_timeout_ms} ms")
                self.info(f"Controller {self.controller_id} connected to {self.broker_node} for sending state "
                          f"change requests")
            return True
        except Exception as e:   # noqa: BLE001
            if self.is_running:
                self.warn(f"Controller {self.controller_id}'s connection to broker {self.broker_node} was "
                          f"unsuccessful: {e!r}")
            self.network_client.close(self.broker_node.id_string)
            return False


# ---------------------------------------------------------------- request builders

class LeaderAndIsrRequestBuilder(RequestBuilder):
    """Kafka: LeaderAndIsrRequest.Builder."""

    def __init__(self, controller_id: int, controller_epoch: int, broker_epoch: int,
                 partition_states: list[LeaderAndIsrPartitionState], live_leaders: list[LeaderAndIsrLiveLeader]):
        super().__init__(ApiKeys.LEADER_AND_ISR)
        self.controller_id, self.controller_epoch, self.broker_epoch = controller_id, controller_epoch, broker_epoch
        self.partition_states, self.live_leaders = partition_states, live_leaders

    def build(self, version: int) -> LeaderAndIsrRequest:
        from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrRequest
        return LeaderAndIsrRequest.build(version, [attrs.evolve(s) for s in self.partition_states],
                                         controller_id=self.controller_id, controller_epoch=self.controller_epoch,
                                         broker_epoch=self.broker_epoch, live_leaders=list(self.live_leaders))

    def __str__(self) -> str:
        return (f"LeaderAndIsrRequest(controllerId={self.controller_id}, controllerEpoch={self.controller_epoch}, "
                f"brokerEpoch={self.broker_epoch}, partitionStates={self.partition_states}, "
                f"liveLeaders={self.live_leaders})")


class UpdateMetadataRequestBuilder(RequestBuilder):
    """Kafka: UpdateMetadataRequest.Builder."""

    def __init__(self, controller_id: int, controller_epoch: int, broker_epoch: int,
                 partition_states: list[UpdateMetadataPartitionState], live_brokers: list[UpdateMetadataBroker],
                 topic_ids: dict[str, str] | None = None):
        super().__init__(ApiKeys.UPDATE_METADATA, oldest_allowed_version=1)
        self.controller_id, self.controller_epoch, self.broker_epoch = controller_id, controller_epoch, broker_epoch
        self.partition_states, self.live_brokers = partition_states, live_brokers
        self.topic_ids = topic_ids or {}

    def build(self, version: int) -> UpdateMetadataRequest:
        request = UpdateMetadataRequest.build(version, [attrs.evolve(s) for s in self.partition_states],
                                              controller_id=self.controller_id,
                                              controller_epoch=self.controller_epoch,
                                              broker_epoch=self.broker_epoch, live_brokers=list(self.live_brokers))
        for topic_state in request.topic_states:   # v7 (Kafka 2.8) carries topic ids; older versions drop them
            if topic_state.topic_name in self.topic_ids:
                topic_state.topic_id = topic_id_to_uuid(self.topic_ids[topic_state.topic_name])
        return request


class StopReplicaRequestBuilder(RequestBuilder):
    """Kafka: StopReplicaRequest.Builder."""

    def __init__(self, controller_id: int, controller_epoch: int, broker_epoch: int, delete_partitions: bool,
                 partitions: list[TopicPartition]):
        super().__init__(ApiKeys.STOP_REPLICA)
        self.controller_id, self.controller_epoch, self.broker_epoch = controller_id, controller_epoch, broker_epoch
        self.delete_partitions, self.partitions = delete_partitions, partitions

    def build(self, version: int) -> StopReplicaRequest:
        from kafkalite.protocol.messages.stop_replica import StopReplicaPartitionV0, StopReplicaRequest, StopReplicaTopic
        fields = dict(controller_id=self.controller_id, controller_epoch=self.controller_epoch,
                      broker_epoch=self.broker_epoch, delete_partitions=self.delete_partitions)
        if version == 0:
            return StopReplicaRequest(ungrouped_partitions=[StopReplicaPartitionV0(topic_name=tp.topic,
                                                                                   partition_index=tp.partition)
                                                            for tp in self.partitions], **fields)
        by_topic: dict[str, list[int]] = {}
        for tp in self.partitions:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        return StopReplicaRequest(topics=[StopReplicaTopic(name=t, partition_indexes=p) for t, p in by_topic.items()],
                                  **fields)


# ---------------------------------------------------------------- the batch

@attrs.frozen
class StopReplicaRequestInfo:
    """Kafka: StopReplicaRequestInfo."""

    replica: PartitionAndReplica
    delete_partition: bool


class ControllerBrokerRequestBatch(Logging):
    """Kafka: ControllerBrokerRequestBatch (with AbstractControllerBrokerRequestBatch folded in)."""

    def __init__(self, config, controller_channel_manager, controller_event_manager,
                 controller_context: ControllerContext, state_change_logger):
        self.config = config
        self.controller_id = config.broker_id
        self.controller_channel_manager = controller_channel_manager
        self.controller_event_manager = controller_event_manager
        self.controller_context = controller_context
        self.state_change_logger = state_change_logger
        self.leader_and_isr_request_map: dict[int, dict[TopicPartition, LeaderAndIsrPartitionState]] = {}
        self.stop_replica_request_map: dict[int, list[StopReplicaRequestInfo]] = {}
        self.update_metadata_request_broker_set: set[int] = set()
        self.update_metadata_request_partition_info_map: dict[TopicPartition, UpdateMetadataPartitionState] = {}
        self.log_ident = f"[Controller id={self.controller_id}] "

    # Kafka: AbstractControllerBrokerRequestBatch.newBatch
    def new_batch(self) -> None:
        if self.leader_and_isr_request_map or self.stop_replica_request_map or \
                self.update_metadata_request_broker_set:
            raise RuntimeError(   # IllegalStateException
                "Controller to broker state change requests batch is not empty while creating a new one. "
                f"Some LeaderAndIsr state changes {self.leader_and_isr_request_map} might be lost ")

    # Kafka: AbstractControllerBrokerRequestBatch.clear
    def clear(self) -> None:
        self.leader_and_isr_request_map.clear()
        self.stop_replica_request_map.clear()
        self.update_metadata_request_broker_set.clear()
        self.update_metadata_request_partition_info_map.clear()

    # Kafka: AbstractControllerBrokerRequestBatch.addLeaderAndIsrRequestForBrokers
    def add_leader_and_isr_request_for_brokers(self, broker_ids: Iterable[int], tp: TopicPartition,
                                               leader_isr_and_controller_epoch: LeaderIsrAndControllerEpoch,
                                               replica_assignment, is_new: bool) -> None:
        """``replica_assignment``: the partition's ``ReplicaAssignment`` (with AR and RR while it is reassigned)."""
        from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionState
        lai = leader_isr_and_controller_epoch.leader_and_isr
        for broker_id in broker_ids:
            if broker_id < 0:
                continue
            states = self.leader_and_isr_request_map.setdefault(broker_id, {})
            already_new = states[tp].is_new if tp in states else False
            states[tp] = LeaderAndIsrPartitionState(
                topic_name=tp.topic, partition_index=tp.partition,
                controller_epoch=leader_isr_and_controller_epoch.controller_epoch, leader=lai.leader,
                leader_epoch=lai.leader_epoch, isr=list(lai.isr), zk_version=lai.zk_version,
                replicas=list(replica_assignment.replicas), adding_replicas=list(replica_assignment.adding_replicas),
                removing_replicas=list(replica_assignment.removing_replicas), is_new=is_new or already_new)
        self.add_update_metadata_request_for_brokers(self.controller_context.live_or_shutting_down_broker_ids, {tp})

    # Kafka: AbstractControllerBrokerRequestBatch.addStopReplicaRequestForBrokers
    def add_stop_replica_request_for_brokers(self, broker_ids: Iterable[int], tp: TopicPartition,
                                             delete_partition: bool) -> None:
        for broker_id in broker_ids:
            if broker_id < 0:
                continue
            self.stop_replica_request_map.setdefault(broker_id, []).append(
                StopReplicaRequestInfo(PartitionAndReplica(tp, broker_id), delete_partition))

    # Kafka: AbstractControllerBrokerRequestBatch.addUpdateMetadataRequestForBrokers
    def add_update_metadata_request_for_brokers(self, broker_ids: Iterable[int],
                                                partitions: Iterable[TopicPartition] = ()) -> None:
        ctx = self.controller_context
        for tp in partitions:
            lice = ctx.partition_leadership_info.get(tp)
            if lice is None:
                continue
            replicas = ctx.partition_replica_assignment(tp)
            offline = [r for r in replicas if not ctx.is_replica_online(r, tp)]
            lai = lice.leader_and_isr
            being_deleted = ctx.is_topic_queued_up_for_deletion(tp.topic)
            # A topic being deleted is announced with leader -2, so brokers drop it from their caches.
            leader = LeaderAndIsr.LEADER_DURING_DELETE if being_deleted else lai.leader
            self.update_metadata_request_partition_info_map[tp] = UpdateMetadataPartitionState(
                topic_name=tp.topic, partition_index=tp.partition, controller_epoch=lice.controller_epoch,
                leader=leader, leader_epoch=lai.leader_epoch, isr=list(lai.isr), zk_version=lai.zk_version,
                replicas=replicas, offline_replicas=offline)
        self.update_metadata_request_broker_set.update(b for b in broker_ids if b >= 0)

    # Kafka: AbstractControllerBrokerRequestBatch.sendRequestsToBrokers
    def send_requests_to_brokers(self, controller_epoch: int) -> None:
        try:
            self.state_change_logger = self.state_change_logger.with_controller_epoch(controller_epoch)
            self.send_leader_and_isr_request(controller_epoch)
            self.send_update_metadata_requests(controller_epoch)
            self.send_stop_replica_requests(controller_epoch)
        except Exception as e:
            self.error(f"Haven't been able to send requests to brokers: {e!r}", exc_info=e)
            raise RuntimeError(str(e)) from e   # IllegalStateException
        finally:
            self.clear()

    # Kafka: controllerContext.liveBrokerIdAndEpochs(broker) -- every caller sends only to live brokers, whose epoch
    # the context holds; never -1 (UNKNOWN_BROKER_EPOCH), which would skip the receiver's broker epoch check.
    def _broker_epoch(self, broker_id: int) -> int:
        return self.controller_context.live_broker_epochs[broker_id]

    # Kafka: AbstractControllerBrokerRequestBatch.sendLeaderAndIsrRequest
    def send_leader_and_isr_request(self, controller_epoch: int) -> None:
        ctx = self.controller_context
        for broker_id, states in self.leader_and_isr_request_map.items():
            if broker_id not in ctx.live_or_shutting_down_broker_ids:
                continue
            for tp, state in states.items():
                kind = "become-leader" if state.leader == broker_id else "become-follower"
                self.state_change_logger.trace(f"Sending {kind} LeaderAndIsr request {state} to broker {broker_id} "
                                               f"for partition {tp}")
            leader_ids = {s.leader for s in states.values()}
            from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrLiveLeader
            live_leaders = []
            for leader_id in sorted(leader_ids):
                broker = ctx.live_brokers.get(leader_id)
                address = broker.endpoint(self.config.inter_broker_listener_name) if broker else None
                if address is not None:
                    live_leaders.append(LeaderAndIsrLiveLeader(broker_id=leader_id, host_name=address[0],
                                                               port=address[1]))
            builder = LeaderAndIsrRequestBuilder(self.controller_id, controller_epoch, self._broker_epoch(broker_id),
                                                 list(states.values()), live_leaders)
            self._send_request(broker_id, builder, self._leader_and_isr_callback(broker_id))

    def _leader_and_isr_callback(self, broker_id: int):
        def callback(response) -> None:
            self.send_event(LeaderAndIsrResponseReceived(response, broker_id))
        return callback

    # Kafka: AbstractControllerBrokerRequestBatch.sendUpdateMetadataRequests
    def send_update_metadata_requests(self, controller_epoch: int) -> None:
        if not self.update_metadata_request_broker_set:
            return
        ctx = self.controller_context
        partition_states = list(self.update_metadata_request_partition_info_map.values())
        for tp, state in self.update_metadata_request_partition_info_map.items():
            self.state_change_logger.trace(f"Sending UpdateMetadata request {state} to brokers "
                                           f"{sorted(self.update_metadata_request_broker_set)} for partition {tp}")
        live_brokers = [self._update_metadata_broker(b) for b in ctx.live_brokers.values()]
        for broker_id in sorted(self.update_metadata_request_broker_set):
            if broker_id not in ctx.live_or_shutting_down_broker_ids:
                continue
            builder = UpdateMetadataRequestBuilder(self.controller_id, controller_epoch, self._broker_epoch(broker_id),
                                                   partition_states, live_brokers, ctx.topic_ids)
            self._send_request(broker_id, builder, self._update_metadata_callback(broker_id))

    def _update_metadata_callback(self, broker_id: int):
        def callback(response) -> None:
            self.send_event(UpdateMetadataResponseReceived(response, broker_id))
        return callback

    @staticmethod
    def _update_metadata_broker(broker: BrokerInfo) -> UpdateMetadataBroker:
        endpoints = []
        for conn in broker.endpoints:
            listener = conn.partition("://")[0]
            host, port = broker.endpoint(listener)
            protocol = broker.listener_security_protocol_map.get(listener, listener)
            endpoints.append(UpdateMetadataEndpoint(port=port, host=host, listener=listener,
                                                    security_protocol=SECURITY_PROTOCOL_IDS.get(protocol, 0)))
        return UpdateMetadataBroker(id=broker.id, endpoints=endpoints, rack=broker.rack)

    # Kafka: AbstractControllerBrokerRequestBatch.sendStopReplicaRequests
    def send_stop_replica_requests(self, controller_epoch: int) -> None:
        ctx = self.controller_context
        for broker_id, infos in self.stop_replica_request_map.items():
            if broker_id not in ctx.live_or_shutting_down_broker_ids:
                continue
            with_delete = [i.replica.topic_partition for i in infos if i.delete_partition]
            without_delete = [i.replica.topic_partition for i in infos if not i.delete_partition]
            self.debug(f"The stop replica request (delete = true) sent to broker {broker_id} is {with_delete}")
            self.debug(f"The stop replica request (delete = false) sent to broker {broker_id} is {without_delete}")
            if with_delete:
                builder = StopReplicaRequestBuilder(self.controller_id, controller_epoch,
                                                    self._broker_epoch(broker_id), True, with_delete)
                self._send_request(broker_id, builder, self._stop_replica_callback(broker_id))
            if without_delete:
                builder = StopReplicaRequestBuilder(self.controller_id, controller_epoch,
                                                    self._broker_epoch(broker_id), False, without_delete)
                self._send_request(broker_id, builder, None)

    def _stop_replica_callback(self, broker_id: int):
        def callback(response) -> None:
            self.send_event(TopicDeletionStopReplicaResponseReceived(broker_id, response))
        return callback

    # Kafka: ControllerBrokerRequestBatch.sendRequest
    def _send_request(self, broker_id: int, builder: RequestBuilder, callback) -> None:
        self.controller_channel_manager.send_request(broker_id, builder.api_key, builder, callback)

    # Kafka: ControllerBrokerRequestBatch.sendEvent
    def send_event(self, event) -> None:
        self.controller_event_manager.put(event)

"""Mirrors Kafka 2.4: core/src/main/scala/kafka/zk/KafkaZkClient.scala

Classes: KafkaZkClient (Kafka's higher-level ZooKeeper API: brokers, controller election, topics, partition states,
deletions, configs, notifications) and UpdateLeaderAndIsrResult.

Every method builds ``ZooKeeperClient`` requests with the paths and JSON of ``zk_data`` and interprets the result
codes as Kafka does. Writes made by the controller pass ``expected_controller_epoch_zk_version``: the request is then
wrapped as ``multi(check /controller_epoch @version, op)`` so a zombie controller's writes fail with
``ControllerMovedException`` (KAFKA-6082, Kafka 2.1+).

``KafkaZkClient.create(connect, session_timeout_ms, data_dir, time)`` picks the backend: an empty or ``embedded``
connect string selects the in-process ``LocalZooKeeper`` under ``data_dir``; anything else selects kazoo.

Era notes: topic ids (``topic_id`` in the topic znode, ``get_topic_ids_for_topics``) come from Kafka 2.8 (KIP-516).

ACLs: the methods of ``KafkaZkClientAcls`` (kafka_zk_client_acls.py), which this class inherits.

Left out: delegation tokens, partition reassignment znodes, the producer-id block, feature znodes,
``zookeeper.set.acl``, and the request latency metrics.
"""
from __future__ import annotations

import base64
import uuid
from typing import Iterable

import attrs

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import ControllerMovedException
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM, Time
from kafkalite.zk.kafka_zk_client_acls import KafkaZkClientAcls
from kafkalite.zk.kafka_zk_client_consumer_offsets import KafkaZkClientConsumerOffsets
from kafkalite.zk.zk_data import (
    BrokerIdsZNode, BrokerIdZNode, BrokerSequenceIdZNode, BrokerInfo, ClusterIdZNode, ConfigEntityChangeNotificationSequenceZNode,
    ConfigEntityTypeZNode, ConfigEntityZNode, ControllerEpochZNode, ControllerZNode, DeleteTopicsTopicZNode,
    DeleteTopicsZNode, IsrChangeNotificationSequenceZNode, IsrChangeNotificationZNode, LeaderAndIsr,
    LogDirEventNotificationSequenceZNode, LogDirEventNotificationZNode,
    LeaderIsrAndControllerEpoch, ReassignPartitionsZNode, TopicPartitionStateZNode, TopicPartitionsZNode, TopicPartitionZNode, TopicsZNode,
    TopicZNode, ZkData, ZkVersion,
)
from kafkalite.zookeeper.zoo_keeper_client import (
    AsyncRequest, AsyncResponse, CheckOp, Code, CreateOp, CreateRequest, CreateResponse, DeleteOp, DeleteRequest,
    DeleteResponse, ExistsRequest, GetChildrenRequest, GetDataRequest, KeeperException, MultiRequest, MultiResponse,
    SetDataOp, SetDataRequest, SetDataResponse, Stat, StateChangeHandler, ZNodeChangeHandler,
    ZNodeChildChangeHandler, ZooKeeperClient,
)


def generate_uuid_as_base64() -> str:
    """Kafka: CoreUtils.generateUuidAsBase64 -- 16 random bytes, URL-safe base64 without padding (22 chars)."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode("ascii").rstrip("=")


def topic_id_to_uuid(topic_id: str | None):
    """A topic id as stored in ZooKeeper (22 url-safe base64 chars) as the wire's UUID."""
    import uuid
    if not topic_id:
        return uuid.UUID(int=0)
    return uuid.UUID(bytes=base64.urlsafe_b64decode(topic_id + "=" * (-len(topic_id) % 4)))


@attrs.frozen
class UpdateLeaderAndIsrResult:
    """Kafka: KafkaZkClient.UpdateLeaderAndIsrResult -- per partition the new LeaderAndIsr (with its new zkVersion)
    or the exception; ``partitions_to_retry`` lost the version race (BADVERSION)."""

    finished_partitions: dict[TopicPartition, LeaderAndIsr | Exception]
    partitions_to_retry: list[TopicPartition]


class KafkaZkClient(KafkaZkClientAcls, KafkaZkClientConsumerOffsets, Logging):
    """Kafka: KafkaZkClient (its ACL methods in kafka_zk_client_acls.py)."""

    def __init__(self, zoo_keeper_client: ZooKeeperClient, time: Time = SYSTEM):
        self.zoo_keeper_client = zoo_keeper_client
        self.time = time
        self.log_ident = "[KafkaZkClient] "

    # Kafka: KafkaZkClient.apply
    @classmethod
    def create(cls, connect: str | None, session_timeout_ms: int = 6000, data_dir: str | None = None,
               time: Time = SYSTEM, backend=None, name: str = "") -> "KafkaZkClient":
        return cls(ZooKeeperClient(connect, session_timeout_ms, time, data_dir=data_dir, backend=backend, name=name),
                   time)

    @property
    def session_id(self) -> int:
        return self.zoo_keeper_client.session_id

    # ------------------------------------------------------------ brokers

    # Kafka: KafkaZkClient.registerBroker -- returns the broker epoch (czxid of the ephemeral znode, KIP-380)
    def register_broker(self, broker_info: BrokerInfo) -> int:
        stat = self._checked_ephemeral_create(broker_info.path, broker_info.to_json_bytes())
        self.info(f"Registered broker {broker_info.id} at path {broker_info.path} with addresses: "
                  f"{list(broker_info.endpoints)}, czxid (broker epoch): {stat.czxid}")
        return stat.czxid

    # Kafka: KafkaZkClient.updateBrokerInfo
    def update_broker_info(self, broker_info: BrokerInfo) -> None:
        self._retry(SetDataRequest(broker_info.path, broker_info.to_json_bytes(), ZkVersion.MATCH_ANY_VERSION)) \
            .maybe_throw()

    # Kafka: KafkaZkClient.getBroker
    def get_broker(self, broker_id: int) -> BrokerInfo | None:
        response = self._retry(GetDataRequest(BrokerIdZNode.path(broker_id)))
        if response.result_code == Code.NONODE:
            return None
        response.maybe_throw()
        return BrokerIdZNode.decode(broker_id, response.data)

    # Kafka: KafkaZkClient.getSortedBrokerList
    def get_sorted_broker_list(self) -> list[int]:
        return sorted(int(c) for c in self._get_children(BrokerIdsZNode.path()))

    # Kafka: KafkaZkClient.getAllBrokersInCluster
    def get_all_brokers_in_cluster(self) -> list[BrokerInfo]:
        return list(self.get_all_broker_and_epochs_in_cluster())

    # Kafka: KafkaZkClient.getAllBrokerAndEpochsInCluster -- broker → epoch (czxid), in broker id order
    def get_all_broker_and_epochs_in_cluster(self) -> dict[BrokerInfo, int]:
        ids = self.get_sorted_broker_list()
        responses = self._retry_all([GetDataRequest(BrokerIdZNode.path(i), ctx=i) for i in ids])
        result = {}
        for r in responses:
            if r.result_code == Code.OK:
                result[BrokerIdZNode.decode(r.ctx, r.data)] = r.stat.czxid
            elif r.result_code != Code.NONODE:
                r.maybe_throw()
        return result

    # ------------------------------------------------------------ controller

    # Kafka: KafkaZkClient.registerControllerAndIncrementControllerEpoch
    def register_controller_and_increment_controller_epoch(self, controller_id: int) -> tuple[int, int]:
        timestamp = self.time.milliseconds()
        current = self.get_controller_epoch()
        if current is not None:
            cur_epoch, cur_epoch_zk_version = current[0], current[1].version
        else:
            cur_epoch, cur_epoch_zk_version = self.maybe_create_controller_epoch_znode()
        new_epoch = cur_epoch + 1
        self.debug(f"Try to create {ControllerZNode.path()} and increment controller epoch to {new_epoch} "
                   f"with expected controller epoch zkVersion {cur_epoch_zk_version}")

        def check_controller_and_epoch() -> tuple[int, int]:
            cur_controller_id = self.get_controller_id()
            if cur_controller_id is None:
                raise ControllerMovedException("The ephemeral node at /controller went away while checking "
                                               "whether the controller election succeeds. Aborting controller "
                                               "startup procedure")
            if cur_controller_id == controller_id:
                epoch_and_stat = self.get_controller_epoch()
                if epoch_and_stat is None:
                    raise RuntimeError("/controller_epoch should exist after a controller election")
                if epoch_and_stat[0] == new_epoch:  # our own earlier attempt won
                    return new_epoch, epoch_and_stat[1].version
            raise ControllerMovedException("Controller moved to another broker. Aborting controller startup "
                                           "procedure")

        response = self._retry(MultiRequest([
            CreateOp(ControllerZNode.path(), ControllerZNode.encode(controller_id, timestamp), ephemeral=True),
            SetDataOp(ControllerEpochZNode.path(), ControllerEpochZNode.encode(new_epoch), cur_epoch_zk_version),
        ]))
        if response.result_code in (Code.NODEEXISTS, Code.BADVERSION):
            return check_controller_and_epoch()
        response.maybe_throw()
        return new_epoch, response.zk_op_results[1].stat.version

    # Kafka: KafkaZkClient.maybeCreateControllerEpochZNode
    def maybe_create_controller_epoch_znode(self) -> tuple[int, int]:
        response = self._retry(CreateRequest(ControllerEpochZNode.path(), ControllerEpochZNode.encode(0)))
        if response.result_code == Code.OK:
            self.info(f"Successfully created {ControllerEpochZNode.path()} with initial epoch 0")
            return 0, 0
        if response.result_code == Code.NODEEXISTS:
            epoch_and_stat = self.get_controller_epoch()
            if epoch_and_stat is None:
                raise RuntimeError(f"{ControllerEpochZNode.path()} existed and then vanished")
            return epoch_and_stat[0], epoch_and_stat[1].version
        response.maybe_throw()
        raise AssertionError("unreachable")

    # Kafka: KafkaZkClient.getControllerId
    def get_controller_id(self) -> int | None:
        response = self._retry(GetDataRequest(ControllerZNode.path()))
        if response.result_code == Code.NONODE:
            return None
        response.maybe_throw()
        return ControllerZNode.decode(response.data)

    # Kafka: KafkaZkClient.getControllerEpoch
    def get_controller_epoch(self) -> tuple[int, Stat] | None:
        response = self._retry(GetDataRequest(ControllerEpochZNode.path()))
        if response.result_code == Code.NONODE:
            return None
        response.maybe_throw()
        return ControllerEpochZNode.decode(response.data), response.stat

    # Kafka: KafkaZkClient.deleteController
    def delete_controller(self, expected_controller_epoch_zk_version: int = ZkVersion.MATCH_ANY_VERSION) -> None:
        response = self._retry(DeleteRequest(ControllerZNode.path(), ZkVersion.MATCH_ANY_VERSION),
                               expected_controller_epoch_zk_version)
        if response.result_code not in (Code.OK, Code.NONODE):
            response.maybe_throw()

    # ------------------------------------------------------------ cluster id and top-level paths

    # Kafka: KafkaZkClient.getClusterId
    def get_cluster_id(self) -> str | None:
        response = self._retry(GetDataRequest(ClusterIdZNode.path()))
        if response.result_code == Code.NONODE:
            return None
        response.maybe_throw()
        return ClusterIdZNode.from_json(response.data)

    # Kafka: KafkaZkClient.createOrGetClusterId
    def get_or_create_cluster_id(self, proposed_cluster_id: str | None = None) -> str:
        existing = self.get_cluster_id()
        if existing is not None:
            return existing
        proposed = proposed_cluster_id or generate_uuid_as_base64()
        try:
            self.create_recursive(ClusterIdZNode.path(), ClusterIdZNode.to_json(proposed))
            return proposed
        except KeeperException as e:
            if e.code != Code.NODEEXISTS:
                raise
            return self.get_cluster_id()

    # Kafka: KafkaZkClient.createTopLevelPaths -- Kafka makes sure of one path after the other
    # (makeSurePersistentPathExists), a round trip and, on a fresh ZooKeeper, one fsync'd transaction each. Here
    # the creates of every path and its parents, parents first, go in one pipelined handle_requests batch, which
    # the embedded store fsyncs once (ZooKeeper's SyncRequestProcessor group-commits a burst the same way): about
    # 20 fsyncs fewer on a fresh log dir (issue 18). An existing node answers NODEEXISTS and is left as it is.
    def create_top_level_paths(self) -> None:
        paths: list[str] = []
        for path in ZkData.PERSISTENT_ZK_PATHS:
            parts = path.strip("/").split("/")
            for depth in range(1, len(parts) + 1):
                prefix = "/" + "/".join(parts[:depth])
                if prefix not in paths:
                    paths.append(prefix)
        responses = self._retry_all([CreateRequest(path, None) for path in paths])
        if any(response.result_code not in (Code.OK, Code.NODEEXISTS) for response in responses):
            # e.g. NOAUTH on a parent this client may not create under (an ACL'd chroot) though the path itself
            # exists: Kafka's way, which creates a parent only after a NONODE, decides -- and raises what it raises
            for path in ZkData.PERSISTENT_ZK_PATHS:
                self.make_sure_persistent_path_exists(path)

    # Kafka: KafkaZkClient.makeSurePersistentPathExists
    def make_sure_persistent_path_exists(self, path: str) -> None:
        self.create_recursive(path, None, throw_if_path_exists=False)

    # Kafka: KafkaZkClient.createRecursive
    def create_recursive(self, path: str, data: bytes | None = None, throw_if_path_exists: bool = True) -> None:
        code = self._retry(CreateRequest(path, data)).result_code
        if code == Code.NONODE:
            self._create_recursive0(path.rsplit("/", 1)[0])
            code = self._retry(CreateRequest(path, data)).result_code
        if code == Code.NODEEXISTS and not throw_if_path_exists:
            return
        if code != Code.OK:
            raise KeeperException(code, path)

    def _create_recursive0(self, path: str) -> None:
        if not path:
            return
        code = self._retry(CreateRequest(path, None)).result_code
        if code == Code.NONODE:
            self._create_recursive0(path.rsplit("/", 1)[0])
            code = self._retry(CreateRequest(path, None)).result_code
        if code not in (Code.OK, Code.NODEEXISTS):
            raise KeeperException(code, path)

    # Kafka: KafkaZkClient.deleteRecursive
    def delete_recursive(self, path: str, expected_controller_epoch_zk_version: int = ZkVersion.MATCH_ANY_VERSION
                         ) -> bool:
        response = self._retry(GetChildrenRequest(path, register_watch=False))
        if response.result_code == Code.NONODE:
            return True
        response.maybe_throw()
        for child in response.children:
            self.delete_recursive(f"{path}/{child}", expected_controller_epoch_zk_version)
        code = self._retry(DeleteRequest(path, ZkVersion.MATCH_ANY_VERSION),
                           expected_controller_epoch_zk_version).result_code
        if code not in (Code.OK, Code.NONODE):
            raise KeeperException(code, path)
        return True

    # Kafka: KafkaZkClient.pathExists
    def path_exists(self, path: str) -> bool:
        response = self._retry(ExistsRequest(path))
        if response.result_code not in (Code.OK, Code.NONODE):
            response.maybe_throw()
        return response.result_code == Code.OK

    # ------------------------------------------------------------ topics

    # Kafka: KafkaZkClient.createTopicAssignment (topic id as in 2.8); returns the topic id
    def create_topic_assignment(self, topic: str, assignment: dict[int, list[int]], topic_id: str | None = None
                                ) -> str:
        topic_id = topic_id or generate_uuid_as_base64()
        self.create_recursive(TopicZNode.path(topic), TopicZNode.encode(assignment, topic_id))
        return topic_id

    # Kafka: KafkaZkClient.setTopicAssignment (keeps the stored topic id when none is given)
    def set_topic_assignment(self, topic: str, assignment: dict[int, list[int]], topic_id: str | None = None,
                             expected_controller_epoch_zk_version: int = ZkVersion.MATCH_ANY_VERSION,
                             adding_replicas: dict[int, list[int]] | None = None,
                             removing_replicas: dict[int, list[int]] | None = None) -> None:
        """With the controller's epoch znode version, a write by a deposed controller fails (the multi-op
        checks ``/controller_epoch`` first: ControllerMovedException)."""
        if topic_id is None:
            topic_id = self.get_topic_ids_for_topics([topic]).get(topic)
        data = TopicZNode.encode(assignment, topic_id, adding_replicas, removing_replicas)
        response = self._retry(SetDataRequest(TopicZNode.path(topic), data, ZkVersion.MATCH_ANY_VERSION),
                               expected_controller_epoch_zk_version)
        response.maybe_throw()

    # Kafka: KafkaZkClient.getAllTopicsInCluster
    def get_all_topics_in_cluster(self, register_watch: bool = False) -> set[str]:
        response = self._retry(GetChildrenRequest(TopicsZNode.path(), register_watch))
        if response.result_code == Code.NONODE:
            return set()
        response.maybe_throw()
        return set(response.children)

    # Kafka: KafkaZkClient.topicExists
    def topic_exists(self, topic: str) -> bool:
        return self.path_exists(TopicZNode.path(topic))

    def _get_topic_znodes(self, topics: Iterable[str]
                          ) -> dict[str, tuple[str | None, dict[TopicPartition, tuple[list[int], list[int], list[int]]]]]:
        responses = self._retry_all([GetDataRequest(TopicZNode.path(t), ctx=t) for t in topics])
        result = {}
        for r in responses:
            if r.result_code == Code.OK:
                result[r.ctx] = TopicZNode.decode(r.ctx, r.data)
            elif r.result_code != Code.NONODE:
                r.maybe_throw()
        return result

    # Kafka: KafkaZkClient.getReplicaAssignmentForTopics
    def get_replica_assignment_for_topics(self, topics: Iterable[str]) -> dict[TopicPartition, list[int]]:
        return {tp: full[0] for tp, full in self.get_full_replica_assignment_for_topics(topics).items()}

    # Kafka: KafkaZkClient.getFullReplicaAssignmentForTopics -- partition → (replicas, adding, removing)
    def get_full_replica_assignment_for_topics(self, topics: Iterable[str]
                                               ) -> dict[TopicPartition, tuple[list[int], list[int], list[int]]]:
        result: dict[TopicPartition, tuple[list[int], list[int], list[int]]] = {}
        for _topic_id, assignment in self._get_topic_znodes(topics).values():
            result.update(assignment)
        return result

    # Kafka: KafkaZkClient.getPartitionAssignmentForTopics -- topic → partition → replicas
    def get_partition_assignment_for_topics(self, topics: Iterable[str]) -> dict[str, dict[int, list[int]]]:
        return {t: {tp.partition: full[0] for tp, full in a.items()}
                for t, (_i, a) in self._get_topic_znodes(topics).items()}

    def get_partition_assignment_for_topic(self, topic: str) -> dict[int, list[int]]:
        return self.get_partition_assignment_for_topics([topic]).get(topic, {})

    # Kafka 2.8: KafkaZkClient.getTopicIdsForTopics
    def get_topic_ids_for_topics(self, topics: Iterable[str]) -> dict[str, str]:
        return {t: i for t, (i, _a) in self._get_topic_znodes(topics).items() if i is not None}

    # Kafka: KafkaZkClient.getAllPartitions
    def get_all_partitions(self) -> set[TopicPartition]:
        return set(self.get_replica_assignment_for_topics(self.get_all_topics_in_cluster()))

    # Kafka: KafkaZkClient.getTopicPartitionStates
    def get_topic_partition_states(self, partitions: Iterable[TopicPartition]
                                   ) -> dict[TopicPartition, LeaderIsrAndControllerEpoch]:
        responses = self._retry_all([GetDataRequest(TopicPartitionStateZNode.path(tp), ctx=tp) for tp in partitions])
        result = {}
        for r in responses:
            if r.result_code == Code.OK:
                state = TopicPartitionStateZNode.decode(r.data, r.stat.version)
                if state is not None:
                    result[r.ctx] = state
            elif r.result_code != Code.NONODE:
                r.maybe_throw()
        return result

    # Kafka: KafkaZkClient.getTopicPartitionState
    def get_topic_partition_state(self, tp: TopicPartition) -> LeaderIsrAndControllerEpoch | None:
        return self.get_topic_partition_states([tp]).get(tp)

    # Kafka: KafkaZkClient.createTopicPartitionStatesRaw -- one CreateResponse per partition (ctx = partition)
    def create_topic_partition_states_raw(self, leader_isr_and_epochs: dict[TopicPartition, LeaderIsrAndControllerEpoch],
                                          expected_controller_epoch_zk_version: int) -> list[CreateResponse]:
        v = expected_controller_epoch_zk_version
        topics = sorted({tp.topic for tp in leader_isr_and_epochs})
        for r in self._retry_all([CreateRequest(TopicPartitionsZNode.path(t)) for t in topics], v):
            if r.result_code not in (Code.OK, Code.NODEEXISTS):
                r.maybe_throw()
        for r in self._retry_all([CreateRequest(TopicPartitionZNode.path(tp)) for tp in leader_isr_and_epochs], v):
            if r.result_code not in (Code.OK, Code.NODEEXISTS):
                r.maybe_throw()
        return self._retry_all([CreateRequest(TopicPartitionStateZNode.path(tp), TopicPartitionStateZNode.encode(s),
                                              ctx=tp) for tp, s in leader_isr_and_epochs.items()], v)

    # Kafka: KafkaZkClient.updateLeaderAndIsr -- a conditional set on each state znode's version
    def update_leader_and_isr(self, leader_and_isrs: dict[TopicPartition, LeaderAndIsr], controller_epoch: int,
                              expected_controller_epoch_zk_version: int) -> UpdateLeaderAndIsrResult:
        requests = [SetDataRequest(TopicPartitionStateZNode.path(tp),
                                   TopicPartitionStateZNode.encode(LeaderIsrAndControllerEpoch(lai, controller_epoch)),
                                   lai.zk_version, ctx=tp) for tp, lai in leader_and_isrs.items()]
        finished: dict[TopicPartition, LeaderAndIsr | Exception] = {}
        retry: list[TopicPartition] = []
        for r in self._retry_all(requests, expected_controller_epoch_zk_version):
            tp = r.ctx
            if r.result_code == Code.OK:
                finished[tp] = leader_and_isrs[tp].with_zk_version(r.stat.version)
            elif r.result_code == Code.BADVERSION:
                retry.append(tp)
            else:
                finished[tp] = r.result_exception()
        return UpdateLeaderAndIsrResult(finished, retry)

    # Kafka: KafkaZkClient.propagateIsrChanges
    def propagate_isr_changes(self, isr_change_set: Iterable[TopicPartition]) -> str:
        response = self._retry(CreateRequest(IsrChangeNotificationSequenceZNode.path(),
                                             IsrChangeNotificationSequenceZNode.encode(isr_change_set),
                                             sequential=True))
        response.maybe_throw()
        return response.name

    # Kafka: KafkaZkClient.getAllIsrChangeNotifications -- sequence numbers
    def get_all_isr_change_notifications(self) -> list[str]:
        return sorted(IsrChangeNotificationSequenceZNode.sequence_number(c)
                      for c in self._get_children(IsrChangeNotificationZNode.path()))

    # Kafka: KafkaZkClient.getPartitionsFromIsrChangeNotifications
    def get_partitions_from_isr_change_notifications(self, sequence_numbers: Iterable[str]) -> set[TopicPartition]:
        paths = [IsrChangeNotificationSequenceZNode.path(s) for s in sequence_numbers]
        result: set[TopicPartition] = set()
        for r in self._retry_all([GetDataRequest(p) for p in paths]):
            if r.result_code == Code.OK:
                result |= IsrChangeNotificationSequenceZNode.decode(r.data)
        return result

    # Kafka: KafkaZkClient.deleteIsrChangeNotifications
    def delete_isr_change_notifications(self, sequence_numbers: Iterable[str] | None = None,
                                        expected_controller_epoch_zk_version: int = ZkVersion.MATCH_ANY_VERSION
                                        ) -> None:
        if sequence_numbers is None:
            sequence_numbers = self.get_all_isr_change_notifications()
        self._retry_all([DeleteRequest(IsrChangeNotificationSequenceZNode.path(s)) for s in sequence_numbers],
                        expected_controller_epoch_zk_version)

    # Kafka: KafkaZkClient.propagateLogDirEvent -- a broker lost a log dir: one sequential znode naming it
    def propagate_log_dir_event(self, broker_id: int) -> str:
        response = self._retry(CreateRequest(LogDirEventNotificationSequenceZNode.path(),
                                             LogDirEventNotificationSequenceZNode.encode(broker_id), sequential=True))
        response.maybe_throw()
        return response.name

    # Kafka: KafkaZkClient.getAllLogDirEventNotifications -- sequence numbers
    def get_all_log_dir_event_notifications(self) -> list[str]:
        return sorted(LogDirEventNotificationSequenceZNode.sequence_number(c)
                      for c in self._get_children(LogDirEventNotificationZNode.path()))

    # Kafka: KafkaZkClient.getBrokerIdsFromLogDirEvents
    def get_broker_ids_from_log_dir_events(self, sequence_numbers: Iterable[str]) -> list[int]:
        paths = [LogDirEventNotificationSequenceZNode.path(s) for s in sequence_numbers]
        return [broker for r in self._retry_all([GetDataRequest(p) for p in paths]) if r.result_code == Code.OK
                for broker in [LogDirEventNotificationSequenceZNode.decode(r.data)] if broker is not None]

    # Kafka: KafkaZkClient.deleteLogDirEventNotifications -- all of them when no sequence numbers are given
    def delete_log_dir_event_notifications(self, sequence_numbers: Iterable[str] | None = None,
                                           expected_controller_epoch_zk_version: int = ZkVersion.MATCH_ANY_VERSION
                                           ) -> None:
        if sequence_numbers is None:
            sequence_numbers = self.get_all_log_dir_event_notifications()
        self._retry_all([DeleteRequest(LogDirEventNotificationSequenceZNode.path(s)) for s in sequence_numbers],
                        expected_controller_epoch_zk_version)

    # ------------------------------------------------------------ topic deletion

    # Kafka: KafkaZkClient.createDeleteTopicPath
    def create_delete_topic_path(self, topic: str) -> None:
        self.create_recursive(DeleteTopicsTopicZNode.path(topic))

    # Kafka: KafkaZkClient.isTopicMarkedForDeletion
    def is_topic_marked_for_deletion(self, topic: str) -> bool:
        return self.path_exists(DeleteTopicsTopicZNode.path(topic))

    # Kafka: KafkaZkClient.getTopicDeletions
    def get_topic_deletions(self) -> list[str]:
        return sorted(self._get_children(DeleteTopicsZNode.path()))

    # Kafka: KafkaZkClient.deleteTopicDeletions
    def delete_topic_deletions(self, topics: Iterable[str], expected_controller_epoch_zk_version: int
                               = ZkVersion.MATCH_ANY_VERSION) -> None:
        self._retry_all([DeleteRequest(DeleteTopicsTopicZNode.path(t)) for t in topics],
                        expected_controller_epoch_zk_version)

    # Kafka: KafkaZkClient.deleteTopicZNode
    def delete_topic_z_node(self, topic: str, expected_controller_epoch_zk_version: int
                            = ZkVersion.MATCH_ANY_VERSION) -> None:
        self.delete_recursive(TopicZNode.path(topic), expected_controller_epoch_zk_version)

    # ------------------------------------------------------------ /admin/reassign_partitions (2.4's ZooKeeper route)

    # Kafka: KafkaZkClient.reassignPartitionsInProgress
    def reassign_partitions_in_progress(self) -> bool:
        return self.path_exists(ReassignPartitionsZNode.path())

    # Kafka: KafkaZkClient.getPartitionReassignment -- {} when there is none
    def get_partition_reassignment(self) -> dict[TopicPartition, list[int]]:
        data, _ = self.get_data_and_version(ReassignPartitionsZNode.path())
        return ReassignPartitionsZNode.decode(data)

    # Kafka: KafkaZkClient.createPartitionReassignment -- what kafka-reassign-partitions --zookeeper writes
    def create_partition_reassignment(self, reassignment: dict[TopicPartition, list[int]]) -> None:
        self.create_recursive(ReassignPartitionsZNode.path(), ReassignPartitionsZNode.encode(reassignment))

    # Kafka: KafkaZkClient.setOrCreatePartitionReassignment
    def set_or_create_partition_reassignment(self, reassignment: dict[TopicPartition, list[int]],
                                             expected_controller_epoch_zk_version: int) -> None:
        data = ReassignPartitionsZNode.encode(reassignment)
        response = self._retry(SetDataRequest(ReassignPartitionsZNode.path(), data, ZkVersion.MATCH_ANY_VERSION),
                               expected_controller_epoch_zk_version)
        if response.result_code == Code.NONODE:
            response = self._retry(CreateRequest(ReassignPartitionsZNode.path(), data),
                                   expected_controller_epoch_zk_version)
        response.maybe_throw()

    # Kafka: KafkaZkClient.deletePartitionReassignment
    def delete_partition_reassignment(self, expected_controller_epoch_zk_version: int) -> None:
        self.delete_recursive(ReassignPartitionsZNode.path(), expected_controller_epoch_zk_version)

    # ------------------------------------------------------------ configs

    # Kafka: KafkaZkClient.getEntityConfigs
    def get_entity_configs(self, root_entity_type: str, sanitized_entity_name: str) -> dict[str, str]:
        response = self._retry(GetDataRequest(ConfigEntityZNode.path(root_entity_type, sanitized_entity_name)))
        if response.result_code == Code.NONODE:
            return {}
        response.maybe_throw()
        return ConfigEntityZNode.decode(response.data)

    # Kafka: KafkaZkClient.setOrCreateEntityConfigs
    def set_or_create_entity_configs(self, root_entity_type: str, sanitized_entity_name: str,
                                     config: dict[str, str]) -> None:
        path = ConfigEntityZNode.path(root_entity_type, sanitized_entity_name)
        data = ConfigEntityZNode.encode(config)
        code = self._retry(SetDataRequest(path, data, ZkVersion.MATCH_ANY_VERSION)).result_code
        if code == Code.NONODE:
            try:
                self.create_recursive(path, data)
                return
            except KeeperException as e:  # someone created it between our set and create: set again
                if e.code != Code.NODEEXISTS:
                    raise
            code = self._retry(SetDataRequest(path, data, ZkVersion.MATCH_ANY_VERSION)).result_code
        if code != Code.OK:
            raise KeeperException(code, path)

    # Kafka: KafkaZkClient.generateBrokerSequenceId -- every write bumps /brokers/seqid's version,
    # which is the next sequence number (brokers with broker.id=-1 take reserved.broker.max.id + it).
    def generate_broker_sequence_id(self) -> int:
        response = self._retry(SetDataRequest(BrokerSequenceIdZNode.path(), b"", ZkVersion.MATCH_ANY_VERSION))
        if response.result_code == Code.NONODE:
            self.create_recursive(BrokerSequenceIdZNode.path(), b"", throw_if_path_exists=False)
            return self.generate_broker_sequence_id()
        response.maybe_throw()
        return response.stat.version

    # Kafka: KafkaZkClient.getDataAndVersion
    def get_data_and_version(self, path: str) -> tuple[bytes | None, int]:
        response = self._retry(GetDataRequest(path))
        if response.result_code == Code.NONODE:
            return None, ZkVersion.UNKNOWN_VERSION
        response.maybe_throw()
        return response.data, response.stat.version

    # Kafka: KafkaZkClient.conditionalUpdatePath -- (True, new version) or (False, -1) on a version clash.
    def conditional_update_path(self, path: str, data: bytes, expect_version: int) -> tuple[bool, int]:
        response = self._retry(SetDataRequest(path, data, expect_version))
        if response.result_code == Code.OK:
            return True, response.stat.version
        if response.result_code in (Code.BADVERSION, Code.NONODE):
            return False, ZkVersion.UNKNOWN_VERSION
        response.maybe_throw()
        return False, ZkVersion.UNKNOWN_VERSION

    # Kafka: KafkaZkClient.getAllEntitiesWithConfig
    def get_all_entities_with_config(self, entity_type: str) -> list[str]:
        return sorted(self._get_children(ConfigEntityTypeZNode.path(entity_type)))

    # Kafka: KafkaZkClient.createConfigChangeNotification -- returns the sequential node's name
    def create_config_change_notification(self, sanitized_entity_path: str) -> str:
        self.make_sure_persistent_path_exists("/config/changes")
        response = self._retry(CreateRequest(ConfigEntityChangeNotificationSequenceZNode.create_path(),
                                             ConfigEntityChangeNotificationSequenceZNode.encode(sanitized_entity_path),
                                             sequential=True))
        response.maybe_throw()
        return response.name

    # ------------------------------------------------------------ handlers

    # Kafka: KafkaZkClient.registerZNodeChangeHandlerAndCheckExistence -- sets the exists watch; True if the node is there
    def register_znode_change_handler_and_check_existence(self, handler: ZNodeChangeHandler) -> bool:
        self.zoo_keeper_client.register_znode_change_handler(handler)
        response = self._retry(ExistsRequest(handler.path))
        if response.result_code == Code.OK:
            return True
        if response.result_code == Code.NONODE:
            return False
        response.maybe_throw()
        return False

    # Kafka: KafkaZkClient.registerZNodeChangeHandler
    def register_znode_change_handler(self, handler: ZNodeChangeHandler) -> None:
        self.zoo_keeper_client.register_znode_change_handler(handler)

    # Kafka: KafkaZkClient.unregisterZNodeChangeHandler
    def unregister_znode_change_handler(self, path: str) -> None:
        self.zoo_keeper_client.unregister_znode_change_handler(path)

    # Kafka: KafkaZkClient.registerZNodeChildChangeHandler
    def register_znode_child_change_handler(self, handler: ZNodeChildChangeHandler) -> None:
        self.zoo_keeper_client.register_znode_child_change_handler(handler)

    # Kafka: KafkaZkClient.unregisterZNodeChildChangeHandler
    def unregister_znode_child_change_handler(self, path: str) -> None:
        self.zoo_keeper_client.unregister_znode_child_change_handler(path)

    # Kafka: KafkaZkClient.registerStateChangeHandler
    def register_state_change_handler(self, handler: StateChangeHandler) -> None:
        self.zoo_keeper_client.register_state_change_handler(handler)

    # Kafka: KafkaZkClient.unregisterStateChangeHandler
    def unregister_state_change_handler(self, name: str) -> None:
        self.zoo_keeper_client.unregister_state_change_handler(name)

    # Kafka: KafkaZkClient.close
    def close(self) -> None:
        self.zoo_keeper_client.close()

    # ------------------------------------------------------------ plumbing

    # Kafka: KafkaZkClient.getChildren -- sets the child watch when a handler is registered for the path
    def _get_children(self, path: str) -> list[str]:
        response = self._retry(GetChildrenRequest(path, register_watch=True))
        if response.result_code == Code.NONODE:
            return []
        response.maybe_throw()
        return list(response.children)

    # Kafka: KafkaZkClient.checkedEphemeralCreate -- a node left by our own session (after a retry) counts as ours
    def _checked_ephemeral_create(self, path: str, data: bytes) -> Stat:
        response = self._retry(CreateRequest(path, data, ephemeral=True))
        if response.result_code == Code.OK:
            return response.stat
        if response.result_code == Code.NODEEXISTS:
            existing = self._retry(GetDataRequest(path))
            if existing.result_code == Code.OK and existing.stat.ephemeral_owner == self.session_id:
                return existing.stat
        self.error(f"Error while creating ephemeral at {path}, node already exists and owner "
                   f"is not the current session")
        raise KeeperException(response.result_code, path)

    def _retry(self, request: AsyncRequest, expected_controller_epoch_zk_version: int
               = ZkVersion.MATCH_ANY_VERSION) -> AsyncResponse:
        return self._retry_all([request], expected_controller_epoch_zk_version)[0]

    # Kafka: KafkaZkClient.retryRequestsUntilConnected (+ wrapRequestWithControllerEpochCheck / unwrap)
    def _retry_all(self, requests: list[AsyncRequest], expected_controller_epoch_zk_version: int
                   = ZkVersion.MATCH_ANY_VERSION) -> list[AsyncResponse]:
        if expected_controller_epoch_zk_version >= 0:
            wrapped = [self._wrap_with_epoch_check(r, expected_controller_epoch_zk_version) for r in requests]
            return [self._unwrap(r, w, expected_controller_epoch_zk_version)
                    for r, w in zip(requests, self._retry_until_connected(wrapped))]
        return self._retry_until_connected(requests)

    def _retry_until_connected(self, requests: list[AsyncRequest]) -> list[AsyncResponse]:
        deadline = self.time.hi_res_clock_ms() + max(self.zoo_keeper_client.session_timeout_ms, 1000) * 2
        remaining = list(range(len(requests)))
        responses: list[AsyncResponse | None] = [None] * len(requests)
        while True:
            batch = self.zoo_keeper_client.handle_requests([requests[i] for i in remaining])
            lost = []
            for i, r in zip(remaining, batch):
                responses[i] = r
                if r.result_code == Code.CONNECTIONLOSS:
                    lost.append(i)
            if not lost or self.time.hi_res_clock_ms() > deadline:
                return responses
            remaining = lost
            SYSTEM.sleep(50)  # waiting for the backend to reconnect

    @staticmethod
    def _wrap_with_epoch_check(request: AsyncRequest, version: int) -> MultiRequest:
        check = CheckOp(ControllerEpochZNode.path(), version)
        if isinstance(request, CreateRequest):
            op = CreateOp(request.path, request.data, request.ephemeral, request.sequential)
        elif isinstance(request, SetDataRequest):
            op = SetDataOp(request.path, request.data, request.version)
        elif isinstance(request, DeleteRequest):
            op = DeleteOp(request.path, request.version)
        else:
            raise ValueError(f"{request} is not a write")
        return MultiRequest([check, op], ctx=request.ctx)

    @staticmethod
    def _unwrap(request: AsyncRequest, response: MultiResponse, version: int) -> AsyncResponse:
        results = response.zk_op_results
        if results and results[0].code == Code.BADVERSION:
            raise ControllerMovedException(f"Controller epoch zkVersion check fails. Expected zkVersion = {version}")
        if response.result_code in (Code.CONNECTIONLOSS, Code.SESSIONEXPIRED) or len(results) < 2:
            code, result = response.result_code, None
        else:
            result = results[1]
            code = result.code if response.result_code != Code.OK else Code.OK
        if isinstance(request, CreateRequest):
            return CreateResponse(code, request.path, request.ctx, result.name if result else None)
        if isinstance(request, SetDataRequest):
            return SetDataResponse(code, request.path, request.ctx, result.stat if result else None)
        return DeleteResponse(code, request.path, request.ctx)

"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/MetadataCache.scala

Classes: MetadataCache, MetadataSnapshot.

The broker's copy of cluster state. Only the controller's UPDATE_METADATA requests change it
(``update_metadata``); Metadata requests read it (``get_topic_metadata``). Each update builds a new
immutable snapshot and swaps one reference, so readers never lock (Kafka's copy-on-write
``metadataSnapshot``).
Era notes: topic ids (Kafka 2.8+) travel in UpdateMetadata v7's topic states, so Metadata v10+ can
return them.
``get_topic_metadata_for_describe_topic_response`` pages partitions for DescribeTopicPartitions (Kafka 3.7,
KIP-966, where it sits in KRaftMetadataCache; kafkalite has no KRaft cache, so it lives here).
Omitted: offline replicas from log-dir failures; authorized operations.
"""
from __future__ import annotations

import threading
import uuid

import attrs

from kafkalite.cluster.broker_end_point import BrokerEndPoint
from kafkalite.common import topic as Topic
from kafkalite.protocol.errors import Errors, InvalidTopicException
from kafkalite.protocol.messages import describe_topic_partitions as dtp
from kafkalite.protocol.messages.metadata import MetadataResponsePartition, MetadataResponseTopic
from kafkalite.utils.logging import Logging

LEADER_DURING_DELETE = -2   # Kafka: LeaderAndIsr.LeaderDuringDelete
NO_LEADER = -1
ZERO_UUID = uuid.UUID(int=0)


@attrs.frozen
class AliveBroker:
    """Kafka: Broker (as the metadata cache holds it) -- id, rack and one endpoint per listener."""

    id: int
    rack: str | None
    endpoints: dict   # listener name -> (host, port)

    # Kafka: Broker.brokerEndPoint -- where to reach this broker on one listener
    def broker_end_point(self, listener_name: str) -> BrokerEndPoint:
        if listener_name not in self.endpoints:
            raise Errors.LISTENER_NOT_FOUND.exception(
                f"Broker {self.id} has no endpoint for listener {listener_name}")
        host, port = self.endpoints[listener_name]
        return BrokerEndPoint(self.id, host, port)


@attrs.frozen
class MetadataSnapshot:
    """Kafka: MetadataCache.MetadataSnapshot."""

    partition_states: dict   # topic -> {partition -> UpdateMetadataPartitionState}
    topic_ids: dict          # topic -> uuid
    controller_id: int | None
    alive_brokers: dict      # broker id -> AliveBroker


class MetadataCache(Logging):
    """Kafka: MetadataCache(brokerId)."""

    def __init__(self, broker_id: int):
        self.broker_id = broker_id
        self.log_ident = f"[MetadataCache brokerId={broker_id}] "
        self.metadata_snapshot = MetadataSnapshot({}, {}, None, {})
        self._lock = threading.Lock()   # writers only
        self._changed = threading.Condition(self._lock)

    # Kafka: MetadataCache.updateMetadata -- returns the partitions that were deleted.
    def update_metadata(self, correlation_id: int, request) -> list[tuple[str, int]]:
        with self._lock:
            old = self.metadata_snapshot
            alive = {}
            for b in request.live_brokers:
                if b.endpoints:
                    eps = {ep.listener: (ep.host, ep.port) for ep in b.endpoints}
                else:
                    eps = {"PLAINTEXT": (b.v0_host, b.v0_port)}
                alive[b.id] = AliveBroker(b.id, b.rack, eps)
            # Kafka 2.4 copies every topic's partition map into the new snapshot; kafkalite copies the topic
            # map only and a topic's partitions when this request touches them (the rest are shared with the
            # old snapshot, which nobody changes): a request costs its own partitions, not the cluster's
            states = dict(old.partition_states)
            copied: set[str] = set()

            def partitions_of(topic: str) -> dict:
                if topic not in copied:
                    states[topic] = dict(states.get(topic, {}))
                    copied.add(topic)
                return states[topic]
            topic_ids = dict(old.topic_ids)
            for ts in getattr(request, "topic_states", []):
                tid = getattr(ts, "topic_id", ZERO_UUID)
                if tid != ZERO_UUID:
                    topic_ids[ts.topic_name] = tid
            deleted = []
            for state in request.partition_states():
                topic = state.topic_name
                if state.leader == LEADER_DURING_DELETE:
                    if topic in states:
                        parts = partitions_of(topic)
                        parts.pop(state.partition_index, None)
                        if not parts:
                            del states[topic]
                            topic_ids.pop(topic, None)
                    deleted.append((topic, state.partition_index))
                    self.trace(f"Deleted partition {topic}-{state.partition_index} from metadata cache in "
                               f"response to UpdateMetadata request sent by controller {request.controller_id} "
                               f"epoch {request.controller_epoch} with correlation id {correlation_id}")
                else:
                    partitions_of(topic)[state.partition_index] = state
            controller_id = request.controller_id if request.controller_id >= 0 else None
            self.metadata_snapshot = MetadataSnapshot(states, topic_ids, controller_id, alive)
            self._changed.notify_all()
            return deleted

    def wait_for(self, predicate, timeout_s: float) -> bool:
        """Block until ``predicate(self)`` holds after some update (bounded)."""
        with self._lock:
            return self._changed.wait_for(lambda: predicate(self), timeout_s)

    # Kafka: MetadataCache.getTopicMetadata
    def get_topic_metadata(self, topics, listener_name: str, error_unavailable_endpoints: bool = False,
                           error_unavailable_listeners: bool = False) -> list[MetadataResponseTopic]:
        snap = self.metadata_snapshot
        result = []
        for topic in topics:
            parts = snap.partition_states.get(topic)
            if parts is None:
                continue
            partitions = []
            for pid in sorted(parts):
                st = parts[pid]
                error = Errors.NONE
                leader = st.leader
                leader_broker = snap.alive_brokers.get(leader)
                if leader_broker is None or listener_name not in leader_broker.endpoints:
                    error = Errors.LEADER_NOT_AVAILABLE if leader_broker is None else Errors.LISTENER_NOT_FOUND
                    leader = NO_LEADER
                replicas = list(st.replicas)
                isr = list(st.isr)
                if error_unavailable_endpoints:
                    replicas = [r for r in replicas if r in snap.alive_brokers]
                    isr = [r for r in isr if r in snap.alive_brokers]
                partitions.append(MetadataResponsePartition(
                    error_code=error.code, partition_index=pid, leader_id=leader, leader_epoch=st.leader_epoch,
                    replica_nodes=replicas, isr_nodes=isr,
                    offline_replicas=list(getattr(st, "offline_replicas", []))))
            result.append(MetadataResponseTopic(
                error_code=Errors.NONE.code, name=topic, topic_id=snap.topic_ids.get(topic, ZERO_UUID),
                is_internal=topic.startswith("__"), partitions=partitions))
        return result

    # Kafka 3.7: KRaftMetadataCache.getTopicMetadataForDescribeTopicResponse -- the partitions of ``topics`` (in
    # the order given), from ``start_index(topic)`` on, at most ``max_partitions`` in all; the second value is
    # where the next page starts, (topic, partition) or None. An unknown topic is answered UNKNOWN_TOPIC_OR_PARTITION
    # (or INVALID_TOPIC_EXCEPTION) unless ``ignore_unknown``; replicas are not filtered by liveness, leaders are.
    def get_topic_metadata_for_describe_topic_response(self, topics, listener_name: str, start_index,
                                                       max_partitions: int, ignore_unknown: bool):
        snap = self.metadata_snapshot
        remaining = max_partitions
        result, next_cursor = [], None
        for topic in topics:
            if remaining == 0:   # the page is full: the next one starts at this topic's first partition
                next_cursor = (topic, 0)
                break
            parts = snap.partition_states.get(topic)
            if parts is None:
                if not ignore_unknown:
                    try:
                        Topic.validate(topic)
                        error = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    except InvalidTopicException:
                        error = Errors.INVALID_TOPIC_EXCEPTION
                    result.append(dtp.DescribeTopicPartitionsResponseTopic(
                        error_code=error.code, name=topic, topic_id=ZERO_UUID, is_internal=Topic.is_internal(topic),
                        partitions=[]))
                continue
            first = start_index(topic)
            upper = min(len(parts), first + remaining)
            partitions = []
            for pid in range(first, upper):
                st = parts.get(pid)
                if st is None:
                    continue
                leader_broker = snap.alive_brokers.get(st.leader)
                leader = st.leader if leader_broker is not None and listener_name in leader_broker.endpoints \
                    else NO_LEADER
                partitions.append(dtp.DescribeTopicPartitionsResponsePartition(
                    error_code=Errors.NONE.code, partition_index=pid, leader_id=leader, leader_epoch=st.leader_epoch,
                    replica_nodes=list(st.replicas), isr_nodes=list(st.isr),
                    eligible_leader_replicas=[], last_known_elr=[],   # no ELR: empty, as a KRaft broker without ELR
                    offline_replicas=list(getattr(st, "offline_replicas", []))))
            result.append(dtp.DescribeTopicPartitionsResponseTopic(
                error_code=Errors.NONE.code, name=topic, topic_id=snap.topic_ids.get(topic, ZERO_UUID),
                is_internal=Topic.is_internal(topic), partitions=partitions))
            if upper < len(parts):
                next_cursor = (topic, upper)
                break
            remaining -= len(partitions)
        return result, next_cursor

    # Kafka: MetadataCache.getAllTopics
    def get_all_topics(self) -> set[str]:
        return set(self.metadata_snapshot.partition_states)

    # Kafka: MetadataCache.contains
    def contains(self, topic: str) -> bool:
        return topic in self.metadata_snapshot.partition_states

    def topic_id(self, topic: str) -> uuid.UUID:
        return self.metadata_snapshot.topic_ids.get(topic, ZERO_UUID)

    def topic_name(self, topic_id: uuid.UUID) -> str | None:
        for name, tid in self.metadata_snapshot.topic_ids.items():
            if tid == topic_id:
                return name
        return None

    # Kafka: MetadataCache.getAliveBrokers
    def get_alive_brokers(self) -> list[AliveBroker]:
        return sorted(self.metadata_snapshot.alive_brokers.values(), key=lambda b: b.id)

    def get_alive_broker(self, broker_id: int) -> AliveBroker | None:
        return self.metadata_snapshot.alive_brokers.get(broker_id)

    # Kafka: MetadataCache.getPartitionInfo
    def get_partition_info(self, topic: str, partition: int):
        return self.metadata_snapshot.partition_states.get(topic, {}).get(partition)

    def num_partitions(self, topic: str) -> int | None:
        parts = self.metadata_snapshot.partition_states.get(topic)
        return None if parts is None else len(parts)

    # Kafka: MetadataCache.getPartitionLeaderEndpoint -> (broker id, host, port) or None
    def get_partition_leader_endpoint(self, topic: str, partition: int, listener_name: str):
        st = self.get_partition_info(topic, partition)
        if st is None:
            return None
        broker = self.metadata_snapshot.alive_brokers.get(st.leader)
        if broker is None or listener_name not in broker.endpoints:
            return None
        host, port = broker.endpoints[listener_name]
        return (broker.id, host, port)

    # Kafka: MetadataCache.getControllerId
    def get_controller_id(self) -> int | None:
        return self.metadata_snapshot.controller_id

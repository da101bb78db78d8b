"""Mirrors Kafka 2.4: core/src/main/scala/kafka/zk/ZkData.scala

The znode paths Kafka uses and the JSON it writes into them, byte for byte in Kafka 2.4's form (compact JSON, the
key order Jackson produced), so a kafkalite cluster and Kafka's own tools read each other's ZooKeeper data.
Each Scala ``object XxxZNode`` is a class of static methods here: ``path(...)``, ``encode(...)``, ``decode(...)``.

Classes: ControllerZNode, ControllerEpochZNode, BrokerIdsZNode, BrokerIdZNode (+ BrokerInfo), BrokerSequenceIdZNode,
TopicsZNode, TopicZNode, TopicPartitionsZNode, TopicPartitionZNode, TopicPartitionStateZNode, ConfigZNode,
ConfigEntityTypeZNode, ConfigEntityZNode, ConfigEntityChangeNotificationZNode,
ConfigEntityChangeNotificationSequenceZNode, IsrChangeNotificationZNode, IsrChangeNotificationSequenceZNode,
LogDirEventNotificationZNode, LogDirEventNotificationSequenceZNode, AdminZNode, DeleteTopicsZNode,
DeleteTopicsTopicZNode, ReassignPartitionsZNode, PreferredReplicaElectionZNode, ClusterZNode, ClusterIdZNode,
ProducerIdBlockZNode, ZkVersion, ConfigType, ZkData.PERSISTENT_ZK_PATHS; and the two value classes the znodes carry,
LeaderAndIsr (Kafka: kafka/api/LeaderAndIsr.scala) and LeaderIsrAndControllerEpoch (Kafka: kafka/controller/
KafkaController.scala's companion), kept here so ``zk`` needs nothing from ``controller``.

Era notes:
- Broker registration is version 4 (2.4 with IBP ≥ 0.10.0); version 5 (2.7+) adds ``features``, which is left out.
- The topic assignment optionally carries ``"topic_id"`` (Kafka 2.8+, KIP-516) so Metadata v10+ and CreateTopics v7+
  can answer with the topic's id; Kafka 2.4 brokers ignore unknown fields.

Left out: ACL, delegation-token and feature znodes; BrokerInfo holds the endpoint strings itself instead of a
``kafka.cluster.Broker``.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

import attrs

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.utils.time import SYSTEM


def _json_bytes(obj: Any) -> bytes:
    """Jackson's output as Kafka configures it: compact, UTF-8, '/' not escaped."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _parse(data: bytes | None) -> Any:
    if not data:
        return None
    return json.loads(data.decode("utf-8"))


class ZkVersion:
    MATCH_ANY_VERSION = -1  # a conditional set/delete that matches any version
    UNKNOWN_VERSION = -2  # returned by Kafka's reads when the node does not exist


class ConfigType:
    """Kafka: kafka.server.ConfigType -- the entity types under /config."""

    TOPIC = "topics"
    CLIENT = "clients"
    USER = "users"
    BROKER = "brokers"
    ALL = (TOPIC, CLIENT, USER, BROKER)


# ---------------------------------------------------------------- value classes

@attrs.frozen
class LeaderAndIsr:
    """Kafka: kafka.api.LeaderAndIsr -- leader, leader epoch, ISR, and the state znode's version (the CAS token)."""

    leader: int
    leader_epoch: int
    isr: list[int]
    zk_version: int

    NO_LEADER = -1
    LEADER_DURING_DELETE = -2
    INITIAL_LEADER_EPOCH = 0
    INITIAL_ZK_VERSION = 0

    @classmethod
    def initial(cls, leader: int, isr: list[int]) -> "LeaderAndIsr":
        return cls(leader, cls.INITIAL_LEADER_EPOCH, list(isr), cls.INITIAL_ZK_VERSION)

    # Kafka: LeaderAndIsr.newLeader
    def new_leader(self, leader: int) -> "LeaderAndIsr":
        return self.new_leader_and_isr(leader, self.isr)

    # Kafka: LeaderAndIsr.newLeaderAndIsr
    def new_leader_and_isr(self, leader: int, isr: list[int]) -> "LeaderAndIsr":
        return LeaderAndIsr(leader, self.leader_epoch + 1, list(isr), self.zk_version)

    # Kafka: LeaderAndIsr.newEpochAndZkVersion
    def new_epoch_and_zk_version(self) -> "LeaderAndIsr":
        return self.new_leader_and_isr(self.leader, self.isr)

    # Kafka: LeaderAndIsr.withZkVersion
    def with_zk_version(self, zk_version: int) -> "LeaderAndIsr":
        return attrs.evolve(self, zk_version=zk_version)


@attrs.frozen
class LeaderIsrAndControllerEpoch:
    """Kafka: kafka.controller.LeaderIsrAndControllerEpoch -- what a partition's state znode holds."""

    leader_and_isr: LeaderAndIsr
    controller_epoch: int


# ---------------------------------------------------------------- controller

class ControllerZNode:
    @staticmethod
    def path() -> str:
        return "/controller"

    @staticmethod
    def encode(broker_id: int, timestamp: int) -> bytes:
        return _json_bytes({"version": 1, "brokerid": broker_id, "timestamp": str(timestamp)})

    @staticmethod
    def decode(data: bytes | None) -> int | None:
        js = _parse(data)
        return None if js is None else int(js["brokerid"])


class ControllerEpochZNode:
    @staticmethod
    def path() -> str:
        return "/controller_epoch"

    @staticmethod
    def encode(epoch: int) -> bytes:
        return str(epoch).encode("utf-8")

    @staticmethod
    def decode(data: bytes) -> int:
        return int(data.decode("utf-8"))


# ---------------------------------------------------------------- brokers

class BrokersZNode:
    @staticmethod
    def path() -> str:
        return "/brokers"


class BrokerIdsZNode:
    @staticmethod
    def path() -> str:
        return "/brokers/ids"


class BrokerSequenceIdZNode:
    @staticmethod
    def path() -> str:
        return "/brokers/seqid"


@attrs.frozen
class BrokerInfo:
    """Kafka: kafka.zk.BrokerInfo -- one broker's registration. ``endpoints`` are connection strings
    (``"PLAINTEXT://localhost:9092"``); ``listener_security_protocol_map`` maps listener name → protocol."""

    id: int
    endpoints: tuple[str, ...]
    listener_security_protocol_map: dict[str, str] = attrs.field(hash=False)
    rack: str | None = None
    jmx_port: int = -1
    version: int = 4
    timestamp: int | None = None  # set when decoded; encode stamps the current time

    @property
    def path(self) -> str:
        return BrokerIdZNode.path(self.id)

    # Kafka: BrokerInfo.toJsonBytes
    def to_json_bytes(self) -> bytes:
        return BrokerIdZNode.encode(self)

    def endpoint(self, listener_name: str) -> tuple[str, int] | None:
        """(host, port) of one listener, or None."""
        for conn in self.endpoints:
            name, _, address = conn.partition("://")
            if name == listener_name:
                host, _, port = address.rpartition(":")
                return host.strip("[]"), int(port)
        return None


class BrokerIdZNode:
    @staticmethod
    def path(broker_id: int) -> str:
        return f"{BrokerIdsZNode.path()}/{broker_id}"

    @staticmethod
    def encode(info: BrokerInfo) -> bytes:
        # The top-level host/port (for old clients) is the first PLAINTEXT endpoint, else null/-1.
        host, port = None, -1
        for conn in info.endpoints:
            listener = conn.partition("://")[0]
            if info.listener_security_protocol_map.get(listener, listener) == "PLAINTEXT":
                host, port = info.endpoint(listener)
                break
        js: dict[str, Any] = {}
        if info.version >= 4:
            js["listener_security_protocol_map"] = dict(info.listener_security_protocol_map)
        js["endpoints"] = list(info.endpoints)
        if info.rack is not None and info.version >= 3:
            js["rack"] = info.rack
        js["jmx_port"] = info.jmx_port
        js["host"] = host
        js["timestamp"] = str(info.timestamp if info.timestamp is not None else SYSTEM.milliseconds())
        js["port"] = port
        js["version"] = info.version
        return _json_bytes(js)

    @staticmethod
    def decode(broker_id: int, data: bytes) -> BrokerInfo:
        js = _parse(data)
        if js is None or int(js["version"]) < 2:
            raise ValueError(f"Unsupported broker registration for broker {broker_id}: {data!r}")
        endpoints = tuple(js["endpoints"])
        protocol_map = js.get("listener_security_protocol_map") or {
            e.partition("://")[0]: e.partition("://")[0] for e in endpoints}
        ts = js.get("timestamp")
        return BrokerInfo(broker_id, endpoints, dict(protocol_map), js.get("rack"), int(js.get("jmx_port", -1)),
                          int(js["version"]), int(ts) if ts is not None else None)


# ---------------------------------------------------------------- topics and partitions

class TopicsZNode:
    @staticmethod
    def path() -> str:
        return "/brokers/topics"


class TopicZNode:
    @staticmethod
    def path(topic: str) -> str:
        return f"{TopicsZNode.path()}/{topic}"

    @staticmethod
    def encode(assignment: dict[int, list[int]], topic_id: str | None = None,
               adding_replicas: dict[int, list[int]] | None = None,
               removing_replicas: dict[int, list[int]] | None = None) -> bytes:
        """Version 2 (KIP-455): the replicas of each partition and, for partitions being reassigned, the
        replicas being added and removed (only non-empty lists are written, as Kafka does)."""
        js: dict[str, Any] = {
            "version": 2,
            "partitions": {str(p): list(r) for p, r in sorted(assignment.items())},
            "adding_replicas": {str(p): list(r) for p, r in sorted((adding_replicas or {}).items()) if r},
            "removing_replicas": {str(p): list(r) for p, r in sorted((removing_replicas or {}).items()) if r},
        }
        if topic_id is not None:
            js["topic_id"] = topic_id
        return _json_bytes(js)

    @staticmethod
    def decode(topic: str, data: bytes | None
                    ) -> tuple[str | None, dict[TopicPartition, tuple[list[int], list[int], list[int]]]]:
        """(topic_id or None, partition → (replicas, adding replicas, removing replicas))."""
        js = _parse(data)
        if js is None:
            return None, {}
        partitions = js.get("partitions") or {}
        adding = js.get("adding_replicas") or {}
        removing = js.get("removing_replicas") or {}
        full = {TopicPartition(topic, int(p)): ([int(b) for b in r], [int(b) for b in adding.get(p, [])],
                                                [int(b) for b in removing.get(p, [])])
                for p, r in partitions.items()}
        return js.get("topic_id"), dict(sorted(full.items(), key=lambda kv: kv[0].partition))


class TopicPartitionsZNode:
    @staticmethod
    def path(topic: str) -> str:
        return f"{TopicZNode.path(topic)}/partitions"


class TopicPartitionZNode:
    @staticmethod
    def path(tp: TopicPartition) -> str:
        return f"{TopicPartitionsZNode.path(tp.topic)}/{tp.partition}"


class TopicPartitionStateZNode:
    @staticmethod
    def path(tp: TopicPartition) -> str:
        return f"{TopicPartitionZNode.path(tp)}/state"

    @staticmethod
    def encode(state: LeaderIsrAndControllerEpoch) -> bytes:
        lai = state.leader_and_isr
        return _json_bytes({"controller_epoch": state.controller_epoch, "leader": lai.leader, "version": 1,
                            "leader_epoch": lai.leader_epoch, "isr": list(lai.isr)})

    @staticmethod
    def decode(data: bytes | None, zk_version: int) -> LeaderIsrAndControllerEpoch | None:
        js = _parse(data)
        if js is None:
            return None
        lai = LeaderAndIsr(int(js["leader"]), int(js["leader_epoch"]), [int(b) for b in js["isr"]], zk_version)
        return LeaderIsrAndControllerEpoch(lai, int(js["controller_epoch"]))


# ---------------------------------------------------------------- configs

class ConfigZNode:
    @staticmethod
    def path() -> str:
        return "/config"


class ConfigEntityTypeZNode:
    @staticmethod
    def path(entity_type: str) -> str:
        return f"{ConfigZNode.path()}/{entity_type}"


class ConfigEntityZNode:
    @staticmethod
    def path(entity_type: str, entity_name: str) -> str:
        return f"{ConfigEntityTypeZNode.path(entity_type)}/{entity_name}"

    @staticmethod
    def encode(config: dict[str, str]) -> bytes:
        return _json_bytes({"version": 1, "config": {k: str(v) for k, v in config.items()}})

    @staticmethod
    def decode(data: bytes | None) -> dict[str, str]:
        js = _parse(data)
        if not isinstance(js, dict) or not isinstance(js.get("config"), dict):
            return {}
        return {k: str(v) for k, v in js["config"].items()}


class ConfigEntityChangeNotificationZNode:
    @staticmethod
    def path() -> str:
        return "/config/changes"


class ConfigEntityChangeNotificationSequenceZNode:
    SEQUENCE_NUMBER_PREFIX = "config_change_"

    @staticmethod
    def create_path() -> str:
        return f"{ConfigEntityChangeNotificationZNode.path()}/config_change_"

    @staticmethod
    def encode(sanitized_entity_path: str) -> bytes:
        return _json_bytes({"version": 2, "entity_path": sanitized_entity_path})

    @staticmethod
    def decode(data: bytes) -> str:
        return _parse(data)["entity_path"]


# ---------------------------------------------------------------- notifications

def _partitions_json(partitions: Iterable[TopicPartition]) -> list[dict]:
    return [{"topic": tp.topic, "partition": tp.partition} for tp in partitions]


def _partitions_from_json(data: bytes | None) -> set[TopicPartition]:
    js = _parse(data)
    if js is None:
        return set()
    return {TopicPartition(p["topic"], int(p["partition"])) for p in js["partitions"]}


class IsrChangeNotificationZNode:
    @staticmethod
    def path() -> str:
        return "/isr_change_notification"


class IsrChangeNotificationSequenceZNode:
    SEQUENCE_NUMBER_PREFIX = "isr_change_"

    @staticmethod
    def path(sequence_number: str = "") -> str:
        return f"{IsrChangeNotificationZNode.path()}/isr_change_{sequence_number}"

    @staticmethod
    def encode(partitions: Iterable[TopicPartition]) -> bytes:
        return _json_bytes({"version": 1, "partitions": _partitions_json(partitions)})

    @staticmethod
    def decode(data: bytes | None) -> set[TopicPartition]:
        return _partitions_from_json(data)

    @staticmethod
    def sequence_number(path: str) -> str:
        return path[path.rindex("isr_change_") + len("isr_change_"):]


class LogDirEventNotificationZNode:
    @staticmethod
    def path() -> str:
        return "/log_dir_event_notification"


class LogDirEventNotificationSequenceZNode:
    SEQUENCE_NUMBER_PREFIX = "log_dir_event_"
    LOG_DIR_FAILURE_EVENT = 1

    @staticmethod
    def path(sequence_number: str = "") -> str:
        return f"{LogDirEventNotificationZNode.path()}/log_dir_event_{sequence_number}"

    @staticmethod
    def encode(broker_id: int) -> bytes:
        return _json_bytes({"version": 1, "broker": broker_id, "event": 1})

    @staticmethod
    def decode(data: bytes | None) -> int | None:
        js = _parse(data)
        return None if js is None else int(js["broker"])

    @staticmethod
    def sequence_number(path: str) -> str:
        return path[path.rindex("log_dir_event_") + len("log_dir_event_"):]


# ---------------------------------------------------------------- admin

class AdminZNode:
    @staticmethod
    def path() -> str:
        return "/admin"


class DeleteTopicsZNode:
    @staticmethod
    def path() -> str:
        return "/admin/delete_topics"


class DeleteTopicsTopicZNode:
    @staticmethod
    def path(topic: str) -> str:
        return f"{DeleteTopicsZNode.path()}/{topic}"


class ReassignPartitionsZNode:
    """Kafka: ReassignPartitionsZNode -- 2.4's ZooKeeper route for reassignments (kafka-reassign-partitions
    --zookeeper): {"version":1,"partitions":[{"topic":t,"partition":p,"replicas":[...]}, ...]}."""

    @staticmethod
    def path() -> str:
        return "/admin/reassign_partitions"

    # Kafka: ReassignPartitionsZNode.encode
    @staticmethod
    def encode(reassignment: dict[TopicPartition, list[int]]) -> bytes:
        return _json_bytes({"version": 1, "partitions": [
            {"topic": tp.topic, "partition": tp.partition, "replicas": list(replicas)}
            for tp, replicas in reassignment.items()]})

    # Kafka: ReassignPartitionsZNode.decode -- a znode that is not valid JSON reads as no reassignment
    @staticmethod
    def decode(data: bytes | None) -> dict[TopicPartition, list[int]]:
        try:
            js = _parse(data)
            if js is None:
                return {}
            return {TopicPartition(p["topic"], int(p["partition"])): [int(r) for r in p["replicas"]]
                    for p in js["partitions"]}
        except (ValueError, KeyError, TypeError):
            return {}


class PreferredReplicaElectionZNode:
    @staticmethod
    def path() -> str:
        return "/admin/preferred_replica_election"

    @staticmethod
    def encode(partitions: Iterable[TopicPartition]) -> bytes:
        return _json_bytes({"version": 1, "partitions": _partitions_json(partitions)})

    @staticmethod
    def decode(data: bytes | None) -> set[TopicPartition]:
        return _partitions_from_json(data)


# ---------------------------------------------------------------- cluster

class ClusterZNode:
    @staticmethod
    def path() -> str:
        return "/cluster"


class ClusterIdZNode:
    @staticmethod
    def path() -> str:
        return "/cluster/id"

    @staticmethod
    def to_json(cluster_id: str) -> bytes:
        return _json_bytes({"version": "1", "id": cluster_id})

    @staticmethod
    def from_json(data: bytes) -> str:
        return _parse(data)["id"]


class ProducerIdBlockZNode:
    @staticmethod
    def path() -> str:
        return "/latest_producer_id_block"


class ZkData:
    # Kafka: ZkData.PersistentZkPaths -- created at broker start-up by createTopLevelPaths
    PERSISTENT_ZK_PATHS = (
        "/consumers",  # the old consumer's path, still created by 2.4
        BrokerIdsZNode.path(),
        TopicsZNode.path(),
        ConfigEntityChangeNotificationZNode.path(),
        DeleteTopicsZNode.path(),
        BrokerSequenceIdZNode.path(),
        IsrChangeNotificationZNode.path(),
        ProducerIdBlockZNode.path(),
        LogDirEventNotificationZNode.path(),
    ) + tuple(ConfigEntityTypeZNode.path(t) for t in ConfigType.ALL)

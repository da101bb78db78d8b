"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/MetadataRequest.json, MetadataResponse.json

Classes: MetadataRequest, MetadataRequestTopic, MetadataResponse, MetadataResponseBroker,
MetadataResponseTopic, MetadataResponsePartition.

Request versions: in v0 an empty topic list asks for every topic; from v1 that is spelled null
(``topics=None``) and an empty list asks for none. v4 adds allow_auto_topic_creation; v8 asks for
authorized operations; v9 is the first flexible version; v10 adds topic ids (unused by brokers
until v12); v11 stops asking for cluster operations (DescribeCluster does that now).

Response versions: v1 adds racks, the controller id and is_internal; v2 the cluster id; v3 the
throttle time; v5 offline replicas; v7 the leader epoch; v8 authorized operations; v9 flexible;
v10 topic ids; v11 drops cluster operations; v12 lets a topic name be null (lookup by id).

Era notes: 2.4 stopped at v9; kafkalite serves up to v12 (DESIGN §2).
Left out: the request/response helper methods of MetadataRequest.java/MetadataResponse.java
(``topics()``, ``cluster()``); KafkaApis builds responses directly.
"""
from __future__ import annotations

import uuid

from kafkalite.protocol.schema import BOOL, INT16, INT32, STRING, UUID, array, field, message, struct

INT32_MIN = -2147483648  # "authorized operations not requested"


@struct
class MetadataRequestTopic:
    topic_id: uuid.UUID = field(UUID, "10+", ignorable=True)
    name: str | None = field(STRING, "0+", nullable="10+")


@message(api_key=3, kind="request", valid="0-12", flexible="9+")
class MetadataRequest:
    # None = every topic (v1+); in v0 the empty list means every topic.
    topics: list[MetadataRequestTopic] | None = field(array(MetadataRequestTopic), "0+", nullable="1+")
    allow_auto_topic_creation: bool = field(BOOL, "4+", default=True)
    include_cluster_authorized_operations: bool = field(BOOL, "8-10")
    include_topic_authorized_operations: bool = field(BOOL, "8+")


@struct
class MetadataResponseBroker:
    node_id: int = field(INT32, "0+")
    host: str = field(STRING, "0+")
    port: int = field(INT32, "0+")
    rack: str | None = field(STRING, "1+", nullable="1+", ignorable=True, default=None)


@struct
class MetadataResponsePartition:
    error_code: int = field(INT16, "0+")
    partition_index: int = field(INT32, "0+")
    leader_id: int = field(INT32, "0+")
    leader_epoch: int = field(INT32, "7+", ignorable=True, default=-1)
    replica_nodes: list[int] = field(array(INT32), "0+")
    isr_nodes: list[int] = field(array(INT32), "0+")
    offline_replicas: list[int] = field(array(INT32), "5+", ignorable=True)


@struct
class MetadataResponseTopic:
    error_code: int = field(INT16, "0+")
    name: str | None = field(STRING, "0+", nullable="12+")
    topic_id: uuid.UUID = field(UUID, "10+", ignorable=True)
    is_internal: bool = field(BOOL, "1+", ignorable=True)
    partitions: list[MetadataResponsePartition] = field(array(MetadataResponsePartition), "0+")
    topic_authorized_operations: int = field(INT32, "8+", default=INT32_MIN)


@message(api_key=3, kind="response", valid="0-12", flexible="9+")
class MetadataResponse:
    throttle_time_ms: int = field(INT32, "3+", ignorable=True)
    brokers: list[MetadataResponseBroker] = field(array(MetadataResponseBroker), "0+")
    cluster_id: str | None = field(STRING, "2+", nullable="2+", ignorable=True, default=None)
    controller_id: int = field(INT32, "1+", ignorable=True, default=-1)
    topics: list[MetadataResponseTopic] = field(array(MetadataResponseTopic), "0+")
    cluster_authorized_operations: int = field(INT32, "8-10", default=INT32_MIN)

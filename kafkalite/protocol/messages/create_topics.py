"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/CreateTopicsRequest.json, CreateTopicsResponse.json

Classes: CreateTopicsRequest, CreatableTopic, CreatableReplicaAssignment, CreatableTopicConfig,
CreateTopicsResponse, CreatableTopicResult, CreatableTopicConfigs.

Request versions: v1 adds validate_only; v4 lets num_partitions/replication_factor be -1 (broker
defaults) even without assignments (KIP-464); v5 is the first flexible version; v6-v7 change
only the response.
Response versions: v1 adds error_message; v2 throttle_time_ms; v5 flexible, and echoes the
created topic's partitions, replication factor and configs (KIP-525); v7 returns the topic id.

Era notes: 2.4 stopped at v5; kafkalite serves up to v7 (topic ids, see protocol-matrix G5).
Left out: nothing.
"""
from __future__ import annotations

import uuid

from kafkalite.protocol.schema import BOOL, INT8, INT16, INT32, STRING, UUID, array, field, message, struct


@struct
class CreatableReplicaAssignment:
    partition_index: int = field(INT32, "0+")
    broker_ids: list[int] = field(array(INT32), "0+")  # the replicas, preferred leader first


@struct
class CreatableTopicConfig:
    name: str = field(STRING, "0+")
    value: str | None = field(STRING, "0+", nullable="0+")


@struct
class CreatableTopic:
    name: str = field(STRING, "0+")
    num_partitions: int = field(INT32, "0+")  # -1: broker default (or taken from assignments)
    replication_factor: int = field(INT16, "0+")  # -1: broker default (or taken from assignments)
    assignments: list[CreatableReplicaAssignment] = field(array(CreatableReplicaAssignment), "0+")
    configs: list[CreatableTopicConfig] = field(array(CreatableTopicConfig), "0+")


@message(api_key=19, kind="request", valid="0-7", flexible="5+")
class CreateTopicsRequest:
    topics: list[CreatableTopic] = field(array(CreatableTopic), "0+")
    timeout_ms: int = field(INT32, "0+", default=60000)
    validate_only: bool = field(BOOL, "1+")  # check only, create nothing


@struct
class CreatableTopicConfigs:
    name: str = field(STRING, "5+")
    value: str | None = field(STRING, "5+", nullable="5+")
    read_only: bool = field(BOOL, "5+")
    config_source: int = field(INT8, "5+", ignorable=True, default=-1)
    is_sensitive: bool = field(BOOL, "5+")


@struct
class CreatableTopicResult:
    name: str = field(STRING, "0+")
    topic_id: uuid.UUID = field(UUID, "7+", ignorable=True)
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "1+", nullable="0+", ignorable=True)
    topic_config_error_code: int = field(INT16, "5+", tag=0, tagged="5+", ignorable=True)
    num_partitions: int = field(INT32, "5+", ignorable=True, default=-1)
    replication_factor: int = field(INT16, "5+", ignorable=True, default=-1)
    configs: list[CreatableTopicConfigs] | None = field(
        array(CreatableTopicConfigs), "5+", nullable="5+", ignorable=True)


@message(api_key=19, kind="response", valid="0-7", flexible="5+")
class CreateTopicsResponse:
    throttle_time_ms: int = field(INT32, "2+", ignorable=True)
    topics: list[CreatableTopicResult] = field(array(CreatableTopicResult), "0+")

"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/UpdateMetadataRequest.json, UpdateMetadataResponse.json
(and the grouping helpers of clients/src/main/java/org/apache/kafka/common/requests/UpdateMetadataRequest.java)

Classes: UpdateMetadataRequest, UpdateMetadataPartitionState, UpdateMetadataTopicState,
UpdateMetadataBroker, UpdateMetadataEndpoint, UpdateMetadataResponse.

The controller sends this to every broker so that each ``MetadataCache`` can answer Metadata
requests. Versions: v1 replaces the single host/port of a broker with a list of endpoints;
v2 adds the rack; v3 names each endpoint's listener; v4 adds offline replicas; v5 adds the
broker epoch and groups partition states by topic; v6 is flexible.

Era notes: exactly 2.4's versions.
Left out: Kafka's ``Builder``; ``UpdateMetadataRequest.build`` below does its grouping (it does
not convert endpoints to v0's single host/port: the caller fills ``v0_host``/``v0_port``).
"""
from __future__ import annotations

import uuid

from kafkalite.protocol.messages.partition_states import flatten, group_by_topic
from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, UUID, array, field, message, struct


@struct
class UpdateMetadataPartitionState:
    topic_name: str = field(STRING, "0-4", ignorable=True)  # v5+: taken from the enclosing topic state
    partition_index: int = field(INT32, "0+")
    controller_epoch: int = field(INT32, "0+")
    leader: int = field(INT32, "0+")
    leader_epoch: int = field(INT32, "0+")
    isr: list[int] = field(array(INT32), "0+")
    zk_version: int = field(INT32, "0+")
    replicas: list[int] = field(array(INT32), "0+")
    offline_replicas: list[int] = field(array(INT32), "4+", ignorable=True)


@struct
class UpdateMetadataTopicState:
    topic_name: str = field(STRING, "5+")
    topic_id: uuid.UUID = field(UUID, "7+", ignorable=True)  # Kafka 2.8+ (KIP-516)
    partition_states: list[UpdateMetadataPartitionState] = field(array(UpdateMetadataPartitionState), "5+")


@struct
class UpdateMetadataEndpoint:
    port: int = field(INT32, "1+")
    host: str = field(STRING, "1+")
    listener: str = field(STRING, "3+", ignorable=True)  # listener name, e.g. "PLAINTEXT"
    security_protocol: int = field(INT16, "1+")  # SecurityProtocol id: 0 = PLAINTEXT


@struct
class UpdateMetadataBroker:
    id: int = field(INT32, "0+")
    v0_host: str = field(STRING, "0", ignorable=True)  # v0 knows one plaintext endpoint only
    v0_port: int = field(INT32, "0", ignorable=True)
    endpoints: list[UpdateMetadataEndpoint] = field(array(UpdateMetadataEndpoint), "1+", ignorable=True)
    rack: str | None = field(STRING, "2+", nullable="0+", ignorable=True)


@message(api_key=6, kind="request", valid="0-7", flexible="6+")
class UpdateMetadataRequest:
    controller_id: int = field(INT32, "0+")
    controller_epoch: int = field(INT32, "0+")
    broker_epoch: int = field(INT64, "5+", ignorable=True, default=-1)
    ungrouped_partition_states: list[UpdateMetadataPartitionState] = field(
        array(UpdateMetadataPartitionState), "0-4")
    topic_states: list[UpdateMetadataTopicState] = field(array(UpdateMetadataTopicState), "5+")
    live_brokers: list[UpdateMetadataBroker] = field(array(UpdateMetadataBroker), "0+")

    # Kafka: UpdateMetadataRequest.Builder.build
    @classmethod
    def build(cls, version: int, partition_states: list, **fields) -> "UpdateMetadataRequest":
        """Put ``partition_states`` (each with its ``topic_name``) where ``version`` wants them."""
        if version < 5:
            return cls(ungrouped_partition_states=list(partition_states), **fields)
        return cls(topic_states=group_by_topic(partition_states, UpdateMetadataTopicState), **fields)

    # Kafka: UpdateMetadataRequest.partitionStates
    def partition_states(self) -> list[UpdateMetadataPartitionState]:
        """Every partition state, whatever the version, each with its ``topic_name`` filled in."""
        return flatten(self.ungrouped_partition_states, self.topic_states)


@message(api_key=6, kind="response", valid="0-7", flexible="6+")
class UpdateMetadataResponse:
    error_code: int = field(INT16, "0+")

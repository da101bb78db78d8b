"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/LeaderAndIsrRequest.json, LeaderAndIsrResponse.json
(and the grouping helpers of clients/src/main/java/org/apache/kafka/common/requests/LeaderAndIsrRequest.java)

Classes: LeaderAndIsrRequest, LeaderAndIsrPartitionState, LeaderAndIsrTopicState,
LeaderAndIsrLiveLeader, LeaderAndIsrResponse, LeaderAndIsrPartitionError.

The controller sends this to tell a broker which partitions it leads or follows (S-concepts of
the controller chapter). Versions: v1 adds is_new; v2 adds broker_epoch and groups partition
states by topic (``topic_states``; v0-1 carry a flat ``ungrouped_partition_states`` in which
each state names its topic); v3 adds adding/removing replicas (KIP-455); v4 is flexible.

Era notes: exactly 2.4's versions; later ones (topic ids, KRaft's type field) are not served.
Left out: Kafka's ``Builder`` class; ``LeaderAndIsrRequest.build`` below does its grouping.
"""
from __future__ import annotations

from kafkalite.protocol.messages.partition_states import flatten, group_by_topic
from kafkalite.protocol.schema import BOOL, INT16, INT32, INT64, STRING, array, field, message, struct


@struct
class LeaderAndIsrPartitionState:
    topic_name: str = field(STRING, "0-1", ignorable=True)  # v2+: taken from the enclosing topic state
    partition_index: int = field(INT32, "0+")
    controller_epoch: int = field(INT32, "0+")
    leader: int = field(INT32, "0+")  # broker id of the leader
    leader_epoch: int = field(INT32, "0+")
    isr: list[int] = field(array(INT32), "0+")
    zk_version: int = field(INT32, "0+")  # version of the partition state znode
    replicas: list[int] = field(array(INT32), "0+")
    adding_replicas: list[int] = field(array(INT32), "3+", ignorable=True)
    removing_replicas: list[int] = field(array(INT32), "3+", ignorable=True)
    is_new: bool = field(BOOL, "1+", ignorable=True)  # the replica is being created


@struct
class LeaderAndIsrTopicState:
    topic_name: str = field(STRING, "2+")
    partition_states: list[LeaderAndIsrPartitionState] = field(array(LeaderAndIsrPartitionState), "2+")


@struct
class LeaderAndIsrLiveLeader:
    broker_id: int = field(INT32, "0+")
    host_name: str = field(STRING, "0+")
    port: int = field(INT32, "0+")


@message(api_key=4, kind="request", valid="0-4", flexible="4+")
class LeaderAndIsrRequest:
    controller_id: int = field(INT32, "0+")
    controller_epoch: int = field(INT32, "0+")
    broker_epoch: int = field(INT64, "2+", ignorable=True, default=-1)
    ungrouped_partition_states: list[LeaderAndIsrPartitionState] = field(array(LeaderAndIsrPartitionState), "0-1")
    topic_states: list[LeaderAndIsrTopicState] = field(array(LeaderAndIsrTopicState), "2+")
    live_leaders: list[LeaderAndIsrLiveLeader] = field(array(LeaderAndIsrLiveLeader), "0+")

    # Kafka: LeaderAndIsrRequest.Builder.build
    @classmethod
    def build(cls, version: int, partition_states: list, **fields) -> "LeaderAndIsrRequest":
        """Put ``partition_states`` (each with its ``topic_name``) where ``version`` wants them."""
        if version < 2:
            return cls(ungrouped_partition_states=list(partition_states), **fields)
        return cls(topic_states=group_by_topic(partition_states, LeaderAndIsrTopicState), **fields)

    # Kafka: LeaderAndIsrRequest.partitionStates
    def partition_states(self) -> list[LeaderAndIsrPartitionState]:
        """Every partition state, whatever the version, each with its ``topic_name`` filled in."""
        return flatten(self.ungrouped_partition_states, self.topic_states)


@struct
class LeaderAndIsrPartitionError:
    topic_name: str = field(STRING, "0+")
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")


@message(api_key=4, kind="response", valid="0-4", flexible="4+")
class LeaderAndIsrResponse:
    error_code: int = field(INT16, "0+")
    partition_errors: list[LeaderAndIsrPartitionError] = field(array(LeaderAndIsrPartitionError), "0+")

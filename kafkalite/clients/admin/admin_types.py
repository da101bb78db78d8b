"""Mirrors Kafka 2.4: the value classes of clients/src/main/java/org/apache/kafka/clients/admin/
(NewTopic.java, NewPartitions.java, TopicListing.java, TopicDescription.java, ../common/TopicPartitionInfo.java,
Config.java, ConfigEntry.java, AlterConfigOp.java, ../common/config/ConfigResource.java,
ConsumerGroupListing.java, ConsumerGroupDescription.java, MemberDescription.java, MemberAssignment.java,
DescribeClusterResult.java's values, PartitionReassignment.java), and Kafka 3.0's (KIP-664) TransactionState.java,
TransactionListing.java, TransactionDescription.java, ProducerState.java, DescribeProducersResult.java's
PartitionProducerState, AbortTransactionSpec.java.

Classes: NewTopic, TopicListing, TopicPartitionInfo, TopicDescription, ConfigResource, ConfigSource,
ConfigType, ConfigSynonym, ConfigEntry, AlterConfigOp, ConsumerGroupListing, MemberDescription,
ConsumerGroupDescription, ClusterDescription, PartitionReassignment; TransactionState, TransactionListing,
TransactionDescription, ProducerState, PartitionProducerState, AbortTransactionSpec.

Plain attrs classes: what KafkaAdminClient's futures resolve to, without the futures. Kafka's OptionalInt /
OptionalLong fields are ``int | None`` here.

Era notes: TopicPartitionInfo's ``elr`` / ``last_known_elr`` are Kafka 3.7's (KIP-966), TopicDescription's
``topic_id`` Kafka 2.8's; ConfigEntry's ``type`` and ``documentation`` are Kafka 2.6's (KIP-569); the transaction classes are Kafka 3.0's (2.4's admin client cannot describe transactions).
Left out: authorized operations, topic ids.
"""
from __future__ import annotations

import enum
import uuid

import attrs

from kafkalite.clients.node import Node
from kafkalite.common.topic_partition import TopicPartition


@attrs.define
class NewTopic:
    """Kafka: NewTopic -- ``num_partitions``/``replication_factor`` -1 take the broker defaults."""
    name: str
    num_partitions: int = -1
    replication_factor: int = -1
    replica_assignments: dict[int, list[int]] | None = None
    configs: dict[str, str] = attrs.field(factory=dict)


@attrs.frozen
class TopicListing:
    """Kafka: TopicListing."""
    name: str
    is_internal: bool


@attrs.frozen
class TopicPartitionInfo:
    """Kafka: org.apache.kafka.common.TopicPartitionInfo."""
    partition: int
    leader: Node | None
    replicas: tuple[Node, ...]
    isr: tuple[Node, ...]
    elr: tuple[Node, ...] | None = None              # Kafka 3.7: TopicPartitionInfo.elr (None: not asked by
    last_known_elr: tuple[Node, ...] | None = None   # DescribeTopicPartitions); lastKnownElr likewise


@attrs.frozen
class TopicDescription:
    """Kafka: TopicDescription."""
    name: str
    is_internal: bool
    partitions: tuple[TopicPartitionInfo, ...]
    topic_id: uuid.UUID | None = None                # Kafka 2.8: TopicDescription.topicId (KIP-516)


class ConfigResourceType(enum.Enum):
    """Kafka: ConfigResource.Type (wire ids)."""
    UNKNOWN = 0
    TOPIC = 2
    BROKER = 4
    BROKER_LOGGER = 8


@attrs.frozen
class ConfigResource:
    """Kafka: org.apache.kafka.common.config.ConfigResource."""
    type: ConfigResourceType
    name: str


class ConfigSource(enum.Enum):
    """Kafka: ConfigEntry.ConfigSource (wire ids); ``str()`` is the Java name kafka-configs prints."""
    UNKNOWN = 0
    DYNAMIC_TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    DYNAMIC_BROKER_LOGGER_CONFIG = 6

    def __str__(self) -> str:
        return self.name


class ConfigType(enum.Enum):
    """Kafka 2.6: ConfigEntry.ConfigType (KIP-569; wire ids of DescribeConfigs v3+)."""
    UNKNOWN = 0
    BOOLEAN = 1
    STRING = 2
    INT = 3
    SHORT = 4
    LONG = 5
    DOUBLE = 6
    LIST = 7
    CLASS = 8
    PASSWORD = 9

    def __str__(self) -> str:
        return self.name


@attrs.frozen
class ConfigSynonym:
    """Kafka: ConfigEntry.ConfigSynonym."""
    name: str
    value: str | None
    source: ConfigSource


@attrs.frozen
class ConfigEntry:
    """Kafka: ConfigEntry."""
    name: str
    value: str | None
    source: ConfigSource = ConfigSource.UNKNOWN
    is_sensitive: bool = False
    is_read_only: bool = False
    synonyms: tuple[ConfigSynonym, ...] = ()
    type: ConfigType = ConfigType.UNKNOWN          # Kafka 2.6: ConfigEntry.type()
    documentation: str | None = None               # Kafka 2.6: ConfigEntry.documentation()

    # Kafka: ConfigEntry.isDefault
    def is_default(self) -> bool:
        return self.source is ConfigSource.DEFAULT_CONFIG


class OpType(enum.Enum):
    """Kafka: AlterConfigOp.OpType (wire ids)."""
    SET = 0
    DELETE = 1
    APPEND = 2
    SUBTRACT = 3


@attrs.frozen
class AlterConfigOp:
    """Kafka: AlterConfigOp."""
    name: str
    value: str | None
    op_type: OpType = OpType.SET


@attrs.frozen
class ConsumerGroupListing:
    """Kafka: ConsumerGroupListing."""
    group_id: str
    is_simple_consumer_group: bool
    state: str | None = None


@attrs.frozen
class MemberDescription:
    """Kafka: MemberDescription (with MemberAssignment's partitions inline)."""
    member_id: str
    group_instance_id: str | None
    client_id: str
    host: str
    assignment: frozenset[TopicPartition]


@attrs.frozen
class ConsumerGroupDescription:
    """Kafka: ConsumerGroupDescription."""
    group_id: str
    is_simple_consumer_group: bool
    members: tuple[MemberDescription, ...]
    partition_assignor: str
    state: str
    coordinator: Node | None


@attrs.frozen
class ClusterDescription:
    """Kafka: DescribeClusterResult's three values."""
    nodes: tuple[Node, ...]
    controller: Node | None
    cluster_id: str | None


@attrs.frozen
class PartitionReassignment:
    """Kafka: PartitionReassignment -- a partition being moved: all its replicas meanwhile, and those being added
    and removed (KIP-455)."""
    replicas: tuple[int, ...]
    adding_replicas: tuple[int, ...]
    removing_replicas: tuple[int, ...]


class TransactionState(enum.Enum):
    """Kafka 3.0: org.apache.kafka.clients.admin.TransactionState -- the coordinator's state names as the wire
    carries them; ``str()`` is that name, as kafka-transactions prints it."""
    ONGOING = "Ongoing"
    PREPARE_ABORT = "PrepareAbort"
    PREPARE_COMMIT = "PrepareCommit"
    COMPLETE_ABORT = "CompleteAbort"
    COMPLETE_COMMIT = "CompleteCommit"
    EMPTY = "Empty"
    PREPARE_EPOCH_FENCE = "PrepareEpochFence"
    UNKNOWN = "Unknown"

    @classmethod
    def parse(cls, name: str) -> "TransactionState":
        """A name no member has is UNKNOWN (a newer broker's state), as Kafka's ``TransactionState.parse``."""
        try:
            return cls(name)
        except ValueError:
            return cls.UNKNOWN

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class TransactionListing:
    """Kafka 3.0: TransactionListing -- one line of a coordinator's ListTransactions answer."""
    transactional_id: str
    producer_id: int
    state: TransactionState


@attrs.frozen
class TransactionDescription:
    """Kafka 3.0: TransactionDescription -- ``transaction_start_time_ms`` None while no transaction is open."""
    coordinator_id: int
    state: TransactionState
    producer_id: int
    producer_epoch: int
    transaction_timeout_ms: int
    transaction_start_time_ms: int | None
    topic_partitions: frozenset[TopicPartition]


@attrs.frozen
class ProducerState:
    """Kafka 3.0: ProducerState -- what a partition's leader knows of one producer id; ``coordinator_epoch`` None
    before any marker, ``current_transaction_start_offset`` None when no transaction is open on the partition."""
    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_timestamp: int
    coordinator_epoch: int | None
    current_transaction_start_offset: int | None


@attrs.frozen
class PartitionProducerState:
    """Kafka 3.0: DescribeProducersResult.PartitionProducerState."""
    active_producers: tuple[ProducerState, ...]


@attrs.frozen
class AbortTransactionSpec:
    """Kafka 3.0: AbortTransactionSpec -- which open transaction ``abort_transaction`` ends on one partition."""
    topic_partition: TopicPartition
    producer_id: int
    producer_epoch: int
    coordinator_epoch: int

    def __str__(self) -> str:
        return (f"AbortTransactionSpec(topicPartition={self.topic_partition}, producerId={self.producer_id}, "
                f"producerEpoch={self.producer_epoch}, coordinatorEpoch={self.coordinator_epoch})")

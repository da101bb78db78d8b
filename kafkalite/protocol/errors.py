"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/protocol/Errors.java

Classes: Errors (enum of wire error codes), KafkaException (the clients' general error), ApiException and
one subclass per error.

Kafka keeps one Java exception class per error code (``CorruptRecordException``,
``UnknownTopicOrPartitionException`` ...). kafkalite builds the same set from a table: each
``Errors`` member knows its code, whether a client may retry, and its exception class.
Broker code raises ``Errors.X.exception("why")`` and the request handlers turn any
``ApiException`` back into its code with ``Errors.for_exception``.

Era notes: codes up to 108, and 114-115 for DescribeCluster v1 (today's clients send and expect the newer ones too).
Omitted: the default message strings of Kafka's table (our own words are in the exceptions).
"""
from __future__ import annotations

import enum

# (name, code, retriable, Kafka's exception class name)
_TABLE = [
    ("UNKNOWN_SERVER_ERROR", -1, False, "UnknownServerException"),
    ("NONE", 0, False, None),
    ("OFFSET_OUT_OF_RANGE", 1, False, "OffsetOutOfRangeException"),
    ("CORRUPT_MESSAGE", 2, True, "CorruptRecordException"),
    ("UNKNOWN_TOPIC_OR_PARTITION", 3, True, "UnknownTopicOrPartitionException"),
    ("INVALID_FETCH_SIZE", 4, False, "InvalidFetchSizeException"),
    ("LEADER_NOT_AVAILABLE", 5, True, "LeaderNotAvailableException"),
    ("NOT_LEADER_FOR_PARTITION", 6, True, "NotLeaderForPartitionException"),
    ("REQUEST_TIMED_OUT", 7, True, "TimeoutException"),
    ("BROKER_NOT_AVAILABLE", 8, False, "BrokerNotAvailableException"),
    ("REPLICA_NOT_AVAILABLE", 9, True, "ReplicaNotAvailableException"),
    ("MESSAGE_TOO_LARGE", 10, False, "RecordTooLargeException"),
    ("STALE_CONTROLLER_EPOCH", 11, False, "ControllerMovedException"),
    ("OFFSET_METADATA_TOO_LARGE", 12, False, "OffsetMetadataTooLarge"),
    ("NETWORK_EXCEPTION", 13, True, "NetworkException"),
    ("COORDINATOR_LOAD_IN_PROGRESS", 14, True, "CoordinatorLoadInProgressException"),
    ("COORDINATOR_NOT_AVAILABLE", 15, True, "CoordinatorNotAvailableException"),
    ("NOT_COORDINATOR", 16, True, "NotCoordinatorException"),
    ("INVALID_TOPIC_EXCEPTION", 17, False, "InvalidTopicException"),
    ("RECORD_LIST_TOO_LARGE", 18, False, "RecordBatchTooLargeException"),
    ("NOT_ENOUGH_REPLICAS", 19, True, "NotEnoughReplicasException"),
    ("NOT_ENOUGH_REPLICAS_AFTER_APPEND", 20, True, "NotEnoughReplicasAfterAppendException"),
    ("INVALID_REQUIRED_ACKS", 21, False, "InvalidRequiredAcksException"),
    ("ILLEGAL_GENERATION", 22, False, "IllegalGenerationException"),
    ("INCONSISTENT_GROUP_PROTOCOL", 23, False, "InconsistentGroupProtocolException"),
    ("INVALID_GROUP_ID", 24, False, "InvalidGroupIdException"),
    ("UNKNOWN_MEMBER_ID", 25, False, "UnknownMemberIdException"),
    ("INVALID_SESSION_TIMEOUT", 26, False, "InvalidSessionTimeoutException"),
    ("REBALANCE_IN_PROGRESS", 27, False, "RebalanceInProgressException"),
    ("INVALID_COMMIT_OFFSET_SIZE", 28, False, "InvalidCommitOffsetSizeException"),
    ("TOPIC_AUTHORIZATION_FAILED", 29, False, "TopicAuthorizationException"),
    ("GROUP_AUTHORIZATION_FAILED", 30, False, "GroupAuthorizationException"),
    ("CLUSTER_AUTHORIZATION_FAILED", 31, False, "ClusterAuthorizationException"),
    ("INVALID_TIMESTAMP", 32, False, "InvalidTimestampException"),
    ("UNSUPPORTED_SASL_MECHANISM", 33, False, "UnsupportedSaslMechanismException"),
    ("ILLEGAL_SASL_STATE", 34, False, "IllegalSaslStateException"),
    ("UNSUPPORTED_VERSION", 35, False, "UnsupportedVersionException"),
    ("TOPIC_ALREADY_EXISTS", 36, False, "TopicExistsException"),
    ("INVALID_PARTITIONS", 37, False, "InvalidPartitionsException"),
    ("INVALID_REPLICATION_FACTOR", 38, False, "InvalidReplicationFactorException"),
    ("INVALID_REPLICA_ASSIGNMENT", 39, False, "InvalidReplicaAssignmentException"),
    ("INVALID_CONFIG", 40, False, "InvalidConfigurationException"),
    ("NOT_CONTROLLER", 41, True, "NotControllerException"),
    ("INVALID_REQUEST", 42, False, "InvalidRequestException"),
    ("UNSUPPORTED_FOR_MESSAGE_FORMAT", 43, False, "UnsupportedForMessageFormatException"),
    ("POLICY_VIOLATION", 44, False, "PolicyViolationException"),
    ("OUT_OF_ORDER_SEQUENCE_NUMBER", 45, False, "OutOfOrderSequenceException"),
    ("DUPLICATE_SEQUENCE_NUMBER", 46, False, "DuplicateSequenceException"),
    ("INVALID_PRODUCER_EPOCH", 47, False, "ProducerFencedException"),
    ("INVALID_TXN_STATE", 48, False, "InvalidTxnStateException"),
    ("INVALID_PRODUCER_ID_MAPPING", 49, False, "InvalidPidMappingException"),
    ("INVALID_TRANSACTION_TIMEOUT", 50, False, "InvalidTxnTimeoutException"),
    ("CONCURRENT_TRANSACTIONS", 51, False, "ConcurrentTransactionsException"),
    ("TRANSACTION_COORDINATOR_FENCED", 52, False, "TransactionCoordinatorFencedException"),
    ("TRANSACTIONAL_ID_AUTHORIZATION_FAILED", 53, False, "TransactionalIdAuthorizationException"),
    ("SECURITY_DISABLED", 54, False, "SecurityDisabledException"),
    ("OPERATION_NOT_ATTEMPTED", 55, False, "OperationNotAttemptedException"),
    ("KAFKA_STORAGE_ERROR", 56, True, "KafkaStorageException"),
    ("LOG_DIR_NOT_FOUND", 57, False, "LogDirNotFoundException"),
    ("SASL_AUTHENTICATION_FAILED", 58, False, "SaslAuthenticationException"),
    ("UNKNOWN_PRODUCER_ID", 59, False, "UnknownProducerIdException"),
    ("REASSIGNMENT_IN_PROGRESS", 60, False, "ReassignmentInProgressException"),
    ("DELEGATION_TOKEN_AUTH_DISABLED", 61, False, "DelegationTokenDisabledException"),
    ("DELEGATION_TOKEN_NOT_FOUND", 62, False, "DelegationTokenNotFoundException"),
    ("DELEGATION_TOKEN_OWNER_MISMATCH", 63, False, "DelegationTokenOwnerMismatchException"),
    ("DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", 64, False, "UnsupportedByAuthenticationException"),
    ("DELEGATION_TOKEN_AUTHORIZATION_FAILED", 65, False, "DelegationTokenAuthorizationException"),
    ("DELEGATION_TOKEN_EXPIRED", 66, False, "DelegationTokenExpiredException"),
    ("INVALID_PRINCIPAL_TYPE", 67, False, "InvalidPrincipalTypeException"),
    ("NON_EMPTY_GROUP", 68, False, "GroupNotEmptyException"),
    ("GROUP_ID_NOT_FOUND", 69, False, "GroupIdNotFoundException"),
    ("FETCH_SESSION_ID_NOT_FOUND", 70, True, "FetchSessionIdNotFoundException"),
    ("INVALID_FETCH_SESSION_EPOCH", 71, True, "InvalidFetchSessionEpochException"),
    ("LISTENER_NOT_FOUND", 72, True, "ListenerNotFoundException"),
    ("TOPIC_DELETION_DISABLED", 73, False, "TopicDeletionDisabledException"),
    ("FENCED_LEADER_EPOCH", 74, True, "FencedLeaderEpochException"),
    ("UNKNOWN_LEADER_EPOCH", 75, True, "UnknownLeaderEpochException"),
    ("UNSUPPORTED_COMPRESSION_TYPE", 76, False, "UnsupportedCompressionTypeException"),
    ("STALE_BROKER_EPOCH", 77, False, "StaleBrokerEpochException"),
    ("OFFSET_NOT_AVAILABLE", 78, True, "OffsetNotAvailableException"),
    ("MEMBER_ID_REQUIRED", 79, False, "MemberIdRequiredException"),
    ("PREFERRED_LEADER_NOT_AVAILABLE", 80, True, "PreferredLeaderNotAvailableException"),
    ("GROUP_MAX_SIZE_REACHED", 81, False, "GroupMaxSizeReachedException"),
    ("FENCED_INSTANCE_ID", 82, False, "FencedInstanceIdException"),
    ("ELIGIBLE_LEADERS_NOT_AVAILABLE", 83, True, "EligibleLeadersNotAvailableException"),
    ("ELECTION_NOT_NEEDED", 84, False, "ElectionNotNeededException"),
    ("NO_REASSIGNMENT_IN_PROGRESS", 85, False, "NoReassignmentInProgressException"),
    ("GROUP_SUBSCRIBED_TO_TOPIC", 86, False, "GroupSubscribedToTopicException"),
    ("INVALID_RECORD", 87, False, "InvalidRecordException"),
    ("UNSTABLE_OFFSET_COMMIT", 88, True, "UnstableOffsetCommitException"),
    ("THROTTLING_QUOTA_EXCEEDED", 89, True, "ThrottlingQuotaExceededException"),
    ("PRODUCER_FENCED", 90, False, "ProducerFencedException"),
    ("RESOURCE_NOT_FOUND", 91, False, "ResourceNotFoundException"),
    ("DUPLICATE_RESOURCE", 92, False, "DuplicateResourceException"),
    ("UNACCEPTABLE_CREDENTIAL", 93, False, "UnacceptableCredentialException"),
    ("INCONSISTENT_VOTER_SET", 94, False, "InconsistentVoterSetException"),
    ("INVALID_UPDATE_VERSION", 95, False, "InvalidUpdateVersionException"),
    ("FEATURE_UPDATE_FAILED", 96, False, "FeatureUpdateFailedException"),
    ("PRINCIPAL_DESERIALIZATION_FAILURE", 97, False, "PrincipalDeserializationException"),
    ("SNAPSHOT_NOT_FOUND", 98, False, "SnapshotNotFoundException"),
    ("POSITION_OUT_OF_RANGE", 99, False, "PositionOutOfRangeException"),
    ("UNKNOWN_TOPIC_ID", 100, True, "UnknownTopicIdException"),
    ("DUPLICATE_BROKER_REGISTRATION", 101, False, "DuplicateBrokerRegistrationException"),
    ("BROKER_ID_NOT_REGISTERED", 102, False, "BrokerIdNotRegisteredException"),
    ("INCONSISTENT_TOPIC_ID", 103, True, "InconsistentTopicIdException"),
    ("INCONSISTENT_CLUSTER_ID", 104, False, "InconsistentClusterIdException"),
    ("TRANSACTIONAL_ID_NOT_FOUND", 105, False, "TransactionalIdNotFoundException"),
    ("FETCH_SESSION_TOPIC_ID_ERROR", 106, True, "FetchSessionTopicIdException"),
    ("INELIGIBLE_REPLICA", 107, False, "IneligibleReplicaException"),
    ("NEW_LEADER_ELECTED", 108, False, "NewLeaderElectedException"),
    # Kafka 3.7 (KIP-848): the consumer group protocol's member epochs, static members and assignors
    ("FENCED_MEMBER_EPOCH", 110, False, "FencedMemberEpochException"),
    ("UNRELEASED_INSTANCE_ID", 111, False, "UnreleasedInstanceIdException"),
    ("UNSUPPORTED_ASSIGNOR", 112, False, "UnsupportedAssignorException"),
    ("STALE_MEMBER_EPOCH", 113, False, "StaleMemberEpochException"),
    # Kafka 3.7 (KIP-919): DescribeCluster v1 asked of the wrong kind of endpoint
    ("MISMATCHED_ENDPOINT_TYPE", 114, False, "MismatchedEndpointTypeException"),
    ("UNSUPPORTED_ENDPOINT_TYPE", 115, False, "UnsupportedEndpointTypeException"),
]


class KafkaException(RuntimeError):
    """Kafka: org.apache.kafka.common.KafkaException -- the clients' general error (a closed producer, a flush
    that timed out). Kafka's ApiException extends it; here ApiException keeps its own base for now."""


class ApiException(Exception):
    """Base of every error that has a wire code (Kafka: org.apache.kafka.common.errors.ApiException)."""

    error: "Errors"

    def __init__(self, message: str | None = None):
        super().__init__(message or self.error.name)


class RetriableException(ApiException):
    """An error a client may retry (Kafka: RetriableException)."""


class Errors(enum.Enum):
    """Every wire error code, with Kafka's names. ``Errors.NONE.code == 0``."""

    def __new__(cls, name, code, retriable, exception_name):
        obj = object.__new__(cls)
        obj._value_ = code
        return obj

    def __init__(self, name, code, retriable, exception_name):
        self.code = code
        self.retriable = retriable
        if exception_name is None:
            self.exception_class = None
        else:
            base = RetriableException if retriable else ApiException
            self.exception_class = type(exception_name, (base,), {"error": self, "__module__": __name__})

    locals().update({row[0]: row for row in _TABLE})

    def exception(self, message: str | None = None) -> ApiException:
        """Kafka: Errors.exception(message) -- a new exception carrying this code."""
        if self.exception_class is None:
            raise ValueError("Errors.NONE has no exception")
        return self.exception_class(message)

    @classmethod
    def for_code(cls, code: int) -> "Errors":
        """Kafka: Errors.forCode -- unknown codes map to UNKNOWN_SERVER_ERROR."""
        try:
            return cls(code)
        except ValueError:
            return cls.UNKNOWN_SERVER_ERROR

    @classmethod
    def for_exception(cls, exc: BaseException) -> "Errors":
        """Kafka: Errors.forException -- anything that is not an ApiException is UNKNOWN_SERVER_ERROR."""
        if isinstance(exc, ApiException):
            return exc.error
        return cls.UNKNOWN_SERVER_ERROR


# Module-level names for the classes, so ``from kafkalite.protocol.errors import CorruptRecordException`` works.
for _member in Errors:
    if _member.exception_class is not None:
        globals().setdefault(_member.exception_class.__name__, _member.exception_class)
del _member

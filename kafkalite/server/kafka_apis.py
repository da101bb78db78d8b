"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaApis.scala

Classes: KafkaApis.

``handle`` routes every request by api key to its ``handle_*_request`` method (S6); each handler
validates, calls the component that owns the work -- ReplicaManager, GroupCoordinator,
AdminManager, MetadataCache -- and answers through a callback that queues the response on the
RequestChannel for the Processor that owns the connection (S29).
KafkaApis.scala is one 2,800-line class in 2.4; so is this one, in the same order of concerns: the
cluster, admin and control handlers, then the data path, the groups, the configs.

The data path. Produce (S29, S33): records go to ``ReplicaManager.append_records`` untouched (a
memoryview of the request buffer); the callback answers, or for acks=0 sends nothing (NoOpAction) --
or closes the connection if something failed, since the producer would never see the error otherwise.
Fetch: ``self.fetch_manager`` (fetch_session.py) turns the request's session id and epoch into a FetchContext
(KIP-227 incremental fetch sessions): a full or sessionless fetch answers every partition it names, an
incremental one reads every partition of its session and answers those with news. Records are
``FileRecords`` slices, sent with sendfile by the network layer.

The groups. Each handler turns a parsed request into a call on ``self.group_coordinator`` and answers
through ``self.send_response`` -- at once, or later from the coordinator's callback (a JoinGroup waits
in the DelayedJoin for the whole group, possibly on the timer's thread). FindCoordinator answers with
the leader of the ``__consumer_offsets`` partition the group hashes to, creating the topic on first use
(``create_internal_topic``) and answering COORDINATOR_NOT_AVAILABLE until a leader is known.

The configs are AdminManager's work (describe, alter, incremental alter); the handlers unpack and answer.

Era notes: request versions are today's (JoinGroup v7, SyncGroup v5, OffsetCommit v9, OffsetFetch v7,
LeaveGroup v5, ListGroups v4 with the KIP-518 states filter, TxnOffsetCommit v3 whose member id and generation
2.5's coordinator checks (KIP-447), OffsetFetch v7's ``require_stable``).
The transactions. InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn and EndTxn go to
``self.txn_coordinator`` (TransactionCoordinator) and are answered from its callback; a fenced producer's
PRODUCER_FENCED (Kafka 2.7) is answered as INVALID_PRODUCER_EPOCH to request versions older than the ones
that know it, so those see exactly 2.4's error. DescribeTransactions / ListTransactions are Kafka 3.0's
(KIP-664). TxnOffsetCommit goes to the group coordinator, which holds the offsets pending until the
transaction's marker reaches ``__consumer_offsets``.
Transactions, log side: Produce accepts transactional batches; a read_committed Fetch (isolation level
1) reads up to the last stable offset and lists the aborted transactions; ListOffsets v2+ with isolation
level 1 answers the LSO for LATEST; WriteTxnMarkers appends the coordinator's markers; DescribeProducers
(KIP-664, Kafka 3.0) reports the producer state of each partition.
Authorization (Kafka 2.4's checks, docs/acls.md has the table): each handler first asks ``self.auth_helper``
(auth_helper.py: 2.4's private authorize / filterAuthorized helpers under Kafka 2.8's AuthHelper name) for the operations Kafka checks and answers Kafka's *_AUTHORIZATION_FAILED codes for what is refused;
with no authorizer configured every check passes. The CreateAcls / DescribeAcls / DeleteAcls handlers live in
``self.acl_apis`` (acl_apis.py, Kafka 3.0's AclApis). DescribeTransactions, ListTransactions and DescribeProducers
authorize as Kafka 3.0 does (Describe on the transactional id, Read on the topic), Describe/AlterUserScramCredentials
as Kafka 2.7 does (Describe / Alter on the cluster).
SASL: the handshake APIs are the network thread's (SaslServerAuthenticator); one that reaches KafkaApis came
after authentication and is answered ILLEGAL_SASL_STATE, as Kafka's handlers do. Describe/AlterUserScramCredentials
(Kafka 2.7, KIP-554) are UserScramCredentialsManager's work.
Client quotas: responses with a throttle_time_ms go through ``send_response_maybe_throttle`` (request-time
quota), Produce and Fetch add their byte rates (``self.quotas``, QuotaFactory's QuotaManagers); the
Describe/AlterClientQuotas handlers (Kafka 2.6, KIP-546) are ClientQuotasAdmin's work.
Omitted: OffsetFetch v8+
(multi-group) and FindCoordinator v4+ (batched keys).
"""
from __future__ import annotations

import re
import threading

from kafkalite.common import topic as Topic
from kafkalite.common.acl.acl_operation import AclOperation
from kafkalite.common.resource.resource_pattern import CLUSTER_NAME
from kafkalite.common.resource.resource_type import ResourceType
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.group.group_metadata import OffsetAndMetadata
from kafkalite.coordinator.group.group_metadata_manager import INVALID_OFFSET, NO_METADATA
from kafkalite.network.request_channel import CloseConnectionAction, NoOpAction, Response
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import ApiException, CorruptRecordException, Errors
from kafkalite.protocol.transaction_result import TransactionResult
from kafkalite.protocol.messages import (alter_configs, alter_partition_reassignments, api_versions,
                                         controlled_shutdown, create_partitions, create_topics, delete_groups,
                                         delete_records, delete_topics, describe_cluster, describe_configs,
                                         describe_groups, elect_leaders, fetch, find_coordinator, heartbeat,
                                         incremental_alter_configs, init_producer_id, join_group, leader_and_isr,
                                         add_offsets_to_txn, add_partitions_to_txn, describe_transactions, end_txn,
                                         list_transactions,
                                         leave_group, list_groups, list_offsets, list_partition_reassignments,
                                         metadata, offset_commit, offset_delete, offset_fetch,
                                         offset_for_leader_epoch, produce, stop_replica, sync_group, txn_offset_commit,
                                         update_metadata)
from kafkalite.protocol.requests import api_versions_fallback_response
from kafkalite.protocol.messages import alter_replica_log_dirs, describe_log_dirs, describe_producers, write_txn_markers
from kafkalite.protocol.messages import sasl_authenticate, sasl_handshake
from kafkalite.protocol.messages import consumer_group_describe, consumer_group_heartbeat
from kafkalite.log.producer_state_manager import AppendOrigin
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.control_record_type import ControlRecordType
from kafkalite.record.end_transaction_marker import EndTransactionMarker
from kafkalite.record.default_record_batch import ATTRIBUTES_OFFSET, MAGIC_OFFSET, TRANSACTIONAL_FLAG_MASK
from kafkalite.protocol.fetch_metadata import FetchMetadata
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.record.abstract_legacy_record_batch import is_legacy
from kafkalite.server.fetch_down_conversion import MIN_ZSTD_FETCH_VERSION, maybe_convert_fetched_data
from kafkalite.server.fetch_session import (_PARTITION_OVERHEAD, FetchManager, FetchSessionCache, build_fetch_response,
                                            records_size)
from kafkalite.server.replication_quota_manager import UnboundedQuota
from kafkalite.server.replica_manager import FetchPartitionData, PartitionResponse
from kafkalite.server.delayed_operation_key import TopicPartitionOperationKey
from kafkalite.server.acl_apis import AclApis
from kafkalite.server.auth_helper import AuthHelper
from kafkalite.server.describe_topic_partitions_request_handler import DescribeTopicPartitionsRequestHandler
from kafkalite.utils.logging import Logging
from kafkalite.zk.kafka_zk_client import topic_id_to_uuid

UNKNOWN_BROKER_EPOCH = -1
_SOFTWARE = re.compile(r"^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$")
# The APIs this broker serves (what ApiVersions advertises); KafkaApis.handle dispatches each explicitly.
SERVED_APIS = (
    ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.LIST_OFFSETS, ApiKeys.METADATA, ApiKeys.LEADER_AND_ISR,
    ApiKeys.STOP_REPLICA, ApiKeys.UPDATE_METADATA, ApiKeys.CONTROLLED_SHUTDOWN, ApiKeys.OFFSET_COMMIT,
    ApiKeys.OFFSET_FETCH,
    ApiKeys.FIND_COORDINATOR, ApiKeys.JOIN_GROUP, ApiKeys.HEARTBEAT, ApiKeys.LEAVE_GROUP, ApiKeys.SYNC_GROUP,
    ApiKeys.DESCRIBE_GROUPS, ApiKeys.LIST_GROUPS, ApiKeys.API_VERSIONS, ApiKeys.CREATE_TOPICS,
    ApiKeys.ALTER_REPLICA_LOG_DIRS, ApiKeys.DESCRIBE_LOG_DIRS,
    ApiKeys.DELETE_TOPICS, ApiKeys.DELETE_RECORDS, ApiKeys.INIT_PRODUCER_ID, ApiKeys.OFFSET_FOR_LEADER_EPOCH,
    ApiKeys.DESCRIBE_CONFIGS, ApiKeys.ALTER_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS, ApiKeys.CREATE_PARTITIONS,
    ApiKeys.DELETE_GROUPS, ApiKeys.ELECT_LEADERS, ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
    ApiKeys.LIST_PARTITION_REASSIGNMENTS, ApiKeys.OFFSET_DELETE, ApiKeys.DESCRIBE_CLUSTER,
    ApiKeys.DESCRIBE_TOPIC_PARTITIONS,
    ApiKeys.CONSUMER_GROUP_HEARTBEAT, ApiKeys.CONSUMER_GROUP_DESCRIBE,   # KIP-848 (issue 19)
    ApiKeys.ADD_PARTITIONS_TO_TXN, ApiKeys.ADD_OFFSETS_TO_TXN, ApiKeys.END_TXN, ApiKeys.DESCRIBE_TRANSACTIONS,
    ApiKeys.LIST_TRANSACTIONS,
    ApiKeys.WRITE_TXN_MARKERS, ApiKeys.DESCRIBE_PRODUCERS,
    ApiKeys.TXN_OFFSET_COMMIT,
    ApiKeys.DESCRIBE_ACLS, ApiKeys.CREATE_ACLS, ApiKeys.DELETE_ACLS,
    # SASL (issue 16): the handshake APIs reach KafkaApis only after authentication, to be refused
    ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE,
    ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
    ApiKeys.DESCRIBE_CLIENT_QUOTAS, ApiKeys.ALTER_CLIENT_QUOTAS,   # client quotas (issue 17)
)
# Kafka: the requests answered with sendResponseExemptThrottle (cluster actions and the SASL handshake)
THROTTLE_EXEMPT = frozenset((ApiKeys.LEADER_AND_ISR, ApiKeys.STOP_REPLICA, ApiKeys.UPDATE_METADATA,
                             ApiKeys.CONTROLLED_SHUTDOWN, ApiKeys.WRITE_TXN_MARKERS, ApiKeys.SASL_HANDSHAKE,
                             ApiKeys.SASL_AUTHENTICATE))
UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET = -1, -1
CONFIG_SOURCE_DEFAULT = 5   # Kafka: DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG
CONFIG_RESOURCE_TOPIC = 2   # Kafka: ConfigResource.Type.TOPIC (BROKER 4 and BROKER_LOGGER 8 are the cluster's)
CONFIG_RESOURCE_TYPES = {"TOPIC": 2, "BROKER": 4, "BROKER_LOGGER": 8}   # ConfigResource.Type with an id (UNKNOWN is 0)
CONSUMER_REPLICA_ID, DEBUGGING_REPLICA_ID = -1, -2   # Kafka: ListOffsetRequest.CONSUMER_REPLICA_ID / DEBUGGING_REPLICA_ID
GROUP_KEY_TYPE = 0          # Kafka: CoordinatorType.GROUP
TRANSACTION_KEY_TYPE = 1    # Kafka: CoordinatorType.TRANSACTION
INT32_MIN = -2147483648     # authorized_operations when not requested


def _has_idempotent_records(records: MemoryRecords) -> bool:
    """Kafka: ProduceRequest.hasIdempotentRecords -- the first batch carries a producer id."""
    try:
        first = records.first_batch()
    except Exception:  # noqa: BLE001
        return False
    return first is not None and len(first.buffer) > 61 and first.magic >= 2 and first.has_producer_id()


def _has_transactional_records(records: MemoryRecords) -> bool:
    """Whether the first batch is transactional, read from its header's bytes in place (a malformed buffer is
    left for the log to refuse; magic 0/1, Produce v0-2, has no transactions)."""
    buf = records.buffer
    return len(buf) >= ATTRIBUTES_OFFSET + 2 and buf[MAGIC_OFFSET] >= 2 and \
        bool(buf[ATTRIBUTES_OFFSET + 1] & TRANSACTIONAL_FLAG_MASK)   # the flag sits in the low byte


# Kafka: ProduceRequest.validateRecords -- from v3 on, a partition's records are exactly one batch of magic 2,
# and zstd only from v7 (older versions are not checked: their message formats v0/v1 are up-converted by the
# log's LogValidator). Raises the partition's error; KafkaApis answers its code alone, as Kafka does.
def _validate_produce_records(version: int, records: MemoryRecords) -> None:
    if version < 3:
        return
    if is_legacy(records.buffer):   # Kafka 2.4: org.apache.kafka.common.InvalidRecordException = INVALID_RECORD
        raise Errors.INVALID_RECORD.exception(f"Produce requests with version {version} are only allowed to "
                                              "contain record batches with magic version 2")
    try:   # slices of one memoryview: nothing is copied or decoded
        batches = records.batches()
        first, second = next(batches, None), next(batches, None)
    except CorruptRecordException:   # a malformed buffer is left for the log to refuse, as before
        return
    if first is None:
        raise Errors.INVALID_RECORD.exception(f"Produce requests with version {version} must have at least one "
                                              "record batch")
    if version < 7 and first.compression_type is CompressionType.ZSTD:
        raise Errors.UNSUPPORTED_COMPRESSION_TYPE.exception(f"Produce requests with version {version} are not "
                                                            "allowed to use ZStandard compression")
    if second is not None:
        raise Errors.INVALID_RECORD.exception(f"Produce requests with version {version} are only allowed to "
                                              "contain exactly one record batch")


class KafkaApis(Logging):
    """Kafka: KafkaApis(requestChannel, replicaManager, adminManager, groupCoordinator, txnCoordinator,
    controller, zkClient, brokerId, config, metadataCache, ...)."""

    def __init__(self, request_channel, replica_manager, admin_manager, group_coordinator, txn_coordinator,
                 controller, zk_client, broker_id: int, config, metadata_cache, time, cluster_id: str,
                 broker_epoch_fn=lambda: -1, authorizer=None, fetch_manager=None, quotas=None):
        self.request_channel = request_channel
        self.replica_manager = replica_manager
        self.admin_manager = admin_manager
        self.group_coordinator = group_coordinator
        self.txn_coordinator = txn_coordinator
        self.controller = controller
        self.zk_client = zk_client
        self.broker_id = broker_id
        self.config = config
        self.metadata_cache = metadata_cache
        self.time = time
        self.cluster_id = cluster_id
        self.broker_epoch_fn = broker_epoch_fn
        self.authorizer = authorizer   # Kafka: KafkaApis.authorizer (Option[Authorizer]); None allows everything
        self.quotas = quotas           # Kafka: KafkaApis.quotas (QuotaManagers); None: no client quotas
        self.log_ident = f"[KafkaApi-{broker_id}] "
        self.auth_helper = AuthHelper(authorizer, self.log_ident)   # Kafka 2.8: KafkaApis.authHelper
        self.acl_apis = AclApis(self.auth_helper, authorizer, self.send_response)   # Kafka 3.0: KafkaApis.aclApis
        # Kafka 3.7: KafkaApis.describeTopicPartitionsRequestHandler
        self.describe_topic_partitions_request_handler = DescribeTopicPartitionsRequestHandler(
            self.metadata_cache, self.auth_helper, self.config)
        # Kafka: KafkaApis.fetchManager -- KafkaServer shares one between the planes; a bare KafkaApis gets its own
        self.fetch_manager = fetch_manager or FetchManager(time, FetchSessionCache(
            config.get("max.incremental.fetch.session.cache.slots")))

    # ------------------------------------------------------------------ dispatch
    # Kafka: KafkaApis.handle -- one case per API, as Kafka's match on request.header.apiKey
    def handle(self, request) -> None:
        try:
            if self.is_trace_enabled():
                self.trace(f"Handling request:{request.request_desc()} from connection "
                           f"{request.context.connection_id}")
            match request.api_key:
                case ApiKeys.PRODUCE: self.handle_produce_request(request)
                case ApiKeys.FETCH: self.handle_fetch_request(request)
                case ApiKeys.LIST_OFFSETS: self.handle_list_offset_request(request)
                case ApiKeys.METADATA: self.handle_topic_metadata_request(request)
                case ApiKeys.LEADER_AND_ISR: self.handle_leader_and_isr_request(request)
                case ApiKeys.STOP_REPLICA: self.handle_stop_replica_request(request)
                case ApiKeys.UPDATE_METADATA: self.handle_update_metadata_request(request)
                case ApiKeys.CONTROLLED_SHUTDOWN: self.handle_controlled_shutdown_request(request)
                case ApiKeys.OFFSET_COMMIT: self.handle_offset_commit_request(request)
                case ApiKeys.OFFSET_FETCH: self.handle_offset_fetch_request(request)
                case ApiKeys.TXN_OFFSET_COMMIT: self.handle_txn_offset_commit_request(request)
                case ApiKeys.FIND_COORDINATOR: self.handle_find_coordinator_request(request)
                case ApiKeys.JOIN_GROUP: self.handle_join_group_request(request)
                case ApiKeys.HEARTBEAT: self.handle_heartbeat_request(request)
                case ApiKeys.LEAVE_GROUP: self.handle_leave_group_request(request)
                case ApiKeys.SYNC_GROUP: self.handle_sync_group_request(request)
                case ApiKeys.DESCRIBE_GROUPS: self.handle_describe_groups_request(request)
                case ApiKeys.LIST_GROUPS: self.handle_list_groups_request(request)
                case ApiKeys.API_VERSIONS: self.handle_api_versions_request(request)
                case ApiKeys.CREATE_TOPICS: self.handle_create_topics_request(request)
                case ApiKeys.DELETE_TOPICS: self.handle_delete_topics_request(request)
                case ApiKeys.DELETE_RECORDS: self.handle_delete_records_request(request)
                case ApiKeys.INIT_PRODUCER_ID: self.handle_init_producer_id_request(request)
                case ApiKeys.OFFSET_FOR_LEADER_EPOCH: self.handle_offset_for_leader_epoch_request(request)
                case ApiKeys.DESCRIBE_CONFIGS: self.handle_describe_configs_request(request)
                case ApiKeys.ALTER_CONFIGS: self.handle_alter_configs_request(request)
                case ApiKeys.ALTER_REPLICA_LOG_DIRS: self.handle_alter_replica_log_dirs_request(request)
                case ApiKeys.DESCRIBE_LOG_DIRS: self.handle_describe_log_dirs_request(request)
                case ApiKeys.INCREMENTAL_ALTER_CONFIGS: self.handle_incremental_alter_configs_request(request)
                case ApiKeys.CREATE_PARTITIONS: self.handle_create_partitions_request(request)
                case ApiKeys.DELETE_GROUPS: self.handle_delete_groups_request(request)
                case ApiKeys.ELECT_LEADERS: self.handle_elect_replica_leader(request)
                case ApiKeys.ALTER_PARTITION_REASSIGNMENTS: self.handle_alter_partition_reassignments_request(request)
                case ApiKeys.LIST_PARTITION_REASSIGNMENTS: self.handle_list_partition_reassignments_request(request)
                case ApiKeys.OFFSET_DELETE: self.handle_offset_delete_request(request)
                case ApiKeys.DESCRIBE_CLUSTER: self.handle_describe_cluster(request)
                case ApiKeys.DESCRIBE_TOPIC_PARTITIONS: self.handle_describe_topic_partitions_request(request)
                case ApiKeys.CONSUMER_GROUP_HEARTBEAT: self.handle_consumer_group_heartbeat(request)
                case ApiKeys.CONSUMER_GROUP_DESCRIBE: self.handle_consumer_group_describe(request)
                case ApiKeys.ADD_PARTITIONS_TO_TXN: self.handle_add_partition_to_txn_request(request)
                case ApiKeys.ADD_OFFSETS_TO_TXN: self.handle_add_offsets_to_txn_request(request)
                case ApiKeys.END_TXN: self.handle_end_txn_request(request)
                case ApiKeys.DESCRIBE_TRANSACTIONS: self.handle_describe_transactions_request(request)
                case ApiKeys.LIST_TRANSACTIONS: self.handle_list_transactions_request(request)
                case ApiKeys.WRITE_TXN_MARKERS: self.handle_write_txn_markers_request(request)
                case ApiKeys.DESCRIBE_PRODUCERS: self.handle_describe_producers_request(request)
                case ApiKeys.DESCRIBE_ACLS: self.acl_apis.handle_describe_acls(request)
                case ApiKeys.CREATE_ACLS: self.acl_apis.handle_create_acls(request)
                case ApiKeys.DELETE_ACLS: self.acl_apis.handle_delete_acls(request)
                case ApiKeys.SASL_HANDSHAKE: self.handle_sasl_handshake_request(request)
                case ApiKeys.SASL_AUTHENTICATE: self.handle_sasl_authenticate_request(request)
                case ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS: self.handle_describe_user_scram_credentials_request(request)
                case ApiKeys.ALTER_USER_SCRAM_CREDENTIALS: self.handle_alter_user_scram_credentials_request(request)
                case ApiKeys.DESCRIBE_CLIENT_QUOTAS: self.handle_describe_client_quotas_request(request)
                case ApiKeys.ALTER_CLIENT_QUOTAS: self.handle_alter_client_quotas_request(request)
                case _:
                    raise Errors.UNSUPPORTED_VERSION.exception(f"Unsupported api key {request.api_key.name}")
        except Exception as e:  # noqa: BLE001
            self.handle_error(request, e)
        finally:
            if request.api_local_complete_time_nanos < 0:
                request.api_local_complete_time_nanos = self.time.nanoseconds()

    @classmethod
    def advertised_apis(cls) -> list[ApiKeys]:
        """Every API this broker serves and has a schema for (what ApiVersions lists)."""
        return [k for k in SERVED_APIS if k.has_messages]

    @classmethod
    def api_versions_response(cls):
        """What ApiVersions answers: also what a SASL listener answers before the handshake (the
        authenticator runs in the network thread and asks for it)."""
        keys = [api_versions.ApiVersion(api_key=k.id, min_version=k.min_version, max_version=k.max_version)
                for k in sorted(cls.advertised_apis(), key=lambda k: k.id)]
        return api_versions.ApiVersionsResponse(error_code=0, api_keys=keys)

    # Kafka: KafkaApis.handleError -- an unexpected failure closes the connection (we have no
    # generic per-API error response builder), with a log line saying why.
    def handle_error(self, request, e: Exception) -> None:
        if isinstance(e, ApiException):
            self.info(f"Error when handling request {request.request_desc()}: {e}")
        else:
            self.error(f"Error when handling request {request.request_desc()}: {e}", exc_info=True)
        self.close_connection(request)

    # ------------------------------------------------------------------ responses
    # Kafka: KafkaApis.sendResponseMaybeThrottle / sendResponseExemptThrottle -- a response with a throttle_time_ms
    # field counts the handler's time against the client's request quota (unless Kafka exempts the API)
    def send_response(self, request, body, on_complete=None) -> None:
        if self.quotas is not None and hasattr(body, "throttle_time_ms") and request.api_key not in THROTTLE_EXEMPT:
            self.send_response_maybe_throttle(request, body, on_complete)
            return
        self.send_response_exempt_throttle(request, body, on_complete)

    # Kafka: KafkaApis.sendResponseExemptThrottle -- the handler time counts as exempt-request-time only
    def send_response_exempt_throttle(self, request, body, on_complete=None) -> None:
        if self.quotas is not None:
            self.quotas.request.maybe_record_exempt(request)
        self.request_channel.send_response(Response.for_body(request, body, on_complete))

    # Kafka: KafkaApis.sendResponseMaybeThrottle (and the produce / fetch callbacks' max of the byte-rate and the
    # request-time throttles): the response goes out now with throttle_time_ms; the channel stays muted that long
    def send_response_maybe_throttle(self, request, body, on_complete=None, bandwidth_quota=None,
                                     bandwidth_throttle_time_ms: int = 0, request_throttle_time_ms: int | None = None):
        if request_throttle_time_ms is None:
            request_throttle_time_ms = self.quotas.request.maybe_record_and_get_throttle_time_ms(request)
        if bandwidth_throttle_time_ms > request_throttle_time_ms:
            bandwidth_quota.throttle(request, bandwidth_throttle_time_ms, self.request_channel.send_response)
        elif request_throttle_time_ms > 0:
            self.quotas.request.throttle(request, request_throttle_time_ms, self.request_channel.send_response)
        if body is None:   # acks=0: nothing to answer, the channel may still be throttled
            self.request_channel.send_response(Response(request, None, NoOpAction))
            return
        body.throttle_time_ms = max(getattr(body, "throttle_time_ms", 0) or 0, bandwidth_throttle_time_ms,
                                    request_throttle_time_ms)
        self.request_channel.send_response(Response.for_body(request, body, on_complete))

    # Kafka: KafkaApis.sendNoOpResponseExemptThrottle
    def send_no_op_response(self, request) -> None:
        self.request_channel.send_response(Response(request, None, NoOpAction))

    # Kafka: KafkaApis.closeConnection
    def close_connection(self, request) -> None:
        self.request_channel.send_response(Response(request, None, CloseConnectionAction))

    # ------------------------------------------------------------------ ApiVersions (S42)
    # Kafka: KafkaApis.handleApiVersionsRequest -- KIP-511 for too-new versions.
    def handle_api_versions_request(self, request) -> None:
        body = request.body
        if body is None:   # a version newer than ours: v0 body, error 35, our own range for ApiVersions
            self.send_response(request, api_versions_fallback_response())
            return
        if request.header.api_version >= 3 and not (_SOFTWARE.match(body.client_software_name or "")
                                                    and _SOFTWARE.match(body.client_software_version or "")):
            self.send_response(request, api_versions.ApiVersionsResponse(error_code=Errors.INVALID_REQUEST.code))
            return
        request.context.client_software_name = body.client_software_name or "unknown"
        request.context.client_software_version = body.client_software_version or "unknown"
        self.send_response(request, self.api_versions_response())

    # ------------------------------------------------------------------ Metadata
    def _alive_brokers_for(self, listener_name: str):
        brokers = [(b.id, b.endpoints[listener_name], b.rack) for b in self.metadata_cache.get_alive_brokers()
                   if listener_name in b.endpoints]
        if not brokers:   # before the first UpdateMetadata: never answer with no broker at all (G4)
            for ep in self.config.advertised_listeners:
                if ep.listener_name == listener_name:
                    brokers = [(self.broker_id, (ep.host or "localhost", self.bound_port(listener_name)), None)]
        return brokers

    def bound_port(self, listener_name: str) -> int:
        for ep in self.config.advertised_listeners:
            if ep.listener_name == listener_name:
                return ep.port
        return 0

    # Kafka: KafkaApis.handleTopicMetadataRequest
    def handle_topic_metadata_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        listener = request.context.listener_name
        if body.topics is None or (version == 0 and not body.topics):
            topics = sorted(self.metadata_cache.get_all_topics())
            all_topics = True
        else:
            topics = []
            for t in body.topics:
                name = t.name
                if name is None and getattr(t, "topic_id", None):
                    name = self.metadata_cache.topic_name(t.topic_id)
                if name is not None and name not in topics:
                    topics.append(name)
            all_topics = False
        allow_auto = body.allow_auto_topic_creation if version >= 4 else True
        # DESCRIBE on each topic; a topic the principal may not describe is left out of an all-topics answer and
        # answered TOPIC_AUTHORIZATION_FAILED when named (without saying whether it exists)
        describable = self.auth_helper.filter_by_authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC, topics,
                                             log_if_denied=not all_topics)
        unauthorized_for_describe = [t for t in topics if t not in describable]
        topics = [t for t in topics if t in describable]
        unauthorized_for_create = []
        if topics and allow_auto and self.config.auto_create_topics_enable:
            # auto-creation needs CREATE on the cluster or on each topic to be created
            non_existing = [t for t in topics if not self.metadata_cache.contains(t)]
            if non_existing and not self.auth_helper.authorize(request, AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME,
                                                   log_if_denied=False):
                creatable = self.auth_helper.filter_by_authorized(request, AclOperation.CREATE, ResourceType.TOPIC, non_existing)
                unauthorized_for_create = [t for t in non_existing if t not in creatable]
                topics = [t for t in topics if t not in unauthorized_for_create]
        topic_metadata = self.metadata_cache.get_topic_metadata(topics, listener, error_unavailable_endpoints=version == 0)
        if not all_topics:
            known = {t.name for t in topic_metadata}
            unknown = [t for t in topics if t not in known]
            if unknown:
                topic_metadata += self.get_topic_metadata_for_unknown(unknown, allow_auto and self.config.auto_create_topics_enable)
        cluster_authorized_operations = metadata.INT32_MIN
        if version >= 8:   # KIP-430
            if body.include_cluster_authorized_operations:
                cluster_authorized_operations = self.auth_helper.authorized_operations(request, ResourceType.CLUSTER, CLUSTER_NAME) \
                    if self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME) else 0
            if body.include_topic_authorized_operations:
                for t in topic_metadata:
                    t.topic_authorized_operations = self.auth_helper.authorized_operations(request, ResourceType.TOPIC, t.name)
        topic_metadata += [metadata.MetadataResponseTopic(error_code=Errors.TOPIC_AUTHORIZATION_FAILED.code, name=t,
                                                          is_internal=Topic.is_internal(t))
                           for t in unauthorized_for_create]
        if not all_topics:
            topic_metadata += [metadata.MetadataResponseTopic(error_code=Errors.TOPIC_AUTHORIZATION_FAILED.code, name=t,
                                                              is_internal=False) for t in unauthorized_for_describe]
        brokers = [metadata.MetadataResponseBroker(node_id=i, host=hp[0], port=hp[1], rack=rack)
                   for i, hp, rack in self._alive_brokers_for(listener)]
        controller_id = self.metadata_cache.get_controller_id()
        self.send_response(request, metadata.MetadataResponse(
            brokers=brokers, cluster_id=self.cluster_id,
            controller_id=controller_id if controller_id is not None else -1, topics=topic_metadata,
            cluster_authorized_operations=cluster_authorized_operations))

    # Kafka: KafkaApis.getTopicMetadata (the unknown-topics half) -- an internal topic is created whatever
    # allowAutoTopicCreation and auto.create.topics.enable say (its coordinator needs it); others only when both
    # allow it
    def get_topic_metadata_for_unknown(self, topics, auto_create: bool):
        result = []
        for name in topics:
            if Topic.is_internal(name):
                error = self.create_internal_topic(name)
            elif auto_create:
                error = self.create_topic(name, self.config.num_partitions, self.config.default_replication_factor)
            else:
                error = Errors.UNKNOWN_TOPIC_OR_PARTITION
            result.append(metadata.MetadataResponseTopic(error_code=error.code, name=name, is_internal=Topic.is_internal(name)))
        return result

    # Kafka: KafkaApis.createTopic -- LEADER_NOT_AVAILABLE once created (or created by someone else meanwhile),
    # otherwise the error of whatever went wrong: it catches everything and logs nothing of a failure
    def create_topic(self, topic: str, partitions: int, replication_factor: int, configs: dict | None = None) -> Errors:
        try:
            Topic.validate(topic)
            self.admin_manager.admin_zk_client.create_topic(topic, partitions, replication_factor, configs or {})
            self.info(f"Auto creation of topic {topic} with {partitions} partitions and replication factor "
                      f"{replication_factor} is successful")
        except ApiException as e:
            if e.error is not Errors.TOPIC_ALREADY_EXISTS:   # possibly another broker created this topic
                return e.error
        except Exception as e:  # noqa: BLE001
            self.debug(f"Auto creation of topic {topic} failed: {e}")
            return Errors.for_exception(e)
        return Errors.LEADER_NOT_AVAILABLE

    # Kafka: KafkaApis.createInternalTopic -- __consumer_offsets and __transaction_state with their own partitions,
    # replication factor and configs; COORDINATOR_NOT_AVAILABLE while fewer brokers are alive than the replication
    # factor asks for (a cluster starting up), rather than an internal topic under-replicated for good
    def create_internal_topic(self, topic: str) -> Errors:
        alive = len(self.metadata_cache.get_alive_brokers())
        if topic == Topic.GROUP_METADATA_TOPIC_NAME:
            prop, what = "offsets.topic.replication.factor", "offsets topic"
            partitions = self.config.get("offsets.topic.num.partitions")
            configs = {"cleanup.policy": "compact", "compression.type": "producer",
                       "segment.bytes": str(self.config.get("offsets.topic.segment.bytes"))}
        else:
            prop, what = "transaction.state.log.replication.factor", "transactions state topic"
            partitions = self.config.get("transaction.state.log.num.partitions")
            configs = self.txn_coordinator.transaction_topic_configs()
        rf = self.config.get(prop)
        if alive < rf:
            self.error(f"Number of alive brokers '{alive}' does not meet the required replication factor '{rf}' for "
                       f"the {what} (configured via '{prop}'). This error can be ignored if the cluster is starting "
                       "up and not all brokers are up yet.")
            return Errors.COORDINATOR_NOT_AVAILABLE
        return self.create_topic(topic, partitions, rf, configs)

    # Kafka 2.8: KafkaApis.handleDescribeCluster -- KIP-430's cluster operations when asked and DESCRIBE is allowed;
    # Kafka 3.7 (KIP-919, AuthHelper.computeDescribeClusterResponse): a broker answers only endpoint type 1 (brokers)
    def handle_describe_cluster(self, request) -> None:
        listener = request.context.listener_name
        endpoint_type = request.body.endpoint_type
        if endpoint_type != describe_cluster.BROKER_ENDPOINT_TYPE:
            v0 = request.header.api_version == 0
            if endpoint_type != describe_cluster.CONTROLLER_ENDPOINT_TYPE:
                error, message = (Errors.INVALID_REQUEST if v0 else Errors.UNSUPPORTED_ENDPOINT_TYPE,
                                  f"Unsupported endpoint type {endpoint_type}")
            else:
                error, message = (Errors.INVALID_REQUEST if v0 else Errors.MISMATCHED_ENDPOINT_TYPE,
                                  "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of "
                                  "type CONTROLLER")
            self.send_response(request, describe_cluster.DescribeClusterResponse(
                error_code=error.code, error_message=message, cluster_id="", brokers=[]))
            return
        controller_id = self.metadata_cache.get_controller_id()
        cluster_authorized_operations = describe_cluster.INT32_MIN
        if request.body.include_cluster_authorized_operations:
            cluster_authorized_operations = self.auth_helper.authorized_operations(request, ResourceType.CLUSTER, CLUSTER_NAME) \
                if self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME) else 0
        self.send_response(request, describe_cluster.DescribeClusterResponse(
            error_code=0, cluster_id=self.cluster_id, controller_id=controller_id if controller_id is not None else -1,
            brokers=[describe_cluster.DescribeClusterBroker(broker_id=i, host=hp[0], port=hp[1], rack=rack)
                     for i, hp, rack in self._alive_brokers_for(listener)],
            cluster_authorized_operations=cluster_authorized_operations))

    # Kafka 3.7: KafkaApis.handleDescribeTopicPartitionsRequest (KIP-966) -- the work is the handler's
    def handle_describe_topic_partitions_request(self, request) -> None:
        self.send_response(request,
                           self.describe_topic_partitions_request_handler.handle_describe_topic_partitions_request(request))

    # Kafka 3.7: KafkaApis.handleConsumerGroupHeartbeat (KIP-848) -- READ on the group, DESCRIBE on the topics
    def handle_consumer_group_heartbeat(self, request) -> None:
        body = request.body
        error = None
        if not self.group_coordinator.consumer_group_manager.enabled:
            error = Errors.UNSUPPORTED_VERSION   # "consumer" is not in group.coordinator.rebalance.protocols
        elif not self.auth_helper.authorize(request, AclOperation.READ, ResourceType.GROUP, body.group_id):
            error = Errors.GROUP_AUTHORIZATION_FAILED
        elif body.subscribed_topic_names:
            allowed = self.auth_helper.filter_by_authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                                            body.subscribed_topic_names)
            if len(allowed) < len(set(body.subscribed_topic_names)):
                error = Errors.TOPIC_AUTHORIZATION_FAILED
        if error is not None:
            response = consumer_group_heartbeat.ConsumerGroupHeartbeatResponse(error_code=error.code)
        else:
            response = self.group_coordinator.consumer_group_manager.handle_heartbeat(
                body, request.header.client_id or "", "/" + str(request.context.client_address), self.metadata_cache,
                request.header.api_version)
        self.send_response(request, response)

    # Kafka 3.7: KafkaApis.handleConsumerGroupDescribe (KIP-848) -- DESCRIBE on each group
    def handle_consumer_group_describe(self, request) -> None:
        body = request.body
        groups = []
        for group_id in body.group_ids:
            if not self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
                groups.append(consumer_group_describe.DescribedGroup(
                    group_id=group_id, error_code=Errors.GROUP_AUTHORIZATION_FAILED.code, members=[]))
                continue
            described = self.group_coordinator.consumer_group_manager.consumer_group_describe(
                group_id, self.metadata_cache)
            if body.include_authorized_operations:
                described.authorized_operations = self.auth_helper.authorized_operations(
                    request, ResourceType.GROUP, group_id)
            groups.append(described)
        self.send_response(request, consumer_group_describe.ConsumerGroupDescribeResponse(groups=groups))

    # ------------------------------------------------------------------ CreateTopics / DeleteTopics
    # Kafka: KafkaApis.handleCreateTopicsRequest
    def handle_create_topics_request(self, request) -> None:
        body = request.body

        def send_result(results: dict, meta: dict | None = None):
            out = []
            for t in body.topics:
                err, msg = results[t.name]
                r = create_topics.CreatableTopicResult(name=t.name, error_code=err.code, error_message=msg, configs=[])
                m = (meta or {}).get(t.name)
                if err is Errors.NONE and m is not None:
                    if m.topic_configs is not None:   # Kafka: partitions, replicas and configs need DESCRIBE_CONFIGS
                        r.num_partitions = len(m.partitions)
                        r.replication_factor = m.replication_factor
                        r.configs = [create_topics.CreatableTopicConfigs(
                            name=n, value=v, config_source=source, read_only=ro, is_sensitive=sensitive)
                            for n, v, source, ro, sensitive in m.topic_configs]
                    tid = self.zk_client.get_topic_ids_for_topics([t.name]).get(t.name) if not body.validate_only else None
                    if tid:
                        r.topic_id = topic_id_to_uuid(tid)
                # KIP-525: the created topic's configs need DESCRIBE_CONFIGS; Kafka resets the code to 0 for a topic
                # AdminManager failed ("Reset any configs in the response if Create failed")
                if t.name not in describable_configs and not (t.name in to_create and err is not Errors.NONE):
                    r.topic_config_error_code = Errors.TOPIC_AUTHORIZATION_FAILED.code
                out.append(r)
            self.send_response(request, create_topics.CreateTopicsResponse(topics=out))

        names = [t.name for t in body.topics]
        dup_names = {n for n in names if names.count(n) > 1}
        describable_configs = set(names)
        to_create: dict = {}
        if self.controller is None or not self.controller.is_active():
            send_result({n: (Errors.NOT_CONTROLLER, None) for n in names})
            return
        # CREATE on the cluster, or else on each topic
        if self.auth_helper.authorize(request, AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME, log_if_denied=False):
            creatable = set(names)
        else:
            creatable = self.auth_helper.filter_by_authorized(request, AclOperation.CREATE, ResourceType.TOPIC, names)
        describable_configs = self.auth_helper.filter_by_authorized(request, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, names)
        results = {n: (Errors.INVALID_REQUEST, "Found multiple entries for this topic.") for n in dup_names}
        results.update({n: (Errors.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.")
                        for n in names if n not in dup_names and n not in creatable})
        to_create = {t.name: t for t in body.topics if t.name not in results}

        def callback(created: dict, meta: dict):
            results.update(created)
            send_result(results, meta)

        self.admin_manager.create_topics(body.timeout_ms, body.validate_only, to_create, callback,
                                         include_configs_and_metadata=set(describable_configs))

    # Kafka: KafkaApis.handleDeleteTopicsRequest
    def handle_delete_topics_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        entries = []   # (name or None, topic id, error or None)
        if version >= 6:
            for t in body.topics:
                name = t.name if t.name is not None else self.metadata_cache.topic_name(t.topic_id)
                err = Errors.UNKNOWN_TOPIC_ID if name is None else None
                entries.append((name, t.topic_id, err))
        else:
            entries = [(n, None, None) for n in body.topic_names]

        def respond(results: dict):
            out = []
            for name, tid, err in entries:
                e = err or results.get(name, Errors.NONE)
                r = delete_topics.DeletableTopicResult(name=name, error_code=e.code)
                if version >= 6:
                    r.topic_id = tid or self.metadata_cache.topic_id(name)
                out.append(r)
            self.send_response(request, delete_topics.DeleteTopicsResponse(responses=out))

        if self.controller is None or not self.controller.is_active():
            respond({n: Errors.NOT_CONTROLLER for n, _, _ in entries})
            return
        if not self.config.delete_topic_enable:
            respond({n: (Errors.TOPIC_DELETION_DISABLED if version >= 3 else Errors.INVALID_REQUEST)
                     for n, _, _ in entries})
            return
        pre = {}
        to_delete = []
        deletable = self.auth_helper.filter_by_authorized(request, AclOperation.DELETE, ResourceType.TOPIC,
                                           [n for n, _, err in entries if err is None])
        for name, _, err in entries:
            if err is not None:
                continue
            if name not in deletable:
                pre[name] = Errors.TOPIC_AUTHORIZATION_FAILED
            elif not self.metadata_cache.contains(name):
                pre[name] = Errors.UNKNOWN_TOPIC_OR_PARTITION
            else:
                to_delete.append(name)

        def callback(results):
            pre.update(results)
            respond(pre)

        self.admin_manager.delete_topics(body.timeout_ms, to_delete, callback)

    # Kafka: KafkaApis.handleCreatePartitionsRequest
    def handle_create_partitions_request(self, request) -> None:
        body = request.body
        names = [t.name for t in body.topics]
        dups = {n for n in names if names.count(n) > 1}

        def respond(results: dict):
            self.send_response(request, create_partitions.CreatePartitionsResponse(results=[
                create_partitions.CreatePartitionsTopicResult(name=n, error_code=results[n][0].code,
                                                              error_message=results[n][1])
                for n in dict.fromkeys(names)]))

        if self.controller is None or not self.controller.is_active():
            respond({n: (Errors.NOT_CONTROLLER, None) for n in names})
            return
        results = {n: (Errors.INVALID_REQUEST, "Duplicate topic in request.") for n in dups}
        alterable = self.auth_helper.filter_by_authorized(request, AclOperation.ALTER, ResourceType.TOPIC,
                                           [n for n in names if n not in dups])
        results.update({n: (Errors.TOPIC_AUTHORIZATION_FAILED, "The topic authorization is failed.")
                        for n in names if n not in dups and n not in alterable})
        # Kafka: a topic the controller is deleting gets no new partitions
        results.update({n: (Errors.INVALID_TOPIC_EXCEPTION, "The topic is queued for deletion.") for n in alterable
                        if n not in dups and self.controller.topic_deletion_manager.is_topic_queued_up_for_deletion(n)})

        def callback(created: dict):
            results.update(created)
            respond(results)

        self.admin_manager.create_partitions(body.timeout_ms, [t for t in body.topics if t.name not in results],
                                             body.validate_only, callback)

    # ------------------------------------------------------------------ control plane (S25)
    # Kafka: KafkaApis.isBrokerEpochStale -- 2.4 rejects only an *older* epoch (a bounced broker's requests,
    # KIP-380). kafkalite rejects any epoch but its own: only this broker's current registration's czxid is
    # genuine, and without ClusterAction ACLs a larger one can only be forged. Versions without the field
    # (UNKNOWN_BROKER_EPOCH) pass here; ReplicaManager.is_from_current_controller fences them.
    def is_broker_epoch_stale(self, broker_epoch_in_request: int) -> bool:
        if broker_epoch_in_request == UNKNOWN_BROKER_EPOCH:
            return False
        return broker_epoch_in_request != self.broker_epoch_fn()

    # Kafka: KafkaApis.handleLeaderAndIsrRequest
    def handle_leader_and_isr_request(self, request) -> None:
        body = request.body
        if not self.auth_helper.authorize_cluster_operation(request, AclOperation.CLUSTER_ACTION):
            self.send_response(request, leader_and_isr.LeaderAndIsrResponse(
                error_code=Errors.CLUSTER_AUTHORIZATION_FAILED.code))
            return
        if self.is_broker_epoch_stale(body.broker_epoch):
            self.info(f"Received LeaderAndIsr request with broker epoch {body.broker_epoch} that is not the "
                      f"current broker epoch {self.broker_epoch_fn()}")
            self.send_response(request, leader_and_isr.LeaderAndIsrResponse(error_code=Errors.STALE_BROKER_EPOCH.code))
            return

        def on_leadership_change(updated_leaders, updated_followers):
            gc = self.group_coordinator
            tc = self.txn_coordinator
            for p in updated_leaders:
                if p.topic == Topic.GROUP_METADATA_TOPIC_NAME and gc is not None:
                    gc.on_election(p.partition_id, p.leader_epoch)
                elif p.topic == Topic.TRANSACTION_STATE_TOPIC_NAME and tc is not None:
                    tc.handle_txn_immigration(p.partition_id, p.leader_epoch)
            for p in updated_followers:
                if p.topic == Topic.GROUP_METADATA_TOPIC_NAME and gc is not None:
                    gc.on_resignation(p.partition_id)
                elif p.topic == Topic.TRANSACTION_STATE_TOPIC_NAME and tc is not None:
                    tc.handle_txn_emigration(p.partition_id, p.leader_epoch)

        response = self.replica_manager.become_leader_or_follower(request.header.correlation_id, body,
                                                                   on_leadership_change)
        self.send_response(request, response)

    # Kafka: KafkaApis.handleUpdateMetadataRequest
    def handle_update_metadata_request(self, request) -> None:
        body = request.body
        if not self.auth_helper.authorize_cluster_operation(request, AclOperation.CLUSTER_ACTION):
            self.send_response(request, update_metadata.UpdateMetadataResponse(
                error_code=Errors.CLUSTER_AUTHORIZATION_FAILED.code))
            return
        if self.is_broker_epoch_stale(body.broker_epoch):
            self.info(f"Received update metadata request with broker epoch {body.broker_epoch} that is not the "
                      f"current broker epoch {self.broker_epoch_fn()}")
            self.send_response(request, update_metadata.UpdateMetadataResponse(error_code=Errors.STALE_BROKER_EPOCH.code))
            return
        try:
            deleted = self.replica_manager.maybe_update_metadata_cache(request.header.correlation_id, body)
        except ApiException as e:   # Kafka: handleError -> UpdateMetadataRequest.getErrorResponse
            self.info(f"Error when handling request {request.request_desc()}: {e}")
            self.send_response(request, update_metadata.UpdateMetadataResponse(error_code=e.error.code))
            return
        if deleted and self.group_coordinator is not None:
            self.group_coordinator.handle_deleted_partitions(deleted)
        if self.admin_manager.has_delayed_topic_operations():
            for topic in {s.topic_name for s in body.partition_states()}:
                self.admin_manager.try_complete_delayed_topic_operations(topic)
        if self.replica_manager.has_delayed_election_operations():
            for st in body.partition_states():
                self.replica_manager.try_complete_election(
                    TopicPartitionOperationKey(st.topic_name, st.partition_index))
        self.send_response(request, update_metadata.UpdateMetadataResponse(error_code=0))

    # Kafka: KafkaApis.handleStopReplicaRequest
    def handle_stop_replica_request(self, request) -> None:
        body = request.body
        if not self.auth_helper.authorize_cluster_operation(request, AclOperation.CLUSTER_ACTION):
            self.send_response(request, stop_replica.StopReplicaResponse(
                error_code=Errors.CLUSTER_AUTHORIZATION_FAILED.code))
            return
        if self.is_broker_epoch_stale(body.broker_epoch):
            self.send_response(request, stop_replica.StopReplicaResponse(error_code=Errors.STALE_BROKER_EPOCH.code))
            return
        result, error = self.replica_manager.stop_replicas(body)
        gc = self.group_coordinator
        if gc is not None:
            for tp in result:
                if tp.topic == Topic.GROUP_METADATA_TOPIC_NAME and body.delete_partitions:
                    gc.on_resignation(tp.partition)
        # Kafka 2.6: a deleted __transaction_state replica no longer coordinates (2.4 left that to LeaderAndIsr, which
        # a reassigned-away replica never gets); the cached coordinator epoch, whatever it is, is dropped
        if self.txn_coordinator is not None and body.delete_partitions:
            for tp in result:
                if tp.topic == Topic.TRANSACTION_STATE_TOPIC_NAME:
                    self.txn_coordinator.handle_txn_emigration(tp.partition, None)
        self.send_response(request, stop_replica.StopReplicaResponse(
            error_code=error.code,
            partition_errors=[stop_replica.StopReplicaPartitionError(topic_name=tp.topic, partition_index=tp.partition,
                                                                     error_code=e.code) for tp, e in result.items()]))

    # Kafka: KafkaApis.handleControlledShutdownRequest -> KafkaController.controlledShutdown: the answer comes
    # from the controller's event thread once the broker's leaderships moved (or could not)
    def handle_controlled_shutdown_request(self, request) -> None:
        body = request.body
        if not self.auth_helper.authorize_cluster_operation(request, AclOperation.CLUSTER_ACTION):
            self.send_response(request, controlled_shutdown.ControlledShutdownResponse(
                error_code=Errors.CLUSTER_AUTHORIZATION_FAILED.code))
            return

        def controlled_shutdown_callback(partitions_remaining, error) -> None:
            if error is not None:
                response = controlled_shutdown.ControlledShutdownResponse(error_code=Errors.for_exception(error).code)
            else:
                response = controlled_shutdown.ControlledShutdownResponse(error_code=Errors.NONE.code, remaining_partitions=[
                    controlled_shutdown.RemainingPartition(topic_name=tp.topic, partition_index=tp.partition)
                    for tp in sorted(partitions_remaining, key=lambda t: (t.topic, t.partition))])
            self.send_response(request, response)
        self.controller.controlled_shutdown(body.broker_id, body.broker_epoch, controlled_shutdown_callback)

    # Kafka: KafkaApis.handleElectReplicaLeader -> ReplicaManager.electLeaders; a request naming no partitions
    # elects across all of them and reports only those that needed an election
    def handle_elect_replica_leader(self, request) -> None:
        body = request.body
        all_partitions = body.topic_partitions is None

        def send_response_callback(results: dict, top_error: Errors = Errors.NONE) -> None:
            if all_partitions:
                results = {tp: e for tp, e in results.items() if e[0] is not Errors.ELECTION_NOT_NEEDED}
            by_topic: dict[str, list] = {}
            for tp, (error, message) in sorted(results.items(), key=lambda kv: (kv[0].topic, kv[0].partition)):
                by_topic.setdefault(tp.topic, []).append(elect_leaders.PartitionResult(
                    partition_id=tp.partition, error_code=error.code, error_message=message))
            self.send_response(request, elect_leaders.ElectLeadersResponse(error_code=top_error.code,
                replica_election_results=[elect_leaders.ReplicaElectionResult(topic=t, partition_result=r)
                                          for t, r in by_topic.items()]))
        if not self.auth_helper.authorize(request, AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME):
            denied = (Errors.CLUSTER_AUTHORIZATION_FAILED, None)
            send_response_callback({} if all_partitions else {
                TopicPartition(tps.topic, p): denied for tps in body.topic_partitions for p in tps.partition_id},
                Errors.CLUSTER_AUTHORIZATION_FAILED)
            return
        if all_partitions:
            partitions = {TopicPartition(t, p) for t in self.metadata_cache.get_all_topics()
                          for p in range(self.metadata_cache.num_partitions(t) or 0)}
        else:
            partitions = {TopicPartition(tps.topic, p) for tps in body.topic_partitions for p in tps.partition_id}
        # As Kafka's ElectLeadersRequestOps.electionType (kafka/api/package.scala): v0 is always PREFERRED, and
        # ElectionType.valueOf throws for a type it does not know; handleError answers getErrorResponse:
        # UNKNOWN_SERVER_ERROR, the top and every partition named (an unclean election is never the fallback).
        # With null partitions 2.4's getErrorResponse itself fails (NullPointerException) and sends nothing;
        # kafkalite answers the top-level error with no results instead
        election_type = elect_leaders.PREFERRED if request.header.api_version == 0 else body.election_type
        if election_type not in (elect_leaders.PREFERRED, elect_leaders.UNCLEAN):
            failed = (Errors.UNKNOWN_SERVER_ERROR, f"Value {election_type} must be one of [PREFERRED, UNCLEAN]")
            send_response_callback({} if all_partitions else {tp: failed for tp in partitions},
                                   Errors.UNKNOWN_SERVER_ERROR)
            return
        self.replica_manager.elect_leaders(self.controller, partitions, election_type, send_response_callback,
                                           body.timeout_ms)

    # Kafka: KafkaApis.handleAlterPartitionReassignmentsRequest -- answered from the controller's event thread
    # once each reassignment has started (or was refused); replicas null cancels one in progress
    def handle_alter_partition_reassignments_request(self, request) -> None:
        body = request.body
        reassignments = {TopicPartition(t.name, p.partition_index): p.replicas
                         for t in body.topics for p in t.partitions}
        if not self.auth_helper.authorize_cluster_operation(request, AclOperation.ALTER):
            # Kafka: authorizeClusterOperation throws; AlterPartitionReassignmentsRequest.getErrorResponse gives the
            # error at the top and to every partition of the request
            denied = Errors.CLUSTER_AUTHORIZATION_FAILED.code, "Cluster authorization failed."
            self.send_response(request, alter_partition_reassignments.AlterPartitionReassignmentsResponse(
                error_code=denied[0], error_message=denied[1], responses=[
                    alter_partition_reassignments.ReassignableTopicResponse(name=t.name, partitions=[
                        alter_partition_reassignments.ReassignablePartitionResponse(
                            partition_index=p.partition_index, error_code=denied[0], error_message=denied[1])
                        for p in t.partitions]) for t in body.topics]))
            return

        def send_response_callback(results: dict | None, error: tuple | None) -> None:
            if error is not None:
                response = alter_partition_reassignments.AlterPartitionReassignmentsResponse(
                    error_code=error[0].code, error_message=error[1])
            else:
                by_topic: dict[str, list] = {}
                for tp, (err, message) in sorted(results.items(), key=lambda kv: (kv[0].topic, kv[0].partition)):
                    by_topic.setdefault(tp.topic, []).append(
                        alter_partition_reassignments.ReassignablePartitionResponse(
                            partition_index=tp.partition, error_code=err.code, error_message=message))
                response = alter_partition_reassignments.AlterPartitionReassignmentsResponse(responses=[
                    alter_partition_reassignments.ReassignableTopicResponse(name=t, partitions=ps)
                    for t, ps in by_topic.items()])
            self.send_response(request, response)
        self.controller.alter_partition_reassignments(reassignments, send_response_callback)

    # Kafka: KafkaApis.handleListPartitionReassignmentsRequest
    def handle_list_partition_reassignments_request(self, request) -> None:
        body = request.body
        partitions = None if body.topics is None else {
            TopicPartition(t.name, p) for t in body.topics for p in t.partition_indexes}
        msgs = list_partition_reassignments
        if not self.auth_helper.authorize_cluster_operation(request, AclOperation.DESCRIBE):
            # As Kafka's ListPartitionReassignmentsRequest.getErrorResponse: the error at the top, and the partitions
            # asked about listed back with no replicas
            self.send_response(request, msgs.ListPartitionReassignmentsResponse(
                error_code=Errors.CLUSTER_AUTHORIZATION_FAILED.code, error_message="Cluster authorization failed.",
                topics=[msgs.OngoingTopicReassignment(name=t.name, partitions=[
                    msgs.OngoingPartitionReassignment(partition_index=i, replicas=[], adding_replicas=[],
                                                      removing_replicas=[]) for i in t.partition_indexes])
                        for t in body.topics or []]))
            return

        def send_response_callback(results: dict | None, error: tuple | None) -> None:
            if error is not None:
                response = msgs.ListPartitionReassignmentsResponse(error_code=error[0].code, error_message=error[1])
            else:
                by_topic: dict[str, list] = {}
                for tp, assignment in results.items():
                    by_topic.setdefault(tp.topic, []).append(msgs.OngoingPartitionReassignment(
                        partition_index=tp.partition, replicas=list(assignment.replicas),
                        adding_replicas=list(assignment.adding_replicas),
                        removing_replicas=list(assignment.removing_replicas)))
                response = msgs.ListPartitionReassignmentsResponse(topics=[
                    msgs.OngoingTopicReassignment(name=t, partitions=ps) for t, ps in by_topic.items()])
            self.send_response(request, response)
        self.controller.list_partition_reassignments(partitions, send_response_callback)

    # ================================================================== the data path: produce, fetch, offsets, delete
    # ------------------------------------------------------------------ Produce
    # Kafka: KafkaApis.handleProduceRequest
    def handle_produce_request(self, request) -> None:
        body = request.body
        internal_topics_allowed = request.header.client_id == "__admin_client"
        entries: dict[TopicPartition, MemoryRecords] = {}
        errors: dict[TopicPartition, object] = {}
        # Kafka: ProduceRequest.hasTransactionalRecords -- transactional batches need WRITE on the producer's
        # transactional id (which implies the producer id); other idempotent batches IDEMPOTENT_WRITE on the cluster
        records = {TopicPartition(t.name, p.index): MemoryRecords(p.records)
                   for t in body.topic_data for p in t.partition_data if p.records is not None}
        if any(_has_transactional_records(r) for r in records.values()):
            if body.transactional_id is None or not self.auth_helper.authorize(request, AclOperation.WRITE,
                                                                   ResourceType.TRANSACTIONAL_ID, body.transactional_id):
                self.send_produce_errors(request, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
                return
        elif self.authorizer is not None and any(_has_idempotent_records(r) for r in records.values()) and \
                not self.auth_helper.authorize(request, AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, CLUSTER_NAME):
            self.send_produce_errors(request, Errors.CLUSTER_AUTHORIZATION_FAILED)
            return
        writable = self.auth_helper.filter_by_authorized(request, AclOperation.WRITE, ResourceType.TOPIC,
                                          [t.name for t in body.topic_data for _ in t.partition_data])
        for topic in body.topic_data:
            for p in topic.partition_data:
                tp = TopicPartition(topic.name, p.index)
                if tp.topic not in writable:
                    errors[tp] = PartitionResponse(Errors.TOPIC_AUTHORIZATION_FAILED)
                elif not self.metadata_cache.contains(tp.topic) or \
                        self.metadata_cache.get_partition_info(tp.topic, tp.partition) is None:
                    errors[tp] = PartitionResponse(Errors.UNKNOWN_TOPIC_OR_PARTITION)
                elif p.records is None:
                    errors[tp] = PartitionResponse(Errors.INVALID_RECORD)   # a null record set
                else:
                    try:
                        _validate_produce_records(request.header.api_version, records[tp])
                        entries[tp] = records[tp]
                    except ApiException as e:   # Kafka: the error alone (Errors.forException), no message
                        errors[tp] = PartitionResponse(e.error)

        def send_response_callback(response_status: dict) -> None:
            merged = dict(response_status)
            merged.update(errors)
            if body.acks == 0:
                failed = {tp: r.error.name for tp, r in merged.items() if r.error is not Errors.NONE}
                if failed:
                    self.info(f"Closing connection due to error during produce request with correlation id "
                              f"{request.header.correlation_id} from client id {request.header.client_id} with "
                              f"ack=0\nTopic and partition to exceptions: {failed}")
                    self.close_connection(request)
                elif self.quotas is not None:   # acks=0 is exempt from request quotas, not from byte rates
                    self.send_produce_response_maybe_throttle(request, None)
                else:
                    self.send_no_op_response(request)
                return
            if self.quotas is not None:
                self.send_produce_response_maybe_throttle(request, self.produce_response(body, merged, request.header.api_version))
                return
            self.send_response(request, self.produce_response(body, merged, request.header.api_version))

        if not entries:
            send_response_callback({})
            return
        callback = request.trace.purgatory_callback("Produce", send_response_callback)
        self.replica_manager.append_records(body.timeout_ms, body.acks, internal_topics_allowed, AppendOrigin.CLIENT,
                                            entries, callback)
        request.trace.returned_from_purgatory_call()

    # Kafka: handleProduceRequest.sendResponseCallback's quota part -- the request's bytes against the
    # produce byte rate, its handler time against the request quota (not for acks=0)
    def send_produce_response_maybe_throttle(self, request, body) -> None:
        bandwidth_throttle_time_ms = self.quotas.produce.maybe_record_and_get_throttle_time_ms(
            request, request.size_in_bytes, self.time.milliseconds())
        request_throttle_time_ms = 0 if body is None else \
            self.quotas.request.maybe_record_and_get_throttle_time_ms(request)
        self.send_response_maybe_throttle(request, body, None, self.quotas.produce, bandwidth_throttle_time_ms,
                                          request_throttle_time_ms)

    # Kafka: handleFetchRequest.processResponseCallback -- the context picks what to send (an incremental fetch:
    # only partitions with news); a consumer's fetch counts its size (FetchContext.getResponseSize, which leaves
    # the session as it is) against the fetch byte rate. A throttled fetch is answered empty through the context
    # and its bytes are unrecorded; only an answered one updates the session (updateAndGenerateResponseData):
    # otherwise the news it held back -- a new high watermark, log start or last stable offset -- would count
    # as sent, and a full fetch would make a session the client never hears of
    def send_fetch_response_maybe_throttle(self, request, fetch_context, partitions: dict,
                                           is_from_follower: bool) -> None:
        if self.quotas is None or is_from_follower:   # no quotas configured; followers are never throttled
            error, session_id, to_send = fetch_context.update_and_generate_response_data(partitions)
            if is_from_follower and self.quotas is not None and self.quotas.leader.throttled_partitions:
                # the bytes of leader-throttled partitions (Kafka records the bare response size even when none
                # is throttled; kafkalite neither scans nor records then)
                self.quotas.leader.record(self.size_of_throttled_partitions(to_send, self.quotas.leader))
            response = build_fetch_response(error, session_id, to_send, is_from_follower)
            if self.quotas is None:
                self.send_response(request, response)
            else:
                self.send_response_exempt_throttle(request, response)
            return
        response_size = fetch_context.get_response_size(partitions, request.header.api_version)
        request.api_remote_complete_time_nanos = self.time.nanoseconds()
        time_ms = self.time.milliseconds()
        request_throttle_time_ms = self.quotas.request.maybe_record_and_get_throttle_time_ms(request)
        bandwidth_throttle_time_ms = self.quotas.fetch.maybe_record_and_get_throttle_time_ms(request, response_size,
                                                                                             time_ms)
        max_throttle_time_ms = max(bandwidth_throttle_time_ms, request_throttle_time_ms)
        if max_throttle_time_ms > 0:
            if self.quotas.fetch.quotas_enabled:
                self.quotas.fetch.unrecord_quota_sensor(request, response_size, time_ms)
            error, session_id, to_send = fetch_context.get_throttled_response(max_throttle_time_ms)
        else:
            error, session_id, to_send = fetch_context.update_and_generate_response_data(partitions)
        self.send_response_maybe_throttle(request, build_fetch_response(error, session_id, to_send),
                                          None, self.quotas.fetch, bandwidth_throttle_time_ms, request_throttle_time_ms)

    @staticmethod
    def produce_response(body, statuses: dict, version: int) -> produce.ProduceResponse:
        topics = []
        for topic in body.topic_data:
            parts = []
            for p in topic.partition_data:
                r = statuses.get(TopicPartition(topic.name, p.index))
                if r is None:
                    continue
                error = r.error
                if error is Errors.KAFKA_STORAGE_ERROR and version <= 3:
                    # Kafka: ProduceResponse.toStruct -- a v3-or-older producer does not know this error and would
                    # not retry; NOT_LEADER_FOR_PARTITION makes it refresh its metadata and retry
                    error = Errors.NOT_LEADER_FOR_PARTITION
                parts.append(produce.PartitionProduceResponse(
                    index=p.index, error_code=error.code, base_offset=r.base_offset,
                    log_append_time_ms=r.log_append_time, log_start_offset=r.log_start_offset,
                    record_errors=[produce.BatchIndexAndErrorMessage(
                        batch_index=e.batch_index, batch_index_error_message=e.message) for e in r.record_errors],
                    error_message=r.error_message))
            topics.append(produce.TopicProduceResponse(name=topic.name, partition_responses=parts))
        return produce.ProduceResponse(responses=topics)

    # Kafka: ProduceRequest.getErrorResponse -- every partition gets the error, with no message
    def send_produce_errors(self, request, error: Errors) -> None:
        statuses = {TopicPartition(t.name, p.index): PartitionResponse(error)
                    for t in request.body.topic_data for p in t.partition_data}
        if request.body.acks == 0:
            self.close_connection(request)
        else:
            self.send_response(request, self.produce_response(request.body, statuses, request.header.api_version))

    # ------------------------------------------------------------------ Fetch
    # Kafka: KafkaApis.handleFetchRequest -- the FetchManager's context says which partitions to read (a
    # session's, for an incremental fetch) and which of them the response carries (fetch_session.py)
    def handle_fetch_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        is_from_follower = body.replica_id >= 0
        fetch_data = {TopicPartition(t.topic, p.partition): p for t in body.topics for p in t.partitions}
        to_forget = [TopicPartition(t.topic, p) for t in body.forgotten_topics_data for p in t.partitions]
        fetch_context = self.fetch_manager.new_context(FetchMetadata(body.session_id, body.session_epoch), fetch_data,
                                                       to_forget, is_from_follower)
        fetch_infos = []
        erroneous = {}
        if is_from_follower:   # a follower needs CLUSTER_ACTION on the cluster to fetch partition data (None: all)
            readable = None if self.auth_helper.authorize(request, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER,
                                                          CLUSTER_NAME) else frozenset()
        elif self.auth_helper.authorizer is None:   # no authorizer: every topic is readable, skip the per-partition list
            readable = None
        else:   # a consumer needs READ on each topic it fetches
            fetch_topics = []
            fetch_context.foreach_partition(lambda tp, _: fetch_topics.append(tp.topic))
            readable = self.auth_helper.filter_by_authorized(request, AclOperation.READ, ResourceType.TOPIC,
                                                             fetch_topics)

        def classify(tp, data) -> None:
            if readable is not None and tp.topic not in readable:
                erroneous[tp] = Errors.TOPIC_AUTHORIZATION_FAILED
            elif self.metadata_cache.get_partition_info(tp.topic, tp.partition) is None:
                erroneous[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
            else:
                fetch_infos.append((tp, data))
        fetch_context.foreach_partition(classify)

        def process_response_callback(response_partition_data: list) -> None:
            partitions = dict(response_partition_data)
            if version < MIN_ZSTD_FETCH_VERSION:   # Kafka: maybeConvertFetchedData (magic 0/1 readers, zstd topics)
                for tp, data in partitions.items():
                    log = self.replica_manager.local_log(tp)
                    # the context knows every session partition's offset; this request names only what changed
                    partitions[tp] = maybe_convert_fetched_data(tp, data, None if log is None else log.config, version,
                                                                is_from_follower, fetch_context.get_fetch_offset(tp))
            for tp, error in erroneous.items():
                partitions[tp] = FetchPartitionData(error, -1, -1, -1, None)
            self.send_fetch_response_maybe_throttle(request, fetch_context, partitions, is_from_follower)

        if not fetch_infos:
            process_response_callback([])
            return
        fetch_max_bytes = min(body.max_bytes, self.config.get("fetch.max.bytes"))   # Kafka 2.5: KIP-541
        callback = request.trace.purgatory_callback("Fetch", process_response_callback)
        self.replica_manager.fetch_messages(body.max_wait_ms, body.replica_id, body.min_bytes, fetch_max_bytes,
                                            version <= 2, fetch_infos, callback, body.isolation_level,
                                            client_metadata=version >= 11, quota=self.replication_quota(body))
        request.trace.returned_from_purgatory_call()

    # Kafka: KafkaApis.sizeOfThrottledPartitions -- the bytes the answer gives the throttled partitions, in-sync
    # followers' included ("to ensure total replication traffic doesn't exceed quota"); Kafka measures the
    # response those partitions alone would make (FetchResponse.sizeOf), here their records plus the same
    # per-partition estimate as FetchContext.get_response_size
    @staticmethod
    def size_of_throttled_partitions(partitions: dict, quota) -> int:
        return sum(records_size(data.records) + _PARTITION_OVERHEAD for tp, data in partitions.items()
                   if quota.is_throttled(tp))

    # Kafka: KafkaApis.replicationQuota -- a follower's fetch is read under the leader's replication quota
    def replication_quota(self, fetch_request):
        if fetch_request.replica_id >= 0 and self.quotas is not None:
            return self.quotas.leader
        return UnboundedQuota

    # ------------------------------------------------------------------ ListOffsets
    # Kafka: KafkaApis.handleListOffsetRequest (handleListOffsetRequestV1AndAbove) -- 2.4's request is a map of
    # partitions: a partition named twice gets one answer, INVALID_REQUEST from v1 (ListOffsetRequest's
    # duplicatePartitions), v0 the last entry's offsets
    def handle_list_offset_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        entries: dict[TopicPartition, object] = {}
        duplicates = set()
        for topic in body.topics:
            for p in topic.partitions:
                tp = TopicPartition(topic.name, p.partition_index)
                if tp in entries:
                    duplicates.add(tp)
                entries[tp] = p
        describable = self.auth_helper.filter_by_authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                                            [tp.topic for tp in entries])
        by_topic: dict[str, list] = {}
        for tp, p in entries.items():
            r = list_offsets.ListOffsetsPartitionResponse(partition_index=tp.partition)
            if tp.topic not in describable:
                r.error_code = Errors.TOPIC_AUTHORIZATION_FAILED.code
            elif version == 0:
                r = self.list_offset_v0_partition(body.replica_id, tp.topic, p)
            elif tp in duplicates:
                self.debug(f"OffsetRequest with correlation id {request.header.correlation_id} from client "
                           f"{request.header.client_id} on partition {tp} failed because the partition is "
                           f"duplicated in the request.")
                r.error_code = Errors.INVALID_REQUEST.code
            else:
                try:
                    found = self.replica_manager.fetch_offset_for_timestamp(
                        tp, p.timestamp, p.current_leader_epoch,
                        fetch_only_from_leader=body.replica_id != DEBUGGING_REPLICA_ID,
                        is_from_consumer=body.replica_id == CONSUMER_REPLICA_ID,
                        isolation_level=body.isolation_level if version >= 2 else 0)
                    r.timestamp, r.offset = (found.timestamp, found.offset) if found is not None else (-1, -1)
                    r.leader_epoch = found.leader_epoch if found is not None and found.leader_epoch is not None else -1
                except ApiException as e:
                    error = e.error
                    if error is Errors.OFFSET_NOT_AVAILABLE and version < 5:   # Kafka: only v5+ know it
                        error = Errors.LEADER_NOT_AVAILABLE
                    r.error_code, r.timestamp, r.offset = error.code, -1, -1
                except Exception as e:  # noqa: BLE001 -- Kafka: logged, and this partition's Errors.forException
                    self.error("Error while responding to offset request", exc_info=True)
                    r.error_code, r.timestamp, r.offset = Errors.for_exception(e).code, -1, -1
            if version < 4:
                r.leader_epoch = -1
            by_topic.setdefault(tp.topic, []).append(r)
        self.send_response(request, list_offsets.ListOffsetsResponse(topics=[
            list_offsets.ListOffsetsTopicResponse(name=name, partitions=parts) for name, parts in by_topic.items()]))

    # Kafka: KafkaApis.handleListOffsetRequestV0 -- up to max_num_offsets segment-boundary offsets per
    # partition (the log's legacy path), largest first; v0 has no timestamp/offset pair
    def list_offset_v0_partition(self, replica_id: int, topic: str, p) -> list_offsets.ListOffsetsPartitionResponse:
        r = list_offsets.ListOffsetsPartitionResponse(partition_index=p.partition_index)
        try:
            r.old_style_offsets = self.replica_manager.legacy_fetch_offsets_for_timestamp(
                TopicPartition(topic, p.partition_index), p.timestamp, p.max_num_offsets,
                is_from_consumer=replica_id == CONSUMER_REPLICA_ID,
                fetch_only_from_leader=replica_id != DEBUGGING_REPLICA_ID)
        except ApiException as e:
            r.error_code = e.error.code
        return r

    # ------------------------------------------------------------------ WriteTxnMarkers
    # Kafka: KafkaApis.handleWriteTxnMarkersRequest -- a cluster action from a transaction coordinator: for each
    # marker, one COMMIT/ABORT control batch per partition, appended as the coordinator (acks=-1, internal
    # topics allowed); one response once every marker's append has answered. Markers that land on
    # __consumer_offsets make the group coordinator apply (or drop) the transaction's pending offsets.
    def handle_write_txn_markers_request(self, request) -> None:
        markers = request.body.markers
        if not self.auth_helper.authorize_cluster_operation(request, AclOperation.CLUSTER_ACTION):
            self.send_response(request, write_txn_markers.WriteTxnMarkersResponse(markers=[   # Kafka: getErrorResponse
                write_txn_markers.WritableTxnMarkerResult(producer_id=m.producer_id, topics=[
                    write_txn_markers.WritableTxnMarkerTopicResult(name=t.name, partitions=[
                        write_txn_markers.WritableTxnMarkerPartitionResult(
                            partition_index=i, error_code=Errors.CLUSTER_AUTHORIZATION_FAILED.code)
                        for i in t.partition_indexes]) for t in m.topics]) for m in markers]))
            return
        errors: dict[int, dict[TopicPartition, Errors]] = {}
        lock = threading.Lock()
        pending = [len(markers)]

        def send_response() -> None:
            results = []
            for producer_id, partition_errors in errors.items():
                by_topic: dict[str, list] = {}
                for tp, error in partition_errors.items():
                    by_topic.setdefault(tp.topic, []).append(write_txn_markers.WritableTxnMarkerPartitionResult(
                        partition_index=tp.partition, error_code=error.code))
                results.append(write_txn_markers.WritableTxnMarkerResult(producer_id=producer_id, topics=[
                    write_txn_markers.WritableTxnMarkerTopicResult(name=t, partitions=ps) for t, ps in by_topic.items()]))
            self.send_response(request, write_txn_markers.WriteTxnMarkersResponse(markers=results))

        # Kafka: KafkaApis.updateErrors
        def update_errors(producer_id: int, current_errors: dict) -> None:
            with lock:
                errors.setdefault(producer_id, {}).update(current_errors)

        # Kafka: KafkaApis.maybeSendResponseCallback
        def maybe_send_response_callback(producer_id: int, result: TransactionResult, response_status: dict) -> None:
            update_errors(producer_id, {tp: status.error for tp, status in response_status.items()})
            successful_offsets_partitions = [tp.partition for tp, status in response_status.items()
                                             if tp.topic == Topic.GROUP_METADATA_TOPIC_NAME
                                             and status.error is Errors.NONE]
            if successful_offsets_partitions:
                try:
                    self.group_coordinator.schedule_handle_txn_completion(producer_id, successful_offsets_partitions,
                                                                          result)
                except Exception as e:  # noqa: BLE001
                    self.error(f"Received an exception while trying to update the offsets cache on transaction "
                               f"marker append: {e}", exc_info=True)
                    update_errors(producer_id, {TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, p):
                                                Errors.UNKNOWN_SERVER_ERROR for p in successful_offsets_partitions})
            one_marker_done()

        def one_marker_done() -> None:
            with lock:
                pending[0] -= 1
                done = pending[0] == 0
            if done:
                send_response()

        if not markers:
            send_response()
            return
        for marker in markers:
            producer_id = marker.producer_id
            result = TransactionResult.for_id(marker.transaction_result)
            control_type = ControlRecordType.COMMIT if result is TransactionResult.COMMIT else ControlRecordType.ABORT
            current_errors = {}
            entries = {}
            for topic in marker.topics:
                for index in topic.partition_indexes:
                    tp = TopicPartition(topic.name, index)
                    if self.replica_manager.local_log(tp) is None:   # Kafka: ReplicaManager.getMagic is None
                        current_errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    else:
                        entries[tp] = MemoryRecords.with_end_transaction_marker(
                            producer_id, marker.producer_epoch, EndTransactionMarker(control_type, marker.coordinator_epoch))
            if current_errors:
                update_errors(producer_id, current_errors)
            if not entries:
                # nothing to append for this marker (2.4 counts it as skipped); whichever marker finishes
                # last answers -- also when an earlier marker's append already answered synchronously
                one_marker_done()
                continue
            self.replica_manager.append_records(
                self.config.get("request.timeout.ms"), -1, True, AppendOrigin.COORDINATOR, entries,
                lambda status, pid=producer_id, res=result: maybe_send_response_callback(pid, res, status))

    # ------------------------------------------------------------------ DescribeProducers
    # KIP-664 (Kafka 3.0, not in 2.4) KafkaApis.handleDescribeProducersRequest -> ReplicaManager.activeProducerState:
    # per partition, each producer the leader's log knows (epoch, last sequence and timestamp, coordinator epoch,
    # the first offset of its open transaction)
    def handle_describe_producers_request(self, request) -> None:
        topics = []
        readable = self.auth_helper.filter_by_authorized(request, AclOperation.READ, ResourceType.TOPIC,
                                          [t.name for t in request.body.topics])
        for topic in request.body.topics:
            parts = []
            for index in topic.partition_indexes:
                tp = TopicPartition(topic.name, index)
                if topic.name not in readable:   # Kafka 3.0: READ on the topic
                    error, producers = Errors.TOPIC_AUTHORIZATION_FAILED, []
                elif self.metadata_cache.get_partition_info(tp.topic, tp.partition) is None:
                    error, producers = Errors.UNKNOWN_TOPIC_OR_PARTITION, []
                else:
                    error, producers = self.replica_manager.active_producer_state(tp)
                parts.append(describe_producers.PartitionResponse(
                    partition_index=index, error_code=error.code, error_message=None,
                    active_producers=[describe_producers.ProducerState(
                        producer_id=pid, producer_epoch=e.producer_epoch, last_sequence=e.last_seq,
                        last_timestamp=e.last_timestamp, coordinator_epoch=e.coordinator_epoch,
                        current_txn_start_offset=-1 if e.current_txn_first_offset is None
                        else e.current_txn_first_offset) for pid, e in producers]))
            topics.append(describe_producers.TopicResponse(name=topic.name, partitions=parts))
        self.send_response(request, describe_producers.DescribeProducersResponse(topics=topics))

    # ------------------------------------------------------------------ OffsetForLeaderEpoch
    # Kafka: KafkaApis.handleOffsetForLeaderEpochRequest -> ReplicaManager.lastOffsetForLeaderEpoch -- 2.4's request
    # is a map of partitions (OffsetsForLeaderEpochRequest.epochsByPartition): a partition named twice is asked
    # and answered once, for its last entry. The replica id (v3+) changes nothing: only a leader answers.
    def handle_offset_for_leader_epoch_request(self, request) -> None:
        body = request.body
        entries = {TopicPartition(topic.topic, p.partition): p for topic in body.topics for p in topic.partitions}
        # a follower's CLUSTER_ACTION covers every topic; a client needs DESCRIBE on each
        if self.auth_helper.authorize(request, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME, log_if_denied=False):
            describable = {tp.topic for tp in entries}
        else:
            describable = self.auth_helper.filter_by_authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                                                [tp.topic for tp in entries])
        by_topic: dict[str, list] = {}
        for tp, p in entries.items():
            r = offset_for_leader_epoch.EpochEndOffset(partition=tp.partition, leader_epoch=UNDEFINED_EPOCH,
                                                       end_offset=UNDEFINED_EPOCH_OFFSET)
            if tp.topic not in describable:
                r.error_code = Errors.TOPIC_AUTHORIZATION_FAILED.code
            else:
                try:
                    found = self.replica_manager.last_offset_for_leader_epoch(tp, p.current_leader_epoch,
                                                                              p.leader_epoch)
                    if found is not None:
                        r.leader_epoch, r.end_offset = found
                except ApiException as e:
                    r.error_code = e.error.code
            by_topic.setdefault(tp.topic, []).append(r)
        self.send_response(request, offset_for_leader_epoch.OffsetForLeaderEpochResponse(topics=[
            offset_for_leader_epoch.OffsetForLeaderTopicResult(topic=t, partitions=ps) for t, ps in by_topic.items()]))

    # Kafka 2.7: KafkaApis maps PRODUCER_FENCED to INVALID_PRODUCER_EPOCH for clients too old to know it
    @staticmethod
    def _fenced_for_version(error: Errors, version: int, first_version_with_fenced: int) -> Errors:
        if error is Errors.PRODUCER_FENCED and version < first_version_with_fenced:
            return Errors.INVALID_PRODUCER_EPOCH
        return error

    # Kafka: KafkaApis.handleInitProducerIdRequest -> TransactionCoordinator.handleInitProducerId: without a
    # transactional id a fresh producer id with epoch 0; with one, the coordinator bumps (and fences) its epoch.
    # v3+ (KIP-360) may name the producer's current id and epoch; both or neither.
    def handle_init_producer_id_request(self, request) -> None:
        body = request.body
        version = request.header.api_version

        # Kafka: handleInitProducerIdRequest.sendResponseCallback
        def send_response_callback(result) -> None:
            error = self._fenced_for_version(result.error, version, 4)
            self.trace(f"Completed {body.transactional_id}'s InitProducerIdRequest with result {result} from client "
                       f"{request.header.client_id}")
            self.send_response(request, init_producer_id.InitProducerIdResponse(
                error_code=error.code, producer_id=result.producer_id, producer_epoch=result.producer_epoch))

        # WRITE on the transactional id, or for a plain idempotent producer IDEMPOTENT_WRITE on the cluster
        if body.transactional_id is not None:
            if not self.auth_helper.authorize(request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body.transactional_id):
                self.send_response(request, init_producer_id.InitProducerIdResponse(
                    error_code=Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code, producer_id=-1, producer_epoch=-1))
                return
        elif not self.auth_helper.authorize(request, AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, CLUSTER_NAME):
            self.send_response(request, init_producer_id.InitProducerIdResponse(
                error_code=Errors.CLUSTER_AUTHORIZATION_FAILED.code, producer_id=-1, producer_epoch=-1))
            return
        pid, epoch = (body.producer_id, body.producer_epoch) if version >= 3 else (-1, -1)
        if pid == -1 and epoch == -1:
            expected = None
        elif pid != -1 and epoch != -1:
            expected = (pid, epoch)
        else:
            self.send_response(request, init_producer_id.InitProducerIdResponse(
                error_code=Errors.INVALID_REQUEST.code, producer_id=-1, producer_epoch=-1))
            return
        self.txn_coordinator.handle_init_producer_id(body.transactional_id, body.transaction_timeout_ms, expected,
                                                     send_response_callback)

    # Kafka: KafkaApis.handleEndTxnRequest
    def handle_end_txn_request(self, request) -> None:
        body = request.body
        version = request.header.api_version

        # Kafka: handleEndTxnRequest.sendResponseCallback
        def send_response_callback(error: Errors) -> None:
            error = self._fenced_for_version(error, version, 2)
            self.trace(f"Completed {body.transactional_id}'s EndTxnRequest with command: "
                       f"{'COMMIT' if body.committed else 'ABORT'}, errors: {error.name} from client "
                       f"{request.header.client_id}.")
            self.send_response(request, end_txn.EndTxnResponse(error_code=error.code))

        if not self.auth_helper.authorize(request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body.transactional_id):
            self.send_response(request, end_txn.EndTxnResponse(error_code=Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code))
            return
        self.txn_coordinator.handle_end_transaction(body.transactional_id, body.producer_id, body.producer_epoch,
                                                    TransactionResult.for_id(body.committed), send_response_callback)

    # Kafka: KafkaApis.handleAddPartitionToTxnRequest -- internal topics are refused (TOPIC_AUTHORIZATION_FAILED), an
    # unknown partition fails the whole request (the others get OPERATION_NOT_ATTEMPTED)
    def handle_add_partition_to_txn_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        partitions_to_add = [TopicPartition(t.name, p) for t in body.topics for p in t.partitions]

        def respond(errors: dict) -> None:
            by_topic: dict[str, list] = {}
            for tp, error in errors.items():
                by_topic.setdefault(tp.topic, []).append(add_partitions_to_txn.AddPartitionsToTxnPartitionResult(
                    partition_index=tp.partition, error_code=error.code))
            self.send_response(request, add_partitions_to_txn.AddPartitionsToTxnResponse(results=[
                add_partitions_to_txn.AddPartitionsToTxnTopicResult(name=t, results=rs) for t, rs in by_topic.items()]))

        if not self.auth_helper.authorize(request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body.transactional_id):
            respond({tp: Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED for tp in partitions_to_add})
            return
        writable = self.auth_helper.filter_by_authorized(request, AclOperation.WRITE, ResourceType.TOPIC,
                                          [tp.topic for tp in partitions_to_add if not Topic.is_internal(tp.topic)])
        unauthorized, non_existing, authorized = {}, {}, []
        for tp in partitions_to_add:
            if Topic.is_internal(tp.topic) or tp.topic not in writable:
                unauthorized[tp] = Errors.TOPIC_AUTHORIZATION_FAILED
            elif self.metadata_cache.get_partition_info(tp.topic, tp.partition) is None:
                non_existing[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
            else:
                authorized.append(tp)
        if unauthorized or non_existing:
            respond({**unauthorized, **non_existing, **{tp: Errors.OPERATION_NOT_ATTEMPTED for tp in authorized}})
            return

        # Kafka: handleAddPartitionToTxnRequest.sendResponseCallback -- one error for every partition
        def send_response_callback(error: Errors) -> None:
            error = self._fenced_for_version(error, version, 2)
            self.trace(f"Completed {body.transactional_id}'s AddPartitionsToTxnRequest with partitions "
                       f"{partitions_to_add}: errors: {error.name} from client {request.header.client_id}")
            respond({tp: error for tp in partitions_to_add})

        self.txn_coordinator.handle_add_partitions_to_transaction(body.transactional_id, body.producer_id,
                                                                  body.producer_epoch, set(authorized),
                                                                  send_response_callback)

    # Kafka: KafkaApis.handleAddOffsetsToTxnRequest -- the group's __consumer_offsets partition joins the
    # transaction
    def handle_add_offsets_to_txn_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        offset_topic_partition = TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME,
                                                self.group_coordinator.partition_for(body.group_id))
        if not self.auth_helper.authorize(request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body.transactional_id):
            self.send_response(request, add_offsets_to_txn.AddOffsetsToTxnResponse(
                error_code=Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code))
            return
        if not self.auth_helper.authorize(request, AclOperation.READ, ResourceType.GROUP, body.group_id):
            self.send_response(request, add_offsets_to_txn.AddOffsetsToTxnResponse(
                error_code=Errors.GROUP_AUTHORIZATION_FAILED.code))
            return

        # Kafka: handleAddOffsetsToTxnRequest.sendResponseCallback
        def send_response_callback(error: Errors) -> None:
            error = self._fenced_for_version(error, version, 2)
            self.trace(f"Completed {body.transactional_id}'s AddOffsetsToTxnRequest for group {body.group_id} on "
                       f"partition {offset_topic_partition}: errors: {error.name} from client "
                       f"{request.header.client_id}")
            self.send_response(request, add_offsets_to_txn.AddOffsetsToTxnResponse(error_code=error.code))

        self.txn_coordinator.handle_add_partitions_to_transaction(body.transactional_id, body.producer_id,
                                                                  body.producer_epoch, {offset_topic_partition},
                                                                  send_response_callback)

    # Kafka 3.0: KafkaApis.handleDescribeTransactionsRequest (KIP-664)
    def handle_describe_transactions_request(self, request) -> None:
        states = []
        for transactional_id in request.body.transactional_ids:
            if not self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, transactional_id):
                states.append(describe_transactions.TransactionState(
                    error_code=Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code, transactional_id=transactional_id,
                    transaction_state="", transaction_timeout_ms=0, transaction_start_time_ms=-1, producer_id=-1,
                    producer_epoch=-1, topics=[]))
                continue
            d = self.txn_coordinator.handle_describe_transactions(transactional_id)
            describable = self.auth_helper.filter_by_authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                                 [tp.topic for tp in d.topic_partitions], log_if_denied=False)
            by_topic: dict[str, list[int]] = {}
            for tp in d.topic_partitions:
                if tp.topic in describable:   # Kafka 3.0 leaves out the partitions the principal may not describe
                    by_topic.setdefault(tp.topic, []).append(tp.partition)
            states.append(describe_transactions.TransactionState(
                error_code=d.error.code, transactional_id=d.transactional_id, transaction_state=d.state,
                transaction_timeout_ms=d.txn_timeout_ms, transaction_start_time_ms=d.txn_start_timestamp,
                producer_id=d.producer_id, producer_epoch=d.producer_epoch,
                topics=[describe_transactions.TopicData(topic=t, partitions=ps) for t, ps in by_topic.items()]))
        self.send_response(request, describe_transactions.DescribeTransactionsResponse(transaction_states=states))

    # Kafka 3.0: KafkaApis.handleListTransactionsRequest (KIP-664; the v1 duration filter is KIP-994's)
    def handle_list_transactions_request(self, request) -> None:
        body = request.body
        duration = body.duration_filter if request.header.api_version >= 1 else -1
        result = self.txn_coordinator.handle_list_transactions(set(body.producer_id_filters), set(body.state_filters),
                                                               duration)
        self.send_response(request, list_transactions.ListTransactionsResponse(
            error_code=result.error.code, unknown_state_filters=list(result.unknown_state_filters),
            transaction_states=[list_transactions.TransactionState(transactional_id=t, producer_id=p,
                                                                   transaction_state=s)
                                for t, p, s in result.transactions
                                if self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, t,
                                                  log_if_denied=False)]))

    # ------------------------------------------------------------------ DeleteRecords
    # Kafka: KafkaApis.handleDeleteRecordsRequest -> ReplicaManager.deleteRecords (waits in DelayedDeleteRecords)
    def handle_delete_records_request(self, request) -> None:
        body = request.body
        offsets = {TopicPartition(topic.name, p.partition_index): p.offset
                   for topic in body.topics for p in topic.partitions}
        deletable = self.auth_helper.filter_by_authorized(request, AclOperation.DELETE, ResourceType.TOPIC,
                                           [tp.topic for tp in offsets])
        refused = {tp: (-1, Errors.TOPIC_AUTHORIZATION_FAILED) for tp in offsets if tp.topic not in deletable}
        # Kafka: a partition the metadata cache does not know is answered here, not by ReplicaManager
        refused.update({tp: (-1, Errors.UNKNOWN_TOPIC_OR_PARTITION) for tp in offsets if tp not in refused
                        and self.metadata_cache.get_partition_info(tp.topic, tp.partition) is None})
        offsets = {tp: o for tp, o in offsets.items() if tp not in refused}

        def send_response_callback(results: dict) -> None:
            by_topic: dict[str, list] = {}
            for tp, (low_watermark, error) in {**results, **refused}.items():
                by_topic.setdefault(tp.topic, []).append(delete_records.DeleteRecordsPartitionResult(
                    partition_index=tp.partition, low_watermark=low_watermark, error_code=error.code))
            self.send_response(request, delete_records.DeleteRecordsResponse(topics=[
                delete_records.DeleteRecordsTopicResult(name=name, partitions=parts)
                for name, parts in by_topic.items()]))

        if not offsets:
            send_response_callback({})
            return
        self.replica_manager.delete_records(body.timeout_ms, offsets, send_response_callback)

    # ------------------------------------------------------------------ log dirs (KIP-113)
    # Kafka: KafkaApis.handleAlterReplicaLogDirsRequest -- answered once each move has started (or failed)
    def handle_alter_replica_log_dirs_request(self, request) -> None:
        partition_dirs = {TopicPartition(topic.name, p): d.path
                          for d in request.body.dirs for topic in d.topics for p in topic.partitions}
        if self.auth_helper.authorize(request, AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME):
            response_map = self.replica_manager.alter_replica_log_dirs(partition_dirs)
        else:
            response_map = {tp: Errors.CLUSTER_AUTHORIZATION_FAILED for tp in partition_dirs}
        by_topic: dict[str, list] = {}
        for tp, error in response_map.items():
            by_topic.setdefault(tp.topic, []).append(alter_replica_log_dirs.AlterReplicaLogDirPartitionResult(
                partition_index=tp.partition, error_code=error.code))
        self.send_response(request, alter_replica_log_dirs.AlterReplicaLogDirsResponse(results=[
            alter_replica_log_dirs.AlterReplicaLogDirTopicResult(topic_name=t, partitions=ps)
            for t, ps in by_topic.items()]))

    # Kafka: KafkaApis.handleDescribeLogDirsRequest -- topics null: every partition with a log on this broker
    def handle_describe_log_dirs_request(self, request) -> None:
        topics = request.body.topics
        if not self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME):
            self.send_response(request, describe_log_dirs.DescribeLogDirsResponse(results=[]))   # 2.4: no dirs
            return
        if topics is None:
            partitions = {log.topic_partition for log in self.replica_manager.log_manager.all_logs()}
        else:
            partitions = {TopicPartition(t.topic, p) for t in topics for p in t.partitions}
        results = []
        for log_dir, info in self.replica_manager.describe_log_dirs(partitions).items():
            by_topic: dict[str, list] = {}
            for tp, replica in sorted(info.replica_infos.items(), key=lambda item: (item[0].topic, item[0].partition)):
                by_topic.setdefault(tp.topic, []).append(describe_log_dirs.DescribeLogDirsPartition(
                    partition_index=tp.partition, partition_size=replica.size, offset_lag=replica.offset_lag,
                    is_future_key=replica.is_future))
            results.append(describe_log_dirs.DescribeLogDirsResult(
                error_code=info.error.code, log_dir=log_dir, topics=[
                    describe_log_dirs.DescribeLogDirsTopic(name=t, partitions=ps) for t, ps in by_topic.items()]))
        self.send_response(request, describe_log_dirs.DescribeLogDirsResponse(results=results))

    # ================================================================== groups
    # Kafka: KafkaApis.handleFindCoordinatorRequest
    def handle_find_coordinator_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        key_type = body.key_type if version >= 1 else GROUP_KEY_TYPE

        def respond(error: Errors, node=(-1, "", -1)) -> None:   # Kafka: Node.noNode
            node_id, host, port = node
            self.send_response(request, find_coordinator.FindCoordinatorResponse(
                error_code=error.code, error_message=None if error is Errors.NONE else error.name,
                node_id=node_id, host=host, port=port))

        # DESCRIBE on the group or on the transactional id the coordinator is looked up for
        if key_type == GROUP_KEY_TYPE and \
                not self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.GROUP, body.key):
            respond(Errors.GROUP_AUTHORIZATION_FAILED)
            return
        if key_type == TRANSACTION_KEY_TYPE and \
                not self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, body.key):
            respond(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
            return
        if key_type == GROUP_KEY_TYPE:
            topic = Topic.GROUP_METADATA_TOPIC_NAME
            partition = self.group_coordinator.partition_for(body.key)
        elif key_type == TRANSACTION_KEY_TYPE:
            topic = Topic.TRANSACTION_STATE_TOPIC_NAME
            partition = self.txn_coordinator.partition_for(body.key)
        else:
            respond(Errors.INVALID_REQUEST)
            return
        # Kafka: getOrCreateInternalTopic -- whatever the creation gives, the coordinator is not available yet
        if not self.metadata_cache.contains(topic):
            self.create_internal_topic(topic)
            respond(Errors.COORDINATOR_NOT_AVAILABLE)
            return
        # (broker id, host, port) of the partition's leader on this listener, or None
        node = self.metadata_cache.get_partition_leader_endpoint(topic, partition, request.context.listener_name)
        if node is None or node[0] < 0:
            respond(Errors.COORDINATOR_NOT_AVAILABLE)
        else:
            respond(Errors.NONE, node)

    # Kafka: KafkaApis.handleJoinGroupRequest
    def handle_join_group_request(self, request) -> None:
        body = request.body
        version = request.header.api_version

        # Kafka: handleJoinGroupRequest.sendResponseCallback
        def send_response_callback(result) -> None:
            protocol_name = result.protocol_name if version >= 7 else (result.protocol_name or "")
            self.send_response(request, join_group.JoinGroupResponse(
                error_code=result.error.code, generation_id=result.generation_id,
                protocol_type=result.protocol_type, protocol_name=protocol_name,
                leader=result.leader_id or "", member_id=result.member_id,
                members=[join_group.JoinGroupResponseMember(member_id=m, group_instance_id=i, metadata=md)
                         for m, i, md in result.members]))

        if not self.auth_helper.authorize(request, AclOperation.READ, ResourceType.GROUP, body.group_id):
            self.send_response(request, join_group.JoinGroupResponse(
                error_code=Errors.GROUP_AUTHORIZATION_FAILED.code, generation_id=-1, protocol_name="", leader="",
                member_id="", members=[]))
            return
        # KIP-394: from v4 a new member must come back with the id we give it (static members excepted)
        require_known_member_id = version >= 4 and body.group_instance_id is None
        rebalance_timeout_ms = body.session_timeout_ms if version == 0 else body.rebalance_timeout_ms
        self.group_coordinator.handle_join_group(
            body.group_id, body.member_id, body.group_instance_id, require_known_member_id,
            request.header.client_id or "", "/" + str(request.context.client_address),
            rebalance_timeout_ms, body.session_timeout_ms, body.protocol_type,
            [(p.name, bytes(p.metadata)) for p in body.protocols], send_response_callback)

    # Kafka: KafkaApis.handleSyncGroupRequest
    def handle_sync_group_request(self, request) -> None:
        body = request.body
        version = request.header.api_version

        def send_response_callback(result) -> None:
            self.send_response(request, sync_group.SyncGroupResponse(
                error_code=result.error.code,
                protocol_type=result.protocol_type if version >= 5 else None,
                protocol_name=result.protocol_name if version >= 5 else None,
                assignment=result.member_assignment))

        if not self.auth_helper.authorize(request, AclOperation.READ, ResourceType.GROUP, body.group_id):
            self.send_response(request, sync_group.SyncGroupResponse(error_code=Errors.GROUP_AUTHORIZATION_FAILED.code,
                                                                     assignment=b""))
            return
        assignments = {a.member_id: bytes(a.assignment) for a in body.assignments}
        self.group_coordinator.handle_sync_group(
            body.group_id, body.generation_id, body.member_id,
            body.protocol_type if version >= 5 else None, body.protocol_name if version >= 5 else None,
            body.group_instance_id, assignments, send_response_callback)

    # Kafka: KafkaApis.handleHeartbeatRequest
    def handle_heartbeat_request(self, request) -> None:
        body = request.body
        if not self.auth_helper.authorize(request, AclOperation.READ, ResourceType.GROUP, body.group_id):
            self.send_response(request, heartbeat.HeartbeatResponse(error_code=Errors.GROUP_AUTHORIZATION_FAILED.code))
            return
        self.group_coordinator.handle_heartbeat(
            body.group_id, body.member_id, body.group_instance_id, body.generation_id,
            lambda error: self.send_response(request, heartbeat.HeartbeatResponse(error_code=error.code)))

    # Kafka: KafkaApis.handleLeaveGroupRequest -- v0-2 name one member, v3+ a batch
    def handle_leave_group_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        if not self.auth_helper.authorize(request, AclOperation.READ, ResourceType.GROUP, body.group_id):
            self.send_response(request, leave_group.LeaveGroupResponse(
                error_code=Errors.GROUP_AUTHORIZATION_FAILED.code, members=[]))
            return
        if version < 3:
            members = [(body.member_id, None)]
        else:
            members = [(m.member_id, m.group_instance_id) for m in body.members]

        def send_response_callback(result) -> None:
            if version < 3:
                # Kafka: LeaveGroupResponse(..., version) -- the member's error becomes the top-level one
                error = result.top_level_error
                if error is Errors.NONE and result.member_responses:
                    error = result.member_responses[0].error
                self.send_response(request, leave_group.LeaveGroupResponse(error_code=error.code, members=[]))
            else:
                self.send_response(request, leave_group.LeaveGroupResponse(
                    error_code=result.top_level_error.code,
                    members=[leave_group.MemberResponse(member_id=r.member_id, group_instance_id=r.group_instance_id,
                                                        error_code=r.error.code) for r in result.member_responses]))

        self.group_coordinator.handle_leave_group(body.group_id, members, send_response_callback)

    # Kafka: KafkaApis.handleOffsetCommitRequest
    def handle_offset_commit_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        now = self.time.milliseconds()
        errors: dict[TopicPartition, Errors] = {}
        to_commit: dict[TopicPartition, OffsetAndMetadata] = {}
        retention = body.retention_time_ms if 2 <= version <= 4 else -1
        group_authorized = self.auth_helper.authorize(request, AclOperation.READ, ResourceType.GROUP, body.group_id)
        readable = self.auth_helper.filter_by_authorized(request, AclOperation.READ, ResourceType.TOPIC,
                                          [t.name for t in body.topics]) if group_authorized else set()
        for t in body.topics:
            for p in t.partitions:
                tp = TopicPartition(t.name, p.partition_index)
                if not group_authorized:   # READ on the group first: every partition answers its error
                    errors[tp] = Errors.GROUP_AUTHORIZATION_FAILED
                    continue
                if t.name not in readable:
                    errors[tp] = Errors.TOPIC_AUTHORIZATION_FAILED
                    continue
                # Kafka: metadataCache.contains(topicPartition) -- the partition, not only its topic
                if self.metadata_cache.get_partition_info(t.name, p.partition_index) is None:
                    errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    continue
                leader_epoch = p.committed_leader_epoch if version >= 6 and p.committed_leader_epoch >= 0 else None
                # v1 may give its own commit timestamp (-1: now); 2.4 keeps it as the commit's time
                commit_timestamp = p.commit_timestamp if version == 1 and p.commit_timestamp != -1 else now
                to_commit[tp] = OffsetAndMetadata(
                    offset=p.committed_offset, leader_epoch=leader_epoch,
                    metadata=p.committed_metadata if p.committed_metadata is not None else NO_METADATA,
                    commit_timestamp=commit_timestamp, expire_timestamp=None if retention == -1 else now + retention)

        # Kafka: handleOffsetCommitRequest.sendResponseCallback -- in request order
        def send_response_callback(commit_status: dict[TopicPartition, Errors]) -> None:
            combined = {**errors, **commit_status}
            topics = []
            for t in body.topics:
                topics.append(offset_commit.OffsetCommitResponseTopic(name=t.name, partitions=[
                    offset_commit.OffsetCommitResponsePartition(
                        partition_index=p.partition_index,
                        error_code=combined.get(TopicPartition(t.name, p.partition_index), Errors.NONE).code)
                    for p in t.partitions]))
            self.send_response(request, offset_commit.OffsetCommitResponse(topics=topics))

        if not to_commit:
            send_response_callback({})
        elif version == 0:   # Kafka 2.4: "for version 0 always store offsets to ZK"
            send_response_callback(self.commit_offsets_to_zookeeper(body.group_id, to_commit))
        else:
            self.group_coordinator.handle_commit_offsets(
                body.group_id, body.member_id, body.group_instance_id, body.generation_id, to_commit,
                send_response_callback, api_version=version)

    # Kafka: KafkaApis.handleOffsetCommitRequest (its v0 branch; 3.x names it commitOffsetsToZookeeper) -- OffsetCommit
    # v0 writes /consumers/<group>/offsets/<topic>/<partition> and bypasses the group coordinator
    def commit_offsets_to_zookeeper(self, group_id: str, offsets: dict) -> dict[TopicPartition, Errors]:
        max_size = self.config.get("offset.metadata.max.bytes")
        status = {}
        for tp, om in offsets.items():   # partitions the broker does not know were answered before this
            if om.metadata is not None and len(om.metadata) > max_size:
                status[tp] = Errors.OFFSET_METADATA_TOO_LARGE
                continue
            try:
                self.zk_client.set_or_create_consumer_offset(group_id, tp, om.offset)
                status[tp] = Errors.NONE
            except Exception as e:  # noqa: BLE001 -- Errors.forException: unknown failures answer UNKNOWN_SERVER_ERROR
                status[tp] = e.error if isinstance(e, ApiException) else Errors.UNKNOWN_SERVER_ERROR
        return status

    # Kafka: KafkaApis.handleOffsetFetchRequest (its v0 branch) -- offsets from ZooKeeper; a partition never
    # committed there, or one the broker does not know, reads INVALID_OFFSET with no error
    def fetch_offsets_from_zookeeper(self, group_id: str, partitions: list[TopicPartition]) -> dict:
        data = {}
        for tp in partitions:
            if self.metadata_cache.get_partition_info(tp.topic, tp.partition) is None:   # Kafka: OffsetFetchResponse.UNKNOWN_PARTITION
                data[tp] = (INVALID_OFFSET, Errors.NONE)
                continue
            try:
                offset = self.zk_client.get_consumer_offset(group_id, tp)
                data[tp] = (INVALID_OFFSET if offset is None else offset, Errors.NONE)
            except Exception as e:  # noqa: BLE001
                data[tp] = (INVALID_OFFSET, e.error if isinstance(e, ApiException) else Errors.UNKNOWN_SERVER_ERROR)
        return data

    # Kafka: KafkaApis.handleOffsetFetchRequest -- an unknown group or partition reads offset -1
    def handle_offset_fetch_request(self, request) -> None:
        body = request.body
        version = request.header.api_version

        def error_response(error: Errors):
            # Kafka: OffsetFetchRequest.getErrorResponse -- per partition before v2, top level from v2
            topics = []
            if version < 2:
                for t in body.topics or []:
                    topics.append(offset_fetch.OffsetFetchResponseTopic(name=t.name, partitions=[
                        offset_fetch.OffsetFetchResponsePartition(
                            partition_index=i, committed_offset=INVALID_OFFSET, metadata=NO_METADATA,
                            error_code=error.code) for i in t.partition_indexes]))
            return offset_fetch.OffsetFetchResponse(topics=topics, error_code=error.code)

        if not self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.GROUP, body.group_id):
            self.send_response(request, error_response(Errors.GROUP_AUTHORIZATION_FAILED))
            return
        partitions = None if body.topics is None else [
            TopicPartition(t.name, i) for t in body.topics for i in t.partition_indexes]
        # DESCRIBE on each topic: named ones answer TOPIC_AUTHORIZATION_FAILED, "all partitions" leaves them out
        unauthorized: list[TopicPartition] = []
        if partitions is not None:
            describable = self.auth_helper.filter_by_authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                                 [tp.topic for tp in partitions])
            unauthorized = [tp for tp in partitions if tp.topic not in describable]
            partitions = [tp for tp in partitions if tp.topic in describable]
        if version == 0:   # Kafka 2.4: "version 0 reads offsets from ZK"
            stored = self.fetch_offsets_from_zookeeper(body.group_id, partitions)
            by_topic_v0: dict[str, list] = {}
            for tp in unauthorized + list(stored):
                offset, error = stored.get(tp, (INVALID_OFFSET, Errors.TOPIC_AUTHORIZATION_FAILED))
                by_topic_v0.setdefault(tp.topic, []).append(offset_fetch.OffsetFetchResponsePartition(
                    partition_index=tp.partition, committed_offset=offset, metadata=NO_METADATA, error_code=error.code))
            self.send_response(request, offset_fetch.OffsetFetchResponse(topics=[
                offset_fetch.OffsetFetchResponseTopic(name=n, partitions=ps) for n, ps in by_topic_v0.items()]))
            return
        require_stable = version >= 7 and body.require_stable
        error, data = self.group_coordinator.handle_fetch_offsets(body.group_id, partitions, require_stable)
        if error is not Errors.NONE:
            self.send_response(request, error_response(error))
            return
        if body.topics is None:
            describable = self.auth_helper.filter_by_authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                                 [tp.topic for tp in data], log_if_denied=False)
            data = {tp: pd for tp, pd in data.items() if tp.topic in describable}
        by_topic: dict[str, list] = {}
        for tp in unauthorized:   # Kafka: OffsetFetchResponse.UNAUTHORIZED_PARTITION
            by_topic.setdefault(tp.topic, []).append(offset_fetch.OffsetFetchResponsePartition(
                partition_index=tp.partition, committed_offset=INVALID_OFFSET, committed_leader_epoch=-1,
                metadata=NO_METADATA, error_code=Errors.TOPIC_AUTHORIZATION_FAILED.code))
        for tp, pd in data.items():
            by_topic.setdefault(tp.topic, []).append(offset_fetch.OffsetFetchResponsePartition(
                partition_index=tp.partition, committed_offset=pd.offset,
                committed_leader_epoch=-1 if pd.leader_epoch is None else pd.leader_epoch,
                metadata=pd.metadata, error_code=pd.error.code))
        self.send_response(request, offset_fetch.OffsetFetchResponse(
            topics=[offset_fetch.OffsetFetchResponseTopic(name=name, partitions=parts)
                    for name, parts in by_topic.items()], error_code=Errors.NONE.code))

    # Kafka: KafkaApis.handleTxnOffsetCommitRequest -- a transactional producer's consumer offsets, which
    # become visible only when its transaction commits
    def handle_txn_offset_commit_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        now = self.time.milliseconds()
        non_existing_topic_errors: dict[TopicPartition, Errors] = {}
        to_commit: dict[TopicPartition, OffsetAndMetadata] = {}
        # WRITE on the transactional id, READ on the group, then READ on each topic
        if not self.auth_helper.authorize(request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, body.transactional_id):
            denied = Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        elif not self.auth_helper.authorize(request, AclOperation.READ, ResourceType.GROUP, body.group_id):
            denied = Errors.GROUP_AUTHORIZATION_FAILED
        else:
            denied = None
        readable = set() if denied else self.auth_helper.filter_by_authorized(request, AclOperation.READ, ResourceType.TOPIC,
                                                                [t.name for t in body.topics])
        for t in body.topics:
            for p in t.partitions:
                tp = TopicPartition(t.name, p.partition_index)
                if denied is not None or t.name not in readable:
                    non_existing_topic_errors[tp] = denied or Errors.TOPIC_AUTHORIZATION_FAILED
                    continue
                if self.metadata_cache.get_partition_info(tp.topic, tp.partition) is None:
                    non_existing_topic_errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    continue
                # Kafka: KafkaApis.convertTxnOffsets
                leader_epoch = p.committed_leader_epoch if version >= 2 and p.committed_leader_epoch >= 0 else None
                to_commit[tp] = OffsetAndMetadata(
                    offset=p.committed_offset, leader_epoch=leader_epoch,
                    metadata=p.committed_metadata if p.committed_metadata is not None else NO_METADATA,
                    commit_timestamp=now, expire_timestamp=None)

        # Kafka: handleTxnOffsetCommitRequest.sendResponseCallback -- in request order
        def send_response_callback(commit_status: dict[TopicPartition, Errors]) -> None:
            combined = {**commit_status, **non_existing_topic_errors}
            for tp, error in combined.items():
                if error is not Errors.NONE and self.is_debug_enabled():
                    self.debug(f"TxnOffsetCommit with correlation id {request.header.correlation_id} from client "
                               f"{request.header.client_id} on partition {tp} failed due to {error.name}")
            topics = [txn_offset_commit.TxnOffsetCommitResponseTopic(name=t.name, partitions=[
                txn_offset_commit.TxnOffsetCommitResponsePartition(
                    partition_index=p.partition_index,
                    error_code=combined.get(TopicPartition(t.name, p.partition_index), Errors.NONE).code)
                for p in t.partitions]) for t in body.topics]
            self.send_response(request, txn_offset_commit.TxnOffsetCommitResponse(topics=topics))

        if not to_commit:
            send_response_callback({})
        else:
            self.group_coordinator.handle_txn_commit_offsets(
                body.group_id, body.producer_id, body.producer_epoch, to_commit, send_response_callback,
                member_id=body.member_id, group_instance_id=body.group_instance_id,
                generation_id=body.generation_id)

    # Kafka: KafkaApis.handleListGroupsRequest
    def handle_list_groups_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        error, overviews = self.group_coordinator.handle_list_groups()
        if not self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME):
            # without DESCRIBE on the cluster, only the groups the principal may describe
            overviews = [o for o in overviews if self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.GROUP,
                                                                o.group_id, log_if_denied=False)]
        states = {s.lower() for s in body.states_filter} if version >= 4 else set()
        groups = [list_groups.ListedGroup(group_id=o.group_id, protocol_type=o.protocol_type, group_state=o.state)
                  for o in overviews if not states or o.state.lower() in states]
        self.send_response(request, list_groups.ListGroupsResponse(error_code=error.code, groups=groups))

    # Kafka: KafkaApis.handleDescribeGroupRequest
    def handle_describe_groups_request(self, request) -> None:
        body = request.body
        described = []
        for group_id in body.groups:
            if not self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
                described.append(describe_groups.DescribedGroup(   # Kafka: DescribeGroupsResponse.forError
                    error_code=Errors.GROUP_AUTHORIZATION_FAILED.code, group_id=group_id, group_state="",
                    protocol_type="", protocol_data="", members=[]))
                continue
            error, summary = self.group_coordinator.handle_describe_group(group_id)
            described.append(describe_groups.DescribedGroup(
                error_code=error.code, group_id=group_id, group_state=summary.state,
                protocol_type=summary.protocol_type, protocol_data=summary.protocol,
                members=[describe_groups.DescribedGroupMember(
                    member_id=m.member_id, group_instance_id=m.group_instance_id, client_id=m.client_id,
                    client_host=m.client_host, member_metadata=m.metadata, member_assignment=m.assignment)
                    for m in summary.members],
                # Kafka 2.4: the operations only for a group described without error; otherwise 2.4 sends 0 and
                # later releases their default INT32_MIN ("not given"), which today's clients read as unknown
                authorized_operations=self.auth_helper.authorized_operations(request, ResourceType.GROUP, group_id)
                if body.include_authorized_operations and error is Errors.NONE else INT32_MIN))
        self.send_response(request, describe_groups.DescribeGroupsResponse(groups=described))

    # Kafka: KafkaApis.handleDeleteGroupsRequest
    def handle_delete_groups_request(self, request) -> None:
        names = list(dict.fromkeys(request.body.groups_names))
        deletable = [g for g in names if self.auth_helper.authorize(request, AclOperation.DELETE, ResourceType.GROUP, g)]
        results = {g: Errors.GROUP_AUTHORIZATION_FAILED for g in names if g not in deletable}
        if deletable:
            results.update(self.group_coordinator.handle_delete_groups(deletable))
        self.send_response(request, delete_groups.DeleteGroupsResponse(results=[
            delete_groups.DeletableGroupResult(group_id=g, error_code=results[g].code) for g in names]))

    # Kafka: KafkaApis.handleOffsetDeleteRequest (KIP-496)
    def handle_offset_delete_request(self, request) -> None:
        body = request.body
        if not self.auth_helper.authorize(request, AclOperation.DELETE, ResourceType.GROUP, body.group_id):
            self.send_response(request, offset_delete.OffsetDeleteResponse(
                error_code=Errors.GROUP_AUTHORIZATION_FAILED.code, topics=[]))
            return
        unknown: dict[TopicPartition, Errors] = {}
        partitions = []
        readable = self.auth_helper.filter_by_authorized(request, AclOperation.READ, ResourceType.TOPIC, [t.name for t in body.topics])
        for t in body.topics:
            for p in t.partitions:
                tp = TopicPartition(t.name, p.partition_index)
                if t.name not in readable:
                    unknown[tp] = Errors.TOPIC_AUTHORIZATION_FAILED
                elif self.metadata_cache.get_partition_info(t.name, p.partition_index) is not None:
                    partitions.append(tp)   # Kafka: metadataCache.contains(tp) -- the partition, not just the topic
                else:
                    unknown[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
        group_error, partition_errors = self.group_coordinator.handle_delete_offsets(body.group_id, partitions)
        combined = {**unknown, **partition_errors}
        topics = []
        if group_error is Errors.NONE:
            for t in body.topics:
                topics.append(offset_delete.OffsetDeleteResponseTopic(name=t.name, partitions=[
                    offset_delete.OffsetDeleteResponsePartition(
                        partition_index=p.partition_index,
                        error_code=combined.get(TopicPartition(t.name, p.partition_index), Errors.NONE).code)
                    for p in t.partitions]))
        self.send_response(request, offset_delete.OffsetDeleteResponse(error_code=group_error.code, topics=topics))

    # ================================================================== configs
    # Kafka: KafkaApis.handleDescribeConfigsRequest -> AdminManager.describeConfigs
    def handle_describe_configs_request(self, request) -> None:
        resources = self.config_resources(request.body.resources)
        refused = self.config_request_error(resources, "DescribeConfigs")
        if refused is not None:   # Kafka: handleError -> DescribeConfigsRequest.getErrorResponse
            self.send_response(request, describe_configs.DescribeConfigsResponse(results=[
                describe_configs.DescribeConfigsResult(error_code=Errors.INVALID_REQUEST.code, error_message=refused,
                                                       resource_type=r.resource_type, resource_name=r.resource_name,
                                                       configs=[]) for r in resources]))
            return
        authorized = [r for r in resources if self.config_resource_authorized(request, AclOperation.DESCRIBE_CONFIGS,
                                                                               r.resource_type, r.resource_name)]
        done = iter(self.admin_manager.describe_configs(authorized, request.body.include_synonyms,
                                                        request.body.include_documentation))
        results = []
        for r in resources:
            if any(r is a for a in authorized):
                results.append(next(done))
            else:
                error = self.configs_authorization_error(r.resource_type)
                results.append(describe_configs.DescribeConfigsResult(
                    error_code=error.code, error_message=None, resource_type=r.resource_type,
                    resource_name=r.resource_name, configs=[]))
        if request.header.api_version == 0:   # Kafka: DescribeConfigsResponse.toStruct -- v0 says is_default instead
            for result in results:
                for entry in result.configs:
                    entry.is_default = entry.config_source == CONFIG_SOURCE_DEFAULT
        self.send_response(request, describe_configs.DescribeConfigsResponse(results=results))

    # Kafka 2.4's config requests hold a map of ConfigResource (type, name): a resource named twice is asked
    # once, for its last entry; a type ConfigResource.Type.forId does not know is UNKNOWN (0)
    @staticmethod
    def config_resources(resources) -> list:
        by_resource: dict = {}   # in the order first named, holding the last entry
        for r in resources:
            if r.resource_type not in CONFIG_RESOURCE_TYPES.values():
                r.resource_type = 0
            by_resource[(r.resource_type, r.resource_name)] = r
        return list(by_resource.values())

    # Kafka: the resource-type match of handleDescribeConfigsRequest / handleAlterConfigsRequest /
    # handleIncrementalAlterConfigsRequest throws InvalidRequestException for a type it does not serve, and the
    # whole request is answered INVALID_REQUEST (getErrorResponse); the message, or None when all are served
    @staticmethod
    def config_request_error(resources, api: str) -> str | None:
        for r in resources:
            if api == "AlterConfigs" and r.resource_type == CONFIG_RESOURCE_TYPES["BROKER_LOGGER"]:
                return "AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER"
            if r.resource_type == 0:
                return "Unexpected resource type UNKNOWN" + (f" for resource {r.resource_name}"
                                                              if api == "DescribeConfigs" else "")
        return None

    # the resource-type switch of handleDescribeConfigsRequest / handleAlterConfigsRequest: a broker's (or its
    # loggers') configs are the cluster's, a topic's the topic's
    def config_resource_authorized(self, request, operation: AclOperation, resource_type: int, name: str) -> bool:
        if resource_type == CONFIG_RESOURCE_TOPIC:
            return self.auth_helper.authorize(request, operation, ResourceType.TOPIC, name)
        return self.auth_helper.authorize(request, operation, ResourceType.CLUSTER, CLUSTER_NAME)

    # Kafka: KafkaApis.configsAuthorizationApiError
    @staticmethod
    def configs_authorization_error(resource_type: int) -> Errors:
        return Errors.TOPIC_AUTHORIZATION_FAILED if resource_type == CONFIG_RESOURCE_TOPIC \
            else Errors.CLUSTER_AUTHORIZATION_FAILED

    # Kafka: KafkaApis.handleAlterConfigsRequest -> AdminManager.alterConfigs
    def handle_alter_configs_request(self, request) -> None:
        body = request.body
        resources = self.config_resources(body.resources)
        refused = self.config_request_error(resources, "AlterConfigs")
        results = []
        for res in resources:
            if refused is not None:   # Kafka: handleError -> AlterConfigsRequest.getErrorResponse
                results.append(alter_configs.AlterConfigsResourceResponse(
                    error_code=Errors.INVALID_REQUEST.code, error_message=refused, resource_type=res.resource_type,
                    resource_name=res.resource_name))
                continue
            new_props = {c.name: c.value for c in res.configs if c.value is not None}
            if not self.config_resource_authorized(request, AclOperation.ALTER_CONFIGS, res.resource_type,
                                                   res.resource_name):
                error, message = self.configs_authorization_error(res.resource_type), None
            else:
                error, message = self.admin_manager.alter_configs(res.resource_type, res.resource_name, new_props,
                                                                  body.validate_only)
            results.append(alter_configs.AlterConfigsResourceResponse(
                error_code=error.code, error_message=message, resource_type=res.resource_type,
                resource_name=res.resource_name))
        self.send_response(request, alter_configs.AlterConfigsResponse(responses=results))

    # Kafka: KafkaApis.handleIncrementalAlterConfigsRequest -> AdminManager.incrementalAlterConfigs
    def handle_incremental_alter_configs_request(self, request) -> None:
        body = request.body
        resources = self.config_resources(body.resources)
        refused = self.config_request_error(resources, "IncrementalAlterConfigs")
        results = []
        for res in resources:
            if refused is not None:   # Kafka: handleError -> IncrementalAlterConfigsRequest.getErrorResponse
                results.append(incremental_alter_configs.AlterConfigsResourceResponse(
                    error_code=Errors.INVALID_REQUEST.code, error_message=refused, resource_type=res.resource_type,
                    resource_name=res.resource_name))
                continue
            if not self.config_resource_authorized(request, AclOperation.ALTER_CONFIGS, res.resource_type,
                                                   res.resource_name):
                error, message = self.configs_authorization_error(res.resource_type), None
            else:
                error, message = self.admin_manager.incremental_alter_configs(res.resource_type, res.resource_name,
                                                                              res.configs, body.validate_only)
            results.append(incremental_alter_configs.AlterConfigsResourceResponse(
                error_code=error.code, error_message=message, resource_type=res.resource_type,
                resource_name=res.resource_name))
        self.send_response(request, incremental_alter_configs.IncrementalAlterConfigsResponse(responses=results))

    # ------------------------------------------------------------------ SASL and SCRAM users (issue 16)
    # Kafka: KafkaApis.handleSaslHandshakeRequest -- a handshake that reaches KafkaApis came after
    # authentication (or on a listener without SASL): ILLEGAL_SASL_STATE
    def handle_sasl_handshake_request(self, request) -> None:
        self.send_response(request, sasl_handshake.SaslHandshakeResponse(
            error_code=Errors.ILLEGAL_SASL_STATE.code, mechanisms=[]))

    # Kafka: KafkaApis.handleSaslAuthenticateRequest
    def handle_sasl_authenticate_request(self, request) -> None:
        self.send_response(request, sasl_authenticate.SaslAuthenticateResponse(
            error_code=Errors.ILLEGAL_SASL_STATE.code,
            error_message="SaslAuthenticate request received after successful authentication"))

    # Kafka 2.7: KafkaApis.handleDescribeUserScramCredentialsRequest (authorization left to the authorizer work)
    def handle_describe_user_scram_credentials_request(self, request) -> None:
        if not self.auth_helper.authorize(request, AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME):
            from kafkalite.protocol.messages import describe_user_scram_credentials as dusc
            self.send_response(request, dusc.DescribeUserScramCredentialsResponse(
                error_code=Errors.CLUSTER_AUTHORIZATION_FAILED.code, error_message="Cluster authorization failed.",
                results=[]))
            return
        users = None if request.body.users is None else [u.name for u in request.body.users]
        self.send_response(request, self.user_scram_credentials_manager().describe_user_scram_credentials(users))

    # Kafka 2.7: KafkaApis.handleAlterUserScramCredentialsRequest -- in 2.7 only the controller takes it;
    # any broker may here: ZooKeeper serialises the writes
    def handle_alter_user_scram_credentials_request(self, request) -> None:
        body = request.body
        if not self.auth_helper.authorize(request, AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME):
            from kafkalite.protocol.messages import alter_user_scram_credentials as ausc
            users = dict.fromkeys([u.name for u in body.upsertions] + [d.name for d in body.deletions])
            self.send_response(request, ausc.AlterUserScramCredentialsResponse(results=[
                ausc.AlterUserScramCredentialsResult(user=u, error_code=Errors.CLUSTER_AUTHORIZATION_FAILED.code)
                for u in users]))
            return
        self.send_response(request, self.user_scram_credentials_manager().alter_user_scram_credentials(
            body.upsertions, body.deletions))

    def user_scram_credentials_manager(self):
        from kafkalite.server.user_scram_credentials_manager import UserScramCredentialsManager
        return UserScramCredentialsManager(self.zk_client)

    # ------------------------------------------------------------------ client quotas (KIP-546, Kafka 2.6)
    # Kafka 2.6: KafkaApis.handleDescribeClientQuotasRequest -- DESCRIBE_CONFIGS on the cluster
    def handle_describe_client_quotas_request(self, request) -> None:
        from kafkalite.protocol.messages import describe_client_quotas as dcq
        from kafkalite.server.client_quotas_admin import ClientQuotasAdmin
        if not self.auth_helper.authorize(request, AclOperation.DESCRIBE_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME):
            self.send_response(request, dcq.DescribeClientQuotasResponse(
                error_code=Errors.CLUSTER_AUTHORIZATION_FAILED.code, error_message="Cluster authorization failed.",
                entries=None))
            return
        self.send_response(request, ClientQuotasAdmin(self.zk_client).describe_client_quotas(request.body))

    # Kafka 2.6: KafkaApis.handleAlterClientQuotasRequest -- ALTER_CONFIGS on the cluster
    def handle_alter_client_quotas_request(self, request) -> None:
        from kafkalite.protocol.messages import alter_client_quotas as acq
        from kafkalite.server.client_quotas_admin import ClientQuotasAdmin
        if not self.auth_helper.authorize(request, AclOperation.ALTER_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME):
            self.send_response(request, acq.AlterClientQuotasResponse(entries=[acq.EntryResult(
                error_code=Errors.CLUSTER_AUTHORIZATION_FAILED.code, error_message="Cluster authorization failed.",
                entity=[acq.EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity])
                for entry in request.body.entries]))
            return
        self.send_response(request, ClientQuotasAdmin(self.zk_client).alter_client_quotas(request.body))


"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaApis.scala

Classes: KafkaApis.

``handle`` routes every request by api key to its ``handle_*_request`` method (S6); each handler
validates, calls the component that owns the work -- ReplicaManager, GroupCoordinator,
AdminManager, MetadataCache -- and answers through a callback that queues the response on the
RequestChannel for the Processor that owns the connection (S29).
KafkaApis.scala is one 2,800-line file in 2.4; kafkalite keeps the cluster, admin and control
handlers here and splits the rest into mixins of the same class, one per area:
``kafka_apis_data.py`` (produce, fetch, offsets), ``kafka_apis_groups.py`` (groups).
Omitted: authorization (every request is allowed), quotas and throttling, SASL.
"""
from __future__ import annotations

import re

from kafkalite.common import topic as Topic
from kafkalite.network.request_channel import CloseConnectionAction, NoOpAction, Response
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.protocol.messages import (api_versions, create_partitions, create_topics, delete_topics, describe_cluster,
                                         leader_and_isr, metadata, stop_replica, update_metadata)
from kafkalite.protocol.requests import api_versions_fallback_response
from kafkalite.server.kafka_apis_config import ConfigApis
from kafkalite.server.kafka_apis_data import DataApis
from kafkalite.server.kafka_apis_groups import GroupApis
from kafkalite.utils.logging import Logging
from kafkalite.zk.kafka_zk_client import topic_id_to_uuid

UNKNOWN_BROKER_EPOCH = -1
_SOFTWARE = re.compile(r"^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$")

# The APIs this broker serves (what ApiVersions advertises); KafkaApis.handle dispatches each explicitly.
SERVED_APIS = (
    ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.LIST_OFFSETS, ApiKeys.METADATA, ApiKeys.LEADER_AND_ISR,
    ApiKeys.STOP_REPLICA, ApiKeys.UPDATE_METADATA, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH,
    ApiKeys.FIND_COORDINATOR, ApiKeys.JOIN_GROUP, ApiKeys.HEARTBEAT, ApiKeys.LEAVE_GROUP, ApiKeys.SYNC_GROUP,
    ApiKeys.DESCRIBE_GROUPS, ApiKeys.LIST_GROUPS, ApiKeys.API_VERSIONS, ApiKeys.CREATE_TOPICS,
    ApiKeys.DELETE_TOPICS, ApiKeys.DELETE_RECORDS, ApiKeys.INIT_PRODUCER_ID, ApiKeys.OFFSET_FOR_LEADER_EPOCH,
    ApiKeys.DESCRIBE_CONFIGS, ApiKeys.ALTER_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS, ApiKeys.CREATE_PARTITIONS,
    ApiKeys.DELETE_GROUPS, ApiKeys.OFFSET_DELETE, ApiKeys.DESCRIBE_CLUSTER,
)


class KafkaApis(DataApis, GroupApis, ConfigApis, Logging):
    """Kafka: KafkaApis(requestChannel, replicaManager, adminManager, groupCoordinator, txnCoordinator,
    controller, zkClient, brokerId, config, metadataCache, ...)."""

    def __init__(self, request_channel, replica_manager, admin_manager, group_coordinator, controller, zk_client,
                 broker_id: int, config, metadata_cache, time, cluster_id: str, broker_epoch_fn=lambda: -1,
                 producer_id_manager=None):
        self.request_channel = request_channel
        self.replica_manager = replica_manager
        self.admin_manager = admin_manager
        self.group_coordinator = group_coordinator
        self.controller = controller
        self.zk_client = zk_client
        self.broker_id = broker_id
        self.config = config
        self.metadata_cache = metadata_cache
        self.time = time
        self.cluster_id = cluster_id
        self.broker_epoch_fn = broker_epoch_fn
        self.producer_id_manager = producer_id_manager
        self.log_ident = f"[KafkaApi-{broker_id}] "

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
                case ApiKeys.OFFSET_COMMIT: self.handle_offset_commit_request(request)
                case ApiKeys.OFFSET_FETCH: self.handle_offset_fetch_request(request)
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
                case ApiKeys.INCREMENTAL_ALTER_CONFIGS: self.handle_incremental_alter_configs_request(request)
                case ApiKeys.CREATE_PARTITIONS: self.handle_create_partitions_request(request)
                case ApiKeys.DELETE_GROUPS: self.handle_delete_groups_request(request)
                case ApiKeys.OFFSET_DELETE: self.handle_offset_delete_request(request)
                case ApiKeys.DESCRIBE_CLUSTER: self.handle_describe_cluster(request)
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
        return [k for k in SERVED_APIS if k.request_class is not None]

    # Kafka: KafkaApis.handleError -- an unexpected failure closes the connection (we have no
    # generic per-API error response builder), with a log line saying why.
    def handle_error(self, request, e: Exception) -> None:
        if isinstance(e, ApiException):
            self.info(f"Error when handling request {request.request_desc()}: {e}")
        else:
            self.error(f"Error when handling request {request.request_desc()}: {e}", exc_info=True)
        self.close_connection(request)

    # ------------------------------------------------------------------ responses
    # Kafka: KafkaApis.sendResponse / sendResponseExemptThrottle
    def send_response(self, request, body, on_complete=None) -> None:
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
        keys = [api_versions.ApiVersion(api_key=k.id, min_version=k.min_version, max_version=k.max_version)
                for k in sorted(self.advertised_apis(), key=lambda k: k.id)]
        self.send_response(request, api_versions.ApiVersionsResponse(error_code=0, api_keys=keys))

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
        topic_metadata = self.metadata_cache.get_topic_metadata(topics, listener, error_unavailable_endpoints=version == 0)
        if not all_topics:
            known = {t.name for t in topic_metadata}
            unknown = [t for t in topics if t not in known]
            if unknown:
                topic_metadata += self.get_topic_metadata_for_unknown(unknown, allow_auto and self.config.auto_create_topics_enable)
        brokers = [metadata.MetadataResponseBroker(node_id=i, host=hp[0], port=hp[1], rack=rack)
                   for i, hp, rack in self._alive_brokers_for(listener)]
        controller_id = self.metadata_cache.get_controller_id()
        self.send_response(request, metadata.MetadataResponse(
            brokers=brokers, cluster_id=self.cluster_id,
            controller_id=controller_id if controller_id is not None else -1, topics=topic_metadata))

    # Kafka: KafkaApis.getTopicMetadata (the unknown-topics half) and createTopic
    def get_topic_metadata_for_unknown(self, topics, auto_create: bool):
        result = []
        for name in topics:
            error = Errors.UNKNOWN_TOPIC_OR_PARTITION
            if auto_create:
                try:
                    Topic.validate(name)
                    if Topic.is_internal(name):
                        self.create_internal_topic(name)
                    else:
                        self.admin_manager.admin_zk_client.create_topic(
                            name, self.config.num_partitions, self.config.default_replication_factor)
                        self.info(f"Auto creation of topic {name} with {self.config.num_partitions} partitions "
                                  f"and replication factor {self.config.default_replication_factor} is successful")
                    error = Errors.LEADER_NOT_AVAILABLE
                except ApiException as e:
                    error = Errors.LEADER_NOT_AVAILABLE if e.error is Errors.TOPIC_ALREADY_EXISTS else e.error
            result.append(metadata.MetadataResponseTopic(error_code=error.code, name=name, is_internal=Topic.is_internal(name)))
        return result

    # Kafka: KafkaApis.createInternalTopic -- __consumer_offsets with its own partitions and configs.
    def create_internal_topic(self, topic: str) -> None:
        if topic == Topic.GROUP_METADATA_TOPIC_NAME:
            brokers = len(self.zk_client.get_sorted_broker_list())
            rf = min(self.config.get("offsets.topic.replication.factor"), max(1, brokers))
            partitions = self.config.get("offsets.topic.num.partitions")
            configs = {"cleanup.policy": "compact", "compression.type": "producer",
                       "segment.bytes": str(self.config.get("offsets.topic.segment.bytes"))}
        else:
            brokers = len(self.zk_client.get_sorted_broker_list())
            rf = min(self.config.get("transaction.state.log.replication.factor"), max(1, brokers))
            partitions = self.config.get("transaction.state.log.num.partitions")
            configs = {"cleanup.policy": "compact", "min.insync.replicas": "1"}
        try:
            self.admin_manager.admin_zk_client.create_topic(topic, partitions, rf, configs)
            self.info(f"Created internal topic {topic} with {partitions} partitions and replication factor {rf}")
        except ApiException as e:
            if e.error is not Errors.TOPIC_ALREADY_EXISTS:
                raise

    # Kafka 2.8: KafkaApis.handleDescribeCluster
    def handle_describe_cluster(self, request) -> None:
        listener = request.context.listener_name
        controller_id = self.metadata_cache.get_controller_id()
        self.send_response(request, describe_cluster.DescribeClusterResponse(
            error_code=0, cluster_id=self.cluster_id, controller_id=controller_id if controller_id is not None else -1,
            brokers=[describe_cluster.DescribeClusterBroker(broker_id=i, host=hp[0], port=hp[1], rack=rack)
                     for i, hp, rack in self._alive_brokers_for(listener)]))

    # ------------------------------------------------------------------ CreateTopics / DeleteTopics
    # Kafka: KafkaApis.handleCreateTopicsRequest
    def handle_create_topics_request(self, request) -> None:
        body = request.body

        def send_result(results: dict, meta: dict | None = None):
            out = []
            for t in body.topics:
                err, msg = results[t.name]
                r = create_topics.CreatableTopicResult(name=t.name, error_code=err.code, error_message=msg)
                m = (meta or {}).get(t.name)
                if err is Errors.NONE and m is not None:
                    r.num_partitions = len(m.partitions)
                    r.replication_factor = m.replication_factor
                    tid = self.zk_client.get_topic_ids_for_topics([t.name]).get(t.name) if not body.validate_only else None
                    if tid:
                        r.topic_id = topic_id_to_uuid(tid)
                out.append(r)
            self.send_response(request, create_topics.CreateTopicsResponse(topics=out))

        names = [t.name for t in body.topics]
        dup_names = {n for n in names if names.count(n) > 1}
        if self.controller is None or not self.controller.is_active():
            send_result({n: (Errors.NOT_CONTROLLER, None) for n in names})
            return
        results = {n: (Errors.INVALID_REQUEST, "Create topics request from client `%s` contains multiple entries "
                       "for the following topics: %s" % (request.header.client_id, ",".join(sorted(dup_names))))
                   for n in dup_names}
        to_create = {t.name: t for t in body.topics if t.name not in dup_names}

        def callback(created: dict, meta: dict):
            results.update(created)
            send_result(results, meta)

        self.admin_manager.create_topics(body.timeout_ms, body.validate_only, to_create, callback)

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
        for name, _, err in entries:
            if err is not None:
                continue
            if not self.metadata_cache.contains(name):
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

        def callback(created: dict):
            results.update(created)
            respond(results)

        self.admin_manager.create_partitions(body.timeout_ms, [t for t in body.topics if t.name not in dups],
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
        if self.is_broker_epoch_stale(body.broker_epoch):
            self.info(f"Received LeaderAndIsr request with broker epoch {body.broker_epoch} that is not the "
                      f"current broker epoch {self.broker_epoch_fn()}")
            self.send_response(request, leader_and_isr.LeaderAndIsrResponse(error_code=Errors.STALE_BROKER_EPOCH.code))
            return

        def on_leadership_change(updated_leaders, updated_followers):
            gc = self.group_coordinator
            if gc is None:
                return
            for p in updated_leaders:
                if p.topic == Topic.GROUP_METADATA_TOPIC_NAME:
                    gc.on_election(p.partition_id, p.leader_epoch)
            for p in updated_followers:
                if p.topic == Topic.GROUP_METADATA_TOPIC_NAME:
                    gc.on_resignation(p.partition_id)

        response = self.replica_manager.become_leader_or_follower(request.header.correlation_id, body,
                                                                   on_leadership_change)
        self.send_response(request, response)

    # Kafka: KafkaApis.handleUpdateMetadataRequest
    def handle_update_metadata_request(self, request) -> None:
        body = request.body
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
        self.send_response(request, update_metadata.UpdateMetadataResponse(error_code=0))

    # Kafka: KafkaApis.handleStopReplicaRequest
    def handle_stop_replica_request(self, request) -> None:
        body = request.body
        if self.is_broker_epoch_stale(body.broker_epoch):
            self.send_response(request, stop_replica.StopReplicaResponse(error_code=Errors.STALE_BROKER_EPOCH.code))
            return
        result, error = self.replica_manager.stop_replicas(body)
        gc = self.group_coordinator
        if gc is not None:
            for tp in result:
                if tp.topic == Topic.GROUP_METADATA_TOPIC_NAME and body.delete_partitions:
                    gc.on_resignation(tp.partition)
        self.send_response(request, stop_replica.StopReplicaResponse(
            error_code=error.code,
            partition_errors=[stop_replica.StopReplicaPartitionError(topic_name=tp.topic, partition_index=tp.partition,
                                                                     error_code=e.code) for tp, e in result.items()]))

"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/admin/KafkaAdminClient.java

Classes: KafkaAdminClient.

    admin = KafkaAdminClient({"bootstrap.servers": "localhost:9092"})
    admin.create_topics([NewTopic("orders", 3, 1)])
    admin.describe_topics(["orders"])["orders"].partitions

Every call sends its requests to the broker Kafka's admin client would pick -- CreateTopics, DeleteTopics,
CreatePartitions and ElectLeaders to the controller; group requests to the group's coordinator (FindCoordinator
first); DescribeTransactions to the transactional id's coordinator (FindCoordinator key type 1); ListTransactions
to every broker; DescribeProducers to each partition's leader; DescribeConfigs/IncrementalAlterConfigs for a
broker to that broker, for topics to any broker; the rest to the least loaded broker -- waits for the answer,
and returns plain objects (``admin_types``). A per-item error raises the matching ``kafkalite.protocol.errors``
exception (e.g. TopicExistsException), as ``KafkaFuture.get()`` would after unwrapping.

What it knows of the cluster is a ``Metadata`` (Kafka keeps an AdminMetadataManager), bootstrapped from
``bootstrap.servers`` and replaced by every Metadata response the admin asks for; topic descriptions,
leaders, nodes and the controller are read from its ``Cluster``.

Era notes: Kafka's admin client runs its own I/O thread and returns KafkaFutures; kafkalite's is
synchronous on the caller's thread, over the consumer's ConsumerNetworkClient. ``list_offsets`` is Kafka
2.5's (KIP-396); 2.4's tools asked a KafkaConsumer. ``describe_log_dirs`` and ``alter_replica_log_dirs`` send
to each broker named (KIP-113: a broker answers for its own dirs only). ``list_transactions``,
``describe_transactions``, ``describe_producers`` are Kafka 3.0's (KIP-664), for ``kafka-transactions``.
``abort_transaction`` is 3.0's too: an admin's WriteTxnMarkers, for a transaction no coordinator will end.
``create_acls`` / ``describe_acls`` / ``delete_acls`` take and give the clients' AclBinding / AclBindingFilter
(``kafkalite.common.acl``) and go to the least loaded broker. Left out: quotas, delegation tokens, retries of a
whole call after a controller move (a NOT_CONTROLLER error refreshes the metadata and is retried once).
"""
from __future__ import annotations

import logging

from kafkalite.clients.admin.admin_types import (
    AbortTransactionSpec, AlterConfigOp, ClusterDescription, ConfigEntry, ConfigResource, ConfigResourceType,
    ConfigSource, ConfigSynonym, ConfigType, ConsumerGroupDescription, ConsumerGroupListing, MemberDescription, NewTopic,
    PartitionProducerState, PartitionReassignment, ProducerState, TopicDescription, TopicListing, TopicPartitionInfo,
    TransactionDescription, TransactionListing, TransactionState,
)
from kafkalite.clients.client_request import RequestBuilder
from kafkalite.clients.client_utils import create_channel_builder, parse_and_validate_addresses
from kafkalite.clients.consumer.consumer_record import OffsetAndMetadata
from kafkalite.clients.consumer.internals.consumer_network_client import ConsumerNetworkClient
from kafkalite.clients.metadata import Metadata
from kafkalite.clients.network_client import NetworkClient
from kafkalite.clients.node import Node
from kafkalite.common.acl.access_control_entry import AccessControlEntry
from kafkalite.common.acl.acl_binding import AclBinding
from kafkalite.common.acl.acl_operation import AclOperation
from kafkalite.common.acl.acl_permission_type import AclPermissionType
from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_pattern import ResourcePattern
from kafkalite.common.resource.resource_type import ResourceType
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.network.selector import Selector
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors, UnsupportedVersionException
from kafkalite.protocol.messages import (
    alter_partition_reassignments as apr, create_partitions as cp, create_topics as ct, delete_groups as dg,
    delete_topics as dt, describe_configs as dc, describe_groups as dgr, elect_leaders as el, find_coordinator as fc,
    incremental_alter_configs as iac, list_groups as lg, list_offsets as lo, list_partition_reassignments as lpr,
    offset_commit as oc, offset_fetch as of,
)
from kafkalite.protocol.messages import describe_producers as dp, describe_transactions as dtx, list_transactions as ltx
from kafkalite.protocol.messages import write_txn_markers as wtm
from kafkalite.protocol.messages import alter_replica_log_dirs as arld, describe_log_dirs as dld
from kafkalite.protocol.messages import create_acls as ca, delete_acls as da, describe_acls as dacl
from kafkalite.protocol.messages import describe_topic_partitions as dtp, offset_delete as od
from kafkalite.protocol.messages import consumer_group_describe as cgd
from kafkalite.protocol.messages.consumer_protocol import deserialize_assignment
from kafkalite.protocol.messages.metadata import MetadataRequest, MetadataRequestTopic
from kafkalite.utils.time import SYSTEM

log = logging.getLogger("kafka.clients.admin.KafkaAdminClient")
GROUP_KEY_TYPE, TRANSACTION_KEY_TYPE = 0, 1   # Kafka: FindCoordinatorRequest.CoordinatorType GROUP, TRANSACTION


def _config_type(wire_id: int) -> ConfigType:
    """Kafka 2.6: ConfigEntry.ConfigType of a DescribeConfigs v3+ id (an id this client does not know: UNKNOWN)."""
    try:
        return ConfigType(wire_id)
    except ValueError:
        return ConfigType.UNKNOWN


def _raise_for(error_code: int, message: str | None, what: str) -> None:
    error = Errors.for_code(error_code)
    if error is not Errors.NONE:
        raise error.exception(message or f"{what}: {error.name}")


class DeleteTopicsRequestBuilder(RequestBuilder):
    """Kafka: DeleteTopicsRequest.Builder -- topic names up to v5, topic states from v6 (KIP-516)."""

    def __init__(self, names: list[str], timeout_ms: int):
        super().__init__(ApiKeys.DELETE_TOPICS)
        self.names, self.timeout_ms = names, timeout_ms

    def build(self, version: int) -> dt.DeleteTopicsRequest:
        if version >= 6:
            return dt.DeleteTopicsRequest(topics=[dt.DeleteTopicState(name=n) for n in self.names],
                                          timeout_ms=self.timeout_ms)
        return dt.DeleteTopicsRequest(topic_names=self.names, timeout_ms=self.timeout_ms)


class KafkaAdminClient:
    """Kafka: KafkaAdminClient."""

    def __init__(self, configs: dict | None = None, time=SYSTEM, **kwargs):
        config = {"client.id": "adminclient-1", "request.timeout.ms": 30000, "default.api.timeout.ms": 60000}
        config.update(configs or {})
        config.update({k.replace("_", "."): v for k, v in kwargs.items()})
        self.time = time
        self.timeout_ms = int(config["default.api.timeout.ms"])
        log_context = f"[AdminClient clientId={config['client.id']}] "
        self.metadata = Metadata(time=time)    # Kafka: AdminMetadataManager
        self.metadata.bootstrap(parse_and_validate_addresses(config["bootstrap.servers"]))
        network_client = NetworkClient(Selector(time=time, log_context=log_context,
                                                channel_builder=create_channel_builder(config, time)), None,
                                       client_id=config["client.id"],
                                       request_timeout_ms=int(config["request.timeout.ms"]), time=time,
                                       log_context=log_context)
        self.client = ConsumerNetworkClient(network_client, self.metadata, time, int(config["request.timeout.ms"]))

    # ---------------------------------------------------------------- plumbing

    def _call(self, node: Node, api_key: ApiKeys, request, version: int | None = None):
        """Kafka: KafkaAdminClient.Call -- send one request and wait for its response."""
        future = self.client.send(node, api_key, request, version)
        if not self.client.poll_future(future, self.timeout_ms):
            auth_failure = self.client.client.authentication_exception(node)
            if auth_failure is not None:   # Kafka: the call fails with the AuthenticationException
                raise Errors.SASL_AUTHENTICATION_FAILED.exception(str(auth_failure))
            raise Errors.REQUEST_TIMED_OUT.exception(
                f"Timed out waiting for a node assignment. Call: {api_key.api_name}")
        if future.failed():
            raise future.exception()
        return future.value()

    def _least_loaded_node(self) -> Node:
        nodes = self.metadata.fetch().nodes
        return self.client.least_loaded_node(nodes) or nodes[0]

    def _refresh(self, topics: list[str] | None = None):
        """A Metadata request for ``topics`` (None: every topic; []: brokers and controller only), retried on
        the next least-loaded node until ``default.api.timeout.ms``; its answer becomes ``metadata.fetch()``."""
        request = MetadataRequest(topics=None if topics is None else [MetadataRequestTopic(name=t) for t in topics],
                                  allow_auto_topic_creation=False)
        deadline = self.time.milliseconds() + self.timeout_ms
        while True:
            node = self._least_loaded_node()
            future = self.client.send(node, ApiKeys.METADATA, request)
            self.client.poll_future(future, max(0, deadline - self.time.milliseconds()))
            auth_failure = self.client.client.authentication_exception(node)
            if auth_failure is not None and not future.succeeded():   # Kafka: fatal, not retried
                raise Errors.SASL_AUTHENTICATION_FAILED.exception(str(auth_failure))
            if future.succeeded():
                response = future.value()
                if response.brokers:   # Kafka ignores an empty answer (DefaultMetadataUpdater does the same)
                    self.metadata.update(self.metadata.request_version, response, self.time.milliseconds())
                return response
            remaining = deadline - self.time.milliseconds()
            if remaining <= 0:
                raise Errors.REQUEST_TIMED_OUT.exception("Timed out waiting for metadata")
            self.client.poll(min(remaining, 100))   # a failed node: back off briefly, then the next one

    def _any_node(self) -> Node:
        if self.metadata.fetch().is_bootstrap_configured:
            self._refresh([])
        return self._least_loaded_node()

    def _controller(self) -> Node:
        self._refresh([])
        return self.metadata.fetch().controller or self._any_node()

    def _coordinator(self, key: str, key_type: int = GROUP_KEY_TYPE) -> Node:
        deadline = self.time.milliseconds() + self.timeout_ms
        what = "group" if key_type == GROUP_KEY_TYPE else "transactional id"
        while True:   # the coordinator may still be loading, or its internal topic being created
            response = self._call(self._any_node(), ApiKeys.FIND_COORDINATOR,
                                  fc.FindCoordinatorRequest(key=key, key_type=key_type))
            error = Errors.for_code(response.error_code)
            if error is Errors.NONE:
                return Node(response.node_id, response.host, response.port)
            if not error.retriable or self.time.milliseconds() >= deadline:
                _raise_for(response.error_code, response.error_message, f"FindCoordinator for {what} {key}")
            self.client.poll(100)

    # ---------------------------------------------------------------- topics

    # Kafka: KafkaAdminClient.createTopics
    def create_topics(self, new_topics: list[NewTopic], timeout_ms: int = 30000, validate_only: bool = False) -> None:
        topics = []
        for t in new_topics:
            assignments = [ct.CreatableReplicaAssignment(partition_index=p, broker_ids=list(b))
                           for p, b in sorted((t.replica_assignments or {}).items())]
            topics.append(ct.CreatableTopic(
                name=t.name, num_partitions=-1 if assignments else t.num_partitions,
                replication_factor=-1 if assignments else t.replication_factor, assignments=assignments,
                configs=[ct.CreatableTopicConfig(name=k, value=v) for k, v in t.configs.items()]))
        response = self._call(self._controller(), ApiKeys.CREATE_TOPICS,
                              ct.CreateTopicsRequest(topics=topics, timeout_ms=timeout_ms, validate_only=validate_only))
        for result in response.topics:
            _raise_for(result.error_code, result.error_message, f"Create topic {result.name}")

    # Kafka: KafkaAdminClient.deleteTopics
    def delete_topics(self, names: list[str], timeout_ms: int = 30000) -> None:
        builder = DeleteTopicsRequestBuilder(list(names), timeout_ms)
        response = self._call(self._controller(), ApiKeys.DELETE_TOPICS, builder)
        for result in response.responses:
            _raise_for(result.error_code, result.error_message, f"Delete topic {result.name}")

    # Kafka: KafkaAdminClient.listTopics
    def list_topics(self, list_internal: bool = False) -> dict[str, TopicListing]:
        self._refresh()
        cluster = self.metadata.fetch()
        return {name: TopicListing(name, name in cluster.internal_topics) for name in sorted(cluster.topics())
                if list_internal or name not in cluster.internal_topics}

    # Kafka 3.7: KafkaAdminClient.describeTopics -- DescribeTopicPartitions (KIP-966) page by page when the broker
    # has it (``partition_size_limit_per_response`` partitions a page), else Metadata
    # (handleDescribeTopicsByNamesWithDescribeTopicPartitionsApi, falling back on UnsupportedVersionException)
    def describe_topics(self, names: list[str], partition_size_limit_per_response: int = 2000
                        ) -> dict[str, TopicDescription]:
        if names:
            try:
                return self._describe_topics_with_describe_topic_partitions(list(names),
                                                                            partition_size_limit_per_response)
            except UnsupportedVersionException:
                pass
        return self._describe_topics_with_metadata(names)

    # Kafka 3.7: KafkaAdminClient.handleDescribeTopicsByNamesWithDescribeTopicPartitionsApi
    def _describe_topics_with_describe_topic_partitions(self, names: list[str], limit: int
                                                        ) -> dict[str, TopicDescription]:
        self._refresh([])   # the brokers, to turn the answer's ids into nodes
        node = self._least_loaded_node()
        cluster = self.metadata.fetch()
        by_id = {}

        def node_of(broker_id: int) -> Node:
            if broker_id not in by_id:
                by_id[broker_id] = cluster.node_by_id(broker_id) or Node(broker_id, "", -1)
            return by_id[broker_id]

        partitions: dict[str, list] = {n: [] for n in names}
        topics: dict[str, object] = {}
        cursor = None
        while True:
            response = self._call(node, ApiKeys.DESCRIBE_TOPIC_PARTITIONS, dtp.DescribeTopicPartitionsRequest(
                topics=[dtp.DescribeTopicPartitionsTopicRequest(name=n) for n in sorted(names)],
                response_partition_limit=limit, cursor=cursor))
            for t in response.topics:
                error = Errors.for_code(t.error_code)
                if error is not Errors.NONE:
                    raise error.exception(f"Topic '{t.name}': {error.name}" if error is not
                                          Errors.UNKNOWN_TOPIC_OR_PARTITION else
                                          "This server does not host this topic-partition.")
                topics[t.name] = t
                partitions.setdefault(t.name, []).extend(
                    TopicPartitionInfo(p.partition_index, node_of(p.leader_id) if p.leader_id >= 0 else None,
                                       tuple(node_of(r) for r in p.replica_nodes),
                                       tuple(node_of(r) for r in p.isr_nodes),
                                       tuple(node_of(r) for r in p.eligible_leader_replicas or ()),
                                       tuple(node_of(r) for r in p.last_known_elr or ()))
                    for p in t.partitions)
            if response.next_cursor is None:
                break
            cursor = dtp.Cursor(topic_name=response.next_cursor.topic_name,
                                partition_index=response.next_cursor.partition_index)
        return {n: TopicDescription(n, topics[n].is_internal, tuple(partitions[n]), topics[n].topic_id)
                for n in names if n in topics}

    # Kafka: KafkaAdminClient.describeTopics (2.4: Metadata)
    def _describe_topics_with_metadata(self, names: list[str]) -> dict[str, TopicDescription]:
        errors = {t.name: Errors.for_code(t.error_code) for t in self._refresh(list(names)).topics}
        cluster = self.metadata.fetch()
        out = {}
        for name in names:
            error = errors.get(name, Errors.NONE)
            if error is not Errors.NONE:
                raise error.exception(f"Topic '{name}': {error.name}" if error is not
                                      Errors.UNKNOWN_TOPIC_OR_PARTITION else
                                      "This server does not host this topic-partition.")
            out[name] = TopicDescription(name, name in cluster.internal_topics, tuple(
                TopicPartitionInfo(p.partition, p.leader, p.replicas, p.in_sync_replicas)
                for p in cluster.partitions_for_topic(name)))
        return out

    # Kafka: KafkaAdminClient.createPartitions -- {topic: new total count}
    def create_partitions(self, new_partitions: dict[str, int], timeout_ms: int = 30000,
                          validate_only: bool = False) -> None:
        request = cp.CreatePartitionsRequest(
            topics=[cp.CreatePartitionsTopic(name=t, count=n, assignments=None) for t, n in new_partitions.items()],
            timeout_ms=timeout_ms, validate_only=validate_only)
        response = self._call(self._controller(), ApiKeys.CREATE_PARTITIONS, request)
        for result in response.results:
            _raise_for(result.error_code, result.error_message, f"Create partitions for {result.name}")

    # Kafka: KafkaAdminClient.electLeaders -- {partition: None (elected) or the partition's exception}; ``partitions``
    # None asks for every partition of the cluster, and the controller answers only for those it elected or failed
    def elect_leaders(self, election_type: int, partitions: set[TopicPartition] | None,
                      timeout_ms: int = 30000) -> dict[TopicPartition, Exception | None]:
        topic_partitions = None
        if partitions is not None:
            by_topic: dict[str, list[int]] = {}
            for tp in sorted(partitions, key=lambda tp: (tp.topic, tp.partition)):
                by_topic.setdefault(tp.topic, []).append(tp.partition)
            topic_partitions = [el.TopicPartitions(topic=t, partition_id=ps) for t, ps in by_topic.items()]
        response = self._call(self._controller(), ApiKeys.ELECT_LEADERS, el.ElectLeadersRequest(
            election_type=election_type, topic_partitions=topic_partitions, timeout_ms=timeout_ms))
        _raise_for(response.error_code, None, "Elect leaders")
        out: dict[TopicPartition, Exception | None] = {}
        for topic in response.replica_election_results:
            for p in topic.partition_result:
                error = Errors.for_code(p.error_code)
                out[TopicPartition(topic.topic, p.partition_id)] = \
                    None if error is Errors.NONE else error.exception(p.error_message)
        return out

    # Kafka 2.5: KafkaAdminClient.listOffsets -- spec -2 earliest, -1 latest, or a timestamp
    def list_offsets(self, specs: dict[TopicPartition, int]) -> dict[TopicPartition, int]:
        self._refresh(sorted({tp.topic for tp in specs}))
        cluster = self.metadata.fetch()
        by_leader: dict[Node, dict[str, list]] = {}
        for tp, ts in specs.items():
            leader = cluster.leader_for(tp)
            if leader is None:
                raise Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(f"No leader for {tp}")
            by_leader.setdefault(leader, {}).setdefault(tp.topic, []).append(
                lo.ListOffsetsPartition(partition_index=tp.partition, timestamp=ts))
        out = {}
        for leader, topics in by_leader.items():
            response = self._call(leader, ApiKeys.LIST_OFFSETS, lo.ListOffsetsRequest(
                replica_id=-1, topics=[lo.ListOffsetsTopic(name=t, partitions=ps) for t, ps in topics.items()]))
            for topic in response.topics:
                for p in topic.partitions:
                    _raise_for(p.error_code, None, f"ListOffsets for {topic.name}-{p.partition_index}")
                    out[TopicPartition(topic.name, p.partition_index)] = p.offset
        return out

    # ---------------------------------------------------------------- configs

    def _config_node(self, resource: ConfigResource) -> Node:
        if resource.type in (ConfigResourceType.BROKER, ConfigResourceType.BROKER_LOGGER) and resource.name:
            self._any_node()
            node = self.metadata.fetch().node_by_id(int(resource.name))
            if node is None:
                raise Errors.INVALID_REQUEST.exception(f"Broker {resource.name} is not in the cluster")
            return node
        return self._any_node()

    # Kafka: KafkaAdminClient.describeConfigs
    def describe_configs(self, resources: list[ConfigResource], include_synonyms: bool = False,
                         include_documentation: bool = False) -> dict[ConfigResource, list[ConfigEntry]]:
        out = {}
        for resource in resources:
            request = dc.DescribeConfigsRequest(resources=[dc.DescribeConfigsResource(
                resource_type=resource.type.value, resource_name=resource.name, configuration_keys=None)],
                include_synonyms=include_synonyms, include_documentation=include_documentation)
            response = self._call(self._config_node(resource), ApiKeys.DESCRIBE_CONFIGS, request)
            for result in response.results:
                _raise_for(result.error_code, result.error_message, f"Describe configs of {resource.name}")
                out[resource] = [ConfigEntry(
                    c.name, c.value, ConfigSource(c.config_source) if c.config_source >= 0 else ConfigSource.UNKNOWN,
                    c.is_sensitive, c.read_only,
                    tuple(ConfigSynonym(s.name, s.value, ConfigSource(s.source)) for s in c.synonyms),
                    _config_type(c.config_type), c.documentation)
                    for c in result.configs]
        return out

    # Kafka: KafkaAdminClient.incrementalAlterConfigs
    def incremental_alter_configs(self, configs: dict[ConfigResource, list[AlterConfigOp]],
                                  validate_only: bool = False) -> None:
        for resource, ops in configs.items():
            request = iac.IncrementalAlterConfigsRequest(resources=[iac.AlterConfigsResource(
                resource_type=resource.type.value, resource_name=resource.name,
                configs=[iac.AlterableConfig(name=o.name, config_operation=o.op_type.value, value=o.value)
                         for o in ops])], validate_only=validate_only)
            response = self._call(self._config_node(resource), ApiKeys.INCREMENTAL_ALTER_CONFIGS, request)
            for result in response.responses:
                _raise_for(result.error_code, result.error_message, f"Alter configs of {resource.name}")

    # ---------------------------------------------------------------- groups

    # Kafka: KafkaAdminClient.listConsumerGroups -- asks every broker
    def list_consumer_groups(self) -> list[ConsumerGroupListing]:
        self._refresh([])
        out = []
        for node in self.metadata.fetch().nodes:
            response = self._call(node, ApiKeys.LIST_GROUPS, lg.ListGroupsRequest())
            _raise_for(response.error_code, None, f"ListGroups on broker {node.id}")
            for g in response.groups:
                if g.protocol_type in ("consumer", ""):
                    out.append(ConsumerGroupListing(g.group_id, g.protocol_type == "", g.group_state or None))
        return out

    # Kafka: KafkaAdminClient.describeConsumerGroups
    def describe_consumer_groups(self, group_ids: list[str]) -> dict[str, ConsumerGroupDescription]:
        out = {}
        for group_id in group_ids:
            coordinator = self._coordinator(group_id)
            described = self._describe_consumer_protocol_group(coordinator, group_id)
            if described is not None:
                out[group_id] = described
                continue
            response = self._call(coordinator, ApiKeys.DESCRIBE_GROUPS, dgr.DescribeGroupsRequest(groups=[group_id]))
            for g in response.groups:
                _raise_for(g.error_code, None, f"Describe group {g.group_id}")
                members = []
                for m in g.members:
                    assignment = frozenset()
                    if g.protocol_type == "consumer" and m.member_assignment:
                        a = deserialize_assignment(m.member_assignment)
                        assignment = frozenset(TopicPartition(t.topic, p) for t in a.assigned_partitions
                                               for p in t.partitions)
                    members.append(MemberDescription(m.member_id, m.group_instance_id, m.client_id, m.client_host,
                                                     assignment))
                out[group_id] = ConsumerGroupDescription(g.group_id, g.protocol_type == "", tuple(members),
                                                         g.protocol_data, g.group_state, coordinator)
        return out

    # Kafka 4.0: DescribeConsumerGroupsHandler -- ConsumerGroupDescribe first (KIP-848); a classic group (the
    # answer is GROUP_ID_NOT_FOUND) or a broker without the API falls back to DescribeGroups (None here)
    def _describe_consumer_protocol_group(self, coordinator: Node, group_id: str) -> ConsumerGroupDescription | None:
        try:
            response = self._call(coordinator, ApiKeys.CONSUMER_GROUP_DESCRIBE,
                                  cgd.ConsumerGroupDescribeRequest(group_ids=[group_id]))
        except UnsupportedVersionException:
            return None
        g = response.groups[0]
        if g.error_code == Errors.GROUP_ID_NOT_FOUND.code:
            return None
        _raise_for(g.error_code, g.error_message, f"Describe group {g.group_id}")
        members = tuple(MemberDescription(
            m.member_id, m.instance_id, m.client_id, m.client_host,
            frozenset(TopicPartition(t.topic_name, p) for t in m.assignment.topic_partitions for p in t.partitions))
            for m in g.members)
        return ConsumerGroupDescription(g.group_id, False, members, g.assignor_name, g.group_state, coordinator)

    # Kafka: KafkaAdminClient.deleteConsumerGroups
    def delete_consumer_groups(self, group_ids: list[str]) -> None:
        for group_id in group_ids:
            response = self._call(self._coordinator(group_id), ApiKeys.DELETE_GROUPS,
                                  dg.DeleteGroupsRequest(groups_names=[group_id]))
            for r in response.results:
                _raise_for(r.error_code, None, f"Delete group {r.group_id}")

    # Kafka: KafkaAdminClient.deleteConsumerGroupOffsets (KIP-496) -- {tp: Errors} per partition (GROUP_SUBSCRIBED_TO_TOPIC
    # for a topic the group's members subscribe, ...); a group-level error (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, ...) raises
    def delete_consumer_group_offsets(self, group_id: str, partitions) -> dict[TopicPartition, Errors]:
        by_topic: dict[str, list[int]] = {}
        for tp in partitions:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        request = od.OffsetDeleteRequest(group_id=group_id, topics=[
            od.OffsetDeleteRequestTopic(name=t, partitions=[od.OffsetDeleteRequestPartition(partition_index=p)
                                                            for p in ps]) for t, ps in by_topic.items()])
        response = self._call(self._coordinator(group_id), ApiKeys.OFFSET_DELETE, request)
        _raise_for(response.error_code, None, f"Delete offsets of group {group_id}")
        return {TopicPartition(t.name, p.partition_index): Errors.for_code(p.error_code)
                for t in response.topics for p in t.partitions}

    # Kafka: KafkaAdminClient.listConsumerGroupOffsets
    def list_consumer_group_offsets(self, group_id: str) -> dict[TopicPartition, OffsetAndMetadata]:
        response = self._call(self._coordinator(group_id), ApiKeys.OFFSET_FETCH,
                              of.OffsetFetchRequest(group_id=group_id, topics=None))
        _raise_for(response.error_code, None, f"OffsetFetch for group {group_id}")
        out = {}
        for t in response.topics:
            for p in t.partitions:
                if p.error_code == 0 and p.committed_offset >= 0:
                    out[TopicPartition(t.name, p.partition_index)] = OffsetAndMetadata(p.committed_offset,
                                                                                      p.metadata or "")
        return out

    # Kafka 2.5: KafkaAdminClient.alterConsumerGroupOffsets (an OffsetCommit outside any generation)
    def alter_consumer_group_offsets(self, group_id: str, offsets: dict[TopicPartition, int | OffsetAndMetadata]
                                     ) -> None:
        by_topic: dict[str, list] = {}
        for tp, om in offsets.items():
            om = om if isinstance(om, OffsetAndMetadata) else OffsetAndMetadata(int(om))
            by_topic.setdefault(tp.topic, []).append(oc.OffsetCommitRequestPartition(
                partition_index=tp.partition, committed_offset=om.offset, committed_metadata=om.metadata))
        request = oc.OffsetCommitRequest(group_id=group_id, generation_id=-1, member_id="", topics=[
            oc.OffsetCommitRequestTopic(name=t, partitions=ps) for t, ps in by_topic.items()])
        response = self._call(self._coordinator(group_id), ApiKeys.OFFSET_COMMIT, request)
        for t in response.topics:
            for p in t.partitions:
                _raise_for(p.error_code, None, f"Alter offset of {t.name}-{p.partition_index}")

    # ---------------------------------------------------------------- partition reassignments (KIP-455)

    # Kafka: KafkaAdminClient.alterPartitionReassignments -- {tp: target replicas, or None to cancel}; returns
    # {tp: None, or the exception that partition's future would raise}
    def alter_partition_reassignments(self, reassignments: dict[TopicPartition, list[int] | None],
                                      timeout_ms: int = 30000) -> dict[TopicPartition, Exception | None]:
        by_topic: dict[str, list] = {}
        for tp, replicas in reassignments.items():
            by_topic.setdefault(tp.topic, []).append(apr.ReassignablePartition(
                partition_index=tp.partition, replicas=None if replicas is None else list(replicas)))
        request = apr.AlterPartitionReassignmentsRequest(
            timeout_ms=timeout_ms, topics=[apr.ReassignableTopic(name=t, partitions=ps) for t, ps in by_topic.items()])
        response = self._call(self._controller(), ApiKeys.ALTER_PARTITION_REASSIGNMENTS, request)
        _raise_for(response.error_code, response.error_message, "Alter partition reassignments")
        out: dict[TopicPartition, Exception | None] = {}
        for t in response.responses:
            for p in t.partitions:
                error = Errors.for_code(p.error_code)
                out[TopicPartition(t.name, p.partition_index)] = \
                    None if error is Errors.NONE else error.exception(p.error_message or error.name)
        return out

    # Kafka: KafkaAdminClient.listPartitionReassignments -- every reassignment in progress, or those of ``partitions``
    def list_partition_reassignments(self, partitions: list[TopicPartition] | None = None,
                                     timeout_ms: int = 30000) -> dict[TopicPartition, PartitionReassignment]:
        topics = None
        if partitions is not None:
            by_topic: dict[str, list[int]] = {}
            for tp in partitions:
                by_topic.setdefault(tp.topic, []).append(tp.partition)
            topics = [lpr.ListPartitionReassignmentsTopics(name=t, partition_indexes=ps) for t, ps in by_topic.items()]
        response = self._call(self._controller(), ApiKeys.LIST_PARTITION_REASSIGNMENTS,
                              lpr.ListPartitionReassignmentsRequest(timeout_ms=timeout_ms, topics=topics))
        _raise_for(response.error_code, response.error_message, "List partition reassignments")
        return {TopicPartition(t.name, p.partition_index): PartitionReassignment(
                    tuple(p.replicas), tuple(p.adding_replicas), tuple(p.removing_replicas))
                for t in response.topics for p in t.partitions}

    # ---------------------------------------------------------------- transactions (Kafka 3.0, KIP-664)

    # Kafka 3.0: KafkaAdminClient.listTransactions -- every broker's coordinator answers for the transactional ids it
    # holds; returns {broker id: listings} (ListTransactionsResult.allByBrokerId)
    def list_transactions(self, state_filters=(), producer_id_filters=()) -> dict[int, list[TransactionListing]]:
        self._refresh([])
        request = ltx.ListTransactionsRequest(state_filters=[str(s) for s in state_filters],
                                              producer_id_filters=list(producer_id_filters))
        deadline = self.time.milliseconds() + self.timeout_ms
        out = {}
        for node in sorted(self.metadata.fetch().nodes, key=lambda n: n.id):
            while True:
                response = self._call(node, ApiKeys.LIST_TRANSACTIONS, request)
                error = Errors.for_code(response.error_code)
                if error is not Errors.COORDINATOR_LOAD_IN_PROGRESS or self.time.milliseconds() >= deadline:
                    break
                self.client.poll(100)   # Kafka 3.0: ListTransactionsHandler retries a loading coordinator after backoff
            _raise_for(response.error_code, None, f"ListTransactions request sent to broker {node.id} failed")
            out[node.id] = [TransactionListing(t.transactional_id, t.producer_id, TransactionState.parse(
                t.transaction_state)) for t in response.transaction_states]
        return out

    # Kafka 3.0: KafkaAdminClient.describeTransactions -- each id to its coordinator (FindCoordinator, key type 1)
    def describe_transactions(self, transactional_ids) -> dict[str, TransactionDescription]:
        out = {}
        for transactional_id in transactional_ids:
            deadline = self.time.milliseconds() + self.timeout_ms
            while True:
                coordinator = self._coordinator(transactional_id, TRANSACTION_KEY_TYPE)
                response = self._call(coordinator, ApiKeys.DESCRIBE_TRANSACTIONS,
                                      dtx.DescribeTransactionsRequest(transactional_ids=[transactional_id]))
                state = next(t for t in response.transaction_states if t.transactional_id == transactional_id)
                error = Errors.for_code(state.error_code)
                # Kafka 3.0: DescribeTransactionsHandler.handleError -- loading: retry; moved: find the coordinator again
                if error not in (Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.NOT_COORDINATOR,
                                 Errors.COORDINATOR_NOT_AVAILABLE) or self.time.milliseconds() >= deadline:
                    break
                self.client.poll(100)
            if error is Errors.TRANSACTIONAL_ID_NOT_FOUND:
                raise error.exception(f"DescribeTransactions request for transactionalId `{transactional_id}` "
                                      f"failed because the ID could not be found")
            _raise_for(state.error_code, None, f"DescribeTransactions for transactionalId `{transactional_id}`")
            out[transactional_id] = TransactionDescription(
                coordinator.id, TransactionState.parse(state.transaction_state), state.producer_id,
                state.producer_epoch, state.transaction_timeout_ms,
                state.transaction_start_time_ms if state.transaction_start_time_ms >= 0 else None,
                frozenset(TopicPartition(t.topic, p) for t in state.topics for p in t.partitions))
        return out

    # Kafka 3.0: KafkaAdminClient.describeProducers -- each partition to its leader, or all to ``broker_id``
    # (DescribeProducersOptions.brokerId: any replica, answered from that broker's own log)
    def describe_producers(self, partitions, broker_id: int | None = None
                           ) -> dict[TopicPartition, PartitionProducerState]:
        pending, out = set(partitions), {}
        deadline = self.time.milliseconds() + self.timeout_ms
        while True:
            self._refresh(sorted({tp.topic for tp in pending}))
            by_node: dict[Node, dict[str, list[int]]] = {}
            for tp in sorted(pending, key=lambda tp: (tp.topic, tp.partition)):
                node = self._broker_node(broker_id) if broker_id is not None else self.metadata.fetch().leader_for(tp)
                if node is not None:
                    by_node.setdefault(node, {}).setdefault(tp.topic, []).append(tp.partition)
            last_error = Errors.LEADER_NOT_AVAILABLE
            for node, topics in by_node.items():
                response = self._call(node, ApiKeys.DESCRIBE_PRODUCERS, dp.DescribeProducersRequest(topics=[
                    dp.TopicRequest(name=t, partition_indexes=ps) for t, ps in topics.items()]))
                for t in response.topics:
                    for p in t.partitions:
                        tp, error = TopicPartition(t.name, p.partition_index), Errors.for_code(p.error_code)
                        if error is Errors.NONE:
                            out[tp] = PartitionProducerState(tuple(ProducerState(
                                s.producer_id, s.producer_epoch, s.last_sequence, s.last_timestamp,
                                s.coordinator_epoch if s.coordinator_epoch >= 0 else None,
                                s.current_txn_start_offset if s.current_txn_start_offset >= 0 else None)
                                for s in p.active_producers))
                            pending.discard(tp)
                        elif error is Errors.NOT_LEADER_FOR_PARTITION and broker_id is not None:
                            raise error.exception(f"Failed to describe active producers for partition {tp} on "
                                                  f"brokerId {broker_id}")
                        elif error not in (Errors.NOT_LEADER_FOR_PARTITION, Errors.UNKNOWN_TOPIC_OR_PARTITION):
                            raise error.exception(p.error_message or f"Failed to describe active producers for "
                                                                     f"partition {tp} due to unexpected error")
                        else:
                            last_error = error   # Kafka 3.0: DescribeProducersHandler.handlePartitionError -- retry later
            if not pending:
                return out
            if self.time.milliseconds() >= deadline:
                raise last_error.exception(f"Failed to describe active producers for partitions "
                                           f"{sorted(map(str, pending))}: {last_error.name}")
            self.client.poll(100)

    # Kafka 3.0: KafkaAdminClient.abortTransaction -- an ABORT marker for one producer's open transaction on one
    # partition, sent to its leader as the coordinator would send it (WriteTxnMarkers)
    def abort_transaction(self, spec: AbortTransactionSpec) -> None:
        tp, deadline = spec.topic_partition, self.time.milliseconds() + self.timeout_ms
        request = wtm.WriteTxnMarkersRequest(markers=[wtm.WritableTxnMarker(
            producer_id=spec.producer_id, producer_epoch=spec.producer_epoch, transaction_result=False,
            coordinator_epoch=spec.coordinator_epoch,
            topics=[wtm.WritableTxnMarkerTopic(name=tp.topic, partition_indexes=[tp.partition])])])
        while True:
            self._refresh([tp.topic])
            leader = self.metadata.fetch().leader_for(tp)
            error = Errors.LEADER_NOT_AVAILABLE
            if leader is not None:
                response = self._call(leader, ApiKeys.WRITE_TXN_MARKERS, request)
                results = [p for m in response.markers if m.producer_id == spec.producer_id for t in m.topics
                           if t.name == tp.topic for p in t.partitions if p.partition_index == tp.partition]
                error = Errors.for_code(results[0].error_code) if results else Errors.UNKNOWN_SERVER_ERROR
                if error is Errors.NONE:
                    return
            # Kafka 3.0: AbortTransactionHandler.handleError -- a moved or missing leader: look it up again
            if error not in (Errors.NOT_LEADER_FOR_PARTITION, Errors.REPLICA_NOT_AVAILABLE, Errors.BROKER_NOT_AVAILABLE,
                             Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.LEADER_NOT_AVAILABLE) \
                    or self.time.milliseconds() >= deadline:
                raise error.exception({
                    Errors.INVALID_PRODUCER_EPOCH: f"WriteTxnMarkers request with {spec} failed due an invalid producer "
                                                   f"epoch",
                    Errors.TRANSACTION_COORDINATOR_FENCED: f"WriteTxnMarkers request with {spec} failed since the "
                    f"provided coordinator epoch {spec.coordinator_epoch} has been fenced by the active coordinator",
                }.get(error, f"WriteTxnMarkers request with {spec} failed due to unexpected error: {error.name}"))
            self.client.poll(100)

    # ---------------------------------------------------------------- cluster

    # Kafka: KafkaAdminClient.describeCluster (from Metadata, as 2.4 does)
    def describe_cluster(self) -> ClusterDescription:
        self._refresh([])
        cluster = self.metadata.fetch()
        return ClusterDescription(tuple(sorted(cluster.nodes, key=lambda n: n.id)), cluster.controller,
                                  cluster.cluster_id)

    # ---------------------------------------------------------------- log dirs (KIP-113)

    def _broker_node(self, broker_id: int) -> Node:
        node = self.metadata.fetch().node_by_id(broker_id)
        if node is None:
            self._refresh([])
            node = self.metadata.fetch().node_by_id(broker_id)
        if node is None:
            raise Errors.BROKER_NOT_AVAILABLE.exception(f"Broker {broker_id} is not in the cluster")
        return node

    # Kafka: KafkaAdminClient.describeLogDirs -- {broker id: {log dir: LogDirInfo}}, every partition of each
    def describe_log_dirs(self, broker_ids) -> dict[int, dict[str, dld.LogDirInfo]]:
        result = {}
        for broker_id in broker_ids:
            response = self._call(self._broker_node(broker_id), ApiKeys.DESCRIBE_LOG_DIRS,
                                  dld.DescribeLogDirsRequest(topics=None))
            result[broker_id] = {
                r.log_dir: dld.LogDirInfo(Errors.for_code(r.error_code), {
                    TopicPartition(t.name, p.partition_index): dld.ReplicaInfo(p.partition_size, p.offset_lag,
                                                                               p.is_future_key)
                    for t in r.topics for p in t.partitions})
                for r in response.results}
        return result

    # Kafka: KafkaAdminClient.alterReplicaLogDirs -- {(topic, partition, broker id): log dir}; each broker gets its
    # own request; returns the error of each replica (Errors.NONE: the move has started)
    def alter_replica_log_dirs(self, replica_assignment: dict) -> dict[tuple[str, int, int], Errors]:
        by_broker: dict[int, dict[str, dict[str, list[int]]]] = {}
        for (topic, partition, broker_id), log_dir in replica_assignment.items():
            by_broker.setdefault(broker_id, {}).setdefault(log_dir, {}).setdefault(topic, []).append(partition)
        result = {}
        for broker_id, dirs in by_broker.items():
            request = arld.AlterReplicaLogDirsRequest(dirs=[
                arld.AlterReplicaLogDir(path=path, topics=[arld.AlterReplicaLogDirTopic(name=t, partitions=ps)
                                                           for t, ps in topics.items()])
                for path, topics in dirs.items()])
            response = self._call(self._broker_node(broker_id), ApiKeys.ALTER_REPLICA_LOG_DIRS, request)
            for t in response.results:
                for p in t.partitions:
                    result[(t.topic_name, p.partition_index, broker_id)] = Errors.for_code(p.error_code)
        return result

    # ---------------------------------------------------------------- ACLs

    # Kafka: KafkaAdminClient.createAcls -- raises the first binding's error (CreateAclsResult.all().get())
    def create_acls(self, acls: list[AclBinding]) -> None:
        request = ca.CreateAclsRequest(creations=[ca.AclCreation(
            resource_type=b.pattern.resource_type.code, resource_name=b.pattern.name,
            resource_pattern_type=b.pattern.pattern_type.code, principal=b.entry.principal, host=b.entry.host,
            operation=b.entry.operation.code, permission_type=b.entry.permission_type.code) for b in acls])
        response = self._call(self._any_node(), ApiKeys.CREATE_ACLS, request)
        for binding, result in zip(acls, response.results):
            _raise_for(result.error_code, result.error_message, f"Create ACL {binding}")

    # Kafka: KafkaAdminClient.describeAcls
    def describe_acls(self, acl_filter) -> list[AclBinding]:
        p, e = acl_filter.pattern_filter, acl_filter.entry_filter
        response = self._call(self._any_node(), ApiKeys.DESCRIBE_ACLS, dacl.DescribeAclsRequest(
            resource_type_filter=p.resource_type.code, resource_name_filter=p.name,
            pattern_type_filter=p.pattern_type.code, principal_filter=e.principal, host_filter=e.host,
            operation=e.operation.code, permission_type=e.permission_type.code))
        _raise_for(response.error_code, response.error_message, "Describe ACLs")
        return [AclBinding(ResourcePattern(ResourceType.from_code(r.resource_type), r.resource_name,
                                           PatternType.from_code(r.pattern_type)),
                           AccessControlEntry(a.principal, a.host, AclOperation.from_code(a.operation),
                                              AclPermissionType.from_code(a.permission_type)))
                for r in response.resources for a in r.acls]

    # Kafka: KafkaAdminClient.deleteAcls -- the bindings deleted, over all filters (DeleteAclsResult.all().get())
    def delete_acls(self, filters: list) -> list[AclBinding]:
        request = da.DeleteAclsRequest(filters=[da.DeleteAclsFilter(
            resource_type_filter=f.pattern_filter.resource_type.code, resource_name_filter=f.pattern_filter.name,
            pattern_type_filter=f.pattern_filter.pattern_type.code, principal_filter=f.entry_filter.principal,
            host_filter=f.entry_filter.host, operation=f.entry_filter.operation.code,
            permission_type=f.entry_filter.permission_type.code) for f in filters])
        response = self._call(self._any_node(), ApiKeys.DELETE_ACLS, request)
        deleted = []
        for result in response.filter_results:
            _raise_for(result.error_code, result.error_message, "Delete ACLs")
            for m in result.matching_acls:
                _raise_for(m.error_code, m.error_message, "Delete ACL")
                deleted.append(AclBinding(ResourcePattern(ResourceType.from_code(m.resource_type), m.resource_name,
                                                          PatternType.from_code(m.pattern_type)),
                                          AccessControlEntry(m.principal, m.host, AclOperation.from_code(m.operation),
                                                             AclPermissionType.from_code(m.permission_type))))
        return deleted

    # ---------------------------------------------------------------- SCRAM users (KIP-554, Kafka 2.7)

    # Kafka 2.7: KafkaAdminClient.describeUserScramCredentials -- {user: [(mechanism name, iterations)]}
    def describe_user_scram_credentials(self, users: list[str] | None = None) -> dict[str, list[tuple[str, int]]]:
        from kafkalite.protocol.messages import describe_user_scram_credentials as dusc
        from kafkalite.security.authenticator.scram_mechanism import ScramMechanism
        request = dusc.DescribeUserScramCredentialsRequest(
            users=None if users is None else [dusc.UserName(name=u) for u in users])
        response = self._call(self._least_loaded_node(), ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, request)
        if response.error_code:
            raise Errors.for_code(response.error_code).exception(response.error_message)
        result = {}
        for r in response.results:
            if r.error_code:
                raise Errors.for_code(r.error_code).exception(r.error_message)
            result[r.user] = [(ScramMechanism.from_type(c.mechanism).mechanism_name, c.iterations)
                              for c in r.credential_infos if ScramMechanism.from_type(c.mechanism) is not None]
        return result

    # Kafka 2.7: KafkaAdminClient.alterUserScramCredentials -- upsertions (user, mechanism, iterations,
    # password) are salted here: the password never leaves the client; deletions are (user, mechanism)
    def alter_user_scram_credentials(self, upsertions=(), deletions=()) -> None:
        from kafkalite.protocol.messages import alter_user_scram_credentials as ausc
        from kafkalite.security.authenticator.scram_formatter import ScramFormatter
        from kafkalite.security.authenticator.scram_mechanism import ScramMechanism

        def mechanism_of(name: str) -> ScramMechanism:
            mechanism = ScramMechanism.for_mechanism_name(name)
            if mechanism is None:
                raise Errors.UNSUPPORTED_SASL_MECHANISM.exception(f"Unknown SCRAM mechanism {name}")
            return mechanism

        request = ausc.AlterUserScramCredentialsRequest(deletions=[], upsertions=[])
        for user, name in deletions:
            request.deletions.append(ausc.ScramCredentialDeletion(name=user, mechanism=mechanism_of(name).type))
        for user, name, iterations, password in upsertions:
            mechanism = mechanism_of(name)
            formatter = ScramFormatter(mechanism)
            salt = formatter.secure_random_bytes()
            request.upsertions.append(ausc.ScramCredentialUpsertion(
                name=user, mechanism=mechanism.type, iterations=iterations, salt=salt,
                salted_password=formatter.salted_password(password, salt, iterations)))
        response = self._call(self._controller(), ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, request)
        for r in response.results:
            if r.error_code:
                raise Errors.for_code(r.error_code).exception(f"{r.user}: {r.error_message}")

    # ---------------------------------------------------------------- client quotas (KIP-546, Kafka 2.6)

    # Kafka 2.6: KafkaAdminClient.describeClientQuotas -- components [(entity type, match type, match)];
    # returns {((type, name or None), ...): {key: value}}
    def describe_client_quotas(self, components, strict: bool = False) -> dict:
        from kafkalite.protocol.messages import describe_client_quotas as dcq
        request = dcq.DescribeClientQuotasRequest(
            components=[dcq.ComponentData(entity_type=t, match_type=m, match=n) for t, m, n in components], strict=strict)
        response = self._call(self._least_loaded_node(), ApiKeys.DESCRIBE_CLIENT_QUOTAS, request)
        if response.error_code:
            raise Errors.for_code(response.error_code).exception(response.error_message)
        return {tuple((e.entity_type, e.entity_name) for e in entry.entity): {v.key: v.value for v in entry.values}
                for entry in response.entries or []}

    # Kafka 2.6: KafkaAdminClient.alterClientQuotas -- entries [(entity {type: name or None}, {key: value or None})],
    # None removes the key
    def alter_client_quotas(self, entries, validate_only: bool = False) -> None:
        from kafkalite.protocol.messages import alter_client_quotas as acq
        request = acq.AlterClientQuotasRequest(validate_only=validate_only, entries=[
            acq.EntryData(entity=[acq.EntityData(entity_type=t, entity_name=n) for t, n in entity.items()],
                          ops=[acq.OpData(key=k, value=0.0 if v is None else float(v), remove=v is None)
                               for k, v in ops.items()])
            for entity, ops in entries])
        response = self._call(self._least_loaded_node(), ApiKeys.ALTER_CLIENT_QUOTAS, request)
        for r in response.entries:
            if r.error_code:
                raise Errors.for_code(r.error_code).exception(r.error_message)

    # Kafka: KafkaAdminClient.close
    def close(self) -> None:
        self.client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

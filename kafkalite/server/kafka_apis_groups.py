"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaApis.scala — the group handlers, split out to keep files small

Classes: GroupApis (a mixin of KafkaApis).

Each handler turns a parsed request into a call on ``self.group_coordinator`` and answers through
``self.send_response`` -- at once, or later from the coordinator's callback (a JoinGroup waits in
the DelayedJoin for the whole group, possibly on the timer's thread).

FindCoordinator answers with the leader of the ``__consumer_offsets`` partition that the group
hashes to, creating the topic on first use (``create_internal_topic``) and answering
COORDINATOR_NOT_AVAILABLE until a leader is known -- clients simply retry.

Era notes: request versions are today's (JoinGroup v7, SyncGroup v5, OffsetCommit v9,
OffsetFetch v7, LeaveGroup v5, ListGroups v4 with the KIP-518 states filter).
Left out: authorization (every request is allowed), throttling, transactional offset commits,
OffsetFetch v8+ (multi-group) and FindCoordinator v4+ (batched keys): not advertised.
"""
from __future__ import annotations

from kafkalite.common import topic as Topic
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.group.group_metadata import OffsetAndMetadata
from kafkalite.coordinator.group.group_metadata_manager import INVALID_OFFSET, NO_METADATA, java_string_hashcode, utils_abs
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import (delete_groups, describe_groups, find_coordinator, heartbeat, join_group,
                                         leave_group, list_groups, offset_commit, offset_delete, offset_fetch,
                                         sync_group)

GROUP_KEY_TYPE = 0          # Kafka: CoordinatorType.GROUP
TRANSACTION_KEY_TYPE = 1    # Kafka: CoordinatorType.TRANSACTION
INT32_MIN = -2147483648     # authorized_operations when not requested
# READ(3), DELETE(6), DESCRIBE(8): what a group allows when no authorizer is configured
GROUP_AUTHORIZED_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8)


class GroupApis:
    """Kafka: KafkaApis (group handlers) -- mixed into kafkalite.server.kafka_apis.KafkaApis."""

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

        if key_type == GROUP_KEY_TYPE:
            topic = Topic.GROUP_METADATA_TOPIC_NAME
            partition = self.group_coordinator.partition_for(body.key)
        elif key_type == TRANSACTION_KEY_TYPE:
            topic = Topic.TRANSACTION_STATE_TOPIC_NAME
            # Kafka: TransactionStateManager.partitionFor (no transaction coordinator yet: its hashing alone)
            partition = utils_abs(java_string_hashcode(body.key)) % self.config.get("transaction.state.log.num.partitions")
        else:
            respond(Errors.INVALID_REQUEST)
            return
        # Kafka: getOrCreateInternalTopic
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

        assignments = {a.member_id: bytes(a.assignment) for a in body.assignments}
        self.group_coordinator.handle_sync_group(
            body.group_id, body.generation_id, body.member_id,
            body.protocol_type if version >= 5 else None, body.protocol_name if version >= 5 else None,
            body.group_instance_id, assignments, send_response_callback)

    # Kafka: KafkaApis.handleHeartbeatRequest
    def handle_heartbeat_request(self, request) -> None:
        body = request.body
        self.group_coordinator.handle_heartbeat(
            body.group_id, body.member_id, body.group_instance_id, body.generation_id,
            lambda error: self.send_response(request, heartbeat.HeartbeatResponse(error_code=error.code)))

    # Kafka: KafkaApis.handleLeaveGroupRequest -- v0-2 name one member, v3+ a batch
    def handle_leave_group_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
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
        for t in body.topics:
            known = self.metadata_cache.contains(t.name)
            for p in t.partitions:
                tp = TopicPartition(t.name, p.partition_index)
                if not known:
                    errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    continue
                leader_epoch = p.committed_leader_epoch if version >= 6 and p.committed_leader_epoch >= 0 else None
                to_commit[tp] = OffsetAndMetadata(
                    offset=p.committed_offset, leader_epoch=leader_epoch,
                    metadata=p.committed_metadata if p.committed_metadata is not None else NO_METADATA,
                    commit_timestamp=now, expire_timestamp=None if retention == -1 else now + retention)

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
        else:
            self.group_coordinator.handle_commit_offsets(
                body.group_id, body.member_id, body.group_instance_id, body.generation_id, to_commit,
                send_response_callback)

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

        partitions = None if body.topics is None else [
            TopicPartition(t.name, i) for t in body.topics for i in t.partition_indexes]
        error, data = self.group_coordinator.handle_fetch_offsets(body.group_id, partitions)
        if error is not Errors.NONE:
            self.send_response(request, error_response(error))
            return
        by_topic: dict[str, list] = {}
        for tp, pd in data.items():
            by_topic.setdefault(tp.topic, []).append(offset_fetch.OffsetFetchResponsePartition(
                partition_index=tp.partition, committed_offset=pd.offset,
                committed_leader_epoch=-1 if pd.leader_epoch is None else pd.leader_epoch,
                metadata=pd.metadata, error_code=pd.error.code))
        self.send_response(request, offset_fetch.OffsetFetchResponse(
            topics=[offset_fetch.OffsetFetchResponseTopic(name=name, partitions=parts)
                    for name, parts in by_topic.items()], error_code=Errors.NONE.code))

    # Kafka: KafkaApis.handleListGroupsRequest
    def handle_list_groups_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        error, overviews = self.group_coordinator.handle_list_groups()
        states = {s.lower() for s in body.states_filter} if version >= 4 else set()
        groups = [list_groups.ListedGroup(group_id=o.group_id, protocol_type=o.protocol_type, group_state=o.state)
                  for o in overviews if not states or o.state.lower() in states]
        self.send_response(request, list_groups.ListGroupsResponse(error_code=error.code, groups=groups))

    # Kafka: KafkaApis.handleDescribeGroupRequest
    def handle_describe_groups_request(self, request) -> None:
        body = request.body
        described = []
        for group_id in body.groups:
            error, summary = self.group_coordinator.handle_describe_group(group_id)
            described.append(describe_groups.DescribedGroup(
                error_code=error.code, group_id=group_id, group_state=summary.state,
                protocol_type=summary.protocol_type, protocol_data=summary.protocol,
                members=[describe_groups.DescribedGroupMember(
                    member_id=m.member_id, group_instance_id=m.group_instance_id, client_id=m.client_id,
                    client_host=m.client_host, member_metadata=m.metadata, member_assignment=m.assignment)
                    for m in summary.members],
                authorized_operations=GROUP_AUTHORIZED_OPERATIONS if body.include_authorized_operations else INT32_MIN))
        self.send_response(request, describe_groups.DescribeGroupsResponse(groups=described))

    # Kafka: KafkaApis.handleDeleteGroupsRequest
    def handle_delete_groups_request(self, request) -> None:
        results = self.group_coordinator.handle_delete_groups(list(dict.fromkeys(request.body.groups_names)))
        self.send_response(request, delete_groups.DeleteGroupsResponse(results=[
            delete_groups.DeletableGroupResult(group_id=g, error_code=e.code) for g, e in results.items()]))

    # Kafka: KafkaApis.handleOffsetDeleteRequest (KIP-496)
    def handle_offset_delete_request(self, request) -> None:
        body = request.body
        unknown: dict[TopicPartition, Errors] = {}
        partitions = []
        for t in body.topics:
            for p in t.partitions:
                tp = TopicPartition(t.name, p.partition_index)
                if self.metadata_cache.contains(t.name):
                    partitions.append(tp)
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

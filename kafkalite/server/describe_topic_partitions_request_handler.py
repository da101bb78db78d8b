"""Mirrors Kafka 2.4: core/src/main/java/kafka/server/handlers/DescribeTopicPartitionsRequestHandler.java
(a Kafka 3.7 file; 2.4 has no DescribeTopicPartitions)

Classes: DescribeTopicPartitionsRequestHandler -- answers DescribeTopicPartitions (API 75, KIP-966), what Kafka
3.7+ admin clients (and ``kafka-topics --describe``) use to describe topics, one page at a time:
- the named topics, or every topic when none is named, from the cursor's topic on, sorted by name;
- DESCRIBE on each topic: a named topic the principal may not describe is answered TOPIC_AUTHORIZATION_FAILED
  (with a zero topic id, so its existence is not disclosed); in an all-topics answer it is simply left out;
- at most min(``max.request.partition.size.limit``, ``response_partition_limit``) partitions (at least 1), and
  ``next_cursor`` naming where the next page starts;
- each described topic's authorized operations (KIP-430's bit field);
- a cursor naming a topic outside the named list, or a negative partition, is INVALID_REQUEST for every topic.

Era notes: Kafka 3.7 (KIP-966), which serves it from KRaft brokers only; kafkalite (ZooKeeper mode) serves it
anyway so today's clients can use it. Eligible leader replicas and last known ELR are always null: kafkalite
has no ELR.
Left out: nothing else.
"""
from __future__ import annotations

import uuid

from kafkalite.common.acl.acl_operation import AclOperation
from kafkalite.common.resource.resource_type import ResourceType
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import describe_topic_partitions as dtp

ZERO_UUID = uuid.UUID(int=0)


class DescribeTopicPartitionsRequestHandler:
    """Kafka 3.7: DescribeTopicPartitionsRequestHandler(metadataCache, authHelper, config)."""

    def __init__(self, metadata_cache, auth_helper, config):
        self.metadata_cache = metadata_cache
        self.auth_helper = auth_helper
        self.config = config

    # Kafka 3.7: DescribeTopicPartitionsRequestHandler.handleDescribeTopicPartitionsRequest
    def handle_describe_topic_partitions_request(self, request) -> dtp.DescribeTopicPartitionsResponse:
        body = request.body
        fetch_all_topics = not body.topics
        cursor = body.cursor
        cursor_topic = cursor.topic_name if cursor is not None else ""
        if fetch_all_topics:
            topics = {t for t in self.metadata_cache.get_all_topics() if t >= cursor_topic}
        else:
            topics = {t.name for t in body.topics if t.name >= cursor_topic}
            if cursor is not None and cursor.topic_name not in topics:
                return self.error_response(body, Errors.INVALID_REQUEST)   # the cursor's topic must be asked for
        if cursor is not None and cursor.partition_index < 0:
            return self.error_response(body, Errors.INVALID_REQUEST)

        # a topic the principal may not describe: not even whether it exists is said
        ordered = sorted(topics)
        authorized = self.auth_helper.filter_by_authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC,
                                                           ordered, log_if_denied=not fetch_all_topics)
        unauthorized = [] if fetch_all_topics else [
            dtp.DescribeTopicPartitionsResponseTopic(error_code=Errors.TOPIC_AUTHORIZATION_FAILED.code, name=t,
                                                     topic_id=ZERO_UUID, is_internal=False, partitions=[])
            for t in ordered if t not in authorized]
        limit = max(min(self.config.get("max.request.partition.size.limit"), body.response_partition_limit), 1)
        described, next_cursor = self.metadata_cache.get_topic_metadata_for_describe_topic_response(
            [t for t in ordered if t in authorized], request.context.listener_name,
            lambda name: cursor.partition_index if name == cursor_topic else 0, limit, fetch_all_topics)
        for t in described:
            t.topic_authorized_operations = self.auth_helper.authorized_operations(request, ResourceType.TOPIC,
                                                                                   t.name)
        return dtp.DescribeTopicPartitionsResponse(
            topics=described + unauthorized,
            next_cursor=None if next_cursor is None else dtp.Cursor(topic_name=next_cursor[0],
                                                                    partition_index=next_cursor[1]))

    # Kafka 3.7: DescribeTopicPartitionsRequest.getErrorResponse -- each asked topic with the error
    @staticmethod
    def error_response(body, error: Errors) -> dtp.DescribeTopicPartitionsResponse:
        return dtp.DescribeTopicPartitionsResponse(topics=[
            dtp.DescribeTopicPartitionsResponseTopic(error_code=error.code, name=t.name, topic_id=ZERO_UUID,
                                                     is_internal=False, partitions=[]) for t in body.topics])

"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaApis.scala -- the data-path handlers
(handleProduceRequest, handleFetchRequest, handleListOffsetRequest, handleOffsetForLeaderEpochRequest,
handleInitProducerIdRequest, handleDeleteRecordsRequest), split out of kafka_apis.py. ``DataApis`` is a
mixin of ``KafkaApis``.

Produce (S29, S33): records go to ``ReplicaManager.append_records`` untouched (a memoryview of the
request buffer); the callback answers, or for acks=0 sends nothing (NoOpAction) -- or closes the
connection if something failed, since the producer would never see the error otherwise.
Fetch: sessionless (session id 0); a full response lists every requested partition; records are
``FileRecords`` slices, sent with sendfile by the network layer.
Omitted: fetch sessions (KIP-227: answering with session id 0 is legal), transactions (the last
stable offset is the high watermark, aborted transactions are none), quotas.
"""
from __future__ import annotations

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.metrics.broker_topic_stats import BROKER_TOPIC_STATS
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.protocol.messages import (delete_records, fetch, init_producer_id, list_offsets,
                                         offset_for_leader_epoch, produce)
from kafkalite.record.memory_records import MemoryRecords

UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET = -1, -1
CONSUMER_REPLICA_ID, DEBUGGING_REPLICA_ID = -1, -2   # Kafka: ListOffsetRequest.CONSUMER_REPLICA_ID / DEBUGGING_REPLICA_ID


class DataApis:
    """The data-path handlers of KafkaApis (a mixin: ``self`` is the KafkaApis)."""

    # ------------------------------------------------------------------ Produce
    # Kafka: KafkaApis.handleProduceRequest
    def handle_produce_request(self, request) -> None:
        body = request.body
        if body.transactional_id is not None:
            self.send_produce_errors(request, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                                     "Transactions are not supported by kafkalite yet")
            return
        internal_topics_allowed = request.header.client_id == "__admin_client"
        entries: dict[TopicPartition, MemoryRecords] = {}
        errors: dict[TopicPartition, object] = {}
        from kafkalite.server.replica_manager import PartitionResponse
        for topic in body.topic_data:
            for p in topic.partition_data:
                tp = TopicPartition(topic.name, p.index)
                if not self.metadata_cache.contains(tp.topic) or \
                        self.metadata_cache.get_partition_info(tp.topic, tp.partition) is None:
                    errors[tp] = PartitionResponse(Errors.UNKNOWN_TOPIC_OR_PARTITION)
                elif p.records is None:
                    errors[tp] = PartitionResponse(Errors.INVALID_RECORD, error_message="Produce request has no records")
                else:
                    entries[tp] = MemoryRecords(p.records)

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
                else:
                    self.send_no_op_response(request)
                return
            self.send_response(request, self.produce_response(body, merged))

        if not entries:
            send_response_callback({})
            return
        callback = request.trace.purgatory_callback("Produce", send_response_callback)
        self.replica_manager.append_records(body.timeout_ms, body.acks, internal_topics_allowed, True, entries,
                                            callback)
        request.trace.returned_from_purgatory_call()

    @staticmethod
    def produce_response(body, statuses: dict) -> produce.ProduceResponse:
        topics = []
        for topic in body.topic_data:
            parts = []
            for p in topic.partition_data:
                r = statuses.get(TopicPartition(topic.name, p.index))
                if r is None:
                    continue
                parts.append(produce.PartitionProduceResponse(
                    index=p.index, error_code=r.error.code, base_offset=r.base_offset,
                    log_append_time_ms=r.log_append_time, log_start_offset=r.log_start_offset,
                    error_message=r.error_message if r.error is not Errors.NONE else None))
            topics.append(produce.TopicProduceResponse(name=topic.name, partition_responses=parts))
        return produce.ProduceResponse(responses=topics)

    def send_produce_errors(self, request, error: Errors, message: str) -> None:
        from kafkalite.server.replica_manager import PartitionResponse
        statuses = {TopicPartition(t.name, p.index): PartitionResponse(error, error_message=message)
                    for t in request.body.topic_data for p in t.partition_data}
        if request.body.acks == 0:
            self.close_connection(request)
        else:
            self.send_response(request, self.produce_response(request.body, statuses))

    # ------------------------------------------------------------------ Fetch
    # Kafka: KafkaApis.handleFetchRequest
    def handle_fetch_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        fetch_infos = []
        errors = {}
        for topic in body.topics:
            for p in topic.partitions:
                tp = TopicPartition(topic.topic, p.partition)
                if self.metadata_cache.get_partition_info(tp.topic, tp.partition) is None:
                    errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                else:
                    fetch_infos.append((tp, p))

        def process_response_callback(response_partition_data: list) -> None:
            data = dict(response_partition_data)
            responses = []
            for topic in body.topics:
                parts = []
                for p in topic.partitions:
                    tp = TopicPartition(topic.topic, p.partition)
                    d = data.get(tp)
                    if d is None:
                        parts.append(fetch.PartitionData(partition_index=p.partition,
                                                         error_code=errors.get(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION).code,
                                                         high_watermark=-1, last_stable_offset=-1, log_start_offset=-1,
                                                         aborted_transactions=None, records=b""))
                        continue
                    records = d.records
                    if records is None or isinstance(records, MemoryRecords):
                        records = bytes(records.buffer) if records is not None else b""
                    BROKER_TOPIC_STATS.update_bytes_out(topic.topic, body.replica_id >= 0,
                                                        len(records) if isinstance(records, bytes) else records.size_in_bytes())
                    parts.append(fetch.PartitionData(
                        partition_index=p.partition, error_code=d.error.code, high_watermark=d.high_watermark,
                        last_stable_offset=d.last_stable_offset, log_start_offset=d.log_start_offset,
                        aborted_transactions=None, records=records))
                responses.append(fetch.FetchableTopicResponse(topic=topic.topic, partitions=parts))
            self.send_response(request, fetch.FetchResponse(error_code=0, session_id=0, responses=responses))

        if not fetch_infos:
            process_response_callback([])
            return
        fetch_max_bytes = min(body.max_bytes, self.config.get("fetch.max.bytes"))
        callback = request.trace.purgatory_callback("Fetch", process_response_callback)
        self.replica_manager.fetch_messages(body.max_wait_ms, body.replica_id, body.min_bytes, fetch_max_bytes,
                                            version <= 2, fetch_infos, callback, body.isolation_level)
        request.trace.returned_from_purgatory_call()

    # ------------------------------------------------------------------ ListOffsets
    # Kafka: KafkaApis.handleListOffsetRequest (handleListOffsetRequestV1AndAbove)
    def handle_list_offset_request(self, request) -> None:
        body = request.body
        version = request.header.api_version
        topics = []
        for topic in body.topics:
            parts = []
            for p in topic.partitions:
                r = list_offsets.ListOffsetsPartitionResponse(partition_index=p.partition_index)
                try:
                    found = self.replica_manager.fetch_offset_for_timestamp(
                        TopicPartition(topic.name, p.partition_index), p.timestamp, p.current_leader_epoch,
                        fetch_only_from_leader=body.replica_id != DEBUGGING_REPLICA_ID,
                        is_from_consumer=body.replica_id == CONSUMER_REPLICA_ID)
                    r.timestamp, r.offset = (found.timestamp, found.offset) if found is not None else (-1, -1)
                    r.leader_epoch = found.leader_epoch if found is not None and found.leader_epoch is not None else -1
                except ApiException as e:
                    r.error_code, r.timestamp, r.offset = e.error.code, -1, -1
                if version < 4:
                    r.leader_epoch = -1
                parts.append(r)
            topics.append(list_offsets.ListOffsetsTopicResponse(name=topic.name, partitions=parts))
        self.send_response(request, list_offsets.ListOffsetsResponse(topics=topics))

    # ------------------------------------------------------------------ OffsetForLeaderEpoch
    # Kafka: KafkaApis.handleOffsetForLeaderEpochRequest -> ReplicaManager.lastOffsetForLeaderEpoch
    def handle_offset_for_leader_epoch_request(self, request) -> None:
        topics = []
        for topic in request.body.topics:
            parts = []
            for p in topic.partitions:
                r = offset_for_leader_epoch.EpochEndOffset(partition=p.partition)
                try:
                    found = self.replica_manager.last_offset_for_leader_epoch(
                        TopicPartition(topic.topic, p.partition), p.current_leader_epoch, p.leader_epoch)
                    r.leader_epoch, r.end_offset = found if found is not None else (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
                except ApiException as e:
                    r.error_code, r.leader_epoch, r.end_offset = e.error.code, UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
                parts.append(r)
            topics.append(offset_for_leader_epoch.OffsetForLeaderTopicResult(topic=topic.topic, partitions=parts))
        self.send_response(request, offset_for_leader_epoch.OffsetForLeaderEpochResponse(topics=topics))

    # ------------------------------------------------------------------ InitProducerId
    # Kafka: KafkaApis.handleInitProducerIdRequest -> TransactionCoordinator.handleInitProducerId:
    # an idempotent (non-transactional) producer gets a fresh producer id with epoch 0 each time.
    def handle_init_producer_id_request(self, request) -> None:
        body = request.body
        if body.transactional_id is not None:
            self.info(f"InitProducerId with transactional.id {body.transactional_id!r} refused: transactions are not "
                      f"supported by kafkalite yet")
            self.send_response(request, init_producer_id.InitProducerIdResponse(
                error_code=Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code, producer_id=-1, producer_epoch=-1))
            return
        pid = self.producer_id_manager.generate_producer_id()
        self.send_response(request, init_producer_id.InitProducerIdResponse(error_code=0, producer_id=pid,
                                                                            producer_epoch=0))

    # ------------------------------------------------------------------ DeleteRecords
    # Kafka: KafkaApis.handleDeleteRecordsRequest -> ReplicaManager.deleteRecords (one replica: no waiting)
    def handle_delete_records_request(self, request) -> None:
        body = request.body
        offsets = {TopicPartition(topic.name, p.partition_index): p.offset
                   for topic in body.topics for p in topic.partitions}

        def send_response_callback(results: dict) -> None:
            by_topic: dict[str, list] = {}
            for tp, (low_watermark, error) in results.items():
                by_topic.setdefault(tp.topic, []).append(delete_records.DeleteRecordsPartitionResult(
                    partition_index=tp.partition, low_watermark=low_watermark, error_code=error.code))
            self.send_response(request, delete_records.DeleteRecordsResponse(topics=[
                delete_records.DeleteRecordsTopicResult(name=name, partitions=parts)
                for name, parts in by_topic.items()]))

        self.replica_manager.delete_records(body.timeout_ms, offsets, send_response_callback)

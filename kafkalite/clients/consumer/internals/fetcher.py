"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/internals/Fetcher.java

Classes: CompletedFetch, PartitionRecords, Fetcher.

``send_fetches`` builds **one Fetch request per broker** for every fetchable partition that broker
leads (and that has no data buffered and no fetch in flight), each from its ``position``, through that
broker's ``FetchSessionHandler`` (KIP-227): after the first, full fetch a request names only the partitions
whose position changed, and forgets those no longer fetched. Responses
are queued per partition as ``CompletedFetch``; ``fetched_records`` turns them into ConsumerRecords at
most ``max.poll.records`` at a time, decoding the stored batches with ``DefaultRecordBatch`` (S45 read
backwards), and advances each position past what it hands out. A completed fetch whose offset no longer
matches the position (the user seeked meanwhile) is dropped.

Errors per partition: NOT_LEADER / UNKNOWN_TOPIC_OR_PARTITION ask for a metadata update and retry;
OFFSET_OUT_OF_RANGE resets the position by the ``auto.offset.reset`` policy (or raises
OffsetOutOfRangeException with ``none``). ``reset_offsets_if_needed`` sends ListOffsets (-2 earliest,
-1 latest) grouped by leader for the partitions awaiting a reset.

``isolation.level=read_committed``: the broker only returns data below the last stable offset and lists
the aborted transactions of the range; batches of an aborted transaction are skipped by following the
aborted producer ids from their first offset to their ABORT marker, as Kafka's PartitionRecords does.
Control batches are never returned.

Left out: metrics (FetchManagerMetrics), offset validation with leader epochs
(KIP-320), preferred read replicas (KIP-392), offsetsForTimes.
"""
from __future__ import annotations

import collections
import logging

from kafkalite.clients.consumer.consumer_record import ConsumerRecord
from kafkalite.clients.fetch_session_handler import FetchSessionHandler
from kafkalite.clients.consumer.internals.subscription_state import OffsetResetStrategy
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors, OffsetOutOfRangeException
from kafkalite.protocol.messages.fetch import FetchPartition, FetchRequest, FetchTopic, ForgottenTopic
from kafkalite.protocol.messages.list_offsets import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from kafkalite.record.memory_records import MemoryRecords

log = logging.getLogger("kafka.clients.consumer.internals.Fetcher")

EARLIEST_TIMESTAMP = -2   # Kafka: ListOffsetRequest.EARLIEST_TIMESTAMP
LATEST_TIMESTAMP = -1     # Kafka: ListOffsetRequest.LATEST_TIMESTAMP
READ_UNCOMMITTED, READ_COMMITTED = 0, 1


class CompletedFetch:
    """Kafka: Fetcher.CompletedFetch -- one partition's slice of a Fetch response, not yet parsed."""

    def __init__(self, partition: TopicPartition, fetch_offset: int, partition_data):
        self.partition = partition
        self.fetch_offset = fetch_offset
        self.partition_data = partition_data
        # the response buffer may be reused by the network layer: keep our own copy of the records
        records = partition_data.records
        self.records = bytes(records) if records is not None else b""


class PartitionRecords:
    """Kafka: Fetcher.PartitionRecords -- the decoded records of one CompletedFetch, drained in pieces."""

    def __init__(self, partition: TopicPartition, records: list[ConsumerRecord], next_fetch_offset: int):
        self.partition = partition
        self.records = collections.deque(records)
        self.next_fetch_offset = next_fetch_offset

    # Kafka: CompletedFetch.fetchRecords (3.x: PartitionRecords)
    def fetch_records(self, max_records: int) -> list[ConsumerRecord]:
        out = []
        while self.records and len(out) < max_records:
            out.append(self.records.popleft())
        return out

    def is_fetched(self) -> bool:
        return not self.records


class Fetcher:
    """Kafka: Fetcher."""

    def __init__(self, client, metadata, subscriptions, fetch_min_bytes: int = 1, fetch_max_bytes: int = 52428800,
                 fetch_max_wait_ms: int = 500, max_partition_fetch_bytes: int = 1048576, max_poll_records: int = 500,
                 key_deserializer=None, value_deserializer=None, isolation_level: int = READ_UNCOMMITTED,
                 request_timeout_ms: int = 30000):
        self.client = client
        self.metadata = metadata
        self.subscriptions = subscriptions
        self.min_bytes = fetch_min_bytes
        self.max_bytes = fetch_max_bytes
        self.max_wait_ms = fetch_max_wait_ms
        self.fetch_size = max_partition_fetch_bytes
        self.max_poll_records = max_poll_records
        self.key_deserializer = key_deserializer
        self.value_deserializer = value_deserializer
        self.isolation_level = isolation_level
        self.request_timeout_ms = request_timeout_ms
        self.completed_fetches: collections.deque[CompletedFetch] = collections.deque()
        self.next_in_line_records: PartitionRecords | None = None
        self.nodes_with_pending_fetch_requests: set[int] = set()
        self.pending_resets: set[TopicPartition] = set()
        self.session_handlers: dict[int, FetchSessionHandler] = {}   # Kafka: Fetcher.sessionHandlers

    # ------------------------------------------------------------------ fetching

    # Kafka: Fetcher.sendFetches -- one request per leader, in that leader's fetch session; returns how many
    def send_fetches(self) -> int:
        fetch_requests = self.prepare_fetch_requests()
        for node, data in fetch_requests.items():
            by_topic: dict[str, list[FetchPartition]] = {}
            for tp, part in data.to_send.items():
                by_topic.setdefault(tp.topic, []).append(part)
            forgotten: dict[str, list[int]] = {}
            for tp in data.to_forget:
                forgotten.setdefault(tp.topic, []).append(tp.partition)
            request = FetchRequest(replica_id=-1, max_wait_ms=self.max_wait_ms, min_bytes=self.min_bytes,
                                   max_bytes=self.max_bytes, isolation_level=self.isolation_level,
                                   session_id=data.metadata.session_id, session_epoch=data.metadata.epoch,
                                   topics=[FetchTopic(topic=t, partitions=ps) for t, ps in by_topic.items()],
                                   forgotten_topics_data=[ForgottenTopic(topic=t, partitions=ps)
                                                          for t, ps in forgotten.items()])
            offsets = {tp: part.fetch_offset for tp, part in data.session_partitions.items()}
            log.debug("Sending %s fetch for partitions %s to broker %s", self.isolation_level, list(offsets), node)
            self.nodes_with_pending_fetch_requests.add(node.id)
            future = self.client.send(node, ApiKeys.FETCH, request)
            future.add_listener(
                lambda response, n=node, p=offsets: self._handle_fetch_response(n, p, response),
                lambda e, n=node: self._handle_fetch_failure(n, e))
        return len(fetch_requests)

    def _handle_fetch_response(self, node, partitions: dict[TopicPartition, int], response) -> None:
        self.nodes_with_pending_fetch_requests.discard(node.id)
        handler = self.session_handlers.get(node.id)
        if handler is not None and not handler.handle_response(response):
            if response.error_code != Errors.NONE.code and \
                    response.error_code not in (Errors.FETCH_SESSION_ID_NOT_FOUND.code,
                                                Errors.INVALID_FETCH_SESSION_EPOCH.code):
                self.metadata.request_update()
            return
        if response.error_code != Errors.NONE.code:
            log.info("Fetch from node %s failed: %s", node.id, Errors.for_code(response.error_code).name)
            self.metadata.request_update()
            return
        for topic in response.responses:
            for data in topic.partitions:
                tp = TopicPartition(topic.topic, data.partition_index)
                if tp in partitions:
                    self.completed_fetches.append(CompletedFetch(tp, partitions[tp], data))

    def _handle_fetch_failure(self, node, e: BaseException) -> None:
        self.nodes_with_pending_fetch_requests.discard(node.id)
        handler = self.session_handlers.get(node.id)
        if handler is not None:
            handler.handle_error(e)
        log.debug("Fetch request to node %s failed: %s", node.id, e)
        self.metadata.request_update()

    # Kafka: Fetcher.prepareFetchRequests -- per leader, its FetchSessionHandler's FetchRequestData
    def prepare_fetch_requests(self) -> dict:
        buffered = {cf.partition for cf in self.completed_fetches}
        if self.next_in_line_records is not None and not self.next_in_line_records.is_fetched():
            buffered.add(self.next_in_line_records.partition)
        builders: dict = {}
        cluster = self.metadata.fetch()
        for tp in self.subscriptions.fetchable_partitions():
            node = cluster.leader_for(tp)
            if node is None:
                self.metadata.request_update()
            elif self.client.is_unavailable(node):
                pass   # in backoff after a failed connect
            elif node.id in self.nodes_with_pending_fetch_requests or tp in buffered:
                pass
            else:
                builder = builders.get(node)
                if builder is None:
                    handler = self.session_handlers.get(node.id)
                    if handler is None:
                        handler = self.session_handlers[node.id] = FetchSessionHandler(node.id)
                    builder = builders[node] = handler.new_builder()
                builder.add(tp, FetchPartition(partition=tp.partition, fetch_offset=self.subscriptions.position(tp),
                                               partition_max_bytes=self.fetch_size))
        return {node: builder.build() for node, builder in builders.items()}

    # Kafka: Fetcher.hasCompletedFetches
    def has_completed_fetches(self) -> bool:
        return bool(self.completed_fetches) or (
            self.next_in_line_records is not None and not self.next_in_line_records.is_fetched())

    # Kafka: Fetcher.fetchedRecords -- at most max.poll.records, positions advanced
    def fetched_records(self) -> dict[TopicPartition, list[ConsumerRecord]]:
        fetched: dict[TopicPartition, list[ConsumerRecord]] = {}
        records_remaining = self.max_poll_records
        while records_remaining > 0:
            if self.next_in_line_records is None or self.next_in_line_records.is_fetched():
                if not self.completed_fetches:
                    break
                self.next_in_line_records = self.initialize_completed_fetch(self.completed_fetches.popleft())
                if self.next_in_line_records is None:
                    continue
            part = self.next_in_line_records
            records = self.fetch_records(part, records_remaining)
            if records:
                fetched.setdefault(part.partition, []).extend(records)
                records_remaining -= len(records)
        return fetched

    # Kafka: Fetcher.fetchRecords -- hand out records only if the position still matches
    def fetch_records(self, part: PartitionRecords, max_records: int) -> list[ConsumerRecord]:
        tp = part.partition
        if not self.subscriptions.is_assigned(tp) or not self.subscriptions.is_fetchable(tp):
            part.records.clear()
            return []
        position = self.subscriptions.position(tp)
        if part.records and part.records[0].offset < position:
            while part.records and part.records[0].offset < position:
                part.records.popleft()
        records = part.fetch_records(max_records)
        if records:
            self.subscriptions.seek(tp, records[-1].offset + 1)
        if part.is_fetched() and part.next_fetch_offset > self.subscriptions.position(tp):
            self.subscriptions.seek(tp, part.next_fetch_offset)   # past trailing control records
        return records

    # Kafka: Fetcher.initializeCompletedFetch
    def initialize_completed_fetch(self, completed: CompletedFetch) -> PartitionRecords | None:
        tp = completed.partition
        data = completed.partition_data
        error = Errors.for_code(data.error_code)
        if not self.subscriptions.is_assigned(tp) or not self.subscriptions.is_fetchable(tp):
            return None
        if self.subscriptions.position(tp) != completed.fetch_offset:
            log.debug("Discarding stale fetch response for partition %s", tp)
            return None
        if error is Errors.NONE:
            self.subscriptions.update_high_watermark(tp, data.high_watermark)
            if data.last_stable_offset >= 0:
                self.subscriptions.update_last_stable_offset(tp, data.last_stable_offset)
            if data.log_start_offset >= 0:
                self.subscriptions.update_log_start_offset(tp, data.log_start_offset)
            records, next_offset = self.parse_records(tp, completed)
            return PartitionRecords(tp, records, next_offset)
        if error in (Errors.NOT_LEADER_FOR_PARTITION, Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.FENCED_LEADER_EPOCH,
                     Errors.KAFKA_STORAGE_ERROR, Errors.UNKNOWN_LEADER_EPOCH, Errors.REPLICA_NOT_AVAILABLE):
            log.debug("Error %s in fetch for partition %s; updating metadata", error.name, tp)
            self.metadata.request_update()
            return None
        if error is Errors.OFFSET_OUT_OF_RANGE:
            if not self.subscriptions.has_default_offset_reset_policy():
                raise OffsetOutOfRangeException(
                    f"Fetch position {completed.fetch_offset} is out of range for partition {tp}")
            log.info("Fetch offset %d is out of range for partition %s, resetting offset",
                     completed.fetch_offset, tp)
            self.subscriptions.request_offset_reset(tp)
            return None
        raise error.exception(f"Unexpected error code {error.code} while fetching from partition {tp}")

    # Kafka: CompletedFetch.nextFetchedRecord (+ the aborted-transaction bookkeeping)
    def parse_records(self, tp: TopicPartition, completed: CompletedFetch) -> tuple[list[ConsumerRecord], int]:
        records: list[ConsumerRecord] = []
        next_offset = completed.fetch_offset
        aborted = sorted(completed.partition_data.aborted_transactions or [], key=lambda a: a.first_offset)
        aborted_producer_ids: set[int] = set()
        for batch in MemoryRecords(completed.records).batches():
            if batch.last_offset < completed.fetch_offset:
                continue
            next_offset = batch.next_offset
            if self.isolation_level == READ_COMMITTED and batch.has_producer_id():
                while aborted and aborted[0].first_offset <= batch.last_offset:
                    aborted_producer_ids.add(aborted.pop(0).producer_id)
                if batch.is_control_batch:
                    aborted_producer_ids.discard(batch.producer_id)   # the transaction's end marker
                    continue
                if batch.is_transactional and batch.producer_id in aborted_producer_ids:
                    continue   # Kafka: skipping aborted record batch
            if batch.is_control_batch:
                continue
            for record in batch:
                if record.offset < completed.fetch_offset:
                    continue
                records.append(self.parse_record(tp, batch, record))
        return records, next_offset

    # Kafka: Fetcher.parseRecord
    def parse_record(self, tp: TopicPartition, batch, record) -> ConsumerRecord:
        key = _deserialize(self.key_deserializer, tp.topic, record.key)
        value = _deserialize(self.value_deserializer, tp.topic, record.value)
        return ConsumerRecord(tp.topic, tp.partition, record.offset, record.timestamp, batch.timestamp_type,
                              key, value, list(record.headers),
                              -1 if record.key is None else len(record.key),
                              -1 if record.value is None else len(record.value))

    # Kafka: Fetcher.clearBufferedDataForUnassignedPartitions
    def clear_buffered_data_for_unassigned_partitions(self, assigned: set[TopicPartition]) -> None:
        self.completed_fetches = collections.deque(cf for cf in self.completed_fetches if cf.partition in assigned)
        if self.next_in_line_records is not None and self.next_in_line_records.partition not in assigned:
            self.next_in_line_records = None

    # ------------------------------------------------------------------ offsets

    # Kafka: Fetcher.resetOffsetsIfNeeded -- ListOffsets for every partition awaiting a reset
    def reset_offsets_if_needed(self) -> None:
        needing = {tp: s for tp, s in self.subscriptions.partitions_needing_reset().items()
                   if tp not in self.pending_resets}
        by_node: dict = {}
        for tp, strategy in needing.items():
            node = self.metadata.fetch().leader_for(tp)
            if node is None:
                self.metadata.request_update()
                continue
            timestamp = EARLIEST_TIMESTAMP if strategy is OffsetResetStrategy.EARLIEST else LATEST_TIMESTAMP
            by_node.setdefault(node, {})[tp] = timestamp
        for node, timestamps in by_node.items():
            self.pending_resets.update(timestamps)
            future = self.send_list_offsets_request(node, timestamps)
            future.add_listener(lambda result, ts=timestamps: self._on_reset(ts, result),
                                lambda e, ts=timestamps: self._on_reset_failure(ts, e))

    def _on_reset(self, timestamps: dict, result: dict) -> None:
        self.pending_resets.difference_update(timestamps)
        for tp, (offset, error) in result.items():
            if error is not Errors.NONE:
                self.metadata.request_update()
            elif self.subscriptions.is_assigned(tp) and self.subscriptions.is_offset_reset_needed(tp):
                log.info("Resetting offset for partition %s to offset %d.", tp, offset)
                self.subscriptions.seek(tp, offset)

    def _on_reset_failure(self, timestamps: dict, e: BaseException) -> None:
        self.pending_resets.difference_update(timestamps)
        self.metadata.request_update()

    # Kafka: Fetcher.sendListOffsetRequest -- the future yields {tp: (offset, Errors)}
    def send_list_offsets_request(self, node, timestamps: dict[TopicPartition, int]):
        by_topic: dict[str, list] = {}
        for tp, ts in timestamps.items():
            by_topic.setdefault(tp.topic, []).append(ListOffsetsPartition(partition_index=tp.partition, timestamp=ts))
        request = ListOffsetsRequest(replica_id=-1, isolation_level=self.isolation_level,
                                     topics=[ListOffsetsTopic(name=t, partitions=ps) for t, ps in by_topic.items()])
        from kafkalite.clients.consumer.internals.request_future import RequestFuture
        result_future = RequestFuture()

        def on_response(response):
            result = {}
            for topic in response.topics:
                for p in topic.partitions:
                    result[TopicPartition(topic.name, p.partition_index)] = (p.offset, Errors.for_code(p.error_code))
            result_future.complete(result)

        self.client.send(node, ApiKeys.LIST_OFFSETS, request).add_listener(on_response, result_future.raise_)
        return result_future

    # Kafka: Fetcher.beginningOffsets / endOffsets (fetchOffsetsByTimes) -- blocking
    def fetch_offsets_by_times(self, timestamps: dict[TopicPartition, int], timeout_ms: int) -> dict[TopicPartition, int]:
        deadline = self.client.time.milliseconds() + timeout_ms
        result: dict[TopicPartition, int] = {}
        remaining = dict(timestamps)
        while remaining:
            if self.client.time.milliseconds() >= deadline:
                raise Errors.REQUEST_TIMED_OUT.exception(f"Failed to get offsets by times in {timeout_ms}ms")
            if any(self.metadata.fetch().leader_for(tp) is None for tp in remaining) or \
                    self.metadata.update_requested():
                self.metadata.topics |= {tp.topic for tp in remaining}
                self.client.await_metadata_update(max(0, deadline - self.client.time.milliseconds()))
            cluster = self.metadata.fetch()
            by_node: dict = {}
            for tp, ts in remaining.items():
                node = cluster.leader_for(tp)
                if node is not None:
                    by_node.setdefault(node, {})[tp] = ts
            futures = [self.send_list_offsets_request(node, ts) for node, ts in by_node.items()]
            for future in futures:
                self.client.poll_future(future, max(0, deadline - self.client.time.milliseconds()))
                if future.succeeded():
                    for tp, (offset, error) in future.value().items():
                        if error is Errors.NONE:
                            result[tp] = offset
                            remaining.pop(tp, None)
                        elif not error.retriable:
                            raise error.exception(f"ListOffsets for {tp} failed")
                        else:
                            self.metadata.request_update()
            if remaining:
                self.client.poll(50)
        return result


def _deserialize(deserializer, topic: str, data):
    """Kafka: Deserializer.deserialize(topic, data); a plain callable taking the bytes works too."""
    if deserializer is None or data is None:
        return data
    if hasattr(deserializer, "deserialize"):
        return deserializer.deserialize(topic, data)
    return deserializer(data)

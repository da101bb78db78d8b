"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/internals/Sender.java

Classes: Sender (the producer's I/O thread, named ``kafka-producer-network-thread | <client.id>``),
PartitionResponse (Kafka: ProduceResponse.PartitionResponse).

One loop does all the producer's network work (S41, S46-S47). ``run_once``:
1. with idempotence, first get a producer id (``maybe_wait_for_producer_id``: InitProducerId to the
   least loaded broker, waiting with ``NetworkClientUtils`` as 2.4 does);
2. ``send_producer_data``: ``accumulator.ready`` names the leaders with something to send; topics whose
   leader is unknown trigger a metadata update; nodes not yet connected are asked to connect
   (``client.ready``) and left out this round; ``accumulator.drain`` takes batches per node up to
   ``max.request.size``; expired batches fail; one Produce request per node goes to ``client.send``;
3. ``client.poll``: the Selector writes requests, reads responses, and runs each request's callback,
   ``handle_produce_response``, which completes, retries (``reenqueue_batch``) or fails every batch.

``KafkaProducer.send`` wakes this thread (``wakeup``, the Selector's socketpair) when a batch fills or a new
one is created, so a full batch does not wait for the poll timeout.

Left out: splitting a batch the broker found too large, metrics sensors, transactions (``maybeSendAndPollTransactionalRequest``), throttling.
"""
from __future__ import annotations

import logging
import threading

import attrs

from kafkalite.clients.network_client_utils import NetworkClientUtils
from kafkalite.clients.producer.internals.transaction_manager import ProducerIdAndEpoch
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors, KafkaException, RetriableException
from kafkalite.protocol.messages.init_producer_id import InitProducerIdRequest
from kafkalite.protocol.messages.produce import PartitionProduceData, ProduceRequest, TopicProduceData
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.record.record_batch import RecordBatch
from kafkalite.utils.time import SYSTEM, Time

log = logging.getLogger("kafka.producer.Sender")

# Kafka: the InvalidMetadataException subclasses -- after these the leader may have moved
INVALID_METADATA_ERRORS = frozenset({
    Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.LEADER_NOT_AVAILABLE, Errors.NOT_LEADER_FOR_PARTITION,
    Errors.KAFKA_STORAGE_ERROR, Errors.NETWORK_EXCEPTION})


@attrs.define
class PartitionResponse:
    """Kafka: ProduceResponse.PartitionResponse."""

    error: Errors
    base_offset: int = -1
    log_append_time: int = RecordBatch.NO_TIMESTAMP
    log_start_offset: int = -1
    error_message: str | None = None


class Sender:
    """Kafka: Sender (a Runnable; ``start()`` runs it on its own thread, as KafkaThread does)."""

    # Kafka: Sender.<init>
    def __init__(self, client, metadata, accumulator, guarantee_message_order: bool, max_request_size: int,
                 acks: int, retries: int, time: Time = SYSTEM, request_timeout_ms: int = 30000,
                 retry_backoff_ms: int = 100, transaction_manager=None, client_id: str = "producer-1",
                 log_context: str = ""):
        self.client = client
        self.metadata = metadata
        self.accumulator = accumulator
        self.guarantee_message_order = guarantee_message_order
        self.max_request_size = max_request_size
        self.acks = acks
        self.retries = retries
        self.time = time
        self.request_timeout_ms = request_timeout_ms
        self.retry_backoff_ms = retry_backoff_ms
        self.transaction_manager = transaction_manager
        self.log_context = log_context
        self.running = True
        self.force_close = False
        self.in_flight_batches: dict[TopicPartition, list] = {}
        self.thread = threading.Thread(target=self.run, name=f"kafka-producer-network-thread | {client_id}",
                                       daemon=True)

    def start(self) -> None:
        self.thread.start()

    # Kafka: Sender.run -- loop until closed, then finish what is queued (unless forced)
    def run(self) -> None:
        log.debug("%sStarting Kafka producer I/O thread.", self.log_context)
        while self.running:
            self._run_once_logging_errors()
        log.debug("%sBeginning shutdown of Kafka producer I/O thread, sending remaining records.",
                  self.log_context)
        while not self.force_close and (self.accumulator.has_undrained()
                                        or self.client.in_flight_request_count() > 0):
            self._run_once_logging_errors()
        if self.force_close:
            self.accumulator.abort_incomplete_batches()
        try:
            self.client.close()
        except Exception:   # noqa: BLE001
            log.error("%sFailed to close network client", self.log_context, exc_info=True)
        log.debug("%sShutdown of Kafka producer I/O thread has completed.", self.log_context)

    def _run_once_logging_errors(self) -> None:
        try:
            self.run_once()
        except Exception:   # noqa: BLE001 -- Kafka: "Uncaught error in kafka producer I/O thread"
            log.error("%sUncaught error in kafka producer I/O thread: ", self.log_context, exc_info=True)

    # Kafka: Sender.runOnce
    def run_once(self) -> None:
        tm = self.transaction_manager
        if tm is not None:
            if tm.has_fatal_error():
                self.accumulator.abort_batches(tm.last_error)
                self.client.poll(self.retry_backoff_ms, self.time.milliseconds())
                return
            if not tm.has_producer_id():
                self.maybe_wait_for_producer_id()
        current_time_ms = self.time.milliseconds()
        poll_timeout = self.send_producer_data(current_time_ms)
        self.client.poll(poll_timeout, current_time_ms)

    # Kafka: Sender.sendProducerData -- returns how long the next poll may block
    def send_producer_data(self, now: int) -> int:
        cluster = self.metadata.fetch()
        result = self.accumulator.ready(cluster, now)
        if result.unknown_leader_topics:
            for topic in result.unknown_leader_topics:
                self.metadata.add(topic)
            log.debug("%sRequesting metadata update due to unknown leader topics from the batched records: %s",
                      self.log_context, result.unknown_leader_topics)
            self.metadata.request_update()
        not_ready_timeout = 2 ** 63 - 1
        for node in list(result.ready_nodes):
            if not self.client.ready(node, now):   # starts connecting if needed
                result.ready_nodes.discard(node)
                not_ready_timeout = min(not_ready_timeout, self.client.connection_delay(node, now))
        batches = self.accumulator.drain(cluster, result.ready_nodes, self.max_request_size, now)
        self.add_to_inflight_batches(batches)
        if self.guarantee_message_order:
            for batch_list in batches.values():
                for batch in batch_list:
                    self.accumulator.mute_partition(batch.topic_partition)
        self.accumulator.reset_next_batch_expiry_time()
        expired = self.get_expired_inflight_batches(now) + self.accumulator.expired_batches(now)
        for batch in expired:
            message = (f"Expiring {batch.record_count} record(s) for {batch.topic_partition}:"
                       f"{now - batch.create_ms} ms has passed since batch creation")
            self.fail_batch(batch, Errors.REQUEST_TIMED_OUT.exception(message), False)
        poll_timeout = min(result.next_ready_check_delay_ms, not_ready_timeout,
                           self.accumulator.next_expiry_time_ms() - now)
        poll_timeout = max(poll_timeout, 0)
        if result.ready_nodes:
            log.debug("%sNodes with data ready to send: %s", self.log_context,
                      sorted(n.id for n in result.ready_nodes))
            poll_timeout = 0   # data is going out: come back at once to read the answers
        self.send_produce_requests(batches, now)
        return poll_timeout

    # Kafka: Sender.addToInflightBatches
    def add_to_inflight_batches(self, batches: dict) -> None:
        for batch_list in batches.values():
            for batch in batch_list:
                self.in_flight_batches.setdefault(batch.topic_partition, []).append(batch)

    # Kafka: Sender.maybeRemoveFromInflightBatches
    def maybe_remove_from_inflight_batches(self, batch) -> None:
        batches = self.in_flight_batches.get(batch.topic_partition)
        if batches and batch in batches:
            batches.remove(batch)

    # Kafka: Sender.getExpiredInflightBatches -- sent, but past delivery.timeout.ms
    def get_expired_inflight_batches(self, now: int) -> list:
        expired = []
        for batches in self.in_flight_batches.values():
            for batch in list(batches):
                if batch.has_reached_delivery_timeout(self.accumulator.get_delivery_timeout_ms(), now) \
                        and not batch.is_done():
                    batches.remove(batch)
                    expired.append(batch)
        return expired

    # Kafka: Sender.sendProduceRequests
    def send_produce_requests(self, collated: dict, now: int) -> None:
        for node_id, batches in collated.items():
            if batches:
                self.send_produce_request(now, node_id, self.acks, self.request_timeout_ms, batches)

    # Kafka: Sender.sendProduceRequest -- one request per node, one batch per partition (S47)
    def send_produce_request(self, now: int, destination: int, acks: int, timeout: int, batches: list) -> None:
        record_by_partition = {batch.topic_partition: batch for batch in batches}
        topic_data: dict[str, list] = {}
        for batch in batches:
            tp = batch.topic_partition
            topic_data.setdefault(tp.topic, []).append(
                PartitionProduceData(index=tp.partition, records=batch.records().buffer))
        body = ProduceRequest(transactional_id=None, acks=acks, timeout_ms=timeout,
                              topic_data=[TopicProduceData(name=t, partition_data=p) for t, p in topic_data.items()])

        def callback(response):
            self.handle_produce_response(response, record_by_partition, self.time.milliseconds())

        request = self.client.new_client_request(str(destination), ApiKeys.PRODUCE, body, expect_response=acks != 0,
                                                  callback=callback, created_time_ms=now,
                                                  request_timeout_ms=self.request_timeout_ms)
        self.client.send(request, now)
        log.debug("%sSent produce request to %s: %s", self.log_context, destination,
                  ", ".join(f"{b.topic_partition}({b.record_count} records)" for b in batches))

    # Kafka: Sender.handleProduceResponse
    def handle_produce_response(self, response, batches: dict, now: int) -> None:
        correlation_id = response.request_header.correlation_id
        if response.was_disconnected():
            log.debug("%sCancelled request with header %s due to node %s being disconnected", self.log_context,
                      response.request_header, response.destination)
            for batch in batches.values():
                self.complete_batch(batch, PartitionResponse(Errors.NETWORK_EXCEPTION,
                                    error_message=f"Disconnected from node {response.destination}"),
                                    correlation_id, now)
        elif response.version_mismatch is not None:
            log.warning("%sCancelled request %s due to a version mismatch with node %s", self.log_context,
                        response.request_header, response.destination, exc_info=response.version_mismatch)
            for batch in batches.values():
                self.complete_batch(batch, PartitionResponse(Errors.UNSUPPORTED_VERSION), correlation_id, now)
        else:
            log.debug("%sReceived produce response from node %s with correlation id %d", self.log_context,
                      response.destination, correlation_id)
            if response.has_response():
                for topic in response.response_body.responses:
                    for p in topic.partition_responses:
                        tp = TopicPartition(topic.name, p.index)
                        batch = batches[tp]
                        self.complete_batch(batch, PartitionResponse(
                            Errors.for_code(p.error_code), p.base_offset, p.log_append_time_ms,
                            p.log_start_offset, p.error_message), correlation_id, now)
            else:   # acks=0: nothing comes back, every batch counts as sent
                for batch in batches.values():
                    self.complete_batch(batch, PartitionResponse(Errors.NONE), correlation_id, now)

    # Kafka: Sender.completeBatch(ProducerBatch, PartitionResponse, long, long)
    def complete_batch(self, batch, response: PartitionResponse, correlation_id: int, now: int) -> None:
        error = response.error
        if error is not Errors.NONE:
            if self.can_retry(batch, response, now):
                log.warning("%sGot error produce response with correlation id %d on topic-partition %s, retrying "
                            "(%d attempts left). Error: %s", self.log_context, correlation_id,
                            batch.topic_partition, self.retries - batch.attempts - 1, error.name)
                self.reenqueue_batch(batch, now)
            elif error is Errors.DUPLICATE_SEQUENCE_NUMBER:
                # The broker already has this batch (a retry of something that got through): a success.
                self._complete_batch_success(batch, response)
            else:
                exception = error.exception(response.error_message)
                self.fail_batch(batch, exception, batch.attempts < self.retries, response.base_offset)
            if error in INVALID_METADATA_ERRORS:
                log.warning("%sReceived invalid metadata error in produce request on partition %s due to %s. "
                            "Going to request metadata update now", self.log_context, batch.topic_partition,
                            error.name)
                self.metadata.request_update()
        else:
            self._complete_batch_success(batch, response)
        if self.guarantee_message_order:
            self.accumulator.unmute_partition(batch.topic_partition)

    # Kafka: Sender.completeBatch(ProducerBatch, PartitionResponse)
    def _complete_batch_success(self, batch, response: PartitionResponse) -> None:
        if self.transaction_manager is not None:
            self.transaction_manager.handle_completed_batch(batch)
        if batch.complete(response.base_offset, response.log_append_time):
            self.maybe_remove_and_deallocate_batch(batch)

    # Kafka: Sender.reenqueueBatch
    def reenqueue_batch(self, batch, now: int) -> None:
        self.accumulator.reenqueue(batch, now)
        self.maybe_remove_from_inflight_batches(batch)

    # Kafka: Sender.failBatch
    def fail_batch(self, batch, exception: BaseException, adjust_sequence_numbers: bool,
                   base_offset: int = -1) -> None:
        if self.transaction_manager is not None:
            self.transaction_manager.handle_failed_batch(batch, exception, adjust_sequence_numbers)
        if batch.complete_exceptionally(exception):
            self.maybe_remove_and_deallocate_batch(batch)

    # Kafka: Sender.maybeRemoveAndDeallocateBatch
    def maybe_remove_and_deallocate_batch(self, batch) -> None:
        self.maybe_remove_from_inflight_batches(batch)
        self.accumulator.deallocate(batch)

    # Kafka: Sender.canRetry -- retriable error, attempts left, delivery timeout not reached
    def can_retry(self, batch, response: PartitionResponse, now: int) -> bool:
        if batch.has_reached_delivery_timeout(self.accumulator.get_delivery_timeout_ms(), now):
            return False
        if batch.attempts >= self.retries or batch.is_done():
            return False
        if self.transaction_manager is None:
            return isinstance(response.error.exception(), RetriableException)
        return self.transaction_manager.can_retry(response.error, batch)

    # Kafka: Sender.maybeWaitForProducerId (2.4) -- block this thread until InitProducerId succeeds
    def maybe_wait_for_producer_id(self) -> None:
        tm = self.transaction_manager
        while self.running and not tm.has_producer_id() and not tm.has_fatal_error():
            try:
                node = self.await_node_ready()
                if node is not None:
                    request = self.client.new_client_request(
                        node.id_string, ApiKeys.INIT_PRODUCER_ID,
                        InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=2 ** 31 - 1))
                    response = NetworkClientUtils.send_and_receive(self.client, request, self.time)
                    body = response.response_body
                    error = Errors.for_code(body.error_code)
                    if error is Errors.NONE:
                        tm.set_producer_id_and_epoch(ProducerIdAndEpoch(body.producer_id, body.producer_epoch))
                        return
                    if isinstance(error.exception(), RetriableException):
                        log.debug("%sRetriable error from InitProducerId response: %s", self.log_context, error.name)
                    else:
                        tm.transition_to_fatal_error(error.exception())
                        break
                else:
                    log.debug("%sCould not find an available broker to send InitProducerIdRequest to. Will back "
                              "off and retry.", self.log_context)
            except Errors.UNSUPPORTED_VERSION.exception_class as e:
                tm.transition_to_fatal_error(e)
                break
            except (IOError, KafkaException) as e:
                log.debug("%sBroker disconnected while awaiting InitProducerId response: %s", self.log_context, e)
            log.debug("%sRetry InitProducerIdRequest in %dms.", self.log_context, self.retry_backoff_ms)
            self.time.sleep(self.retry_backoff_ms)
            self.metadata.request_update()

    # Kafka: Sender.awaitNodeReady (2.4, without a coordinator type: the least loaded node)
    def await_node_ready(self):
        node = self.client.least_loaded_node(self.metadata.fetch().nodes, self.time.milliseconds())
        if node is not None and NetworkClientUtils.await_ready(self.client, node, self.request_timeout_ms,
                                                               self.time):
            return node
        return None

    # Kafka: Sender.wakeup
    def wakeup(self) -> None:
        self.client.wakeup()

    # Kafka: Sender.initiateClose -- finish sending what is queued, then stop
    def initiate_close(self) -> None:
        self.accumulator.close()
        self.running = False
        self.wakeup()

    # Kafka: Sender.forceClose -- stop now, failing whatever is left
    def force_close_(self) -> None:
        self.force_close = True
        self.initiate_close()

    # Kafka: Sender.isRunning
    def is_running(self) -> bool:
        return self.running

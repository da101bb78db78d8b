"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/transaction/TransactionMarkerChannelManager.scala

Classes: TxnMarkerEntry (Kafka: WriteTxnMarkersRequest.TxnMarkerEntry), TxnIdAndMarkerEntry, TxnLogAppend,
TxnMarkerQueue, TransactionMarkerChannelManager.

Once PrepareCommit/PrepareAbort is in the log, ``add_txn_markers_to_send`` parks a DelayedTxnMarker in
the "txn-marker-purgatory" (it completes when the transaction has no partition left waiting for a marker)
and queues one marker entry per destination broker: the partitions of the transaction grouped by their
leader on the inter-broker listener, as the MetadataCache knows it -- this broker included. The
"TxnMarkerSenderThread-<brokerId>" thread (an InterBrokerSendThread over kafkalite's NetworkClient) drains
the queues into one WriteTxnMarkers request per broker; TransactionMarkerRequestCompletionHandler removes
each partition whose marker was written, re-queues those that failed with a retriable error (perhaps to a
new leader) and gives up on fenced ones. When the DelayedTxnMarker completes, CompleteCommit/CompleteAbort is
appended to the log (retried while the log answers COORDINATOR_NOT_AVAILABLE).

Era notes: the client's ChannelBuilder/security setup is left to kafkalite's Selector (plaintext).
Metrics: the gauges ``kafka.coordinator.transaction:type=TransactionMarkerChannelManager,
name=UnknownDestinationQueueSize`` and ``...,name=LogAppendRetryQueueSize``, removed at shutdown.
"""
from __future__ import annotations

import collections
import queue
import threading
from typing import TYPE_CHECKING

import attrs

from kafkalite.clients.node import Node
from kafkalite.common.inter_broker_send_thread import InterBrokerSendThread, RequestAndCompletionHandler
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.transaction.delayed_txn_marker import DelayedTxnMarker
from kafkalite.coordinator.transaction.transaction_marker_request_completion_handler import \
    TransactionMarkerRequestCompletionHandler
from kafkalite.coordinator.transaction.transaction_metadata import TransactionMetadata, TxnTransitMetadata
from kafkalite.metrics.kafka_metrics_group import MetricsGroup
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.transaction_result import TransactionResult
from kafkalite.utils.time import SYSTEM

if TYPE_CHECKING:
    from kafkalite.protocol.messages.write_txn_markers import WritableTxnMarker

# how often markers whose partition leader is not known yet are looked at again (kafkalite; see send_requests)
UNKNOWN_DESTINATION_RETRY_MS = 100


@attrs.frozen
class TxnMarkerEntry:
    """Kafka: WriteTxnMarkersRequest.TxnMarkerEntry(producerId, producerEpoch, coordinatorEpoch, result,
    partitions)."""

    producer_id: int
    producer_epoch: int
    coordinator_epoch: int
    transaction_result: TransactionResult
    partitions: tuple

    def to_writable(self) -> WritableTxnMarker:
        from kafkalite.protocol.messages.write_txn_markers import WritableTxnMarker, WritableTxnMarkerTopic
        by_topic: dict[str, list[int]] = {}
        for tp in sorted(self.partitions):
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        return WritableTxnMarker(
            producer_id=self.producer_id, producer_epoch=self.producer_epoch,
            transaction_result=self.transaction_result is TransactionResult.COMMIT,
            topics=[WritableTxnMarkerTopic(name=t, partition_indexes=ps) for t, ps in by_topic.items()],
            coordinator_epoch=self.coordinator_epoch)


@attrs.frozen
class TxnIdAndMarkerEntry:
    """Kafka: TxnIdAndMarkerEntry(txnId, txnMarkerEntry)."""

    txn_id: str
    txn_marker_entry: TxnMarkerEntry


@attrs.frozen
class TxnLogAppend:
    """Kafka: TxnLogAppend(transactionalId, coordinatorEpoch, txnMetadata, newMetadata)."""

    transactional_id: str
    coordinator_epoch: int
    txn_metadata: TransactionMetadata
    new_metadata: TxnTransitMetadata


class TxnMarkerQueue:
    """Kafka: TxnMarkerQueue(destination) -- one broker's markers, kept per __transaction_state partition so that
    emigration can drop them."""

    def __init__(self, destination: Node):
        self.destination = destination
        self._lock = threading.Lock()
        self.markers_per_txn_topic_partition: dict[int, collections.deque] = {}

    # Kafka: TxnMarkerQueue.removeMarkersForTxnTopicPartition
    def remove_markers_for_txn_topic_partition(self, partition: int) -> collections.deque | None:
        with self._lock:
            return self.markers_per_txn_topic_partition.pop(partition, None)

    # Kafka: TxnMarkerQueue.addMarkers
    def add_markers(self, txn_topic_partition: int, txn_id_and_marker: TxnIdAndMarkerEntry) -> None:
        with self._lock:
            self.markers_per_txn_topic_partition.setdefault(txn_topic_partition, collections.deque()).append(
                txn_id_and_marker)

    # Kafka: TxnMarkerQueue.forEachTxnTopicPartition, used only to drain: everything queued, in order
    def drain(self) -> list[TxnIdAndMarkerEntry]:
        out = []
        with self._lock:
            for q in self.markers_per_txn_topic_partition.values():
                while q:
                    out.append(q.popleft())
        return out

    # Kafka: TxnMarkerQueue.totalNumMarkers
    def total_num_markers(self, txn_topic_partition: int | None = None) -> int:
        with self._lock:
            if txn_topic_partition is not None:
                return len(self.markers_per_txn_topic_partition.get(txn_topic_partition, ()))
            return sum(len(q) for q in self.markers_per_txn_topic_partition.values())


class TransactionMarkerChannelManager(InterBrokerSendThread):
    """Kafka: TransactionMarkerChannelManager(config, metadataCache, networkClient, txnStateManager,
    txnMarkerPurgatory, time) extends InterBrokerSendThread("TxnMarkerSenderThread-" + brokerId, ...)."""

    def __init__(self, config, metadata_cache, network_client, txn_state_manager, txn_marker_purgatory,
                 time=SYSTEM, topic_exists=None):
        super().__init__(f"TxnMarkerSenderThread-{config.broker_id}", network_client, time)
        self.config = config
        self.broker_id = config.broker_id
        self.metadata_cache = metadata_cache
        # whether ZooKeeper still holds a topic (KafkaZkClient.topic_exists), or None to trust the cache alone
        self.topic_exists = topic_exists
        self.txn_state_manager = txn_state_manager
        self.txn_marker_purgatory = txn_marker_purgatory
        self.log_ident = f"[Transaction Marker Channel Manager {config.broker_id}]: "
        self.inter_broker_listener_name = config.inter_broker_listener_name
        self.markers_queue_per_broker: dict[int, TxnMarkerQueue] = {}
        self._queues_lock = threading.Lock()
        self.markers_queue_for_unknown_broker = TxnMarkerQueue(Node.no_node())
        self.txn_log_append_retry_queue: queue.Queue = queue.Queue()
        self._request_timeout_ms = config.get("request.timeout.ms")
        self.metrics_group = MetricsGroup("kafka.coordinator.transaction", "TransactionMarkerChannelManager")
        self.metrics_group.new_gauge("UnknownDestinationQueueSize", self.unknown_destination_queue_size)
        self.metrics_group.new_gauge("LogAppendRetryQueueSize", self.log_append_retry_queue_size)

    # Kafka: TransactionMarkerChannelManager.apply -- the NetworkClient to the other brokers
    @classmethod
    def create(cls, config, metadata_cache, txn_state_manager, txn_marker_purgatory, time=SYSTEM, topic_exists=None):
        from kafkalite.clients.network_client import NetworkClient
        from kafkalite.network.channel_builders import broker_client_channel_builder
        from kafkalite.network.selector import Selector
        log_context = f"[TransactionCoordinator id={config.broker_id}] "
        selector = Selector(max_receive_size=config.get("socket.request.max.bytes"),
                            connection_max_idle_ms=config.get("connections.max.idle.ms"), time=time,
                            log_context=log_context, channel_builder=broker_client_channel_builder(config, time=time))
        network_client = NetworkClient(selector, None, client_id=f"broker-{config.broker_id}-txn-marker-sender",
                                       max_in_flight_requests_per_connection=1, reconnect_backoff_ms=50,
                                       reconnect_backoff_max_ms=50, request_timeout_ms=config.get("request.timeout.ms"),
                                       time=time, log_context=log_context)
        return cls(config, metadata_cache, network_client, txn_state_manager, txn_marker_purgatory, time,
                   topic_exists)

    @property
    def request_timeout_ms(self) -> int:
        return self._request_timeout_ms

    # Kafka: the UnknownDestinationQueueSize gauge
    def unknown_destination_queue_size(self) -> int:
        return self.markers_queue_for_unknown_broker.total_num_markers()

    # Kafka: the LogAppendRetryQueueSize gauge
    def log_append_retry_queue_size(self) -> int:
        return self.txn_log_append_retry_queue.qsize()

    # Kafka: InterBrokerSendThread.sendRequests -- and, beyond 2.4, markers waiting for an unknown leader are looked
    # at again every UNKNOWN_DESTINATION_RETRY_MS (2.4 waits for the next wakeup, which may never come once the
    # last transaction of a restarted coordinator is waiting there)
    def send_requests(self, now: int) -> int:
        timeout = super().send_requests(now)
        if self.markers_queue_for_unknown_broker.total_num_markers():
            timeout = min(timeout, UNKNOWN_DESTINATION_RETRY_MS)
        return timeout

    # Kafka: TransactionMarkerChannelManager.generateRequests
    def generate_requests(self):
        return self.drain_queued_transaction_markers()

    # Kafka: TransactionMarkerChannelManager.shutdown
    def shutdown(self) -> None:
        if self.is_alive() or self._is_started:
            super().shutdown()
        self.network_client.close()
        self.txn_marker_purgatory.shutdown()
        self.markers_queue_per_broker.clear()
        self.metrics_group.remove_metric("UnknownDestinationQueueSize")
        self.metrics_group.remove_metric("LogAppendRetryQueueSize")

    # Kafka: TransactionMarkerChannelManager.queueForBroker (visible for testing)
    def queue_for_broker(self, broker_id: int) -> TxnMarkerQueue | None:
        return self.markers_queue_per_broker.get(broker_id)

    # Kafka: TransactionMarkerChannelManager.addMarkersForBroker
    def add_markers_for_broker(self, broker: Node, txn_topic_partition: int,
                               txn_id_and_marker: TxnIdAndMarkerEntry) -> None:
        with self._queues_lock:
            broker_queue = self.markers_queue_per_broker.setdefault(broker.id, TxnMarkerQueue(broker))
            broker_queue.destination = broker
        broker_queue.add_markers(txn_topic_partition, txn_id_and_marker)
        self.trace(f"Added marker {txn_id_and_marker.txn_marker_entry} for transactional id "
                   f"{txn_id_and_marker.txn_id} to destination broker {broker.id}")

    # Kafka: TransactionMarkerChannelManager.retryLogAppends
    def retry_log_appends(self) -> None:
        retries = []
        while True:
            try:
                retries.append(self.txn_log_append_retry_queue.get_nowait())
            except queue.Empty:
                break
        for txn_log_append in retries:
            self.debug(f"Retry appending {txn_log_append} transaction log")
            self.try_append_to_log(txn_log_append)

    # Kafka: TransactionMarkerChannelManager.drainQueuedTransactionMarkers
    def drain_queued_transaction_markers(self) -> list[RequestAndCompletionHandler]:
        self.retry_log_appends()
        for entry in self.markers_queue_for_unknown_broker.drain():   # leaders may be known by now
            m = entry.txn_marker_entry
            self.add_txn_markers_to_broker_queue(entry.txn_id, m.producer_id, m.producer_epoch,
                                                 m.transaction_result, m.coordinator_epoch, set(m.partitions))
        requests = []
        with self._queues_lock:
            broker_queues = list(self.markers_queue_per_broker.values())
        for broker_queue in broker_queues:
            entries = broker_queue.drain()
            if not entries:
                continue
            handler = TransactionMarkerRequestCompletionHandler(broker_queue.destination.id, self.txn_state_manager,
                                                                self, entries)
            from kafkalite.protocol.messages.write_txn_markers import WriteTxnMarkersRequest  # the first markers load it
            request = WriteTxnMarkersRequest(markers=[e.txn_marker_entry.to_writable() for e in entries])
            requests.append(RequestAndCompletionHandler(broker_queue.destination, ApiKeys.WRITE_TXN_MARKERS, request,
                                                        handler.on_complete))
        return requests

    # Kafka: TransactionMarkerChannelManager.addTxnMarkersToSend
    def add_txn_markers_to_send(self, transactional_id: str, coordinator_epoch: int, txn_result: TransactionResult,
                                txn_metadata: TransactionMetadata, new_metadata: TxnTransitMetadata) -> None:
        # Kafka: addTxnMarkersToSend.appendToLogCallback -- every marker is written
        def append_to_log_callback(error: Errors) -> None:
            if error is not Errors.NONE:
                raise RuntimeError(f"Unexpected error {error.name} before appending to txn log for {transactional_id}")
            self.trace(f"Completed sending transaction markers for {transactional_id} as {txn_result}")
            err, found = self.txn_state_manager.get_transaction_state(transactional_id)
            if err is Errors.NOT_COORDINATOR:
                self.info(f"No longer the coordinator for {transactional_id} with coordinator epoch "
                          f"{coordinator_epoch}; cancel appending {new_metadata} to transaction log")
            elif err is Errors.COORDINATOR_LOAD_IN_PROGRESS:
                self.info(f"Loading the transaction partition that contains {transactional_id} while my current "
                          f"coordinator epoch is {coordinator_epoch}; so cancel appending {new_metadata} to "
                          f"transaction log since the loading process will continue the remaining work")
            elif err is not Errors.NONE:
                raise RuntimeError(f"Unhandled error {err.name} when fetching current transaction state")
            elif found is None:
                raise RuntimeError(f"The coordinator still owns the transaction partition for {transactional_id}, but "
                                   f"there is no metadata in the cache; this is not expected")
            elif found.coordinator_epoch == coordinator_epoch:
                self.debug(f"Sending {transactional_id}'s transaction markers for {txn_metadata} with coordinator "
                           f"epoch {coordinator_epoch} succeeded, trying to append complete transaction log now")
                self.try_append_to_log(TxnLogAppend(transactional_id, coordinator_epoch, txn_metadata, new_metadata))
            else:
                self.info(f"The cached metadata {txn_metadata} has changed to {found} after completed sending the "
                          f"markers with coordinator epoch {coordinator_epoch}; abort transiting the metadata to "
                          f"{new_metadata} as it may have been updated by another process")

        delayed = DelayedTxnMarker(txn_metadata, append_to_log_callback)
        self.txn_marker_purgatory.try_complete_else_watch(delayed, [transactional_id])
        with txn_metadata.lock:
            partitions = set(txn_metadata.topic_partitions)
        self.add_txn_markers_to_broker_queue(transactional_id, txn_metadata.producer_id, txn_metadata.producer_epoch,
                                             txn_result, coordinator_epoch, partitions)

    # Kafka: TransactionMarkerChannelManager.tryAppendToLog -- CompleteCommit/CompleteAbort
    def try_append_to_log(self, txn_log_append: TxnLogAppend) -> None:
        def append_callback(error: Errors) -> None:
            if error is Errors.NONE:
                self.trace(f"Completed transaction for {txn_log_append.transactional_id} with coordinator epoch "
                           f"{txn_log_append.coordinator_epoch}, final state after commit: "
                           f"{txn_log_append.txn_metadata.state}")
            elif error is Errors.NOT_COORDINATOR:
                self.info(f"No longer the coordinator for transactionalId: {txn_log_append.transactional_id} while "
                          f"trying to append to transaction log, skip writing to transaction log")
            elif error is Errors.COORDINATOR_NOT_AVAILABLE:
                self.info(f"Not available to append {txn_log_append}: possible causes include "
                          f"UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND and "
                          f"REQUEST_TIMED_OUT; retry appending")
                self.txn_log_append_retry_queue.put(txn_log_append)
                self.wakeup()
            elif error is Errors.COORDINATOR_LOAD_IN_PROGRESS:
                self.info(f"Coordinator is loading the partition "
                          f"{self.txn_state_manager.partition_for(txn_log_append.transactional_id)} and hence cannot "
                          f"complete append of {txn_log_append}; skip writing to transaction log as the loading "
                          f"process should complete it")
            else:
                raise RuntimeError(f"Unexpected error {error.name} while appending to transaction log for "
                                   f"{txn_log_append.transactional_id}")

        self.txn_state_manager.append_transaction_to_log(
            txn_log_append.transactional_id, txn_log_append.coordinator_epoch, txn_log_append.new_metadata,
            append_callback, lambda e: e is Errors.COORDINATOR_NOT_AVAILABLE)

    # Kafka: TransactionMarkerChannelManager.addTxnMarkersToBrokerQueue -- group the partitions by leader
    def add_txn_markers_to_broker_queue(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                        result: TransactionResult, coordinator_epoch: int,
                                        topic_partitions: set[TopicPartition]) -> None:
        txn_topic_partition = self.txn_state_manager.partition_for(transactional_id)
        by_destination: dict[Node | None, set[TopicPartition]] = {}
        for tp in topic_partitions:
            by_destination.setdefault(self._leader_node(tp), set()).add(tp)
        for broker, partitions in by_destination.items():
            if broker is not None:
                marker = TxnMarkerEntry(producer_id, producer_epoch, coordinator_epoch, result,
                                        tuple(sorted(partitions)))
                entry = TxnIdAndMarkerEntry(transactional_id, marker)
                if broker.is_empty():   # a leader we cannot reach yet: the sender thread looks again later
                    self.markers_queue_for_unknown_broker.add_markers(txn_topic_partition, entry)
                else:
                    self.add_markers_for_broker(broker, txn_topic_partition, entry)
                continue
            err, found = self.txn_state_manager.get_transaction_state(transactional_id)
            if err is not Errors.NONE:
                self.info(f"Encountered {err.name} trying to fetch transaction metadata for {transactional_id} with "
                          f"coordinator epoch {coordinator_epoch}; cancel sending markers to its partition leaders")
                self.txn_marker_purgatory.cancel_for_key(transactional_id)
            elif found is None:
                raise RuntimeError(f"The coordinator still owns the transaction partition for {transactional_id}, but "
                                   f"there is no metadata in the cache; this is not expected")
            elif found.coordinator_epoch != coordinator_epoch:
                self.info(f"The cached metadata has changed to {found} (old coordinator epoch is {coordinator_epoch}) "
                          f"since preparing to send markers; cancel sending markers to its partition leaders")
                self.txn_marker_purgatory.cancel_for_key(transactional_id)
            else:
                # no leader known at all: the partition was most likely deleted, nothing to mark
                self.info(f"Couldn't find leader endpoint for partitions {sorted(partitions)} while trying to send "
                          f"transaction markers for {transactional_id}, these partitions are likely deleted already "
                          f"and hence can be skipped")
                m = found.transaction_metadata
                with m.lock:
                    for tp in partitions:
                        m.remove_partition(tp)
                self.txn_marker_purgatory.check_and_complete(transactional_id)
        self.wakeup()

    def _leader_node(self, tp: TopicPartition) -> Node | None:
        """Kafka: metadataCache.getPartitionLeaderEndpoint -- None if the partition is unknown, Node.noNode if its
        leader is not reachable on the inter-broker listener.

        Hardening over 2.4: a partition the cache does not know is taken for deleted (its markers skipped) only when
        ZooKeeper no longer holds its topic. After a controller failover (a single broker's restart) the cache
        learns the partitions from the UpdateMetadata that follows LeaderAndIsr, and the transactions loaded on
        that LeaderAndIsr may look for their leaders first; 2.4 then completes a PrepareCommit without writing its
        markers, and the partitions' last stable offset never moves again. Here such partitions wait in the
        unknown-destination queue, which every drain looks at again."""
        if self.metadata_cache.get_partition_info(tp.topic, tp.partition) is None:
            if self.topic_exists is not None and self.topic_exists(tp.topic):
                return Node.no_node()
            return None
        endpoint = self.metadata_cache.get_partition_leader_endpoint(tp.topic, tp.partition,
                                                                     self.inter_broker_listener_name)
        if endpoint is None or endpoint[0] < 0:
            return Node.no_node()
        return Node(endpoint[0], endpoint[1], endpoint[2])

    # Kafka: TransactionMarkerChannelManager.removeMarkersForTxnTopicPartition -- emigration
    def remove_markers_for_txn_topic_partition(self, txn_topic_partition_id: int) -> None:
        queues = [self.markers_queue_for_unknown_broker]
        with self._queues_lock:
            queues += list(self.markers_queue_per_broker.values())
        for broker_queue in queues:
            removed = broker_queue.remove_markers_for_txn_topic_partition(txn_topic_partition_id)
            for entry in removed or ():
                self.remove_markers_for_txn_id(entry.txn_id)

    # Kafka: TransactionMarkerChannelManager.removeMarkersForTxnId
    def remove_markers_for_txn_id(self, transactional_id: str) -> None:
        self.txn_marker_purgatory.cancel_for_key(transactional_id)

    # Kafka: TransactionMarkerChannelManager.completeSendMarkersForTxnId
    def complete_send_markers_for_txn_id(self, transactional_id: str) -> None:
        self.txn_marker_purgatory.check_and_complete(transactional_id)

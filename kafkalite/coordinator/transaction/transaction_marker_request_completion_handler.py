"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/transaction/TransactionMarkerRequestCompletionHandler.scala

Classes: TransactionMarkerRequestCompletionHandler -- what the TxnMarkerSenderThread does with the answer
to one WriteTxnMarkers request (the markers of several transactions, all for one broker):
- the broker was unreachable: re-queue every marker (its partitions may have a new leader by now);
- per partition: NONE removes it from the transaction; UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_FOR_PARTITION,
  NOT_ENOUGH_REPLICAS(_AFTER_APPEND), REQUEST_TIMED_OUT re-queue it; INVALID_PRODUCER_EPOCH or
  TRANSACTION_COORDINATOR_FENCED mean someone newer owns the transaction: stop sending its markers;
  UNSUPPORTED_FOR_MESSAGE_FORMAT / UNSUPPORTED_VERSION drop the partition;
- when nothing is left to retry, the DelayedTxnMarker is checked, which writes CompleteCommit/CompleteAbort.
A marker whose coordinator epoch is no longer the cached one (the partition moved away and back) is dropped.

Era notes: PRODUCER_FENCED (Kafka 2.7) is treated like INVALID_PRODUCER_EPOCH, and KAFKA_STORAGE_ERROR is
retried (Kafka 3.x does both), since the broker end of WriteTxnMarkers may answer either.
"""
from __future__ import annotations

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.utils.logging import Logging

_RETRIABLE = (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_LEADER_FOR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
              Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.REQUEST_TIMED_OUT, Errors.KAFKA_STORAGE_ERROR)
_FENCED = (Errors.INVALID_PRODUCER_EPOCH, Errors.PRODUCER_FENCED, Errors.TRANSACTION_COORDINATOR_FENCED)
_FATAL = (Errors.CORRUPT_MESSAGE, Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_REQUIRED_ACKS)


class TransactionMarkerRequestCompletionHandler(Logging):
    """Kafka: TransactionMarkerRequestCompletionHandler(brokerId, txnStateManager, txnMarkerChannelManager,
    txnIdAndMarkerEntries)."""

    def __init__(self, broker_id: int, txn_state_manager, txn_marker_channel_manager, txn_id_and_marker_entries):
        self.broker_id = broker_id
        self.txn_state_manager = txn_state_manager
        self.txn_marker_channel_manager = txn_marker_channel_manager
        self.txn_id_and_marker_entries = list(txn_id_and_marker_entries)
        self.log_ident = f"[Transaction Marker Request Completion Handler {broker_id}]: "

    def _current_epoch_and_metadata(self, transactional_id: str, txn_marker):
        """The cached (coordinator epoch, metadata), or None after cancelling the markers (no longer ours)."""
        err, found = self.txn_state_manager.get_transaction_state(transactional_id)
        if err in (Errors.NOT_COORDINATOR, Errors.COORDINATOR_LOAD_IN_PROGRESS):
            self.info(f"I am no longer the coordinator for {transactional_id} (or am loading its partition: "
                      f"{err.name}); cancel sending transaction markers {txn_marker} to the brokers")
            self.txn_marker_channel_manager.remove_markers_for_txn_id(transactional_id)
            return None
        if err is not Errors.NONE:
            raise RuntimeError(f"Unhandled error {err.name} when fetching current transaction state")
        if found is None:
            raise RuntimeError(f"The coordinator still owns the transaction partition for {transactional_id}, but "
                               f"there is no metadata in the cache; this is not expected")
        if found.coordinator_epoch != txn_marker.coordinator_epoch:
            self.info(f"Transaction coordinator epoch for {transactional_id} has changed from "
                      f"{txn_marker.coordinator_epoch} to {found.coordinator_epoch}; cancel sending transaction "
                      f"markers {txn_marker} to the brokers")
            self.txn_marker_channel_manager.remove_markers_for_txn_id(transactional_id)
            return None
        return found

    def _requeue(self, transactional_id: str, txn_marker, partitions) -> None:
        self.txn_marker_channel_manager.add_txn_markers_to_broker_queue(
            transactional_id, txn_marker.producer_id, txn_marker.producer_epoch, txn_marker.transaction_result,
            txn_marker.coordinator_epoch, set(partitions))

    # Kafka: TransactionMarkerRequestCompletionHandler.onComplete
    def on_complete(self, response) -> None:
        if response.was_disconnected():
            self.trace(f"Cancelled request with header {response.request_header} due to node "
                       f"{response.destination} being disconnected")
            for entry in self.txn_id_and_marker_entries:
                marker = entry.txn_marker_entry
                if self._current_epoch_and_metadata(entry.txn_id, marker) is not None:
                    self._requeue(entry.txn_id, marker, marker.partitions)
            return
        if response.version_mismatch is not None:
            # Kafka 2.4 has no such case (brokers of one cluster all speak WriteTxnMarkers v0): the broker does not
            # serve it, so no marker can be written there -- as UNSUPPORTED_VERSION per partition below
            self.error(f"Broker {response.destination} does not support WriteTxnMarkers: {response.version_mismatch}")
            for entry in self.txn_id_and_marker_entries:
                marker = entry.txn_marker_entry
                found = self._current_epoch_and_metadata(entry.txn_id, marker)
                if found is not None:
                    with found.transaction_metadata.lock:
                        for tp in marker.partitions:
                            found.transaction_metadata.remove_partition(tp)
                    self.txn_marker_channel_manager.complete_send_markers_for_txn_id(entry.txn_id)
            return
        self.debug(f"Received WriteTxnMarker response {response.response_body} from node {response.destination} "
                   f"with correlation id {response.request_header.correlation_id}")
        errors_by_producer: dict[int, dict[TopicPartition, Errors]] = {}
        for result in response.response_body.markers:
            errors = errors_by_producer.setdefault(result.producer_id, {})
            for topic in result.topics:
                for p in topic.partitions:
                    errors[TopicPartition(topic.name, p.partition_index)] = Errors.for_code(p.error_code)
        for entry in self.txn_id_and_marker_entries:
            transactional_id, marker = entry.txn_id, entry.txn_marker_entry
            errors = errors_by_producer.get(marker.producer_id)
            if errors is None:
                raise RuntimeError(f"WriteTxnMarkerResponse does not contain expected error map for producer id "
                                   f"{marker.producer_id}")
            found = self._current_epoch_and_metadata(transactional_id, marker)
            if found is None:
                continue
            m = found.transaction_metadata
            retry_partitions = set()
            abort_sending = False
            with m.lock:
                for tp, error in errors.items():
                    if error is Errors.NONE:
                        m.remove_partition(tp)
                    elif error in _FATAL:
                        raise RuntimeError(f"Received fatal error {error.name} while sending txn marker for "
                                           f"{transactional_id}")
                    elif error in _RETRIABLE:
                        self.info(f"Sending {transactional_id}'s transaction marker for partition {tp} has failed "
                                  f"with error {error.name}, retrying with current coordinator epoch "
                                  f"{found.coordinator_epoch}")
                        retry_partitions.add(tp)
                    elif error in _FENCED:
                        self.info(f"Sending {transactional_id}'s transaction marker for partition {tp} has "
                                  f"permanently failed with error {error.name} with the current coordinator epoch "
                                  f"{found.coordinator_epoch}; cancel sending any more transaction markers "
                                  f"{marker} to the brokers")
                        self.txn_marker_channel_manager.remove_markers_for_txn_id(transactional_id)
                        abort_sending = True
                    elif error in (Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT, Errors.UNSUPPORTED_VERSION):
                        self.info(f"Sending {transactional_id}'s transaction marker from partition {tp} has failed "
                                  f"with {error.name}. This partition will be removed from the set of partitions "
                                  f"waiting for completion")
                        m.remove_partition(tp)
                    else:
                        raise RuntimeError(f"Unexpected error {error.name} while sending txn marker for "
                                           f"{transactional_id}")
            if abort_sending:
                continue
            if retry_partitions:
                self.debug(f"Re-enqueuing {marker.transaction_result} transaction markers for transactional id "
                           f"{transactional_id} under coordinator epoch {marker.coordinator_epoch}")
                self._requeue(transactional_id, marker, retry_partitions)
            else:
                self.txn_marker_channel_manager.complete_send_markers_for_txn_id(transactional_id)

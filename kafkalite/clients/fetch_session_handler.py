"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/FetchSessionHandler.java

Classes: FetchSessionHandler (with its Builder), FetchRequestData.

The fetcher's side of an incremental fetch session (KIP-227), one handler per broker fetched from. Each
round the fetcher adds every partition it wants to a Builder; ``build`` compares them with the session's
partitions and returns what to send: everything for a full fetch (epoch 0, or the first), or for an
incremental one only the partitions that are new or whose parameters changed, plus the partitions to
forget. ``handle_response`` / ``handle_error`` move the session's (id, epoch) on: a response opening a
session makes the next fetch incremental; a session error, an error sending, or a response naming
partitions it should not, makes the next fetch a full one.

kafkalite's ReplicaFetcherThread uses it as Kafka 2.4's does; kafkalite's own consumer does not (yet).
Request partitions are the ``fetch.FetchPartition`` wire structs; two are "the same" when their offsets,
max bytes and epochs are. Left out: the log-string helpers beyond a count of partitions.
"""
from __future__ import annotations

import logging

import attrs

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.fetch_metadata import INITIAL, INVALID_SESSION_ID, FetchMetadata

log = logging.getLogger("org.apache.kafka.clients.FetchSessionHandler")


def _same_request(a, b) -> bool:
    """Kafka: FetchRequest.PartitionData.equals"""
    return (a.fetch_offset == b.fetch_offset and a.log_start_offset == b.log_start_offset
            and a.partition_max_bytes == b.partition_max_bytes and a.current_leader_epoch == b.current_leader_epoch
            and a.last_fetched_epoch == b.last_fetched_epoch)


@attrs.frozen
class FetchRequestData:
    """Kafka: FetchSessionHandler.FetchRequestData -- what one fetch request carries."""

    to_send: dict            # {TopicPartition: FetchPartition} to put in the request
    to_forget: list          # [TopicPartition] the broker should drop from the session
    session_partitions: dict  # every partition of the session after this request
    metadata: FetchMetadata


class FetchSessionHandler:
    """Kafka: FetchSessionHandler(logContext, node)"""

    def __init__(self, node: int):
        self.node = node
        self.next_metadata = INITIAL                  # Kafka: nextMetadata
        self.session_partitions: dict = {}            # Kafka: sessionPartitions (insertion-ordered)

    class Builder:
        """Kafka: FetchSessionHandler.Builder"""

        def __init__(self, handler: "FetchSessionHandler"):
            self.handler = handler
            self.next: dict | None = {}

        # Kafka: Builder.add
        def add(self, topic_partition: TopicPartition, data) -> None:
            self.next[topic_partition] = data

        # Kafka: Builder.build
        def build(self) -> FetchRequestData:
            handler, nxt = self.handler, self.next
            self.next = None
            if handler.next_metadata.is_full:
                handler.session_partitions = nxt
                log.debug("Built full fetch %s for node %s with %d partition(s).", handler.next_metadata,
                          handler.node, len(nxt))
                return FetchRequestData(dict(nxt), [], dict(nxt), handler.next_metadata)
            added, removed, altered = [], [], []
            session = handler.session_partitions
            for tp in list(session):
                prev = session[tp]
                data = nxt.get(tp)
                if data is None:
                    del session[tp]
                    removed.append(tp)
                elif _same_request(prev, data):
                    del nxt[tp]
                else:
                    del nxt[tp]
                    nxt[tp] = data          # altered partitions go after the added ones, as Kafka's re-put does
                    session[tp] = data
                    altered.append(tp)
            for tp, data in nxt.items():
                if tp in session:
                    break
                session[tp] = data
                added.append(tp)
            log.debug("Built incremental fetch %s for node %s. Added %d, altered %d, removed %d out of %d "
                      "partition(s)", handler.next_metadata, handler.node, len(added), len(altered), len(removed),
                      len(session))
            return FetchRequestData(dict(nxt), removed, dict(session), handler.next_metadata)

    # Kafka: FetchSessionHandler.newBuilder
    def new_builder(self) -> "FetchSessionHandler.Builder":
        return FetchSessionHandler.Builder(self)

    # Kafka: FetchSessionHandler.verifyFullFetchResponsePartitions -- a full response names exactly the session
    def verify_full_fetch_response_partitions(self, response_partitions: set) -> str | None:
        omitted = response_partitions - self.session_partitions.keys()
        extra = self.session_partitions.keys() - response_partitions
        if omitted or extra:
            return f"omitted={sorted(map(str, omitted))}, extra={sorted(map(str, extra))}"
        return None

    # Kafka: FetchSessionHandler.verifyIncrementalFetchResponsePartitions -- no partition outside the session
    def verify_incremental_fetch_response_partitions(self, response_partitions: set) -> str | None:
        extra = response_partitions - self.session_partitions.keys()
        return f"extra={sorted(map(str, extra))}" if extra else None

    # Kafka: FetchSessionHandler.handleResponse -- False: ignore this response's partitions
    def handle_response(self, response) -> bool:
        error = Errors.for_code(response.error_code)
        if error is not Errors.NONE:
            log.info("Node %s was unable to process the fetch request with %s: %s.", self.node, self.next_metadata,
                     error.name)
            self.next_metadata = INITIAL if error is Errors.FETCH_SESSION_ID_NOT_FOUND \
                else self.next_metadata.next_close_existing()
            return False
        partitions = {TopicPartition(t.topic, p.partition_index) for t in response.responses for p in t.partitions}
        if self.next_metadata.is_full:
            problem = self.verify_full_fetch_response_partitions(partitions)
            if problem is not None:
                log.info("Node %s sent an invalid full fetch response with %s", self.node, problem)
                self.next_metadata = INITIAL
                return False
            if response.session_id == INVALID_SESSION_ID:
                self.next_metadata = INITIAL
            else:
                log.debug("Node %s sent a full fetch response that created a new incremental fetch session %s",
                          self.node, response.session_id)
                self.next_metadata = FetchMetadata.new_incremental(response.session_id)
            return True
        problem = self.verify_incremental_fetch_response_partitions(partitions)
        if problem is not None:
            log.info("Node %s sent an invalid incremental fetch response with %s", self.node, problem)
            self.next_metadata = self.next_metadata.next_close_existing()
            return False
        if response.session_id == INVALID_SESSION_ID:
            log.debug("Node %s sent an incremental fetch response closing session %s", self.node,
                      self.next_metadata.session_id)
            self.next_metadata = INITIAL
        else:
            self.next_metadata = self.next_metadata.next_incremental()
        return True

    # Kafka: FetchSessionHandler.handleError -- the next fetch is a full one that closes the session
    def handle_error(self, t: BaseException) -> None:
        log.info("Error sending fetch request %s to node %s: %r.", self.next_metadata, self.node, t)
        self.next_metadata = self.next_metadata.next_close_existing()

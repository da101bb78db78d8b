"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerCoordinator.java

Classes: ConsumerRebalanceListener (Kafka: consumer/ConsumerRebalanceListener.java), ConsumerCoordinator.

What a consumer adds to the group protocol of AbstractCoordinator:
- ``metadata_protocols``: one JoinGroup protocol per configured assignor, each carrying the member's
  subscription and, for the cooperative protocol, the partitions it owns (ConsumerProtocol v1);
- ``perform_assignment`` (leader only): read every member's subscription, make sure the metadata covers
  all their topics, run the chosen assignor, serialize each member's assignment;
- the rebalance protocol (KIP-429): EAGER when any configured assignor is eager-only -- every member
  revokes everything in ``on_join_prepare``; COOPERATIVE when all assignors support it -- nothing is
  revoked up front; ``on_join_complete`` revokes only the partitions that left this member's assignment
  and, if there were any, rejoins at once so the next rebalance can give them to their new owner;
- offsets: ``fetch_committed_offsets`` (OffsetFetch), ``commit_offsets_sync``/``commit_offsets_async``
  (OffsetCommit with the generation and member id, or -1/"" for a consumer that only assigns), auto-commit
  every ``auto.commit.interval.ms`` from ``poll``, and before each rebalance.

Left out: pattern subscriptions, ``onPartitionsLost``, the metadata snapshot's rack-awareness, the
commit-async interceptors, ``group.instance.id`` specifics.
"""
from __future__ import annotations

import logging

from kafkalite.clients.consumer.consumer_partition_assignor import (
    GroupSubscription, RebalanceProtocol, Subscription,
)
from kafkalite.clients.consumer.consumer_record import OffsetAndMetadata
from kafkalite.clients.consumer.internals.abstract_coordinator import AbstractCoordinator, MemberState
from kafkalite.clients.consumer.internals.request_future import RequestFuture
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.protocol.messages.consumer_protocol import (
    ConsumerProtocolAssignment, ConsumerProtocolSubscription, ConsumerProtocolTopicPartition,
    deserialize_assignment, deserialize_subscription, serialize_assignment, serialize_subscription,
)
from kafkalite.protocol.messages.offset_commit import (
    OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic,
)
from kafkalite.protocol.messages.offset_fetch import OffsetFetchRequest, OffsetFetchRequestTopic

log = logging.getLogger("kafka.clients.consumer.internals.ConsumerCoordinator")


class ConsumerRebalanceListener:
    """Kafka: ConsumerRebalanceListener -- override to hear about revoked and assigned partitions."""

    def on_partitions_revoked(self, partitions: set[TopicPartition]) -> None:
        pass

    def on_partitions_assigned(self, partitions: set[TopicPartition]) -> None:
        pass


def _group_by_topic(partitions) -> list[ConsumerProtocolTopicPartition]:
    by_topic: dict[str, list[int]] = {}
    for tp in sorted(partitions, key=lambda tp: (tp.topic, tp.partition)):
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    return [ConsumerProtocolTopicPartition(topic=t, partitions=ps) for t, ps in by_topic.items()]


def _flatten(topic_partitions) -> list[TopicPartition]:
    return [TopicPartition(t.topic, p) for t in topic_partitions for p in t.partitions]


class ConsumerCoordinator(AbstractCoordinator):
    """Kafka: ConsumerCoordinator."""

    def __init__(self, client, metadata, subscriptions, assignors: list, group_id: str, time,
                 enable_auto_commit: bool = True, auto_commit_interval_ms: int = 5000, **kwargs):
        super().__init__(client, metadata, group_id, time, **kwargs)
        self.subscriptions = subscriptions
        self.assignors = assignors
        self.auto_commit_enabled = enable_auto_commit
        self.auto_commit_interval_ms = auto_commit_interval_ms
        self.next_auto_commit_deadline = time.milliseconds() + auto_commit_interval_ms
        self.assignment_snapshot: dict[str, int] | None = None   # partition counts the assignment used
        self.is_leader = False
        # Kafka: the protocol is the newest one that every configured assignor supports
        common = set(RebalanceProtocol)
        for assignor in assignors:
            common &= set(assignor.supported_protocols())
        if not common:
            raise ValueError("Specified assignors " + str([a.name() for a in assignors])
                             + " do not have commonly supported rebalance protocol")
        self.protocol = max(common, key=lambda p: p.value)

    # Kafka: ConsumerCoordinator.protocolType
    def protocol_type(self) -> str:
        return "consumer"

    # Kafka: ConsumerCoordinator.metadata
    def metadata_protocols(self) -> list[tuple[str, bytes]]:
        topics = sorted(self.subscriptions.subscription)
        owned = self.subscriptions.assigned_partitions() if self.protocol is RebalanceProtocol.COOPERATIVE else ()
        out = []
        for assignor in self.assignors:
            subscription = ConsumerProtocolSubscription(
                topics=topics, user_data=assignor.subscription_user_data(set(topics)),
                owned_partitions=_group_by_topic(owned))
            out.append((assignor.name(), serialize_subscription(subscription)))
        return out

    # Kafka: ConsumerCoordinator.lookupAssignor
    def lookup_assignor(self, name: str):
        return next((a for a in self.assignors if a.name() == name), None)

    # Kafka: ConsumerCoordinator.onJoinPrepare
    def on_join_prepare(self, generation: int, member_id: str) -> None:
        self.maybe_auto_commit_offsets_sync(5000)
        self.is_leader = False
        self.subscriptions.reset_group_subscription()
        if self.protocol is RebalanceProtocol.EAGER:
            revoked = self.subscriptions.assigned_partitions()
            log.info("Revoking previously assigned partitions %s", sorted(map(str, revoked)))
            self._invoke_revoked(revoked)
            self.subscriptions.assign_from_subscribed([])
        else:
            # cooperative: only partitions of topics no longer subscribed go now
            revoked = {tp for tp in self.subscriptions.assigned_partitions()
                       if tp.topic not in self.subscriptions.subscription}
            if revoked:
                self._invoke_revoked(revoked)
                self.subscriptions.assign_from_subscribed(
                    [tp for tp in self.subscriptions.assigned_partitions_list() if tp not in revoked])

    # Kafka: ConsumerCoordinator.performAssignment
    def perform_assignment(self, leader_id: str, assignment_strategy: str, all_subscriptions) -> dict[str, bytes]:
        assignor = self.lookup_assignor(assignment_strategy)
        if assignor is None:
            raise ValueError(f"Coordinator selected invalid assignment protocol: {assignment_strategy}")
        subscriptions: dict[str, Subscription] = {}
        all_topics: set[str] = set()
        for member in all_subscriptions:
            s = deserialize_subscription(member.metadata)
            subscriptions[member.member_id] = Subscription(list(s.topics), s.user_data,
                                                          _flatten(s.owned_partitions), member.group_instance_id)
            all_topics.update(s.topics)
        self.is_leader = True
        # the leader must know every member's topics, not only its own
        self.subscriptions.group_subscribe(all_topics)
        self.metadata.topics |= all_topics
        if any(self.metadata.fetch().partition_count_for_topic(t) is None for t in all_topics):
            self.client.await_metadata_update(5000)
        cluster = self.metadata.fetch()
        self.assignment_snapshot = {t: cluster.partition_count_for_topic(t) for t in all_topics}
        log.debug("Performing assignment using strategy %s with subscriptions %s", assignor.name(), subscriptions)
        assignments = assignor.assign(cluster, GroupSubscription(subscriptions)).group_assignment
        log.info("Finished assignment for group: %s", {m: [str(tp) for tp in a.partitions]
                                                       for m, a in assignments.items()})
        return {member: serialize_assignment(ConsumerProtocolAssignment(
                    assigned_partitions=_group_by_topic(a.partitions), user_data=a.user_data))
                for member, a in assignments.items()}

    # Kafka: ConsumerCoordinator.onJoinComplete
    def on_join_complete(self, generation: int, member_id: str, protocol: str, assignment_bytes: bytes) -> None:
        assignment = deserialize_assignment(assignment_bytes)
        assigned = _flatten(assignment.assigned_partitions)
        assigned = [tp for tp in assigned if tp.topic in self.subscriptions.subscription]
        owned = self.subscriptions.assigned_partitions()
        assignor = self.lookup_assignor(protocol)
        if assignor is not None:
            from kafkalite.clients.consumer.consumer_partition_assignor import Assignment
            assignor.on_assignment(Assignment(assigned, assignment.user_data), generation)
        self.next_auto_commit_deadline = self.time.milliseconds() + self.auto_commit_interval_ms
        added = set(assigned) - owned
        if self.protocol is RebalanceProtocol.COOPERATIVE:
            revoked = owned - set(assigned)
            log.info("Updating assignment with\n\tAssigned partitions: %s\n\tAdded partitions: %s\n\t"
                     "Revoked partitions: %s", sorted(map(str, assigned)), sorted(map(str, added)),
                     sorted(map(str, revoked)))
            if revoked:
                self._invoke_revoked(revoked)
            self.subscriptions.assign_from_subscribed(assigned)
            self._invoke_assigned(added)
            if revoked:
                # the second phase: give the revoked partitions to their new owners
                self.request_rejoin()
        else:
            log.info("Setting newly assigned partitions: %s", sorted(map(str, assigned)))
            self.subscriptions.assign_from_subscribed(assigned)
            self._invoke_assigned(set(assigned))

    def _invoke_revoked(self, partitions: set[TopicPartition]) -> None:
        listener = self.subscriptions.rebalance_listener
        if listener is not None and partitions:
            try:
                listener.on_partitions_revoked(set(partitions))
            except Exception:   # noqa: BLE001 -- Kafka logs a user callback's error and carries on
                log.error("User provided listener failed on invocation of onPartitionsRevoked", exc_info=True)

    def _invoke_assigned(self, partitions: set[TopicPartition]) -> None:
        listener = self.subscriptions.rebalance_listener
        if listener is not None:
            try:
                listener.on_partitions_assigned(set(partitions))
            except Exception:   # noqa: BLE001
                log.error("User provided listener failed on invocation of onPartitionsAssigned", exc_info=True)

    # Kafka: ConsumerCoordinator.poll -- keep the membership and auto-commit going
    def poll(self, timeout_ms: int) -> bool:
        self.heartbeat.poll(self.time.milliseconds())
        if self.subscriptions.partitions_auto_assigned():
            if self.coordinator_unknown() and not self.ensure_coordinator_ready(timeout_ms):
                return False
            if self.leader_metadata_changed():
                self.request_rejoin()
            if self.rejoin_needed_or_pending():
                cluster = self.metadata.fetch()
                if self.metadata.update_requested() or any(
                        cluster.partition_count_for_topic(t) is None for t in self.subscriptions.subscription):
                    self.client.await_metadata_update(min(timeout_ms, 5000))
                if not self.ensure_active_group(timeout_ms):
                    return False
        elif self.coordinator_unknown() and self.auto_commit_enabled:
            self.ensure_coordinator_ready(0)
        self.maybe_auto_commit_offsets_async(self.time.milliseconds())
        return True

    # Kafka: ConsumerCoordinator.rejoinNeededOrPending's metadata-snapshot check (leader only)
    def leader_metadata_changed(self) -> bool:
        if not self.is_leader or self.assignment_snapshot is None or self.state is not MemberState.STABLE:
            return False
        cluster = self.metadata.fetch()
        return any(cluster.partition_count_for_topic(t) != n for t, n in self.assignment_snapshot.items())

    # ---------------------------------------------------------------- offsets

    # Kafka: ConsumerCoordinator.refreshCommittedOffsetsIfNeeded
    def refresh_committed_offsets_if_needed(self, timeout_ms: int) -> bool:
        initializing = self.subscriptions.initializing_partitions()
        if not initializing:
            return True
        offsets = self.fetch_committed_offsets(set(initializing), timeout_ms)
        if offsets is None:
            return False
        for tp, committed in offsets.items():
            if committed is not None and self.subscriptions.is_assigned(tp):
                log.info("Setting offset for partition %s to the committed offset %d", tp, committed.offset)
                self.subscriptions.seek(tp, committed.offset)
        return True

    # Kafka: ConsumerCoordinator.fetchCommittedOffsets -- None on timeout
    def fetch_committed_offsets(self, partitions: set[TopicPartition], timeout_ms: int
                                ) -> dict[TopicPartition, OffsetAndMetadata | None] | None:
        if not partitions:
            return {}
        deadline = self.time.milliseconds() + timeout_ms
        while True:
            if not self.ensure_coordinator_ready(max(0, deadline - self.time.milliseconds())):
                return None
            future = self.send_offset_fetch_request(partitions)
            self.client.poll_future(future, max(0, deadline - self.time.milliseconds()))
            if future.succeeded():
                return future.value()
            if future.is_done() and not future.is_retriable():
                raise future.exception()
            if self.time.milliseconds() >= deadline:
                return None
            self.client.poll(self.retry_backoff_ms)

    # Kafka: ConsumerCoordinator.sendOffsetFetchRequest
    def send_offset_fetch_request(self, partitions: set[TopicPartition]) -> RequestFuture:
        by_topic: dict[str, list[int]] = {}
        for tp in partitions:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        request = OffsetFetchRequest(group_id=self.group_id, topics=[
            OffsetFetchRequestTopic(name=t, partition_indexes=sorted(ps)) for t, ps in by_topic.items()],
            require_stable=True)
        result = RequestFuture()

        def on_response(response):
            error = Errors.for_code(response.error_code)
            if error is not Errors.NONE:
                if error in (Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE):
                    self.mark_coordinator_unknown(error.name)
                result.raise_(error.exception(f"OffsetFetch failed: {error.name}"))
                return
            offsets: dict[TopicPartition, OffsetAndMetadata | None] = {}
            for topic in response.topics:
                for p in topic.partitions:
                    tp = TopicPartition(topic.name, p.partition_index)
                    p_error = Errors.for_code(p.error_code)
                    if p_error is not Errors.NONE:
                        result.raise_(p_error.exception(f"OffsetFetch for {tp} failed: {p_error.name}"))
                        return
                    offsets[tp] = OffsetAndMetadata(p.committed_offset, p.metadata or "") \
                        if p.committed_offset >= 0 else None
            result.complete(offsets)

        self.client.send(self.coordinator, ApiKeys.OFFSET_FETCH, request).add_listener(
            on_response, lambda e: self._fail_request(e, result))
        return result

    # Kafka: ConsumerCoordinator.sendOffsetCommitRequest
    def send_offset_commit_request(self, offsets: dict[TopicPartition, OffsetAndMetadata]) -> RequestFuture:
        if not offsets:
            return _completed()
        if self.coordinator_unknown():
            return RequestFuture.failure(Errors.COORDINATOR_NOT_AVAILABLE.exception())
        generation = self.generation_if_stable() if self.subscriptions.partitions_auto_assigned() else None
        if self.subscriptions.partitions_auto_assigned() and generation is None:
            # Kafka: CommitFailedException -- the group rebalanced, these partitions may have moved
            return RequestFuture.failure(Errors.REBALANCE_IN_PROGRESS.exception(
                "Offset commit cannot be completed since the consumer is not part of an active group"))
        by_topic: dict[str, list[OffsetCommitRequestPartition]] = {}
        for tp, om in offsets.items():
            by_topic.setdefault(tp.topic, []).append(OffsetCommitRequestPartition(
                partition_index=tp.partition, committed_offset=om.offset, committed_metadata=om.metadata))
        request = OffsetCommitRequest(
            group_id=self.group_id,
            generation_id=generation.generation_id if generation else -1,
            member_id=generation.member_id if generation else "",
            group_instance_id=self.group_instance_id,
            topics=[OffsetCommitRequestTopic(name=t, partitions=ps) for t, ps in by_topic.items()])
        result = RequestFuture()

        def on_response(response):
            for topic in response.topics:
                for p in topic.partitions:
                    error = Errors.for_code(p.error_code)
                    if error is Errors.NONE:
                        continue
                    if error in (Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE):
                        self.mark_coordinator_unknown(error.name)
                    elif error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION, Errors.REBALANCE_IN_PROGRESS):
                        self.reset_generation()
                    result.raise_(error.exception(f"Commit of {topic.name}-{p.partition_index} failed: {error.name}"))
                    return
            log.debug("Committed offsets %s", offsets)
            result.complete(None)

        self.client.send(self.coordinator, ApiKeys.OFFSET_COMMIT, request).add_listener(
            on_response, lambda e: self._fail_request(e, result))
        return result

    # Kafka: ConsumerCoordinator.commitOffsetsSync -- True once committed, False on timeout
    def commit_offsets_sync(self, offsets: dict[TopicPartition, OffsetAndMetadata], timeout_ms: int) -> bool:
        if not offsets:
            return True
        deadline = self.time.milliseconds() + timeout_ms
        while True:
            if not self.ensure_coordinator_ready(max(0, deadline - self.time.milliseconds())):
                return False
            future = self.send_offset_commit_request(offsets)
            self.client.poll_future(future, max(0, deadline - self.time.milliseconds()))
            if future.succeeded():
                return True
            if future.is_done() and not future.is_retriable():
                raise future.exception()
            if self.time.milliseconds() >= deadline:
                return False
            self.client.poll(self.retry_backoff_ms)

    # Kafka: ConsumerCoordinator.commitOffsetsAsync -- callback(offsets, exception or None)
    def commit_offsets_async(self, offsets: dict[TopicPartition, OffsetAndMetadata], callback=None) -> RequestFuture:
        if self.coordinator_unknown():
            self.lookup_coordinator()
        future = self.send_offset_commit_request(offsets)
        if callback is not None:
            future.add_listener(lambda _: callback(offsets, None), lambda e: callback(offsets, e))
        else:
            future.add_listener(lambda _: None, lambda e: log.warning("Asynchronous auto-commit of offsets %s "
                                                                      "failed: %s", offsets, e))
        self.client.poll(0)
        return future

    def _all_consumed(self) -> dict[TopicPartition, OffsetAndMetadata]:
        return {tp: OffsetAndMetadata(offset) for tp, offset in self.subscriptions.all_consumed().items()}

    # Kafka: ConsumerCoordinator.maybeAutoCommitOffsetsAsync
    def maybe_auto_commit_offsets_async(self, now: int) -> None:
        if self.auto_commit_enabled and now >= self.next_auto_commit_deadline:
            self.next_auto_commit_deadline = now + self.auto_commit_interval_ms
            offsets = self._all_consumed()
            if offsets and not self.coordinator_unknown():
                self.commit_offsets_async(offsets)

    # Kafka: ConsumerCoordinator.maybeAutoCommitOffsetsSync
    def maybe_auto_commit_offsets_sync(self, timeout_ms: int) -> None:
        if self.auto_commit_enabled:
            offsets = self._all_consumed()
            try:
                if offsets and not self.commit_offsets_sync(offsets, timeout_ms):
                    log.debug("Auto-commit of offsets %s timed out before completion", offsets)
            except ApiException as e:
                log.warning("Synchronous auto-commit of offsets %s failed: %s", offsets, e)

    # Kafka: ConsumerCoordinator.close
    def close(self, timeout_ms: int = 5000) -> None:
        self.maybe_auto_commit_offsets_sync(timeout_ms)
        super().close(timeout_ms)


def _completed() -> RequestFuture:
    future = RequestFuture()
    future.complete(None)
    return future

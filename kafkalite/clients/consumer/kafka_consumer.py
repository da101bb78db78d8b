"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/KafkaConsumer.java

Classes: KafkaConsumer.

    consumer = KafkaConsumer({"bootstrap.servers": "localhost:9092", "group.id": "g",
                              "auto.offset.reset": "earliest"})
    consumer.subscribe(["orders"])           # or consumer.assign([TopicPartition("orders", 0)])
    for record in consumer.poll(1000): ...
    consumer.commit_sync(); consumer.close()

Its parts, as in Kafka: ``ConsumerMetadata`` (the cluster), ``SubscriptionState`` (what to read and from
where), ``Fetcher`` (Fetch and ListOffsets), ``ConsumerCoordinator`` (the group and its offsets, with a
heartbeat thread), all talking through one ``ConsumerNetworkClient`` over kafkalite's ``NetworkClient``
and ``Selector`` -- the broker's own network classes (S48).

``poll(timeout_ms)``: (1) ``coordinator.poll`` -- join or rejoin the group, auto-commit; (2)
``update_fetch_positions`` -- committed offsets for new partitions, then ListOffsets for the rest by
``auto.offset.reset``; (3) return buffered records if any (sending the next fetches first, Kafka's
pipelining), else send fetches and poll the network until records arrive or the time is up.

Configs (Kafka's names and defaults): bootstrap.servers, group.id, client.id, auto.offset.reset (latest),
enable.auto.commit (true), auto.commit.interval.ms (5000), isolation.level (read_uncommitted),
fetch.min.bytes (1), fetch.max.bytes, fetch.max.wait.ms (500), max.partition.fetch.bytes, max.poll.records
(500), max.poll.interval.ms (300000), partition.assignment.strategy (range; names or assignor objects:
range, roundrobin, cooperative-sticky), session.timeout.ms (10000), heartbeat.interval.ms (3000),
request.timeout.ms (30000), retry.backoff.ms (100), metadata.max.age.ms (300000),
allow.auto.create.topics (true),
key.deserializer / value.deserializer (callables ``f(bytes)`` or objects with ``deserialize(topic, data)``).

Era notes: one thread per consumer as in Kafka (not thread-safe; only ``wakeup`` is, and here it only
interrupts the current network wait). Left out: pattern subscriptions, pause/resume callbacks beyond the
flags, offsetsForTimes, interceptors, metrics, ``group.instance.id`` beyond passing it on.
"""
from __future__ import annotations

import logging

from kafkalite.clients.client_utils import (SECURITY_CONFIG_DEFAULTS, create_channel_builder,
                                            parse_and_validate_addresses)
from kafkalite.clients.consumer.consumer_record import OffsetAndMetadata
from kafkalite.clients.consumer.consumer_records import ConsumerRecords
from kafkalite.clients.consumer.cooperative_sticky_assignor import CooperativeStickyAssignor
from kafkalite.clients.consumer.internals.consumer_coordinator import ConsumerCoordinator
from kafkalite.clients.consumer.internals.consumer_metadata import ConsumerMetadata
from kafkalite.clients.consumer.internals.consumer_network_client import ConsumerNetworkClient
from kafkalite.clients.consumer.internals.fetcher import (
    EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, READ_COMMITTED, READ_UNCOMMITTED, Fetcher,
)
from kafkalite.clients.consumer.internals.subscription_state import OffsetResetStrategy, SubscriptionState
from kafkalite.clients.consumer.range_assignor import RangeAssignor
from kafkalite.clients.consumer.round_robin_assignor import RoundRobinAssignor
from kafkalite.clients.metadata import DefaultMetadataUpdater
from kafkalite.clients.network_client import NetworkClient
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.network.selector import Selector
from kafkalite.protocol.errors import Errors
from kafkalite.utils.time import SYSTEM

log = logging.getLogger("kafka.clients.consumer.KafkaConsumer")

ASSIGNORS = {"range": RangeAssignor, "roundrobin": RoundRobinAssignor,
             "cooperative-sticky": CooperativeStickyAssignor,
             # Kafka's class names work too
             "org.apache.kafka.clients.consumer.RangeAssignor": RangeAssignor,
             "org.apache.kafka.clients.consumer.RoundRobinAssignor": RoundRobinAssignor,
             "org.apache.kafka.clients.consumer.CooperativeStickyAssignor": CooperativeStickyAssignor}

DEFAULTS = {
    "client.id": "", "group.id": None, "auto.offset.reset": "latest", "enable.auto.commit": True,
    "auto.commit.interval.ms": 5000, "isolation.level": "read_uncommitted", "fetch.min.bytes": 1,
    "fetch.max.bytes": 52428800, "fetch.max.wait.ms": 500, "max.partition.fetch.bytes": 1048576,
    "max.poll.records": 500, "max.poll.interval.ms": 300000, "partition.assignment.strategy": "range",
    "session.timeout.ms": 10000, "heartbeat.interval.ms": 3000, "request.timeout.ms": 30000,
    "default.api.timeout.ms": 60000, "retry.backoff.ms": 100, "reconnect.backoff.ms": 50,
    "reconnect.backoff.max.ms": 1000, "metadata.max.age.ms": 300000, "allow.auto.create.topics": True,
    "group.instance.id": None, "key.deserializer": None, "value.deserializer": None,
    **SECURITY_CONFIG_DEFAULTS,
}
_CONSUMER_CLIENT_ID_SEQUENCE = [0]


def _bool(v) -> bool:
    return v if isinstance(v, bool) else str(v).strip().lower() == "true"


class KafkaConsumer:
    """Kafka: KafkaConsumer."""

    def __init__(self, configs: dict | None = None, key_deserializer=None, value_deserializer=None,
                 time=SYSTEM, **kwargs):
        config = dict(DEFAULTS)
        config.update(configs or {})
        config.update({k.replace("_", "."): v for k, v in kwargs.items()})
        if "bootstrap.servers" not in config:
            raise ValueError("Missing required configuration \"bootstrap.servers\" which has no default value.")
        self.config = config
        self.time = time
        self.group_id = config["group.id"]
        if not config["client.id"]:
            _CONSUMER_CLIENT_ID_SEQUENCE[0] += 1
            config["client.id"] = f"consumer-{self.group_id or ''}-{_CONSUMER_CLIENT_ID_SEQUENCE[0]}" \
                if self.group_id else f"consumer-{_CONSUMER_CLIENT_ID_SEQUENCE[0]}"
        self.client_id = config["client.id"]
        self.request_timeout_ms = int(config["request.timeout.ms"])
        self.default_api_timeout_ms = int(config["default.api.timeout.ms"])
        isolation = config["isolation.level"]
        self.isolation_level = READ_COMMITTED if isolation == "read_committed" else READ_UNCOMMITTED
        log_context = f"[Consumer clientId={self.client_id}, groupId={self.group_id}] "
        self.metadata = ConsumerMetadata(int(config["retry.backoff.ms"]), int(config["metadata.max.age.ms"]),
                                         _bool(config["allow.auto.create.topics"]), time)
        self.metadata.bootstrap(parse_and_validate_addresses(config["bootstrap.servers"]))
        updater = DefaultMetadataUpdater(self.metadata, int(config["reconnect.backoff.ms"]), self.request_timeout_ms)
        selector = Selector(time=time, log_context=log_context,
                            channel_builder=create_channel_builder(config, time))
        network_client = NetworkClient(selector, updater, client_id=self.client_id,
                                       max_in_flight_requests_per_connection=100,
                                       reconnect_backoff_ms=int(config["reconnect.backoff.ms"]),
                                       reconnect_backoff_max_ms=int(config["reconnect.backoff.max.ms"]),
                                       request_timeout_ms=self.request_timeout_ms, time=time,
                                       log_context=log_context)
        updater.client = network_client
        self.client = ConsumerNetworkClient(network_client, self.metadata, time, self.request_timeout_ms)
        self.subscriptions = SubscriptionState(OffsetResetStrategy(config["auto.offset.reset"]))
        self.fetcher = Fetcher(self.client, self.metadata, self.subscriptions,
                               fetch_min_bytes=int(config["fetch.min.bytes"]),
                               fetch_max_bytes=int(config["fetch.max.bytes"]),
                               fetch_max_wait_ms=int(config["fetch.max.wait.ms"]),
                               max_partition_fetch_bytes=int(config["max.partition.fetch.bytes"]),
                               max_poll_records=int(config["max.poll.records"]),
                               key_deserializer=key_deserializer or config["key.deserializer"],
                               value_deserializer=value_deserializer or config["value.deserializer"],
                               isolation_level=self.isolation_level, request_timeout_ms=self.request_timeout_ms)
        self.coordinator: ConsumerCoordinator | None = None
        if self.group_id:
            self.coordinator = ConsumerCoordinator(
                self.client, self.metadata, self.subscriptions, self._assignors(config["partition.assignment.strategy"]),
                self.group_id, time, enable_auto_commit=_bool(config["enable.auto.commit"]),
                auto_commit_interval_ms=int(config["auto.commit.interval.ms"]),
                session_timeout_ms=int(config["session.timeout.ms"]),
                rebalance_timeout_ms=int(config["max.poll.interval.ms"]),
                heartbeat_interval_ms=int(config["heartbeat.interval.ms"]),
                retry_backoff_ms=int(config["retry.backoff.ms"]),
                group_instance_id=config["group.instance.id"])
        self.closed = False
        log.info("%sKafka consumer started", log_context)

    @staticmethod
    def _assignors(strategy) -> list:
        if isinstance(strategy, str):
            strategy = [s.strip() for s in strategy.split(",") if s.strip()]
        elif not isinstance(strategy, (list, tuple)):
            strategy = [strategy]
        out = []
        for s in strategy:
            if isinstance(s, str):
                if s not in ASSIGNORS:
                    raise ValueError(f"Invalid value {s} for configuration partition.assignment.strategy")
                out.append(ASSIGNORS[s]())
            else:
                out.append(s() if isinstance(s, type) else s)
        return out

    # ---------------------------------------------------------------- subscriptions

    # Kafka: KafkaConsumer.subscribe(Collection<String>, ConsumerRebalanceListener)
    def subscribe(self, topics, listener=None) -> None:
        self._acquire_and_ensure_open()
        if self.coordinator is None:
            raise Errors.INVALID_GROUP_ID.exception(
                "To use the group management or offset commit APIs, you must provide a valid group.id "
                "in the consumer configuration.")
        topics = list(topics)
        if not topics:
            self.unsubscribe()
            return
        for t in topics:
            if not t or not t.strip():
                raise ValueError("Topic collection to subscribe to cannot contain null or empty topic")
        self.fetcher.clear_buffered_data_for_unassigned_partitions(self.subscriptions.assigned_partitions())
        if self.subscriptions.subscribe(topics, listener):
            self.metadata.topics = set(self.subscriptions.group_subscription)
            self.metadata.request_update()
            self.coordinator.request_rejoin()

    # Kafka: KafkaConsumer.assign
    def assign(self, partitions) -> None:
        self._acquire_and_ensure_open()
        partitions = list(partitions)
        if not partitions:
            self.unsubscribe()
            return
        self.fetcher.clear_buffered_data_for_unassigned_partitions(set(partitions))
        if self.coordinator is not None:
            self.coordinator.maybe_auto_commit_offsets_async(self.time.milliseconds())
        if self.subscriptions.assign_from_user(partitions):
            self.metadata.topics = {tp.topic for tp in partitions}
            self.metadata.request_update()

    # Kafka: KafkaConsumer.unsubscribe
    def unsubscribe(self) -> None:
        self.fetcher.clear_buffered_data_for_unassigned_partitions(set())
        if self.coordinator is not None:
            self.coordinator.on_join_prepare(self.coordinator.generation.generation_id,
                                             self.coordinator.generation.member_id)
            self.coordinator.maybe_leave_group(self.request_timeout_ms)
        self.subscriptions.unsubscribe()
        self.metadata.topics = set()

    # Kafka: KafkaConsumer.assignment / subscription
    def assignment(self) -> set[TopicPartition]:
        return self.subscriptions.assigned_partitions()

    def subscription(self) -> set[str]:
        return set(self.subscriptions.subscription)

    # ---------------------------------------------------------------- poll

    # Kafka: KafkaConsumer.poll(Duration)
    def poll(self, timeout_ms: int = 0) -> ConsumerRecords:
        self._acquire_and_ensure_open()
        if not self.subscriptions.subscription and not self.subscriptions.assigned_partitions():
            raise RuntimeError("Consumer is not subscribed to any topics or assigned any partitions")
        deadline = self.time.milliseconds() + int(timeout_ms)
        while True:
            remaining = max(0, deadline - self.time.milliseconds())
            if self.update_assignment_metadata_if_needed(remaining):
                records = self.poll_for_fetches(max(0, deadline - self.time.milliseconds()))
                if records:
                    # Kafka: send the next round of fetches before handing the records out
                    self.fetcher.send_fetches()
                    self.client.poll(0)
                    return ConsumerRecords(records)
            if self.time.milliseconds() >= deadline:
                return ConsumerRecords.empty()

    # Kafka: KafkaConsumer.updateAssignmentMetadataIfNeeded
    def update_assignment_metadata_if_needed(self, timeout_ms: int) -> bool:
        if self.coordinator is not None and not self.coordinator.poll(timeout_ms):
            return False
        if self.metadata.update_requested():
            self.client.await_metadata_update(min(timeout_ms, self.request_timeout_ms))
        return self.update_fetch_positions(timeout_ms)

    # Kafka: KafkaConsumer.updateFetchPositions
    def update_fetch_positions(self, timeout_ms: int) -> bool:
        if self.subscriptions.has_all_fetch_positions():
            return True
        if self.coordinator is not None and not self.coordinator.refresh_committed_offsets_if_needed(timeout_ms):
            return False
        missing = self.subscriptions.reset_missing_positions()
        if missing:
            raise Errors.OFFSET_OUT_OF_RANGE.exception(
                f"Undefined offset with no reset policy for partitions: {sorted(map(str, missing))}")
        self.fetcher.reset_offsets_if_needed()
        return True

    # Kafka: KafkaConsumer.pollForFetches
    def poll_for_fetches(self, timeout_ms: int) -> dict:
        records = self.fetcher.fetched_records()
        if records:
            return records
        self.fetcher.send_fetches()
        poll_timeout = timeout_ms
        if self.coordinator is not None and self.coordinator.state.name == "STABLE":
            poll_timeout = min(poll_timeout, self.coordinator.heartbeat.time_to_next_heartbeat(
                self.time.milliseconds()) or poll_timeout)
        if not self.subscriptions.has_all_fetch_positions():
            poll_timeout = min(poll_timeout, self.config["retry.backoff.ms"])
        self.client.poll(poll_timeout)
        return self.fetcher.fetched_records()

    # ---------------------------------------------------------------- positions

    # Kafka: KafkaConsumer.seek
    def seek(self, partition: TopicPartition, offset: int) -> None:
        if offset < 0:
            raise ValueError("seek offset must not be a negative number")
        log.info("Seeking to offset %d for partition %s", offset, partition)
        self.subscriptions.seek(partition, offset)

    # Kafka: KafkaConsumer.seekToBeginning / seekToEnd (lazy: the next poll or position resets)
    def seek_to_beginning(self, partitions=None) -> None:
        for tp in (partitions if partitions is not None else self.subscriptions.assigned_partitions()):
            self.subscriptions.request_offset_reset(tp, OffsetResetStrategy.EARLIEST)

    def seek_to_end(self, partitions=None) -> None:
        for tp in (partitions if partitions is not None else self.subscriptions.assigned_partitions()):
            self.subscriptions.request_offset_reset(tp, OffsetResetStrategy.LATEST)

    # Kafka: KafkaConsumer.position -- blocks until the position is known
    def position(self, partition: TopicPartition, timeout_ms: int | None = None) -> int:
        self._acquire_and_ensure_open()
        if not self.subscriptions.is_assigned(partition):
            raise RuntimeError("You can only check the position for partitions assigned to this consumer.")
        deadline = self.time.milliseconds() + (self.default_api_timeout_ms if timeout_ms is None else timeout_ms)
        while not self.subscriptions.has_valid_position(partition):
            if self.metadata.update_requested() or self.metadata.fetch().leader_for(partition) is None:
                self.metadata.topics.add(partition.topic)
                self.client.await_metadata_update(max(0, deadline - self.time.milliseconds()))
            self.update_fetch_positions(max(0, deadline - self.time.milliseconds()))
            self.client.poll(max(0, min(100, deadline - self.time.milliseconds())))
            if self.time.milliseconds() >= deadline and not self.subscriptions.has_valid_position(partition):
                raise Errors.REQUEST_TIMED_OUT.exception(
                    f"Timeout of {timeout_ms}ms expired before the position for partition {partition} "
                    f"could be determined")
        return self.subscriptions.position(partition)

    # Kafka: KafkaConsumer.committed
    def committed(self, partitions, timeout_ms: int | None = None):
        """A set of partitions gives {tp: OffsetAndMetadata or None}; one partition gives one value."""
        single = isinstance(partitions, TopicPartition)
        wanted = {partitions} if single else set(partitions)
        if self.coordinator is None:
            raise Errors.INVALID_GROUP_ID.exception("committed() needs a group.id")
        offsets = self.coordinator.fetch_committed_offsets(
            wanted, self.default_api_timeout_ms if timeout_ms is None else timeout_ms)
        if offsets is None:
            raise Errors.REQUEST_TIMED_OUT.exception("Timeout expired while fetching committed offsets")
        return offsets.get(partitions) if single else {tp: offsets.get(tp) for tp in wanted}

    # Kafka: KafkaConsumer.beginningOffsets / endOffsets
    def beginning_offsets(self, partitions, timeout_ms: int | None = None) -> dict[TopicPartition, int]:
        return self.fetcher.fetch_offsets_by_times({tp: EARLIEST_TIMESTAMP for tp in partitions},
                                                   self.default_api_timeout_ms if timeout_ms is None else timeout_ms)

    def end_offsets(self, partitions, timeout_ms: int | None = None) -> dict[TopicPartition, int]:
        return self.fetcher.fetch_offsets_by_times({tp: LATEST_TIMESTAMP for tp in partitions},
                                                   self.default_api_timeout_ms if timeout_ms is None else timeout_ms)

    # Kafka: KafkaConsumer.partitionsFor
    def partitions_for(self, topic: str, timeout_ms: int | None = None):
        self.metadata.topics.add(topic)
        self.client.await_metadata_update(self.default_api_timeout_ms if timeout_ms is None else timeout_ms)
        return self.metadata.fetch().partitions_for_topic(topic)

    # Kafka: KafkaConsumer.pause / resume / paused
    def pause(self, partitions) -> None:
        for tp in partitions:
            self.subscriptions.pause(tp)

    def resume(self, partitions) -> None:
        for tp in partitions:
            self.subscriptions.resume(tp)

    def paused(self) -> set[TopicPartition]:
        return self.subscriptions.paused_partitions()

    # ---------------------------------------------------------------- commits

    def _offsets_arg(self, offsets) -> dict[TopicPartition, OffsetAndMetadata]:
        if offsets is None:
            return {tp: OffsetAndMetadata(o) for tp, o in self.subscriptions.all_consumed().items()}
        return {tp: om if isinstance(om, OffsetAndMetadata) else OffsetAndMetadata(int(om))
                for tp, om in offsets.items()}

    # Kafka: KafkaConsumer.commitSync
    def commit_sync(self, offsets=None, timeout_ms: int | None = None) -> None:
        self._acquire_and_ensure_open()
        if self.coordinator is None:
            raise Errors.INVALID_GROUP_ID.exception("commit_sync() needs a group.id")
        timeout = self.default_api_timeout_ms if timeout_ms is None else timeout_ms
        if not self.coordinator.commit_offsets_sync(self._offsets_arg(offsets), timeout):
            raise Errors.REQUEST_TIMED_OUT.exception(
                f"Timeout of {timeout}ms expired before successfully committing offsets")

    # Kafka: KafkaConsumer.commitAsync -- callback(offsets, exception or None) runs in a later poll
    def commit_async(self, offsets=None, callback=None):
        self._acquire_and_ensure_open()
        if self.coordinator is None:
            raise Errors.INVALID_GROUP_ID.exception("commit_async() needs a group.id")
        return self.coordinator.commit_offsets_async(self._offsets_arg(offsets), callback)

    # ---------------------------------------------------------------- lifecycle

    # Kafka: KafkaConsumer.wakeup
    def wakeup(self) -> None:
        self.client.wakeup()

    # Kafka: KafkaConsumer.close
    def close(self, timeout_ms: int = 30000) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if self.coordinator is not None:
                self.coordinator.close(min(timeout_ms, self.request_timeout_ms))
        finally:
            self.client.close()
        log.debug("Kafka consumer has been closed")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _acquire_and_ensure_open(self) -> None:
        if self.closed:
            raise RuntimeError("This consumer has already been closed.")

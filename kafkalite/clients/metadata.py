"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/Metadata.java
(with producer/internals/ProducerMetadata.java folded in, and NetworkClient.DefaultMetadataUpdater)

Classes: Metadata -- the client's current ``Cluster`` and the bookkeeping that says when to refresh it;
DefaultMetadataUpdater -- the ``MetadataUpdater`` a NetworkClient calls from ``poll`` to send Metadata
requests and feed the answers back into ``Metadata``.

One Metadata serves every kafkalite client: the producer uses it as it is; the consumer through its thin
subclass ``ConsumerMetadata`` (its own topics, ``allow.auto.create.topics``); the admin client keeps one as
Kafka's AdminMetadataManager does, fed by the Metadata requests it sends itself.

How a producer learns the cluster (S40):
- ``bootstrap`` puts the ``bootstrap.servers`` addresses in as nodes -1, -2, ... and sets
  ``need_full_update``, so the network thread's first ``poll`` sends a Metadata request;
- ``time_to_next_update`` is 0 when an update was requested, otherwise what is left of
  ``metadata.max.age.ms`` (5 minutes) since the last successful refresh; never sooner than
  ``retry.backoff.ms`` after the last attempt;
- ``send()`` on the caller's thread adds its topic, calls ``request_update`` and waits in
  ``await_update`` on a condition variable (Java's wait/notify); ``update`` on the network thread
  installs the new ``Cluster``, bumps ``update_version`` and wakes every waiter.

Era notes: the flag is called ``need_full_update`` as in Kafka 2.5+ (2.4 calls it ``needUpdate``; 2.5
added partial updates for new topics, which kafkalite does not do: every request asks for all the
producer's topics). ``add``/``await_update`` live in ProducerMetadata in Kafka; here they are on Metadata.
Left out: leader-epoch tracking (``updateLastSeenEpochIfNewer``), topic expiry after 5 idle minutes,
cluster resource listeners. Fatal errors are authentication failures only (Kafka also counts a
TopicAuthorizationException of a metadata answer).
"""
from __future__ import annotations

import logging
import threading

from kafkalite.clients.cluster import Cluster, PartitionInfo
from kafkalite.clients.network_client import MetadataUpdater
from kafkalite.clients.node import Node
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.metadata import MetadataRequest, MetadataRequestTopic
from kafkalite.utils.time import SYSTEM, Time

log = logging.getLogger("kafka.producer.Metadata")
_MAX = 2 ** 63 - 1


class Metadata:
    """Kafka: Metadata (+ ProducerMetadata's topic set and awaitUpdate)."""

    # Kafka: Metadata.<init>
    def __init__(self, refresh_backoff_ms: int = 100, metadata_expire_ms: int = 300_000, time: Time = SYSTEM):
        self.refresh_backoff_ms = refresh_backoff_ms
        self.metadata_expire_ms = metadata_expire_ms       # metadata.max.age.ms
        self.time = time
        self.update_version = 0      # bumped by every successful update
        self.request_version = 0     # bumped by every request_update
        self.last_refresh_ms = 0
        self.last_successful_refresh_ms = 0
        self.need_full_update = False
        self.cache = Cluster.empty()
        self.topics: set[str] = set()
        self.is_closed = False
        self.fatal_exception: Exception | None = None   # Kafka: Metadata.fatalException
        self.condition = threading.Condition()

    # Kafka: Metadata.bootstrap
    def bootstrap(self, addresses: list[tuple[str, int]]) -> None:
        with self.condition:
            self.need_full_update = True
            self.update_version += 1
            self.cache = Cluster.bootstrap(addresses)

    # Kafka: Metadata.fetch -- the current snapshot; never blocks
    def fetch(self) -> Cluster:
        return self.cache

    # Kafka: Metadata.timeToAllowUpdate
    def time_to_allow_update(self, now_ms: int) -> int:
        return max(self.last_refresh_ms + self.refresh_backoff_ms - now_ms, 0)

    # Kafka: Metadata.timeToNextUpdate -- 0 means "send a Metadata request now"
    def time_to_next_update(self, now_ms: int) -> int:
        if self.need_full_update:
            time_to_expire = 0
        else:
            time_to_expire = max(self.last_successful_refresh_ms + self.metadata_expire_ms - now_ms, 0)
        return max(time_to_expire, self.time_to_allow_update(now_ms))

    # Kafka: Metadata.requestUpdate -- returns the version a waiter must see exceeded
    def request_update(self) -> int:
        with self.condition:
            self.need_full_update = True
            self.request_version += 1
            return self.update_version

    # Kafka: Metadata.updateRequested
    def update_requested(self) -> bool:
        return self.need_full_update

    # Kafka: ProducerMetadata.add -- a topic the producer now cares about
    def add(self, topic: str) -> None:
        with self.condition:
            if topic not in self.topics:
                self.topics.add(topic)
                self.need_full_update = True
                self.request_version += 1

    # Kafka: Metadata.newMetadataRequestBuilder (ProducerMetadata's: only our topics)
    def new_metadata_request(self) -> MetadataRequest:
        return MetadataRequest(topics=[MetadataRequestTopic(name=t) for t in sorted(self.topics)],
                               allow_auto_topic_creation=True)

    # Kafka: Metadata.update(requestVersion, MetadataResponse, isPartialUpdate, nowMs)
    def update(self, request_version: int, response, now_ms: int) -> None:
        with self.condition:
            if self.is_closed:
                raise RuntimeError("Update requested after metadata close")
            # A request_update() since this request was sent still wants a fresh answer.
            self.need_full_update = request_version < self.request_version
            self.last_refresh_ms = now_ms
            self.last_successful_refresh_ms = now_ms
            self.update_version += 1
            self.cache = self.cluster_from_response(response)
            log.debug("Updated cluster metadata updateVersion %d to %s", self.update_version, self.cache)
            self.condition.notify_all()   # Kafka: ProducerMetadata.update -> notifyAll()

    # Kafka: Metadata.failedUpdate -- back off before the next attempt; a fatal exception (a failed authentication)
    # is kept for the caller's thread, which raises it from its next wait or poll
    def failed_update(self, now_ms: int, fatal_exception: Exception | None = None) -> None:
        with self.condition:
            self.last_refresh_ms = now_ms
            self.fatal_exception = fatal_exception
            if fatal_exception is not None:
                self.condition.notify_all()

    # Kafka: Metadata.maybeThrowAnyException -- raise (once) what failed_update kept
    def maybe_throw_any_exception(self) -> None:
        exception, self.fatal_exception = self.fatal_exception, None
        if exception is not None:
            raise exception

    # Kafka: MetadataResponse.cluster (what Metadata.handleMetadataResponse builds)
    @staticmethod
    def cluster_from_response(response) -> Cluster:
        nodes = {b.node_id: Node(b.node_id, b.host, b.port, b.rack) for b in response.brokers}
        partitions, internal, unauthorized, invalid = [], [], [], []
        for topic in response.topics:
            error = Errors.for_code(topic.error_code)
            if error is Errors.TOPIC_AUTHORIZATION_FAILED:
                unauthorized.append(topic.name)
            elif error is Errors.INVALID_TOPIC_EXCEPTION:
                invalid.append(topic.name)
            if error is not Errors.NONE:
                continue
            if topic.is_internal:
                internal.append(topic.name)
            for p in topic.partitions:
                partitions.append(PartitionInfo(
                    topic.name, p.partition_index, nodes.get(p.leader_id),
                    tuple(nodes.get(r, Node(r, "", -1)) for r in p.replica_nodes),
                    tuple(nodes.get(r, Node(r, "", -1)) for r in p.isr_nodes),
                    tuple(nodes.get(r, Node(r, "", -1)) for r in (p.offline_replicas or []))))
        return Cluster(response.cluster_id, nodes.values(), partitions, unauthorized, invalid, internal,
                       nodes.get(response.controller_id))

    # Kafka: ProducerMetadata.awaitUpdate -- block the caller's thread until update_version > last_version
    def await_update(self, last_version: int, timeout_ms: int) -> None:
        deadline = self.time.milliseconds() + timeout_ms
        with self.condition:
            while self.update_version <= last_version and not self.is_closed:
                self.maybe_throw_any_exception()   # Kafka: ProducerMetadata.awaitUpdate throws fatal errors
                remaining = deadline - self.time.milliseconds()
                if remaining <= 0:
                    raise Errors.REQUEST_TIMED_OUT.exception(
                        f"Failed to update metadata after {timeout_ms} ms.")
                self.condition.wait(remaining / 1000.0)
            if self.is_closed:
                raise RuntimeError("Requested metadata update after close")

    # Kafka: Metadata.close
    def close(self) -> None:
        with self.condition:
            self.is_closed = True
            self.condition.notify_all()


class DefaultMetadataUpdater(MetadataUpdater):
    """Kafka: NetworkClient.DefaultMetadataUpdater -- sends Metadata requests from inside NetworkClient.poll.

    Kafka keeps it as an inner class of NetworkClient; ``network_client.py`` leaves it to this module, so the
    client is attached after both are built (``updater.client = network_client``).
    """

    def __init__(self, metadata: Metadata, reconnect_backoff_ms: int = 50, request_timeout_ms: int = 30000):
        self.metadata = metadata
        self.client = None
        self.reconnect_backoff_ms = reconnect_backoff_ms
        self.request_timeout_ms = request_timeout_ms
        self.in_progress: tuple[str, int] | None = None   # (node id, request_version) of the request on the wire

    # Kafka: DefaultMetadataUpdater.hasFetchInProgress
    def has_fetch_in_progress(self) -> bool:
        return self.in_progress is not None

    # Kafka: DefaultMetadataUpdater.isUpdateDue
    def is_update_due(self, now: int) -> bool:
        return not self.has_fetch_in_progress() and self.metadata.time_to_next_update(now) == 0

    # Kafka: DefaultMetadataUpdater.maybeUpdate(long) -- returns how long poll may sleep for metadata's sake
    def maybe_update(self, now: int) -> int:
        time_to_next = self.metadata.time_to_next_update(now)
        wait_for_fetch = self.request_timeout_ms if self.has_fetch_in_progress() else 0
        metadata_timeout = max(time_to_next, wait_for_fetch)
        if metadata_timeout > 0:
            return metadata_timeout
        node = self.client.least_loaded_node(self.metadata.fetch().nodes, now)
        if node is None:
            log.debug("Give up sending metadata request since no node is available")
            return self.reconnect_backoff_ms
        return self._maybe_update(now, node)

    # Kafka: DefaultMetadataUpdater.maybeUpdate(long, Node)
    def _maybe_update(self, now: int, node: Node) -> int:
        node_id = node.id_string
        if self.client.can_send_request(node_id, now):
            body = self.metadata.new_metadata_request()
            log.debug("Sending metadata request %s to node %s", body, node)
            request = self.client.new_client_request(node_id, ApiKeys.METADATA, body, created_time_ms=now)
            self.client.do_send(request, True, now)
            self.in_progress = (node_id, self.metadata.request_version)
            return self.request_timeout_ms
        if self.client.is_connecting(node):
            return self.reconnect_backoff_ms
        if self.client.connection_states.can_connect(node_id, now):
            log.debug("Initialize connection to node %s for sending metadata request", node)
            self.client.initiate_connect(node, now)
            return self.reconnect_backoff_ms
        return self.client.connection_delay(node, now) or self.reconnect_backoff_ms

    # Kafka: DefaultMetadataUpdater.handleDisconnection
    def handle_server_disconnect(self, now: int, node_id: str) -> None:
        if self.metadata.fetch().is_bootstrap_configured:
            log.warning("Bootstrap broker %s disconnected", node_id)
        if self.in_progress is not None and self.in_progress[0] == node_id:
            self.in_progress = None
            self.metadata.failed_update(now)

    # Kafka: DefaultMetadataUpdater.handleFatalException -- a wanted update fails for good: the caller hears it
    def handle_fatal_exception(self, exception: Exception) -> None:
        self.in_progress = None
        if self.metadata.update_requested():
            self.metadata.failed_update(self.metadata.time.milliseconds(), exception)

    # Kafka: DefaultMetadataUpdater.handleCompletedMetadataResponse
    def handle_successful_response(self, request_header, now: int, response) -> None:
        request_version = self.in_progress[1] if self.in_progress else self.metadata.request_version
        self.in_progress = None
        errors = {t.name: Errors.for_code(t.error_code).name for t in response.topics if t.error_code}
        if errors:
            log.warning("Error while fetching metadata with correlation id %d : %s",
                        request_header.correlation_id, errors)
        if not response.brokers:
            log.debug("Ignoring empty metadata response with correlation id %d.", request_header.correlation_id)
            self.metadata.failed_update(now)
        else:
            self.metadata.update(request_version, response, now)

    # Kafka: DefaultMetadataUpdater.requestUpdate
    def request_update(self) -> None:
        self.metadata.request_update()

    # Kafka: DefaultMetadataUpdater.close
    def close(self) -> None:
        self.metadata.close()

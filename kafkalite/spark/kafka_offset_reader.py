"""No Kafka counterpart: the broker-facing half of Spark's Kafka connector, rewritten for kafkalite's
``NetworkClient`` (Spark: connector/kafka-0-10-sql ``KafkaOffsetReaderAdmin`` for partitions and offsets,
``KafkaDataConsumer`` for record ranges).

Classes: KafkaOffsetReader -- a small blocking client that speaks three requests:
- Metadata, for the partitions of the subscribed topics and their leaders;
- ListOffsets, for the earliest offset (the log start offset) and the latest offset (the high watermark);
- Fetch, for one chunk of one partition's range at a time (never one request per record).
Every request goes to the partition's leader. A stale or dead leader (NOT_LEADER_FOR_PARTITION, a refused or
broken connection, no leader while the controller elects one) makes the reader forget it, back off
``retry.backoff.ms`` and ask the metadata again, until ``default.api.timeout.ms`` has passed -- what the
consumer and admin client under Spark's own Kafka connector do.

``offset_reader(bootstrap)`` hands out one reader per bootstrap string per process: Spark runs ``read()`` in
reused executor Python workers, so the connection outlives a task. Readers hold sockets, so the data source's
objects (which Spark pickles) never keep one; they look it up here.

Left out: consumer groups (Spark's source does not commit either), security protocols other than PLAINTEXT,
read_committed isolation, fetch sessions (each Fetch is a full, session-less request).
"""
from __future__ import annotations

import threading
import time

from kafkalite.clients.client_utils import parse_and_validate_addresses as parse_bootstrap_servers
from kafkalite.clients.network_client import NetworkClient
from kafkalite.clients.network_client_utils import NetworkClientUtils
from kafkalite.clients.node import Node
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.network.selector import Selector
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.fetch import FetchPartition, FetchRequest, FetchTopic
from kafkalite.protocol.messages.list_offsets import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from kafkalite.protocol.messages.metadata import MetadataRequest, MetadataRequestTopic

EARLIEST_TIMESTAMP = -2   # ListOffsets: the log start offset
LATEST_TIMESTAMP = -1     # ListOffsets: the high watermark

DEFAULT_API_TIMEOUT_MS = 60000   # Kafka: CommonClientConfigs / ConsumerConfig default.api.timeout.ms
RETRY_BACKOFF_MS = 100           # Kafka: CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG's default


class KafkaOffsetReader:
    """Partitions, offsets and record chunks, one blocking request at a time."""

    def __init__(self, bootstrap_servers: str, request_timeout_ms: int = 30000,
                 client_id: str = "kafkalite-spark", api_timeout_ms: int = DEFAULT_API_TIMEOUT_MS):
        self.bootstrap_nodes = [Node(-1 - i, host, port)
                                for i, (host, port) in enumerate(parse_bootstrap_servers(bootstrap_servers))]
        self.request_timeout_ms = request_timeout_ms
        self.api_timeout_ms = api_timeout_ms
        self.client = NetworkClient(Selector(log_context="[kafkalite-spark] "), None, client_id,
                                    max_in_flight_requests_per_connection=1,
                                    request_timeout_ms=request_timeout_ms, log_context="[kafkalite-spark] ")
        self.nodes: dict[int, Node] = {}
        self.leaders: dict[TopicPartition, int] = {}
        self.lock = threading.Lock()

    # ------------------------------------------------------------ plumbing

    def _send(self, node: Node, api_key: ApiKeys, body):
        """One request, one response. A connection that broke since the last request (Spark reuses this
        reader across tasks; the broker may have restarted) is reopened once before giving up."""
        for attempt in (1, 2):
            try:
                if self.client.connection_failed(node):   # wait out the reconnect backoff, as Kafka's clients do
                    self.client.poll(self.client.connection_delay(node, self.client.time.milliseconds()),
                                     self.client.time.milliseconds())
                if not NetworkClientUtils.await_ready(self.client, node, self.request_timeout_ms):
                    raise IOError(f"Broker {node.host}:{node.port} not ready within {self.request_timeout_ms} ms")
                request = self.client.new_client_request(node.id_string, api_key, body)
                response = NetworkClientUtils.send_and_receive(self.client, request)
                if response.timed_out:
                    raise IOError(f"{api_key.api_name} to {node.host}:{node.port} timed out")
                return response.response_body
            except IOError:
                self.client.disconnect(node.id_string)
                if attempt == 2:
                    raise

    def _any_node(self) -> Node:
        return next(iter(self.nodes.values()), None) or self.bootstrap_nodes[0]

    def _leader(self, tp: TopicPartition) -> Node:
        leader = self.leaders.get(tp)
        if leader is None or leader not in self.nodes:
            self.update_metadata([tp.topic])
            leader = self.leaders.get(tp)
        if leader is None or leader < 0 or leader not in self.nodes:
            raise Errors.LEADER_NOT_AVAILABLE.exception(f"No leader for {tp}")
        return self.nodes[leader]

    # ------------------------------------------------------------ metadata

    def update_metadata(self, topics: list[str] | None) -> dict[str, list[int]]:
        """Metadata for ``topics`` (``None``: every topic); returns topic -> sorted partition ids."""
        request = MetadataRequest(
            topics=None if topics is None else [MetadataRequestTopic(name=t) for t in topics],
            allow_auto_topic_creation=False)
        last_error: Exception | None = None
        for node in [self._any_node()] + self.bootstrap_nodes:
            try:
                response = self._send(node, ApiKeys.METADATA, request)
                break
            except IOError as e:
                last_error = e
        else:
            raise IOError(f"No broker of {self.bootstrap_nodes} answered Metadata: {last_error}")
        self.nodes = {b.node_id: Node(b.node_id, b.host, b.port, b.rack) for b in response.brokers}
        out = {}
        for topic in response.topics:
            if topic.error_code != 0 or (topics is None and topic.is_internal):
                continue
            out[topic.name] = sorted(p.partition_index for p in topic.partitions)
            for p in topic.partitions:
                self.leaders[TopicPartition(topic.name, p.partition_index)] = p.leader_id
        return out

    # Spark: KafkaOffsetReaderAdmin.partitionsAssignedToAdmin (via ConsumerStrategy.assignedTopicPartitions)
    def topic_partitions(self, topics: list[str] | None) -> list[TopicPartition]:
        with self.lock:
            by_topic = self.update_metadata(topics)
        return [TopicPartition(t, p) for t in sorted(by_topic) for p in by_topic[t]]

    # ------------------------------------------------------------ offsets

    def _retry_or_raise(self, deadline: float, what: str, cause: Exception) -> None:
        """Back off before another attempt, or give up with ``cause`` once ``default.api.timeout.ms`` passed."""
        if time.monotonic() >= deadline:
            raise Errors.REQUEST_TIMED_OUT.exception(
                f"{what}: no answer within {self.api_timeout_ms} ms; last error: {cause}") from cause
        time.sleep(RETRY_BACKOFF_MS / 1000)

    def list_offsets(self, partitions, timestamp: int) -> dict[TopicPartition, int]:
        """ListOffsets at ``timestamp`` (-2 earliest, -1 latest) for each partition, asked of its leader."""
        with self.lock:
            result: dict[TopicPartition, int] = {}
            pending = list(partitions)
            deadline = time.monotonic() + self.api_timeout_ms / 1000
            while pending:
                retry, cause = [], None
                by_leader: dict[int, list[TopicPartition]] = {}
                for tp in pending:
                    try:
                        by_leader.setdefault(self._leader(tp).id, []).append(tp)
                    except (IOError, Errors.LEADER_NOT_AVAILABLE.exception_class) as e:
                        retry.append(tp)
                        cause = e
                for leader, tps in by_leader.items():
                    by_topic: dict[str, list] = {}
                    for tp in tps:
                        by_topic.setdefault(tp.topic, []).append(
                            ListOffsetsPartition(partition_index=tp.partition, timestamp=timestamp))
                    try:
                        response = self._send(self.nodes[leader], ApiKeys.LIST_OFFSETS, ListOffsetsRequest(
                            replica_id=-1, topics=[ListOffsetsTopic(name=t, partitions=ps)
                                                   for t, ps in by_topic.items()]))
                    except IOError as e:       # the leader is gone: ask the metadata who leads now
                        for tp in tps:
                            self.leaders.pop(tp, None)
                        retry += tps
                        cause = e
                        continue
                    for topic in response.topics:
                        for p in topic.partitions:
                            tp = TopicPartition(topic.name, p.partition_index)
                            error = Errors.for_code(p.error_code)
                            if error is Errors.NONE:
                                result[tp] = p.offset
                            elif error.retriable:
                                self.leaders.pop(tp, None)
                                retry.append(tp)
                                cause = error.exception(f"ListOffsets for {tp}: {error.name}")
                            else:
                                raise error.exception(f"ListOffsets for {tp}: {error.name}")
                pending = retry
                if pending:
                    self._retry_or_raise(deadline, f"ListOffsets for {pending}", cause)
            return result

    # Spark: KafkaOffsetReaderAdmin.fetchEarliestOffsets
    def fetch_earliest_offsets(self, partitions) -> dict[TopicPartition, int]:
        return self.list_offsets(partitions, EARLIEST_TIMESTAMP)

    # Spark: KafkaOffsetReaderAdmin.fetchLatestOffsets
    def fetch_latest_offsets(self, partitions) -> dict[TopicPartition, int]:
        return self.list_offsets(partitions, LATEST_TIMESTAMP)

    # ------------------------------------------------------------ records

    # Spark: KafkaDataConsumer.fetchRecord (one Fetch for a whole chunk of the range)
    def fetch(self, tp: TopicPartition, offset: int, max_bytes: int):
        """One Fetch of ``tp`` from ``offset``; returns the response's PartitionData (error code untouched,
        except that a stale leader is retried)."""
        with self.lock:
            deadline = time.monotonic() + self.api_timeout_ms / 1000
            while True:
                request = FetchRequest(
                    replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=max_bytes, isolation_level=0,
                    session_id=0, session_epoch=-1, forgotten_topics_data=[],
                    topics=[FetchTopic(topic=tp.topic, partitions=[FetchPartition(
                        partition=tp.partition, fetch_offset=offset, partition_max_bytes=max_bytes)])])
                try:
                    response = self._send(self._leader(tp), ApiKeys.FETCH, request)
                except (IOError, Errors.LEADER_NOT_AVAILABLE.exception_class) as e:
                    self.leaders.pop(tp, None)
                    self._retry_or_raise(deadline, f"Fetch of {tp}", e)
                    continue
                if response.error_code != 0:
                    raise Errors.for_code(response.error_code).exception(f"Fetch of {tp} failed")
                data = response.responses[0].partitions[0]
                error = Errors.for_code(data.error_code)
                if error.retriable and error is not Errors.NONE:
                    self.leaders.pop(tp, None)
                    self._retry_or_raise(deadline, f"Fetch of {tp}", error.exception(error.name))
                    continue
                return data

    def close(self) -> None:
        self.client.close()


_readers: dict[str, KafkaOffsetReader] = {}
_readers_lock = threading.Lock()


def offset_reader(bootstrap_servers: str) -> KafkaOffsetReader:
    """This process's reader for ``bootstrap_servers`` (created on first use)."""
    with _readers_lock:
        reader = _readers.get(bootstrap_servers)
        if reader is None:
            reader = _readers[bootstrap_servers] = KafkaOffsetReader(bootstrap_servers)
        return reader


def drop_offset_reader(bootstrap_servers: str) -> None:
    """Forget (and close) a reader whose connection broke, so the next call builds a fresh one."""
    with _readers_lock:
        reader = _readers.pop(bootstrap_servers, None)
    if reader is not None:
        try:
            reader.close()
        except Exception:   # noqa: BLE001 - closing a broken client must not hide the first error
            pass


__all__ = ["KafkaOffsetReader", "offset_reader", "drop_offset_reader", "parse_bootstrap_servers"]

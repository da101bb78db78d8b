"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/KafkaProducer.java
(with the defaults of ProducerConfig.java)

Classes: KafkaProducer.

What the caller's thread does in ``send`` (``do_send``), in Kafka's order (S40, S43, S44):
1. ``wait_on_metadata``: add the topic to ``Metadata`` and, while its partition count is unknown, request
   an update, wake the Sender and wait on the metadata condition (at most ``max.block.ms``);
2. serialize key and value (``key.serializer``/``value.serializer``);
3. ``partition``: the record's own partition, else ``partitioner.class``, else murmur2 of the key, else
   UNKNOWN_PARTITION and the accumulator's built-in sticky/adaptive partitioner decides;
4. ``accumulator.append`` into the partition's last batch (may block on ``buffer.memory``);
5. wake the Sender if that filled a batch or started a new one. The future is returned at once.

Configs (Kafka's names; ``KafkaProducer({"bootstrap.servers": ...})`` or ``KafkaProducer(bootstrap_servers=...)``):
``bootstrap.servers``, ``client.id``, ``acks`` (default ``all``), ``linger.ms`` (default 0),
``batch.size`` 16384, ``buffer.memory`` 32 MiB, ``max.block.ms`` 60000, ``retries`` 2147483647,
``retry.backoff.ms`` 100, ``delivery.timeout.ms`` 120000, ``request.timeout.ms`` 30000,
``enable.idempotence`` (default false), ``compression.type`` none, ``max.request.size`` 1 MiB,
``max.in.flight.requests.per.connection`` 5, ``partitioner.class``, ``partitioner.adaptive.partitioning.enable``,
``key.serializer``, ``value.serializer``, ``metadata.max.age.ms`` 300000, ``reconnect.backoff.ms`` 50,
``reconnect.backoff.max.ms`` 1000, ``connections.max.idle.ms`` 540000, ``security.protocol`` PLAINTEXT or SSL
with the ssl.* keys (ClientUtils.create_channel_builder).

Era notes: ``linger.ms`` is 0 as in Kafka 2.x (Kafka 4.0 made it 5); ``acks`` defaults to ``all`` as in
Kafka 3.0+ (2.4: 1) while ``enable.idempotence`` keeps 2.4's default false (3.0+: true). Partitioning is the
3.3 built-in partitioner (DESIGN §2).
Security: ``security.protocol`` SSL (ssl.* keys), SASL_PLAINTEXT or SASL_SSL with ``sasl.mechanism`` PLAIN or
SCRAM-SHA-256/512 and ``sasl.jaas.config`` (``client_utils.create_channel_builder``).
Left out: interceptors, metrics, transactions (``initTransactions`` ...), ``partitioner.ignore.keys``.
"""
from __future__ import annotations

import importlib
import itertools
import logging

from kafkalite.clients.client_utils import (SECURITY_CONFIG_DEFAULTS, create_channel_builder,
                                            parse_and_validate_addresses)
from kafkalite.clients.metadata import DefaultMetadataUpdater, Metadata
from kafkalite.clients.network_client import NetworkClient
from kafkalite.clients.producer.internals.buffer_pool import BufferPool
from kafkalite.clients.producer.internals.built_in_partitioner import BuiltInPartitioner
from kafkalite.clients.producer.internals.produce_request_result import ProduceRequestResult
from kafkalite.clients.producer.internals.future_record_metadata import FutureRecordMetadata
from kafkalite.clients.producer.internals.producer_batch import estimate_size_in_bytes_upper_bound
from kafkalite.clients.producer.internals.record_accumulator import RecordAccumulator
from kafkalite.clients.producer.internals.sender import Sender
from kafkalite.clients.producer.internals.transaction_manager import TransactionManager
from kafkalite.clients.producer.partitioner import Partitioner
from kafkalite.clients.producer.producer_record import ProducerRecord
from kafkalite.clients.producer.record_metadata import UNKNOWN_PARTITION
from kafkalite.clients.producer.serialization import serializer_for
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.network.selector import Selector
from kafkalite.protocol.errors import ApiException, Errors, KafkaException
from kafkalite.record.compression_type import CompressionType
from kafkalite.utils.time import SYSTEM, Time

__all__ = ["KafkaProducer", "KafkaException"]

log = logging.getLogger("kafka.producer.KafkaProducer")

# Kafka: ProducerConfig's definitions -- name -> default
DEFAULTS = {
    "bootstrap.servers": None,
    "client.id": "",
    "acks": "all",
    "linger.ms": 0,
    "batch.size": 16384,
    "buffer.memory": 32 * 1024 * 1024,
    "max.block.ms": 60000,
    "retries": 2147483647,
    "retry.backoff.ms": 100,
    "delivery.timeout.ms": 120000,
    "request.timeout.ms": 30000,
    "enable.idempotence": False,
    "compression.type": "none",
    "max.request.size": 1024 * 1024,
    "max.in.flight.requests.per.connection": 5,
    "partitioner.class": None,
    "partitioner.adaptive.partitioning.enable": True,
    "key.serializer": None,
    "value.serializer": None,
    "metadata.max.age.ms": 300000,
    "reconnect.backoff.ms": 50,
    "reconnect.backoff.max.ms": 1000,
    "connections.max.idle.ms": 540000,
    **SECURITY_CONFIG_DEFAULTS,
}

_CLIENT_ID_SEQUENCE = itertools.count(1)   # Kafka: KafkaProducer.PRODUCER_CLIENT_ID_SEQUENCE


def _bool(value) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() == "true"


def parse_acks(value) -> int:
    """``all``/``-1`` -> -1, ``0``, ``1`` (Kafka: ProducerConfig's acks validator)."""
    text = str(value).strip().lower()
    if text in ("all", "-1"):
        return -1
    if text in ("0", "1"):
        return int(text)
    raise ValueError(f"Invalid value {value} for configuration acks: String must be one of: all, -1, 0, 1")


def _load_partitioner(value) -> Partitioner | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        module, _, name = value.rpartition(".")
        value = getattr(importlib.import_module(module), name)
    return value() if isinstance(value, type) else value


class _FutureFailure(FutureRecordMetadata):
    """Kafka: KafkaProducer.FutureFailure -- an already failed future (send raised an ApiException)."""

    def __init__(self, exception: BaseException, topic_partition: TopicPartition):
        result = ProduceRequestResult(topic_partition)
        result.set(-1, -1, exception)
        result.done()
        super().__init__(result, 0, -1, -1, -1)


class KafkaProducer:
    """Kafka: KafkaProducer."""

    # Kafka: KafkaProducer.<init>(ProducerConfig, ...)
    def __init__(self, configs: dict | None = None, time: Time = SYSTEM, **kwargs):
        config = dict(DEFAULTS)
        unknown = []
        for key, value in list((configs or {}).items()) + [(k.replace("_", "."), v) for k, v in kwargs.items()]:
            if key not in DEFAULTS:
                unknown.append(key)
            config[key] = value
        for key in unknown:
            log.warning("The configuration '%s' was supplied but isn't a known config.", key)
        if config["bootstrap.servers"] is None:
            raise ValueError('Missing required configuration "bootstrap.servers" which has no default value.')
        self.config = config
        self.time = time
        self.client_id = config["client.id"] or f"producer-{next(_CLIENT_ID_SEQUENCE)}"
        self.log_context = f"[Producer clientId={self.client_id}] "
        self.acks = parse_acks(config["acks"])
        self.max_request_size = int(config["max.request.size"])
        self.total_memory_size = int(config["buffer.memory"])
        self.max_block_time_ms = int(config["max.block.ms"])
        self.compression_type = CompressionType.for_name(str(config["compression.type"]))
        self.partitioner = _load_partitioner(config["partitioner.class"])
        if self.partitioner is not None:
            self.partitioner.configure(config)
        self.key_serializer = serializer_for(config["key.serializer"])
        self.value_serializer = serializer_for(config["value.serializer"])
        max_in_flight = int(config["max.in.flight.requests.per.connection"])
        retries = int(config["retries"])
        self.transaction_manager = self.configure_transaction_state(config, max_in_flight, retries)
        request_timeout_ms = int(config["request.timeout.ms"])
        retry_backoff_ms = int(config["retry.backoff.ms"])

        self.metadata = Metadata(retry_backoff_ms, int(config["metadata.max.age.ms"]), time)
        self.metadata.bootstrap(parse_and_validate_addresses(config["bootstrap.servers"]))
        self.accumulator = RecordAccumulator(
            int(config["batch.size"]), self.compression_type, int(config["linger.ms"]), retry_backoff_ms,
            int(config["delivery.timeout.ms"]),
            BufferPool(self.total_memory_size, int(config["batch.size"]), time), time, self.transaction_manager,
            _bool(config["partitioner.adaptive.partitioning.enable"]), self.log_context)
        updater = DefaultMetadataUpdater(self.metadata, int(config["reconnect.backoff.ms"]), request_timeout_ms)
        self.client = NetworkClient(
            Selector(connection_max_idle_ms=int(config["connections.max.idle.ms"]), time=time,
                     channel_builder=create_channel_builder(config, time),
                     log_context=self.log_context),
            updater, self.client_id, max_in_flight, int(config["reconnect.backoff.ms"]),
            int(config["reconnect.backoff.max.ms"]), request_timeout_ms, time, True, self.log_context)
        updater.client = self.client
        self.sender = Sender(self.client, self.metadata, self.accumulator, max_in_flight == 1,
                             self.max_request_size, self.acks, retries, time, request_timeout_ms, retry_backoff_ms,
                             self.transaction_manager, self.client_id, self.log_context)
        self.io_thread = self.sender.thread
        self.sender.start()
        self.closed = False
        log.debug("%sKafka producer started", self.log_context)

    # Kafka: KafkaProducer.configureTransactionState -- the checks idempotence needs
    def configure_transaction_state(self, config: dict, max_in_flight: int, retries: int):
        if not _bool(config["enable.idempotence"]):
            return None
        if self.acks != -1:
            raise ValueError("Must set acks to all in order to use the idempotent producer. Otherwise we cannot "
                             "guarantee idempotence.")
        if max_in_flight > 5:
            raise ValueError("Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent "
                             "producer.")
        if retries == 0:
            raise ValueError("Must set retries to non-zero when using the idempotent producer.")
        log.info("%sInstantiated an idempotent producer.", self.log_context)
        return TransactionManager()

    # Kafka: KafkaProducer.send(ProducerRecord, Callback)
    def send(self, topic, value=None, key=None, partition=None, timestamp=None, headers=None, callback=None
             ) -> FutureRecordMetadata:
        """Queue one record; returns a future of ``RecordMetadata``. ``callback(metadata, exception)``
        runs on the producer's network thread. ``topic`` may also be a ``ProducerRecord``."""
        record = topic if isinstance(topic, ProducerRecord) else ProducerRecord(
            topic, value, key, partition, timestamp, headers)
        return self.do_send(record, callback)

    # Kafka: KafkaProducer.doSend
    def do_send(self, record: ProducerRecord, callback) -> FutureRecordMetadata:
        self.throw_if_producer_closed()
        now_ms = self.time.milliseconds()
        try:
            cluster, waited_on_metadata_ms = self.wait_on_metadata(record.topic, record.partition, now_ms,
                                                                   self.max_block_time_ms)
            now_ms += waited_on_metadata_ms
            remaining_wait_ms = max(0, self.max_block_time_ms - waited_on_metadata_ms)
            serialized_key = self.key_serializer.serialize(record.topic, record.key)
            serialized_value = self.value_serializer.serialize(record.topic, record.value)
            partition = self.partition(record, serialized_key, serialized_value, cluster)
            headers = [(k, None if v is None else bytes(v)) for k, v in record.headers]
            self.ensure_valid_record_size(estimate_size_in_bytes_upper_bound(serialized_key, serialized_value,
                                                                              headers))
            timestamp = now_ms if record.timestamp is None else record.timestamp
            log.debug("%sAttempting to append record to topic %s partition %d", self.log_context, record.topic,
                      partition)
            result = self.accumulator.append(record.topic, partition, timestamp, serialized_key, serialized_value,
                                             headers, callback, remaining_wait_ms, now_ms, cluster)
            if result.batch_is_full or result.new_batch_created:
                log.debug("%sWaking up the sender since topic %s is either full or getting a new batch",
                          self.log_context, record.topic)
                self.sender.wakeup()
            return result.future
        except ApiException as e:
            # Kafka hands API errors to the callback and a failed future, rather than raising them.
            log.debug("%sException occurred during message send: %s", self.log_context, e)
            if callback is not None:
                callback(None, e)
            return _FutureFailure(e, TopicPartition(record.topic, -1 if record.partition is None
                                                    else record.partition))

    # Kafka: KafkaProducer.waitOnMetadata -- block until the topic (and partition) is known
    def wait_on_metadata(self, topic: str, partition: int | None, now_ms: int, max_wait_ms: int):
        cluster = self.metadata.fetch()
        if topic in cluster.invalid_topics:
            raise Errors.INVALID_TOPIC_EXCEPTION.exception(topic)
        self.metadata.add(topic)
        partitions_count = cluster.partition_count_for_topic(topic)
        if partitions_count is not None and (partition is None or partition < partitions_count):
            return cluster, 0
        elapsed = 0
        remaining_wait_ms = max_wait_ms
        while True:
            log.debug("%sRequesting metadata update for topic %s.", self.log_context, topic)
            version = self.metadata.request_update()
            self.sender.wakeup()
            try:
                self.metadata.await_update(version, remaining_wait_ms)
            except Errors.REQUEST_TIMED_OUT.exception_class:
                raise Errors.REQUEST_TIMED_OUT.exception(
                    f"Topic {topic} not present in metadata after {max_wait_ms} ms.") from None
            cluster = self.metadata.fetch()
            elapsed = self.time.milliseconds() - now_ms
            partitions_count = cluster.partition_count_for_topic(topic)
            if partitions_count is not None and (partition is None or partition < partitions_count):
                return cluster, elapsed
            if elapsed >= max_wait_ms:
                raise Errors.REQUEST_TIMED_OUT.exception(
                    f"Topic {topic} not present in metadata after {max_wait_ms} ms." if partitions_count is None
                    else f"Partition {partition} of topic {topic} with partition count {partitions_count} is not "
                         f"present in metadata after {max_wait_ms} ms.")
            if topic in cluster.unauthorized_topics:
                raise Errors.TOPIC_AUTHORIZATION_FAILED.exception(f"Not authorized to access topics: [{topic}]")
            remaining_wait_ms = max_wait_ms - elapsed

    # Kafka: KafkaProducer.partition
    def partition(self, record: ProducerRecord, serialized_key, serialized_value, cluster) -> int:
        if record.partition is not None:
            return record.partition
        if self.partitioner is not None:
            custom = self.partitioner.partition(record.topic, record.key, serialized_key, record.value,
                                                serialized_value, cluster)
            if custom < 0:
                raise ValueError(f"The partitioner generated an invalid partition number: {custom}. "
                                 "Partition number should always be non-negative.")
            return custom
        if serialized_key is not None:
            return BuiltInPartitioner.partition_for_key(serialized_key,
                                                        len(cluster.partitions_for_topic(record.topic)))
        return UNKNOWN_PARTITION

    # Kafka: KafkaProducer.ensureValidRecordSize
    def ensure_valid_record_size(self, size: int) -> None:
        if size > self.max_request_size:
            raise Errors.MESSAGE_TOO_LARGE.exception(
                f"The message is {size} bytes when serialized which is larger than {self.max_request_size}, which "
                "is the value of the max.request.size configuration.")
        if size > self.total_memory_size:
            raise Errors.MESSAGE_TOO_LARGE.exception(
                f"The message is {size} bytes when serialized which is larger than the total memory buffer you "
                f"have configured with the buffer.memory configuration.")

    # Kafka: KafkaProducer.flush -- send everything now and wait until every batch completed
    def flush(self, timeout: float | None = None) -> None:
        log.debug("%sFlushing accumulated records in producer.", self.log_context)
        self.accumulator.begin_flush()
        self.sender.wakeup()
        self.accumulator.await_flush_completion(None if timeout is None else timeout * 1000)

    # Kafka: KafkaProducer.partitionsFor
    def partitions_for(self, topic: str) -> list:
        self.throw_if_producer_closed()
        cluster, _ = self.wait_on_metadata(topic, None, self.time.milliseconds(), self.max_block_time_ms)
        return cluster.partitions_for_topic(topic)

    # Kafka: KafkaProducer.close(Duration) -- timeout in seconds; None waits for everything to be sent
    def close(self, timeout: float | None = None) -> None:
        if self.closed:
            return
        log.info("%sClosing the Kafka producer with timeoutMillis = %s ms.", self.log_context,
                 "Long.MAX_VALUE" if timeout is None else int(timeout * 1000))
        if timeout is None or timeout > 0:
            self.sender.initiate_close()
            self.io_thread.join(timeout)
        if self.io_thread.is_alive():
            log.info("%sProceeding to force close the producer since pending requests could not be completed "
                     "within timeout %s ms.", self.log_context, timeout)
            self.sender.force_close_()
            self.io_thread.join(10)
        self.closed = True
        if self.partitioner is not None:
            self.partitioner.close()
        log.debug("%sKafka producer has been closed", self.log_context)

    # Kafka: KafkaProducer.throwIfProducerClosed
    def throw_if_producer_closed(self) -> None:
        if self.closed or not self.sender.is_running():
            raise KafkaException("Cannot perform operation after producer has been closed")

    def __enter__(self) -> "KafkaProducer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

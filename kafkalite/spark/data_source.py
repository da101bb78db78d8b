"""No Kafka counterpart: the ``kafkalite`` data source for PySpark, a Python rewrite of Spark's Kafka
connector (Spark: connector/kafka-0-10-sql ``KafkaSourceProvider``, ``KafkaBatch``, ``KafkaMicroBatchStream``,
``KafkaWriter``) on PySpark's Python Data Source API.

Classes: KafkaLiteDataSource (format name ``kafkalite``), KafkaSourceOptions, KafkaWriteOptions,
KafkaSourceRange (one Spark partition = one topic-partition offset range), KafkaBatchReader,
KafkaMicroBatchStream (streaming reader with admission control and ``Trigger.AvailableNow``),
KafkaBatchWriter, KafkaStreamWriter, KafkaWriterCommitMessage, KafkaDataLossError.

Schema and options are Spark's Kafka source's, so a job moves between ``format("kafka")`` and
``format("kafkalite")`` by changing that one word:
``key binary, value binary, topic string, partition int, offset long, timestamp timestamp, timestampType int``
and ``headers array<struct<key string, value binary>>`` when ``includeHeaders`` is true.

Offsets are Spark's JSON, ``{"topic": {"0": 42}}``: for each partition the next offset to read. Ranges are
half-open, ``[from, until)``. A streaming query's offsets live in Spark's checkpoint and are the source of
truth; ``commit`` does nothing (no consumer group), as in Spark.

Data loss (``failOnDataLoss``, default true): a range that starts below the partition's log start offset
(records deleted by retention or DeleteRecords), a partition that vanished, or an offset that went backwards
fails the query with ``KafkaDataLossError``; with ``failOnDataLoss=false`` the reader skips ahead instead.

Writes go through kafkalite's ``KafkaProducer``: columns ``value`` (required), ``key``, ``topic`` (or the
``topic`` option, which wins), ``partition``, ``headers``. At least once, as Spark's Kafka sink.

Left out: ``startingTimestamp``/``startingOffsetsByTimestamp``, ``minPartitions`` (no splitting of a
partition's range), ``kafka.isolation.level=read_committed``, ``groupIdPrefix`` and ``kafka.group.id``,
``minOffsetsPerTrigger`` (PySpark has one read limit per source), writing a ``timestamp`` column.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Iterator

import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource, DataSourceReader, DataSourceStreamReader, DataSourceStreamWriter, DataSourceWriter, InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows, SupportsTriggerAvailableNow
from pyspark.sql.types import (
    ArrayType, BinaryType, IntegerType, LongType, StringType, StructField, StructType, TimestampType,
)

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.spark.kafka_offset_reader import drop_offset_reader, offset_reader

EARLIEST = -2   # in Spark's offset JSON
LATEST = -1
ARROW_BATCH_ROWS = 10_000
FETCH_MAX_BYTES = 4 * 1024 * 1024


class KafkaDataLossError(RuntimeError):
    """Records the query should read are gone (Spark raises IllegalStateException with this advice)."""

    def __init__(self, message: str):
        super().__init__(
            f"{message}. Some data may have been lost because they are not available in Kafka any more; either "
            f"the data was aged out by Kafka or the topic may have been deleted before all the data in the topic "
            f"was processed. If you want your streaming query to continue on such cases, set the source option "
            f'"failOnDataLoss" to "false".')


# ---------------------------------------------------------------- schema

HEADERS_TYPE = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))


def kafka_schema(include_headers: bool) -> StructType:
    """Spark: KafkaRecordToRowConverter.kafkaSchema."""
    fields = [StructField("key", BinaryType()), StructField("value", BinaryType()),
              StructField("topic", StringType()), StructField("partition", IntegerType()),
              StructField("offset", LongType()), StructField("timestamp", TimestampType()),
              StructField("timestampType", IntegerType())]
    if include_headers:
        fields.append(StructField("headers", HEADERS_TYPE))
    return StructType(fields)


_ARROW_HEADER = pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())])


def arrow_schema(include_headers: bool) -> pa.Schema:
    """The Arrow form Spark expects for ``kafka_schema`` (UTC microsecond timestamps, all nullable)."""
    fields = [pa.field("key", pa.binary()), pa.field("value", pa.binary()), pa.field("topic", pa.string()),
              pa.field("partition", pa.int32()), pa.field("offset", pa.int64()),
              pa.field("timestamp", pa.timestamp("us", tz="UTC")), pa.field("timestampType", pa.int32())]
    if include_headers:
        fields.append(pa.field("headers", pa.list_(_ARROW_HEADER)))
    return pa.schema(fields)


# ---------------------------------------------------------------- options

def _bool_option(options: dict, name: str, default: bool) -> bool:
    value = options.get(name.lower())
    if value is None:
        return default
    if str(value).lower() not in ("true", "false"):
        raise ValueError(f"Option '{name}' must be 'true' or 'false', got '{value}'")
    return str(value).lower() == "true"


def _lower(options) -> dict:
    return {str(k).lower(): str(v) for k, v in dict(options).items()}


def offsets_to_json(offsets: dict[TopicPartition, int]) -> dict:
    """``{TopicPartition("t", 0): 42}`` -> ``{"t": {"0": 42}}`` in a stable order (topics, then partitions)."""
    out: dict[str, dict[str, int]] = {}
    for tp in sorted(offsets, key=lambda tp: (tp.topic, tp.partition)):
        out.setdefault(tp.topic, {})[str(tp.partition)] = int(offsets[tp])
    return out


def offsets_from_json(offsets: dict | str) -> dict[TopicPartition, int]:
    """Spark's offset JSON (a string or its parsed dict) -> ``{TopicPartition: offset}``."""
    if isinstance(offsets, str):
        try:
            offsets = json.loads(offsets)
        except ValueError as e:
            raise ValueError(f"Expected e.g. {{\"topicA\":{{\"0\":23,\"1\":-1}}}}, got {offsets}") from e
    return {TopicPartition(topic, int(p)): int(o) for topic, parts in offsets.items() for p, o in parts.items()}


@dataclass(frozen=True)
class KafkaSourceOptions:
    """Spark: KafkaSourceProvider's option checks, for reads."""

    bootstrap_servers: str
    strategy: str                 # "subscribe", "subscribePattern" or "assign"
    strategy_value: object        # list of topics, a regex string, or a list of TopicPartition
    starting_offsets: object      # "earliest", "latest" or {TopicPartition: offset}
    ending_offsets: object
    max_offsets_per_trigger: int | None
    fail_on_data_loss: bool
    include_headers: bool
    fetch_max_bytes: int = FETCH_MAX_BYTES

    @classmethod
    def parse(cls, options, streaming: bool) -> "KafkaSourceOptions":
        o = _lower(options)
        servers = o.get("kafka.bootstrap.servers")
        if not servers:
            raise ValueError("Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer")
        given = [s for s in ("assign", "subscribe", "subscribePattern") if s.lower() in o]
        if len(given) != 1:
            raise ValueError("One of the following options must be specified for Kafka source: "
                             f"subscribe, subscribePattern, assign. Given: {given or 'none'}")
        strategy = given[0]
        raw = o[strategy.lower()]
        if strategy == "subscribe":
            value = [t.strip() for t in raw.split(",") if t.strip()]
            if not value:
                raise ValueError(f"No topics to subscribe to as specified value for option 'subscribe' is '{raw}'")
        elif strategy == "subscribePattern":
            if not raw.strip():
                raise ValueError("Pattern to subscribe is empty as specified value for option 'subscribePattern'")
            value = raw.strip()
            re.compile(value)
        else:
            try:
                value = [TopicPartition(t, int(p)) for t, ps in json.loads(raw).items() for p in ps]
            except (ValueError, AttributeError, TypeError) as e:
                raise ValueError(f'Expected e.g. {{"topicA":[0,1],"topicB":[0,1]}} for assign, got {raw}') from e
        starting = cls._offset_spec(o, "startingOffsets", "latest" if streaming else "earliest")
        ending = cls._offset_spec(o, "endingOffsets", "latest")
        if streaming and "endingoffsets" in o:
            raise ValueError("Ending offsets not valid in streaming queries")
        if not streaming:
            cls._check_batch_offsets(starting, ending)
        limit = o.get("maxoffsetspertrigger")
        if limit is not None and (not limit.strip().lstrip("-").isdigit() or int(limit) <= 0):
            raise ValueError(f"Option 'maxOffsetsPerTrigger' must be a positive integer, got '{limit}'")
        return cls(servers, strategy, value, starting, ending, int(limit) if limit else None,
                   _bool_option(o, "failOnDataLoss", True), _bool_option(o, "includeHeaders", False))

    @staticmethod
    def _offset_spec(o: dict, name: str, default: str):
        raw = o.get(name.lower(), default).strip()
        if raw.lower() in ("earliest", "latest"):
            return raw.lower()
        return offsets_from_json(raw)

    @staticmethod
    def _check_batch_offsets(starting, ending) -> None:
        # Spark: KafkaSourceProvider.validateBatchOptions
        if starting == "latest" or (isinstance(starting, dict) and LATEST in starting.values()):
            raise ValueError("startingOffsets for a batch query must not be latest (-1)")
        if ending == "earliest" or (isinstance(ending, dict) and EARLIEST in ending.values()):
            raise ValueError("endingOffsets for a batch query must not be earliest (-2)")

    # Spark: ConsumerStrategy.assignedTopicPartitions
    def topic_partitions(self) -> list[TopicPartition]:
        reader = offset_reader(self.bootstrap_servers)
        if self.strategy == "assign":
            return list(self.strategy_value)
        if self.strategy == "subscribe":
            return reader.topic_partitions(self.strategy_value)
        pattern = re.compile(self.strategy_value)
        return [tp for tp in reader.topic_partitions(None) if pattern.fullmatch(tp.topic)]

    # Spark: KafkaOffsetReaderAdmin.fetchPartitionOffsets
    def resolve(self, spec, partitions: list[TopicPartition], name: str) -> dict[TopicPartition, int]:
        """``earliest``/``latest``/JSON -> concrete offsets for exactly ``partitions``."""
        reader = offset_reader(self.bootstrap_servers)
        if spec == "earliest":
            return reader.fetch_earliest_offsets(partitions)
        if spec == "latest":
            return reader.fetch_latest_offsets(partitions)
        if set(spec) != set(partitions):
            raise ValueError(f"If {name} contains specific offsets, you must specify all TopicPartitions.\n"
                             f"Use -1 for latest, -2 for earliest.\nSpecified: {sorted(map(str, spec))} "
                             f"Assigned: {sorted(map(str, partitions))}")
        earliest = reader.fetch_earliest_offsets([tp for tp, o in spec.items() if o == EARLIEST])
        latest = reader.fetch_latest_offsets([tp for tp, o in spec.items() if o == LATEST])
        return {tp: earliest.get(tp, latest.get(tp, o)) for tp, o in spec.items()}


@dataclass(frozen=True)
class KafkaWriteOptions:
    """Spark: KafkaSourceProvider's checks for writes; ``kafka.*`` options go to the producer."""

    producer_config: dict
    topic: str | None

    @classmethod
    def parse(cls, options) -> "KafkaWriteOptions":
        from kafkalite.clients.producer.kafka_producer import DEFAULTS
        o = _lower(options)
        if not o.get("kafka.bootstrap.servers"):
            raise ValueError("Option 'kafka.bootstrap.servers' must be specified for configuring Kafka producer")
        config = {k[len("kafka."):]: v for k, v in o.items() if k.startswith("kafka.") and k[6:] in DEFAULTS}
        return cls(config, o.get("topic") or None)


# ---------------------------------------------------------------- reading

class KafkaSourceRange(InputPartition):
    """Spark: KafkaOffsetRange / KafkaBatchInputPartition -- ``[from_offset, until_offset)`` of one partition."""

    def __init__(self, topic: str, partition: int, from_offset: int, until_offset: int):
        super().__init__((topic, partition, from_offset, until_offset))
        self.topic, self.partition = topic, partition
        self.from_offset, self.until_offset = from_offset, until_offset

    def __repr__(self) -> str:
        return f"KafkaSourceRange({self.topic}-{self.partition}, [{self.from_offset}, {self.until_offset}))"


def plan_ranges(options: KafkaSourceOptions, start: dict[TopicPartition, int], end: dict[TopicPartition, int]
                ) -> list[KafkaSourceRange]:
    """Spark: KafkaOffsetReaderAdmin.getOffsetRangesFromResolvedOffsets -- one range per partition with data.
    A start below the log start offset is data loss: fail, or begin at the log start."""
    wanted = [tp for tp in end if end[tp] > start.get(tp, EARLIEST)]
    earliest = offset_reader(options.bootstrap_servers).fetch_earliest_offsets(wanted) if wanted else {}
    ranges = []
    for tp in sorted(wanted, key=lambda tp: (tp.topic, tp.partition)):
        begin = start.get(tp, earliest[tp])
        if begin < earliest[tp]:
            if options.fail_on_data_loss:
                raise KafkaDataLossError(f"Cannot fetch offset {begin} of {tp}: its log now starts at "
                                         f"{earliest[tp]}")
            begin = earliest[tp]
        if end[tp] > begin:
            ranges.append(KafkaSourceRange(tp.topic, tp.partition, begin, end[tp]))
    return ranges


class _ArrowBatchBuilder:
    """Column lists for one Arrow record batch of the Kafka schema."""

    def __init__(self, include_headers: bool, topic: str, partition: int):
        self.schema = arrow_schema(include_headers)
        self.include_headers = include_headers
        self.topic, self.partition = topic, partition
        self.clear()

    def clear(self) -> None:
        self.keys, self.values, self.offsets, self.timestamps, self.types = [], [], [], [], []
        self.header_offsets, self.header_keys, self.header_values = [0], [], []

    def __len__(self) -> int:
        return len(self.offsets)

    def append(self, record, timestamp_type: int) -> None:
        self.keys.append(record.key)
        self.values.append(record.value)
        self.offsets.append(record.offset)
        self.timestamps.append(record.timestamp * 1000)
        self.types.append(timestamp_type)
        if self.include_headers:
            for key, value in record.headers:
                self.header_keys.append(key)
                self.header_values.append(value)
            self.header_offsets.append(len(self.header_keys))

    def build(self) -> pa.RecordBatch:
        n = len(self.offsets)
        columns = [pa.array(self.keys, pa.binary()), pa.array(self.values, pa.binary()),
                   pa.array([self.topic] * n, pa.string()), pa.array([self.partition] * n, pa.int32()),
                   pa.array(self.offsets, pa.int64()), pa.array(self.timestamps, pa.timestamp("us", tz="UTC")),
                   pa.array(self.types, pa.int32())]
        if self.include_headers:
            pairs = pa.StructArray.from_arrays(
                [pa.array(self.header_keys, pa.string()), pa.array(self.header_values, pa.binary())],
                fields=list(_ARROW_HEADER))
            columns.append(pa.ListArray.from_arrays(pa.array(self.header_offsets, pa.int32()), pairs,
                                                    type=self.schema.field("headers").type))
        batch = pa.RecordBatch.from_arrays(columns, schema=self.schema)
        self.clear()
        return batch


# Spark: KafkaBatchPartitionReader / KafkaDataConsumer.get
def read_range(options: KafkaSourceOptions, part: KafkaSourceRange) -> Iterator[pa.RecordBatch]:
    """Fetch ``[from, until)`` of one partition chunk by chunk and yield Arrow batches of its records."""
    tp = TopicPartition(part.topic, part.partition)
    out = _ArrowBatchBuilder(options.include_headers, part.topic, part.partition)
    offset, until = part.from_offset, part.until_offset
    while offset < until:
        try:
            data = offset_reader(options.bootstrap_servers).fetch(tp, offset, options.fetch_max_bytes)
        except IOError:
            drop_offset_reader(options.bootstrap_servers)
            raise
        error = Errors.for_code(data.error_code)
        if error is Errors.OFFSET_OUT_OF_RANGE or (error is Errors.NONE and data.log_start_offset > offset):
            offset = _skip_lost_records(options, tp, offset, until, data.log_start_offset)
            continue
        if error is not Errors.NONE:
            raise error.exception(f"Fetch of {tp} at offset {offset}: {error.name}")
        advanced = offset
        for batch in MemoryRecords.readable_records(data.records or b"").batches():
            if batch.next_offset <= offset:
                continue                      # a whole batch before our start: Fetch returns whole batches
            if not batch.is_control_batch:    # transaction markers are not records
                timestamp_type = batch.timestamp_type.id
                for record in batch:
                    if offset <= record.offset < until:
                        out.append(record, timestamp_type)
            offset = batch.next_offset
            if len(out) >= ARROW_BATCH_ROWS:
                yield out.build()
            if offset >= until:
                break
        if offset == advanced:
            if data.high_watermark <= offset:
                # The log ends before our range does: it was truncated (or the topic recreated).
                offset = _skip_lost_records(options, tp, offset, until, -1)
            else:
                raise IOError(f"Fetch of {tp} at offset {offset} returned no records below the high watermark "
                              f"{data.high_watermark}")
    if len(out):
        yield out.build()


def _skip_lost_records(options: KafkaSourceOptions, tp: TopicPartition, offset: int, until: int,
                       log_start: int) -> int:
    """Records from ``offset`` on are gone: fail (failOnDataLoss) or return where reading goes on."""
    if options.fail_on_data_loss:
        where = f"its log now starts at {log_start}" if log_start >= 0 else "it is no longer in the log"
        raise KafkaDataLossError(f"Cannot fetch offset {offset} of {tp}: {where}")
    if log_start > offset:
        return min(log_start, until)
    return until


class KafkaBatchReader(DataSourceReader):
    """Spark: KafkaBatch -- resolves the offsets in ``partitions()`` (the planner), reads in ``read()``."""

    def __init__(self, options: KafkaSourceOptions):
        self.options = options

    def partitions(self) -> list[KafkaSourceRange]:
        tps = self.options.topic_partitions()
        start = self.options.resolve(self.options.starting_offsets, tps, "startingOffsets")
        end = self.options.resolve(self.options.ending_offsets, tps, "endingOffsets")
        for tp in tps:
            if end[tp] < start[tp]:
                raise ValueError(f"endingOffsets {end[tp]} of {tp} is before its startingOffsets {start[tp]}")
        return plan_ranges(self.options, start, end)

    def read(self, partition: KafkaSourceRange) -> Iterator[pa.RecordBatch]:
        return read_range(self.options, partition)


class KafkaMicroBatchStream(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Spark: KafkaMicroBatchStream. Built in several processes by Spark, so ``__init__`` does no I/O."""

    def __init__(self, options: KafkaSourceOptions):
        self.options = options
        self.initial_partition_offsets: dict | None = None     # cached: Spark asks twice
        self.all_data_for_trigger_available_now: dict[TopicPartition, int] | None = None
        self.latest_partition_offsets: dict | None = None

    # Spark: KafkaMicroBatchStream.initialOffset (getOrCreateInitialPartitionOffsets)
    def initialOffset(self) -> dict:
        if self.initial_partition_offsets is None:
            tps = self.options.topic_partitions()
            self.initial_partition_offsets = offsets_to_json(
                self.options.resolve(self.options.starting_offsets, tps, "startingOffsets"))
        return self.initial_partition_offsets

    # Spark: KafkaMicroBatchStream.getDefaultReadLimit
    def getDefaultReadLimit(self):
        n = self.options.max_offsets_per_trigger
        return ReadMaxRows(n) if n else ReadAllAvailable()

    # Spark: KafkaMicroBatchStream.prepareForTriggerAvailableNow
    def prepareForTriggerAvailableNow(self) -> None:
        reader = offset_reader(self.options.bootstrap_servers)
        self.all_data_for_trigger_available_now = reader.fetch_latest_offsets(self.options.topic_partitions())

    # Spark: KafkaMicroBatchStream.latestOffset(Offset, ReadLimit)
    def latestOffset(self, start: dict, limit) -> dict:
        start_offsets = offsets_from_json(start)
        tps = self.options.topic_partitions()
        reader = offset_reader(self.options.bootstrap_servers)
        for tp in [tp for tp in start_offsets if tp not in tps]:
            self._report_data_loss(f"{tp} is gone")
            del start_offsets[tp]
        new_partitions = [tp for tp in tps if tp not in start_offsets]
        if new_partitions:   # a new partition is read from its beginning
            for tp, begin in reader.fetch_earliest_offsets(new_partitions).items():
                if begin != 0:
                    self._report_data_loss(f"Added partition {tp} starts from {begin} instead of 0")
                start_offsets[tp] = begin
        latest = reader.fetch_latest_offsets(tps)
        self.latest_partition_offsets = offsets_to_json(latest)
        if self.all_data_for_trigger_available_now is not None:
            target = self.all_data_for_trigger_available_now
            latest = {tp: min(o, target[tp]) if tp in target else start_offsets[tp] for tp, o in latest.items()}
        for tp, o in latest.items():
            if o < start_offsets[tp]:
                self._report_data_loss(f"{tp}'s offset was changed from {start_offsets[tp]} to {o}")
        if isinstance(limit, ReadMaxRows):
            latest = rate_limit(limit.max_rows, start_offsets, latest)
        return offsets_to_json(latest)

    def _report_data_loss(self, message: str) -> None:
        if self.options.fail_on_data_loss:
            raise KafkaDataLossError(message)

    # Spark: KafkaMicroBatchStream.reportLatestOffset
    def reportLatestOffset(self):
        return self.latest_partition_offsets

    # Spark: KafkaMicroBatchStream.planInputPartitions
    def partitions(self, start: dict, end: dict) -> list[KafkaSourceRange]:
        return plan_ranges(self.options, offsets_from_json(start), offsets_from_json(end))

    def read(self, partition: KafkaSourceRange) -> Iterator[pa.RecordBatch]:
        return read_range(self.options, partition)

    def commit(self, end: dict) -> None:
        """Nothing to do: the checkpoint holds the offsets (Spark: KafkaMicroBatchStream.commit)."""


# Spark: KafkaMicroBatchStream.rateLimit
def rate_limit(limit: int, start: dict[TopicPartition, int], latest: dict[TopicPartition, int]
               ) -> dict[TopicPartition, int]:
    """Share ``limit`` records among partitions in proportion to their lag; a small partition gets at least
    one record (ceil below 1, floor above), and nobody goes past its latest offset."""
    lag = {tp: end - start[tp] for tp, end in latest.items() if end - start[tp] > 0}
    total = sum(lag.values())
    if total <= limit:
        return latest
    out = {}
    for tp, end in latest.items():
        if tp not in lag:
            out[tp] = end
            continue
        share = limit * lag[tp] / total
        out[tp] = min(end, start[tp] + (int(share) if share >= 1 else 1))
    return out


# ---------------------------------------------------------------- writing

@dataclass
class KafkaWriterCommitMessage(WriterCommitMessage):
    records: int


def _check_write_schema(schema: StructType, options: KafkaWriteOptions) -> dict[str, int]:
    """Spark: KafkaWriter.validateQuery -- column positions by name, after the type checks."""
    names = {f.name.lower(): i for i, f in enumerate(schema.fields)}
    types = {f.name.lower(): f.dataType for f in schema.fields}
    if "value" not in names:
        raise ValueError("Required attribute 'value' not found")
    for column in ("key", "value"):
        if column in types and not isinstance(types[column], (StringType, BinaryType)):
            raise ValueError(f"{column} attribute type must be a string or binary, not {types[column]}")
    if options.topic is None and "topic" not in names:
        raise ValueError("topic option required when no 'topic' attribute is present. "
                         "Use the topic option for setting a topic.")
    if "topic" in types and not isinstance(types["topic"], StringType):
        raise ValueError(f"Topic type must be a string, not {types['topic']}")
    if "partition" in types and not isinstance(types["partition"], IntegerType):
        raise ValueError(f"partition attribute type must be an int, not {types['partition']}")
    if "headers" in types and types["headers"] != HEADERS_TYPE:
        raise ValueError(f"headers attribute type must be {HEADERS_TYPE.simpleString()}, "
                         f"not {types['headers'].simpleString()}")
    return {c: names[c] for c in ("key", "value", "topic", "partition", "headers") if c in names}


def _as_bytes(value):
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return bytes(value)


# Spark: KafkaWriteTask.execute
def write_rows(options: KafkaWriteOptions, columns: dict[str, int], rows) -> KafkaWriterCommitMessage:
    """Send every row through one producer, wait for all acknowledgements, fail on the first error."""
    from kafkalite.clients.producer.kafka_producer import KafkaProducer
    producer = KafkaProducer(dict(options.producer_config))
    try:
        futures = []
        for row in rows:
            topic = options.topic or row[columns["topic"]]
            if topic is None:
                raise ValueError("null topic present in the data. Use the topic option for setting a topic.")
            key = _as_bytes(row[columns["key"]]) if "key" in columns else None
            partition = row[columns["partition"]] if "partition" in columns else None
            headers = None
            if "headers" in columns and row[columns["headers"]] is not None:
                headers = [(h["key"], _as_bytes(h["value"])) for h in row[columns["headers"]]]
            futures.append(producer.send(topic, value=_as_bytes(row[columns["value"]]), key=key,
                                         partition=partition, headers=headers))
        producer.flush()
        for future in futures:
            future.get()
        return KafkaWriterCommitMessage(len(futures))
    finally:
        producer.close()


class KafkaBatchWriter(DataSourceWriter):
    """Spark: KafkaWrite (batch) -- ``df.write.format("kafkalite")``; append only."""

    def __init__(self, options: KafkaWriteOptions, schema: StructType):
        self.options = options
        self.columns = _check_write_schema(schema, options)

    def write(self, iterator) -> KafkaWriterCommitMessage:
        return write_rows(self.options, self.columns, iterator)


class KafkaStreamWriter(DataSourceStreamWriter):
    """Spark: KafkaStreamingWrite -- each micro-batch's rows are produced by the tasks; ``commit`` has nothing
    left to do (at least once)."""

    def __init__(self, options: KafkaWriteOptions, schema: StructType):
        self.options = options
        self.columns = _check_write_schema(schema, options)

    def write(self, iterator) -> KafkaWriterCommitMessage:
        return write_rows(self.options, self.columns, iterator)

    def commit(self, messages, batchId: int) -> None:
        pass

    def abort(self, messages, batchId: int) -> None:
        pass


# ---------------------------------------------------------------- the data source

class KafkaLiteDataSource(DataSource):
    """Spark: KafkaSourceProvider -- ``spark.dataSource.register(KafkaLiteDataSource)``, then
    ``spark.read.format("kafkalite")`` / ``readStream`` / ``write`` / ``writeStream``."""

    @classmethod
    def name(cls) -> str:
        return "kafkalite"

    def schema(self) -> StructType:
        return kafka_schema(_bool_option(_lower(self.options), "includeHeaders", False))

    def reader(self, schema: StructType) -> KafkaBatchReader:
        return KafkaBatchReader(KafkaSourceOptions.parse(self.options, streaming=False))

    def streamReader(self, schema: StructType) -> KafkaMicroBatchStream:
        return KafkaMicroBatchStream(KafkaSourceOptions.parse(self.options, streaming=True))

    def writer(self, schema: StructType, overwrite: bool) -> KafkaBatchWriter:
        if overwrite:
            raise ValueError("Save mode overwrite not allowed for kafkalite. Allowed save modes are Append and "
                             "ErrorIfExists (default).")
        return KafkaBatchWriter(KafkaWriteOptions.parse(self.options), schema)

    def streamWriter(self, schema: StructType, overwrite: bool) -> KafkaStreamWriter:
        return KafkaStreamWriter(KafkaWriteOptions.parse(self.options), schema)

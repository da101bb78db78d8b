"""No Kafka counterpart: one small adapter per real admin client, so the same test can drive
kafka-python, confluent-kafka (librdkafka), aiokafka and kafkajs (through node).

Every adapter has:
  create(name, partitions, replication_factor=1, validate_only=False) -> Kafka error name or None
  delete(name) -> Kafka error name or None
  list() -> set of topic names
  describe(name) -> {partition: (leader, replicas, isr)}
  close()
Error names are Kafka's (``Errors`` in Kafka's Errors.java), from the error code each client
reports, so a test can say ``== "TOPIC_ALREADY_EXISTS"`` whatever the client.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

JS_DIR = Path(__file__).resolve().parents[1] / "js"

# The codes these tests meet, named as Kafka names them.
ERROR_NAMES = {
    0: None,
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    7: "REQUEST_TIMED_OUT",
    17: "INVALID_TOPIC_EXCEPTION",
    36: "TOPIC_ALREADY_EXISTS",
    37: "INVALID_PARTITIONS",
    38: "INVALID_REPLICATION_FACTOR",
    41: "NOT_CONTROLLER",
    42: "INVALID_REQUEST",
}


def error_name(code: int) -> str | None:
    return ERROR_NAMES.get(code, f"error code {code}")


class KafkaPythonAdmin:
    name = "kafka-python"

    def __init__(self, bootstrap: str):
        from kafka import KafkaAdminClient
        self.admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000,
                                      client_id="kafkalite-test-kafka-python")

    def create(self, name, partitions, replication_factor=1, validate_only=False):
        result = self.admin.create_topics(
            {name: {"num_partitions": partitions, "replication_factor": replication_factor}},
            timeout_ms=10000, validate_only=validate_only, raise_errors=False)
        [topic] = result["topics"]
        assert topic["name"] == name
        return error_name(topic["error_code"])

    def delete(self, name):
        result = self.admin.delete_topics([name], timeout_ms=10000, raise_errors=False)
        [topic] = result["topics"]
        return error_name(topic["error_code"])

    def list(self):
        return set(self.admin.list_topics())

    def describe(self, name):
        [topic] = self.admin.describe_topics([name])
        assert topic["error_code"] == 0, topic
        return {p["partition_index"]: (p["leader_id"], list(p["replica_nodes"]), list(p["isr_nodes"]))
                for p in topic["partitions"]}

    def topic_id(self, name):
        [topic] = self.admin.describe_topics([name])
        return str(topic["topic_id"])

    def describe_cluster(self):
        return self.admin.describe_cluster()

    def close(self):
        self.admin.close()


class ConfluentAdmin:
    name = "confluent-kafka"

    def __init__(self, bootstrap: str):
        from confluent_kafka.admin import AdminClient
        self.admin = AdminClient({"bootstrap.servers": bootstrap, "client.id": "kafkalite-test-confluent",
                                  "socket.timeout.ms": 10000})

    @staticmethod
    def _error(future):
        from confluent_kafka import KafkaException
        try:
            future.result(timeout=15)
            return None
        except KafkaException as e:
            return error_name(e.args[0].code())

    def create(self, name, partitions, replication_factor=1, validate_only=False):
        from confluent_kafka.admin import NewTopic
        futures = self.admin.create_topics([NewTopic(name, num_partitions=partitions,
                                                     replication_factor=replication_factor)],
                                           operation_timeout=10, request_timeout=15,
                                           validate_only=validate_only)
        return self._error(futures[name])

    def delete(self, name):
        futures = self.admin.delete_topics([name], operation_timeout=10, request_timeout=15)
        return self._error(futures[name])

    def metadata(self, topic=None):
        return self.admin.list_topics(topic=topic, timeout=10)

    def list(self):
        return set(self.metadata().topics)

    def describe(self, name):
        t = self.metadata(name).topics[name]
        assert t.error is None, t.error
        return {p.id: (p.leader, list(p.replicas), list(p.isrs)) for p in t.partitions.values()}

    def close(self):
        pass


class AioKafkaAdmin:
    name = "aiokafka"

    def __init__(self, bootstrap: str):
        from aiokafka.admin import AIOKafkaAdminClient
        self.loop = asyncio.new_event_loop()

        async def make():   # aiokafka objects must be created inside the loop that runs them
            return AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000,
                                       client_id="kafkalite-test-aiokafka")

        self.admin = self.run(make())
        self.run(self.admin.start())

    def run(self, coro):
        return self.loop.run_until_complete(asyncio.wait_for(coro, 30))

    def create(self, name, partitions, replication_factor=1, validate_only=False):
        from aiokafka.admin import NewTopic
        response = self.run(self.admin.create_topics(
            [NewTopic(name, partitions, replication_factor)], timeout_ms=10000, validate_only=validate_only))
        [(topic, code, *_message)] = response.topic_errors
        assert topic == name
        return error_name(code)

    def delete(self, name):
        response = self.run(self.admin.delete_topics([name], timeout_ms=10000))
        [(topic, code, *_)] = response.topic_error_codes
        assert topic == name
        return error_name(code)

    def list(self):
        return set(self.run(self.admin.list_topics()))

    def describe(self, name):
        [topic] = self.run(self.admin.describe_topics([name]))
        assert topic["error_code"] == 0, topic
        return {p["partition"]: (p["leader"], list(p["replicas"]), list(p["isr"])) for p in topic["partitions"]}

    def close(self):
        self.run(self.admin.close())
        self.loop.close()


class KafkaJsAdmin:
    """kafkajs 2.2.x through ``node tests/js/admin.js`` (one process per call)."""
    name = "kafkajs"

    def __init__(self, bootstrap: str):
        self.bootstrap = bootstrap

    def call(self, *args):
        proc = subprocess.run(["node", str(JS_DIR / "admin.js"), self.bootstrap, *map(str, args)],
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, f"admin.js {args} exited {proc.returncode}: {proc.stderr[-2000:]}"
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        out["stderr"] = proc.stderr
        return out

    @staticmethod
    def _error(out):
        if out["ok"]:
            return None
        types = out["error"]["types"]
        assert types, f"kafkajs failed without a Kafka error: {out['error']} {out['stderr'][-2000:]}"
        return types[0]

    def create(self, name, partitions, replication_factor=1, validate_only=False):
        out = self.call("create", name, partitions, replication_factor,
                        *(["--validate-only"] if validate_only else []))
        if out["ok"] and out["result"]["created"] is False:
            return "TOPIC_ALREADY_EXISTS"  # kafkajs turns that error into `false`
        return self._error(out)

    def delete(self, name):
        return self._error(self.call("delete", name))

    def list(self):
        out = self.call("list")
        assert out["ok"], out
        return set(out["result"]["topics"])

    def describe(self, name):
        out = self.call("describe", name)
        assert out["ok"], out
        [topic] = out["result"]["topics"]
        return {p["partition"]: (p["leader"], p["replicas"], p["isr"]) for p in topic["partitions"]}

    def close(self):
        pass


ADMIN_CLIENTS = [KafkaPythonAdmin, ConfluentAdmin, AioKafkaAdmin, KafkaJsAdmin]


# --- issue 3: produce with each real client, read back by assigning partitions ----------------
#
# Every producer takes a list of ``Produced`` records (each names its partition, so the order in
# each partition is known) and every reader returns ``Consumed`` records. Readers never join a
# group: they assign partitions and start at offset 0, as a replay tool or a test would.

import attrs  # noqa: E402  (kept next to the functions that use it)


@attrs.frozen
class Produced:
    partition: int
    key: bytes
    value: bytes
    headers: tuple = ()            # ((name: str, value: bytes), ...)
    timestamp: int | None = None   # CreateTime in ms; None = the client's clock


@attrs.frozen
class Consumed:
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: tuple
    timestamp: int
    timestamp_type: str            # "create" or "log_append"


def make_records(count: int, partitions: int = 1, timestamp_base: int | None = None,
                 headers: bool = True) -> list[Produced]:
    """``count`` keyed ASCII records spread round-robin over ``partitions``; values vary in length."""
    out = []
    for i in range(count):
        hdrs = (("h-index", str(i).encode()), ("h-const", b"kafkalite")) if headers else ()
        out.append(Produced(partition=i % partitions, key=f"key-{i:05d}".encode(),
                            value=(f"value-{i}-" + "abcdefghij"[i % 10] * (i % 97)).encode(),
                            headers=hdrs, timestamp=None if timestamp_base is None else timestamp_base + i))
    return out


def create_topic(bootstrap: str, name: str, partitions: int = 1, config: dict | None = None,
                 replication_factor: int = 1) -> None:
    """CreateTopics through confluent-kafka's AdminClient, then wait until every partition has a leader
    (``replication_factor=-1``: the brokers' ``default.replication.factor``)."""
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": 10000})
    futures = admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=replication_factor,
                                            config={k: str(v) for k, v in (config or {}).items()})],
                                  operation_timeout=10, request_timeout=15)
    futures[name].result(timeout=20)
    from support import wait_until

    def every_partition_has_a_leader():
        md = admin.list_topics(topic=name, timeout=10).topics.get(name)
        return md is not None and md.error is None and len(md.partitions) == partitions and \
            all(p.leader >= 0 for p in md.partitions.values())
    wait_until(every_partition_has_a_leader, 15, f"every partition of {name} to have a leader", interval=0.05)


def produce_kafka_python(bootstrap: str, topic: str, records: list[Produced], **config) -> None:
    from kafka import KafkaProducer
    producer = KafkaProducer(bootstrap_servers=bootstrap, request_timeout_ms=15000, **config)
    try:
        futures = [producer.send(topic, key=r.key, value=r.value, partition=r.partition,
                                 headers=list(r.headers), timestamp_ms=r.timestamp) for r in records]
        producer.flush(60)
        for f in futures:
            f.get(timeout=1)   # raises the Kafka error a failed batch got
    finally:
        producer.close(10)


def produce_confluent(bootstrap: str, topic: str, records: list[Produced], config: dict | None = None) -> None:
    from confluent_kafka import Producer
    errors = []
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, **(config or {})})

    def delivered(err, _msg):
        if err is not None:
            errors.append(err)

    for r in records:
        while True:
            try:
                producer.produce(topic, key=r.key, value=r.value, partition=r.partition,
                                 headers=list(r.headers), timestamp=r.timestamp or 0, on_delivery=delivered)
                break
            except BufferError:       # local queue full: let deliveries drain
                producer.poll(0.1)
        producer.poll(0)
    left = producer.flush(60)
    assert left == 0, f"{left} records still undelivered after 60 s"
    assert not errors, f"{len(errors)} delivery errors, first: {errors[0]}"


def produce_aiokafka(bootstrap: str, topic: str, records: list[Produced], **config) -> None:
    from aiokafka import AIOKafkaProducer

    async def run():
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, request_timeout_ms=15000, **config)
        await producer.start()
        try:
            futures = [await producer.send(topic, key=r.key, value=r.value, partition=r.partition,
                                           headers=list(r.headers), timestamp_ms=r.timestamp) for r in records]
            await producer.flush()
            for f in futures:
                await f        # raises the Kafka error a failed batch got
        finally:
            await producer.stop()

    asyncio.run(asyncio.wait_for(run(), 120))


def produce_kcat(bootstrap: str, topic: str, records: list[Produced], workdir: Path,
                 header: str = "h-const=kafkalite", extra: tuple = ()) -> None:
    """``kcat -P -K: -H k=v`` from a file, one ``key:value`` line per record. kcat sends no
    per-record partition (use a 1-partition topic), timestamp or headers: ``header`` goes on all."""
    assert all(r.partition == records[0].partition for r in records), "kcat writes to one partition here"
    path = Path(workdir) / f"{topic}.kcat-input"
    path.write_bytes(b"".join(r.key + b":" + r.value + b"\n" for r in records))
    proc = subprocess.run(["kcat", "-P", "-b", bootstrap, "-t", topic, "-p", str(records[0].partition),
                           "-K:", "-H", header, "-X", "message.timeout.ms=30000", *extra, "-l", str(path)],
                          capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"kcat -P exited {proc.returncode}: {proc.stderr[-3000:]}"


def produce_kafkajs(bootstrap: str, topic: str, records: list[Produced], workdir: Path,
                    acks: int = -1, compression: str = "none", idempotent: bool = False) -> None:
    import base64
    enc = lambda b: base64.b64encode(b).decode()  # noqa: E731
    path = Path(workdir) / f"{topic}.kafkajs-input.json"
    path.write_text(json.dumps([{"partition": r.partition, "key": enc(r.key), "value": enc(r.value),
                                 "headers": {k: enc(v) for k, v in r.headers}, "timestamp": r.timestamp}
                                for r in records]))
    out = _run_produce_consume_js(bootstrap, "produce", topic, path, acks, compression, int(idempotent))
    assert out["result"]["sent"] == len(records)


def _run_produce_consume_js(bootstrap, *args) -> dict:
    proc = subprocess.run(["node", str(JS_DIR / "produce_consume.js"), bootstrap, *map(str, args)],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"produce_consume.js {args[:2]} exited {proc.returncode}: {proc.stderr[-2000:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["ok"], f"kafkajs failed: {out['error']} {proc.stderr[-2000:]}"
    return out


def read_kafka_python(bootstrap: str, topic: str, partitions, count: int, timeout: float = 60) -> list[Consumed]:
    import time
    from kafka import KafkaConsumer, TopicPartition as KpTp
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                             request_timeout_ms=30000)
    try:
        tps = [KpTp(topic, p) for p in partitions]
        consumer.assign(tps)
        for tp in tps:
            consumer.seek(tp, 0)
        out, deadline = [], time.monotonic() + timeout
        while len(out) < count and time.monotonic() < deadline:
            for batch in consumer.poll(timeout_ms=500).values():
                out += [Consumed(m.partition, m.offset, m.key, m.value, tuple(m.headers or ()), m.timestamp,
                                 "create" if m.timestamp_type == 0 else "log_append") for m in batch]
        return out
    finally:
        consumer.close()


def read_confluent(bootstrap: str, topic: str, partitions, count: int, timeout: float = 60,
                   config: dict | None = None) -> list[Consumed]:
    import time
    from confluent_kafka import TIMESTAMP_CREATE_TIME, Consumer, TopicPartition as CkTp
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "kafkalite-assign-only-reader",
                         "enable.auto.commit": False, "enable.auto.offset.store": False, **(config or {})})
    try:
        consumer.assign([CkTp(topic, p, 0) for p in partitions])
        out, deadline = [], time.monotonic() + timeout
        while len(out) < count and time.monotonic() < deadline:
            for m in consumer.consume(num_messages=1000, timeout=0.5):
                assert m.error() is None, m.error()
                ts_type, ts = m.timestamp()
                out.append(Consumed(m.partition(), m.offset(), m.key(), m.value(), tuple(m.headers() or ()), ts,
                                    "create" if ts_type == TIMESTAMP_CREATE_TIME else "log_append"))
        return out
    finally:
        consumer.close()


def read_aiokafka(bootstrap: str, topic: str, partitions, count: int, timeout: float = 60) -> list[Consumed]:
    from aiokafka import AIOKafkaConsumer, TopicPartition as AioTp

    async def run():
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
        await consumer.start()
        try:
            tps = [AioTp(topic, p) for p in partitions]
            consumer.assign(tps)
            for tp in tps:
                consumer.seek(tp, 0)
            out = []
            while len(out) < count:
                for batch in (await consumer.getmany(timeout_ms=500)).values():
                    out += [Consumed(m.partition, m.offset, m.key, m.value, tuple(m.headers or ()), m.timestamp,
                                     "create" if m.timestamp_type == 0 else "log_append") for m in batch]
            return out
        finally:
            await consumer.stop()

    return asyncio.run(asyncio.wait_for(run(), timeout))


def read_kcat(bootstrap: str, topic: str, count: int, extra: tuple = ()) -> list[Consumed]:
    """``kcat -C -J -o beginning -e``: every partition to its end, as JSON lines; ``extra`` goes on the
    command line as given (``("-X", "isolation.level=read_committed")``, say)."""
    proc = subprocess.run(["kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-J", "-q",
                           "-c", str(count), "-X", "check.crcs=true", *extra],
                          capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"kcat -C exited {proc.returncode}: {proc.stderr[-3000:]}"
    out = []
    for line in proc.stdout.splitlines():
        m = json.loads(line)
        flat = m.get("headers") or []
        headers = tuple((flat[i], flat[i + 1].encode()) for i in range(0, len(flat), 2))
        out.append(Consumed(m["partition"], m["offset"], None if m["key"] is None else m["key"].encode(),
                            None if m["payload"] is None else m["payload"].encode(), headers, m["ts"],
                            {"create": "create", "logappend": "log_append"}.get(m["tstype"], m["tstype"])))
    return out


def read_kafkajs(bootstrap: str, topic: str, partitions, count: int) -> list[Consumed]:
    import base64
    dec = lambda s: None if s is None else base64.b64decode(s)  # noqa: E731
    out = _run_produce_consume_js(bootstrap, "consume", topic, ",".join(map(str, partitions)), count)
    return [Consumed(r["partition"], r["offset"], dec(r["key"]), dec(r["value"]),
                     tuple((k, dec(v)) for k, v in r["headers"].items()), r["timestamp"], r["timestampType"])
            for r in out["result"]["records"]]


# --- issue 3: raw requests built with kafkalite.protocol -------------------------------------

def raw_request(conn, api_key: int, api_version: int, body, correlation_id: int = 1,
                expect_response: bool = True):
    """Send ``body`` (a kafkalite.protocol message) on a harness ``RawConnection``; return the
    parsed response body (or None when ``expect_response`` is False, e.g. acks=0)."""
    from kafkalite.protocol.request_header import RequestHeader
    from kafkalite.protocol.requests import parse_response, serialize_request
    header = RequestHeader(api_key=api_key, api_version=api_version, correlation_id=correlation_id,
                           client_id="kafkalite-raw-test")
    conn.send_frame(serialize_request(header, body))
    if not expect_response:
        return None
    corr, response = parse_response(api_key, api_version, conn.recv_frame())
    assert corr == correlation_id, f"correlation id {corr}, expected {correlation_id}"
    return response


def segment_sizes(log_dirs: Path, topic: str, partition: int) -> dict[str, int]:
    """{file name: size} of the partition's ``.log`` segment files under ``log_dirs``."""
    d = Path(log_dirs) / f"{topic}-{partition}"
    return {p.name: p.stat().st_size for p in sorted(d.glob("*.log"))}


def build_batch(values, keys=None, timestamp: int | None = None, compression=None) -> bytearray:
    """One magic-2 record batch (base offset 0) built with kafkalite's MemoryRecordsBuilder."""
    import time
    from kafkalite.record.compression_type import CompressionType
    from kafkalite.record.memory_records import MemoryRecordsBuilder
    builder = MemoryRecordsBuilder(compression_type=compression or CompressionType.NONE)
    ts = int(time.time() * 1000) if timestamp is None else timestamp
    for i, value in enumerate(values):
        builder.append(ts + i, None if keys is None else keys[i], value)
    return bytearray(builder.build().buffer)


def raw_produce(conn, topic: str, batches: dict, version: int = 7, acks: int = 1, correlation_id: int = 1,
                timeout_ms: int = 10000) -> dict:
    """Produce ``{partition: batch bytes}`` with a raw ProduceRequest; return {partition: response}."""
    from kafkalite.protocol.messages.produce import PartitionProduceData, ProduceRequest, TopicProduceData
    body = ProduceRequest(transactional_id=None, acks=acks, timeout_ms=timeout_ms, topic_data=[
        TopicProduceData(name=topic, partition_data=[PartitionProduceData(index=p, records=bytes(b))
                                                     for p, b in batches.items()])])
    response = raw_request(conn, 0, version, body, correlation_id, expect_response=acks != 0)
    if response is None:
        return {}
    [t] = response.responses
    assert t.name == topic
    return {p.index: p for p in t.partition_responses}


def raw_fetch_body(topic: str, partitions, max_wait_ms: int, min_bytes: int, fetch_offset: int = 0):
    """A session-less consumer FetchRequest (any version 4-12) for ``partitions`` of ``topic``."""
    from kafkalite.protocol.messages.fetch import FetchPartition, FetchRequest, FetchTopic
    return FetchRequest(replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=1 << 20,
                        isolation_level=0, session_id=0, session_epoch=-1, forgotten_topics_data=[], rack_id="",
                        topics=[FetchTopic(topic=topic, partitions=[
                            FetchPartition(partition=p, fetch_offset=fetch_offset, partition_max_bytes=1 << 20)
                            for p in partitions])])


def fetched_values(partition_data) -> list[bytes]:
    """The record values in one FetchResponse partition (decoded with kafkalite's MemoryRecords)."""
    from kafkalite.record.memory_records import MemoryRecords
    if not partition_data.records:
        return []
    return [bytes(r.value) for r in MemoryRecords(bytearray(partition_data.records)).records()]


# --- issue 15: transactional producers and isolation-aware readers ---------------------------
#
# One adapter per client that has a transactional producer. Each has
#   init(), begin(), send(topic, partition, value, key=None), flush(), send_offsets({(topic, p): offset}, group),
#   commit(), abort(), close()
# and lets the client's own exception through; ``is_fenced(exc)`` says whether it names a fenced producer
# (Kafka 2.4 answers a zombie with INVALID_PRODUCER_EPOCH; 2.7+ with PRODUCER_FENCED; librdkafka turns both
# into its fatal _FENCED).


class ConfluentTxnProducer:
    name = "confluent-kafka"

    def __init__(self, bootstrap: str, transactional_id: str, transaction_timeout_ms: int | None = None,
                 config: dict | None = None):
        from confluent_kafka import Producer
        self.bootstrap = bootstrap
        self.errors: list = []
        self._group_consumers: dict = {}
        conf = {"bootstrap.servers": bootstrap, "transactional.id": transactional_id, "linger.ms": 5,
                "socket.timeout.ms": 15000, **(config or {})}
        if transaction_timeout_ms is not None:   # librdkafka wants socket.timeout.ms <= transaction.timeout.ms + 100
            conf["transaction.timeout.ms"] = transaction_timeout_ms
            conf["socket.timeout.ms"] = min(conf["socket.timeout.ms"], transaction_timeout_ms)
        self.producer = Producer(conf)

    def _delivered(self, err, _msg):
        if err is not None:
            self.errors.append(err)

    def init(self, timeout: float = 60):
        self.producer.init_transactions(timeout)

    def begin(self):
        self.producer.begin_transaction()

    def send(self, topic: str, partition: int, value: bytes, key: bytes | None = None):
        self.producer.produce(topic, value=value, key=key, partition=partition, on_delivery=self._delivered)
        self.producer.poll(0)

    def flush(self, timeout: float = 30):
        from confluent_kafka import KafkaException
        left = self.producer.flush(timeout)
        if self.errors:
            raise KafkaException(self.errors[0])
        assert left == 0, f"{left} records undelivered after {timeout} s"

    def send_offsets(self, offsets: dict, group: str, timeout: float = 30):
        from confluent_kafka import Consumer, TopicPartition
        if group not in self._group_consumers:   # librdkafka takes the group from a consumer's group metadata
            self._group_consumers[group] = Consumer({"bootstrap.servers": self.bootstrap, "group.id": group,
                                                     "enable.auto.commit": False})
        metadata = self._group_consumers[group].consumer_group_metadata()
        self.producer.send_offsets_to_transaction(
            [TopicPartition(t, p, o) for (t, p), o in offsets.items()], metadata, timeout)

    def commit(self, timeout: float = 60):
        self.producer.commit_transaction(timeout)

    def abort(self, timeout: float = 60):
        self.producer.abort_transaction(timeout)

    def close(self):
        for consumer in self._group_consumers.values():
            consumer.close()
        self._group_consumers.clear()
        self.producer = None     # rd_kafka_destroy; a transaction left open stays open on the broker


class KafkaPythonTxnProducer:
    name = "kafka-python"

    def __init__(self, bootstrap: str, transactional_id: str, transaction_timeout_ms: int | None = None,
                 config: dict | None = None):
        from kafka import KafkaProducer
        conf = {"request_timeout_ms": 15000, "max_block_ms": 60000, **(config or {})}
        if transaction_timeout_ms is not None:
            conf["transaction_timeout_ms"] = transaction_timeout_ms
        self.producer = KafkaProducer(bootstrap_servers=bootstrap, transactional_id=transactional_id, **conf)
        self.futures: list = []

    def init(self):
        self.producer.init_transactions()

    def begin(self):
        self.producer.begin_transaction()

    def send(self, topic: str, partition: int, value: bytes, key: bytes | None = None):
        self.futures.append(self.producer.send(topic, value=value, key=key, partition=partition))

    def flush(self, timeout: float = 30):
        self.producer.flush(timeout)
        futures, self.futures = self.futures, []
        for f in futures:
            f.get(timeout=1)    # raises the Kafka error a failed batch got

    def send_offsets(self, offsets: dict, group: str):
        from kafka import OffsetAndMetadata, TopicPartition
        self.producer.send_offsets_to_transaction(
            {TopicPartition(t, p): OffsetAndMetadata(o, "", -1) for (t, p), o in offsets.items()}, group)

    def commit(self):
        self.producer.commit_transaction()

    def abort(self):
        self.producer.abort_transaction()

    def close(self):
        self.producer.close(5)


class AioKafkaTxnProducer:
    """aiokafka's producer on a loop of its own; ``start()`` is where aiokafka sends InitProducerId."""
    name = "aiokafka"

    def __init__(self, bootstrap: str, transactional_id: str, transaction_timeout_ms: int | None = None,
                 config: dict | None = None):
        from aiokafka import AIOKafkaProducer
        self.loop = asyncio.new_event_loop()
        conf = {"request_timeout_ms": 15000, **(config or {})}
        if transaction_timeout_ms is not None:
            conf["transaction_timeout_ms"] = transaction_timeout_ms

        async def make():   # aiokafka objects must be created inside the loop that runs them
            return AIOKafkaProducer(bootstrap_servers=bootstrap, transactional_id=transactional_id, **conf)

        self.producer = self.run(make())
        self.futures: list = []
        self.started = False

    def run(self, coro, timeout: float = 60):
        return self.loop.run_until_complete(asyncio.wait_for(coro, timeout))

    def init(self):
        self.started = True      # stop() after a failed start() too: it closes what start() opened
        self.run(self.producer.start())

    def begin(self):
        self.run(self.producer.begin_transaction())

    def send(self, topic: str, partition: int, value: bytes, key: bytes | None = None):
        self.futures.append(self.run(self.producer.send(topic, value=value, key=key, partition=partition)))

    def flush(self, timeout: float = 30):
        self.run(self.producer.flush(), timeout)
        futures, self.futures = self.futures, []
        for f in futures:
            self.run(f, 1)

    def send_offsets(self, offsets: dict, group: str):
        from aiokafka import TopicPartition as AioTp
        self.run(self.producer.send_offsets_to_transaction({AioTp(t, p): o for (t, p), o in offsets.items()}, group))

    def commit(self):
        self.run(self.producer.commit_transaction())

    def abort(self):
        self.run(self.producer.abort_transaction())

    def close(self):
        if self.started:
            self.run(self.producer.stop(), 20)
        self.loop.close()


TXN_PRODUCERS = [KafkaPythonTxnProducer, ConfluentTxnProducer, AioKafkaTxnProducer]

FENCED_ERRORS = {"INVALID_PRODUCER_EPOCH", "PRODUCER_FENCED", "_FENCED"}


def is_fenced(exc: BaseException) -> bool:
    """Whether a client's exception says the producer was fenced by a newer epoch of its transactional id."""
    from confluent_kafka import KafkaError, KafkaException
    if isinstance(exc, SystemError) and exc.__cause__ is not None:
        # confluent-kafka raises a fatal error from inside a delivery callback's C frame as
        # "SystemError: ... returned a result with an exception set", the error as its __cause__
        return is_fenced(exc.__cause__)
    if isinstance(exc, KafkaException) and isinstance(exc.args[0], KafkaError):
        return exc.args[0].name() in FENCED_ERRORS
    names = {type(exc).__name__, getattr(exc, "message", None)}
    if getattr(exc, "errno", None) in (47, 90):
        return True
    return bool(names & {"ProducerFencedError", "InvalidProducerEpochError", "ProducerFenced",
                         "INVALID_PRODUCER_EPOCH", "PRODUCER_FENCED"})


def read_to_end_confluent(bootstrap: str, topic: str, partitions, isolation: str = "read_committed",
                          timeout: float = 60) -> list[Consumed]:
    """Every record of ``partitions`` from offset 0 to the end librdkafka reports as partition EOF: the last
    stable offset under ``read_committed``, the high watermark under ``read_uncommitted``."""
    import time
    from confluent_kafka import KafkaError, TopicPartition as CkTp
    from confluent_kafka import Consumer, TIMESTAMP_CREATE_TIME
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "kafkalite-assign-only-reader",
                         "enable.auto.commit": False, "enable.partition.eof": True, "isolation.level": isolation})
    try:
        consumer.assign([CkTp(topic, p, 0) for p in partitions])
        out, at_end, deadline = [], set(), time.monotonic() + timeout
        while at_end != set(partitions):
            assert time.monotonic() < deadline, \
                f"{isolation} reader of {topic} reached the end of {sorted(at_end)} only, after {timeout} s"
            for m in consumer.consume(num_messages=1000, timeout=0.5):
                if m.error() is not None:
                    assert m.error().code() == KafkaError._PARTITION_EOF, m.error()
                    at_end.add(m.partition())
                    continue
                ts_type, ts = m.timestamp()
                out.append(Consumed(m.partition(), m.offset(), m.key(), m.value(), tuple(m.headers() or ()), ts,
                                    "create" if ts_type == TIMESTAMP_CREATE_TIME else "log_append"))
        return out
    finally:
        consumer.close()


def read_to_end_kafka_python(bootstrap: str, topic: str, partitions, isolation: str = "read_committed",
                             timeout: float = 60) -> list[Consumed]:
    """Every record of ``partitions`` from offset 0 until the consumer's position reaches the end offset its
    ListOffsets returned (kafka-python asks with its ``isolation_level``: the LSO under read_committed)."""
    import time
    from kafka import KafkaConsumer, TopicPartition as KpTp
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                             request_timeout_ms=30000, isolation_level=isolation)
    try:
        tps = [KpTp(topic, p) for p in partitions]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        ends = consumer.end_offsets(tps)
        out, deadline = [], time.monotonic() + timeout
        while any(consumer.position(tp) < ends[tp] for tp in tps):
            assert time.monotonic() < deadline, (f"{isolation} reader of {topic} at "
                                                 f"{[consumer.position(tp) for tp in tps]}, ends {ends}")
            for batch in consumer.poll(timeout_ms=500).values():
                out += [Consumed(m.partition, m.offset, m.key, m.value, tuple(m.headers or ()), m.timestamp,
                                 "create" if m.timestamp_type == 0 else "log_append") for m in batch]
        return out
    finally:
        consumer.close()


def read_to_end_kcat(bootstrap: str, topic: str, isolation: str = "read_committed") -> list[Consumed]:
    """``kcat -C -e -X isolation.level=...``: every partition of ``topic`` to its end."""
    return read_kcat(bootstrap, topic, 10 ** 9, extra=("-X", f"isolation.level={isolation}"))


def watermarks(bootstrap: str, topic: str, partition: int, isolation: str = "read_uncommitted") -> tuple[int, int]:
    """(low, high) from ListOffsets as librdkafka sends it: the high one is the last stable offset when
    ``isolation`` is read_committed, the high watermark when it is read_uncommitted."""
    from confluent_kafka import Consumer, TopicPartition as CkTp
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "kafkalite-watermarks",
                         "isolation.level": isolation})
    try:
        return consumer.get_watermark_offsets(CkTp(topic, partition), timeout=10, cached=False)
    finally:
        consumer.close()


def committed_offsets(bootstrap: str, group: str, topic: str, partitions) -> dict[int, int | None]:
    """{partition: the group's committed offset, None when it has none} (OffsetFetch through librdkafka)."""
    from confluent_kafka import Consumer, TopicPartition as CkTp
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        got = consumer.committed([CkTp(topic, p) for p in partitions], timeout=15)
        return {tp.partition: (tp.offset if tp.offset >= 0 else None) for tp in got}
    finally:
        consumer.close()


def java_string_hash(s: str) -> int:
    """Java's ``String.hashCode`` (UTF-16 code units, 32-bit wrap-around)."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i:i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def transaction_state_partition(transactional_id: str, partitions: int = 50) -> int:
    """The ``__transaction_state`` partition of a transactional id as Kafka computes it
    (``TransactionStateManager.partitionFor``: ``Utils.abs(id.hashCode) % transactionTopicPartitionCount``)."""
    return (java_string_hash(transactional_id) & 0x7FFFFFFF) % partitions


def wait_stable(bootstrap: str, topic: str, partitions, timeout: float = 30) -> dict[int, int]:
    """Wait until no transaction is open on any of ``partitions`` of ``topic`` (ListOffsets(read_committed),
    the last stable offset, equals ListOffsets(read_uncommitted), the high watermark: every marker is
    written); return {partition: high watermark}."""
    from support import wait_until
    last = []

    def stable():
        hw = {p: watermarks(bootstrap, topic, p, "read_uncommitted")[1] for p in partitions}
        lso = {p: watermarks(bootstrap, topic, p, "read_committed")[1] for p in partitions}
        last[:] = [lso, hw]
        return hw if lso == hw else None
    try:
        return wait_until(stable, timeout, f"the last stable offset of {topic} to reach its high watermark",
                          interval=0.1)
    except AssertionError as e:
        raise AssertionError(f"{e}; last [LSO, HW] = {last}") from None


def committed_offsets_raw(port: int, group: str, topic: str, partitions, version: int = 5) -> dict[int, int | None]:
    """{partition: committed offset or None} from a raw OffsetFetch sent to the broker on ``port`` (it must be the
    group's coordinator: one broker). Version 5 is Kafka 2.4's: it answers the committed offsets and ignores
    pending transactional ones, where librdkafka's v7 ``require_stable`` waits until they are settled."""
    from harness import RawConnection
    from kafkalite.protocol.messages.offset_fetch import OffsetFetchRequest, OffsetFetchRequestTopic
    with RawConnection(port) as conn:
        response = raw_request(conn, 9, version, OffsetFetchRequest(
            group_id=group, topics=[OffsetFetchRequestTopic(name=topic, partition_indexes=list(partitions))]))
    assert response.error_code == 0, f"OffsetFetch: {error_name(response.error_code)}"
    [t] = response.topics
    assert all(p.error_code == 0 for p in t.partitions), [(p.partition_index, p.error_code) for p in t.partitions]
    return {p.partition_index: (p.committed_offset if p.committed_offset >= 0 else None) for p in t.partitions}

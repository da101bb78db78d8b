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


def read_kcat(bootstrap: str, topic: str, count: int) -> list[Consumed]:
    """``kcat -C -J -o beginning -e``: every partition to its end, as JSON lines."""
    proc = subprocess.run(["kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-J", "-q",
                           "-c", str(count), "-X", "check.crcs=true"],
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

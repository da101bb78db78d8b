"""SSL listeners with real clients (issue 16): kafka-python, confluent-kafka (librdkafka), aiokafka, kcat,
kafkajs and kafkalite's own clients produce and consume over TLS, server-verified and with mutual TLS
(``ssl.client.auth=required``); a client that does not trust the broker's CA and a client without a
certificate under required client auth are refused with their usual SSL errors while other connections
keep working; hostile bytes on the TLS port (garbage, truncated and mangled ClientHellos, a handshake that
never comes) close only those connections, bounded by ``connections.max.idle.ms``, and a hypothesis run of altered,
cut and oversized handshakes and records does the same while a TLS connection beside them keeps answering (a record
that fails authentication is refused at once); a bad key store stops
start-up with one line; three brokers replicate over an SSL inter-broker listener.

One broker serves the module, with three listeners: PLAINTEXT (the harness's readiness check and topic
creation), SSL (server-verified: ssl.client.auth=none) and MTLS (an SSL listener whose
``listener.name.mtls.ssl.client.auth=required`` override asks for client certificates).
Certificates come from ``ssl_certs.make_certs`` (the ``openssl`` command line, in a temporary directory).
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import ssl
import subprocess
import time

import pytest

from clients import JS_DIR, KafkaPythonAdmin
from harness import REPO_ROOT, BrokerProcess, free_port, wait_until
from support import rss
from ssl_certs import PASSWORD, make_certs

pytestmark = pytest.mark.timeout(300)
IDLE_MS = 3000


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(str(tmp_path_factory.mktemp("certs")))


class SslBroker:
    def __init__(self, workdir, certs):
        self.ssl_port, self.mtls_port = free_port(), free_port()
        self.broker = BrokerProcess(workdir, {})
        self.broker.overrides.update({
            "listeners": f"PLAINTEXT://127.0.0.1:{self.broker.port},SSL://127.0.0.1:{self.ssl_port},"
                         f"MTLS://127.0.0.1:{self.mtls_port}",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL",
            "connections.max.idle.ms": IDLE_MS,
            **certs.broker_props("none"),
            "listener.name.mtls.ssl.client.auth": "required",
        })

    def bootstrap(self, listener: str) -> str:
        return f"127.0.0.1:{self.mtls_port if listener == 'MTLS' else self.ssl_port}"


@pytest.fixture(scope="module")
def ssl_broker(tmp_path_factory, certs):
    b = SslBroker(tmp_path_factory.mktemp("ssl-broker"), certs)
    b.broker.start()
    yield b
    b.broker.stop()
    print(f"\n--- ssl broker log:\n{b.broker.log_tail(60)}")


def create_topic(ssl_broker, name: str) -> None:
    admin = KafkaPythonAdmin(ssl_broker.broker.bootstrap)
    try:
        assert admin.create(name, 1) is None
    finally:
        admin.close()


# --------------------------------------------------------------------------- one adapter per client
def kafka_python_config(certs, mutual, ca=None):
    c = {"security_protocol": "SSL", "ssl_cafile": ca or certs.ca}
    if mutual:
        c.update({"ssl_certfile": certs.client_crt, "ssl_keyfile": certs.client_key})
    return c


def run_kafka_python(bootstrap, topic, values, certs, mutual, _tmp):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    config = kafka_python_config(certs, mutual)
    producer = KafkaProducer(bootstrap_servers=bootstrap, request_timeout_ms=15000, **config)
    try:
        for f in [producer.send(topic, v.encode()) for v in values]:
            f.get(timeout=30)
    finally:
        producer.close(10)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False, **config)
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek(tp, 0)
        out, deadline = [], time.monotonic() + 60
        while len(out) < len(values) and time.monotonic() < deadline:
            for batch in consumer.poll(timeout_ms=500).values():
                out += [m.value.decode() for m in batch]
        return out
    finally:
        consumer.close()


def confluent_config(certs, mutual, ca=None):
    c = {"security.protocol": "SSL", "ssl.ca.location": ca or certs.ca}
    if mutual:
        c.update({"ssl.certificate.location": certs.client_crt, "ssl.key.location": certs.client_key})
    return c


def run_confluent(bootstrap, topic, values, certs, mutual, _tmp):
    from confluent_kafka import Consumer, Producer, TopicPartition
    config = {"bootstrap.servers": bootstrap, **confluent_config(certs, mutual)}
    producer = Producer(config)
    for v in values:
        producer.produce(topic, v.encode())
    assert producer.flush(60) == 0
    consumer = Consumer({**config, "group.id": f"{topic}-g", "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        out, deadline = [], time.monotonic() + 60
        while len(out) < len(values) and time.monotonic() < deadline:
            for m in consumer.consume(num_messages=100, timeout=0.5):
                assert m.error() is None, m.error()
                out.append(m.value().decode())
        return out
    finally:
        consumer.close()


def aiokafka_context(certs, mutual, ca=None):
    from aiokafka.helpers import create_ssl_context
    if mutual:
        return create_ssl_context(cafile=ca or certs.ca, certfile=certs.client_crt, keyfile=certs.client_key)
    return create_ssl_context(cafile=ca or certs.ca)


def run_aiokafka(bootstrap, topic, values, certs, mutual, _tmp):
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

    async def run():
        ctx = aiokafka_context(certs, mutual)
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, security_protocol="SSL", ssl_context=ctx)
        await producer.start()
        try:
            for v in values:
                await producer.send_and_wait(topic, v.encode())
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, security_protocol="SSL", ssl_context=ctx,
                                    group_id=None, enable_auto_commit=False)
        await consumer.start()
        try:
            tp = TopicPartition(topic, 0)
            consumer.assign([tp])
            consumer.seek(tp, 0)
            out = []
            while len(out) < len(values):
                for batch in (await consumer.getmany(timeout_ms=500)).values():
                    out += [m.value.decode() for m in batch]
            return out
        finally:
            await consumer.stop()

    return asyncio.run(asyncio.wait_for(run(), 90))


def kcat_ssl_args(certs, mutual, ca=None):
    args = ["-X", "security.protocol=ssl", "-X", f"ssl.ca.location={ca or certs.ca}"]
    if mutual:
        args += ["-X", f"ssl.certificate.location={certs.client_crt}", "-X", f"ssl.key.location={certs.client_key}"]
    return args


def run_kcat(bootstrap, topic, values, certs, mutual, tmp):
    path = tmp / f"{topic}.in"
    path.write_text("".join(v + "\n" for v in values))
    args = kcat_ssl_args(certs, mutual)
    proc = subprocess.run(["kcat", "-P", "-b", bootstrap, "-t", topic, "-p", "0", *args, "-l", str(path)],
                          capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = subprocess.run(["kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q",
                           "-c", str(len(values)), *args], capture_output=True, text=True, timeout=90,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines()


def run_kafkajs_script(bootstrap, topic, count, ca, cert=None, key=None) -> dict:
    proc = subprocess.run(["node", str(JS_DIR / "ssl_produce_consume.js"), bootstrap, topic, str(count), ca,
                           *([cert, key] if cert else [])], capture_output=True, text=True, timeout=150,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_kafkajs(bootstrap, topic, values, certs, mutual, _tmp):
    out = run_kafkajs_script(bootstrap, topic, len(values), certs.ca,
                             *((certs.client_crt, certs.client_key) if mutual else ()))
    assert out["ok"], out
    return out["result"]["values"]


def kafkalite_config(bootstrap, certs, mutual):
    c = {"bootstrap.servers": bootstrap, "security.protocol": "SSL", "ssl.truststore.type": "PEM",
         "ssl.truststore.location": certs.ca}
    if mutual:   # the PKCS12 client key store, as a Java client would hold it
        c.update({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": certs.client_p12,
                  "ssl.keystore.password": PASSWORD})
    return c


def run_kafkalite(bootstrap, topic, values, certs, mutual, _tmp):
    from kafkalite.clients.consumer.kafka_consumer import KafkaConsumer
    from kafkalite.clients.producer.kafka_producer import KafkaProducer
    from kafkalite.common.topic_partition import TopicPartition
    config = kafkalite_config(bootstrap, certs, mutual)
    producer = KafkaProducer(dict(config))
    try:
        for f in [producer.send(topic, v.encode()) for v in values]:
            f.get(30)
    finally:
        producer.close()
    consumer = KafkaConsumer(dict(config, **{"group.id": None, "enable.auto.commit": False}))
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek(tp, 0)
        out, deadline = [], time.monotonic() + 60
        while len(out) < len(values) and time.monotonic() < deadline:
            out += [r.value.decode() for r in consumer.poll(500)]
        return out
    finally:
        consumer.close()


CLIENTS = {"kafka-python": run_kafka_python, "confluent-kafka": run_confluent, "aiokafka": run_aiokafka,
           "kcat": run_kcat, "kafkajs": run_kafkajs, "kafkalite": run_kafkalite}


@pytest.mark.parametrize("listener", ["SSL", "MTLS"], ids=["server-verified", "mutual-tls"])
@pytest.mark.parametrize("client", list(CLIENTS))
def test_client_produces_and_consumes_over_ssl(ssl_broker, certs, client, listener, unique_topic, tmp_path):
    if client != "kafkajs":   # the kafkajs script creates its topic through its own admin client
        create_topic(ssl_broker, unique_topic)
    values = [f"v{i}" for i in range(20)]
    got = CLIENTS[client](ssl_broker.bootstrap(listener), unique_topic, values, certs, listener == "MTLS", tmp_path)
    assert got == values


def test_request_context_carries_the_client_certificate_principal(tmp_path, certs, caplog):
    """In-process broker with an SSL listener requiring client certificates: kafka.request.logger's line of
    each completed request names securityProtocol:SSL and principal:User:<certificate subject>, as Kafka's."""
    import logging
    from harness import InProcessBroker
    from ssl_certs import CLIENT_PRINCIPAL
    broker = InProcessBroker(tmp_path / "logs", {"listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                                                 **certs.broker_props("required")}).start()
    try:
        port = broker.server.bound_port("SSL")
        topic = "principal-topic"
        create_topic_at(broker.bootstrap, topic)
        with caplog.at_level(logging.DEBUG, logger="kafka.request.logger"):
            assert run_kafka_python(f"127.0.0.1:{port}", topic, ["x"], certs, True, tmp_path) == ["x"]
        lines = [r.getMessage() for r in caplog.records if r.name == "kafka.request.logger"
                 and "Completed request" in r.getMessage() and "listener:SSL" in r.getMessage()]
        assert lines and all(f"principal:{CLIENT_PRINCIPAL}" in line and "securityProtocol:SSL" in line
                             for line in lines), lines[:3]
    finally:
        broker.stop()


def create_topic_at(bootstrap: str, name: str) -> None:
    admin = KafkaPythonAdmin(bootstrap)
    try:
        assert admin.create(name, 1) is None
    finally:
        admin.close()


def test_large_records_both_ways_over_mutual_tls(ssl_broker, certs, unique_topic):
    """900 KB records: requests and responses of many TLS records, partial reads and writes on both sides."""
    from confluent_kafka import Consumer, Producer, TopicPartition
    create_topic(ssl_broker, unique_topic)
    bootstrap = ssl_broker.bootstrap("MTLS")
    config = {"bootstrap.servers": bootstrap, **confluent_config(certs, True)}
    values = [os.urandom(900_000) for _ in range(12)]
    producer = Producer({**config, "linger.ms": 50})
    for v in values:
        producer.produce(unique_topic, v)
    assert producer.flush(60) == 0
    consumer = Consumer({**config, "group.id": f"{unique_topic}-g", "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(unique_topic, 0, 0)])
        got, deadline = [], time.monotonic() + 60
        while len(got) < len(values) and time.monotonic() < deadline:
            for m in consumer.consume(num_messages=100, timeout=0.5):
                assert m.error() is None, m.error()
                got.append(m.value())
    finally:
        consumer.close()
    assert got == values


# --------------------------------------------------------------------------- refused clients
def assert_good_client_works(ssl_broker, certs, listener, unique_topic, tmp_path):
    topic = f"{unique_topic}-after"
    create_topic(ssl_broker, topic)
    assert run_kafka_python(ssl_broker.bootstrap(listener), topic, ["ok"], certs, listener == "MTLS", tmp_path) \
        == ["ok"]


def kafka_python_refusal(bootstrap, config, caplog) -> str:
    """kafka-python 3 cannot bootstrap and logs why ("Bootstrap connection to ... failed: <SSL error>")."""
    import logging
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaTimeoutError
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="kafka"), pytest.raises(KafkaTimeoutError):
        KafkaAdminClient(bootstrap_servers=bootstrap, bootstrap_timeout_ms=3000, **config)
    return "\n".join(r.getMessage() for r in caplog.records if "failed" in r.getMessage())


def confluent_errors(bootstrap, config) -> list[str]:
    """librdkafka's errors (error_cb, served by poll) until one names SSL, at most 15 s."""
    from confluent_kafka import Producer
    errors = []
    producer = Producer({"bootstrap.servers": bootstrap, "error_cb": lambda e: errors.append(e.str()),
                         "log_level": 0, **config})
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not any("SSL" in e for e in errors):
        producer.poll(0.2)
    return errors


def test_client_that_does_not_trust_the_broker_is_refused(ssl_broker, certs, unique_topic, tmp_path, caplog):
    bootstrap = ssl_broker.bootstrap("SSL")
    # kafka-python: the handshake fails on certificate verification, so it cannot bootstrap
    why = kafka_python_refusal(bootstrap, kafka_python_config(certs, False, ca=certs.rogue_ca), caplog)
    assert "CERTIFICATE_VERIFY_FAILED" in why, why
    # librdkafka: its SSL error, "certificate verify failed"
    errors = confluent_errors(bootstrap, confluent_config(certs, False, ca=certs.rogue_ca))
    assert any("certificate verify failed" in e for e in errors), errors
    # kcat
    proc = subprocess.run(["kcat", "-L", "-b", bootstrap, "-m", "5", *kcat_ssl_args(certs, False, ca=certs.rogue_ca)],
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert proc.returncode != 0 and "certificate verify failed" in proc.stderr, proc.stderr[-2000:]
    # aiokafka
    from aiokafka import AIOKafkaProducer
    from aiokafka.errors import KafkaConnectionError

    async def aio():
        p = AIOKafkaProducer(bootstrap_servers=bootstrap, security_protocol="SSL",
                             ssl_context=aiokafka_context(certs, False, ca=certs.rogue_ca), request_timeout_ms=5000)
        try:
            await p.start()
        finally:
            await p.stop()

    with pytest.raises(KafkaConnectionError):
        asyncio.run(asyncio.wait_for(aio(), 60))
    # kafkalite's own producer and consumer: the failed authentication reaches the caller (Kafka: Metadata's fatal
    # exception) instead of a timeout after max.block.ms, and NetworkClient logs why
    import logging
    from kafkalite.clients.consumer.kafka_consumer import KafkaConsumer as KlConsumer
    from kafkalite.clients.producer.kafka_producer import KafkaProducer as KlProducer
    from kafkalite.common.topic_partition import TopicPartition as KlTopicPartition
    from kafkalite.network.kafka_channel import AuthenticationException
    untrusting = {**kafkalite_config(bootstrap, certs, False), "ssl.truststore.location": certs.rogue_ca}
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="kafka.clients.NetworkClient"):
        producer = KlProducer({**untrusting, "max.block.ms": 120_000})
        try:
            with pytest.raises(AuthenticationException, match="CERTIFICATE_VERIFY_FAILED"):
                producer.send(f"{unique_topic}-kl", b"v").get(120)
        finally:
            producer.close()
        consumer = KlConsumer({**untrusting, "group.id": None, "enable.auto.commit": False})
        try:
            consumer.assign([KlTopicPartition(f"{unique_topic}-kl", 0)])
            with pytest.raises(AuthenticationException, match="CERTIFICATE_VERIFY_FAILED"):
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    consumer.poll(500)
        finally:
            consumer.close()
    assert any("failed authentication" in r.getMessage() and "CERTIFICATE_VERIFY_FAILED" in r.getMessage()
               for r in caplog.records), [r.getMessage() for r in caplog.records]
    # kafkajs: node's TLS error
    out = run_kafkajs_script(bootstrap, f"{unique_topic}-js", 1, certs.rogue_ca)
    assert not out["ok"] and "certificate" in out["error"], out
    assert_good_client_works(ssl_broker, certs, "SSL", unique_topic, tmp_path)


def test_client_without_certificate_is_refused_under_required_client_auth(ssl_broker, certs, unique_topic,
                                                                           tmp_path, caplog):
    bootstrap = ssl_broker.bootstrap("MTLS")
    # TLS 1.3: the client finishes its side of the handshake; the broker's "certificate required" alert
    # comes on the client's first read
    errors = confluent_errors(bootstrap, confluent_config(certs, False))
    assert any("certificate required" in e for e in errors), errors
    proc = subprocess.run(["kcat", "-L", "-b", bootstrap, "-m", "5", *kcat_ssl_args(certs, False)],
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert proc.returncode != 0, proc.stdout
    why = kafka_python_refusal(bootstrap, kafka_python_config(certs, False), caplog)
    assert "CERTIFICATE_REQUIRED" in why or "certificate required" in why, why
    # a certificate from a CA the broker does not trust is refused too
    errors = confluent_errors(bootstrap, {**confluent_config(certs, False),
                                          "ssl.certificate.location": certs.rogue_client_crt,
                                          "ssl.key.location": certs.rogue_client_key})
    assert any("SSL" in e for e in errors), errors
    out = run_kafkajs_script(bootstrap, f"{unique_topic}-js", 1, certs.ca)
    assert not out["ok"], out
    assert_good_client_works(ssl_broker, certs, "MTLS", unique_topic, tmp_path)
    log = ssl_broker.broker.log_text()
    assert "Failed authentication with" in log and "Traceback" not in log


# --------------------------------------------------------------------------- hostile bytes
def client_hello() -> bytes:
    ctx = ssl.create_default_context()
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(incoming, outgoing, server_hostname="localhost")
    with pytest.raises(ssl.SSLWantReadError):
        obj.do_handshake()
    return outgoing.read()


def tls_client_after_handshake(port: int, ca: str):
    """A TLS client over a plain blocking socket and an SSLObject, so that the test can send raw (broken)
    TLS records after a real handshake: returns (sock, ssl_object, outgoing BIO, incoming BIO)."""
    ctx = ssl.create_default_context(cafile=ca)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    while True:
        try:
            obj.do_handshake()
            break
        except ssl.SSLWantReadError:
            sock.sendall(outgoing.read())
            data = sock.recv(65536)
            assert data, "the broker closed during the handshake"
            incoming.write(data)
    sock.sendall(outgoing.read())
    return sock, obj, outgoing, incoming


def closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(0.2)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if sock.recv(65536) == b"":
                return True
        except socket.timeout:
            continue
        except OSError:
            return True
    return False


def test_hostile_bytes_close_only_their_own_connection(ssl_broker, certs, unique_topic, tmp_path):
    port = ssl_broker.ssl_port
    hello = client_hello()
    rng = random.Random(16)

    def connect():
        return socket.create_connection(("127.0.0.1", port), timeout=5)

    # a handshake that never comes, and one that stops half-way, stay open at most connections.max.idle.ms
    stalled, half = connect(), connect()
    half.sendall(hello[:len(hello) // 2])
    # garbage, a Kafka request in plaintext, and mangled ClientHellos fail their handshakes at once
    quick = []
    for payload in [os.urandom(300), bytes.fromhex("0000000a00120000000000010000"),
                    b"\x16\x03\x01\xff\xff" + os.urandom(40)]:
        s = connect()
        s.sendall(payload)
        quick.append(s)
    for cut in sorted(rng.sample(range(1, len(hello)), 10)):   # ClientHellos truncated anywhere, then EOF
        s = connect()
        s.sendall(hello[:cut])
        s.shutdown(socket.SHUT_WR)
        quick.append(s)
    for _ in range(20):
        mangled = bytearray(hello)
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(5, len(mangled))   # keep the record header, break the body
            mangled[i] = rng.randrange(256)
        s = connect()
        s.sendall(bytes(mangled))
        s.shutdown(socket.SHUT_WR)
        quick.append(s)
    # after a real handshake: a request record cut in half (then EOF), and one whose ciphertext was altered
    for damage in ("truncate", "corrupt"):
        sock, obj, outgoing, _ = tls_client_after_handshake(port, certs.ca)
        obj.write(API_VERSIONS_V0)   # an ApiVersions v0 request, encrypted
        record = bytearray(outgoing.read())
        if damage == "truncate":
            sock.sendall(bytes(record[:len(record) // 2]))
            sock.shutdown(socket.SHUT_WR)
        else:
            record[-3] ^= 0xFF
            sock.sendall(bytes(record))
        quick.append(sock)
    # meanwhile a real client works, over the same listener
    topic = f"{unique_topic}-t"
    create_topic(ssl_broker, topic)
    assert run_kafka_python(ssl_broker.bootstrap("SSL"), topic, ["a", "b"], certs, False, tmp_path) == ["a", "b"]
    for s in quick:
        assert closed_within(s, 10), "a connection with bad TLS bytes was left open"
        s.close()
    for s in (stalled, half):
        assert closed_within(s, IDLE_MS / 1000 + 10), "a stalled handshake outlived connections.max.idle.ms"
        s.close()
    assert ssl_broker.broker.running
    assert "Processor got uncaught exception" not in ssl_broker.broker.log_text()
    create_topic(ssl_broker, f"{topic}-2")
    assert run_kafka_python(ssl_broker.bootstrap("MTLS"), f"{topic}-2", ["c"], certs, True, tmp_path) == ["c"]


API_VERSIONS_V0 = bytes.fromhex("0000000a00120000000000010000")   # size 10, key 18, v0, correlation id 1, null-free empty client id


def tls_round_trip(sock, obj, outgoing, incoming, correlation_id: int) -> int:
    """Send an ApiVersions v0 request over an established TLS client and return the correlation id answered."""
    obj.write(API_VERSIONS_V0[:8] + correlation_id.to_bytes(4, "big") + API_VERSIONS_V0[12:])
    sock.sendall(outgoing.read())
    data = b""
    sock.settimeout(10)
    while True:
        try:
            chunk = obj.read(65536)
            assert chunk, "the broker ended a healthy TLS connection (close_notify)"
            data += chunk
        except ssl.SSLWantReadError:
            chunk = sock.recv(65536)
            assert chunk, "the broker closed a healthy TLS connection"
            incoming.write(chunk)
            continue
        if len(data) >= 4 and len(data) >= 4 + int.from_bytes(data[:4], "big"):
            return int.from_bytes(data[4:8], "big")


@pytest.mark.timeout(300)
def test_fuzzed_tls_handshakes_and_records_close_only_their_connection(ssl_broker, certs):
    """Hypothesis against the SSL handshake and the records after it: ClientHellos with bytes changed, cut or
    followed by garbage, random bytes, and after a real handshake encrypted requests whose records are altered,
    cut short or announce a huge length. Each bad connection is closed (at once, or at EOF); a TLS connection
    opened before the run keeps answering between examples, the broker's memory stays bounded."""
    from hypothesis import HealthCheck, given, settings, strategies as st

    port = ssl_broker.ssl_port
    hello = client_hello()
    pid = ssl_broker.broker.proc.pid
    rss_start = rss(pid)
    bystander = tls_client_after_handshake(port, certs.ca)
    counter = iter(range(1000, 10**6))
    assert tls_round_trip(*bystander, next(counter)) == 1000
    flips = st.lists(st.tuples(st.integers(min_value=0), st.integers(min_value=0, max_value=255)), max_size=8)

    pending = []   # connections left without EOF: the broker may wait for more bytes, up to connections.max.idle.ms

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(mode=st.sampled_from(["hello", "garbage", "record", "huge-record", "altered-record"]), flips=flips,
           cut=st.none() | st.integers(min_value=0), tail=st.binary(max_size=64), eof=st.booleans())
    def one(mode, flips, cut, tail, eof):
        if mode in ("hello", "garbage"):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            payload = bytearray(hello if mode == "hello" else os.urandom(1 + (cut or 0) % 400))
        else:
            sock, obj, outgoing, _ = tls_client_after_handshake(port, certs.ca)
            obj.write(API_VERSIONS_V0)
            payload = bytearray(outgoing.read())
            if mode == "huge-record":   # an application-data record header claiming 16 KiB + 2 KiB
                payload = bytearray(b"\x17\x03\x03\x48\x00") + payload[5:]
        if mode == "altered-record":
            # one whole record whose ciphertext was changed: its authentication fails, the broker closes at once
            i = 5 + (flips[0][0] if flips else 0) % (len(payload) - 5)
            payload[i] ^= 1 + (flips[0][1] if flips else 0) % 255
            fast = True
        else:
            for i, value in flips:
                payload[i % len(payload)] = value
            if cut is not None:
                payload = payload[:1 + cut % len(payload)]
            payload += tail
            fast = False
        try:
            sock.sendall(bytes(payload))
            if eof and not fast:
                sock.shutdown(socket.SHUT_WR)
        except OSError:
            sock.close()   # closed by the broker while we were still sending
        else:
            if fast:
                assert closed_within(sock, IDLE_MS / 2000), "a TLS record that fails authentication was not refused"
                sock.close()
            elif eof:
                assert closed_within(sock, 10), f"a {mode} connection with bad TLS bytes was left open after EOF"
                sock.close()
            else:
                pending.append(sock)
        assert tls_round_trip(*bystander, correlation_id := next(counter)) == correlation_id

    one()
    for sock in pending:
        assert closed_within(sock, IDLE_MS / 1000 + 10), "bad TLS bytes kept a connection past connections.max.idle.ms"
        sock.close()
    bystander[0].close()
    assert rss(pid) - rss_start < 100 * 1024 * 1024
    assert ssl_broker.broker.running
    assert "Processor got uncaught exception" not in ssl_broker.broker.log_text()


def test_close_notify_is_answered_with_close_notify(ssl_broker, certs):
    """A client ending TLS with close_notify gets the broker's close_notify back at once, then EOF: clients that
    wait for the TLS shutdown (asyncio's SSL transport under aiokafka waits up to 30 s) are not held."""
    ctx = ssl.create_default_context(cafile=certs.ca)
    sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", ssl_broker.ssl_port), timeout=5),
                           server_hostname="127.0.0.1")
    sock.sendall(API_VERSIONS_V0)
    response = sock.recv(4)
    while len(response) < 4 + int.from_bytes(response[:4], "big"):
        response += sock.recv(65536)
    assert response[4:8] == API_VERSIONS_V0[8:12]   # the correlation id: a healthy connection until here
    sock.settimeout(IDLE_MS / 3000)   # well inside connections.max.idle.ms, which would close it anyway
    plain = sock.unwrap()   # sends close_notify, waits for the broker's: TimeoutError if none comes
    assert closed_within(plain, IDLE_MS / 3000), "the broker kept the TCP connection after the TLS shutdown"
    plain.close()


# --------------------------------------------------------------------------- configuration
def test_bad_key_store_password_stops_start_up_with_one_line(tmp_path, certs):
    port, ssl_port = free_port(), free_port()
    cmd = [str(REPO_ROOT / "bin" / "kafka-server-start"), str(REPO_ROOT / "server.properties")]
    for k, v in {"log.dirs": tmp_path / "logs", "listeners": f"PLAINTEXT://127.0.0.1:{port},SSL://127.0.0.1:{ssl_port}",
                 **certs.broker_props(), "ssl.keystore.password": "wrong"}.items():
        cmd += ["--override", f"{k}={v}"]
    proc = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "Traceback" not in out, out[-3000:]
    lines = [line for line in out.splitlines() if "ssl.keystore.location" in line and certs.broker_p12 in line]
    assert len(lines) == 1, out[-3000:]


def test_example_ssl_config_and_gen_certs_tool(tmp_path):
    """docs/security.md's five minutes: bin/kafkalite-gen-certs, then config/ssl/server-ssl.properties (its
    ssl.* locations pointed at the generated files, its ports moved to free ones), then kcat over TLS."""
    from harness import run_tool
    certs_dir = tmp_path / "certs"
    run_tool("kafkalite-gen-certs", "--dir", certs_dir)
    assert {"ca.crt", "broker.p12", "broker.pem", "client.p12", "client.pem"} <= set(os.listdir(certs_dir))
    ssl_port = free_port()
    broker = BrokerProcess(tmp_path / "broker", {
        "ssl.keystore.location": certs_dir / "broker.p12", "ssl.truststore.location": certs_dir / "ca.crt",
        "log.dirs": tmp_path / "logs"}, properties=REPO_ROOT / "config" / "ssl" / "server-ssl.properties")
    broker.overrides["listeners"] = f"PLAINTEXT://127.0.0.1:{broker.port},SSL://127.0.0.1:{ssl_port}"
    broker.start()
    try:
        proc = subprocess.run(["kcat", "-b", f"127.0.0.1:{ssl_port}", "-L", "-m", "10", "-X", "security.protocol=ssl",
                               "-X", f"ssl.ca.location={certs_dir / 'ca.crt'}"], capture_output=True, text=True,
                              timeout=30, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0 and "1 brokers" in proc.stdout, proc.stderr
    finally:
        broker.stop()


# --------------------------------------------------------------------------- inter-broker over SSL
@pytest.mark.cluster
@pytest.mark.slow
def test_three_brokers_replicate_over_an_ssl_inter_broker_listener(tmp_path, certs, unique_topic):
    from cluster_harness import ClusterProcesses, zookeeper_available
    if not zookeeper_available():
        pytest.skip("no ZooKeeper")
    internal_ports = [free_port() for _ in range(3)]
    cluster = ClusterProcesses(tmp_path, 3, {
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:SSL",
        "inter.broker.listener.name": "INTERNAL",
        **certs.broker_props("required", pkcs12=False),   # brokers show each other their certificates
    }, broker_overrides=lambda i: {
        "listeners": f"PLAINTEXT://127.0.0.1:{{port}},INTERNAL://127.0.0.1:{internal_ports[i]}"})
    try:
        cluster.start()
        cluster.create_topic(unique_topic, [0, 1, 2])
        from kafka import KafkaProducer
        producer = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all", request_timeout_ms=15000)
        try:
            for f in [producer.send(unique_topic, b"r%d" % i) for i in range(50)]:
                f.get(timeout=30)
        finally:
            producer.close(10)
        wait_until(lambda: all(cluster.log_end_offset(i, unique_topic, 0) == 50 for i in range(3)), 30,
                   "every replica to hold the 50 records")
        logs = "".join(b.log_text() for b in cluster.brokers)
        assert "Failed authentication" not in logs
    finally:
        cluster.stop()


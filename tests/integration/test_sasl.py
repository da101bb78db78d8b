"""No Kafka counterpart (Kafka's SaslPlainSslEndToEndAuthorizationTest, SaslScramSslEndToEndAuthorizationTest and
SaslAuthenticatorTest cover the same ground in the JVM): SASL_PLAINTEXT listeners with real clients.

One broker process (module scope) has a PLAINTEXT listener (inter-broker, and how the first SCRAM users are made)
and a SASL_PLAINTEXT listener with PLAIN (users in its JAAS entry) and SCRAM-SHA-256/512 (users created with
``kafka-configs --entity-type users``, stored in ``/config/users`` of the broker's embedded ZooKeeper).
kafka-python, confluent-kafka, aiokafka, kcat, kafkajs and kafkalite's own clients produce and consume with each
mechanism; a wrong password gets each client's own authentication error while other connections go on; the
raw-protocol tests check the state machine (a request before the handshake, an unknown mechanism, the
handshake after authentication, KIP-368's session lifetime); a bounded hypothesis run throws malformed
handshake frames and SCRAM tokens at the listener; and a 3-broker cluster replicates over a SASL_PLAINTEXT
inter-broker listener.
"""
from __future__ import annotations

import json
import os
import struct
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from harness import BrokerProcess, RawConnection, free_port, request_header, run_tool, wait_until
from support import rss
from clients import JS_DIR

ADMIN_PASSWORD = "admin-secret"
PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
              f'password="{ADMIN_PASSWORD}" user_admin="{ADMIN_PASSWORD}" user_alice="alice-secret";')
SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required;'
OAUTH_JAAS = ('org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required '
              'unsecuredLoginStringClaim_sub="admin" unsecuredValidatorAllowableClockSkewMs="1000";')
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
LISTENER_MECHANISMS = [*MECHANISMS, "OAUTHBEARER"]   # what the SASL_PLAINTEXT listener of sasl_overrides offers
PASSWORDS = {"PLAIN": ("alice", "alice-secret"), "SCRAM-SHA-256": ("scram256", "s256-secret"),
             "SCRAM-SHA-512": ("scram512", "s512-secret")}


def sasl_overrides(plain_port: int, sasl_port: int) -> dict:
    return {
        "listeners": f"PLAINTEXT://127.0.0.1:{plain_port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}",
        "sasl.enabled.mechanisms": ",".join(MECHANISMS),
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
        "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": SCRAM_JAAS,
        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": SCRAM_JAAS,
        "connection.failed.authentication.delay.ms": "50",
        # OAUTHBEARER with Kafka's default (unsecured) validator, enabled per listener
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": ",".join(MECHANISMS) + ",OAUTHBEARER",
        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config": OAUTH_JAAS,
    }


@pytest.fixture(scope="module")
def sasl_broker(tmp_path_factory):
    plain_port, sasl_port = free_port(), free_port()
    b = BrokerProcess(tmp_path_factory.mktemp("sasl-broker"), sasl_overrides(plain_port, sasl_port), port=plain_port)
    b.sasl_bootstrap = f"127.0.0.1:{sasl_port}"
    b.sasl_port = sasl_port
    b.start()
    try:
        for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
            user, password = PASSWORDS[mechanism]
            run_tool("kafka-configs", "--bootstrap-server", b.bootstrap, "--entity-type", "users",
                     "--entity-name", user, "--alter", "--add-config", f"{mechanism}=[iterations=8192,password={password}]")
            # the broker learns of the user from /config/changes, a moment after the tool returns
            wait_until(lambda m=mechanism: scram_user_known(b.sasl_port, m), 15, f"the broker to know {mechanism} user")
        yield b
    finally:
        b.stop()
        print(f"--- sasl broker log:\n{b.log_tail(40)}")


def scram_user_known(port: int, mechanism: str) -> bool:
    """One SCRAM exchange with kafkalite's own SCRAM client: True once the broker accepts the user."""
    from kafkalite.security.authenticator.scram_mechanism import ScramMechanism
    from kafkalite.security.authenticator.scram_sasl_client import ScramSaslClient
    user, password = PASSWORDS[mechanism]
    client = ScramSaslClient(ScramMechanism.for_mechanism_name(mechanism), user, password)
    with RawConnection(port) as conn:
        if handshake(conn, mechanism)[0] != 0:
            return False
        token = client.evaluate_challenge(b"")
        while not client.is_complete():
            error, _, answer, _ = authenticate(conn, token)
            if error:
                return False
            token = client.evaluate_challenge(answer)
        return True


def kafkalite_admin_authenticates(bootstrap: str, mechanism: str, ca: str) -> bool:
    from kafkalite.clients.admin.admin_client import KafkaAdminClient
    user, password = PASSWORDS[mechanism]
    admin = KafkaAdminClient({**kafkalite_sasl_configs(bootstrap, mechanism, user, password, ca),
                              "default.api.timeout.ms": 5000})
    try:
        admin.list_topics()
        return True
    except Exception:   # noqa: BLE001 -- SASL_AUTHENTICATION_FAILED until the user is known
        return False
    finally:
        admin.close()


def topic() -> str:
    return f"sasl-{uuid.uuid4().hex[:10]}"


# ---------------------------------------------------------------- kafka-configs --entity-type users

def test_kafka_configs_describes_the_scram_users_it_created(sasl_broker):
    out = run_tool("kafka-configs", "--bootstrap-server", sasl_broker.bootstrap, "--entity-type", "users",
                   "--describe").stdout
    assert "SCRAM credential configs for user-principal 'scram256' are SCRAM-SHA-256=iterations=8192" in out
    assert "SCRAM credential configs for user-principal 'scram512' are SCRAM-SHA-512=iterations=8192" in out


def test_kafka_configs_over_sasl_with_command_config_adds_and_deletes_a_user(sasl_broker, tmp_path):
    props = tmp_path / "admin.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                     f"sasl.jaas.config={PLAIN_JAAS}\n")
    base = ["--bootstrap-server", sasl_broker.sasl_bootstrap, "--command-config", props, "--entity-type", "users"]
    out = run_tool("kafka-configs", *base, "--entity-name", "bob", "--alter", "--add-config",
                   "SCRAM-SHA-256=[password=bob-secret],SCRAM-SHA-512=[iterations=4096,password=bob-secret]").stdout
    assert out.strip() == "Completed updating config for user bob."
    out = run_tool("kafka-configs", *base, "--entity-name", "bob", "--describe").stdout
    assert out.strip() == ("SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=4096, "
                           "SCRAM-SHA-512=iterations=4096")
    run_tool("kafka-configs", *base, "--entity-name", "bob", "--alter", "--delete-config", "SCRAM-SHA-512")
    out = run_tool("kafka-configs", *base, "--entity-name", "bob", "--describe").stdout
    assert out.strip() == "SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=4096"
    bad = run_tool("kafka-configs", *base, "--entity-name", "bob", "--alter", "--add-config",
                   "SCRAM-SHA-256=[iterations=100,password=x]", check=False)
    assert bad.returncode == 1 and "Too few iterations" in bad.stderr


# ---------------------------------------------------------------- clients, one per mechanism

def produce_consume_kafka_python(bootstrap, mechanism, user, password, name, n=5, ca=None):
    from kafka import KafkaConsumer, KafkaProducer
    common = dict(bootstrap_servers=bootstrap, security_protocol="SASL_SSL" if ca else "SASL_PLAINTEXT",
                  sasl_mechanism=mechanism, sasl_plain_username=user, sasl_plain_password=password,
                  request_timeout_ms=15000, **({"ssl_cafile": ca} if ca else {}))
    producer = KafkaProducer(**common)
    try:
        for i in range(n):
            producer.send(name, f"kafka-python-{i}".encode()).get(timeout=30)
    finally:
        producer.close()
    consumer = KafkaConsumer(name, group_id=f"{name}-g", auto_offset_reset="earliest", consumer_timeout_ms=20000,
                             **common)
    try:
        values = []
        for message in consumer:
            values.append(message.value.decode())
            if len(values) == n:
                break
        return values
    finally:
        consumer.close()


def produce_consume_confluent(bootstrap, mechanism, user, password, name, n=5, ca=None):
    from confluent_kafka import Consumer, Producer
    common = {"bootstrap.servers": bootstrap, "security.protocol": "SASL_SSL" if ca else "SASL_PLAINTEXT",
              "sasl.mechanism": mechanism, "sasl.username": user, "sasl.password": password,
              **({"ssl.ca.location": ca} if ca else {})}
    producer = Producer(common)
    for i in range(n):
        producer.produce(name, f"confluent-{i}".encode())
    assert producer.flush(30) == 0
    consumer = Consumer({**common, "group.id": f"{name}-g", "auto.offset.reset": "earliest"})
    try:
        consumer.subscribe([name])
        values, deadline = [], time.monotonic() + 30
        while len(values) < n and time.monotonic() < deadline:
            m = consumer.poll(0.5)
            if m is not None and m.error() is None:
                values.append(m.value().decode())
        return values
    finally:
        consumer.close()


def produce_consume_aiokafka(bootstrap, mechanism, user, password, name, n=5, ca=None):
    import asyncio
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from aiokafka.helpers import create_ssl_context

    async def go():
        common = dict(bootstrap_servers=bootstrap, security_protocol="SASL_SSL" if ca else "SASL_PLAINTEXT",
                      sasl_mechanism=mechanism, sasl_plain_username=user, sasl_plain_password=password,
                      **({"ssl_context": create_ssl_context(cafile=ca)} if ca else {}))
        producer = AIOKafkaProducer(**common)
        await producer.start()
        try:
            for i in range(n):
                await producer.send_and_wait(name, f"aiokafka-{i}".encode())
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(name, group_id=f"{name}-g", auto_offset_reset="earliest", **common)
        await consumer.start()
        try:
            values = []
            async with asyncio.timeout(30):
                async for m in consumer:
                    values.append(m.value.decode())
                    if len(values) == n:
                        break
            return values
        finally:
            await consumer.stop()
    return asyncio.run(go())


def kcat_args(bootstrap, mechanism, user, password, ca=None):
    return ["kcat", "-b", bootstrap, "-X", f"security.protocol={'SASL_SSL' if ca else 'SASL_PLAINTEXT'}",
            "-X", f"sasl.mechanisms={mechanism}", "-X", f"sasl.username={user}", "-X", f"sasl.password={password}",
            *(["-X", f"ssl.ca.location={ca}"] if ca else [])]


def produce_consume_kcat(bootstrap, mechanism, user, password, name, n=5, ca=None):
    lines = "".join(f"kcat-{i}\n" for i in range(n))
    proc = subprocess.run(kcat_args(bootstrap, mechanism, user, password, ca) + ["-P", "-t", name, "-p", "0"],
                          input=lines, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run(kcat_args(bootstrap, mechanism, user, password, ca) + ["-C", "-t", name, "-p", "0", "-o",
                                                                                 "beginning", "-c", str(n), "-e"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def run_kafkajs(bootstrap, mechanism, user, password, name, n=5, ca=None) -> dict:
    proc = subprocess.run(["node", str(JS_DIR / "sasl_produce_consume.js"), bootstrap, mechanism.lower(), user,
                           password, name, str(n), *([ca] if ca else [])], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def produce_consume_kafkajs(bootstrap, mechanism, user, password, name, n=5, ca=None):
    out = run_kafkajs(bootstrap, mechanism, user, password, name, n, ca)
    assert out["ok"], out
    return out["result"]["values"]


def kafkalite_sasl_configs(bootstrap, mechanism, user, password, ca=None) -> dict:
    module = "plain.PlainLoginModule" if mechanism == "PLAIN" else "scram.ScramLoginModule"
    return {"bootstrap.servers": bootstrap, "security.protocol": "SASL_SSL" if ca else "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism,
            "sasl.jaas.config": f'org.apache.kafka.common.security.{module} required username="{user}" '
                                f'password="{password}";',
            **({"ssl.truststore.type": "PEM", "ssl.truststore.location": ca} if ca else {})}


def produce_consume_kafkalite(bootstrap, mechanism, user, password, name, n=5, ca=None):
    from kafkalite.clients.consumer.kafka_consumer import KafkaConsumer
    from kafkalite.clients.producer.kafka_producer import KafkaProducer
    configs = kafkalite_sasl_configs(bootstrap, mechanism, user, password, ca)
    producer = KafkaProducer(configs)
    try:
        for i in range(n):
            producer.send(name, value=f"kafkalite-{i}".encode()).get(30)
    finally:
        producer.close()
    consumer = KafkaConsumer({**configs, "group.id": f"{name}-g", "auto.offset.reset": "earliest"})
    try:
        consumer.subscribe([name])
        values, deadline = [], time.monotonic() + 30
        while len(values) < n and time.monotonic() < deadline:
            values += [r.value.decode() for r in consumer.poll(500)]
        return values
    finally:
        consumer.close()


CLIENTS = {"kafka-python": produce_consume_kafka_python, "confluent-kafka": produce_consume_confluent,
           "aiokafka": produce_consume_aiokafka, "kcat": produce_consume_kcat, "kafkajs": produce_consume_kafkajs,
           "kafkalite": produce_consume_kafkalite}
PREFIX = {"kafka-python": "kafka-python", "confluent-kafka": "confluent", "aiokafka": "aiokafka", "kcat": "kcat",
          "kafkajs": "kafkajs", "kafkalite": "kafkalite"}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("client", list(CLIENTS))
def test_client_produces_and_consumes_over_sasl_plaintext(sasl_broker, client, mechanism):
    user, password = PASSWORDS[mechanism]
    values = CLIENTS[client](sasl_broker.sasl_bootstrap, mechanism, user, password, topic())
    assert values == [f"{PREFIX[client]}-{i}" for i in range(5)]


# ---------------------------------------------------------------- SASL_SSL: the same over TLS (i16-ssl's transport)

@pytest.fixture(scope="module")
def sasl_ssl_broker(tmp_path_factory):
    from ssl_certs import make_certs
    certs = make_certs(str(tmp_path_factory.mktemp("sasl-certs")))
    plain_port, port = free_port(), free_port()
    b = BrokerProcess(tmp_path_factory.mktemp("sasl-ssl-broker"), {
        "listeners": f"PLAINTEXT://127.0.0.1:{plain_port},SASL_SSL://127.0.0.1:{port}",
        "sasl.enabled.mechanisms": ",".join(MECHANISMS),
        "listener.name.sasl_ssl.plain.sasl.jaas.config": PLAIN_JAAS,
        "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config": SCRAM_JAAS,
        "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": SCRAM_JAAS,
        **certs.broker_props("none"),
    }, port=plain_port)
    b.sasl_bootstrap, b.ca = f"127.0.0.1:{port}", certs.ca
    b.start()
    try:
        for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
            user, password = PASSWORDS[mechanism]
            run_tool("kafka-configs", "--bootstrap-server", b.bootstrap, "--entity-type", "users",
                     "--entity-name", user, "--alter", "--add-config", f"{mechanism}=[password={password}]")
            wait_until(lambda m=mechanism: kafkalite_admin_authenticates(b.sasl_bootstrap, m, certs.ca), 15,
                       f"the broker to know the {mechanism} user")
        yield b
    finally:
        b.stop()
        print(f"--- sasl_ssl broker log:\n{b.log_tail(40)}")


@pytest.mark.timeout(180)
@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("client", list(CLIENTS))
def test_client_produces_and_consumes_over_sasl_ssl(sasl_ssl_broker, client, mechanism):
    user, password = PASSWORDS[mechanism]
    values = CLIENTS[client](sasl_ssl_broker.sasl_bootstrap, mechanism, user, password, topic(), ca=sasl_ssl_broker.ca)
    assert values == [f"{PREFIX[client]}-{i}" for i in range(5)]


def test_sasl_ssl_wrong_password_is_refused_inside_tls(sasl_ssl_broker):
    from confluent_kafka import KafkaError, Producer
    errors = []
    p = Producer({"bootstrap.servers": sasl_ssl_broker.sasl_bootstrap, "security.protocol": "SASL_SSL",
                  "ssl.ca.location": sasl_ssl_broker.ca, "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "scram512",
                  "sasl.password": "wrong", "error_cb": errors.append})
    deadline = time.monotonic() + 20
    while not errors and time.monotonic() < deadline:
        p.poll(0.2)
    assert errors and errors[0].code() == KafkaError._AUTHENTICATION, errors
    assert "Authentication failed" in errors[0].str()


# ---------------------------------------------------------------- wrong passwords

def wrong_password_error(client, bootstrap, mechanism, user) -> str:
    """The error each client reports for a wrong password, as text."""
    if client == "kafka-python":
        # kafka-python's bootstrap gives up with KafkaTimeoutError; its transport logs why (Error 58)
        import logging
        from kafka import KafkaProducer
        from kafka.errors import KafkaError
        seen = []
        handler = logging.Handler()
        handler.emit = lambda record: seen.append(record.getMessage())
        logging.getLogger("kafka").addHandler(handler)
        try:
            KafkaProducer(bootstrap_servers=bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism=mechanism,
                          sasl_plain_username=user, sasl_plain_password="wrong", max_block_ms=3000,
                          bootstrap_timeout_ms=3000,
                          request_timeout_ms=3000).close()
        except KafkaError as e:
            return f"{type(e).__name__}: {e} / " + " / ".join(m for m in seen if "uthentication" in m)
        finally:
            logging.getLogger("kafka").removeHandler(handler)
        return ""
    if client == "confluent-kafka":
        from confluent_kafka import KafkaError, Producer
        errors = []
        p = Producer({"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mechanism,
                      "sasl.username": user, "sasl.password": "wrong", "error_cb": errors.append})
        deadline = time.monotonic() + 20
        while not errors and time.monotonic() < deadline:
            p.poll(0.2)
        assert errors and errors[0].code() == KafkaError._AUTHENTICATION, errors
        return errors[0].str()
    if client == "aiokafka":
        import asyncio
        from aiokafka import AIOKafkaProducer

        async def go():
            p = AIOKafkaProducer(bootstrap_servers=bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism=mechanism,
                                 sasl_plain_username=user, sasl_plain_password="wrong", request_timeout_ms=5000)
            try:
                await p.start()
            except Exception as e:   # noqa: BLE001
                return f"{type(e).__name__}: {e}"
            finally:
                await p.stop()
            return ""
        return asyncio.run(go())
    if client == "kcat":
        proc = subprocess.run(kcat_args(bootstrap, mechanism, user, "wrong") + ["-L", "-m", "5"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode != 0
        return proc.stderr
    if client == "kafkajs":
        out = run_kafkajs(bootstrap, mechanism, user, "wrong", topic(), 1)
        assert not out["ok"]
        return f"{out['error']['name']}: {out['error']['message']}"
    if client == "kafkalite":
        from kafkalite.clients.admin.admin_client import KafkaAdminClient
        admin = KafkaAdminClient({**kafkalite_sasl_configs(bootstrap, mechanism, user, "wrong"),
                                  "default.api.timeout.ms": 3000, "request.timeout.ms": 3000})
        try:
            admin.list_topics()
        except Exception as e:   # noqa: BLE001
            return f"{type(e).__name__}: {e}"
        finally:
            admin.close()
        return ""
    raise AssertionError(client)


EXPECTED_WRONG_PASSWORD = {
    "kafka-python": ("SaslAuthenticationFailedError",),
    "confluent-kafka": ("Authentication failed",),
    "aiokafka": ("Authentication failed", "KafkaConnectionError"),
    "kcat": ("Authentication failed",),
    "kafkajs": ("KafkaJSSASLAuthenticationError",),
    "kafkalite": ("SaslAuthenticationException: Authentication failed",),
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("client", list(CLIENTS))
def test_wrong_password_is_refused_with_the_clients_authentication_error(sasl_broker, client, mechanism):
    user, _ = PASSWORDS[mechanism]
    # a connection that authenticated before keeps working through the failures
    from kafka import KafkaProducer
    good = KafkaProducer(bootstrap_servers=sasl_broker.sasl_bootstrap, security_protocol="SASL_PLAINTEXT",
                         sasl_mechanism="PLAIN", sasl_plain_username="alice", sasl_plain_password="alice-secret")
    try:
        name = topic()
        good.send(name, b"before").get(timeout=30)
        log_offset = sasl_broker.log_size()
        error = wrong_password_error(client, sasl_broker.sasl_bootstrap, mechanism, user)
        assert any(word in error for word in EXPECTED_WRONG_PASSWORD[client]), error
        good.send(name, b"after").get(timeout=30)
    finally:
        good.close()
    wait_until(lambda: "Failed authentication with" in sasl_broker.log_text(log_offset), 10,
               "the broker to log the failed authentication")


# ---------------------------------------------------------------- the state machine, on the wire

def frame(conn: RawConnection, api_key: int, version: int, body: bytes, correlation_id: int = 1) -> bytes:
    conn.send_frame(request_header(api_key, version, correlation_id, "raw-sasl") + body)
    return conn.recv_frame()


def string(s: str) -> bytes:
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def handshake(conn: RawConnection, mechanism: str, version: int = 1) -> tuple[int, list[str]]:
    data = frame(conn, 17, version, string(mechanism))
    error, n = struct.unpack_from(">hi", data, 4)
    pos, mechanisms = 10, []
    for _ in range(n):
        (length,) = struct.unpack_from(">h", data, pos)
        mechanisms.append(data[pos + 2:pos + 2 + length].decode())
        pos += 2 + length
    return error, mechanisms


def authenticate(conn: RawConnection, token: bytes, version: int = 1) -> tuple[int, str | None, bytes, int]:
    data = frame(conn, 36, version, struct.pack(">i", len(token)) + token, correlation_id=2)
    error, msg_len = struct.unpack_from(">hh", data, 4)
    pos = 8
    message = None
    if msg_len >= 0:
        message, pos = data[pos:pos + msg_len].decode(), pos + msg_len
    (n,) = struct.unpack_from(">i", data, pos)
    auth_bytes = data[pos + 4:pos + 4 + n]
    lifetime = struct.unpack_from(">q", data, pos + 4 + n)[0] if version >= 1 else 0
    return error, message, auth_bytes, lifetime


def test_a_request_before_authentication_closes_the_connection(sasl_broker):
    with RawConnection(sasl_broker.sasl_port) as conn:
        conn.send_frame(request_header(3, 4, 1, "raw-sasl") + struct.pack(">i", -1) + b"\x00")   # Metadata v4
        assert conn.closed_by_peer()


def test_api_versions_then_handshake_then_plain(sasl_broker):
    with RawConnection(sasl_broker.sasl_port) as conn:
        data = frame(conn, 18, 0, b"")   # ApiVersions before the handshake is allowed
        assert struct.unpack_from(">h", data, 4)[0] == 0
        error, mechanisms = handshake(conn, "PLAIN")
        assert (error, mechanisms) == (0, LISTENER_MECHANISMS)
        error, message, _, _ = authenticate(conn, b"\x00alice\x00alice-secret")
        assert (error, message) == (0, None)
        # authenticated: requests now reach KafkaApis, which refuses a second handshake
        error, _ = handshake(conn, "PLAIN")
        assert error == 34   # ILLEGAL_SASL_STATE


def test_unknown_mechanism_is_answered_then_closed(sasl_broker):
    with RawConnection(sasl_broker.sasl_port) as conn:
        error, mechanisms = handshake(conn, "GSSAPI")
        assert (error, mechanisms) == (33, LISTENER_MECHANISMS)   # UNSUPPORTED_SASL_MECHANISM
        assert conn.closed_by_peer()


def test_wrong_plain_password_is_error_58_with_a_message_then_closed(sasl_broker):
    with RawConnection(sasl_broker.sasl_port) as conn:
        assert handshake(conn, "PLAIN")[0] == 0
        error, message, _, _ = authenticate(conn, b"\x00alice\x00nope")
        assert (error, message) == (58, "Authentication failed: Invalid username or password")
        assert conn.closed_by_peer()


def test_scram_unknown_user_gets_the_same_message_as_a_wrong_password(sasl_broker):
    with RawConnection(sasl_broker.sasl_port) as conn:
        assert handshake(conn, "SCRAM-SHA-256")[0] == 0
        error, message, _, _ = authenticate(conn, b"n,,n=nobody,r=abcdefgh")
        assert error == 58
        assert message == ("Authentication failed during authentication due to invalid credentials with SASL "
                           "mechanism SCRAM-SHA-256")
        assert conn.closed_by_peer()


def test_legacy_v0_handshake_with_raw_plain_token(sasl_broker):
    with RawConnection(sasl_broker.sasl_port) as conn:
        assert handshake(conn, "PLAIN", version=0)[0] == 0
        conn.send_frame(b"\x00alice\x00alice-secret")
        assert conn.recv_frame() == b""   # PLAIN's empty answer, as a raw frame
        data = frame(conn, 18, 0, b"", correlation_id=7)
        assert struct.unpack_from(">ih", data, 0) == (7, 0)


def test_session_lifetime_and_expiry_kip_368(broker_factory):
    plain_port, sasl_port = free_port(), free_port()
    b = broker_factory({**sasl_overrides(plain_port, sasl_port), "connections.max.reauth.ms": "1000"},
                       port=plain_port)
    with RawConnection(sasl_port) as conn:
        assert handshake(conn, "PLAIN")[0] == 0
        error, _, _, lifetime = authenticate(conn, b"\x00alice\x00alice-secret", version=1)
        assert (error, lifetime) == (0, 1000)
        data = frame(conn, 18, 0, b"", correlation_id=3)
        assert struct.unpack_from(">h", data, 4)[0] == 0   # within the session
        time.sleep(1.2)   # not synchronisation: the session must be older than connections.max.reauth.ms
        conn.send_frame(request_header(18, 0, 4, "raw-sasl"))
        assert conn.closed_by_peer()
    # re-authentication on the same connection: a new handshake and token renew the session
    with RawConnection(sasl_port) as conn:
        assert handshake(conn, "PLAIN")[0] == 0
        assert authenticate(conn, b"\x00alice\x00alice-secret")[0] == 0
        assert handshake(conn, "PLAIN") == (0, LISTENER_MECHANISMS)   # handled by the new authenticator
        error, _, _, lifetime = authenticate(conn, b"\x00alice\x00alice-secret")
        assert (error, lifetime) == (0, 1000)
        data = frame(conn, 18, 0, b"", correlation_id=5)
        assert struct.unpack_from(">ih", data, 0) == (5, 0)
    # ... but not as somebody else, nor with another mechanism
    with RawConnection(sasl_port) as conn:
        assert handshake(conn, "PLAIN")[0] == 0
        assert authenticate(conn, b"\x00alice\x00alice-secret")[0] == 0
        assert handshake(conn, "PLAIN")[0] == 0
        error, message, _, _ = authenticate(conn, b"\x00admin\x00admin-secret")
        assert (error, message) == (58, "Cannot change principals during re-authentication from User.alice: "
                                        "User.admin")
        assert conn.closed_by_peer()
    with RawConnection(sasl_port) as conn:
        assert handshake(conn, "PLAIN")[0] == 0
        assert authenticate(conn, b"\x00alice\x00alice-secret")[0] == 0
        assert handshake(conn, "SCRAM-SHA-256")[0] == 0
        conn.send_frame(request_header(36, 1, 2, "raw-sasl") + struct.pack(">i", 3) + b"n,,")
        assert conn.closed_by_peer()
    assert b.running


@pytest.mark.timeout(120)
def test_librdkafka_re_authenticates_within_connections_max_reauth_ms(broker_factory):
    """KIP-368 with a real client: librdkafka (2.2+) re-authenticates before its session ends; every record is
    delivered over connections that live longer than the session."""
    from confluent_kafka import Producer
    plain_port, sasl_port = free_port(), free_port()
    b = broker_factory({**sasl_overrides(plain_port, sasl_port), "connections.max.reauth.ms": "1500"},
                       port=plain_port)
    errors, delivered = [], []
    p = Producer({"bootstrap.servers": f"127.0.0.1:{sasl_port}", "security.protocol": "SASL_PLAINTEXT",
                  "sasl.mechanism": "PLAIN", "sasl.username": "alice", "sasl.password": "alice-secret",
                  "error_cb": errors.append, "linger.ms": 0})
    name = topic()
    deadline = time.monotonic() + 5
    i = 0
    while time.monotonic() < deadline:   # 5 s of traffic: three session lifetimes
        p.produce(name, f"r{i}".encode(), on_delivery=lambda err, m: delivered.append(err))
        p.poll(0.1)
        i += 1
    assert p.flush(30) == 0
    assert len(delivered) == i and not any(delivered), delivered[:5]
    # without re-authentication in place, librdkafka's second handshake is refused ("SASL PLAIN mechanism
    # handshake failed: ... Request not valid in current SASL state") and it reconnects
    assert not [e.str() for e in errors if "SASL" in e.str() or "down" in e.str()], [e.str() for e in errors]
    log = b.log_text()
    assert "Failed authentication" not in log


# ---------------------------------------------------------------- fuzz: malformed handshakes and tokens

@pytest.mark.timeout(240)
def test_fuzzed_handshakes_and_tokens_close_only_their_connection(sasl_broker):
    from hypothesis import HealthCheck, given, settings, strategies as st

    pid = sasl_broker.proc.pid
    rss_start = rss(pid)
    with RawConnection(sasl_broker.sasl_port) as bystander:   # an authenticated connection that must survive
        assert handshake(bystander, "PLAIN")[0] == 0
        assert authenticate(bystander, b"\x00alice\x00alice-secret")[0] == 0
        mechanisms = st.sampled_from(["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "", "X" * 300])
        scram_first = st.builds(lambda n, r, extra: f"n,,n={n},r={r}{extra}".encode(),
                                st.text(max_size=20), st.text(max_size=40),
                                st.sampled_from(["", ",tokenauth=true", ",m=x", ",="]))
        tokens = st.one_of(st.binary(max_size=300), scram_first,
                           st.builds(lambda t: t[:len(t) // 2], scram_first),
                           st.just(b"c=biws,r=wrongnonce,p=AAAA"), st.just(b"\x00" * 2))

        @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(mechanism=mechanisms, version=st.sampled_from([0, 1, 2, 7]), token=tokens,
               mode=st.sampled_from(["token", "raw", "truncated-frame", "huge-size", "second-final"]))
        def one(mechanism, version, token, mode):
            with RawConnection(sasl_broker.sasl_port, timeout=5) as conn:
                try:
                    if mode == "huge-size":
                        conn.send_raw(struct.pack(">i", 0x7FFFFFF0) + b"\x00" * 64)
                        assert conn.closed_by_peer(5)
                        return
                    conn.send_frame(request_header(17, version, 1, "fuzz") + string(mechanism))
                    if mode == "truncated-frame":
                        conn.send_raw(struct.pack(">i", 100) + token[:50])
                        conn.close()
                        return
                    if mode == "raw":
                        conn.send_frame(token)
                    else:
                        body = struct.pack(">i", len(token)) + token if version < 2 else b"\x00"
                        conn.send_frame(request_header(36, min(version, 2), 2, "fuzz") + body)
                        if mode == "second-final":
                            conn.send_frame(request_header(36, 1, 3, "fuzz") + struct.pack(">i", 4) + b"c=,p")
                    deadline = time.monotonic() + 5
                    while time.monotonic() < deadline:   # read answers until the broker closes or goes quiet
                        conn.sock.settimeout(1)
                        try:
                            if not conn.sock.recv(65536):
                                return
                        except TimeoutError:
                            return
                except (ConnectionError, OSError):
                    return   # closed by the broker: the expected outcome for most inputs
        one()
        # the bystander is untouched, and so is a new client
        data = frame(bystander, 18, 0, b"", correlation_id=99)
        assert struct.unpack_from(">ih", data, 0) == (99, 0)
    assert produce_consume_kafka_python(sasl_broker.sasl_bootstrap, "PLAIN", "alice", "alice-secret", topic(), 1) \
        == ["kafka-python-0"]
    assert rss(pid) - rss_start < 100 * 1024 * 1024
    assert sasl_broker.running
    assert "Processor got uncaught exception" not in sasl_broker.log_text()


# ---------------------------------------------------------------- three brokers, SASL between them

@pytest.mark.timeout(240)
def test_three_brokers_replicate_over_a_sasl_plaintext_inter_broker_listener(tmp_path, monkeypatch):
    import cluster_harness
    if not cluster_harness.zookeeper_available():
        pytest.skip("Debian's zookeeper package is not installed")
    plain_ports = [free_port() for _ in range(3)]
    sasl_ports = [free_port() for _ in range(3)]
    ports = iter(plain_ports)
    monkeypatch.setattr(cluster_harness, "free_port", lambda: next(ports))

    def overrides(i):
        return {**sasl_overrides(plain_ports[i], sasl_ports[i]),
                "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
                "inter.broker.listener.name": "SASL_PLAINTEXT",
                "sasl.mechanism.inter.broker.protocol": "PLAIN"}
    cluster = cluster_harness.ClusterProcesses(tmp_path, 3, broker_overrides=overrides)
    cluster.start()
    try:
        name = topic()
        cluster.create_topic(name, [0, 1, 2], {"min.insync.replicas": "2"})
        bootstrap = ",".join(f"127.0.0.1:{p}" for p in sasl_ports)
        values = produce_consume_kafka_python(bootstrap, "PLAIN", "alice", "alice-secret", name, 5)
        assert values == [f"kafka-python-{i}" for i in range(5)]
        for i in range(3):
            wait_until(lambda i=i: cluster.log_end_offset(i, name, 0) == 5, 30, f"broker {i} to hold 5 records")
        # the replicas fetched through SASL: every broker authenticated its peers on the SASL listener
        assert all("Failed authentication" not in b.log_text() for b in cluster.brokers)
        # a SCRAM user written through broker 0 reaches every broker through ZooKeeper's /config/changes
        user, password = PASSWORDS["SCRAM-SHA-256"]
        run_tool("kafka-configs", "--bootstrap-server", cluster.brokers[0].bootstrap, "--entity-type", "users",
                 "--entity-name", user, "--alter", "--add-config", f"SCRAM-SHA-256=[password={password}]")
        for i in (1, 2):
            wait_until(lambda i=i: scram_user_known(sasl_ports[i], "SCRAM-SHA-256"), 15,
                       f"broker {i} to learn the SCRAM user")
    except BaseException:
        print(cluster.log_tails(40))
        raise
    finally:
        cluster.stop()


# ---------------------------------------------------------------- the principal, for the authorizer

def test_request_context_carries_the_sasl_principal(tmp_path, caplog):
    """In-process broker: kafka.request.logger's line of each completed request on the SASL listener names
    securityProtocol:SASL_PLAINTEXT and principal:User:<the authenticated user>, as Kafka's does."""
    import logging
    from harness import InProcessBroker
    broker = InProcessBroker(tmp_path / "logs", {**sasl_overrides(0, 0),
                                                 "listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0"})
    broker.start()
    try:
        port = broker.server.bound_port("SASL_PLAINTEXT")
        with caplog.at_level(logging.DEBUG, logger="kafka.request.logger"):
            assert produce_consume_kafka_python(f"127.0.0.1:{port}", "PLAIN", "alice", "alice-secret", topic(), 1) \
                == ["kafka-python-0"]
        lines = [r.getMessage() for r in caplog.records if r.name == "kafka.request.logger"
                 and "Completed request" in r.getMessage() and "listener:SASL_PLAINTEXT" in r.getMessage()]
        assert lines and all("principal:User:alice" in line and "securityProtocol:SASL_PLAINTEXT" in line
                             for line in lines), lines[:3]
    finally:
        broker.stop()


# ---------------------------------------------------------------- OAUTHBEARER, Kafka's unsecured default

def unsecured_jws(claims: dict) -> bytes:
    import base64
    enc = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=")   # noqa: E731
    return enc({"alg": "none"}) + b"." + enc(claims) + b"."


@pytest.mark.parametrize("client", ["confluent-kafka", "kcat"])
def test_oauthbearer_unsecured_tokens_with_librdkafka(sasl_broker, client):
    name = topic()
    common = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
              "enable.sasl.oauthbearer.unsecure.jwt": "true", "sasl.oauthbearer.config": "principal=alice"}
    if client == "kcat":
        args = ["kcat", "-b", sasl_broker.sasl_bootstrap, *sum((["-X", f"{k}={v}"] for k, v in common.items()), [])]
        proc = subprocess.run(args + ["-P", "-t", name, "-p", "0"], input="oauth-0\n", capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        proc = subprocess.run(args + ["-C", "-t", name, "-p", "0", "-o", "beginning", "-c", "1", "-e"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout.split() == ["oauth-0"], proc.stderr
        return
    from confluent_kafka import Producer
    producer = Producer({"bootstrap.servers": sasl_broker.sasl_bootstrap, **common})
    producer.produce(name, b"oauth-0")
    assert producer.flush(30) == 0


def test_oauthbearer_bad_tokens_are_challenged_then_refused(sasl_broker):
    now = int(time.time())
    with RawConnection(sasl_broker.sasl_port) as conn:   # a good token
        assert handshake(conn, "OAUTHBEARER")[0] == 0
        token = unsecured_jws({"sub": "alice", "iat": now, "exp": now + 60})
        assert authenticate(conn, b"n,,\x01auth=Bearer " + token + b"\x01\x01")[:2] == (0, None)
    for claims in ({"sub": "alice", "iat": now - 120, "exp": now - 60}, {"iat": now, "exp": now + 60}):
        with RawConnection(sasl_broker.sasl_port) as conn:   # expired, no subject: RFC 7628's error dance
            assert handshake(conn, "OAUTHBEARER")[0] == 0
            error, _, challenge, _ = authenticate(conn, b"n,,\x01auth=Bearer " + unsecured_jws(claims) + b"\x01\x01")
            assert (error, json.loads(challenge)) == (0, {"status": "invalid_token"})
            error, message, _, _ = authenticate(conn, b"\x01")
            assert (error, message) == (58, '{"status":"invalid_token"}')
            assert conn.closed_by_peer()


"""Mirrors Kafka 2.4's SaslServerAuthenticatorTest, PlainSaslServerTest and JaasContextTest
(clients/src/test/java/org/apache/kafka/common/security/): the broker's SASL state machine over an in-memory
transport, the PLAIN server, and the parsing of ``sasl.jaas.config`` values."""
from __future__ import annotations

import struct

import pytest

from kafkalite.network.network_receive import InvalidReceiveException
from kafkalite.network.sasl_channel_builder import SaslChannelBuilder
from kafkalite.protocol import schema
from kafkalite.protocol.errors import SaslAuthenticationException
from kafkalite.protocol.messages.api_versions import ApiVersionsRequest, ApiVersionsResponse
from kafkalite.protocol.messages.metadata import MetadataRequest
from kafkalite.protocol.messages.sasl_authenticate import SaslAuthenticateRequest, SaslAuthenticateResponse
from kafkalite.protocol.messages.sasl_handshake import SaslHandshakeRequest, SaslHandshakeResponse
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import parse_response
from kafkalite.security.authenticator.jaas_context import JaasContext, parse_jaas_config
from kafkalite.security.authenticator.plain_sasl_server import PlainSaslServer, PlainServerCallbackHandler
from kafkalite.security.authenticator.sasl_exception import SaslAuthenticationFailure
from kafkalite.security.authenticator.sasl_server_authenticator import MAX_RECEIVE_SIZE, SaslState
from kafkalite.utils.time import SYSTEM

JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="a-s" '
        'user_admin="a-s" user_alice="alice-secret";')


class MemoryTransport:
    """A transport whose peer is this test: ``inbound`` is what the client sent, ``outbound`` what we wrote."""

    def __init__(self):
        self.inbound = bytearray()
        self.outbound = bytearray()
        self.interest_ops = 0
        self.socket_channel = None

    def read(self, dst) -> int:
        n = min(len(dst), len(self.inbound))
        dst[:n] = self.inbound[:n]
        del self.inbound[:n]
        return n

    def write(self, srcs) -> int:
        n = 0
        for s in srcs:
            self.outbound += bytes(s)
            n += len(s)
        return n

    def has_pending_writes(self) -> bool:
        return False

    def add_interest_ops(self, ops):
        self.interest_ops |= ops

    def remove_interest_ops(self, ops):
        self.interest_ops &= ~ops

    def send(self, payload: bytes) -> None:
        self.inbound += struct.pack(">i", len(payload)) + payload

    def frame(self) -> bytes:
        size = struct.unpack(">i", self.outbound[:4])[0]
        data = bytes(self.outbound[4:4 + size])
        del self.outbound[:4 + size]
        return data


def authenticator(mechanisms=("PLAIN",)):
    builder = SaslChannelBuilder("SERVER", "SASL_PLAINTEXT", "SASL_PLAINTEXT", credential_cache=None, time=SYSTEM)
    builder.configure({"sasl.enabled.mechanisms": list(mechanisms), "plain.sasl.jaas.config": JAAS,
                       "connections.max.reauth.ms": 0})
    transport = MemoryTransport()
    return builder.build_server_authenticator("conn-1", transport), transport


def request(api_key, version, body, correlation_id=1) -> bytes:
    header = RequestHeader(api_key=api_key, api_version=version, correlation_id=correlation_id, client_id="t")
    return header.to_bytes() + schema.write(body, version)


def test_api_versions_handshake_and_plain_authenticate():
    auth, t = authenticator()
    t.send(request(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1")))
    auth.authenticate()
    _, versions = parse_response(18, 3, t.frame())
    assert isinstance(versions, ApiVersionsResponse) and versions.error_code == 0
    assert auth.sasl_state is SaslState.HANDSHAKE_REQUEST
    t.send(request(17, 1, SaslHandshakeRequest(mechanism="PLAIN"), 2))
    auth.authenticate()
    assert parse_response(17, 1, t.frame())[1] == SaslHandshakeResponse(error_code=0, mechanisms=["PLAIN"])
    t.send(request(36, 2, SaslAuthenticateRequest(auth_bytes=b"\x00alice\x00alice-secret"), 3))
    auth.authenticate()
    response = parse_response(36, 2, t.frame())[1]
    assert response.error_code == 0 and auth.complete()
    assert str(auth.principal()) == "User:alice"


def test_unexpected_request_type_before_the_handshake_fails():
    """SaslServerAuthenticatorTest.testUnexpectedRequestType."""
    auth, t = authenticator()
    t.send(request(3, 4, MetadataRequest(topics=[])))
    with pytest.raises(SaslAuthenticationFailure):
        auth.authenticate()
    assert auth.sasl_state is SaslState.FAILED and not auth.complete()


def test_oversize_request_is_refused_before_any_allocation():
    """SaslServerAuthenticatorTest.testOversizeRequest."""
    auth, t = authenticator()
    t.inbound += struct.pack(">i", MAX_RECEIVE_SIZE + 1)
    with pytest.raises(InvalidReceiveException):
        auth.authenticate()


def test_unsupported_mechanism_answers_after_the_failure_delay():
    auth, t = authenticator()
    t.send(request(17, 1, SaslHandshakeRequest(mechanism="GSSAPI")))
    with pytest.raises(SaslAuthenticationFailure):
        auth.authenticate()
    assert not t.outbound   # nothing until the Selector's delayed close runs
    auth.handle_authentication_failure()
    assert parse_response(17, 1, t.frame())[1] == SaslHandshakeResponse(error_code=33, mechanisms=["PLAIN"])


def test_wrong_password_gets_58_with_the_plain_message():
    auth, t = authenticator()
    t.send(request(17, 1, SaslHandshakeRequest(mechanism="PLAIN")))
    auth.authenticate()
    t.frame()
    t.send(request(36, 1, SaslAuthenticateRequest(auth_bytes=b"\x00alice\x00nope"), 2))
    with pytest.raises(SaslAuthenticationFailure):
        auth.authenticate()
    auth.handle_authentication_failure()
    response = parse_response(36, 1, t.frame())[1]
    assert (response.error_code, response.error_message) == (58, "Authentication failed: Invalid username or password")


def test_legacy_v0_tokens_are_raw_frames():
    auth, t = authenticator()
    t.send(request(17, 0, SaslHandshakeRequest(mechanism="PLAIN")))
    auth.authenticate()
    t.frame()
    t.send(b"\x00alice\x00alice-secret")
    auth.authenticate()
    assert t.frame() == b"" and auth.complete()


@pytest.mark.parametrize("token, message", [
    (b"alice\x00alice", "expected 3 tokens"),
    (b"\x00\x00pw", "username not specified"),
    (b"\x00alice\x00", "password not specified"),
    (b"bob\x00alice\x00alice-secret", "authorization id that is different"),
    (b"\x00mallory\x00x", "Invalid username or password"),
])
def test_plain_sasl_server_refusals(token, message):
    """PlainSaslServerTest: noAuthorizationIdSpecified / authorizationIdEqualsAuthenticationId / ... ."""
    server = PlainSaslServer(PlainServerCallbackHandler(JaasContext.load_client_context({"sasl.jaas.config": JAAS})))
    with pytest.raises(SaslAuthenticationException, match=message):
        server.evaluate_response(token)
    assert not server.is_complete()


def test_jaas_config_parsing():
    """JaasContextTest: options, quoting, flags, errors."""
    [entry] = parse_jaas_config('a.b.C required k1="v 1" k2=v2 k3="x\\"y";')
    assert (entry.login_module_name, entry.control_flag, entry.options) == ("a.b.C", "required",
                                                                           {"k1": "v 1", "k2": "v2", "k3": 'x"y'})
    assert len(parse_jaas_config("a.B optional; c.D sufficient;")) == 2
    for bad, message in [("a.B required k1=v1", "semi-colon"), ("a.B k1=v1;", "control flag"),
                         ("a.B required k1;", "Value not specified"), ('a.B required k="v;', "Unterminated")]:
        with pytest.raises(ValueError, match=message):
            parse_jaas_config(bad)
    with pytest.raises(ValueError, match="should be 1 module"):
        JaasContext.load_client_context({"sasl.jaas.config": "a.B optional; c.D sufficient;"})
    with pytest.raises(ValueError, match="listener.name.sasl_plaintext.plain.sasl.jaas.config"):
        JaasContext.load_server_context("SASL_PLAINTEXT", "PLAIN", {})


def test_channel_builder_refuses_unknown_mechanisms_and_missing_jaas():
    builder = SaslChannelBuilder("SERVER", "SASL_PLAINTEXT", "SASL_PLAINTEXT")
    with pytest.raises(ValueError, match="GSSAPI"):
        builder.configure({"sasl.enabled.mechanisms": ["GSSAPI"]})
    with pytest.raises(ValueError, match="scram-sha-256.sasl.jaas.config"):
        SaslChannelBuilder("SERVER", "SASL_PLAINTEXT", "SASL_PLAINTEXT").configure(
            {"sasl.enabled.mechanisms": ["SCRAM-SHA-256"]})


def test_kafka_config_sasl_keys_listener_overrides_and_one_line_errors():
    """KafkaConfigTest's SASL cases: per-listener values, and a bad SASL setup named by its key."""
    from kafkalite.common.config.config_exception import ConfigException
    from kafkalite.server.kafka_config import KafkaConfig
    base = {"listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0", "log.dirs": "/tmp/x",
            "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
            "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": "x.ScramLoginModule required;"}
    config = KafkaConfig.from_props(base)
    values = config.values_with_prefix_override("listener.name.sasl_plaintext.")
    assert values["plain.sasl.jaas.config"] == JAAS and values["sasl.enabled.mechanisms"] == ["PLAIN", "SCRAM-SHA-256"]
    assert values["connection.failed.authentication.delay.ms"] == 100
    narrowed = KafkaConfig.from_props({**base, "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN"})
    assert narrowed.sasl_enabled_mechanisms("SASL_PLAINTEXT") == ["PLAIN"]
    with pytest.raises(ConfigException, match="scram-sha-512.sasl.jaas.config"):
        KafkaConfig.from_props({**base, "sasl.enabled.mechanisms": "SCRAM-SHA-512"})
    with pytest.raises(ConfigException, match="GSSAPI is not supported"):
        KafkaConfig.from_props({**base, "sasl.enabled.mechanisms": "GSSAPI"})
    with pytest.raises(ConfigException, match="must be included in sasl.enabled.mechanisms"):
        KafkaConfig.from_props({**base, "inter.broker.listener.name": "SASL_PLAINTEXT",
                                "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512"})


def test_selector_answers_a_failed_authentication_after_the_delay_then_closes():
    """SelectorTest.testCloseOldestConnectionWithMultiplePendingReceives' sibling for KIP-306: the failure
    response waits connection.failed.authentication.delay.ms, and the close follows it."""
    import socket
    import time
    from kafkalite.network.selector import Selector
    builder = SaslChannelBuilder("SERVER", "SASL_PLAINTEXT", "SASL_PLAINTEXT", time=SYSTEM)
    builder.configure({"sasl.enabled.mechanisms": ["PLAIN"], "plain.sasl.jaas.config": JAAS})
    selector = Selector(channel_builder=builder, failed_authentication_delay_ms=200)
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    server_side, _ = listener.accept()
    listener.close()
    server_side.setblocking(False)
    client.settimeout(5)
    try:
        selector.register("c1", server_side)
        for payload in (request(17, 1, SaslHandshakeRequest(mechanism="PLAIN")),
                        request(36, 1, SaslAuthenticateRequest(auth_bytes=b"\x00alice\x00nope"), 2)):
            client.sendall(struct.pack(">i", len(payload)) + payload)
        received, start = bytearray(), time.monotonic()
        answered_at = closed_at = None
        client.setblocking(False)
        while closed_at is None and time.monotonic() - start < 5:
            selector.poll(50)
            try:
                chunk = client.recv(4096)
            except BlockingIOError:
                continue
            if chunk:
                received += chunk
                if len(received) > 60 and answered_at is None:
                    answered_at = time.monotonic()
            else:
                closed_at = time.monotonic()
        handshake_len = struct.unpack(">i", received[:4])[0]
        auth = bytes(received[8 + handshake_len:])
        assert parse_response(36, 1, auth)[1].error_code == 58
        assert answered_at - start >= 0.2 and closed_at >= answered_at
        assert "c1" in selector.disconnected or "c1" not in selector.channels
    finally:
        selector.close()
        client.close()


def test_oauthbearer_unsecured_validator():
    """OAuthBearerSaslServerTest / OAuthBearerUnsecuredValidatorCallbackHandlerTest: claims, scope, authzid."""
    import base64
    import json
    import time
    from kafkalite.security.authenticator.oauthbearer_sasl_server import (OAuthBearerSaslServer,
                                                                          OAuthBearerUnsecuredValidatorCallbackHandler,
                                                                          parse_client_initial_response)
    from kafkalite.security.authenticator.sasl_exception import SaslException

    def jws(claims, alg="none", signature=b""):
        enc = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=")   # noqa: E731
        return enc({"alg": alg}) + b"." + enc(claims) + b"." + signature

    jaas = JaasContext.load_client_context({"sasl.jaas.config": 'x.OAuthBearerLoginModule required '
                                                                 'unsecuredValidatorRequiredScope="write";'})
    now = int(time.time())
    good = {"sub": "alice", "iat": now, "exp": now + 60, "scope": "read write"}

    def server():
        return OAuthBearerSaslServer(OAuthBearerUnsecuredValidatorCallbackHandler(jaas))

    s = server()
    assert s.evaluate_response(b"n,,\x01auth=Bearer " + jws(good) + b"\x01x=1\x01\x01") == b""
    assert s.get_authorization_id() == "alice"
    for bad in ({**good, "exp": now - 5}, {k: v for k, v in good.items() if k != "sub"}, {**good, "iat": now + 99}):
        s = server()
        assert json.loads(s.evaluate_response(b"n,,\x01auth=Bearer " + jws(bad) + b"\x01\x01")) == \
            {"status": "invalid_token"}
        with pytest.raises(SaslAuthenticationException, match="invalid_token"):
            s.evaluate_response(b"\x01")
    assert json.loads(server().evaluate_response(b"n,,\x01auth=Bearer " + jws({**good, "scope": "read"}) +
                                                 b"\x01\x01"))["status"] == "insufficient_scope"
    for token in (jws(good, alg="HS256"), jws(good, signature=b"c2ln")):
        assert server().evaluate_response(b"n,,\x01auth=Bearer " + token + b"\x01\x01") == b'{"status":"invalid_token"}'
    with pytest.raises(SaslAuthenticationException, match="authorization id"):
        server().evaluate_response(b"n,a=bob,\x01auth=Bearer " + jws(good) + b"\x01\x01")
    for malformed in (b"n,,auth=Bearer x\x01\x01", b"n,,\x01auth=Basic abc\x01\x01", b"y,,\x01\x01", b"\xff"):
        with pytest.raises(SaslException):
            parse_client_initial_response(malformed)

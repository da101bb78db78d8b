"""Mirrors Kafka 2.4's ScramFormatterTest, ScramMessagesTest, ScramSaslServerTest and ScramCredentialUtilsTest
(clients/src/test/java/org/apache/kafka/common/security/scram/internals/): the SCRAM arithmetic against RFC 7677's
worked example, the message grammar, the server's refusals, and the ZooKeeper form of a credential."""
from __future__ import annotations

import base64

import pytest

from kafkalite.protocol.errors import SaslAuthenticationException
from kafkalite.security.authenticator.credential_cache import CredentialProvider
from kafkalite.security.authenticator.sasl_exception import SaslException
from kafkalite.security.authenticator.scram_credential import credential_from_string, credential_to_string
from kafkalite.security.authenticator.scram_formatter import ScramFormatter
from kafkalite.security.authenticator.scram_mechanism import ScramMechanism
from kafkalite.security.authenticator.scram_messages import (ClientFinalMessage, ClientFirstMessage,
                                                             ServerFinalMessage, ServerFirstMessage)
from kafkalite.security.authenticator.scram_sasl_client import ScramSaslClient
from kafkalite.security.authenticator.scram_sasl_server import ScramSaslServer, ScramServerCallbackHandler

SHA256 = ScramMechanism.SCRAM_SHA_256
# RFC 7677 section 3: user "user", password "pencil"
RFC_CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO"
RFC_SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
RFC_SALT = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
RFC_CLIENT_FINAL = (b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                    b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
RFC_SERVER_FINAL = b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="


def server_for(users: dict[str, str], mechanism=SHA256, iterations=4096, salt=None) -> ScramSaslServer:
    provider = CredentialProvider()
    for user, password in users.items():
        credential = ScramFormatter(mechanism).generate_credential(password, iterations, salt)
        provider.update_credentials(user, {mechanism.mechanism_name: credential_to_string(credential)})
    return ScramSaslServer(mechanism, ScramServerCallbackHandler(provider.credential_cache, mechanism.mechanism_name))


def test_rfc7677_client_proof_and_server_signature(monkeypatch):
    """ScramFormatterTest.rfc7677Example: the client's final message and the server's verifier, byte for byte."""
    client = ScramSaslClient(SHA256, "user", "pencil")
    client.client_nonce = RFC_CLIENT_NONCE
    assert client.evaluate_challenge(b"") == b"n,,n=user,r=" + RFC_CLIENT_NONCE.encode()
    server_first = f"r={RFC_CLIENT_NONCE}{RFC_SERVER_NONCE},s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096".encode()
    assert client.evaluate_challenge(server_first) == RFC_CLIENT_FINAL
    assert client.evaluate_challenge(RFC_SERVER_FINAL) is None and client.is_complete()

    monkeypatch.setattr(ScramFormatter, "secure_random_string", staticmethod(lambda: RFC_SERVER_NONCE))
    server = server_for({"user": "pencil"}, salt=RFC_SALT)
    assert server.evaluate_response(b"n,,n=user,r=" + RFC_CLIENT_NONCE.encode()) == server_first
    assert server.evaluate_response(RFC_CLIENT_FINAL) == RFC_SERVER_FINAL
    assert server.is_complete() and server.get_authorization_id() == "user"


@pytest.mark.parametrize("mechanism", list(ScramMechanism))
def test_client_and_server_agree_for_both_mechanisms_and_escaped_names(mechanism):
    server = server_for({"a,b=c": "secret"}, mechanism)
    client = ScramSaslClient(mechanism, "a,b=c", "secret")
    token = client.evaluate_challenge(b"")
    assert b"n=a=2Cb=3Dc," in token
    while not client.is_complete():
        token = client.evaluate_challenge(server.evaluate_response(token))
    assert server.is_complete() and server.get_authorization_id() == "a,b=c"


def test_wrong_password_unknown_user_and_wrong_nonce_are_sasl_exceptions():
    """ScramSaslServerTest: failures whose reason the client must not learn."""
    client = ScramSaslClient(SHA256, "alice", "wrong")
    server = server_for({"alice": "right"})
    first = server.evaluate_response(client.evaluate_challenge(b""))
    with pytest.raises(SaslException, match="Invalid client credentials"):
        server.evaluate_response(client.evaluate_challenge(first))

    with pytest.raises(SaslException, match="Invalid user credentials"):
        server_for({}).evaluate_response(b"n,,n=nobody,r=abc")

    server = server_for({"alice": "right"})
    client = ScramSaslClient(SHA256, "alice", "right")
    first = ServerFirstMessage.parse(server.evaluate_response(client.evaluate_challenge(b"")))
    forged = ClientFinalMessage(b"n,,", "not-the-nonce", b"\x00" * 32)
    with pytest.raises(SaslException, match="nonce"):
        server.evaluate_response(forged.to_bytes())
    assert first.iterations == 4096


def test_librdkafka_doubled_client_nonce_is_accepted():
    """librdkafka < 2.6.1 sends client nonce + server-first nonce; Kafka 3.8.1's ends-with check takes it."""
    server = server_for({"alice": "pw"})
    client = ScramSaslClient(SHA256, "alice", "pw")
    first = client.evaluate_challenge(b"")
    server_first = ServerFirstMessage.parse(server.evaluate_response(first))
    doubled = ClientFinalMessage(b"n,,", client.client_nonce + server_first.nonce)
    formatter = ScramFormatter(SHA256)
    salted = formatter.salted_password("pw", server_first.salt, server_first.iterations)
    doubled.proof = formatter.client_proof(salted, ClientFirstMessage.parse(first), server_first, doubled)
    assert server.evaluate_response(doubled.to_bytes()).startswith(b"v=")


def test_authorization_id_must_be_the_user_and_iterations_at_least_4096():
    with pytest.raises(SaslAuthenticationException, match="authorization id"):
        server_for({"alice": "pw"}).evaluate_response(b"n,a=bob,n=alice,r=abc")
    with pytest.raises(SaslException, match="less than the minimum"):
        server_for({"alice": "pw"}, iterations=1000).evaluate_response(b"n,,n=alice,r=abc")


def test_a_server_that_completed_refuses_more_tokens():
    server = server_for({})
    with pytest.raises(SaslException):
        server.evaluate_response(b"n,,n=nobody,r=abc")
    with pytest.raises(Exception):
        server.evaluate_response(b"n,,n=nobody,r=abc")   # FAILED: no second chance on this exchange


@pytest.mark.parametrize("message", [
    b"", b"n", b"y,,n=a,r=b", b"p=tls,,n=a,r=b", b"n,,n=a", b"n,,r=b,n=a", b"n,,m=ext,n=a,r=b",
    b"n,,n=a=2,r=b", b"n,,n=a,r=b\x80", b"\xff\xfe", b"n,,n=a,r=b c", b"n,,n=a,r=b,1=2",
])
def test_malformed_client_first_messages(message):
    """ScramMessagesTest.invalidClientFirstMessage."""
    with pytest.raises(SaslException):
        ClientFirstMessage.parse(message)


def test_valid_client_first_messages_with_extensions_and_authzid():
    """ScramMessagesTest.validClientFirstMessage."""
    m = ClientFirstMessage.parse(b"n,a=user1,n=user1,r=nonce1,tokenauth=true")
    assert (m.authorization_id, m.sasl_name, m.nonce, m.extensions) == ("user1", "user1", "nonce1",
                                                                        {"tokenauth": "true"})
    assert m.to_message() == "n,a=user1,n=user1,r=nonce1,tokenauth=true"


@pytest.mark.parametrize("message", [
    b"r=a,s=!!,i=4096", b"r=a,s=AAAA,i=-1", b"r=a,s=AAAA,i=x", b"s=AAAA,r=a,i=1", b"r=a,s=AAAA", b"r=a,s=,i=4096",
])
def test_malformed_server_first_messages(message):
    with pytest.raises(SaslException):
        ServerFirstMessage.parse(message)


@pytest.mark.parametrize("message", [b"c=biws,r=a", b"c=biws,r=a,p=***", b"r=a,c=biws,p=AAAA", b"c=biws,r=a b,p=AAAA"])
def test_malformed_client_final_messages(message):
    with pytest.raises(SaslException):
        ClientFinalMessage.parse(message)


def test_server_final_carries_a_verifier_or_an_error():
    assert ServerFinalMessage.parse(b"e=invalid-proof").error == "invalid-proof"
    assert ServerFinalMessage.parse(RFC_SERVER_FINAL).server_signature == base64.b64decode(RFC_SERVER_FINAL[2:])


def test_credential_round_trips_through_its_zookeeper_string():
    """ScramCredentialUtilsTest.stringConversion / invalidCredential."""
    credential = ScramFormatter(SHA256).generate_credential("pw", 8192)
    text = credential_to_string(credential)
    assert text.startswith("salt=") and text.endswith(",iterations=8192")
    assert credential_from_string(text) == credential
    for bad in ("salt=AAAA,stored_key=AAAA,server_key=AAAA", "salt=AAAA,stored_key=AAAA,server_key=AAAA,iterations=x",
                "salt=!,stored_key=AAAA,server_key=AAAA,iterations=1", "garbage"):
        with pytest.raises(ValueError):
            credential_from_string(bad)


def test_credential_provider_updates_and_removes_users():
    provider = CredentialProvider()
    text = credential_to_string(ScramFormatter(SHA256).generate_credential("pw", 4096))
    provider.update_credentials("alice", {"SCRAM-SHA-256": text})
    cache = provider.credential_cache.cache("SCRAM-SHA-256")
    assert cache.get("alice") is not None and provider.credential_cache.cache("SCRAM-SHA-512").get("alice") is None
    provider.update_credentials("alice", {})
    assert cache.get("alice") is None

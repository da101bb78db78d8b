"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/scram/internals/ScramMessages.java

Classes: ClientFirstMessage, ServerFirstMessage, ClientFinalMessage, ServerFinalMessage.

The four messages of a SCRAM exchange (RFC 5802 section 7), each parsed from and written to UTF-8 text:

    client-first   n,[a=<authzid>],n=<saslname>,r=<client nonce>[,<ext>=<value>...]
    server-first   r=<client nonce><server nonce>,s=<base64 salt>,i=<iterations>
    client-final   c=<base64 gs2 header>,r=<nonce>[,<ext>...],p=<base64 proof>
    server-final   v=<base64 server signature>   or   e=<error>

Kafka checks each message against one regular expression; here a message is split on commas and each
attribute is checked in order, with the same rules: only the "n" gs2 flag (no channel binding), nonces
of printable characters other than ",", base64 values, a positive iteration count. A message that breaks
a rule raises ``SaslException`` naming the message, never more about its content.
"""
from __future__ import annotations

import base64
import binascii
import re

from kafkalite.security.authenticator.sasl_exception import SaslException

_PRINTABLE = re.compile(r"^[\x21-\x2b\x2d-\x7e]+$")        # RFC 5802 "printable": 0x21-0x7E except ','
_SASLNAME = re.compile(r"^(?:[^=,]|=2C|=3D)+$")             # "=" only as =2C / =3D
_EXT_NAME = re.compile(r"^[a-zA-Z]+$")
_VALUE = re.compile(r"^[^,]*$")


def _text(message_bytes: bytes, what: str) -> str:
    try:
        return bytes(message_bytes).decode("utf-8")
    except UnicodeDecodeError:
        raise SaslException(f"Invalid SCRAM {what}: not UTF-8") from None


def _b64(value: str, what: str) -> bytes:
    try:
        return base64.b64decode(value.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise SaslException(f"Invalid SCRAM {what}: bad base64 value") from None


def _attr(part: str, key: str, what: str) -> str:
    if not part.startswith(key + "="):
        raise SaslException(f"Invalid SCRAM {what} format")
    return part[len(key) + 1:]


def _extensions(parts: list[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in parts:
        name, sep, value = part.partition("=")
        if not sep or not _EXT_NAME.match(name) or not _VALUE.match(value):
            raise SaslException(f"Invalid SCRAM {what} format")
        out[name] = value
    return out


class ClientFirstMessage:
    """Kafka: ScramMessages.ClientFirstMessage."""

    def __init__(self, sasl_name: str, nonce: str, extensions: dict[str, str] | None = None,
                 authorization_id: str = ""):
        self.sasl_name = sasl_name
        self.nonce = nonce
        self.extensions = dict(extensions or {})
        self.authorization_id = authorization_id

    @classmethod
    def parse(cls, message_bytes: bytes) -> "ClientFirstMessage":
        what = "client first message"
        text = _text(message_bytes, what)
        parts = text.split(",")
        if len(parts) < 4 or parts[0] != "n":   # only "n": this server offers no channel binding
            raise SaslException(f"Invalid SCRAM {what} format")
        authzid = ""
        if parts[1]:
            authzid = _attr(parts[1], "a", what)
            if not _SASLNAME.match(authzid):
                raise SaslException(f"Invalid SCRAM {what} format")
        rest = parts[2:]
        if rest[0].startswith("m="):   # reserved mandatory extension: RFC 5802 says fail
            raise SaslException(f"Invalid SCRAM {what}: mandatory extension not supported")
        sasl_name = _attr(rest[0], "n", what)
        nonce = _attr(rest[1], "r", what)
        if not _SASLNAME.match(sasl_name) or not _PRINTABLE.match(nonce):
            raise SaslException(f"Invalid SCRAM {what} format")
        return cls(sasl_name, nonce, _extensions(rest[2:], what), authzid)

    # Kafka: ClientFirstMessage.gs2Header
    def gs2_header(self) -> str:
        return "n," + (f"a={self.authorization_id}" if self.authorization_id else "") + ","

    # Kafka: ClientFirstMessage.clientFirstMessageBare
    def client_first_message_bare(self) -> str:
        bare = f"n={self.sasl_name},r={self.nonce}"
        if self.extensions:
            bare += "," + ",".join(f"{k}={v}" for k, v in self.extensions.items())
        return bare

    # Kafka: ClientFirstMessage.toMessage
    def to_message(self) -> str:
        return self.gs2_header() + self.client_first_message_bare()

    def to_bytes(self) -> bytes:
        return self.to_message().encode("utf-8")


class ServerFirstMessage:
    """Kafka: ScramMessages.ServerFirstMessage."""

    def __init__(self, client_nonce: str, server_nonce: str, salt: bytes, iterations: int):
        self.nonce = client_nonce + server_nonce
        self.salt = salt
        self.iterations = iterations

    @classmethod
    def parse(cls, message_bytes: bytes) -> "ServerFirstMessage":
        what = "server first message"
        parts = _text(message_bytes, what).split(",")
        if len(parts) < 3 or parts[0].startswith("m="):
            raise SaslException(f"Invalid SCRAM {what} format")
        nonce = _attr(parts[0], "r", what)
        salt = _b64(_attr(parts[1], "s", what), what)
        iterations_text = _attr(parts[2], "i", what)
        if not _PRINTABLE.match(nonce) or not iterations_text.isdigit() or not salt:
            raise SaslException(f"Invalid SCRAM {what} format")
        iterations = int(iterations_text)
        if iterations <= 0 or iterations > 0x7FFFFFFF:
            raise SaslException(f"Invalid SCRAM {what}: iterations {iterations}")
        _extensions(parts[3:], what)
        return cls(nonce, "", salt, iterations)

    def to_message(self) -> str:
        return f"r={self.nonce},s={base64.b64encode(self.salt).decode('ascii')},i={self.iterations}"

    def to_bytes(self) -> bytes:
        return self.to_message().encode("utf-8")


class ClientFinalMessage:
    """Kafka: ScramMessages.ClientFinalMessage."""

    def __init__(self, channel_binding: bytes, nonce: str, proof: bytes | None = None):
        self.channel_binding = channel_binding
        self.nonce = nonce
        self.proof = proof

    @classmethod
    def parse(cls, message_bytes: bytes) -> "ClientFinalMessage":
        what = "client final message"
        parts = _text(message_bytes, what).split(",")
        if len(parts) < 3:
            raise SaslException(f"Invalid SCRAM {what} format")
        channel_binding = _b64(_attr(parts[0], "c", what), what)
        nonce = _attr(parts[1], "r", what)
        proof = _b64(_attr(parts[-1], "p", what), what)
        if not _PRINTABLE.match(nonce):
            raise SaslException(f"Invalid SCRAM {what} format")
        _extensions(parts[2:-1], what)
        return cls(channel_binding, nonce, proof)

    # Kafka: ClientFinalMessage.clientFinalMessageWithoutProof
    def client_final_message_without_proof(self) -> str:
        return f"c={base64.b64encode(self.channel_binding).decode('ascii')},r={self.nonce}"

    def to_message(self) -> str:
        return f"{self.client_final_message_without_proof()},p={base64.b64encode(self.proof).decode('ascii')}"

    def to_bytes(self) -> bytes:
        return self.to_message().encode("utf-8")


class ServerFinalMessage:
    """Kafka: ScramMessages.ServerFinalMessage -- the verifier, or an error."""

    def __init__(self, error: str | None, server_signature: bytes | None):
        self.error = error
        self.server_signature = server_signature

    @classmethod
    def parse(cls, message_bytes: bytes) -> "ServerFinalMessage":
        what = "server final message"
        parts = _text(message_bytes, what).split(",")
        first = parts[0]
        if first.startswith("e="):
            return cls(first[2:], None)
        return cls(None, _b64(_attr(first, "v", what), what))

    def to_message(self) -> str:
        if self.error is not None:
            return f"e={self.error}"
        return f"v={base64.b64encode(self.server_signature).decode('ascii')}"

    def to_bytes(self) -> bytes:
        return self.to_message().encode("utf-8")

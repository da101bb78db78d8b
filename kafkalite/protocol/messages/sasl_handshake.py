"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/SaslHandshakeRequest.json and
SaslHandshakeResponse.json (same directory)

Classes: SaslHandshakeRequest, SaslHandshakeResponse.

The first step of SASL on a SASL_PLAINTEXT / SASL_SSL listener: the client names the mechanism it wants
("PLAIN", "SCRAM-SHA-256", ...) and the broker answers with an error code and the mechanisms it has
enabled on that listener. With v0 the SASL tokens that follow travel as raw size-prefixed frames; with
v1 they travel inside SaslAuthenticate requests (KIP-152).

Versions: 0-1, the same fields in both; never flexible (KAFKA-9577 keeps it that way).
"""
from __future__ import annotations

from kafkalite.protocol.schema import INT16, STRING, array, field, message


@message(api_key=17, kind="request", valid="0-1")
class SaslHandshakeRequest:
    mechanism: str = field(STRING, "0+")


@message(api_key=17, kind="response", valid="0-1")
class SaslHandshakeResponse:
    error_code: int = field(INT16, "0+")
    mechanisms: list[str] = field(array(STRING), "0+", default=[])

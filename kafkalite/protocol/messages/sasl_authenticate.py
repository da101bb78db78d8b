"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/SaslAuthenticateRequest.json and
SaslAuthenticateResponse.json (same directory)

Classes: SaslAuthenticateRequest, SaslAuthenticateResponse.

After a v1 SaslHandshake each SASL token is wrapped in one of these (KIP-152), so that a failure can come
back as an error code with a message (SASL_AUTHENTICATION_FAILED) instead of a bare closed socket.

Versions: 0-2. v1 adds the response's session lifetime (KIP-368 re-authentication), v2 is flexible.
"""
from __future__ import annotations

from kafkalite.protocol.schema import BYTES, INT16, INT64, STRING, field, message


@message(api_key=36, kind="request", valid="0-2", flexible="2+")
class SaslAuthenticateRequest:
    auth_bytes: bytes = field(BYTES, "0+", default=b"")


@message(api_key=36, kind="response", valid="0-2", flexible="2+")
class SaslAuthenticateResponse:
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    auth_bytes: bytes = field(BYTES, "0+", default=b"")
    session_lifetime_ms: int = field(INT64, "1+", default=0, ignorable=True)

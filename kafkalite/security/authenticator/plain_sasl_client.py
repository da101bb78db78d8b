"""No Kafka counterpart: the JDK's own SASL/PLAIN client (com.sun.security.sasl.PlainClient), which Kafka's
SaslClientAuthenticator gets from javax.security.sasl.Sasl.createSaslClient.

Classes: PlainSaslClient.

One initial response, ``NUL username NUL password``, then nothing: the server's empty answer completes it.
"""
from __future__ import annotations


class PlainSaslClient:
    """com.sun.security.sasl.PlainClient."""

    mechanism_name = "PLAIN"

    def __init__(self, username: str, password: str):
        self.username = username
        self.password = password
        self.complete = False

    def has_initial_response(self) -> bool:
        return True

    def evaluate_challenge(self, challenge: bytes) -> bytes | None:
        if self.complete:
            return None
        self.complete = True
        return b"\x00" + self.username.encode("utf-8") + b"\x00" + self.password.encode("utf-8")

    def is_complete(self) -> bool:
        return self.complete

    def dispose(self) -> None:
        pass

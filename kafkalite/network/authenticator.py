"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/Authenticator.java

Classes: Authenticator.

The authenticator of a channel runs after the transport is ready (TLS handshake done):
``KafkaChannel.prepare()`` calls ``authenticate()`` until ``complete()``; then ``principal()`` is who the
peer is. PLAINTEXT and SSL channels have trivial authenticators (PlaintextChannelBuilder.
PlaintextAuthenticator, SslChannelBuilder.SslAuthenticator: complete at once, the principal from the
principal builder); SASL channels have SaslServerAuthenticator / SaslClientAuthenticator.
Left out: re-authentication (KIP-368) hooks -- an authenticator may add them.
"""
from __future__ import annotations


class Authenticator:
    """Kafka: Authenticator (interface)."""

    # Kafka: Authenticator.authenticate -- one non-blocking step; raise AuthenticationException to fail.
    def authenticate(self) -> None:
        pass

    # Kafka: Authenticator.handleAuthenticationFailure
    def handle_authentication_failure(self) -> None:
        pass

    # Kafka: Authenticator.principal
    def principal(self):
        raise NotImplementedError

    # Kafka: Authenticator.complete
    def complete(self) -> bool:
        return True

    # (Closeable.close)
    def close(self) -> None:
        pass

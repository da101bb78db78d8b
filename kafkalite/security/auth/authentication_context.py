"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/auth/AuthenticationContext.java
(with PlaintextAuthenticationContext.java, SslAuthenticationContext.java, SaslAuthenticationContext.java)

Classes: AuthenticationContext, PlaintextAuthenticationContext, SslAuthenticationContext,
SaslAuthenticationContext.

What a principal builder is told about a connection once it is authenticated: the security protocol,
the client's address, the listener, and (SSL) the TLS session or (SASL) the SASL server.
Python stand-ins: the SSL "session" is the connection's ``ssl.SSLObject`` (``getpeercert()`` is
SSLSession.getPeerCertificates); the SASL "server" is any object with ``get_mechanism_name()`` and
``get_authorization_id()`` (javax.security.sasl.SaslServer's two methods the builder calls).
"""
from __future__ import annotations


class AuthenticationContext:
    """Kafka: AuthenticationContext (interface)."""

    security_protocol_name = ""

    def __init__(self, client_address: str, listener_name: str):
        self.client_address = client_address
        self.listener_name = listener_name

    # Kafka: AuthenticationContext.securityProtocol
    def security_protocol(self) -> str:
        return self.security_protocol_name

    # Kafka: AuthenticationContext.clientAddress
    def get_client_address(self) -> str:
        return self.client_address

    # Kafka: AuthenticationContext.listenerName
    def get_listener_name(self) -> str:
        return self.listener_name


class PlaintextAuthenticationContext(AuthenticationContext):
    """Kafka: PlaintextAuthenticationContext."""

    security_protocol_name = "PLAINTEXT"


class SslAuthenticationContext(AuthenticationContext):
    """Kafka: SslAuthenticationContext -- carries the TLS session (here the ``ssl.SSLObject``)."""

    security_protocol_name = "SSL"

    def __init__(self, session, client_address: str, listener_name: str):
        super().__init__(client_address, listener_name)
        self._session = session

    # Kafka: SslAuthenticationContext.session
    def session(self):
        return self._session


class SaslAuthenticationContext(AuthenticationContext):
    """Kafka: SaslAuthenticationContext -- carries the SASL server; SASL_PLAINTEXT or SASL_SSL."""

    def __init__(self, server, security_protocol: str, client_address: str, listener_name: str):
        super().__init__(client_address, listener_name)
        self._server = server
        self.security_protocol_name = security_protocol

    # Kafka: SaslAuthenticationContext.server
    def server(self):
        return self._server

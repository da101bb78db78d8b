"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/auth/KafkaPrincipalBuilder.java
and clients/src/main/java/org/apache/kafka/common/security/authenticator/DefaultKafkaPrincipalBuilder.java

Classes: KafkaPrincipalBuilder, DefaultKafkaPrincipalBuilder.

Once a channel is authenticated its authenticator asks the principal builder who the peer is
(``build(context)``), and ``KafkaChannel.principal()`` returns that answer:
- PLAINTEXT: ``User:ANONYMOUS``;
- SSL: ``User:`` + the client certificate's subject DN as the JDK formats it (RFC 2253, e.g.
  ``CN=client,O=Acme,C=US``), passed through ``ssl.principal.mapping.rules``; no client certificate
  (ssl.client.auth=none/requested) -> ``User:ANONYMOUS``;
- SASL_PLAINTEXT / SASL_SSL: ``User:`` + the SASL server's authorization id.
Left out: ``principal.builder.class`` (custom builders), the deprecated PrincipalBuilder adapter and the
Kerberos short-namer (GSSAPI is not supported).
"""
from __future__ import annotations

from kafkalite.security.auth.authentication_context import (
    PlaintextAuthenticationContext,
    SaslAuthenticationContext,
    SslAuthenticationContext,
)
from kafkalite.security.auth.kafka_principal import KafkaPrincipal
from kafkalite.security.ssl.ssl_principal_mapper import SslPrincipalMapper
from kafkalite.security.ssl.x500_principal import rfc2253_name


class KafkaPrincipalBuilder:
    """Kafka: KafkaPrincipalBuilder (interface)."""

    # Kafka: KafkaPrincipalBuilder.build
    def build(self, context) -> KafkaPrincipal:
        raise NotImplementedError


class DefaultKafkaPrincipalBuilder(KafkaPrincipalBuilder):
    """Kafka: DefaultKafkaPrincipalBuilder."""

    def __init__(self, ssl_principal_mapper: SslPrincipalMapper | None = None):
        self.ssl_principal_mapper = ssl_principal_mapper or SslPrincipalMapper(None)

    # Kafka: DefaultKafkaPrincipalBuilder.build
    def build(self, context) -> KafkaPrincipal:
        if isinstance(context, PlaintextAuthenticationContext):
            return KafkaPrincipal.ANONYMOUS
        if isinstance(context, SslAuthenticationContext):
            try:
                cert = context.session().getpeercert()
            except ValueError:      # handshake not done (SSLPeerUnverifiedException)
                cert = None
            if not cert:            # no (verified) client certificate: SSLPeerUnverifiedException
                return KafkaPrincipal.ANONYMOUS
            return self.apply_ssl_principal_mapper(rfc2253_name(cert.get("subject")))
        if isinstance(context, SaslAuthenticationContext):
            server = context.server()
            if server.get_mechanism_name() == "GSSAPI":
                raise ValueError("GSSAPI is not supported by kafkalite")
            return KafkaPrincipal(KafkaPrincipal.USER_TYPE, server.get_authorization_id())
        raise ValueError(f"Unhandled authentication context type: {type(context).__name__}")

    # Kafka: DefaultKafkaPrincipalBuilder.applySslPrincipalMapper
    def apply_ssl_principal_mapper(self, distinguished_name: str) -> KafkaPrincipal:
        try:
            return KafkaPrincipal(KafkaPrincipal.USER_TYPE, self.ssl_principal_mapper.get_name(distinguished_name))
        except OSError as e:
            raise RuntimeError(f"Failed to map name for '{distinguished_name}' based on SSL principal "
                               f"mapping rules.") from e

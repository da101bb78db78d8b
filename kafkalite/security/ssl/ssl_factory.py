"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/ssl/SslFactory.java
(and clients/src/main/java/org/apache/kafka/common/network/Mode.java)

Classes: Mode, SslFactory.

One SslFactory per channel builder: ``configure(configs)`` builds the SslEngineBuilder (loading the key and
trust stores, so a bad store fails start-up, not the first connection); ``create_ssl_engine(peer_host,
peer_port)`` gives each new connection its engine, in this factory's mode.
``client_auth_config_override`` is how Kafka's inter-broker client side ignores ssl.client.auth.
Left out: dynamic reconfiguration (validateReconfiguration / reconfigure: new key stores need a restart),
the keystore-verifiable-using-truststore validation (SslEngineValidator).
"""
from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from kafkalite.security.ssl import ssl_configs as C

if TYPE_CHECKING:   # Python's ssl module is loaded by the first SSL listener's configure, not by every broker
    from kafkalite.security.ssl.ssl_engine_builder import SslEngineBuilder


class Mode(enum.Enum):
    """Kafka: org.apache.kafka.common.network.Mode."""

    CLIENT = 0
    SERVER = 1


class SslFactory:
    """Kafka: SslFactory."""

    def __init__(self, mode: Mode, client_auth_config_override: str | None = None,
                 keystore_verifiable_using_truststore: bool = False):
        self.mode = mode
        self.client_auth_config_override = client_auth_config_override
        self.keystore_verifiable_using_truststore = keystore_verifiable_using_truststore
        self.endpoint_identification: str | None = None
        self.ssl_engine_builder: SslEngineBuilder | None = None

    # Kafka: SslFactory.configure
    def configure(self, configs: dict) -> None:
        if self.ssl_engine_builder is not None:
            raise RuntimeError("SslFactory was already configured.")
        next_configs = dict(configs)
        if self.client_auth_config_override is not None:
            next_configs[C.SSL_CLIENT_AUTH_CONFIG] = self.client_auth_config_override
        from kafkalite.security.ssl.ssl_engine_builder import SslEngineBuilder
        builder = SslEngineBuilder(next_configs)
        self.endpoint_identification = builder.configs()[C.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG]
        builder.ssl_context(self.mode is Mode.SERVER)   # fail now on a bad key store, not per connection
        self.ssl_engine_builder = builder

    # Kafka: SslFactory.createSslEngine -- (SSLObject, net read BIO, net write BIO) for one connection.
    def create_ssl_engine(self, peer_host: str | None, peer_port: int = -1):
        if self.ssl_engine_builder is None:
            raise RuntimeError("SslFactory has not been configured.")
        return self.ssl_engine_builder.create_ssl_engine(self.mode is Mode.SERVER, peer_host, peer_port)

    # Kafka: SslFactory.sslEngineBuilder
    def get_ssl_engine_builder(self) -> SslEngineBuilder | None:
        return self.ssl_engine_builder

"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/SslChannelBuilder.java

Classes: SslChannelBuilder, SslAuthenticator.

SSL channels: an SslTransportLayer over an engine from this builder's SslFactory (made once, in
``configure``), and an authenticator that is complete as soon as the TLS handshake is (the client
certificate, if any, was checked by the handshake); the principal is the certificate's subject, mapped
by ``ssl.principal.mapping.rules``.
Left out: ListenerReconfigurable (new key stores need a restart).
"""
from __future__ import annotations

from kafkalite.common.memory.memory_pool import MemoryPool
from kafkalite.network.authenticator import Authenticator
from kafkalite.network.channel_builders import ChannelBuilder, ChannelBuilders
from kafkalite.network.kafka_channel import KafkaChannel
from kafkalite.network.ssl_transport_layer import SslTransportLayer
from kafkalite.security.auth.authentication_context import SslAuthenticationContext
from kafkalite.security.ssl import ssl_configs as C
from kafkalite.security.ssl.ssl_factory import Mode, SslFactory
from kafkalite.security.ssl.ssl_principal_mapper import SslPrincipalMapper


class SslAuthenticator(Authenticator):
    """Kafka: SslChannelBuilder.SslAuthenticator."""

    def __init__(self, configs: dict, transport_layer: SslTransportLayer, listener_name: str | None,
                 ssl_principal_mapper: SslPrincipalMapper | None):
        self.transport_layer = transport_layer
        self.principal_builder = ChannelBuilders.create_principal_builder(configs, ssl_principal_mapper)
        self.listener_name = listener_name
        self._principal = None

    # Kafka: SslAuthenticator.principal -- built once the handshake is done (asked for on every request)
    def principal(self):
        if self._principal is not None:
            return self._principal
        try:
            client_address = self.transport_layer.socket_channel.getpeername()[0]
        except OSError:
            client_address = ""
        principal = self.principal_builder.build(SslAuthenticationContext(
            self.transport_layer.ssl_session(), client_address, self.listener_name or ""))
        if self.transport_layer.ready():
            self._principal = principal
        return principal

    # Kafka: SslAuthenticator.complete
    def complete(self) -> bool:
        return True


class SslChannelBuilder(ChannelBuilder):
    """Kafka: SslChannelBuilder."""

    def __init__(self, mode: Mode, listener_name: str | None = None, is_inter_broker_listener: bool = False):
        self.mode = mode
        self.listener_name = listener_name
        self.is_inter_broker_listener = is_inter_broker_listener
        self.configs: dict = {}
        self.ssl_factory: SslFactory | None = None
        self.ssl_principal_mapper: SslPrincipalMapper | None = None

    # Kafka: SslChannelBuilder.configure
    def configure(self, configs: dict) -> None:
        self.configs = configs
        rules = configs.get(C.SSL_PRINCIPAL_MAPPING_RULES_CONFIG)
        if rules is not None:
            self.ssl_principal_mapper = SslPrincipalMapper.from_rules(rules)
        self.ssl_factory = SslFactory(self.mode, None, self.is_inter_broker_listener)
        self.ssl_factory.configure(configs)

    # Kafka: SslChannelBuilder.buildChannel
    def build_channel(self, channel_id: str, sock, nio_selector, max_receive_size: int,
                      memory_pool: MemoryPool = MemoryPool.NONE, peer_host: str | None = None) -> KafkaChannel:
        transport = self.build_transport_layer(self.ssl_factory, channel_id, sock, nio_selector, peer_host)
        return KafkaChannel(channel_id, transport, max_receive_size, memory_pool,
                            lambda: SslAuthenticator(self.configs, transport, self.listener_name,
                                                     self.ssl_principal_mapper))

    # Kafka: SslChannelBuilder.buildTransportLayer
    def build_transport_layer(self, ssl_factory: SslFactory, channel_id: str, sock, nio_selector,
                              peer_host: str | None) -> SslTransportLayer:
        if peer_host is None:
            try:
                peer_host = sock.getpeername()[0]
            except OSError:
                peer_host = None
        return SslTransportLayer.create(channel_id, sock, nio_selector, ssl_factory.create_ssl_engine(peer_host))

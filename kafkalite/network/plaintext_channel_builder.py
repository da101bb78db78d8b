"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/PlaintextChannelBuilder.java

Classes: PlaintextChannelBuilder, PlaintextAuthenticator.

PLAINTEXT channels: a PlaintextTransportLayer and an authenticator that is complete from the start and
names the peer through the principal builder (User:ANONYMOUS).
"""
from __future__ import annotations

from kafkalite.common.memory.memory_pool import MemoryPool
from kafkalite.network.authenticator import Authenticator
from kafkalite.network.channel_builders import ChannelBuilder, ChannelBuilders
from kafkalite.network.kafka_channel import KafkaChannel
from kafkalite.network.transport_layer import PlaintextTransportLayer
from kafkalite.security.auth.authentication_context import PlaintextAuthenticationContext


def _client_address(sock) -> str:
    try:
        return sock.getpeername()[0]
    except OSError:
        return ""


class PlaintextAuthenticator(Authenticator):
    """Kafka: PlaintextChannelBuilder.PlaintextAuthenticator."""

    def __init__(self, configs: dict, transport_layer: PlaintextTransportLayer, listener_name: str | None):
        self.transport_layer = transport_layer
        self.principal_builder = ChannelBuilders.create_principal_builder(configs)
        self.listener_name = listener_name
        self._principal = None

    # Kafka: PlaintextAuthenticator.principal -- built once: it is asked for on every request, and a
    # connection's principal does not change (kafkalite has no re-authentication)
    def principal(self):
        if self._principal is None:
            self._principal = self.principal_builder.build(PlaintextAuthenticationContext(
                _client_address(self.transport_layer.socket_channel), self.listener_name or ""))
        return self._principal

    # Kafka: PlaintextAuthenticator.complete
    def complete(self) -> bool:
        return True


class PlaintextChannelBuilder(ChannelBuilder):
    """Kafka: PlaintextChannelBuilder."""

    def __init__(self, listener_name: str | None = None):
        self.listener_name = listener_name
        self.configs: dict = {}

    # Kafka: PlaintextChannelBuilder.configure
    def configure(self, configs: dict) -> None:
        self.configs = configs

    # Kafka: PlaintextChannelBuilder.buildChannel
    def build_channel(self, channel_id: str, sock, nio_selector, max_receive_size: int,
                      memory_pool: MemoryPool = MemoryPool.NONE, peer_host: str | None = None) -> KafkaChannel:
        transport = PlaintextTransportLayer(sock, nio_selector)
        return KafkaChannel(channel_id, transport, max_receive_size, memory_pool,
                            lambda: PlaintextAuthenticator(self.configs, transport, self.listener_name))

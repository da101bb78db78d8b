"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/ChannelBuilders.java
(and ChannelBuilder.java)

Classes: ChannelBuilder, ChannelBuilders.

A Selector turns each socket into a KafkaChannel through its channel builder: the builder picks the
transport (plaintext or TLS) and the authenticator, by security protocol. ``ChannelBuilders`` makes the
builder for a broker listener (``server_channel_builder``: each Processor of the listener has its own, as
in Kafka) or for a client connection (``client_channel_builder``: kafkalite's clients, and the broker's
controller channel, replica fetchers and transaction marker sender with the inter-broker listener's
protocol and configs).
Configs: a dict of config values, or a KafkaConfig, whose ``listener.name.<listener>.<key>`` overrides win
for that listener (Kafka: AbstractConfig.valuesWithPrefixOverride(ListenerName.configPrefix)).
Left out: ``principal.builder.class`` (always DefaultKafkaPrincipalBuilder), the deprecated PrincipalBuilder,
Kerberos short names.
"""
from __future__ import annotations

from kafkalite.common.memory.memory_pool import MemoryPool
from kafkalite.security.auth.principal_builder import DefaultKafkaPrincipalBuilder
from kafkalite.security.ssl.ssl_factory import Mode
from kafkalite.security.ssl.ssl_principal_mapper import SslPrincipalMapper


class ChannelBuilder:
    """Kafka: ChannelBuilder (interface)."""

    # (Configurable.configure)
    def configure(self, configs: dict) -> None:
        pass

    # Kafka: ChannelBuilder.buildChannel -- ``peer_host`` is the host a client connected to (for TLS host
    # name checks); a server leaves it None.
    def build_channel(self, channel_id: str, sock, nio_selector, max_receive_size: int,
                      memory_pool: MemoryPool = MemoryPool.NONE, peer_host: str | None = None):
        raise NotImplementedError

    # Kafka: ChannelBuilder.close
    def close(self) -> None:
        pass


def config_prefix(listener_name: str) -> str:
    """Kafka: ListenerName.configPrefix -- "listener.name.<lower-case name>."."""
    return f"listener.name.{listener_name.lower()}."


class ChannelBuilders:
    """Kafka: ChannelBuilders."""

    # Kafka: ChannelBuilders.clientChannelBuilder
    @staticmethod
    def client_channel_builder(security_protocol: str, configs, listener_name: str | None = None,
                               client_sasl_mechanism: str | None = None, time=None,
                               sasl_handshake_request_enable: bool = True) -> ChannelBuilder:
        protocol = (security_protocol or "PLAINTEXT").upper()
        if protocol in ("SASL_PLAINTEXT", "SASL_SSL") and client_sasl_mechanism is None:
            raise ValueError(f"`clientSaslMechanism` must be non-null in client mode if `securityProtocol` "
                             f"is `{protocol}`")
        return ChannelBuilders.create(protocol, Mode.CLIENT, configs, listener_name, False,
                                      client_sasl_mechanism, sasl_handshake_request_enable, time=time)

    # Kafka: ChannelBuilders.serverChannelBuilder
    @staticmethod
    def server_channel_builder(listener_name: str, is_inter_broker_listener: bool, security_protocol: str,
                               configs, credential_cache=None, token_cache=None, time=None) -> ChannelBuilder:
        return ChannelBuilders.create(security_protocol.upper(), Mode.SERVER, configs, listener_name,
                                      is_inter_broker_listener, None, True, credential_cache, token_cache, time)

    # Kafka: ChannelBuilders.create
    @staticmethod
    def create(security_protocol: str, mode: Mode, configs, listener_name: str | None,
               is_inter_broker_listener: bool, client_sasl_mechanism: str | None,
               sasl_handshake_request_enable: bool, credential_cache=None, token_cache=None,
               time=None) -> ChannelBuilder:
        if hasattr(configs, "values_with_prefix_override"):
            values = configs.values_with_prefix_override(config_prefix(listener_name) if listener_name else "")
        else:
            values = dict(configs or {})
        if security_protocol == "SSL":
            from kafkalite.network.ssl_channel_builder import SslChannelBuilder
            builder: ChannelBuilder = SslChannelBuilder(mode, listener_name, is_inter_broker_listener)
        elif security_protocol in ("SASL_PLAINTEXT", "SASL_SSL"):
            try:
                from kafkalite.network.sasl_channel_builder import SaslChannelBuilder   # type: ignore
            except ImportError:
                raise ValueError(f"Unexpected securityProtocol {security_protocol}: SASL is not in this build") \
                    from None
            builder = SaslChannelBuilder(mode, security_protocol, listener_name, is_inter_broker_listener,
                                         client_sasl_mechanism, sasl_handshake_request_enable,
                                         credential_cache, token_cache, time)
        elif security_protocol == "PLAINTEXT":
            from kafkalite.network.plaintext_channel_builder import PlaintextChannelBuilder
            builder = PlaintextChannelBuilder(listener_name)
        else:
            raise ValueError(f"Unexpected securityProtocol {security_protocol}")
        builder.configure(values)
        return builder

    # Kafka: ChannelBuilders.createPrincipalBuilder
    @staticmethod
    def create_principal_builder(configs: dict, ssl_principal_mapper: SslPrincipalMapper | None = None):
        return DefaultKafkaPrincipalBuilder(ssl_principal_mapper)


def broker_client_channel_builder(config, listener_name: str | None = None, time=None) -> ChannelBuilder:
    """The client side of the broker's own connections to other brokers, on ``listener_name`` (default:
    the inter-broker listener) with that listener's protocol and configs. Kafka repeats this
    ``ChannelBuilders.clientChannelBuilder(...)`` call in ControllerChannelManager,
    ReplicaFetcherBlockingSend, TransactionMarkerChannelManager and KafkaServer.doControlledShutdown."""
    if not hasattr(config, "values_with_prefix_override"):
        from kafkalite.network.plaintext_channel_builder import PlaintextChannelBuilder
        return PlaintextChannelBuilder(listener_name)   # a bare test config
    listener = listener_name or config.inter_broker_listener_name
    protocol = config.listener_security_protocol_map.get(listener, listener).upper()
    return ChannelBuilders.client_channel_builder(protocol, config, listener,
                                                  getattr(config, "sasl_mechanism_inter_broker_protocol", None), time)

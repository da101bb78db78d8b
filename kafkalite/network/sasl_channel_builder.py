"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/SaslChannelBuilder.java

Classes: SaslChannelBuilder.

SASL_PLAINTEXT and SASL_SSL channels: a plaintext (or, for SASL_SSL, TLS) transport and a SASL
authenticator -- SaslServerAuthenticator on a broker listener, SaslClientAuthenticator in a client.

``configure(configs)`` takes the listener's config values (``listener.name.<listener>.`` overrides already
applied, as Kafka's valuesWithPrefixOverride gives them) and prepares, per enabled mechanism:
- server mode: the JAAS entry (``<mechanism>.sasl.jaas.config``, i.e. the broker key
  ``listener.name.<listener>.<mechanism>.sasl.jaas.config``), the mechanism's SaslServer factory (PLAIN
  checks the entry's ``user_<name>`` options, SCRAM looks users up in the broker's CredentialCache) and
  ``connections.max.reauth.ms`` (``<mechanism>.connections.max.reauth.ms`` wins);
- client mode: one mechanism (``sasl.mechanism``, or ``sasl.mechanism.inter.broker.protocol`` for a broker's
  own connections) and its login ``username`` / ``password``: from ``sasl.jaas.config`` for a client, and
  from the listener's server JAAS entry for inter-broker traffic, as Kafka does.
OAUTHBEARER is served with Kafka's default unsecured-token validator (``oauthbearer_sasl_server``); kafkalite's
own clients speak PLAIN and SCRAM only.
Left out: GSSAPI, custom callback handler classes, login refresh.
"""
from __future__ import annotations

from kafkalite.common.config.config_def import Type, parse_type
from kafkalite.common.memory.memory_pool import MemoryPool
from kafkalite.network.kafka_channel import KafkaChannel
from kafkalite.network.transport_layer import PlaintextTransportLayer
from kafkalite.security.authenticator.jaas_context import JaasContext
from kafkalite.security.authenticator.oauthbearer_sasl_server import (OAUTHBEARER_MECHANISM, OAuthBearerSaslServer,
                                                                      OAuthBearerUnsecuredValidatorCallbackHandler)
from kafkalite.security.authenticator.plain_sasl_server import (PLAIN_MECHANISM, PlainSaslServer,
                                                                PlainServerCallbackHandler)
from kafkalite.security.authenticator.sasl_client_authenticator import SaslClientAuthenticator, create_sasl_client
from kafkalite.security.authenticator.sasl_server_authenticator import SaslServerAuthenticator
from kafkalite.security.authenticator.scram_mechanism import ScramMechanism
from kafkalite.security.authenticator.scram_sasl_server import ScramSaslServer, ScramServerCallbackHandler
from kafkalite.utils.time import SYSTEM

SUPPORTED_MECHANISMS = (PLAIN_MECHANISM, *ScramMechanism.mechanism_names(), OAUTHBEARER_MECHANISM)


def _mode_name(mode) -> str:
    return str(getattr(mode, "name", mode)).upper()


def _as_list(value) -> list[str]:
    """sasl.enabled.mechanisms as KafkaConfig parsed it, or as ConfigDef would parse it when given as text."""
    return parse_type("sasl.enabled.mechanisms", value, Type.LIST) or []


class SaslChannelBuilder:
    """Kafka: SaslChannelBuilder(mode, jaasContexts, securityProtocol, listenerName, isInterBrokerListener,
    clientSaslMechanism, handshakeRequestEnable, credentialCache, tokenCache, sslClientAuthOverride)."""

    def __init__(self, mode, security_protocol: str, listener_name: str | None = None,
                 is_inter_broker_listener: bool = False, client_sasl_mechanism: str | None = None,
                 handshake_request_enable: bool = True, credential_cache=None, token_cache=None, time=None,
                 api_versions_response=None):
        self.mode = _mode_name(mode)
        self.security_protocol = security_protocol.upper()
        self.listener_name = listener_name
        self.is_inter_broker_listener = is_inter_broker_listener
        self.client_sasl_mechanism = client_sasl_mechanism
        self.handshake_request_enable = handshake_request_enable
        self.credential_cache = credential_cache
        self.time = time or SYSTEM
        self.api_versions_response = api_versions_response
        self.configs: dict = {}
        self.jaas_contexts: dict[str, JaasContext] = {}
        self.sasl_server_factories: dict = {}
        self.connections_max_reauth_ms_by_mechanism: dict[str, int] = {}
        self.enabled_mechanisms: list[str] = []
        self.ssl_channel_builder = None   # SASL_SSL: builds the TLS transport

    # Kafka: SaslChannelBuilder.configure
    def configure(self, configs: dict) -> None:
        self.configs = configs
        if self.mode == "SERVER":
            self.enabled_mechanisms = _as_list(configs.get("sasl.enabled.mechanisms"))
            for mechanism in self.enabled_mechanisms:
                if mechanism not in SUPPORTED_MECHANISMS:
                    raise ValueError(f"SASL mechanism {mechanism} enabled on listener {self.listener_name} is not "
                                     f"supported by kafkalite (supported: {', '.join(SUPPORTED_MECHANISMS)})")
                jaas = JaasContext.load_server_context(self.listener_name, mechanism, configs)
                self.jaas_contexts[mechanism] = jaas
                self.sasl_server_factories[mechanism] = self._server_factory(mechanism, jaas)
                reauth = configs.get(f"{mechanism.lower()}.connections.max.reauth.ms",
                                     configs.get("connections.max.reauth.ms"))
                self.connections_max_reauth_ms_by_mechanism[mechanism] = int(reauth or 0)
        else:
            mechanism = self.client_sasl_mechanism
            if self.is_inter_broker_listener or self.listener_name is not None:
                # a broker's own connection: the listener's server entry logs in (Kafka: JaasContext.Type.SERVER)
                jaas = JaasContext.load_server_context(self.listener_name, mechanism, configs)
            else:
                jaas = JaasContext.load_client_context(configs)
            self.jaas_contexts[mechanism] = jaas
            create_sasl_client(mechanism, jaas)   # fails now, not on first connect, if username/password lack
        if self.security_protocol == "SASL_SSL":
            self.ssl_channel_builder = self._ssl_channel_builder(configs)

    def _server_factory(self, mechanism: str, jaas: JaasContext):
        if mechanism == OAUTHBEARER_MECHANISM:   # Kafka's default: the unsecured validator
            validator = OAuthBearerUnsecuredValidatorCallbackHandler(jaas, self.time)
            return lambda: OAuthBearerSaslServer(validator)
        if mechanism == PLAIN_MECHANISM:
            handler = PlainServerCallbackHandler(jaas)
            return lambda: PlainSaslServer(handler)
        scram = ScramMechanism.for_mechanism_name(mechanism)
        handler = ScramServerCallbackHandler(self.credential_cache, mechanism)
        return lambda: ScramSaslServer(scram, handler)

    def _ssl_channel_builder(self, configs: dict):
        try:
            from kafkalite.network.ssl_channel_builder import SslChannelBuilder
            from kafkalite.security.ssl.ssl_factory import Mode
        except ImportError:
            raise ValueError("SASL_SSL needs the SSL transport, which this build does not have") from None
        builder = SslChannelBuilder(Mode.SERVER if self.mode == "SERVER" else Mode.CLIENT, self.listener_name,
                                    self.is_inter_broker_listener)
        builder.configure(configs)
        return builder

    # Kafka: SaslChannelBuilder.buildChannel
    def build_channel(self, channel_id: str, sock, nio_selector, max_receive_size: int,
                      memory_pool: MemoryPool = MemoryPool.NONE, peer_host: str | None = None) -> KafkaChannel:
        transport = self.build_transport_layer(channel_id, sock, nio_selector, peer_host)
        if self.mode == "SERVER":
            creator = lambda: self.build_server_authenticator(channel_id, transport)   # noqa: E731
        else:
            creator = lambda: self.build_client_authenticator(channel_id, transport)   # noqa: E731
        return KafkaChannel(channel_id, transport, max_receive_size, memory_pool, creator)

    # Kafka: SaslChannelBuilder.buildTransportLayer
    def build_transport_layer(self, channel_id: str, sock, nio_selector, peer_host: str | None):
        if self.ssl_channel_builder is not None:
            return self.ssl_channel_builder.build_transport_layer(self.ssl_channel_builder.ssl_factory, channel_id,
                                                                  sock, nio_selector, peer_host)
        return PlaintextTransportLayer(sock, nio_selector)

    # Kafka: SaslChannelBuilder.buildServerAuthenticator
    def build_server_authenticator(self, channel_id: str, transport) -> SaslServerAuthenticator:
        return SaslServerAuthenticator(self.enabled_mechanisms, self.sasl_server_factories, channel_id,
                                       self.listener_name, self.security_protocol, transport,
                                       self.connections_max_reauth_ms_by_mechanism, self.time,
                                       self.api_versions_response)

    # Kafka: SaslChannelBuilder.buildClientAuthenticator
    def build_client_authenticator(self, channel_id: str, transport) -> SaslClientAuthenticator:
        mechanism = self.client_sasl_mechanism
        jaas = self.jaas_contexts[mechanism]
        return SaslClientAuthenticator(lambda: create_sasl_client(mechanism, jaas), channel_id, mechanism,
                                       transport, self.configs.get("client.id") or "", self.time)

    def close(self) -> None:
        pass


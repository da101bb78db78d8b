"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/authenticator/SaslClientAuthenticator.java

Classes: SaslClientAuthenticator, SaslState; function create_sasl_client.

The client's side of SASL on one connection, for kafkalite's own clients and for the broker's inter-broker
connections (controller channel, replica fetchers, transaction marker sender). ``KafkaChannel.prepare()``
calls ``authenticate()`` on every poll until it is complete:

    SEND_HANDSHAKE_REQUEST -> RECEIVE_HANDSHAKE_RESPONSE -> INITIAL (first token) -> INTERMEDIATE
    (each server token answered) -> COMPLETE

Each token goes out in a SaslAuthenticate v1 request; a SASL_AUTHENTICATION_FAILED answer raises with the
broker's message. The NetworkClient above sees the channel only once it is ready, and then sends its own
ApiVersions as on any connection.
Era notes: Kafka's client first sends ApiVersions to pick the SaslHandshake / SaslAuthenticate versions; a
kafkalite client talks to kafkalite brokers, which all have SaslHandshake v1 and SaslAuthenticate v1, so it
starts with the handshake. Left out: re-authentication (KIP-368), GSSAPI, OAUTHBEARER.
"""
from __future__ import annotations

import enum
import logging

from kafkalite.network.network_receive import NetworkReceive
from kafkalite.network.network_send import NetworkSend
from kafkalite.network.transport_layer import OP_WRITE
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.sasl_authenticate import SaslAuthenticateRequest
from kafkalite.protocol.messages.sasl_handshake import SaslHandshakeRequest
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import parse_response, serialize_request
from kafkalite.security.auth.kafka_principal import KafkaPrincipal
from kafkalite.security.authenticator.jaas_context import JaasContext
from kafkalite.security.authenticator.plain_sasl_client import PlainSaslClient
from kafkalite.security.authenticator.sasl_exception import SaslAuthenticationFailure, SaslException
from kafkalite.security.authenticator.scram_mechanism import ScramMechanism
from kafkalite.security.authenticator.scram_sasl_client import ScramSaslClient

log = logging.getLogger("org.apache.kafka.common.security.authenticator.SaslClientAuthenticator")

HANDSHAKE_VERSION = 1
AUTHENTICATE_VERSION = 1
MAX_RECEIVE_SIZE = 524288


class SaslState(enum.Enum):
    """Kafka: SaslClientAuthenticator.SaslState (the ApiVersions and re-authentication states left out)."""

    SEND_HANDSHAKE_REQUEST = 0
    RECEIVE_HANDSHAKE_RESPONSE = 1
    INITIAL = 2
    INTERMEDIATE = 3
    COMPLETE = 4
    FAILED = 5


def create_sasl_client(mechanism: str, jaas_context: JaasContext):
    """Kafka: SaslClientAuthenticator.createSaslClient -- the mechanism's client, logged in with the JAAS
    entry's ``username`` / ``password``."""
    username = jaas_context.config_entry_option("username")
    password = jaas_context.config_entry_option("password")
    if username is None or password is None:
        raise ValueError(f"sasl.jaas.config for {mechanism} must set username and password")
    if mechanism == "PLAIN":
        return PlainSaslClient(username, password)
    scram = ScramMechanism.for_mechanism_name(mechanism)
    if scram is not None:
        return ScramSaslClient(scram, username, password)
    raise ValueError(f"Unsupported SASL mechanism {mechanism} (kafkalite has PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)")


class SaslClientAuthenticator:
    """Kafka: SaslClientAuthenticator(configs, callbackHandler, node, subject, servicePrincipal, host,
    mechanism, handshakeRequestEnable, transportLayer, time, logContext)."""

    def __init__(self, sasl_client_factory, node: str, mechanism: str, transport_layer, client_id: str = "",
                 time=None):
        self.sasl_client_factory = sasl_client_factory
        self.sasl_client = None
        self.node = node
        self.mechanism = mechanism
        self.transport_layer = transport_layer
        self.client_id = client_id
        self.time = time
        self.sasl_state = SaslState.SEND_HANDSHAKE_REQUEST
        self.correlation_id = 0
        self.pending_api_key: ApiKeys | None = None
        self.net_in_buffer: NetworkReceive | None = None
        self.net_out_buffer: NetworkSend | None = None
        self.session_lifetime_ms = 0

    # Kafka: SaslClientAuthenticator.authenticate
    def authenticate(self) -> None:
        if self.net_out_buffer is not None and not self.flush_net_out_buffer_and_update_interest_ops():
            return
        state = self.sasl_state
        if state is SaslState.SEND_HANDSHAKE_REQUEST:
            self.send_request(ApiKeys.SASL_HANDSHAKE, HANDSHAKE_VERSION, SaslHandshakeRequest(mechanism=self.mechanism))
            self.set_sasl_state(SaslState.RECEIVE_HANDSHAKE_RESPONSE)
        elif state is SaslState.RECEIVE_HANDSHAKE_RESPONSE:
            response = self.receive_kafka_response()
            if response is None:
                return
            self.handle_sasl_handshake_response(response)
            self.sasl_client = self.sasl_client_factory()
            self.set_sasl_state(SaslState.INITIAL)
            self.send_sasl_client_token(b"", True)   # the mechanism's initial response
            self.set_sasl_state(SaslState.INTERMEDIATE)
        elif state is SaslState.INTERMEDIATE:
            token = self.receive_token()
            if token is None:
                return
            if not self.sasl_client.is_complete():
                self.send_sasl_client_token(token, False)
            if self.sasl_client.is_complete():
                self.set_sasl_state(SaslState.COMPLETE)

    def set_sasl_state(self, state: SaslState) -> None:
        log.debug("Set SASL client state to %s", state.name)
        self.sasl_state = state

    def _next_correlation_id(self) -> int:
        self.correlation_id += 1
        return self.correlation_id

    def send_request(self, api: ApiKeys, version: int, body) -> None:
        header = RequestHeader(api_key=api.id, api_version=version, correlation_id=self._next_correlation_id(),
                               client_id=self.client_id)
        self.pending_api_key = api
        self.net_out_buffer = NetworkSend(self.node, [serialize_request(header, body)])
        self.flush_net_out_buffer_and_update_interest_ops()

    # Kafka: SaslClientAuthenticator.sendSaslClientToken
    def send_sasl_client_token(self, server_token: bytes, is_initial: bool) -> None:
        if self.sasl_client.is_complete():
            return
        try:
            token = self.sasl_client.evaluate_challenge(server_token)
        except SaslException as e:
            self.sasl_state = SaslState.FAILED
            raise SaslAuthenticationFailure(f"An error: ({e}) occurred when evaluating SASL token received from "
                                            f"the Kafka Broker. Kafka Client will go to AUTHENTICATION_FAILED state.",
                                            Errors.SASL_AUTHENTICATION_FAILED) from e
        if token is not None:
            self.send_request(ApiKeys.SASL_AUTHENTICATE, AUTHENTICATE_VERSION, SaslAuthenticateRequest(auth_bytes=token))

    # Kafka: SaslClientAuthenticator.receiveKafkaResponse
    def receive_kafka_response(self):
        if self.net_in_buffer is None:
            self.net_in_buffer = NetworkReceive(MAX_RECEIVE_SIZE, self.node)
        self.net_in_buffer.read_from(self.transport_layer)
        if not self.net_in_buffer.complete():
            return None
        payload = bytes(self.net_in_buffer.payload())
        self.net_in_buffer = None
        _correlation_id, body = parse_response(self.pending_api_key, HANDSHAKE_VERSION
                                               if self.pending_api_key is ApiKeys.SASL_HANDSHAKE
                                               else AUTHENTICATE_VERSION, payload)
        return body

    # Kafka: SaslClientAuthenticator.receiveToken
    def receive_token(self) -> bytes | None:
        response = self.receive_kafka_response()
        if response is None:
            return None
        if response.error_code != 0:
            self.sasl_state = SaslState.FAILED
            error = Errors.for_code(response.error_code)
            message = response.error_message or error.name
            raise SaslAuthenticationFailure(message, error)
        self.session_lifetime_ms = response.session_lifetime_ms
        return bytes(response.auth_bytes)

    # Kafka: SaslClientAuthenticator.handleSaslHandshakeResponse
    def handle_sasl_handshake_response(self, response) -> None:
        if response.error_code == 0:
            return
        self.sasl_state = SaslState.FAILED
        error = Errors.for_code(response.error_code)
        if error is Errors.UNSUPPORTED_SASL_MECHANISM:
            raise SaslAuthenticationFailure(f"Client SASL mechanism '{self.mechanism}' not enabled in the server, "
                                            f"enabled mechanisms are {response.mechanisms}", error)
        if error is Errors.ILLEGAL_SASL_STATE:
            raise SaslAuthenticationFailure(f"Unexpected handshake request with client mechanism {self.mechanism}, "
                                            f"enabled mechanisms are {response.mechanisms}", error)
        raise SaslAuthenticationFailure(f"Unknown error code {response.error_code}, client mechanism is "
                                        f"{self.mechanism}, enabled mechanisms are {response.mechanisms}", error)

    # Kafka: SaslClientAuthenticator.flushNetOutBufferAndUpdateInterestOps
    def flush_net_out_buffer_and_update_interest_ops(self) -> bool:
        if not self.net_out_buffer.completed():
            self.net_out_buffer.write_to(self.transport_layer)
        done = self.net_out_buffer.completed()
        if done:
            self.transport_layer.remove_interest_ops(OP_WRITE)
            self.net_out_buffer = None
        else:
            self.transport_layer.add_interest_ops(OP_WRITE)
        return done

    # Kafka: SaslClientAuthenticator.principal
    def principal(self) -> KafkaPrincipal:
        return KafkaPrincipal(KafkaPrincipal.USER_TYPE, getattr(self.sasl_client, "username", "ANONYMOUS"))

    # Kafka: SaslClientAuthenticator.complete
    def complete(self) -> bool:
        return self.sasl_state is SaslState.COMPLETE

    def handle_authentication_failure(self) -> None:
        pass

    # Kafka: SaslClientAuthenticator.close
    def close(self) -> None:
        if self.sasl_client is not None:
            self.sasl_client.dispose()

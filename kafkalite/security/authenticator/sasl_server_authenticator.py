"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/authenticator/SaslServerAuthenticator.java

Classes: SaslServerAuthenticator, SaslState.

The broker's side of SASL on one connection, run by the network thread inside ``KafkaChannel.prepare()``
before any request reaches KafkaApis. It reads its own size-delimited frames (at most 512 KiB each, from the
heap, not the request memory pool) and writes its own responses:

    INITIAL_REQUEST / HANDSHAKE_OR_VERSIONS_REQUEST --ApiVersions--> HANDSHAKE_REQUEST
                     --SaslHandshake(mechanism)--> AUTHENTICATE --token...--> COMPLETE
    any refusal --> FAILED

SaslHandshake v0 means the SASL tokens then travel as raw frames (the pre-KIP-152 way, still used by
kafka-python's v0 path); v1 means each token is a SaslAuthenticate request and gets a SaslAuthenticate
response with an error code and message. Anything else before authentication completes is refused as
ILLEGAL_SASL_STATE. Failures with a message for the client (PLAIN's "Invalid username or password", an
unknown mechanism, an illegal request) are answered after ``connection.failed.authentication.delay.ms``
and the connection closed; a SCRAM SaslException is answered at once with a generic message ("...due to
invalid credentials with SASL mechanism SCRAM-SHA-256", so a client cannot tell unknown users from wrong
passwords), then closed after the same delay.

KIP-368 (``connections.max.reauth.ms``): a v1+ SaslAuthenticate response carries the session lifetime; the
Processor closes a connection whose session expired (``server_session_expiration_time_nanos``) when its
next request arrives. A client that re-authenticates sends a new SaslHandshake on the live connection: the
Processor hands it to ``KafkaChannel.maybe_begin_server_reauthentication``, a fresh authenticator takes over
(REAUTH_PROCESS_HANDSHAKE), the mechanism and the principal must stay the same, and the session gets a new
lifetime.
Left out: GSSAPI (the first packet of a 0.9 GSSAPI client is refused as an unsupported mechanism), OAUTHBEARER,
delegation tokens, authentication metrics.
"""
from __future__ import annotations

import enum
import logging

from kafkalite.network.network_receive import NetworkReceive
from kafkalite.network.network_send import NetworkSend
from kafkalite.network.transport_layer import OP_WRITE
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import (Errors, IllegalSaslStateException, InvalidRequestException,
                                       SaslAuthenticationException, UnsupportedSaslMechanismException)
from kafkalite.protocol.messages.api_versions import ApiVersionsResponse
from kafkalite.protocol.messages.sasl_authenticate import SaslAuthenticateResponse
from kafkalite.protocol.messages.sasl_handshake import SaslHandshakeResponse
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import (api_versions_fallback_response, is_unsupported_api_versions_request,
                                         parse_request_body, serialize_response)
from kafkalite.security.auth.authentication_context import SaslAuthenticationContext
from kafkalite.security.auth.principal_builder import DefaultKafkaPrincipalBuilder
from kafkalite.security.authenticator.sasl_exception import (AUTHENTICATION_EXCEPTIONS, SaslAuthenticationFailure,
                                                             SaslException)

log = logging.getLogger("org.apache.kafka.common.security.authenticator.SaslServerAuthenticator")

# Kafka: SaslServerAuthenticator.MAX_RECEIVE_SIZE -- no SASL frame may be larger (512 KiB)
MAX_RECEIVE_SIZE = 524288


class SaslState(enum.Enum):
    """Kafka: SaslServerAuthenticator.SaslState."""

    INITIAL_REQUEST = 0
    HANDSHAKE_OR_VERSIONS_REQUEST = 1
    HANDSHAKE_REQUEST = 2
    AUTHENTICATE = 3
    COMPLETE = 4
    FAILED = 5
    REAUTH_PROCESS_HANDSHAKE = 6
    REAUTH_BAD_MECHANISM = 7


class SaslServerAuthenticator:
    """Kafka: SaslServerAuthenticator(configs, callbackHandlers, connectionId, subjects, kerberosNameParser,
    listenerName, securityProtocol, transportLayer, connectionsMaxReauthMsByMechanism, time)."""

    def __init__(self, enabled_mechanisms: list[str], sasl_server_factories: dict, connection_id: str,
                 listener_name: str, security_protocol: str, transport_layer,
                 connections_max_reauth_ms_by_mechanism: dict[str, int], time, api_versions_response=None,
                 principal_builder=None):
        if not enabled_mechanisms:
            raise ValueError("No SASL mechanisms are enabled")
        for mechanism in enabled_mechanisms:
            if mechanism not in sasl_server_factories:
                raise ValueError(f"Callback handler not specified for SASL mechanism {mechanism}")
        self.enabled_mechanisms = list(dict.fromkeys(enabled_mechanisms))
        self.sasl_server_factories = sasl_server_factories
        self.connection_id = connection_id
        self.listener_name = listener_name
        self.security_protocol = security_protocol
        self.transport_layer = transport_layer
        self.connections_max_reauth_ms_by_mechanism = connections_max_reauth_ms_by_mechanism
        self.time = time
        self._api_versions_response = api_versions_response
        self.principal_builder = principal_builder or DefaultKafkaPrincipalBuilder()
        self.sasl_state = SaslState.INITIAL_REQUEST
        self.pending_sasl_state: SaslState | None = None
        self.pending_exception: Exception | None = None
        self.sasl_server = None
        self.sasl_mechanism: str | None = None
        self.enable_kafka_sasl_authenticate_headers = False
        self.net_in_buffer: NetworkReceive | None = None
        self.net_out_buffer: NetworkSend | None = None
        self.authentication_failure_send: NetworkSend | None = None
        self.session_expiration_time_nanos: int | None = None
        self.connected_client_supports_reauthentication = False
        self._principal = None
        # Kafka: SaslServerAuthenticator.ReauthInfo
        self.previous_sasl_mechanism: str | None = None
        self.previous_principal = None
        self.bad_mechanism_error_message: str | None = None
        self._reauth_token: bytes | None = None

    # Kafka: SaslServerAuthenticator.createSaslServer
    def create_sasl_server(self, mechanism: str) -> None:
        self.sasl_mechanism = mechanism
        self.sasl_server = self.sasl_server_factories[mechanism]()

    # Kafka: SaslServerAuthenticator.authenticate -- one step: flush, read one frame, act on it.
    def authenticate(self) -> None:
        if self.sasl_state is SaslState.REAUTH_PROCESS_HANDSHAKE:
            client_token, self._reauth_token = self._reauth_token, None   # the handshake the Processor handed over
        else:
            if self.net_out_buffer is not None and not self.flush_net_out_buffer_and_update_interest_ops():
                return
            if self.sasl_server is not None and self.sasl_server.is_complete():
                self.set_sasl_state(SaslState.COMPLETE)
                return
            if self.sasl_state is SaslState.FAILED:
                return   # waiting for the delayed close
            if self.net_in_buffer is None:
                self.net_in_buffer = NetworkReceive(MAX_RECEIVE_SIZE, self.connection_id)
            self.net_in_buffer.read_from(self.transport_layer)
            if not self.net_in_buffer.complete():
                return
            client_token = bytes(self.net_in_buffer.payload())
            self.net_in_buffer = None
        try:
            state = self.sasl_state
            if state is SaslState.REAUTH_BAD_MECHANISM:
                raise SaslAuthenticationException(self.bad_mechanism_error_message)
            if state in (SaslState.HANDSHAKE_OR_VERSIONS_REQUEST, SaslState.HANDSHAKE_REQUEST,
                         SaslState.REAUTH_PROCESS_HANDSHAKE):
                self.handle_kafka_request(client_token)
            elif state is SaslState.INITIAL_REQUEST:
                self.handle_kafka_request(client_token)
            elif state is SaslState.AUTHENTICATE:
                self.handle_sasl_token(client_token)
                if self.sasl_server.is_complete():
                    self.set_sasl_state(SaslState.COMPLETE)
        except AUTHENTICATION_EXCEPTIONS as e:
            # answered after the delay (or already answered); the channel closes then
            self.set_sasl_state(SaslState.FAILED, SaslAuthenticationFailure(str(e), e.error))
        except Exception as e:
            # anything else -- a malformed frame, an I/O error -- closes the connection at once
            self.sasl_state = SaslState.FAILED
            log.debug("Failed during authentication: %s", e)
            raise

    # Kafka: SaslServerAuthenticator.principal
    def principal(self):
        if self._principal is None:
            context = SaslAuthenticationContext(self.sasl_server, self.security_protocol, self._client_address(),
                                                self.listener_name)
            self._principal = self.principal_builder.build(context)
        return self._principal

    # Kafka: SaslServerAuthenticator.complete
    def complete(self) -> bool:
        return self.sasl_state is SaslState.COMPLETE

    # Kafka: SaslServerAuthenticator.handleAuthenticationFailure
    def handle_authentication_failure(self) -> None:
        self.send_authentication_failure_response()

    # Kafka: SaslServerAuthenticator.close
    def close(self) -> None:
        if self.sasl_server is not None:
            self.sasl_server.dispose()
        self.net_in_buffer = None
        self.net_out_buffer = None

    # Kafka: SaslServerAuthenticator.reauthenticate -- take over from ``previous`` with the SaslHandshake that
    # the Processor found on the authenticated connection (KIP-368)
    def reauthenticate(self, previous: "SaslServerAuthenticator", sasl_handshake_bytes: bytes, now_nanos: int) -> None:
        self.previous_sasl_mechanism = previous.sasl_mechanism
        self.previous_principal = previous.principal()
        previous.close()
        log.debug("Beginning re-authentication: %s", self.connection_id)
        self._reauth_token = bytes(sasl_handshake_bytes)
        self.set_sasl_state(SaslState.REAUTH_PROCESS_HANDSHAKE)
        self.authenticate()

    def reauthenticating(self) -> bool:
        return self.previous_sasl_mechanism is not None

    # Kafka: SaslServerAuthenticator.ReauthInfo.ensurePrincipalUnchanged
    def ensure_principal_unchanged(self) -> None:
        principal = self.principal()
        if principal != self.previous_principal:
            raise SaslAuthenticationException(
                f"Cannot change principals during re-authentication from {self.previous_principal.principal_type}."
                f"{self.previous_principal.name}: {principal.principal_type}.{principal.name}")

    # Kafka: SaslServerAuthenticator.serverSessionExpirationTimeNanos
    def server_session_expiration_time_nanos(self) -> int | None:
        return self.session_expiration_time_nanos

    # Kafka: SaslServerAuthenticator.connectedClientSupportsReauthentication
    def connected_client_supports_reauthentication(self) -> bool:
        return self.connected_client_supports_reauthentication

    # Kafka: SaslServerAuthenticator.setSaslState -- a state reached while a response is still being
    # written takes effect when it is out; an exception with it is raised then.
    def set_sasl_state(self, state: SaslState, exception: Exception | None = None) -> None:
        if self.net_out_buffer is not None and not self.net_out_buffer.completed():
            self.pending_sasl_state, self.pending_exception = state, exception
            return
        self.sasl_state = state
        log.debug("Set SASL server state to %s during authentication", state.name)
        self.pending_sasl_state = self.pending_exception = None
        if exception is not None:
            raise exception

    # Kafka: SaslServerAuthenticator.flushNetOutBufferAndUpdateInterestOps
    def flush_net_out_buffer_and_update_interest_ops(self) -> bool:
        if not self.net_out_buffer.completed():
            self.net_out_buffer.write_to(self.transport_layer)
        done = self.net_out_buffer.completed()
        if done:
            self.transport_layer.remove_interest_ops(OP_WRITE)
            if self.pending_sasl_state is not None:
                self.set_sasl_state(self.pending_sasl_state, self.pending_exception)
        else:
            self.transport_layer.add_interest_ops(OP_WRITE)
        return done

    def _client_address(self) -> str:
        try:
            return self.transport_layer.socket_channel.getpeername()[0]
        except (OSError, AttributeError):
            return ""

    # Kafka: SaslServerAuthenticator.handleSaslToken
    def handle_sasl_token(self, client_token: bytes) -> None:
        if not self.enable_kafka_sasl_authenticate_headers:
            # SaslHandshake v0: the token is the whole frame, the answer a raw frame too
            response = self._evaluate(client_token, None)
            if response is not None:   # PLAIN's empty answer is an empty frame, which v0 clients wait for
                self.send_kafka_response(NetworkSend(self.connection_id, [response]))
            return
        header, body_offset = RequestHeader.parse(client_token)
        api = ApiKeys.for_id(header.api_key)
        if api is not ApiKeys.SASL_AUTHENTICATE:
            e = IllegalSaslStateException(f"Unexpected Kafka request of type {api.name} during SASL authentication.")
            self.build_response_on_authenticate_failure(header, SaslAuthenticateResponse(
                error_code=Errors.ILLEGAL_SASL_STATE.code, error_message=str(e)), api)
            raise e
        request = parse_request_body(header, client_token, body_offset)   # unsupported versions close at once
        if not self.connected_client_supports_reauthentication:
            self.connected_client_supports_reauthentication = header.api_version > 0
        try:
            response_token = self._evaluate(bytes(request.auth_bytes), header)
            if self.reauthenticating() and self.sasl_server.is_complete():
                self.ensure_principal_unchanged()
        except SaslAuthenticationException as e:
            self.build_response_on_authenticate_failure(header, SaslAuthenticateResponse(
                error_code=Errors.SASL_AUTHENTICATION_FAILED.code, error_message=str(e)))
            raise
        except SaslException as e:
            # never tell the client why: it could learn which users exist
            message = ("Authentication failed during authentication due to invalid credentials with SASL "
                       f"mechanism {self.sasl_mechanism}")
            log.debug("%s: %s", message, e)
            self.send_kafka_response(self._response_send(header, SaslAuthenticateResponse(
                error_code=Errors.SASL_AUTHENTICATION_FAILED.code, error_message=message)))
            raise SaslAuthenticationException(message) from e
        lifetime_ms = self.calc_completion_times_and_return_session_lifetime_ms() \
            if self.sasl_server.is_complete() else 0
        self.send_kafka_response(self._response_send(header, SaslAuthenticateResponse(
            error_code=0, auth_bytes=response_token or b"", session_lifetime_ms=lifetime_ms)))

    def _evaluate(self, token: bytes, header) -> bytes | None:
        try:
            return self.sasl_server.evaluate_response(token)
        except (SaslException, *AUTHENTICATION_EXCEPTIONS):
            raise
        except Exception as e:   # noqa: BLE001 -- a mechanism's parsing bug is a failed exchange, not a crash
            raise SaslException(f"{type(e).__name__}: {e}") from e

    # Kafka: SaslServerAuthenticator.handleKafkaRequest
    def handle_kafka_request(self, request_bytes: bytes) -> None:
        try:
            header, body_offset = RequestHeader.parse(request_bytes)
            api = ApiKeys.for_id(header.api_key)
        except InvalidRequestException as e:
            if self.sasl_state is SaslState.INITIAL_REQUEST:
                # a 0.9 client's first GSSAPI token: kafkalite has no GSSAPI
                raise UnsupportedSaslMechanismException(
                    "Exception handling first SASL packet from client, GSSAPI is not supported by server") from e
            raise
        if self.sasl_state is SaslState.INITIAL_REQUEST:
            self.set_sasl_state(SaslState.HANDSHAKE_OR_VERSIONS_REQUEST)
        if api is not ApiKeys.API_VERSIONS and api is not ApiKeys.SASL_HANDSHAKE:
            e = IllegalSaslStateException(f"Unexpected Kafka request of type {api.name} during SASL handshake.")
            raise e
        log.debug("Handling Kafka request %s during authentication", api.name)
        if api is ApiKeys.API_VERSIONS:
            self.handle_api_versions_request(header, request_bytes, body_offset)
            return
        request = parse_request_body(header, request_bytes, body_offset)
        mechanism = self.handle_handshake_request(header, request)
        if self.reauthenticating() and mechanism != self.previous_sasl_mechanism:
            # Kafka: ReauthInfo.saslMechanismUnchanged -- refused at the next token
            self.bad_mechanism_error_message = (f"SASL mechanism '{mechanism}' requested by client is not supported "
                                                f"for re-authentication of mechanism '{self.previous_sasl_mechanism}'")
            self.set_sasl_state(SaslState.REAUTH_BAD_MECHANISM)
            return
        self.create_sasl_server(mechanism)
        self.set_sasl_state(SaslState.AUTHENTICATE)

    # Kafka: SaslServerAuthenticator.handleHandshakeRequest
    def handle_handshake_request(self, header, request) -> str:
        mechanism = request.mechanism
        if header.api_version >= 1:
            self.enable_kafka_sasl_authenticate_headers = True
        if mechanism in self.enabled_mechanisms:
            log.debug("Using SASL mechanism '%s' provided by client", mechanism)
            self.send_kafka_response(self._response_send(header, SaslHandshakeResponse(
                error_code=0, mechanisms=self.enabled_mechanisms)))
            return mechanism
        log.debug("SASL mechanism '%s' requested by client is not supported", mechanism)
        self.build_response_on_authenticate_failure(header, SaslHandshakeResponse(
            error_code=Errors.UNSUPPORTED_SASL_MECHANISM.code, mechanisms=self.enabled_mechanisms))
        raise UnsupportedSaslMechanismException(f"Unsupported SASL mechanism {mechanism}")

    # Kafka: SaslServerAuthenticator.handleApiVersionsRequest
    def handle_api_versions_request(self, header, request_bytes: bytes, body_offset: int) -> None:
        if self.sasl_state is not SaslState.HANDSHAKE_OR_VERSIONS_REQUEST:
            raise IllegalSaslStateException(
                f"Unexpected ApiVersions request received during SASL authentication state {self.sasl_state.name}")
        if is_unsupported_api_versions_request(header):
            self.send_kafka_response(self._response_send(header, api_versions_fallback_response()))
            return   # KIP-511: the client retries at an older version, still before the handshake
        parse_request_body(header, request_bytes, body_offset)
        self.send_kafka_response(self._response_send(header, self.api_versions_response()))
        self.set_sasl_state(SaslState.HANDSHAKE_REQUEST)

    # Kafka: SaslServerAuthenticator.apiVersionsResponse
    def api_versions_response(self) -> ApiVersionsResponse:
        if self._api_versions_response is not None:
            return self._api_versions_response()
        from kafkalite.protocol.messages.api_versions import ApiVersion
        keys = [ApiVersion(api_key=k.id, min_version=k.min_version, max_version=k.max_version)
                for k in ApiKeys if k.has_messages]
        return ApiVersionsResponse(error_code=0, api_keys=keys)

    def _response_send(self, header, body) -> NetworkSend:
        return NetworkSend(self.connection_id, serialize_response(header, body))

    # Kafka: SaslServerAuthenticator.buildResponseOnAuthenticateFailure -- sent when the delayed close runs
    def build_response_on_authenticate_failure(self, header, body, api=None) -> None:
        if api is not None and api is not ApiKeys.SASL_AUTHENTICATE:
            return   # Kafka answers with that request's own error response; kafkalite just closes
        self.authentication_failure_send = self._response_send(header, body)

    # Kafka: SaslServerAuthenticator.sendAuthenticationFailureResponse
    def send_authentication_failure_response(self) -> None:
        if self.authentication_failure_send is None:
            return
        self.send_kafka_response(self.authentication_failure_send)
        self.authentication_failure_send = None

    # Kafka: SaslServerAuthenticator.sendKafkaResponse
    def send_kafka_response(self, send: NetworkSend) -> None:
        self.net_out_buffer = send
        self.flush_net_out_buffer_and_update_interest_ops()

    # Kafka: SaslServerAuthenticator.ReauthInfo.calcCompletionTimesAndReturnSessionLifetimeMs
    def calc_completion_times_and_return_session_lifetime_ms(self) -> int:
        max_reauth_ms = self.connections_max_reauth_ms_by_mechanism.get(self.sasl_mechanism)
        if max_reauth_ms and max_reauth_ms > 0:
            self.session_expiration_time_nanos = self.time.nanoseconds() + max_reauth_ms * 1_000_000
            return max_reauth_ms
        return 0

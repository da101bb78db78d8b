"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/scram/internals/ScramSaslServer.java
and ScramServerCallbackHandler.java (same directory)

Classes: ScramSaslServer (with its State), ScramServerCallbackHandler.

The server side of RFC 5802, as a state machine of two client messages:
RECEIVE_CLIENT_FIRST_MESSAGE -> (answer server-first: our nonce appended to the client's, the user's salt
and iterations) -> RECEIVE_CLIENT_FINAL_MESSAGE -> (check the nonce and the proof; answer server-final with
the server signature) -> COMPLETE. Any failure goes to FAILED.
Unknown users and wrong proofs raise SaslException, which the authenticator answers with a generic message
(a client must not learn whether a user exists); a different authorization id raises
SaslAuthenticationException, whose message the client sees.
Era notes: Kafka 2.4 never compared the client-final nonce with the server-first one (CVE-2024-56128);
kafkalite requires it to end with the server-first nonce, as Kafka 3.8.1-3.9 do (4.0 requires equality, which
librdkafka before 2.6.1 -- Debian's kcat -- fails, because it sends the client nonce twice).
Left out: delegation-token authentication (the ``tokenauth`` extension is refused).
"""
from __future__ import annotations

import enum
import hmac

from kafkalite.protocol.errors import IllegalSaslStateException, SaslAuthenticationException
from kafkalite.security.authenticator.sasl_exception import SaslException
from kafkalite.security.authenticator.scram_formatter import ScramFormatter
from kafkalite.security.authenticator.scram_mechanism import ScramMechanism
from kafkalite.security.authenticator.scram_messages import (ClientFinalMessage, ClientFirstMessage,
                                                             ServerFinalMessage, ServerFirstMessage)


class ScramServerCallbackHandler:
    """Kafka: ScramServerCallbackHandler -- looks the user up in the credential cache."""

    def __init__(self, credential_cache, mechanism: str):
        self.credential_cache = credential_cache
        self.mechanism = mechanism

    # Kafka: ScramServerCallbackHandler.handle (ScramCredentialCallback)
    def credential(self, username: str):
        cache = self.credential_cache.cache(self.mechanism) if self.credential_cache is not None else None
        return cache.get(username) if cache is not None else None


class State(enum.Enum):
    """Kafka: ScramSaslServer.State."""

    RECEIVE_CLIENT_FIRST_MESSAGE = 0
    RECEIVE_CLIENT_FINAL_MESSAGE = 1
    COMPLETE = 2
    FAILED = 3


class ScramSaslServer:
    """Kafka: ScramSaslServer(mechanism, props, callbackHandler)."""

    def __init__(self, mechanism: ScramMechanism, callback_handler: ScramServerCallbackHandler):
        self.mechanism = mechanism
        self.mechanism_name = mechanism.mechanism_name
        self.formatter = ScramFormatter(mechanism)
        self.callback_handler = callback_handler
        self.state = State.RECEIVE_CLIENT_FIRST_MESSAGE
        self.username: str | None = None
        self.client_first_message: ClientFirstMessage | None = None
        self.server_first_message: ServerFirstMessage | None = None
        self.scram_credential = None

    # Kafka: ScramSaslServer.evaluateResponse
    def evaluate_response(self, response: bytes) -> bytes:
        try:
            if self.state is State.RECEIVE_CLIENT_FIRST_MESSAGE:
                return self._receive_client_first(response)
            if self.state is State.RECEIVE_CLIENT_FINAL_MESSAGE:
                return self._receive_client_final(response)
            raise IllegalSaslStateException(f"Unexpected challenge in Sasl server state {self.state.name}")
        except Exception:
            self.state = State.FAILED
            raise

    def _receive_client_first(self, response: bytes) -> bytes:
        self.client_first_message = first = ClientFirstMessage.parse(response)
        unknown = set(first.extensions)
        if unknown:
            # Kafka accepts only "tokenauth" (delegation tokens), which kafkalite does not support
            raise SaslException(f"Unsupported SCRAM extensions {sorted(unknown)}")
        self.username = self.formatter.username(first.sasl_name)
        credential = self.callback_handler.credential(self.username)
        if credential is None:
            raise SaslException("Authentication failed: Invalid user credentials")
        authorization_id = self.formatter.username(first.authorization_id) if first.authorization_id else ""
        if authorization_id and authorization_id != self.username:
            raise SaslAuthenticationException(
                "Authentication failed: Client requested an authorization id that is different from username")
        if credential.iterations < self.mechanism.min_iterations:
            raise SaslException(f"Iterations {credential.iterations} is less than the minimum "
                                f"{self.mechanism.min_iterations} for {self.mechanism_name}")
        self.scram_credential = credential
        self.server_first_message = ServerFirstMessage(first.nonce, self.formatter.secure_random_string(),
                                                       credential.salt, credential.iterations)
        self.state = State.RECEIVE_CLIENT_FINAL_MESSAGE
        return self.server_first_message.to_bytes()

    def _receive_client_final(self, response: bytes) -> bytes:
        final = ClientFinalMessage.parse(response)
        # Kafka 3.8.1-3.9 (CVE-2024-56128): the nonce must end with ours; 2.4 did not look at it, and librdkafka
        # before 2.6.1 sends the client nonce twice (kcat 2.0 does), which a strict equality would refuse
        if not final.nonce.endswith(self.server_first_message.nonce):
            raise SaslException("Invalid client nonce in the final client message.")
        if final.channel_binding != self.client_first_message.gs2_header().encode("utf-8"):
            raise SaslException("Invalid channel binding in the final client message.")
        self.verify_client_proof(final)
        signature = self.formatter.server_signature(self.scram_credential.server_key, self.client_first_message,
                                                    self.server_first_message, final)
        self.state = State.COMPLETE
        return ServerFinalMessage(None, signature).to_bytes()

    # Kafka: ScramSaslServer.verifyClientProof
    def verify_client_proof(self, final: ClientFinalMessage) -> None:
        stored_key = self.scram_credential.stored_key
        signature = self.formatter.client_signature(stored_key, self.client_first_message,
                                                    self.server_first_message, final)
        if len(final.proof) != len(signature):
            raise SaslException("Invalid client credentials")
        computed = self.formatter.stored_key(self.formatter.xor(signature, final.proof))
        if not hmac.compare_digest(computed, stored_key):
            raise SaslException("Invalid client credentials")

    # Kafka: ScramSaslServer.getAuthorizationID
    def get_authorization_id(self) -> str:
        if not self.is_complete():
            raise IllegalStateError("Authentication exchange has not completed")
        return self.username

    # Kafka: ScramSaslServer.getMechanismName
    def get_mechanism_name(self) -> str:
        return self.mechanism_name

    # Kafka: ScramSaslServer.isComplete
    def is_complete(self) -> bool:
        return self.state is State.COMPLETE

    # Kafka: ScramSaslServer.dispose
    def dispose(self) -> None:
        self.scram_credential = None


class IllegalStateError(RuntimeError):
    """java.lang.IllegalStateException."""

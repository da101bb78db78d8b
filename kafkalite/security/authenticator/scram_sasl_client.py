"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/scram/internals/ScramSaslClient.java

Classes: ScramSaslClient (with its State).

The client side of RFC 5802, used by kafkalite's own clients and by the broker's inter-broker connections:
SEND_CLIENT_FIRST_MESSAGE -> RECEIVE_SERVER_FIRST_MESSAGE (the server's nonce must extend ours and the
iterations must reach the mechanism's minimum; answer with the proof) -> RECEIVE_SERVER_FINAL_MESSAGE (the
server must prove it knows the ServerKey) -> COMPLETE.
Left out: the ``tokenauth`` extension (delegation tokens).
"""
from __future__ import annotations

import enum
import hmac

from kafkalite.security.authenticator.sasl_exception import SaslException
from kafkalite.security.authenticator.scram_formatter import ScramFormatter
from kafkalite.security.authenticator.scram_mechanism import ScramMechanism
from kafkalite.security.authenticator.scram_messages import (ClientFinalMessage, ClientFirstMessage,
                                                             ServerFinalMessage, ServerFirstMessage)


class State(enum.Enum):
    """Kafka: ScramSaslClient.State."""

    SEND_CLIENT_FIRST_MESSAGE = 0
    RECEIVE_SERVER_FIRST_MESSAGE = 1
    RECEIVE_SERVER_FINAL_MESSAGE = 2
    COMPLETE = 3
    FAILED = 4


class ScramSaslClient:
    """Kafka: ScramSaslClient(mechanism, callbackHandler)."""

    def __init__(self, mechanism: ScramMechanism, username: str, password: str):
        self.mechanism = mechanism
        self.mechanism_name = mechanism.mechanism_name
        self.formatter = ScramFormatter(mechanism)
        self.username = username
        self.password = password
        self.client_nonce = self.formatter.secure_random_string()
        self.state = State.SEND_CLIENT_FIRST_MESSAGE
        self.client_first_message: ClientFirstMessage | None = None
        self.server_first_message: ServerFirstMessage | None = None
        self.salted_password: bytes | None = None
        self.client_final_message: ClientFinalMessage | None = None

    def has_initial_response(self) -> bool:
        return True

    # Kafka: ScramSaslClient.evaluateChallenge
    def evaluate_challenge(self, challenge: bytes) -> bytes | None:
        try:
            if self.state is State.SEND_CLIENT_FIRST_MESSAGE:
                if challenge:
                    raise SaslException("Expected empty challenge")
                self.client_first_message = ClientFirstMessage(self.formatter.sasl_name(self.username),
                                                               self.client_nonce)
                self.state = State.RECEIVE_SERVER_FIRST_MESSAGE
                return self.client_first_message.to_bytes()
            if self.state is State.RECEIVE_SERVER_FIRST_MESSAGE:
                self.server_first_message = first = ServerFirstMessage.parse(challenge)
                if not first.nonce.startswith(self.client_nonce):
                    raise SaslException("Invalid server nonce: does not start with client nonce")
                if first.iterations < self.mechanism.min_iterations:
                    raise SaslException(f"Requested iterations {first.iterations} is less than the minimum "
                                        f"{self.mechanism.min_iterations} for {self.mechanism_name}")
                self.salted_password = self.formatter.salted_password(self.password, first.salt, first.iterations)
                final = ClientFinalMessage(self.client_first_message.gs2_header().encode("utf-8"), first.nonce)
                final.proof = self.formatter.client_proof(self.salted_password, self.client_first_message,
                                                          first, final)
                self.client_final_message = final
                self.state = State.RECEIVE_SERVER_FINAL_MESSAGE
                return final.to_bytes()
            if self.state is State.RECEIVE_SERVER_FINAL_MESSAGE:
                server_final = ServerFinalMessage.parse(challenge)
                if server_final.error is not None:
                    raise SaslException(f"Sasl authentication using {self.mechanism_name} failed with error: "
                                        f"{server_final.error}")
                self.handle_server_final_message(server_final.server_signature)
                self.state = State.COMPLETE
                return None
            raise SaslException(f"Unexpected challenge in Sasl client state {self.state.name}")
        except Exception:
            self.state = State.FAILED
            raise

    # Kafka: ScramSaslClient.handleServerFinalMessage
    def handle_server_final_message(self, signature: bytes) -> None:
        server_key = self.formatter.server_key(self.salted_password)
        expected = self.formatter.server_signature(server_key, self.client_first_message,
                                                   self.server_first_message, self.client_final_message)
        if not hmac.compare_digest(expected, signature):
            raise SaslException("Invalid server signature in server final message")

    # Kafka: ScramSaslClient.isComplete
    def is_complete(self) -> bool:
        return self.state is State.COMPLETE

    def dispose(self) -> None:
        self.salted_password = None

"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/plain/internals/PlainSaslServer.java
and PlainServerCallbackHandler.java (same directory)

Classes: PlainSaslServer, PlainServerCallbackHandler.

SASL/PLAIN (RFC 4616): one client message ``[authzid] NUL authcid NUL passwd`` in UTF-8, checked against the
``user_<name>="<password>"`` options of the listener's PlainLoginModule entry, in constant time. No
challenge goes back; the exchange is complete after one message. The authorization id, if sent, must
equal the user name. Failures raise SaslAuthenticationException, whose message the client sees.
"""
from __future__ import annotations

import hmac

from kafkalite.protocol.errors import SaslAuthenticationException
from kafkalite.security.authenticator.jaas_context import PLAIN_LOGIN_MODULE, JaasContext
from kafkalite.security.authenticator.sasl_exception import SaslException

PLAIN_MECHANISM = "PLAIN"
JAAS_USER_PREFIX = "user_"


class PlainServerCallbackHandler:
    """Kafka: PlainServerCallbackHandler -- username/password against the JAAS options."""

    def __init__(self, jaas_context: JaasContext):
        self.jaas_context = jaas_context

    # Kafka: PlainServerCallbackHandler.authenticate
    def authenticate(self, username: str, password: bytes) -> bool:
        if username is None:
            return False
        expected = self.jaas_context.config_entry_option(JAAS_USER_PREFIX + username, PLAIN_LOGIN_MODULE)
        return expected is not None and hmac.compare_digest(expected.encode("utf-8"), password)


class PlainSaslServer:
    """Kafka: PlainSaslServer."""

    mechanism_name = PLAIN_MECHANISM

    def __init__(self, callback_handler: PlainServerCallbackHandler):
        self.callback_handler = callback_handler
        self.complete = False
        self.authorization_id: str | None = None

    # Kafka: PlainSaslServer.evaluateResponse
    def evaluate_response(self, response: bytes) -> bytes:
        tokens = bytes(response).split(b"\x00")
        if len(tokens) != 3:
            raise SaslAuthenticationException(f"Invalid SASL/PLAIN response: expected 3 tokens, got {len(tokens)}")
        try:
            authorization_id, username, password = tokens[0].decode("utf-8"), tokens[1].decode("utf-8"), tokens[2]
        except UnicodeDecodeError:
            raise SaslAuthenticationException("Invalid SASL/PLAIN response: not UTF-8") from None
        if not username:
            raise SaslAuthenticationException("Authentication failed: username not specified")
        if not password:
            raise SaslAuthenticationException("Authentication failed: password not specified")
        if not self.callback_handler.authenticate(username, password):
            raise SaslAuthenticationException("Authentication failed: Invalid username or password")
        if authorization_id and authorization_id != username:
            raise SaslAuthenticationException(
                "Authentication failed: Client requested an authorization id that is different from username")
        self.authorization_id = username
        self.complete = True
        return b""

    # Kafka: PlainSaslServer.getAuthorizationID
    def get_authorization_id(self) -> str:
        if not self.complete:
            raise SaslException("Authentication exchange has not completed")
        return self.authorization_id

    # Kafka: PlainSaslServer.getMechanismName
    def get_mechanism_name(self) -> str:
        return self.mechanism_name

    # Kafka: PlainSaslServer.isComplete
    def is_complete(self) -> bool:
        return self.complete

    # Kafka: PlainSaslServer.dispose
    def dispose(self) -> None:
        pass

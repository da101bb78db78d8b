"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/oauthbearer/internals/OAuthBearerSaslServer.java,
OAuthBearerClientInitialResponse.java, and unsecured/OAuthBearerUnsecuredValidatorCallbackHandler.java,
OAuthBearerUnsecuredJws.java, OAuthBearerValidationUtils.java (same package tree)

Classes: OAuthBearerSaslServer, OAuthBearerUnsecuredValidatorCallbackHandler; function parse_client_initial_response.

SASL/OAUTHBEARER (RFC 7628) with Kafka's default, *unsecured* token validator -- for development and tests,
as in Kafka: the client sends ``n,[a=<authzid>],\\x01auth=Bearer <token>\\x01[key=value\\x01...]\\x01`` where the token
is an unsigned JWS (``base64url(header).base64url(claims).`` with ``"alg":"none"``). The validator wants the
principal claim (``sub``, or the JAAS option ``unsecuredValidatorPrincipalClaimName``), an ``exp`` in the future,
an ``iat`` not in the future, and the scopes of ``unsecuredValidatorRequiredScope``, each within
``unsecuredValidatorAllowableClockSkewMs``. A bad token is answered, as RFC 7628 says, with a JSON error as the
server's challenge (``{"status":"invalid_token"}``); the client's ``\\x01`` reply then fails the exchange with that
message.
Left out: token-derived session lifetimes (KIP-368 with the token's ``exp``), extension validation callbacks,
secured (signed) tokens -- Kafka 2.4 has no validator for them either.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
import time as _time

from kafkalite.protocol.errors import SaslAuthenticationException
from kafkalite.security.authenticator.jaas_context import JaasContext
from kafkalite.security.authenticator.sasl_exception import SaslException

OAUTHBEARER_MECHANISM = "OAUTHBEARER"
SEPARATOR = "\x01"
_AUTH = re.compile(r"^([\w]+)[ ]+([-_.a-zA-Z0-9]+)$")
_KEY = re.compile(r"^[A-Za-z]+$")


# Kafka: OAuthBearerClientInitialResponse(byte[])
def parse_client_initial_response(response: bytes) -> tuple[str, str, dict[str, str]]:
    """(token, authorization id, extensions) of a client's first OAUTHBEARER message."""
    try:
        text = bytes(response).decode("utf-8")
    except UnicodeDecodeError:
        raise SaslException("Invalid OAUTHBEARER client first message: not UTF-8") from None
    m = re.fullmatch(r"n,(?:a=([^,\x01]+))?,\x01((?:[^\x01]*\x01)*)\x01", text)
    if m is None:
        raise SaslException("Invalid OAUTHBEARER client first message")
    pairs: dict[str, str] = {}
    for item in filter(None, m.group(2).split(SEPARATOR)):
        key, sep, value = item.partition("=")
        if not sep or not _KEY.match(key):
            raise SaslException("Invalid OAUTHBEARER client first message")
        pairs[key] = value
    auth = _AUTH.match(pairs.pop("auth", ""))
    if auth is None or auth.group(1).lower() != "bearer":
        raise SaslException("Invalid OAUTHBEARER client first message: no valid auth=Bearer <token>")
    return auth.group(2), m.group(1) or "", pairs


def _b64url_json(part: str) -> dict:
    try:
        value = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise ValueError("not base64url-encoded JSON") from None
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


class OAuthBearerUnsecuredValidatorCallbackHandler:
    """Kafka: OAuthBearerUnsecuredValidatorCallbackHandler -- returns (principal, None) or (None, error JSON)."""

    def __init__(self, jaas_context: JaasContext, time=None):
        option = lambda k: jaas_context.config_entry_option("unsecuredValidator" + k)   # noqa: E731
        self.principal_claim_name = (option("PrincipalClaimName") or "sub").strip()
        self.scope_claim_name = (option("ScopeClaimName") or "scope").strip()
        self.required_scope = (option("RequiredScope") or "").split()
        skew = (option("AllowableClockSkewMs") or "0").strip() or "0"
        if not skew.isdigit():
            raise ValueError(f"Allowable clock skew millis must not be negative: {skew}")
        self.allowable_clock_skew_ms = int(skew)
        self.now_ms = (lambda: time.milliseconds()) if time is not None else (lambda: int(_time.time() * 1000))

    # Kafka: OAuthBearerUnsecuredValidatorCallbackHandler.handleCallback
    def validate(self, token: str) -> tuple[str | None, str | None]:
        try:
            principal = self._validate(token)
            return principal, None
        except _ScopeError:
            return None, json.dumps({"status": "insufficient_scope", "scope": " ".join(self.required_scope)},
                                    separators=(",", ":"))
        except ValueError:
            return None, '{"status":"invalid_token"}'

    def _validate(self, token: str) -> str:
        parts = token.split(".")
        if len(parts) != 3 or parts[2]:
            raise ValueError("an unsecured JWS has three parts and no signature")
        header, claims = _b64url_json(parts[0]), _b64url_json(parts[1])
        if header.get("alg") != "none":
            raise ValueError("unsecured JWS must have alg none")
        principal = claims.get(self.principal_claim_name)
        if not isinstance(principal, str) or not principal.strip():
            raise ValueError(f"Required claim missing: {self.principal_claim_name}")
        now, skew = self.now_ms(), self.allowable_clock_skew_ms
        exp, iat = claims.get("exp"), claims.get("iat")
        if not isinstance(exp, (int, float)) or exp * 1000 <= now - skew:
            raise ValueError("the token expired or has no exp")
        if iat is not None and (not isinstance(iat, (int, float)) or iat * 1000 > now + skew or iat >= exp):
            raise ValueError("iat is in the future or not before exp")
        scope = claims.get(self.scope_claim_name, [])
        scopes = scope.split() if isinstance(scope, str) else list(scope)
        if any(s not in scopes for s in self.required_scope):
            raise _ScopeError()
        return principal


class _ScopeError(ValueError):
    pass


class OAuthBearerSaslServer:
    """Kafka: OAuthBearerSaslServer."""

    mechanism_name = OAUTHBEARER_MECHANISM

    def __init__(self, callback_handler: OAuthBearerUnsecuredValidatorCallbackHandler):
        self.callback_handler = callback_handler
        self.complete = False
        self.error_message: str | None = None
        self.principal_name: str | None = None

    # Kafka: OAuthBearerSaslServer.evaluateResponse
    def evaluate_response(self, response: bytes) -> bytes:
        if bytes(response) == SEPARATOR.encode() and self.error_message is not None:
            raise SaslAuthenticationException(self.error_message)
        if self.complete:
            raise SaslException("OAUTHBEARER exchange already complete")
        self.error_message = None
        token, authorization_id, _extensions = parse_client_initial_response(response)
        principal, error = self.callback_handler.validate(token)
        if principal is None:
            self.error_message = error
            return error.encode("utf-8")   # RFC 7628: the error is the server's challenge
        if authorization_id and authorization_id != principal:
            raise SaslAuthenticationException(
                f"Authentication failed: Client requested an authorization id ({authorization_id}) that is "
                f"different from the token's principal name ({principal})")
        self.principal_name = principal
        self.complete = True
        return b""

    # Kafka: OAuthBearerSaslServer.getAuthorizationID
    def get_authorization_id(self) -> str:
        if not self.complete:
            raise SaslException("Authentication exchange has not completed")
        return self.principal_name

    # Kafka: OAuthBearerSaslServer.getMechanismName
    def get_mechanism_name(self) -> str:
        return self.mechanism_name

    # Kafka: OAuthBearerSaslServer.isComplete
    def is_complete(self) -> bool:
        return self.complete

    # Kafka: OAuthBearerSaslServer.dispose
    def dispose(self) -> None:
        pass

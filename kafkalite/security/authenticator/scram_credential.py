"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/scram/ScramCredential.java and
scram/internals/ScramCredentialUtils.java

Classes: ScramCredential; functions credential_to_string, credential_from_string, create_cache.

What the broker keeps for a SCRAM user (never the password): the salt, StoredKey = H(HMAC(SaltedPassword,
"Client Key")), ServerKey = HMAC(SaltedPassword, "Server Key") and the iteration count. In ZooKeeper each
mechanism of a user is one entry of ``/config/users/<user>``:
``"SCRAM-SHA-256": "salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=4096"``.
"""
from __future__ import annotations

import base64
import binascii

import attrs

_KEYS = ("salt", "stored_key", "server_key", "iterations")


@attrs.frozen
class ScramCredential:
    """Kafka: ScramCredential(salt, storedKey, serverKey, iterations)."""

    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int


# Kafka: ScramCredentialUtils.credentialToString
def credential_to_string(credential: ScramCredential) -> str:
    b64 = lambda b: base64.b64encode(b).decode("ascii")   # noqa: E731
    return (f"salt={b64(credential.salt)},stored_key={b64(credential.stored_key)},"
            f"server_key={b64(credential.server_key)},iterations={credential.iterations}")


# Kafka: ScramCredentialUtils.credentialFromString
def credential_from_string(text: str) -> ScramCredential:
    props: dict[str, str] = {}
    for token in text.split(","):
        key, sep, value = token.partition("=")
        if not sep or not key:
            raise ValueError(f"Credentials not valid: {text}")
        props[key] = value
    if len(props) != 4 or any(k not in props for k in _KEYS):
        raise ValueError(f"Credentials not valid: {text}")
    try:
        return ScramCredential(base64.b64decode(props["salt"], validate=True),
                               base64.b64decode(props["stored_key"], validate=True),
                               base64.b64decode(props["server_key"], validate=True),
                               int(props["iterations"]))
    except (binascii.Error, ValueError) as e:
        raise ValueError(f"Credentials not valid: {text}") from e


# Kafka: ScramCredentialUtils.createCache
def create_cache(cache, mechanisms) -> None:
    """One credential cache per SCRAM mechanism enabled on some listener."""
    from kafkalite.security.authenticator.scram_mechanism import ScramMechanism
    for mechanism in mechanisms:
        if ScramMechanism.is_scram(mechanism):
            cache.create_cache(mechanism)

"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/scram/internals/ScramFormatter.java

Classes: ScramFormatter.

The arithmetic of RFC 5802 for one mechanism's hash:
    SaltedPassword  = Hi(password, salt, i)              (PBKDF2-HMAC, hashlib.pbkdf2_hmac)
    ClientKey       = HMAC(SaltedPassword, "Client Key")   StoredKey = H(ClientKey)
    ServerKey       = HMAC(SaltedPassword, "Server Key")
    AuthMessage     = client-first-bare + "," + server-first + "," + client-final-without-proof
    ClientSignature = HMAC(StoredKey, AuthMessage)         ClientProof = ClientKey XOR ClientSignature
    ServerSignature = HMAC(ServerKey, AuthMessage)
The server recovers ClientKey = ClientProof XOR ClientSignature and checks H(ClientKey) == StoredKey.
SASL names escape "," as "=2C" and "=" as "=3D".
Left out: SASLprep normalisation (Kafka's ``normalize`` is plain UTF-8 too).
"""
from __future__ import annotations

import hashlib
import hmac
import secrets

from kafkalite.security.authenticator.scram_credential import ScramCredential
from kafkalite.security.authenticator.scram_mechanism import ScramMechanism


class ScramFormatter:
    """Kafka: ScramFormatter(mechanism)."""

    def __init__(self, mechanism: ScramMechanism):
        self.mechanism = mechanism
        self._hash_name = mechanism.hashlib_name

    # Kafka: ScramFormatter.hmac
    def hmac(self, key: bytes, data: bytes) -> bytes:
        return hmac.new(key, data, self._hash_name).digest()

    # Kafka: ScramFormatter.hash
    def hash(self, data: bytes) -> bytes:
        return hashlib.new(self._hash_name, data).digest()

    # Kafka: ScramFormatter.xor
    @staticmethod
    def xor(first: bytes, second: bytes) -> bytes:
        if len(first) != len(second):
            raise ValueError("Argument arrays must be of the same length")
        return bytes(a ^ b for a, b in zip(first, second))

    # Kafka: ScramFormatter.hi
    def hi(self, text: bytes, salt: bytes, iterations: int) -> bytes:
        return hashlib.pbkdf2_hmac(self._hash_name, text, salt, iterations)

    # Kafka: ScramFormatter.normalize
    @staticmethod
    def normalize(text: str) -> bytes:
        return text.encode("utf-8")

    # Kafka: ScramFormatter.saltedPassword
    def salted_password(self, password: str, salt: bytes, iterations: int) -> bytes:
        return self.hi(self.normalize(password), salt, iterations)

    # Kafka: ScramFormatter.clientKey
    def client_key(self, salted_password: bytes) -> bytes:
        return self.hmac(salted_password, b"Client Key")

    # Kafka: ScramFormatter.storedKey
    def stored_key(self, client_key: bytes) -> bytes:
        return self.hash(client_key)

    # Kafka: ScramFormatter.serverKey
    def server_key(self, salted_password: bytes) -> bytes:
        return self.hmac(salted_password, b"Server Key")

    # Kafka: ScramFormatter.saslName
    @staticmethod
    def sasl_name(username: str) -> str:
        return username.replace("=", "=3D").replace(",", "=2C")

    # Kafka: ScramFormatter.username
    @staticmethod
    def username(sasl_name: str) -> str:
        return sasl_name.replace("=2C", ",").replace("=3D", "=")

    # Kafka: ScramFormatter.authMessage
    @staticmethod
    def auth_message(client_first, server_first, client_final) -> bytes:
        return ",".join((client_first.client_first_message_bare(), server_first.to_message(),
                         client_final.client_final_message_without_proof())).encode("utf-8")

    # Kafka: ScramFormatter.clientSignature
    def client_signature(self, stored_key: bytes, client_first, server_first, client_final) -> bytes:
        return self.hmac(stored_key, self.auth_message(client_first, server_first, client_final))

    # Kafka: ScramFormatter.clientProof
    def client_proof(self, salted_password: bytes, client_first, server_first, client_final) -> bytes:
        client_key = self.client_key(salted_password)
        signature = self.client_signature(self.stored_key(client_key), client_first, server_first, client_final)
        return self.xor(client_key, signature)

    # Kafka: ScramFormatter.serverSignature
    def server_signature(self, server_key: bytes, client_first, server_first, client_final) -> bytes:
        return self.hmac(server_key, self.auth_message(client_first, server_first, client_final))

    # Kafka: ScramFormatter.secureRandomString -- a nonce: a 130-bit random number in base 36, as Kafka's
    # (letters and digits only; librdkafka 2.0 mangles nonces with other characters)
    @staticmethod
    def secure_random_string() -> str:
        n, digits = secrets.randbits(130), []
        while n:
            n, d = divmod(n, 36)
            digits.append("0123456789abcdefghijklmnopqrstuvwxyz"[d])
        return "".join(reversed(digits)) or "0"

    # Kafka: ScramFormatter.secureRandomBytes
    @staticmethod
    def secure_random_bytes() -> bytes:
        return secrets.token_bytes(32)

    # Kafka: ScramFormatter.generateCredential
    def generate_credential(self, password: str, iterations: int, salt: bytes | None = None) -> ScramCredential:
        salt = salt if salt is not None else self.secure_random_bytes()
        return self.credential_from_salted_password(salt, self.salted_password(password, salt, iterations), iterations)

    # Kafka 2.7: ScramFormatter.generateCredential(salt, saltedPassword, iterations) (KIP-554's upsertions)
    def credential_from_salted_password(self, salt: bytes, salted_password: bytes, iterations: int) -> ScramCredential:
        return ScramCredential(salt, self.stored_key(self.client_key(salted_password)),
                               self.server_key(salted_password), iterations)

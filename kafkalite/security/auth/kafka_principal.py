"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/auth/KafkaPrincipal.java

Classes: KafkaPrincipal (with USER_TYPE and ANONYMOUS).

A principal is who a connection is, as authorizers and quotas see it: a type (always "User" for the
built-in builder) and a name; ``str()`` gives Kafka's "User:alice" form, which is how ACLs and
``super.users`` spell principals.
Left out: the deprecated ``fromString`` (SecurityUtils.parseKafkaPrincipal is ``parse`` here).
"""
from __future__ import annotations


class KafkaPrincipal:
    """Kafka: KafkaPrincipal -- immutable; equal when type and name are equal."""

    USER_TYPE = "User"
    ANONYMOUS: "KafkaPrincipal"

    __slots__ = ("principal_type", "name", "_token_authenticated")

    def __init__(self, principal_type: str, name: str):
        if principal_type is None:
            raise ValueError("Principal type cannot be null")
        if name is None:
            raise ValueError("Principal name cannot be null")
        self.principal_type = principal_type
        self.name = name
        self._token_authenticated = False

    # Kafka: KafkaPrincipal.getName
    def get_name(self) -> str:
        return self.name

    # Kafka: KafkaPrincipal.getPrincipalType
    def get_principal_type(self) -> str:
        return self.principal_type

    # Kafka: KafkaPrincipal.tokenAuthenticated
    def token_authenticated(self, value: bool | None = None) -> bool:
        if value is not None:
            self._token_authenticated = value
        return self._token_authenticated

    @staticmethod
    def parse(text: str) -> "KafkaPrincipal":
        """SecurityUtils.parseKafkaPrincipal: "User:alice" -> KafkaPrincipal("User", "alice")."""
        if not text or ":" not in text:
            raise ValueError(f"Invalid principal: {text!r}: principals must be of the form 'type:name'")
        principal_type, name = text.split(":", 1)
        return KafkaPrincipal(principal_type, name)

    # Kafka: KafkaPrincipal.toString
    def __str__(self) -> str:
        return f"{self.principal_type}:{self.name}"

    def __repr__(self) -> str:
        return f"KafkaPrincipal({self.principal_type!r}, {self.name!r})"

    # Kafka: KafkaPrincipal.equals
    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.principal_type == self.principal_type \
            and other.name == self.name

    # Kafka: KafkaPrincipal.hashCode
    def __hash__(self) -> int:
        return hash((self.principal_type, self.name))


KafkaPrincipal.ANONYMOUS = KafkaPrincipal(KafkaPrincipal.USER_TYPE, "ANONYMOUS")

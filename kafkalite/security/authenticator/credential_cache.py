"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/authenticator/CredentialCache.java
(with core/src/main/scala/kafka/security/CredentialProvider.scala)

Classes: CredentialCache (with its nested Cache), CredentialProvider.

The broker's in-memory copy of the SCRAM credentials in ZooKeeper: one map per mechanism, user -> credential.
The network threads read it while authenticating; the config-change thread rewrites a user's entries when
``/config/users/<user>`` changes (``CredentialProvider.update_credentials``). Dict reads and writes are
atomic in CPython, so readers take no lock, as Kafka's ConcurrentHashMap needs none.
Left out: delegation tokens (the tokenCache).
"""
from __future__ import annotations

from kafkalite.security.authenticator.scram_credential import ScramCredential, credential_from_string
from kafkalite.security.authenticator.scram_mechanism import ScramMechanism


class Cache:
    """Kafka: CredentialCache.Cache -- one mechanism's credentials."""

    def __init__(self, credential_class=ScramCredential):
        self.credential_class = credential_class
        self._credentials: dict[str, object] = {}

    # Kafka: CredentialCache.Cache.get
    def get(self, username: str):
        return self._credentials.get(username)

    # Kafka: CredentialCache.Cache.put
    def put(self, username: str, credential) -> None:
        self._credentials[username] = credential

    # Kafka: CredentialCache.Cache.remove
    def remove(self, username: str) -> None:
        self._credentials.pop(username, None)


class CredentialCache:
    """Kafka: CredentialCache -- mechanism name -> Cache."""

    def __init__(self):
        self._cache_map: dict[str, Cache] = {}

    # Kafka: CredentialCache.createCache
    def create_cache(self, mechanism: str, credential_class=ScramCredential) -> Cache:
        cache = self._cache_map.get(mechanism)
        if cache is None:
            cache = self._cache_map.setdefault(mechanism, Cache(credential_class))
        return cache

    # Kafka: CredentialCache.cache
    def cache(self, mechanism: str, credential_class=ScramCredential) -> Cache | None:
        return self._cache_map.get(mechanism)


class CredentialProvider:
    """Kafka: kafka.security.CredentialProvider(scramMechanisms, tokenCache)."""

    def __init__(self, scram_mechanisms=None):
        self.credential_cache = CredentialCache()
        for mechanism in scram_mechanisms if scram_mechanisms is not None else ScramMechanism.mechanism_names():
            self.credential_cache.create_cache(mechanism)

    # Kafka: CredentialProvider.updateCredentials -- a user's whole config, as /config/users/<user> holds it
    def update_credentials(self, username: str, config: dict) -> None:
        for mechanism in ScramMechanism.mechanism_names():
            cache = self.credential_cache.cache(mechanism)
            if cache is None:
                continue
            value = config.get(mechanism)
            if value is None:
                cache.remove(username)
            else:
                cache.put(username, credential_from_string(value))

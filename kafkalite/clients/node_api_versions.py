"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/NodeApiVersions.java
(and the per-node map of ApiVersions.java)

Classes: NodeApiVersions -- the version ranges one broker announced in its ApiVersions response (S41-S42).

``latest_usable_version(api_key)`` is the heart of version negotiation: the newest version in both the
client's range (``ApiKeys``: kafkalite's client and broker share one table, as Kafka's do) and the
broker's. No overlap raises ``UnsupportedVersionException``.
Left out: the human-readable ``toString(lineBreaks)`` table Kafka's ``kafka-broker-api-versions`` prints.
"""
from __future__ import annotations

from typing import Iterable

from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import UnsupportedVersionException


class NodeApiVersions:
    """Kafka: NodeApiVersions."""

    def __init__(self, node_api_versions: Iterable):
        # api key id -> (min, max) as the broker announced them
        self.supported_versions: dict[ApiKeys, tuple[int, int]] = {}
        self.unknown_apis: list = []
        for v in node_api_versions:
            if ApiKeys.has_id(v.api_key):
                self.supported_versions[ApiKeys(v.api_key)] = (v.min_version, v.max_version)
            else:
                self.unknown_apis.append(v)

    # Kafka: NodeApiVersions.create -- "the broker supports everything the client does" (tests, old brokers)
    @classmethod
    def create(cls, overrides: Iterable = ()) -> "NodeApiVersions":
        result = cls([])
        for api in ApiKeys:
            result.supported_versions[api] = (api.min_version, api.max_version)
        for v in overrides:
            result.supported_versions[ApiKeys(v.api_key)] = (v.min_version, v.max_version)
        return result

    # Kafka: NodeApiVersions.latestUsableVersion
    def latest_usable_version(self, api_key: ApiKeys, oldest_allowed: int | None = None,
                              latest_allowed: int | None = None) -> int:
        oldest = api_key.min_version if oldest_allowed is None else oldest_allowed
        latest = api_key.max_version if latest_allowed is None else latest_allowed
        node_range = self.supported_versions.get(api_key)
        if node_range is None:
            raise UnsupportedVersionException(f"The broker does not support {api_key.api_name}")
        lo, hi = max(oldest, node_range[0]), min(latest, node_range[1])
        if lo > hi:
            raise UnsupportedVersionException(
                f"The broker does not support {api_key.api_name} with version in range [{oldest},{latest}]. "
                f"The supported range is [{node_range[0]},{node_range[1]}].")
        return hi

    # Kafka: NodeApiVersions.apiVersion
    def api_version(self, api_key: ApiKeys) -> tuple[int, int] | None:
        return self.supported_versions.get(api_key)

    def __str__(self) -> str:
        parts = [f"{api.api_name}({api.id}): {lo} to {hi} [usable: {min(hi, api.max_version)}]"
                 for api, (lo, hi) in sorted(self.supported_versions.items(), key=lambda kv: kv[0].id)]
        return "(" + ", ".join(parts) + ")"

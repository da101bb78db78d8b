"""Mirrors Kafka 2.4: core/src/main/scala/kafka/api/ApiVersion.scala

Classes: ApiVersion (one version a broker's ``log.message.format.version`` or a topic's
``message.format.version`` may name, with the record version -- the message format, magic 0, 1 or 2 --
it stands for), ApiVersionValidator.

``ApiVersion.apply`` reads a version as Kafka does: ``0.10.0-IV1`` names one version; a short version
(``0.10.0``, ``2.4``) names the last of its sub-versions; anything after the third dot-separated part
(``0.10.0.1``) or the second (``2.4.1``) is ignored. Any other text is refused by ApiVersionValidator with
Kafka's ConfigException: "Invalid value garbage for configuration message.format.version: Version `garbage`
is not a valid version".

Where kafkalite stops short of 2.4: it stores message format v2 only (docs/message-formats.md), so
``ensure_stored_format`` refuses a version below 0.11.0 (record version 0 or 1), which Kafka 2.4 accepts
and honours by converting every appended batch down to that format. kafkalite would otherwise accept the
setting and keep writing v2 batches: a claim it does not keep. Left out: ``inter.broker.protocol.version``
(kafkalite speaks its own one version between brokers), ``minSupportedFor``.
"""
from __future__ import annotations

import attrs

from kafkalite.common.config.config_exception import ConfigException


@attrs.frozen
class ApiVersion:
    """Kafka: ApiVersion (its case objects KAFKA_0_8_0 ... KAFKA_2_4_IV1)."""

    short_version: str
    sub_version: str        # "" for the versions before 0.10.0 (Kafka: LegacyApiVersion)
    record_version: int     # Kafka: RecordVersion.V0 / V1 / V2 -- the magic of the batches it writes
    id: int

    @property
    def version(self) -> str:
        return f"{self.short_version}-{self.sub_version}" if self.sub_version else self.short_version

    def __str__(self) -> str:
        return self.version

    # Kafka: ApiVersion.apply(versionString)
    @staticmethod
    def apply(version_string: str) -> "ApiVersion":
        segments = version_string.split(".")
        while segments and not segments[-1]:   # Java's String.split drops trailing empty strings
            segments.pop()
        key = ".".join(segments[:3 if version_string.startswith("0.") else 2])
        found = _VERSION_MAP.get(key)
        if found is None:
            raise ValueError(f"Version `{version_string}` is not a valid version")
        return found


def _versions() -> list[ApiVersion]:
    # (short version, its sub-versions, record version), in Kafka 2.4's order of ids
    table = [("0.8.0", [""], 0), ("0.8.1", [""], 0), ("0.8.2", [""], 0), ("0.9.0", [""], 0),
             ("0.10.0", ["IV0", "IV1"], 1), ("0.10.1", ["IV0", "IV1", "IV2"], 1), ("0.10.2", ["IV0"], 1),
             ("0.11.0", ["IV0", "IV1", "IV2"], 2), ("1.0", ["IV0"], 2), ("1.1", ["IV0"], 2),
             ("2.0", ["IV0", "IV1"], 2), ("2.1", ["IV0", "IV1", "IV2"], 2), ("2.2", ["IV0", "IV1"], 2),
             ("2.3", ["IV0", "IV1"], 2), ("2.4", ["IV0", "IV1"], 2)]
    out = []
    for short, subs, record_version in table:
        out += [ApiVersion(short, sub, record_version, len(out) + i) for i, sub in enumerate(subs)]
    return out


# Kafka: ApiVersion.allVersions
ALL_VERSIONS: tuple[ApiVersion, ...] = tuple(_versions())
# Kafka: ApiVersion.versionMap -- every full version, and each short version for the last of its sub-versions
_VERSION_MAP = {**{v.version: v for v in ALL_VERSIONS}, **{v.short_version: v for v in ALL_VERSIONS}}
LATEST_VERSION = ALL_VERSIONS[-1]
STORED_RECORD_VERSION = 2   # the one message format kafkalite writes


# Kafka: ApiVersionValidator.ensureValid
def api_version_validator(name: str, value) -> None:
    try:
        ApiVersion.apply(str(value))
    except ValueError as e:
        raise ConfigException(name, str(value), str(e)) from None


def ensure_stored_format(name: str, value) -> None:
    """ApiVersionValidator, then kafkalite's own limit: a version whose message format kafkalite cannot write
    is refused (see the module docstring)."""
    api_version_validator(name, value)
    version = ApiVersion.apply(str(value))
    if version.record_version < STORED_RECORD_VERSION:
        raise ConfigException(name, str(value), f"kafkalite stores message format v{STORED_RECORD_VERSION} only "
                              f"(Kafka 0.11.0 and later); {version.version} writes v{version.record_version}")

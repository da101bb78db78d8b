"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/config/ConfigDef.java (its Type enum)

Classes: Type -- the value types a Kafka config key can have, spelled as Kafka spells them. The broker's
and topic's config tables (kafkalite/server/kafka_config.py's CONFIG_DEF, kafkalite/log/log_config.py's
LogConfigDef) name each key's type by these names; DescribeConfigs v3+ reports them.

``config_type_of`` maps a type to the id DescribeConfigs v3+ puts on the wire (Kafka 2.6:
DescribeConfigsResponse.ConfigType, KIP-569): 0 UNKNOWN, 1 BOOLEAN, 2 STRING, 3 INT, 4 SHORT, 5 LONG,
6 DOUBLE, 7 LIST, 8 CLASS, 9 PASSWORD.

Era notes: the wire ids are Kafka 2.6's (KIP-569). Left out: ConfigDef itself (parsing and validation live
with the tables that use them), Importance, Width, the HTML/RST doc generators.
"""
from __future__ import annotations

import enum
import re


class Type(enum.Enum):
    """Kafka: ConfigDef.Type (declaration order as in Kafka)."""
    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"

    # Kafka: ConfigDef.Type.isSensitive -- only passwords are hidden from DescribeConfigs
    def is_sensitive(self) -> bool:
        return self is Type.PASSWORD


UNKNOWN_CONFIG_TYPE = 0
# Kafka 2.6: DescribeConfigsResponse.ConfigType ids
_CONFIG_TYPE_IDS = {Type.BOOLEAN: 1, Type.STRING: 2, Type.INT: 3, Type.SHORT: 4, Type.LONG: 5, Type.DOUBLE: 6,
                    Type.LIST: 7, Type.CLASS: 8, Type.PASSWORD: 9}
CONFIG_TYPE_NAMES = {0: "UNKNOWN", **{i: t.name for t, i in _CONFIG_TYPE_IDS.items()}}


def type_of(name: str | None) -> Type | None:
    """A table's type name ("INT", or LogConfigDef's "int") as a Type; None when unknown."""
    if name is None:
        return None
    try:
        return Type(name.upper())
    except ValueError:
        return None


def config_type_of(name: str | None) -> int:
    """Kafka 2.6: AdminManager.configType -- the DescribeConfigs id of a table's type name (0 when unknown)."""
    t = type_of(name)
    return UNKNOWN_CONFIG_TYPE if t is None else _CONFIG_TYPE_IDS[t]


# Kafka: ConfigDef.parseType reads text as Java does -- String.trim (every character up to U+0020, no other
# space), Integer.parseInt / Long.parseLong (no underscores), Double.parseDouble (NaN, Infinity, a d/f suffix;
# its hexadecimal form is left out). The broker's table (kafka_config.parse_type) and the topic's
# (log_config._parse) both read numbers here.
JAVA_TRIM = "".join(map(chr, range(33)))
_JAVA_INT = re.compile(r"[+-]?[0-9]+")
_JAVA_DOUBLE = re.compile(r"[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?)")


def java_trim(text: str) -> str:
    return text.strip(JAVA_TRIM)


def parse_java_integer(text: str) -> int | None:
    """The integer Integer.parseInt / Long.parseLong would read from ``text`` (trimmed), or None."""
    text = java_trim(text)
    return int(text) if _JAVA_INT.fullmatch(text) else None


def parse_java_double(text: str) -> float | None:
    """The double Double.parseDouble would read from ``text`` (trimmed), or None."""
    text = java_trim(text)
    if not _JAVA_DOUBLE.fullmatch(text):
        return None
    return float(text[:-1] if text[-1] in "fFdD" else text)

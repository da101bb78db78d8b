"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/config/ConfigDef.java (its Type enum)

Classes: Type -- the value types a Kafka config key can have, spelled as Kafka spells them. The broker's
and topic's config tables (kafkalite/server/kafka_config.py's CONFIG_DEF, kafkalite/log/log_config.py's
LogConfigDef) name each key's type by these names; DescribeConfigs v3+ reports them. Range, ValidString,
ValidList -- ConfigDef's validators, called as ``validator(name, value)`` with the parsed value.

``parse_type`` is ConfigDef.parseType, the one reader of config text for both tables and the SSL settings:
every string trimmed as Java's String.trim does, numbers read as Integer.parseInt / Long.parseLong /
Double.parseDouble read them, a list split at commas with the white space around them, its empty items kept
(``compact,`` is ``["compact", ""]``, which ValidList then refuses, as Kafka does).

``config_type_of`` maps a type to the id DescribeConfigs v3+ puts on the wire (Kafka 2.6:
DescribeConfigsResponse.ConfigType, KIP-569): 0 UNKNOWN, 1 BOOLEAN, 2 STRING, 3 INT, 4 SHORT, 5 LONG,
6 DOUBLE, 7 LIST, 8 CLASS, 9 PASSWORD.

Era notes: the wire ids are Kafka 2.6's (KIP-569). Differences: a STRING, PASSWORD or CLASS value that is not
text is taken as its text (kafkalite hands LogConfig the broker's typed defaults); a CLASS is kept as its name;
a PASSWORD as a plain string. Left out: ConfigDef's key table itself (the tables are plain dicts beside the
code that uses them), Importance, Width, the HTML/RST doc generators.
"""
from __future__ import annotations

import enum
import re

from kafkalite.common.config.config_exception import ConfigException
from kafkalite.common.utils import java_double_to_string


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


# How Java reads text, for parse_type below: String.trim (every character up to U+0020, no other space),
# Integer.parseInt / Long.parseLong (no underscores), Double.parseDouble (NaN, Infinity, a d/f suffix, and the
# hexadecimal form 0x1.8p3, whose binary exponent Java requires).
JAVA_TRIM = "".join(map(chr, range(33)))
_JAVA_INT = re.compile(r"[+-]?[0-9]+")
_JAVA_DOUBLE = re.compile(r"[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?)")
_JAVA_HEX_DOUBLE = re.compile(r"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?")


def java_trim(text: str) -> str:
    return text.strip(JAVA_TRIM)


def parse_java_integer(text: str, trim: bool = True) -> int | None:
    """The integer Integer.parseInt / Long.parseLong would read from ``text`` (trimmed first, as ConfigDef does,
    unless ``trim`` is False), or None. The caller checks the range of its type."""
    if trim:
        text = java_trim(text)
    return int(text) if _JAVA_INT.fullmatch(text) else None


def parse_java_double(text: str) -> float | None:
    """The double Double.parseDouble would read from ``text`` (trimmed), or None."""
    text = java_trim(text)
    if _JAVA_HEX_DOUBLE.fullmatch(text):
        return float.fromhex(text[:-1] if text[-1] in "fFdD" else text)
    if not _JAVA_DOUBLE.fullmatch(text):
        return None
    return float(text[:-1] if text[-1] in "fFdD" else text)


# Kafka: ConfigDef.COMMA_WITH_WHITESPACE (the pattern \s*,\s*; Java's \s is these six characters)
_COMMA_WITH_WHITESPACE = re.compile(r"[ \t\n\x0b\f\r]*,[ \t\n\x0b\f\r]*")
_INTEGER_BITS = {Type.SHORT: 16, Type.INT: 32, Type.LONG: 64}
_INTEGER_WORDS = {Type.SHORT: "a 16-bit integer (short)", Type.INT: "a 32-bit integer",
                  Type.LONG: "a 64-bit integer (long)"}


# Kafka: ConfigDef.parseType
def parse_type(name: str, value, type_):
    """``value`` -- text as read from a file or a request, or an already typed value -- as ``type_`` (a Type or
    a table's type name), or ConfigException in ConfigDef's words ("Not a number of type INT")."""
    if value is None:
        return None
    t = type_ if isinstance(type_, Type) else type_of(type_)
    text = java_trim(value) if isinstance(value, str) else None
    if t is Type.BOOLEAN:
        if isinstance(value, bool):
            return value
        if text is not None and text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise ConfigException(name, value, "Expected value to be either true or false")
    if t in _INTEGER_BITS:
        parsed: int | None
        if isinstance(value, int) and not isinstance(value, bool):
            parsed = value
        elif text is not None:
            parsed = parse_java_integer(text)
        else:
            raise ConfigException(name, value, f"Expected value to be {_INTEGER_WORDS[t]}, "
                                               f"but it was a {type(value).__name__}")
        half = 1 << (_INTEGER_BITS[t] - 1)   # Integer.parseInt and its kin refuse what does not fit
        if parsed is None or not -half <= parsed < half:
            raise ConfigException(name, value, f"Not a number of type {t.name}")
        return parsed
    if t is Type.DOUBLE:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if text is None:
            raise ConfigException(name, value, f"Expected value to be a double, but it was a {type(value).__name__}")
        number = parse_java_double(text)
        if number is None:
            raise ConfigException(name, value, "Not a number of type DOUBLE")
        return number
    if t is Type.LIST:
        if isinstance(value, (list, tuple)):
            return list(value)
        if text is None:
            raise ConfigException(name, value, "Expected a comma separated list.")
        return _COMMA_WITH_WHITESPACE.split(text) if text else []
    return text if text is not None else str(value)   # STRING, PASSWORD, CLASS


# Kafka: ConfigDef.convertToString -- a parsed value as DescribeConfigs shows it (Java's toString of each type)
def convert_to_string(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_to_string(value)
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value)


class Range:
    """Kafka: ConfigDef.Range -- a number at least ``min`` and no more than ``max`` (either may be None)."""

    __slots__ = ("min", "max")

    def __init__(self, min_=None, max_=None):
        self.min, self.max = min_, max_

    # Kafka: ConfigDef.Range.atLeast
    @staticmethod
    def at_least(min_) -> "Range":
        return Range(min_, None)

    # Kafka: ConfigDef.Range.between
    @staticmethod
    def between(min_, max_) -> "Range":
        return Range(min_, max_)

    # Kafka: ConfigDef.Range.ensureValid
    def __call__(self, name: str, value) -> None:
        if value is None:
            raise ConfigException(name, None, "Value must be non-null")
        if self.min is not None and value < self.min:
            raise ConfigException(name, value, f"Value must be at least {self.min}")
        if self.max is not None and value > self.max:
            raise ConfigException(name, value, f"Value must be no more than {self.max}")


class ValidString:
    """Kafka: ConfigDef.ValidString -- one of the given strings."""

    __slots__ = ("valid_strings",)

    def __init__(self, valid_strings):
        self.valid_strings = tuple(valid_strings)

    # Kafka: ConfigDef.ValidString.in
    @staticmethod
    def in_(*strings) -> "ValidString":
        return ValidString(strings)

    # Kafka: ConfigDef.ValidString.ensureValid
    def __call__(self, name: str, value) -> None:
        if value not in self.valid_strings:
            raise ConfigException(name, value, f"String must be one of: {', '.join(self.valid_strings)}")


class ValidList:
    """Kafka: ConfigDef.ValidList -- every item of the list one of the given strings (the first bad item named)."""

    __slots__ = ("valid_string",)

    def __init__(self, valid_strings):
        self.valid_string = ValidString(valid_strings)

    # Kafka: ConfigDef.ValidList.in
    @staticmethod
    def in_(*strings) -> "ValidList":
        return ValidList(strings)

    # Kafka: ConfigDef.ValidList.ensureValid
    def __call__(self, name: str, value) -> None:
        for item in value:
            self.valid_string(name, item)

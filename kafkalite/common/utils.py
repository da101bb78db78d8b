"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/utils/Utils.java (the pieces kafkalite needs)

Functions: java_string_hashcode (Java's ``String.hashCode``, which Kafka hashes names with: the offsets and
transaction topic partition of a group or transactional id, the fetcher a partition goes to), utils_abs
(Kafka's ``Utils.abs``), to_int32 (Java's int overflow), java_double_to_string (Java's ``Double.toString``,
which Kafka's messages and DescribeConfigs print doubles with).
"""
from __future__ import annotations

import math


def to_int32(n: int) -> int:
    """``n`` as a Java int would hold it (two's complement, 32 bits)."""
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n >= 1 << 31 else n


def java_string_hashcode(s: str) -> int:
    """Java's ``String.hashCode``: over UTF-16 code units, with 32-bit overflow."""
    data = s.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return to_int32(h)


# Kafka: Utils.abs -- Math.abs, except that Integer.MIN_VALUE maps to 0, not to itself
def utils_abs(n: int) -> int:
    return 0 if n == -(1 << 31) else abs(n)


def java_double_to_string(x: float) -> str:
    """Java's ``Double.toString``: plain digits from 10^-3 up to 10^7 (``0.5``, ``1234567.0``), else one digit,
    a point and an exponent (``1.0E10``, ``1.0E-4``, ``1.7976931348623157E308``); ``NaN``, ``Infinity``."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if 1e-3 <= abs(x) < 1e7:
        return repr(x)   # Python's shortest digits, always with a point in this range
    import decimal   # only for the doubles Java prints with an exponent: not worth its import at start-up
    _sign, digits, exponent = decimal.Decimal(repr(abs(x))).normalize().as_tuple()
    text = "".join(map(str, digits))
    return f"{'-' if x < 0 else ''}{text[0]}.{text[1:] or '0'}E{len(text) - 1 + int(exponent)}"

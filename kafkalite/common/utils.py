"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/utils/Utils.java (the pieces kafkalite needs)

Functions: java_string_hashcode (Java's ``String.hashCode``, which Kafka hashes names with: the offsets and
transaction topic partition of a group or transactional id, the fetcher a partition goes to), utils_abs
(Kafka's ``Utils.abs``), to_int32 (Java's int overflow).
"""
from __future__ import annotations


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

"""No Kafka counterpart: test helper that builds a message with a distinct non-default value in
every field a version carries, for the round-trip tests of tests/unit/test_protocol_messages_*.py.

Kafka's MessageTest builds such messages by hand per API; here one walker does it from the
field specs, so a new field is covered as soon as it is declared.
"""
import itertools

import attrs

from kafkalite.protocol.types import ArrayOf, BytesType, FixedType, RecordsType, StringType, UuidType


def _is_struct(t):
    return isinstance(t, type) and hasattr(t, "SPEC")


class SampleBuilder:
    """Each value drawn is different from the last, so swapped or dropped fields show up."""

    def __init__(self, nulls=False):
        self._n = itertools.count(1)
        self._nulls = nulls          # True: every field nullable at this version gets None

    def value(self, t, version):
        n = next(self._n)
        if _is_struct(t):
            return self.build(t, version)
        if isinstance(t, ArrayOf):
            return [self.value(t.element, version) for _ in range(2)]
        if isinstance(t, StringType):
            return f"s{n}-\u00e9"                # non-ASCII, so byte and char lengths differ
        if isinstance(t, RecordsType):
            return bytes([n % 256]) * 5
        if isinstance(t, BytesType):
            return bytes([n % 256, 0, 255])
        if isinstance(t, UuidType):
            import uuid
            return uuid.UUID(int=n)
        if isinstance(t, FixedType):
            if t.fmt == "?":
                return True
            bits = t.fixed_size * 8
            if t.fmt in "bhiq":
                return (n * 7919) % (1 << (bits - 1)) or 1
            return (n * 7919) % (1 << bits) or 1
        raise TypeError(f"no sample for {t!r}")

    def build(self, cls, version):
        kwargs = {}
        for a in attrs.fields(cls):
            spec = a.metadata.get("kafka")
            if spec is None or version not in spec.versions:
                continue
            if self._nulls and version in spec.nullable:
                kwargs[a.name] = None
            else:
                kwargs[a.name] = self.value(spec.type, version)
        return cls(**kwargs)


def sample(cls, version, nulls=False):
    return SampleBuilder(nulls).build(cls, version)


def message_classes(module):
    """The @message classes a module defines, in declaration order."""
    return [v for v in vars(module).values()
            if isinstance(v, type) and getattr(getattr(v, "SPEC", None), "kind", "struct") != "struct"
            and v.__module__ == module.__name__]


def all_versions(cls):
    valid = cls.SPEC.valid
    return range(valid.lo, valid.hi + 1)

"""No Kafka counterpart: test helper that builds a message with a distinct non-default value in
every field a version carries, for the round-trip tests of tests/unit/test_protocol_messages_*.py.

Kafka's MessageTest builds such messages by hand per API; here one walker does it from the
field specs, so a new field is covered as soon as it is declared.
"""
import importlib
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
    """The @message classes a module defines, in declaration order.

    ``module`` may be the lazy stand-in ``from kafkalite.protocol.messages import x`` binds, whose ``vars`` hold
    only the names read so far: list the real module's."""
    module = importlib.import_module(module.__name__)
    return [v for v in vars(module).values()
            if isinstance(v, type) and getattr(getattr(v, "SPEC", None), "kind", "struct") != "struct"
            and v.__module__ == module.__name__]


def all_versions(cls):
    valid = cls.SPEC.valid
    return range(valid.lo, valid.hi + 1)


def check_round_trip(cls, version, nulls):
    """Write a sample, read it back, write again: same object, same bytes, all bytes consumed."""
    from kafkalite.protocol.schema import read, write
    obj = sample(cls, version, nulls)
    data = write(obj, version)
    back, end = read(cls, version, data)
    assert end == len(data)
    assert back == obj
    assert write(back, version) == data


def check_request_and_response_agree(modules, expected, name):
    """Request and response share key and versions, and ApiKeys advertises exactly what they parse."""
    from kafkalite.protocol.api_keys import ApiKeys
    module = next(m for m in modules if hasattr(m, name))
    request = getattr(module, name)
    response = getattr(module, name.replace("Request", "Response"))
    api_key, valid, flexible = expected[name]
    for cls in (request, response):
        assert cls.SPEC.api_key == api_key
        assert repr(cls.SPEC.valid) == valid
        assert repr(cls.SPEC.flexible) == flexible
    key = ApiKeys.for_id(api_key)
    assert (key.request_class, key.response_class) == (request, response)
    assert (key.min_accepted_version, key.max_version) == (request.SPEC.valid.lo, request.SPEC.valid.hi)
    return request, response

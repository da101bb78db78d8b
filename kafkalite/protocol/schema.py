"""No Kafka counterpart: the message DSL and the one generic codec that stand in for Kafka's generator.

Kafka 2.4 describes each message in a JSON spec (clients/src/main/resources/common/message/) and
generates one ``XxxData`` class per message, with ``read``/``write`` methods spelled out for every
field (generator/src/main/java/org/apache/kafka/message/MessageDataGenerator.java). kafkalite
writes each message once as an attrs class whose fields carry the same facts (type, versions,
nullable versions, tag), and this module interprets them:

- ``@message(api_key=..., kind=..., valid=..., flexible=...)`` and ``@struct`` build the class;
- ``field(type, versions, ...)`` declares one field;
- ``write(obj, version)`` / ``write_chunks(obj, version)`` / ``read(cls, version, buf)`` encode and decode.

For every (class, version) the codec computes a *plan* once: the list of read and write steps,
with runs of fixed-width fields folded into a single precompiled ``struct.Struct``. Wire rules
(see ``types.py`` for the types):

- In a flexible version, strings, bytes, records and arrays use the compact form
  (``uvarint(length + 1)``, 0 = null) and every struct ends with a tagged-field section:
  ``uvarint count``, then ``uvarint tag, uvarint size, payload`` in ascending tag order.
  Tagged fields equal to their default are not written; unknown tags read are kept in
  ``obj.unknown_tagged_fields`` and written back.
- Writing a non-default field at a version that lacks it raises ``UnsupportedVersionException``
  unless the field is ``ignorable`` (Kafka's generated code does the same).
- Malformed input raises ``InvalidRequestException`` (truncated data, a null where the field is
  not nullable, tags out of order, a length past the end).

Era notes: nullable struct fields (an int8 -1/1 marker) and UUIDs are post-2.4 generator features.
Left out: Kafka's ``ObjectSerializationCache`` (sizes are not computed ahead, we append to a
bytearray), JSON conversion, ``toString`` output, and the ``mapKey`` collection types (lists here).
"""
from __future__ import annotations

import operator
import struct as _struct

import attrs

from kafkalite.protocol.errors import InvalidRequestException, UnsupportedVersionException
from kafkalite.protocol.types import (  # noqa: F401  (re-exported: messages import types from here)
    BOOL,
    BYTES,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    RECORDS,
    STRING,
    UINT16,
    UINT32,
    UUID,
    ArrayOf,
    BytesType,
    FixedType,
    RecordsType,
    StringType,
    UuidType,
    array,
    read_unsigned_varint,
    write_unsigned_varint,
)

NOTHING = attrs.NOTHING
_MAX_VERSION = 0x7FFF


class Versions:
    """Kafka: org.apache.kafka.message.Versions -- an inclusive range parsed from "3+", "0-8", "4" or "none"."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo: int, hi: int):
        self.lo = lo
        self.hi = hi

    # Kafka's message generator: Versions.parse
    @classmethod
    def parse(cls, text) -> "Versions":
        if isinstance(text, Versions):
            return text
        text = text.strip()
        if text == "none":
            return NONE
        if text.endswith("+"):
            return cls(int(text[:-1]), _MAX_VERSION)
        if "-" in text:
            lo, hi = text.split("-")
            return cls(int(lo), int(hi))
        return cls(int(text), int(text))

    def __contains__(self, version: int) -> bool:
        return self.lo <= version <= self.hi

    def empty(self) -> bool:
        return self.lo > self.hi

    def covers(self, other: "Versions") -> bool:
        """True if every version of ``other`` is in this range."""
        return other.empty() or (self.lo <= other.lo and other.hi <= self.hi)

    def __eq__(self, other):
        return isinstance(other, Versions) and (self.lo, self.hi) == (other.lo, other.hi)

    def __hash__(self):
        return hash((self.lo, self.hi))

    def __repr__(self) -> str:
        if self.empty():
            return "none"
        if self.hi == _MAX_VERSION:
            return f"{self.lo}+"
        return f"{self.lo}-{self.hi}" if self.lo != self.hi else str(self.lo)


NONE = Versions(0, -1)


@attrs.frozen
class FieldSpec:
    """The Kafka facts of one field, kept in the attrs field's metadata under "kafka"."""

    type: object
    versions: Versions
    nullable: Versions = NONE
    tag: int | None = None
    tagged: Versions = NONE
    ignorable: bool = False
    flexible: Versions | None = None  # overrides the message's flexible versions for this field's encoding


@attrs.frozen
class MessageSpec:
    """What ``@message`` attaches as ``cls.SPEC`` (a ``@struct`` gets one with kind "struct")."""

    name: str
    api_key: int | None
    kind: str
    valid: Versions
    flexible: Versions


def _is_struct_class(t) -> bool:
    return isinstance(t, type) and hasattr(t, "SPEC")


def field(type, versions, *, nullable=None, tag=None, tagged=None, default=NOTHING, ignorable=False, flexible=None):
    """Declare one message field: its wire type, the versions that carry it, and the options of Kafka's JSON."""
    versions = Versions.parse(versions)
    nullable = Versions.parse(nullable) if nullable is not None else NONE
    if tag is not None and tagged is None:
        tagged = versions
    tagged = Versions.parse(tagged) if tagged is not None else NONE
    if (tag is None) != tagged.empty():
        raise ValueError("a tagged field needs both tag= and tagged=")
    flexible = Versions.parse(flexible) if flexible is not None else None
    if default is NOTHING:
        null_everywhere = not nullable.empty() and nullable.covers(versions)
        if isinstance(type, ArrayOf):
            default = attrs.Factory(list)
        elif _is_struct_class(type):
            default = None if null_everywhere else attrs.Factory(type)
        elif isinstance(type, (StringType, BytesType)):
            default = None if null_everywhere else type.default
        elif isinstance(type, RecordsType):
            default = None if null_everywhere or not nullable.empty() else b""
        else:
            default = type.default
    elif callable(default) and not isinstance(default, attrs.Factory):
        default = attrs.Factory(default)
    spec = FieldSpec(type, versions, nullable, tag, tagged, ignorable, flexible)
    return attrs.field(default=default, metadata={"kafka": spec})


def _define(cls, spec_args):
    annotations = cls.__dict__.get("__annotations__")
    if annotations is None:
        annotations = {}
        cls.__annotations__ = annotations
    annotations["unknown_tagged_fields"] = "list"
    cls.unknown_tagged_fields = attrs.field(factory=list, repr=False)
    new_cls = attrs.define(cls, kw_only=True, slots=True)
    new_cls.SPEC = MessageSpec(new_cls.__name__, *spec_args)
    flexible = new_cls.SPEC.flexible
    for a in attrs.fields(new_cls):
        fs = a.metadata.get("kafka")
        if fs is not None and not fs.tagged.empty() and new_cls.SPEC.kind != "struct" and not flexible.covers(fs.tagged):
            raise ValueError(f"{new_cls.__name__}.{a.name}: tagged versions {fs.tagged} are not all flexible")
    return new_cls


def message(*, api_key=None, kind, valid, flexible="none"):
    """Class decorator for a top-level message (kind "request", "response", "header" or "data")."""
    if kind not in ("request", "response", "header", "data"):
        raise ValueError(f"unknown message kind {kind!r}")

    def decorate(cls):
        return _define(cls, (api_key, kind, Versions.parse(valid), Versions.parse(flexible)))

    return decorate


def struct(cls):
    """Class decorator for a nested structure; it takes its version and flexibility from the enclosing message."""
    return _define(cls, (None, "struct", Versions(0, _MAX_VERSION), NONE))


# ---------------------------------------------------------------------------------------------
# Value codecs: one small read and write function per (type, compact, nullable)
# ---------------------------------------------------------------------------------------------

_I16 = _struct.Struct(">h")
_I32 = _struct.Struct(">i")
_I8 = _struct.Struct(">b")


def _truncated(what, pos, n, total):
    return InvalidRequestException(f"{what}: needs {n} bytes at offset {pos}, but the buffer ends at {total}")


def _null_not_allowed(name, version):
    return UnsupportedVersionException(f"null value for non-nullable field {name} at version {version}")


def _length_codec(compact: bool, wide: bool):
    """Writer and reader of a length/count prefix; the reader returns -1 for null."""
    if compact:
        def write_len(out, n):
            write_unsigned_varint(out, n + 1)

        def read_len(mv, pos):
            n, pos = read_unsigned_varint(mv, pos)
            return n - 1, pos

        return write_len, read_len, b"\x00"
    s = _I32 if wide else _I16

    def write_len(out, n):
        out += s.pack(n)

    def read_len(mv, pos):
        return s.unpack_from(mv, pos)[0], pos + s.size

    return write_len, read_len, s.pack(-1)


def _value_codec(t, version: int, compact: bool, nullable: bool, name: str, flexible: bool):
    """Return (write(out, value, chunks), read(mv, pos) -> (value, pos)) for one field at one version."""
    if isinstance(t, FixedType):
        s = t.struct

        def write_fixed(out, v, chunks):
            out += s.pack(v)

        def read_fixed(mv, pos):
            return s.unpack_from(mv, pos)[0], pos + s.size

        return write_fixed, read_fixed

    if isinstance(t, UuidType):
        import uuid as _uuid

        def write_uuid(out, v, chunks):
            out += v.bytes

        def read_uuid(mv, pos):
            if pos + 16 > len(mv):
                raise _truncated(name, pos, 16, len(mv))
            return _uuid.UUID(bytes=bytes(mv[pos:pos + 16])), pos + 16

        return write_uuid, read_uuid

    if isinstance(t, (StringType, BytesType, RecordsType)):
        is_string = isinstance(t, StringType)
        is_records = isinstance(t, RecordsType)
        write_len, read_len, null_bytes = _length_codec(compact, wide=not is_string)
        limit = 0x7FFF if is_string and not compact else 0x7FFFFFFF

        def write_blob(out, v, chunks):
            if v is None:
                if not nullable:
                    raise _null_not_allowed(name, version)
                out += null_bytes
                return
            if is_string:
                v = v.encode("utf-8")
            elif is_records and not isinstance(v, (bytes, bytearray, memoryview)):
                try:
                    v = memoryview(v)
                except TypeError:
                    # A file slice (FileRecords): the network layer sends it with sendfile.
                    if chunks is None:
                        raise TypeError(f"{name}: {type(v).__name__} must be written with write_chunks") from None
                    write_len(out, v.size_in_bytes())
                    chunks.append(bytes(out))
                    out.clear()
                    chunks.append(v)
                    return
            n = len(v) if not isinstance(v, memoryview) else v.nbytes
            if n > limit:
                raise ValueError(f"{name}: {n} bytes is too long")
            write_len(out, n)
            out += v

        def read_blob(mv, pos):
            n, pos = read_len(mv, pos)
            if n < 0:
                if nullable:
                    return None, pos
                raise InvalidRequestException(f"non-nullable field {name} was serialized as null")
            end = pos + n
            if end > len(mv):
                raise _truncated(name, pos, n, len(mv))
            if is_string:
                return str(mv[pos:end], "utf-8"), end
            if is_records:
                return mv[pos:end], end
            return bytes(mv[pos:end]), end

        return write_blob, read_blob

    if isinstance(t, ArrayOf):
        write_len, read_len, null_bytes = _length_codec(compact, wide=True)
        elem = t.element
        if isinstance(elem, FixedType):
            fmt = elem.fmt
            size = elem.fixed_size

            def write_items(out, v, chunks):
                out += _struct.pack(f">{len(v)}{fmt}", *v)

            def read_items(mv, pos, n):
                return list(_struct.unpack_from(f">{n}{fmt}", mv, pos)), pos + n * size
        else:
            if _is_struct_class(elem):
                plan = _plan(elem, version, flexible)

                def write_elem(out, e, chunks):
                    _write_struct(out, e, plan, chunks)

                def read_elem(mv, pos):
                    return _read_struct(plan, mv, pos)
            else:
                write_elem, read_elem = _value_codec(elem, version, compact, False, name, flexible)

            def write_items(out, v, chunks):
                for e in v:
                    write_elem(out, e, chunks)

            def read_items(mv, pos, n):
                items = []
                append = items.append
                for _ in range(n):
                    e, pos = read_elem(mv, pos)
                    append(e)
                return items, pos

        def write_array(out, v, chunks):
            if v is None:
                if not nullable:
                    raise _null_not_allowed(name, version)
                out += null_bytes
                return
            write_len(out, len(v))
            write_items(out, v, chunks)

        def read_array(mv, pos):
            n, pos = read_len(mv, pos)
            if n < 0:
                if nullable:
                    return None, pos
                raise InvalidRequestException(f"non-nullable field {name} was serialized as null")
            if n > len(mv) - pos:
                raise InvalidRequestException(
                    f"{name}: array of {n} elements, but only {len(mv) - pos} bytes remain")
            return read_items(mv, pos, n)

        return write_array, read_array

    if _is_struct_class(t):
        plan = _plan(t, version, flexible)
        if not nullable:
            def write_one(out, v, chunks):
                if v is None:
                    raise _null_not_allowed(name, version)
                _write_struct(out, v, plan, chunks)

            def read_one(mv, pos):
                return _read_struct(plan, mv, pos)

            return write_one, read_one

        def write_nullable(out, v, chunks):
            if v is None:
                out += b"\xff"
                return
            out += b"\x01"
            _write_struct(out, v, plan, chunks)

        def read_nullable(mv, pos):
            marker = _I8.unpack_from(mv, pos)[0]
            if marker < 0:
                return None, pos + 1
            return _read_struct(plan, mv, pos + 1)

        return write_nullable, read_nullable

    raise TypeError(f"{name}: not a wire type: {t!r}")


# ---------------------------------------------------------------------------------------------
# Plans: the steps to read and write one class at one version
# ---------------------------------------------------------------------------------------------

@attrs.define(slots=True)
class _Plan:
    cls: type
    version: int
    flexible: bool
    read_steps: list = attrs.Factory(list)
    write_steps: list = attrs.Factory(list)
    absent: list = attrs.Factory(list)  # (name, default) of non-ignorable fields this version lacks
    tagged: dict = attrs.Factory(dict)  # tag -> (name, write, read, default)


_plans: dict = {}


def _default_of(a):
    d = a.default
    return d.factory() if isinstance(d, attrs.Factory) else d


def _fixed_group_steps(names, types):
    s = _struct.Struct(">" + "".join(t.fmt for t in types))
    size = s.size
    names = tuple(names)
    getter = operator.attrgetter(*names)
    if len(names) == 1:
        name = names[0]

        def write_group(out, obj, chunks):
            out += s.pack(getter(obj))

        def read_group(mv, pos, kw):
            kw[name] = s.unpack_from(mv, pos)[0]
            return pos + size
    else:
        def write_group(out, obj, chunks):
            out += s.pack(*getter(obj))

        def read_group(mv, pos, kw):
            kw.update(zip(names, s.unpack_from(mv, pos)))
            return pos + size

    return write_group, read_group


def _field_steps(name, write_value, read_value):
    def write_field(out, obj, chunks):
        write_value(out, getattr(obj, name), chunks)

    def read_field(mv, pos, kw):
        kw[name], pos = read_value(mv, pos)
        return pos

    return write_field, read_field


def _plan(cls, version: int, flexible: bool) -> _Plan:
    key = (cls, version, flexible)
    plan = _plans.get(key)
    if plan is not None:
        return plan
    plan = _Plan(cls, version, flexible)
    run_names, run_types = [], []

    def flush_run():
        if run_names:
            w, r = _fixed_group_steps(run_names, run_types)
            plan.write_steps.append(w)
            plan.read_steps.append(r)
            run_names.clear()
            run_types.clear()

    for a in attrs.fields(cls):
        fs = a.metadata.get("kafka")
        if fs is None:
            continue
        if version not in fs.versions:
            if not fs.ignorable:
                plan.absent.append((a.name, _default_of(a)))
            continue
        nullable = version in fs.nullable
        if flexible and version in fs.tagged:
            w, r = _value_codec(fs.type, version, True, nullable, a.name, flexible)
            plan.tagged[fs.tag] = (a.name, w, r, _default_of(a))
            continue
        if isinstance(fs.type, FixedType):
            run_names.append(a.name)
            run_types.append(fs.type)
            continue
        flush_run()
        compact = version in fs.flexible if fs.flexible is not None else flexible
        w, r = _value_codec(fs.type, version, compact, nullable, a.name, flexible)
        fw, fr = _field_steps(a.name, w, r)
        plan.write_steps.append(fw)
        plan.read_steps.append(fr)
    flush_run()
    plan.tagged = dict(sorted(plan.tagged.items()))
    _plans[key] = plan
    return plan


def _plan_for(cls, version: int) -> _Plan:
    spec = cls.SPEC
    if version not in spec.valid:
        raise UnsupportedVersionException(f"{cls.__name__} has no version {version} (valid: {spec.valid})")
    return _plan(cls, version, version in spec.flexible)


# ---------------------------------------------------------------------------------------------
# The codec
# ---------------------------------------------------------------------------------------------

# Kafka's generated *Data classes: write
def _write_struct(out: bytearray, obj, plan: _Plan, chunks) -> None:
    for name, default in plan.absent:
        if getattr(obj, name) != default:
            raise UnsupportedVersionException(
                f"Attempted to write a non-default {name} at version {plan.version} of {plan.cls.__name__}")
    for step in plan.write_steps:
        step(out, obj, chunks)
    if plan.flexible:
        _write_tagged_fields(out, obj, plan)
    elif obj.unknown_tagged_fields:
        raise UnsupportedVersionException(
            f"Tagged fields were set, but version {plan.version} of {plan.cls.__name__} does not support them")


def _write_tagged_fields(out: bytearray, obj, plan: _Plan) -> None:
    entries = []
    for tag, (name, write_value, _, default) in plan.tagged.items():
        value = getattr(obj, name)
        if value != default:
            payload = bytearray()
            write_value(payload, value, None)
            entries.append((tag, payload))
    unknown = obj.unknown_tagged_fields
    if unknown:
        entries.extend(unknown)
        entries.sort(key=operator.itemgetter(0))
    write_unsigned_varint(out, len(entries))
    for tag, payload in entries:
        write_unsigned_varint(out, tag)
        write_unsigned_varint(out, len(payload))
        out += payload


# Kafka's generated *Data classes: read
def _read_struct(plan: _Plan, mv: memoryview, pos: int):
    kw = {}
    for step in plan.read_steps:
        pos = step(mv, pos, kw)
    if plan.flexible:
        pos = _read_tagged_fields(plan, mv, pos, kw)
    return plan.cls(**kw), pos


def _read_tagged_fields(plan: _Plan, mv: memoryview, pos: int, kw: dict) -> int:
    count, pos = read_unsigned_varint(mv, pos)
    last_tag = -1
    unknown = None
    for _ in range(count):
        tag, pos = read_unsigned_varint(mv, pos)
        if tag <= last_tag:
            raise InvalidRequestException(
                f"{plan.cls.__name__}: tagged field {tag} follows tag {last_tag}; tags must be in ascending order")
        last_tag = tag
        size, pos = read_unsigned_varint(mv, pos)
        end = pos + size
        if end > len(mv):
            raise _truncated(f"{plan.cls.__name__} tagged field {tag}", pos, size, len(mv))
        known = plan.tagged.get(tag)
        if known is None:
            if unknown is None:
                unknown = kw["unknown_tagged_fields"] = []
            unknown.append((tag, bytes(mv[pos:end])))
        else:
            name, _, read_value, _ = known
            kw[name], value_end = read_value(mv[:end], pos)
            if value_end != end:
                raise InvalidRequestException(
                    f"{plan.cls.__name__}.{name}: tagged field size {size} does not match its content")
        pos = end
    return pos


def write(obj, version: int) -> bytes:
    """Encode a message (or struct) at ``version``. RECORDS values must be bytes-like here."""
    out = bytearray()
    plan = _plan_for(type(obj), version)
    try:
        _write_struct(out, obj, plan, None)
    except _struct.error as e:
        raise ValueError(f"cannot encode {type(obj).__name__} v{version}: {e}") from e
    return bytes(out)


def write_chunks(obj, version: int) -> list:
    """Encode like ``write``, but a RECORDS value that is a file slice becomes its own list element."""
    out = bytearray()
    chunks = []
    plan = _plan_for(type(obj), version)
    try:
        _write_struct(out, obj, plan, chunks)
    except _struct.error as e:
        raise ValueError(f"cannot encode {type(obj).__name__} v{version}: {e}") from e
    if out:
        chunks.append(bytes(out))
    return chunks


def read(cls, version: int, buf, offset: int = 0):
    """Decode ``cls`` at ``version`` from ``buf`` at ``offset``; return (object, end offset)."""
    mv = buf if isinstance(buf, memoryview) else memoryview(buf)
    if mv.format != "B" or mv.ndim != 1:
        mv = mv.cast("B")
    plan = _plan_for(cls, version)
    try:
        return _read_struct(plan, mv, offset)
    except _struct.error as e:
        raise InvalidRequestException(f"{cls.__name__} v{version}: truncated or malformed input ({e})") from e
    except UnicodeDecodeError as e:
        raise InvalidRequestException(f"{cls.__name__} v{version}: a string is not valid UTF-8 ({e})") from e

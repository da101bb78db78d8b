"""Tests for kafkalite.protocol.schema, the DSL and its codec (Kafka: MessageTest, the generator's tests)."""
from __future__ import annotations

import pytest

from kafkalite.protocol import schema
from kafkalite.protocol.errors import InvalidRequestException, UnsupportedVersionException
from kafkalite.protocol.schema import (
    INT8, INT16, INT32, RECORDS, STRING, Versions, array, field, message, struct)


@struct
class Point:
    x: int = field(INT32, "0+")
    label: str = field(STRING, "0+")


@message(kind="data", valid="0-3", flexible="2+")
class Sample:
    a: int = field(INT16, "0+")
    name: str = field(STRING, "0+")
    added: int = field(INT32, "1+")  # not ignorable: must be default below v1
    optional: int = field(INT8, "1+", ignorable=True, default=-1)
    points: list[Point] = field(array(Point), "0+")
    maybe: Point | None = field(Point, "3+", nullable="3+")
    tag0: int = field(INT32, "2+", tag=0, tagged="2+", default=5)
    tag2: str = field(STRING, "2+", tag=2, tagged="2+")


def test_versions_parse_and_contains():
    assert 3 in Versions.parse("3+") and 2 not in Versions.parse("3+") and 32767 in Versions.parse("3+")
    assert 0 in Versions.parse("0-8") and 8 in Versions.parse("0-8") and 9 not in Versions.parse("0-8")
    assert all(v not in Versions.parse("none") for v in range(10))
    assert 4 in Versions.parse("4") and 5 not in Versions.parse("4")
    assert repr(Versions.parse("2+")) == "2+" and repr(Versions.parse("0-3")) == "0-3"


def test_defaults_and_spec():
    s = Sample()
    assert (s.a, s.name, s.optional, s.points, s.maybe, s.tag0, s.unknown_tagged_fields) == (0, "", -1, [], None, 5, [])
    assert Sample.SPEC.kind == "data" and 3 in Sample.SPEC.valid and 2 in Sample.SPEC.flexible
    assert 1 not in Sample.SPEC.flexible
    assert Sample().points is not Sample().points  # list defaults are per instance


def test_non_flexible_bytes():
    s = Sample(a=1, name="ab", optional=3, points=[Point(x=2, label="c")])
    assert schema.write(s, 0) == bytes.fromhex("0001" "00026162" "00000001" "00000002" "000163")
    s.added = 7
    assert schema.write(s, 1) == bytes.fromhex("0001" "00026162" "00000007" "03" "00000001" "00000002" "000163")


def test_flexible_bytes_compact_and_tags():
    s = Sample(a=1, name="ab", added=7, optional=3, points=[Point(x=2, label="c")], tag0=0, tag2="z")
    expected = ("0001" "036162" "00000007" "03" "02" "00000002" "0263" "00"  # point + its empty tag section
                "02" "00" "04" "00000000" "02" "02" "027a")  # tag 0 (non-default 0) and tag 2
    assert schema.write(s, 2).hex() == expected
    back, end = schema.read(Sample, 2, bytes.fromhex(expected))
    assert back == s and end == len(expected) // 2


def test_tagged_fields_at_default_are_omitted():
    assert schema.write(Sample(), 2).hex() == "0000" "01" "00000000" "ff" "01" "00"


def test_nullable_struct_marker():
    assert schema.write(Sample(), 3).hex() == "0000" "01" "00000000" "ff" "01" "ff" "00"
    s = Sample(maybe=Point(x=1, label=""))
    data = schema.write(s, 3)
    assert data.hex() == "0000" "01" "00000000" "ff" "01" "01" "00000001" "01" "00" "00"
    assert schema.read(Sample, 3, data)[0].maybe == Point(x=1, label="")


def test_unknown_tags_preserved_in_order_and_merged():
    # tags 1 and 3 are unknown to Sample; tag 2 is known and lies between them.
    body = "0000" "01" "00000000" "ff" "01"
    data = bytes.fromhex(body + "03" "01" "02" "aabb" "02" "02" "0278" "03" "00")
    obj, end = schema.read(Sample, 2, data)
    assert end == len(data)
    assert obj.tag2 == "x"
    assert obj.unknown_tagged_fields == [(1, b"\xaa\xbb"), (3, b"")]
    assert schema.write(obj, 2) == data


def test_descending_or_repeated_tags_are_rejected():
    body = "0000" "01" "00000000" "ff" "01"
    with pytest.raises(InvalidRequestException, match="ascending"):
        schema.read(Sample, 2, bytes.fromhex(body + "02" "02" "02" "0278" "00" "04" "00000001"))
    with pytest.raises(InvalidRequestException, match="ascending"):
        schema.read(Sample, 2, bytes.fromhex(body + "02" "01" "00" "01" "00"))


def test_tag_size_mismatch_and_overrun_rejected():
    body = "0000" "01" "00000000" "ff" "01"
    with pytest.raises(InvalidRequestException):
        schema.read(Sample, 2, bytes.fromhex(body + "01" "00" "05" "00000001" "00"))  # int32 in 5 bytes
    with pytest.raises(InvalidRequestException):
        schema.read(Sample, 2, bytes.fromhex(body + "01" "07" "09" "00"))  # size past the end


def test_unknown_tags_cannot_be_written_to_a_non_flexible_version():
    s = Sample(unknown_tagged_fields=[(9, b"x")])
    with pytest.raises(UnsupportedVersionException):
        schema.write(s, 1)


def test_non_default_field_at_a_version_without_it():
    with pytest.raises(UnsupportedVersionException, match="non-default added"):
        schema.write(Sample(added=1), 0)
    with pytest.raises(UnsupportedVersionException, match="non-default tag2"):
        schema.write(Sample(tag2="x"), 1)
    assert schema.write(Sample(optional=9), 0) == schema.write(Sample(), 0)  # ignorable: silently dropped


def test_null_in_non_nullable_field():
    with pytest.raises(UnsupportedVersionException):
        schema.write(Sample(name=None), 0)
    with pytest.raises(InvalidRequestException, match="non-nullable field name"):
        schema.read(Sample, 0, bytes.fromhex("0000" "ffff" "00000000"))
    with pytest.raises(InvalidRequestException, match="non-nullable field name"):
        schema.read(Sample, 2, bytes.fromhex("0000" "00" "00000000" "ff" "01" "00"))


def test_unsupported_version():
    with pytest.raises(UnsupportedVersionException):
        schema.write(Sample(), 4)
    with pytest.raises(UnsupportedVersionException):
        schema.read(Sample, 4, b"")


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_every_truncation_raises_invalid_request(version):
    s = Sample(a=1, name="ab", added=7 if version else 0, points=[Point(x=2, label="c")],
               maybe=Point(x=3) if version == 3 else None, tag0=9 if version >= 2 else 5)
    data = schema.write(s, version)
    assert schema.read(Sample, version, data)[0] == s
    for cut in range(len(data)):
        with pytest.raises(InvalidRequestException):
            schema.read(Sample, version, data[:cut])


def test_array_count_larger_than_input():
    with pytest.raises(InvalidRequestException, match="array"):
        schema.read(Sample, 0, bytes.fromhex("0000" "0000" "7fffffff"))


def test_read_at_offset_and_from_memoryview():
    data = b"\x99\x99" + schema.write(Sample(a=3), 0) + b"\x77"
    obj, end = schema.read(Sample, 0, memoryview(bytearray(data)), offset=2)
    assert obj.a == 3 and end == len(data) - 1


def test_invalid_utf8_raises_invalid_request():
    with pytest.raises(InvalidRequestException):
        schema.read(Sample, 0, bytes.fromhex("0000" "0001" "ff" "00000000"))


@message(kind="data", valid="0-1", flexible="1+")
class WithRecords:
    before: int = field(INT32, "0+")
    records: object = field(RECORDS, "0+", nullable="0+")
    after: int = field(INT16, "0+")


class FakeFileSlice:
    """Stands in for FileRecords: no buffer protocol, only a size."""

    def size_in_bytes(self):
        return 1000


def test_records_are_read_as_memoryview_without_copy():
    data = bytearray(bytes.fromhex("00000001" "00000003" "616263" "0002"))
    obj, _ = schema.read(WithRecords, 0, data)
    assert isinstance(obj.records, memoryview) and bytes(obj.records) == b"abc"
    data[8] = ord("z")  # the view still points into the input buffer
    assert bytes(obj.records) == b"zbc"
    flexible = bytes.fromhex("00000001" "04" "616263" "0002" "00")
    assert bytes(schema.read(WithRecords, 1, flexible)[0].records) == b"abc"


def test_write_chunks_emits_file_slices_separately():
    obj = WithRecords(before=1, records=FakeFileSlice(), after=2)
    chunks = schema.write_chunks(obj, 0)
    assert chunks[0] == bytes.fromhex("00000001" "000003e8")
    assert chunks[1] is obj.records
    assert chunks[2] == bytes.fromhex("0002")
    chunks = schema.write_chunks(obj, 1)
    assert chunks[0] == bytes.fromhex("00000001" "e907") and chunks[2] == bytes.fromhex("0002" "00")
    with pytest.raises(TypeError):
        schema.write(obj, 0)


def test_write_chunks_joins_adjacent_bytes():
    obj = WithRecords(before=1, records=memoryview(b"xy"), after=2)
    assert schema.write_chunks(obj, 0) == [bytes.fromhex("00000001" "00000002" "7879" "0002")]
    assert schema.write(WithRecords(records=None), 0) == bytes.fromhex("00000000" "ffffffff" "0000")


@message(kind="header", valid="0-1", flexible="1+")
class NeverCompact:
    client: str | None = field(STRING, "0+", nullable="0+", flexible="none")


def test_flexible_override_keeps_int16_length():
    assert schema.write(NeverCompact(client="ab"), 1).hex() == "0002" "6162" "00"
    assert schema.write(NeverCompact(client=None), 1).hex() == "ffff" "00"


def test_tagged_versions_must_be_flexible():
    with pytest.raises(ValueError):
        @message(kind="data", valid="0-1", flexible="1+")
        class Bad:
            t: int = field(INT32, "0+", tag=0, tagged="0+")

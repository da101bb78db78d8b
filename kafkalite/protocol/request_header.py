"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/requests/RequestHeader.java

Classes: RequestHeader -- api key, api version, correlation id and client id, the prefix of every
request (schema: RequestHeader.json, messages ``RequestHeaderData``).

Header versions: v0 = api_key, api_version, correlation_id (only ControlledShutdown v0 uses it);
v1 adds ``client_id``, a nullable string with an **int16** length; v2 adds a tagged-field section
and is used exactly when the request's own version is flexible. ``client_id`` stays non-compact
even in v2, so any broker can read the header of an ApiVersions request it does not understand
(KIP-511). ``parse`` therefore reads api key and version first, then picks the header version.

Left out: Kafka's separate ``RequestHeaderData`` class (the attrs class is both), ``toStruct``.
"""
from __future__ import annotations

import struct

from kafkalite.protocol import schema
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import InvalidRequestException
from kafkalite.protocol.schema import INT16, INT32, STRING, field, message

_KEY_AND_VERSION = struct.Struct(">hh")
_CORRELATION_ID = struct.Struct(">i")
_V1_FIXED = struct.Struct(">hhih")   # api_key, api_version, correlation_id, client_id length


@message(kind="header", valid="0-2", flexible="2+")
class RequestHeader:
    """Kafka: RequestHeader (and RequestHeaderData)."""

    api_key: int = field(INT16, "0+")
    api_version: int = field(INT16, "0+")
    correlation_id: int = field(INT32, "0+")
    # Absent in v0; never compact, even in the flexible v2.
    client_id: str | None = field(STRING, "1+", nullable="1+", ignorable=True, flexible="none", default=None)

    @property
    def api(self) -> ApiKeys:
        """Kafka: RequestHeader.apiKey -- the ApiKeys member."""
        return ApiKeys.for_id(self.api_key)

    @property
    def header_version(self) -> int:
        # Kafka: ApiKeys.requestHeaderVersion
        return ApiKeys.for_id(self.api_key).request_header_version(self.api_version)

    # Kafka: RequestHeader.parse
    @classmethod
    def parse(cls, buf, offset: int = 0) -> tuple["RequestHeader", int]:
        """Read a header at ``offset``; return (header, offset of the body)."""
        try:
            api_key, api_version = _KEY_AND_VERSION.unpack_from(buf, offset)
        except struct.error:
            raise InvalidRequestException("request is too short to hold a request header") from None
        if not ApiKeys.has_id(api_key):
            exc = InvalidRequestException(f"Unknown API key {api_key}")
            try:
                exc.correlation_id = _CORRELATION_ID.unpack_from(buf, offset + 4)[0]
            except struct.error:
                exc.correlation_id = None
            raise exc
        header_version = ApiKeys.for_id(api_key).request_header_version(api_version)
        if header_version >= 1:
            fast = cls._parse_v1_or_v2(buf, offset, header_version)
            if fast is not None:
                return fast
        return schema.read(cls, header_version, buf, offset)

    # No Kafka counterpart: every request pays for its header, and the generic schema reader costs ~50
    # Python calls for these four fields (Kafka's generated RequestHeaderData.read is straight-line code,
    # which is what this is). Anything unusual -- a truncated or non-UTF-8 client id, tagged fields in a
    # v2 header -- returns None and goes through schema.read, which raises its usual errors.
    @classmethod
    def _parse_v1_or_v2(cls, buf, offset: int, header_version: int):
        try:
            api_key, api_version, correlation_id, n = _V1_FIXED.unpack_from(buf, offset)
        except struct.error:
            return None
        pos = offset + 10
        if n >= 0:
            if pos + n > len(buf):
                return None
            try:
                client_id = str(buf[pos:pos + n], "utf-8")
            except UnicodeDecodeError:
                return None
            pos += n
        elif n == -1:
            client_id = None
        else:
            return None
        if header_version == 2:
            if pos >= len(buf) or buf[pos] != 0:   # a tagged-field section that is not empty
                return None
            pos += 1
        return cls(api_key=api_key, api_version=api_version, correlation_id=correlation_id,
                   client_id=client_id), pos

    # Kafka 3.x: RequestHeader.write
    def to_bytes(self) -> bytes:
        return schema.write(self, self.header_version)

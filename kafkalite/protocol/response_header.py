"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/requests/ResponseHeader.java

Classes: ResponseHeader -- the correlation id that prefixes every response.

v0 is just the correlation id; v1 adds a tagged-field section and is used when the request's
version is flexible -- except for ApiVersions, whose responses always carry v0 (KIP-511); see
``ApiKeys.response_header_version``.

Left out: Kafka's separate ``ResponseHeaderData`` class, ``toStruct``, ``sizeOf``.
"""
from __future__ import annotations

from kafkalite.protocol import schema
from kafkalite.protocol.schema import INT32, field, message


@message(kind="header", valid="0-1", flexible="1+")
class ResponseHeader:
    """Kafka: ResponseHeader (and ResponseHeaderData)."""

    correlation_id: int = field(INT32, "0+")

    # Kafka 3.x: ResponseHeader.write
    def to_bytes(self, header_version: int) -> bytes:
        return schema.write(self, header_version)

    # Kafka: ResponseHeader.parse
    @classmethod
    def parse(cls, buf, header_version: int, offset: int = 0) -> tuple["ResponseHeader", int]:
        """Read a response header; return (header, offset of the body)."""
        return schema.read(cls, header_version, buf, offset)

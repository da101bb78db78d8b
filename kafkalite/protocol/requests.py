"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/requests/ (AbstractRequest.java,
AbstractResponse.java, RequestContext.java)

Functions: parse_request_body, serialize_response, serialize_request, parse_response,
is_unsupported_api_versions_request, api_versions_fallback_response.

Kafka wraps each message in a request/response class (``MetadataRequest`` holding a
``MetadataRequestData``); kafkalite's message classes are the data classes themselves, so the
wrapper layer shrinks to these functions. Nothing here frames bytes with a size prefix: that is
the network layer's job (``NetworkReceive``/``NetworkSend``).

KIP-511: an ApiVersions request newer than the broker knows cannot be parsed, yet must be answered
so the client can retry at an older version. ``parse_request_body`` raises
``UnsupportedVersionException`` for it like for any other unsupported version; the caller checks
``is_unsupported_api_versions_request(header)`` and answers ``api_versions_fallback_response()``,
which ``serialize_response`` writes as a v0 body (Kafka: ``RequestContext.apiVersion``).

Left out: the per-API ``getErrorResponse`` methods (KafkaApis builds error responses), the
``Struct`` conversion layer of the pre-generator protocol, and request/response logging.
"""
from __future__ import annotations

from kafkalite.protocol import schema
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import ApiException, Errors, InvalidRequestException, UnsupportedVersionException
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.response_header import ResponseHeader


def _size(buf) -> int:
    return buf.nbytes if isinstance(buf, memoryview) else len(buf)


# Kafka: RequestContext.isUnsupportedApiVersionsRequest
def is_unsupported_api_versions_request(header: RequestHeader) -> bool:
    """True for an ApiVersions request newer than this broker's: answer it with the KIP-511 fallback."""
    return header.api_key == ApiKeys.API_VERSIONS.id and header.api_version > ApiKeys.API_VERSIONS.max_version


# Kafka: RequestContext.apiVersion
def response_version(header: RequestHeader) -> int:
    """The version to write the response body at: v0 for an unsupported ApiVersions request."""
    return 0 if is_unsupported_api_versions_request(header) else header.api_version


# Kafka: RequestContext.parseRequest (and AbstractRequest.parseRequest)
def parse_request_body(header: RequestHeader, buf, offset: int):
    """Decode the body that follows ``header`` in ``buf``.

    Bytes left after the body are ignored, as Kafka's generated readers ignore them: librdkafka 2.16,
    for one, sends three extra bytes after a Metadata v12 body, and a real broker answers it."""
    api = ApiKeys.for_id(header.api_key)
    version = header.api_version
    cls = api.request_class
    if cls is None or not api.is_version_supported(version) or version not in cls.SPEC.valid:
        raise UnsupportedVersionException(
            f"{api.api_name} v{version} is not supported (accepted: {api.min_accepted_version}-{api.max_version})")
    if header.api_key == 0:   # Produce: straight-line code for v3-v9, see produce_fast_path.py (issue 18)
        from kafkalite.protocol.produce_fast_path import read_produce_request   # imported at the first Produce
        mv = buf if isinstance(buf, memoryview) and buf.format == "B" else memoryview(buf).cast("B")
        body = read_produce_request(version, mv, offset)
        if body is not None:
            return body
    body, _end = schema.read(cls, version, buf, offset)
    return body


# Kafka: RequestContext.buildResponse / AbstractResponse.toSend
def serialize_response(header: RequestHeader, body) -> list:
    """Response header + body as a list of chunks (bytes, or file slices to ``sendfile``), no size prefix."""
    api = ApiKeys.for_id(header.api_key)
    version = response_version(header)
    head = ResponseHeader(correlation_id=header.correlation_id).to_bytes(api.response_header_version(version))
    fast = None
    if header.api_key == 0:   # Produce: straight-line code for v3-v9, see produce_fast_path.py (issue 18)
        from kafkalite.protocol.produce_fast_path import write_produce_response
        fast = write_produce_response(body, version)
    chunks = [fast] if fast is not None else schema.write_chunks(body, version)
    if chunks and isinstance(chunks[0], bytes):
        chunks[0] = head + chunks[0]
    else:
        chunks.insert(0, head)
    return chunks


# Kafka: AbstractRequest.serialize (RequestHeader + body, as NetworkClient sends it)
def serialize_request(header: RequestHeader, body) -> bytes:
    """Request header + body, no size prefix."""
    return header.to_bytes() + schema.write(body, header.api_version)


# Kafka: AbstractResponse.parseResponse (and ApiVersionsResponse.parse's v0 fallback)
def parse_response(api_key, api_version: int, buf) -> tuple[int, object]:
    """Decode a response (without its size prefix); return (correlation_id, body)."""
    api = api_key if isinstance(api_key, ApiKeys) else ApiKeys.for_id(api_key)
    cls = api.response_class
    if cls is None:
        raise UnsupportedVersionException(f"no response schema for {api.api_name}")
    header, offset = ResponseHeader.parse(buf, api.response_header_version(api_version))
    try:
        return header.correlation_id, _read_whole(cls, api_version, buf, offset)
    except ApiException:
        if api is not ApiKeys.API_VERSIONS or api_version == 0:
            raise
        # A broker that does not know our version answers in v0 with UNSUPPORTED_VERSION (KIP-511).
        return header.correlation_id, _read_whole(cls, 0, buf, offset)


def _read_whole(cls, version, buf, offset):
    body, end = schema.read(cls, version, buf, offset)
    if end != _size(buf):
        raise InvalidRequestException(f"{cls.__name__} v{version}: {_size(buf) - end} unexpected trailing bytes")
    return body


# Kafka: ApiVersionsRequest.getErrorResponse (the KIP-511 case)
def api_versions_fallback_response():
    """The v0 ApiVersionsResponse for a too-new ApiVersions request: error 35, only ApiVersions' own range."""
    from kafkalite.protocol.messages.api_versions import ApiVersion, ApiVersionsResponse

    api = ApiKeys.API_VERSIONS
    return ApiVersionsResponse(
        error_code=Errors.UNSUPPORTED_VERSION.code,
        api_keys=[ApiVersion(api_key=api.id, min_version=api.min_version, max_version=api.max_version)],
    )

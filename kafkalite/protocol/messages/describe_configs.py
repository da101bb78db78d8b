"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/DescribeConfigsRequest.json
and DescribeConfigsResponse.json (same directory).

Classes: DescribeConfigsRequest (DescribeConfigsResource) and DescribeConfigsResponse
(DescribeConfigsResult, DescribeConfigsResourceResult, DescribeConfigsSynonym).

Admin clients read the configuration of topics (resource type 2) and brokers (4, or 8 for
broker loggers). For each entry the broker says where the value came from (``config_source``:
1 topic, 2 dynamic broker, 4 static broker, 5 default, ...) and, on request, the synonyms
that were overridden.

Version history, in short:
- v0 flags each entry ``is_default`` instead of naming its source.
- v1 adds ``include_synonyms``, ``config_source`` and ``synonyms`` (v0's ``is_default``
  flag is gone from then on).
- v2 is v1 (throttling on quota violation); v3 adds ``include_documentation``,
  ``config_type`` and ``documentation``; v4 is the first flexible version.

Era notes: 2.4 stopped at v2; v3-4 are today's wire.
v0 was removed by Kafka 4.0 (KIP-896); 2.4 through 3.9 accept it, and so does kafkalite.
Left out: nothing.
"""
from kafkalite.protocol.schema import BOOL, INT8, INT16, INT32, STRING, array, field, message, struct


@struct
class DescribeConfigsResource:
    resource_type: int = field(INT8, "0+")        # 2 = topic, 4 = broker, 8 = broker logger
    resource_name: str = field(STRING, "0+")
    configuration_keys: list[str] | None = field(array(STRING), "0+", nullable="0+")  # None = all keys


@message(api_key=32, kind="request", valid="0-4", flexible="4+")
class DescribeConfigsRequest:
    resources: list[DescribeConfigsResource] = field(array(DescribeConfigsResource), "0+")
    include_synonyms: bool = field(BOOL, "1+", default=False)
    include_documentation: bool = field(BOOL, "3+", default=False)


@struct
class DescribeConfigsSynonym:
    name: str = field(STRING, "1+")
    value: str | None = field(STRING, "1+", nullable="0+")
    source: int = field(INT8, "1+")


@struct
class DescribeConfigsResourceResult:
    name: str = field(STRING, "0+")
    value: str | None = field(STRING, "0+", nullable="0+")
    read_only: bool = field(BOOL, "0+")
    is_default: bool = field(BOOL, "0", default=False)   # v0: the value is the default one
    config_source: int = field(INT8, "1+", ignorable=True, default=-1)
    is_sensitive: bool = field(BOOL, "0+")        # if so, ``value`` is None
    synonyms: list[DescribeConfigsSynonym] = field(
        array(DescribeConfigsSynonym), "1+", ignorable=True)
    config_type: int = field(INT8, "3+", ignorable=True, default=0)   # 1 boolean, 2 string, 3 int, ...
    documentation: str | None = field(STRING, "3+", nullable="0+", ignorable=True, default=None)


@struct
class DescribeConfigsResult:
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    resource_type: int = field(INT8, "0+")
    resource_name: str = field(STRING, "0+")
    configs: list[DescribeConfigsResourceResult] = field(
        array(DescribeConfigsResourceResult), "0+")


@message(api_key=32, kind="response", valid="0-4", flexible="4+")
class DescribeConfigsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    results: list[DescribeConfigsResult] = field(array(DescribeConfigsResult), "0+")

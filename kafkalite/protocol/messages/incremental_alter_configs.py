"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/IncrementalAlterConfigsRequest.json
and IncrementalAlterConfigsResponse.json (same directory).

Classes: IncrementalAlterConfigsRequest (AlterConfigsResource, AlterableConfig) and
IncrementalAlterConfigsResponse (AlterConfigsResourceResponse).

KIP-339: change single config entries without resending the rest. Each entry names an
operation: 0 SET, 1 DELETE (back to the default), 2 APPEND and 3 SUBTRACT (for list values).

Version history, in short: v1 is the first flexible version.

Era notes: both versions existed in 2.4.
Left out: nothing inside the range.
"""
from kafkalite.protocol.schema import BOOL, INT8, INT16, INT32, STRING, array, field, message, struct


@struct
class AlterableConfig:
    name: str = field(STRING, "0+")
    config_operation: int = field(INT8, "0+")     # 0 set, 1 delete, 2 append, 3 subtract
    value: str | None = field(STRING, "0+", nullable="0+")


@struct
class AlterConfigsResource:
    resource_type: int = field(INT8, "0+")
    resource_name: str = field(STRING, "0+")
    configs: list[AlterableConfig] = field(array(AlterableConfig), "0+")


@message(api_key=44, kind="request", valid="0-1", flexible="1+")
class IncrementalAlterConfigsRequest:
    resources: list[AlterConfigsResource] = field(array(AlterConfigsResource), "0+")
    validate_only: bool = field(BOOL, "0+", default=False)


@struct
class AlterConfigsResourceResponse:
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    resource_type: int = field(INT8, "0+")
    resource_name: str = field(STRING, "0+")


@message(api_key=44, kind="response", valid="0-1", flexible="1+")
class IncrementalAlterConfigsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    responses: list[AlterConfigsResourceResponse] = field(
        array(AlterConfigsResourceResponse), "0+")

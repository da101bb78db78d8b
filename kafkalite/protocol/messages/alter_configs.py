"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/AlterConfigsRequest.json
and AlterConfigsResponse.json (same directory).

Classes: AlterConfigsRequest (AlterConfigsResource, AlterableConfig) and AlterConfigsResponse
(AlterConfigsResourceResponse).

The old, non-incremental way to change configs: the request carries the *whole* new set of
overrides for each resource, and anything left out is reset to its default. Superseded by
IncrementalAlterConfigs (KIP-339) but still sent by some admin tools.

Version history, in short: v1 is v0 (throttling on quota violation); v2 is the first flexible
version.

Era notes: 2.4 stopped at v1; v2 is today's wire.
Left out: nothing inside the range.
"""
from kafkalite.protocol.schema import BOOL, INT8, INT16, INT32, STRING, array, field, message, struct


@struct
class AlterableConfig:
    name: str = field(STRING, "0+")
    value: str | None = field(STRING, "0+", nullable="0+")


@struct
class AlterConfigsResource:
    resource_type: int = field(INT8, "0+")
    resource_name: str = field(STRING, "0+")
    configs: list[AlterableConfig] = field(array(AlterableConfig), "0+")


@message(api_key=33, kind="request", valid="0-2", flexible="2+")
class AlterConfigsRequest:
    resources: list[AlterConfigsResource] = field(array(AlterConfigsResource), "0+")
    validate_only: bool = field(BOOL, "0+", default=False)   # check, but change nothing


@struct
class AlterConfigsResourceResponse:
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    resource_type: int = field(INT8, "0+")
    resource_name: str = field(STRING, "0+")


@message(api_key=33, kind="response", valid="0-2", flexible="2+")
class AlterConfigsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    responses: list[AlterConfigsResourceResponse] = field(
        array(AlterConfigsResourceResponse), "0+")

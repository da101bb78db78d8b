"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/DescribeClusterRequest.json, DescribeClusterResponse.json

Classes: DescribeClusterRequest, DescribeClusterResponse, DescribeClusterBroker.

Versions: flexible from v0; v1 adds endpoint_type (1 = brokers, 2 = controllers, KIP-919).

Era notes: DescribeCluster (KIP-700) arrived in Kafka 2.8, v1 in Kafka 3.7 (KIP-919); v2 (Kafka 4.0, KIP-1073:
include_fenced_brokers / is_fenced) is not advertised -- kafkalite has no fenced brokers; the Java admin client uses it
instead of Metadata for ``describeCluster()`` once a broker advertises it.
Left out: nothing.
"""
from __future__ import annotations

from kafkalite.protocol.schema import BOOL, INT8, INT16, INT32, STRING, array, field, message, struct

INT32_MIN = -2147483648  # "authorized operations not requested"
BROKER_ENDPOINT_TYPE, CONTROLLER_ENDPOINT_TYPE = 1, 2   # Kafka 3.7: EndpointType (KIP-919)


@message(api_key=60, kind="request", valid="0-1", flexible="0+")
class DescribeClusterRequest:
    include_cluster_authorized_operations: bool = field(BOOL, "0+")
    endpoint_type: int = field(INT8, "1+", default=1)


@struct
class DescribeClusterBroker:
    broker_id: int = field(INT32, "0+")
    host: str = field(STRING, "0+")
    port: int = field(INT32, "0+")
    rack: str | None = field(STRING, "0+", nullable="0+")


@message(api_key=60, kind="response", valid="0-1", flexible="0+")
class DescribeClusterResponse:
    throttle_time_ms: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+")
    endpoint_type: int = field(INT8, "1+", default=1)
    cluster_id: str = field(STRING, "0+")
    controller_id: int = field(INT32, "0+", default=-1)
    brokers: list[DescribeClusterBroker] = field(array(DescribeClusterBroker), "0+")
    cluster_authorized_operations: int = field(INT32, "0+", default=INT32_MIN)

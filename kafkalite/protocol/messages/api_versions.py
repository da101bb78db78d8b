"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/ApiVersionsRequest.json, ApiVersionsResponse.json

Classes: ApiVersionsRequest, ApiVersionsResponse, ApiVersion, SupportedFeatureKey, FinalizedFeatureKey.

Versions: 0-2 have an empty request; v3 is the first flexible version and lets the client say
who it is (client_software_name/version); v4 only changes the meaning of feature min versions.
The response gains throttle_time_ms in v1; v3+ may carry feature information as tagged fields.
Whatever version was asked, the response header is always v0 (KIP-511, see ``ApiKeys``).

Era notes: v3-v4 and the feature tags are newer than 2.4 (KIP-511 arrived in 2.4, features in 2.7).
Left out: nothing; kafkalite just never fills the feature tags.
"""
from __future__ import annotations

from kafkalite.protocol.schema import BOOL, INT16, INT32, INT64, STRING, array, field, message, struct


@message(api_key=18, kind="request", valid="0-4", flexible="3+")
class ApiVersionsRequest:
    client_software_name: str = field(STRING, "3+", ignorable=True)  # e.g. "apache-kafka-java"
    client_software_version: str = field(STRING, "3+", ignorable=True)


@struct
class ApiVersion:
    api_key: int = field(INT16, "0+")
    min_version: int = field(INT16, "0+")  # inclusive
    max_version: int = field(INT16, "0+")  # inclusive


@struct
class SupportedFeatureKey:
    name: str = field(STRING, "3+")
    min_version: int = field(INT16, "3+")
    max_version: int = field(INT16, "3+")


@struct
class FinalizedFeatureKey:
    name: str = field(STRING, "3+")
    max_version_level: int = field(INT16, "3+")
    min_version_level: int = field(INT16, "3+")


@message(api_key=18, kind="response", valid="0-4", flexible="3+")
class ApiVersionsResponse:
    error_code: int = field(INT16, "0+")
    api_keys: list[ApiVersion] = field(array(ApiVersion), "0+")  # every API this broker serves
    throttle_time_ms: int = field(INT32, "1+", ignorable=True)
    # Tagged, flexible versions only: the feature flags of KIP-584.
    supported_features: list[SupportedFeatureKey] = field(
        array(SupportedFeatureKey), "3+", tag=0, tagged="3+", ignorable=True)
    finalized_features_epoch: int = field(INT64, "3+", tag=1, tagged="3+", ignorable=True, default=-1)
    finalized_features: list[FinalizedFeatureKey] = field(
        array(FinalizedFeatureKey), "3+", tag=2, tagged="3+", ignorable=True)
    zk_migration_ready: bool = field(BOOL, "3+", tag=3, tagged="3+", ignorable=True)

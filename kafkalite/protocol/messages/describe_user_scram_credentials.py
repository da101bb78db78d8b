"""Mirrors Kafka 2.7: clients/src/main/resources/common/message/DescribeUserScramCredentialsRequest.json
and DescribeUserScramCredentialsResponse.json (same directory). Not in 2.4: KIP-554 added it in 2.7.

Classes: DescribeUserScramCredentialsRequest (UserName), DescribeUserScramCredentialsResponse
(DescribeUserScramCredentialsResult, CredentialInfo).

An admin client asks which SCRAM mechanisms each user has credentials for, and with how many
iterations; the salts and keys never leave the broker. A null or empty user list means every user.
Mechanism numbers are the admin API's ScramMechanism: 1 = SCRAM-SHA-256, 2 = SCRAM-SHA-512.

Versions: v0 only, flexible.
"""
from __future__ import annotations

from kafkalite.protocol.schema import INT8, INT16, INT32, STRING, array, field, message, struct


@struct
class UserName:
    name: str = field(STRING, "0+")


@message(api_key=50, kind="request", valid="0", flexible="0+")
class DescribeUserScramCredentialsRequest:
    users: list[UserName] | None = field(array(UserName), "0+", nullable="0+", default=None)


@struct
class CredentialInfo:
    mechanism: int = field(INT8, "0+")
    iterations: int = field(INT32, "0+")


@struct
class DescribeUserScramCredentialsResult:
    user: str = field(STRING, "0+")
    error_code: int = field(INT16, "0+", default=0)
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    credential_infos: list[CredentialInfo] = field(array(CredentialInfo), "0+", default=[])


@message(api_key=50, kind="response", valid="0", flexible="0+")
class DescribeUserScramCredentialsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    error_code: int = field(INT16, "0+", default=0)
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    results: list[DescribeUserScramCredentialsResult] = field(array(DescribeUserScramCredentialsResult), "0+",
                                                              default=[])

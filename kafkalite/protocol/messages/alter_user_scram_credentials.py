"""Mirrors Kafka 2.7: clients/src/main/resources/common/message/AlterUserScramCredentialsRequest.json and
AlterUserScramCredentialsResponse.json (same directory). Not in 2.4: KIP-554 added it in 2.7 (2.4 wrote
credentials to ZooKeeper from ``kafka-configs --zookeeper`` only).

Classes: AlterUserScramCredentialsRequest (ScramCredentialDeletion, ScramCredentialUpsertion),
AlterUserScramCredentialsResponse (AlterUserScramCredentialsResult).

Upsertions carry what the client derived itself -- a random salt and the salted password (PBKDF2 of the
password) with the iteration count -- so the password never crosses the wire; the broker derives the
stored and server keys from the salted password. One result per user named in the request.

Versions: v0 only, flexible.
"""
from __future__ import annotations

from kafkalite.protocol.schema import BYTES, INT8, INT16, INT32, STRING, array, field, message, struct


@struct
class ScramCredentialDeletion:
    name: str = field(STRING, "0+")
    mechanism: int = field(INT8, "0+")


@struct
class ScramCredentialUpsertion:
    name: str = field(STRING, "0+")
    mechanism: int = field(INT8, "0+")
    iterations: int = field(INT32, "0+")
    salt: bytes = field(BYTES, "0+")
    salted_password: bytes = field(BYTES, "0+")


@message(api_key=51, kind="request", valid="0", flexible="0+")
class AlterUserScramCredentialsRequest:
    deletions: list[ScramCredentialDeletion] = field(array(ScramCredentialDeletion), "0+", default=[])
    upsertions: list[ScramCredentialUpsertion] = field(array(ScramCredentialUpsertion), "0+", default=[])


@struct
class AlterUserScramCredentialsResult:
    user: str = field(STRING, "0+")
    error_code: int = field(INT16, "0+", default=0)
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)


@message(api_key=51, kind="response", valid="0", flexible="0+")
class AlterUserScramCredentialsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    results: list[AlterUserScramCredentialsResult] = field(array(AlterUserScramCredentialsResult), "0+",
                                                           default=[])

"""Mirrors Kafka 2.7: core/src/main/scala/kafka/server/AdminManager.scala (describeUserScramCredentials,
alterUserScramCredentials; KIP-554), with clients/.../common/utils/Sanitizer.java

Classes: UserScramCredentialsManager; functions sanitize, desanitize.

The broker's half of DescribeUserScramCredentials and AlterUserScramCredentials. Credentials live where
Kafka 2.4's ``kafka-configs --zookeeper --entity-type users`` put them: one entry per mechanism in the user's
entity config ``/config/users/<sanitized user>``. An alteration rewrites that config and writes a
``/config/changes`` notification, so every broker's UserConfigHandler refreshes its CredentialCache (this
broker's too: the cache is only ever updated from ZooKeeper).
Rules, as 2.7's: empty user names, unknown mechanisms (UNSUPPORTED_SASL_MECHANISM) and iterations outside
4096..16384 (UNACCEPTABLE_CREDENTIAL) fail that user; the same user and mechanism twice in one request is
DUPLICATE_RESOURCE; deleting a credential that is not there is RESOURCE_NOT_FOUND. A user either has all
its changes applied or none.
Era notes: 2.4 had no such APIs (its kafka-configs wrote ZooKeeper directly); AdminManager was renamed
ZkAdminManager in 2.8. This lives beside admin_manager.py rather than in it, to keep that module small.
"""
from __future__ import annotations

import urllib.parse
from typing import TYPE_CHECKING

from kafkalite.protocol.errors import Errors
from kafkalite.security.authenticator.scram_credential import credential_from_string, credential_to_string
from kafkalite.security.authenticator.scram_mechanism import ScramMechanism
from kafkalite.utils.logging import Logging
from kafkalite.zk.zk_data import ConfigType

if TYPE_CHECKING:   # the message modules are loaded by the first request that needs them
    from kafkalite.protocol.messages.alter_user_scram_credentials import (AlterUserScramCredentialsResponse,
                                                                          AlterUserScramCredentialsResult)
    from kafkalite.protocol.messages.describe_user_scram_credentials import (CredentialInfo,
                                                                             DescribeUserScramCredentialsResponse)

MAX_ITERATIONS = 16384
USERNAME_MUST_NOT_BE_EMPTY = "Username must not be empty"


# Kafka: Sanitizer.sanitize -- a user name as a znode name (URL-encoded, "*" too)
def sanitize(name: str) -> str:
    return urllib.parse.quote(name, safe="").replace("*", "%2A")


# Kafka: Sanitizer.desanitize
def desanitize(name: str) -> str:
    return urllib.parse.unquote(name)


class UserScramCredentialsManager(Logging):
    """Kafka 2.7: AdminManager's SCRAM half."""

    def __init__(self, zk_client):
        self.zk_client = zk_client

    def _user_config(self, user: str) -> dict:
        return dict(self.zk_client.get_entity_configs(ConfigType.USER, sanitize(user)))

    @staticmethod
    def _credential_infos(config: dict) -> list[CredentialInfo]:
        from kafkalite.protocol.messages.describe_user_scram_credentials import CredentialInfo
        return [CredentialInfo(mechanism=m.type, iterations=credential_from_string(config[m.mechanism_name]).iterations)
                for m in ScramMechanism if m.mechanism_name in config]

    # Kafka 2.7: AdminManager.describeUserScramCredentials
    def describe_user_scram_credentials(self, users: list[str] | None) -> DescribeUserScramCredentialsResponse:
        from kafkalite.protocol.messages.describe_user_scram_credentials import (
            DescribeUserScramCredentialsResponse, DescribeUserScramCredentialsResult)
        response = DescribeUserScramCredentialsResponse(results=[])
        try:
            if not users:
                for sanitized in self.zk_client.get_all_entities_with_config(ConfigType.USER):
                    user = desanitize(sanitized)
                    infos = self._credential_infos(self._user_config(user))
                    if infos:
                        response.results.append(DescribeUserScramCredentialsResult(user=user, credential_infos=infos))
                response.results.sort(key=lambda r: r.user)
                return response
            for user in dict.fromkeys(users):
                result = DescribeUserScramCredentialsResult(user=user, credential_infos=[])
                if not user:
                    result.error_code, result.error_message = Errors.RESOURCE_NOT_FOUND.code, USERNAME_MUST_NOT_BE_EMPTY
                elif users.count(user) > 1:
                    result.error_code = Errors.DUPLICATE_RESOURCE.code
                    result.error_message = ("Cannot describe SCRAM credentials for the same user twice in a single "
                                            f"request: {user}")
                else:
                    infos = self._credential_infos(self._user_config(user))
                    if infos:
                        result.credential_infos = infos
                    else:
                        result.error_code = Errors.RESOURCE_NOT_FOUND.code
                        result.error_message = f"Attempt to describe a user credential that does not exist: {user}"
                response.results.append(result)
        except Exception as e:   # noqa: BLE001 -- ZooKeeper trouble: the message-level error
            self.error(f"Error processing describe user SCRAM credential configs request: {e}")
            response.results = []
            response.error_code = Errors.for_exception(e).code
            response.error_message = str(e)
        return response

    # Kafka 2.7: AdminManager.alterUserScramCredentials
    def alter_user_scram_credentials(self, upsertions, deletions) -> AlterUserScramCredentialsResponse:
        from kafkalite.protocol.messages.alter_user_scram_credentials import (AlterUserScramCredentialsResponse,
                                                                              AlterUserScramCredentialsResult)
        # loaded here, not at start-up (hashlib, hmac, secrets; issue 18)
        from kafkalite.security.authenticator.scram_formatter import ScramFormatter
        results: dict[str, AlterUserScramCredentialsResult] = {}

        def fail(user: str, error: Errors, message: str) -> None:
            results.setdefault(user, AlterUserScramCredentialsResult(user=user, error_code=error.code,
                                                                     error_message=message))

        for op in list(deletions) + list(upsertions):
            mechanism = ScramMechanism.from_type(op.mechanism)
            if not op.name:
                fail(op.name, Errors.UNACCEPTABLE_CREDENTIAL, USERNAME_MUST_NOT_BE_EMPTY)
            elif mechanism is None:
                fail(op.name, Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")
            elif hasattr(op, "iterations") and not mechanism.min_iterations <= op.iterations <= MAX_ITERATIONS:
                fail(op.name, Errors.UNACCEPTABLE_CREDENTIAL,
                     "Too many iterations" if op.iterations > MAX_ITERATIONS else "Too few iterations")
        pairs: dict[tuple[str, int], int] = {}
        for op in list(deletions) + list(upsertions):
            if op.name not in results:
                pairs[(op.name, op.mechanism)] = pairs.get((op.name, op.mechanism), 0) + 1
        for (user, _mechanism), count in pairs.items():
            if count > 1:
                fail(user, Errors.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request")
        users = list(dict.fromkeys(user for user, _ in pairs if user not in results))
        for user in users:
            try:
                config = self._user_config(user)
                user_deletions = [d for d in deletions if d.name == user]
                if any(ScramMechanism.from_type(d.mechanism).mechanism_name not in config for d in user_deletions):
                    fail(user, Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist")
                    continue
                for d in user_deletions:
                    config.pop(ScramMechanism.from_type(d.mechanism).mechanism_name, None)
                for u in (u for u in upsertions if u.name == user):
                    mechanism = ScramMechanism.from_type(u.mechanism)
                    credential = ScramFormatter(mechanism).credential_from_salted_password(
                        bytes(u.salt), bytes(u.salted_password), u.iterations)
                    config[mechanism.mechanism_name] = credential_to_string(credential)
                self.change_user_config(user, config)
                results[user] = AlterUserScramCredentialsResult(user=user, error_code=0)
            except Exception as e:   # noqa: BLE001
                self.info(f"Error encountered while altering user SCRAM credentials: {e}")
                fail(user, Errors.for_exception(e), str(e))
        return AlterUserScramCredentialsResponse(results=list(results.values()))

    # Kafka: AdminZkClient.changeConfigs(ConfigType.User, ...) -- write the config, then notify every broker
    def change_user_config(self, user: str, config: dict) -> None:
        sanitized = sanitize(user)
        self.zk_client.set_or_create_entity_configs(ConfigType.USER, sanitized, config)
        self.zk_client.create_config_change_notification(f"{ConfigType.USER}/{sanitized}")

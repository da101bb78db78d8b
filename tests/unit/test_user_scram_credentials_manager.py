"""Mirrors Kafka 2.7's AlterUserScramCredentialsRequestTest and DescribeUserScramCredentialsRequestTest
(core/src/test/scala/unit/kafka/server/): the validation rules, the ZooKeeper form and the change notification,
against an in-memory stand-in for KafkaZkClient's entity-config calls."""
from __future__ import annotations

from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.alter_user_scram_credentials import ScramCredentialDeletion, ScramCredentialUpsertion
from kafkalite.security.authenticator.credential_cache import CredentialProvider
from kafkalite.security.authenticator.scram_formatter import ScramFormatter
from kafkalite.security.authenticator.scram_mechanism import ScramMechanism
from kafkalite.security.authenticator.scram_sasl_client import ScramSaslClient
from kafkalite.security.authenticator.scram_sasl_server import ScramSaslServer, ScramServerCallbackHandler
from kafkalite.server.dynamic_config_manager import UserConfigHandler
from kafkalite.server.user_scram_credentials_manager import UserScramCredentialsManager, desanitize, sanitize

SHA256, SHA512 = ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512


class FakeZk:
    def __init__(self):
        self.configs: dict[tuple[str, str], dict] = {}
        self.notifications: list[str] = []

    def get_entity_configs(self, entity_type, name):
        return dict(self.configs.get((entity_type, name), {}))

    def set_or_create_entity_configs(self, entity_type, name, config):
        self.configs[(entity_type, name)] = dict(config)

    def create_config_change_notification(self, path):
        self.notifications.append(path)

    def get_all_entities_with_config(self, entity_type):
        return sorted(n for t, n in self.configs if t == entity_type)


def upsert(user, mechanism=SHA256, password="pw", iterations=4096):
    formatter = ScramFormatter(mechanism)
    salt = formatter.secure_random_bytes()
    return ScramCredentialUpsertion(name=user, mechanism=mechanism.type, iterations=iterations, salt=salt,
                                    salted_password=formatter.salted_password(password, salt, iterations))


def results(response):
    return {r.user: (Errors.for_code(r.error_code).name, r.error_message) for r in response.results}


def test_an_upsertion_is_stored_notified_and_authenticates():
    zk = FakeZk()
    manager = UserScramCredentialsManager(zk)
    assert results(manager.alter_user_scram_credentials([upsert("al ice", SHA512, "secret", 8192)], [])) == \
        {"al ice": ("NONE", None)}
    assert zk.notifications == ["users/al%20ice"] and desanitize(sanitize("a*b c")) == "a*b c"
    stored = zk.configs[("users", "al%20ice")]["SCRAM-SHA-512"]
    assert stored.startswith("salt=") and "iterations=8192" in stored and "secret" not in stored
    # what a broker does with the notification: the user can now log in
    provider = CredentialProvider()
    UserConfigHandler(None, provider).process_config_changes("al%20ice", zk.get_entity_configs("users", "al%20ice"))
    server = ScramSaslServer(SHA512, ScramServerCallbackHandler(provider.credential_cache, "SCRAM-SHA-512"))
    client = ScramSaslClient(SHA512, "al ice", "secret")
    token = client.evaluate_challenge(b"")
    while not client.is_complete():
        token = client.evaluate_challenge(server.evaluate_response(token))
    assert server.get_authorization_id() == "al ice"
    described = manager.describe_user_scram_credentials(None)
    assert [(r.user, [(c.mechanism, c.iterations) for c in r.credential_infos]) for r in described.results] == \
        [("al ice", [(2, 8192)])]


def test_validation_rules_of_kip_554():
    zk = FakeZk()
    manager = UserScramCredentialsManager(zk)
    bad_mechanism = ScramCredentialUpsertion(name="u1", mechanism=0, iterations=4096, salt=b"s", salted_password=b"p")
    response = manager.alter_user_scram_credentials(
        [upsert("", SHA256), bad_mechanism, upsert("u2", iterations=100), upsert("u3", iterations=20000),
         upsert("u4"), upsert("u4"), upsert("ok")],
        [ScramCredentialDeletion(name="gone", mechanism=SHA256.type)])
    assert results(response) == {
        "": ("UNACCEPTABLE_CREDENTIAL", "Username must not be empty"),
        "u1": ("UNSUPPORTED_SASL_MECHANISM", "Unknown SCRAM mechanism"),
        "u2": ("UNACCEPTABLE_CREDENTIAL", "Too few iterations"),
        "u3": ("UNACCEPTABLE_CREDENTIAL", "Too many iterations"),
        "u4": ("DUPLICATE_RESOURCE", "A user credential cannot be altered twice in the same request"),
        "gone": ("RESOURCE_NOT_FOUND", "Attempt to delete a user credential that does not exist"),
        "ok": ("NONE", None),
    }
    assert list(zk.configs) == [("users", "ok")]   # nothing written for a refused user


def test_deletion_and_describe_of_named_users():
    zk = FakeZk()
    manager = UserScramCredentialsManager(zk)
    manager.alter_user_scram_credentials([upsert("a", SHA256), upsert("a", SHA512)], [])
    manager.alter_user_scram_credentials([], [ScramCredentialDeletion(name="a", mechanism=SHA512.type)])
    assert list(zk.configs[("users", "a")]) == ["SCRAM-SHA-256"]
    response = manager.describe_user_scram_credentials(["a", "nobody", "a"])
    assert results(response) == {
        "a": ("DUPLICATE_RESOURCE", "Cannot describe SCRAM credentials for the same user twice in a single request: a"),
        "nobody": ("RESOURCE_NOT_FOUND", "Attempt to describe a user credential that does not exist: nobody"),
    }
    assert results(manager.describe_user_scram_credentials(["a"])) == {"a": ("NONE", None)}

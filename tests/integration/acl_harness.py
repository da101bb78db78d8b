"""No Kafka counterpart (Kafka's AuthorizerIntegrationTest does the same with its own harness): a broker with
the AclAuthorizer, an operator who grants ACLs, and connections that authenticate as a principal.

``AclBroker`` is an in-process KafkaServer with ``authorizer.class.name`` set. Before it starts, the operator
writes the ACLs the cluster itself needs into its (embedded) ZooKeeper -- ClusterAction for the principal its
own controller and replica fetchers connect as -- just as an operator runs ``kafka-acls --authorizer-properties
zookeeper.connect=...`` before starting a secured Kafka cluster. During a test the operator grants and revokes
through the broker's own AclAuthorizer (``grant``, ``revoke``), whose cache is updated before the call returns.

``client_for(principal)`` opens a raw connection authenticated as ``principal``. On a PLAINTEXT listener every
connection is ``User:ANONYMOUS``. With ``security="SSL"`` the broker also has an SSL listener with mutual TLS
(certificates from ``kafkalite.tools.gen_certs``), which is its inter-broker listener: the broker is
``User:CN=localhost,OU=brokers,O=kafkalite-test`` and holds ClusterAction, ``User:ANONYMOUS`` holds nothing, and
``client_for(ssl_principal("alice"))`` connects with alice's client certificate. With ``sasl=True`` the broker
also has a SASL_PLAINTEXT listener with PLAIN: ``client_for(SASL_ALICE)`` authenticates as ``User:alice``
(SaslHandshake v1 + SaslAuthenticate).
"""
from __future__ import annotations

from pathlib import Path

from clients import raw_request
from harness import InProcessBroker, RawConnection
from support import wait_until

from kafkalite.common.acl.access_control_entry import AccessControlEntry, AccessControlEntryFilter
from kafkalite.common.acl.acl_binding import AclBinding, AclBindingFilter
from kafkalite.common.acl.acl_operation import AclOperation
from kafkalite.common.acl.acl_permission_type import AclPermissionType
from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_pattern import CLUSTER_NAME, ResourcePattern, ResourcePatternFilter
from kafkalite.common.resource.resource_type import ResourceType
from kafkalite.common.topic_partition import TopicPartition

AUTHORIZER = "kafka.security.authorizer.AclAuthorizer"
ANONYMOUS = "User:ANONYMOUS"
SSL_CLIENTS = ("alice", "bob")
BROKER_SSL_PRINCIPAL = "User:CN=localhost,OU=brokers,O=kafkalite-test"
SASL_ALICE = "User:alice"
SASL_USERS = {"alice": "alice-secret", "bob": "bob-secret"}
PLAIN_JAAS = ("org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" "
              "password=\"alice-secret\" " + " ".join(f'user_{u}="{p}"' for u, p in SASL_USERS.items()) + ";")


def ssl_principal(name: str) -> str:
    """The principal DefaultKafkaPrincipalBuilder makes of a gen_certs client certificate."""
    return f"User:CN={name},OU=clients,O=kafkalite-test"


def make_certs(directory: Path) -> Path:
    from kafkalite.tools import gen_certs
    gen_certs.generate(str(directory), clients=SSL_CLIENTS)
    return directory


def ssl_broker_props(certs: Path) -> dict:
    from kafkalite.tools import gen_certs
    return {"listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0", "inter.broker.listener.name": "SSL",
            "ssl.keystore.location": str(certs / "broker.p12"), "ssl.keystore.type": "PKCS12",
            "ssl.keystore.password": gen_certs.DEFAULT_PASSWORD, "ssl.truststore.location": str(certs / "ca.crt"),
            "ssl.truststore.type": "PEM", "ssl.client.auth": "required"}


def binding(principal: str, resource_type: ResourceType, name: str, operation: AclOperation,
            pattern: PatternType = PatternType.LITERAL, permission: AclPermissionType = AclPermissionType.ALLOW,
            host: str = "*") -> AclBinding:
    return AclBinding(ResourcePattern(resource_type, name, pattern),
                      AccessControlEntry(principal, host, operation, permission))


def cluster_action(principal: str) -> AclBinding:
    return binding(principal, ResourceType.CLUSTER, CLUSTER_NAME, AclOperation.CLUSTER_ACTION)


def write_acls_before_start(log_dir: Path, bindings: list[AclBinding]) -> None:
    """The operator's ACLs, written to the broker's embedded ZooKeeper before the broker opens it."""
    from kafkalite.security.authorizer.acl_authorizer import AclAuthorizer
    from kafkalite.zk.kafka_zk_client import KafkaZkClient
    log_dir.mkdir(parents=True, exist_ok=True)
    zk = KafkaZkClient.create("embedded", data_dir=str(log_dir))
    operator = AclAuthorizer()
    try:
        operator.configure({}, zk)
        results = operator.create_acls(None, bindings)
        assert all(r.exception is None for r in results), results
    finally:
        operator.close()
        zk.close()


class AclBroker:
    """An in-process broker with the AclAuthorizer, and the operator's hands on its ACLs."""

    def __init__(self, tmp_path: Path, props: dict | None = None, broker_principal: str = ANONYMOUS,
                 initial_acls: list[AclBinding] | None = None, certs: Path | None = None, sasl: bool = False):
        self.log_dir = tmp_path / "acl-logs"
        self.certs = certs
        self.sasl = sasl
        if sasl:   # clients may also authenticate with SASL PLAIN (the brokers keep PLAINTEXT among themselves)
            props = {"listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                     "sasl.enabled.mechanisms": "PLAIN",
                     "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS, **(props or {})}
        if certs is not None:   # SSL: the brokers talk over mutual TLS as the broker certificate's principal
            props = {**ssl_broker_props(certs), **(props or {})}
            broker_principal = BROKER_SSL_PRINCIPAL
        write_acls_before_start(self.log_dir, [cluster_action(broker_principal), *(initial_acls or [])])
        self.broker = InProcessBroker(self.log_dir, {"authorizer.class.name": AUTHORIZER,
                                                     "offsets.topic.num.partitions": "1",
                                                     "transaction.state.log.num.partitions": "1",
                                                     "group.initial.rebalance.delay.ms": "0", **(props or {})})
        self.server = self.broker.server
        self.connections: list[RawConnection] = []

    def start(self) -> "AclBroker":
        self.broker.start()
        return self

    def stop(self) -> None:
        for c in self.connections:
            c.close()
        self.broker.stop()

    @property
    def port(self) -> int:
        return self.broker.port

    @property
    def authorizer(self):
        return self.server.authorizer

    # ------------------------------------------------------------------ the operator
    def grant(self, *bindings: AclBinding) -> None:
        results = self.authorizer.create_acls(None, list(bindings))
        assert all(r.exception is None for r in results), results

    def revoke(self, *bindings: AclBinding) -> None:
        self.authorizer.delete_acls(None, [b.to_filter() for b in bindings])

    def revoke_all_of(self, principal: str, keep: tuple = ()) -> None:
        found = self.authorizer.acls(AclBindingFilter(ResourcePatternFilter.ANY, AccessControlEntryFilter(
            principal, None, AclOperation.ANY, AclPermissionType.ANY)))
        gone = [b for b in found if b not in keep]
        if gone:
            self.revoke(*gone)

    def create_topic(self, name: str, partitions: int = 1) -> str:
        """As the operator (kafka-topics --zookeeper): straight into ZooKeeper, then wait for the leaders."""
        if not self.topic_exists(name):
            self.server.admin_manager.admin_zk_client.create_topic(name, partitions, 1)
        wait_until(lambda: all((self.server.metadata_cache.get_partition_info(name, p) or None) is not None
                               for p in range(partitions)) and
                   self.server.replica_manager.local_log(TopicPartition(name, 0)) is not None,
                   20, f"topic {name} to have a leader")
        return name

    # ------------------------------------------------------------------ what changed (or not)
    def topic_exists(self, name: str) -> bool:
        return self.server.zk_client.topic_exists(name)

    def partition_count(self, name: str) -> int:
        return len(self.server.zk_client.get_partition_assignment_for_topic(name))

    def log_end_offset(self, topic: str, partition: int = 0) -> int:
        return self.server.replica_manager.local_log(TopicPartition(topic, partition)).log_end_offset

    def log_start_offset(self, topic: str, partition: int = 0) -> int:
        return self.server.replica_manager.local_log(TopicPartition(topic, partition)).log_start_offset

    def committed(self, group: str, topic: str, partition: int = 0) -> int:
        tp = TopicPartition(topic, partition)
        error, data = self.server.group_coordinator.handle_fetch_offsets(group, [tp])
        return data[tp].offset if tp in data else -1

    def topic_config(self, topic: str) -> dict:
        return self.server.zk_client.get_entity_configs("topics", topic)

    def group_state(self, group: str) -> str:
        return self.server.group_coordinator.handle_describe_group(group)[1].state

    # ------------------------------------------------------------------ clients
    def client_for(self, principal: str) -> "AuthenticatedConnection":
        if principal == ANONYMOUS:
            conn = AuthenticatedConnection(self.port, principal)
        elif self.sasl and principal.startswith("User:") and principal[5:] in SASL_USERS:
            conn = AuthenticatedConnection(self.server.bound_port("SASL_PLAINTEXT"), principal)
            conn.sasl_plain(principal[5:], SASL_USERS[principal[5:]])
        else:
            name = next((n for n in SSL_CLIENTS if ssl_principal(n) == principal), None)
            if self.certs is None or name is None:
                raise NotImplementedError(f"{principal}: no listener of this broker authenticates it")
            conn = AuthenticatedConnection(self.server.bound_port("SSL"), principal,
                                           ssl_context=client_ssl_context(self.certs, name))
        self.connections.append(conn)
        return conn


def client_ssl_context(certs: Path, name: str):
    import ssl
    context = ssl.create_default_context(cafile=str(certs / "ca.crt"))
    context.load_cert_chain(str(certs / f"{name}.crt"), str(certs / f"{name}.key"))
    return context


class AuthenticatedConnection(RawConnection):
    """A raw connection that knows which principal it authenticated as."""

    def __init__(self, port: int, principal: str, ssl_context=None):
        super().__init__(port)
        if ssl_context is not None:
            self.sock = ssl_context.wrap_socket(self.sock, server_hostname="localhost")
        self.principal = principal
        self._correlation = 0

    def sasl_plain(self, user: str, password: str) -> None:
        """SaslHandshake v1 (PLAIN), then SaslAuthenticate v1 with PLAIN's ``\\0user\\0password``."""
        from kafkalite.protocol.messages import sasl_authenticate, sasl_handshake
        assert self.request(17, 1, sasl_handshake.SaslHandshakeRequest(mechanism="PLAIN")).error_code == 0
        r = self.request(36, 1, sasl_authenticate.SaslAuthenticateRequest(
            auth_bytes=b"\0" + user.encode() + b"\0" + password.encode()))
        assert r.error_code == 0, r.error_message

    def request(self, api_key: int, version: int, body):
        self._correlation += 1
        return raw_request(self, api_key, version, body, correlation_id=self._correlation)

"""Issue 6, "Done when" 3 (S24): connection quotas change while the broker runs.

The limit is N connections per IP; the (N+1)th from one address is refused (the Acceptor closes it at
once). IncrementalAlterConfigs on the BROKER resource -- sent by confluent-kafka's AdminClient, as
``kafka-configs --entity-type brokers --alter`` would -- raises it, and the next connection gets in
without a restart. An override for one IP applies to that IP only. The test connections come from
127.0.0.2 and 127.0.0.3 (loopback addresses), so the admin client's own connection from 127.0.0.1
never counts against them. Also: a topic config change reaches the topic's Log.
"""
import socket

import pytest

from harness import RawConnection, check_alive, wait_until

pytestmark = pytest.mark.timeout(90)


class From(RawConnection):
    def __init__(self, port, source):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
        self.sock.settimeout(10)


@pytest.fixture
def server(tmp_path):
    from kafkalite.server.kafka_config import KafkaConfig
    from kafkalite.server.kafka_server import KafkaServer
    s = KafkaServer(KafkaConfig.from_props({
        "broker.id": 0, "log.dirs": str(tmp_path / "logs"), "listeners": "PLAINTEXT://127.0.0.1:0",
        "max.connections.per.ip": 2, "offsets.topic.replication.factor": 1}))
    s.startup()
    yield s
    s.shutdown()


def admin(server):
    from confluent_kafka.admin import AdminClient
    return AdminClient({"bootstrap.servers": f"127.0.0.1:{server.bound_port()}"})


def alter_broker(server, **configs):
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource
    entries = [ConfigEntry(k.replace("_", "."), v, incremental_operation=AlterConfigOpType.SET) for k, v in configs.items()]
    client = admin(server)   # keep the client alive until its futures are done
    for future in client.incremental_alter_configs([ConfigResource("BROKER", "0", incremental_configs=entries)]).values():
        future.result(15)


def connect_alive(port, source, n, correlation_start=1):
    conns = [From(port, source) for _ in range(n)]
    for i, c in enumerate(conns):
        check_alive(c, correlation_start + i)
    return conns


def refused(port, source):
    with From(port, source) as c:
        return c.closed_by_peer(5)


def test_per_ip_limit_refuses_the_next_connection_and_raising_it_at_runtime_lets_it_in(server):
    port = server.bound_port()
    conns = connect_alive(port, "127.0.0.2", 2)
    assert refused(port, "127.0.0.2")
    alter_broker(server, max_connections_per_ip="3")
    wait_until(lambda: server.socket_server.connection_quotas.default_max_connections_per_ip == 3, 10,
               "the new limit to reach ConnectionQuotas")
    conns += connect_alive(port, "127.0.0.2", 1, 10)   # the third gets in now, same broker process
    assert refused(port, "127.0.0.2")                   # and the fourth does not
    assert server.config.max_connections_per_ip == 3
    stored = server.zk_client.get_entity_configs("brokers", "0")
    assert stored == {"max.connections.per.ip": "3"}
    for c in conns:
        c.close()


def test_an_override_applies_to_that_ip_only(server):
    port = server.bound_port()
    alter_broker(server, max_connections_per_ip_overrides="127.0.0.3:4")
    wait_until(lambda: server.socket_server.connection_quotas.max_connections_per_ip_overrides == {"127.0.0.3": 4},
               10, "the override to reach ConnectionQuotas")
    three = connect_alive(port, "127.0.0.3", 4)
    assert refused(port, "127.0.0.3")
    two = connect_alive(port, "127.0.0.2", 2, 20)
    assert refused(port, "127.0.0.2")   # 127.0.0.2 keeps the default of 2
    for c in three + two:
        c.close()


def test_a_key_that_is_not_dynamic_is_refused_with_invalid_request(server):
    from confluent_kafka import KafkaException
    with pytest.raises(KafkaException, match="INVALID_REQUEST|Cannot update these configs dynamically"):
        alter_broker(server, num_io_threads="4")
    assert server.zk_client.get_entity_configs("brokers", "0") == {}


def test_topic_config_change_reaches_the_log(server):
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic
    a = admin(server)
    a.create_topics([NewTopic("dyn-topic", 1, 1)])["dyn-topic"].result(15)
    wait_until(lambda: server.log_manager.logs_by_topic("dyn-topic"), 10, "the topic's log")
    entry = ConfigEntry("retention.ms", "12345", incremental_operation=AlterConfigOpType.SET)
    for f in a.incremental_alter_configs([ConfigResource("TOPIC", "dyn-topic", incremental_configs=[entry])]).values():
        f.result(15)
    log = server.log_manager.logs_by_topic("dyn-topic")[0]
    wait_until(lambda: server.log_manager.logs_by_topic("dyn-topic")[0].config.retention_ms == 12345, 10,
               "retention.ms on the Log")
    assert log is server.log_manager.logs_by_topic("dyn-topic")[0]   # the same Log, reconfigured in place

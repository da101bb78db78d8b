"""KafkaConfigTest: server.properties as a typed, validated KafkaConfig (S9, S19, S20, DESIGN §8).

Every error is one ConfigException whose text names the key, the value and what is allowed, in the
words of Kafka's ConfigDef (``Invalid value abc for configuration num.io.threads: Not a number of type
INT``), and the cross-field checks of Kafka 2.4's ``validateValues`` reject what Kafka rejects.
"""
from __future__ import annotations

import logging
import os

import pytest

from kafkalite.cluster.broker import EndPoint
from kafkalite.common.config.config_exception import ConfigException
from kafkalite.server.kafka_config import Defaults, KafkaConfig, load_properties

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CP_PROPS = {
    "listeners": "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093",
    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    "control.plane.listener.name": "CONTROLLER",
}


def cfg(props: dict) -> KafkaConfig:
    return KafkaConfig.from_props(props)


# ------------------------------------------------------------------ defaults
def test_defaults_are_kafkas():
    c = cfg({})
    assert c.broker_id == -1
    assert c.num_network_threads == 3 and c.num_io_threads == 8
    assert c.queued_max_requests == 500
    assert c.socket_request_max_bytes == 100 * 1024 * 1024
    assert c.socket_send_buffer_bytes == c.socket_receive_buffer_bytes == 100 * 1024
    assert c.max_connections_per_ip == c.max_connections == 2**31 - 1
    assert c.max_connections_per_ip_overrides == {}
    assert c.connections_max_idle_ms == 600_000
    assert c.message_max_bytes == 1_048_588   # Kafka 3.x (2.4: 1000012), see the README era notes
    assert c.num_partitions == 1 and c.default_replication_factor == 1
    assert c.auto_create_topics_enable is True and c.delete_topic_enable is True
    assert c.log_dirs == ["/tmp/kafka-logs"]
    assert c.log_retention_time_millis == 7 * 24 * 3_600_000
    assert c.log_roll_time_millis == 7 * 24 * 3_600_000
    assert c.listeners == [EndPoint("", 9092, "PLAINTEXT", "PLAINTEXT")]
    assert c.advertised_listeners == c.listeners
    assert c.inter_broker_listener_name == "PLAINTEXT"
    assert c.control_plane_listener_name is None and c.control_plane_listener is None
    assert c.data_plane_listeners == c.listeners
    assert c.get("log.cleanup.policy") == ["delete"]
    assert c.get("log.message.timestamp.type") == "CreateTime"
    assert c.get("replica.fetch.max.bytes") == 1024 * 1024
    assert c.get("replica.fetch.response.max.bytes") == 10 * 1024 * 1024
    assert c.get("num.replica.fetchers") == 1
    assert c.get("group.initial.rebalance.delay.ms") == 3000
    assert Defaults.QueuedMaxRequests == 500 and Defaults.NumIoThreads == 8


def test_values_are_typed_and_trimmed():
    c = cfg({"num.io.threads": " 4 ", "auto.create.topics.enable": "FALSE", "log.retention.bytes": "9000000000",
             "log.cleanup.policy": "compact, delete", "broker.id": "7"})
    assert c.num_io_threads == 4 and c.broker_id == 7
    assert c.auto_create_topics_enable is False
    assert c.get("log.retention.bytes") == 9_000_000_000
    assert c.get("log.cleanup.policy") == ["compact", "delete"]


# ------------------------------------------------------------------ type errors and validators
@pytest.mark.parametrize("key,value,message", [
    ("num.io.threads", "abc", "Invalid value abc for configuration num.io.threads: Not a number of type INT"),
    ("num.io.threads", "1_0", "Invalid value 1_0 for configuration num.io.threads: Not a number of type INT"),
    ("num.network.threads", "1.5", "Invalid value 1.5 for configuration num.network.threads: Not a number of type INT"),
    ("num.network.threads", "3000000000",
     "Invalid value 3000000000 for configuration num.network.threads: Not a number of type INT"),
    ("log.retention.ms", "soon", "Invalid value soon for configuration log.retention.ms: Not a number of type LONG"),
    ("log.retention.bytes", "99999999999999999999",
     "Invalid value 99999999999999999999 for configuration log.retention.bytes: Not a number of type LONG"),
    ("auto.create.topics.enable", "yes",
     "Invalid value yes for configuration auto.create.topics.enable: Expected value to be either true or false"),
    ("num.io.threads", "0", "Invalid value 0 for configuration num.io.threads: Value must be at least 1"),
    ("queued.max.requests", "-3", "Invalid value -3 for configuration queued.max.requests: Value must be at least 1"),
    ("max.connections.per.ip", "-1", "Invalid value -1 for configuration max.connections.per.ip: Value must be at least 0"),
    ("fetch.max.bytes", "1023", "Invalid value 1023 for configuration fetch.max.bytes: Value must be at least 1024"),
    ("kafkalite.metrics.port", "70000",
     "Invalid value 70000 for configuration kafkalite.metrics.port: Value must be no more than 65535"),
    ("log.message.timestamp.type", "WallClock",
     "Invalid value WallClock for configuration log.message.timestamp.type: String must be one of: CreateTime, LogAppendTime"),
])
def test_bad_values_in_kafkas_words(key, value, message):
    with pytest.raises(ConfigException) as e:
        cfg({key: value})
    assert str(e.value) == message
    assert e.value.name == key and "\n" not in str(e.value)


def test_bad_list_element_is_named_as_kafka_does():
    with pytest.raises(ConfigException) as e:
        cfg({"log.cleanup.policy": "compact,bogus"})
    assert str(e.value) == ("Invalid value bogus for configuration log.cleanup.policy: "
                            "String must be one of: compact, delete")


@pytest.mark.parametrize("props,key", [
    ({"broker.id": "-2"}, "broker.id"),
    ({"group.min.session.timeout.ms": "10000", "group.max.session.timeout.ms": "5000"}, "group.max.session.timeout.ms"),
    ({"max.connections.per.ip.overrides": "127.0.0.1:many"}, "max.connections.per.ip.overrides"),
    ({"max.connections.per.ip.overrides": "127.0.0.1"}, "max.connections.per.ip.overrides"),
    ({"compression.type": "brotli"}, "compression.type"),
])
def test_cross_field_and_parse_errors_name_the_key(props, key):
    with pytest.raises(ConfigException) as e:
        cfg(props)
    assert key in str(e.value) and "\n" not in str(e.value)


def test_broker_id_above_reserved_max_is_rejected():
    with pytest.raises(ConfigException):
        cfg({"broker.id": "1001"})


def test_zero_connections_per_ip_needs_overrides():
    with pytest.raises(ConfigException):
        cfg({"max.connections.per.ip": "0"})


def test_connection_overrides_parsed():
    c = cfg({"max.connections.per.ip": "10", "max.connections.per.ip.overrides": "127.0.0.1:2, host.example:50"})
    assert c.max_connections_per_ip == 10
    assert c.max_connections_per_ip_overrides == {"127.0.0.1": 2, "host.example": 50}


def test_unknown_keys_only_warn(caplog):
    with caplog.at_level(logging.WARNING, logger="kafka.server.KafkaConfig"):
        c = cfg({"no.such.key": "1", "num.io.threads": "2"})
    assert c.num_io_threads == 2
    assert "The configuration 'no.such.key' was supplied but isn't a known config." in caplog.text
    assert "num.io.threads" not in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="kafka.server.KafkaConfig"):
        KafkaConfig.from_props({"no.such.key": "1"}, do_log=False)
    assert caplog.text == ""


# ------------------------------------------------------------------ log dirs and retention
def test_log_dirs_wins_over_log_dir():
    assert cfg({"log.dir": "/a"}).log_dirs == ["/a"]
    assert cfg({"log.dir": "/a", "log.dirs": "/b, /c"}).log_dirs == ["/b", "/c"]
    with pytest.raises(ConfigException, match="At least one log directory"):
        cfg({"log.dirs": " , "})


@pytest.mark.parametrize("props,millis", [
    ({}, 168 * 3_600_000),
    ({"log.retention.hours": "2"}, 2 * 3_600_000),
    ({"log.retention.hours": "2", "log.retention.minutes": "30"}, 30 * 60_000),
    ({"log.retention.hours": "2", "log.retention.minutes": "30", "log.retention.ms": "1234"}, 1234),
    ({"log.retention.minutes": "30", "log.retention.ms": "1234"}, 1234),
    ({"log.retention.ms": "-1"}, -1),
])
def test_retention_ms_over_minutes_over_hours(props, millis):
    assert cfg(props).log_retention_time_millis == millis


@pytest.mark.parametrize("props", [{"log.retention.ms": "-5"}, {"log.retention.minutes": "-3"}])
def test_negative_retention_means_unlimited(props):
    assert cfg(props).log_retention_time_millis == -1


def test_zero_retention_is_rejected():
    with pytest.raises(ConfigException):
        cfg({"log.retention.ms": "0"})


def test_roll_ms_over_roll_hours():
    assert cfg({"log.roll.hours": "1"}).log_roll_time_millis == 3_600_000
    assert cfg({"log.roll.hours": "1", "log.roll.ms": "500"}).log_roll_time_millis == 500


# ------------------------------------------------------------------ listeners (S18, S19)
def test_listeners_and_advertised_listeners_parse():
    c = cfg({"listeners": "plaintext://127.0.0.1:9092,INTERNAL://[::1]:9093",
             "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,internal:PLAINTEXT",
             "advertised.listeners": "PLAINTEXT://broker.example:19092"})
    assert c.listeners == [EndPoint("127.0.0.1", 9092, "PLAINTEXT", "PLAINTEXT"),
                           EndPoint("::1", 9093, "INTERNAL", "PLAINTEXT")]
    assert [ep.connection_string() for ep in c.listeners] == ["PLAINTEXT://127.0.0.1:9092", "INTERNAL://[::1]:9093"]
    assert c.advertised_listeners == [EndPoint("broker.example", 19092, "PLAINTEXT", "PLAINTEXT")]
    assert c.listener_security_protocol_map == {"PLAINTEXT": "PLAINTEXT", "INTERNAL": "PLAINTEXT"}


def test_inter_broker_listener_name_selects_a_listener():
    c = cfg({"listeners": "CLIENT://127.0.0.1:9092,REPLICATION://127.0.0.1:9093",
             "listener.security.protocol.map": "CLIENT:PLAINTEXT,REPLICATION:PLAINTEXT",
             "inter.broker.listener.name": "replication"})
    assert c.inter_broker_listener_name == "REPLICATION"


@pytest.mark.parametrize("props,key,fragment", [
    ({"listeners": "not-a-listener"}, "listeners", "Unable to parse not-a-listener to a broker endpoint"),
    ({"listeners": "PLAINTEXT://127.0.0.1:port"}, "listeners", "Unable to parse"),
    ({"listeners": "FOO://127.0.0.1:9092"}, "listeners", "No security protocol defined for listener FOO"),
    ({"listeners": "PLAINTEXT://127.0.0.1:9092,plaintext://127.0.0.1:9093"}, "listeners",
     "Each listener must have a different name"),
    ({"listeners": ""}, "listeners", "At least one listener"),
    ({"advertised.listeners": "FOO://h:1"}, "advertised.listeners", "No security protocol defined for listener FOO"),
    ({"listeners": "PLAINTEXT://127.0.0.1:9092", "advertised.listeners": "PLAINTEXT://h:1,SSL://h:2"},
     "advertised.listeners", "advertised.listeners"),
    ({"inter.broker.listener.name": "REPLICATION"}, "inter.broker.listener.name",
     "inter.broker.listener.name must be a listener name defined in advertised.listeners"),
    ({"security.inter.broker.protocol": "SSL"}, "inter.broker.listener.name",
     "must be a listener name defined in advertised.listeners"),
    ({"security.inter.broker.protocol": "CARRIER_PIGEON"}, "security.inter.broker.protocol", "String must be one of"),
    ({"listener.security.protocol.map": "PLAINTEXT"}, "listener.security.protocol.map",
     "Map entry should be of form <key>:<value>"),
])
def test_listener_errors(props, key, fragment):
    with pytest.raises(ConfigException) as e:
        cfg(props)
    assert key in str(e.value) and fragment in str(e.value)
    assert "\n" not in str(e.value)


def test_listeners_on_the_same_port_are_rejected():
    with pytest.raises(ConfigException, match="different port"):
        cfg({"listeners": "PLAINTEXT://127.0.0.1:9092,OTHER://127.0.0.1:9092",
             "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT"})


def test_listeners_on_port_zero_may_repeat():
    c = cfg({"listeners": "PLAINTEXT://127.0.0.1:0,OTHER://127.0.0.1:0",
             "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT"})
    assert [ep.port for ep in c.listeners] == [0, 0]


def test_inter_broker_listener_and_protocol_both_set():
    with pytest.raises(ConfigException, match="Only one of"):
        cfg({"listeners": "PLAINTEXT://127.0.0.1:9092", "inter.broker.listener.name": "PLAINTEXT",
             "security.inter.broker.protocol": "PLAINTEXT"})


def test_advertised_listener_cannot_be_0_0_0_0():
    with pytest.raises(ConfigException, match="0.0.0.0"):
        cfg({"listeners": "PLAINTEXT://0.0.0.0:9092"})


def test_unknown_security_protocol_in_the_map_is_rejected():
    with pytest.raises(ConfigException, match="BOGUS"):
        cfg({"listeners": "FOO://127.0.0.1:9092", "listener.security.protocol.map": "FOO:BOGUS",
             "inter.broker.listener.name": "FOO"})


# ------------------------------------------------------------------ control plane (S20)
def test_control_plane_listener():
    c = cfg(CP_PROPS)
    assert c.control_plane_listener_name == "CONTROLLER"
    assert c.control_plane_listener == EndPoint("127.0.0.1", 9093, "CONTROLLER", "PLAINTEXT")
    assert c.data_plane_listeners == [EndPoint("127.0.0.1", 9092, "PLAINTEXT", "PLAINTEXT")]
    assert c.inter_broker_listener_name == "PLAINTEXT"


def test_control_plane_listener_missing_from_the_protocol_map():
    with pytest.raises(ConfigException) as e:
        cfg({"listeners": "PLAINTEXT://127.0.0.1:9092", "control.plane.listener.name": "CONTROLLER"})
    msg = str(e.value)
    assert "control.plane.listener.name" in msg and "CONTROLLER" in msg and "listener.security.protocol.map" in msg


def test_control_plane_listener_missing_from_listeners():
    with pytest.raises(ConfigException) as e:
        cfg({**CP_PROPS, "listeners": "PLAINTEXT://127.0.0.1:9092"})
    msg = str(e.value)
    assert "control.plane.listener.name" in msg and "CONTROLLER" in msg and "listeners" in msg


def test_control_plane_listener_equal_to_inter_broker_listener():
    with pytest.raises(ConfigException) as e:
        cfg({**CP_PROPS, "inter.broker.listener.name": "CONTROLLER"})
    assert "should have a different value from the inter broker listener name" in str(e.value)


def test_control_plane_listener_must_be_advertised():
    with pytest.raises(ConfigException, match="advertised.listeners"):
        cfg({**CP_PROPS, "advertised.listeners": "PLAINTEXT://127.0.0.1:9092"})


# ------------------------------------------------------------------ load_properties
def test_load_properties(tmp_path):
    p = tmp_path / "server.properties"
    p.write_bytes(
        b"# a comment\n"
        b"! another comment\n"
        b"   # indented comment\n"
        b"\n"
        b"broker.id=3\n"
        b"num.io.threads: 5\n"
        b"  log.dirs = /d1 , /d2  \n"
        b"listeners=PLAINTEXT://127.0.0.1:9092,\\\n"
        b"          CONTROLLER://127.0.0.1:9093\n"
        b"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,\\\n"
        b"   # not a comment inside a continuation\\\n"
        b"   ,CONTROLLER:PLAINTEXT\n"
        b"control.plane.listener.name=CONTROLLER\r\n"
        b"weird:key=value\n"
        b"empty.value=\n"
    )
    props = load_properties(str(p))
    assert props == {
        "broker.id": "3",
        "num.io.threads": "5",
        "log.dirs": "/d1 , /d2",
        "listeners": "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,# not a comment inside a continuation,CONTROLLER:PLAINTEXT",
        "control.plane.listener.name": "CONTROLLER",
        "weird": "key=value",
        "empty.value": "",
    }


def test_load_properties_feeds_kafka_config(tmp_path):
    p = tmp_path / "server.properties"
    p.write_text("broker.id=3\nnum.io.threads: 5\nlog.dirs=/d1,/d2\n"
                 "listeners=PLAINTEXT://127.0.0.1:0,\\\n  CONTROLLER://127.0.0.1:0\n"
                 "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\n"
                 "control.plane.listener.name=CONTROLLER\n")
    c = cfg(load_properties(str(p)))
    assert c.broker_id == 3 and c.num_io_threads == 5 and c.log_dirs == ["/d1", "/d2"]
    assert c.control_plane_listener.listener_name == "CONTROLLER"


def test_the_shipped_server_properties_is_valid():
    c = cfg(load_properties(os.path.join(REPO, "server.properties")))
    assert c.listeners and c.listeners[0].port == 9092 and c.listeners[0].host == "127.0.0.1"
    assert c.log_dirs


@pytest.mark.parametrize("props,message", [
    ({"authorizer.class.name": "com.example.NoSuchAuthorizer"},
     "Invalid value com.example.NoSuchAuthorizer for configuration authorizer.class.name: "
     "Class com.example.NoSuchAuthorizer cannot be found"),
    ({"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:a;bob"},
     "Invalid value User:a;bob for configuration super.users: Invalid principal bob: principals are of the form "
     "type:name"),
])
def test_authorizer_configs_are_checked_at_start_up(props, message):
    with pytest.raises(ConfigException) as e:
        cfg(props)
    assert str(e.value) == message


def test_kafkas_authorizer_names_are_accepted():
    for name in ("kafka.security.authorizer.AclAuthorizer", "kafka.security.auth.SimpleAclAuthorizer",
                 "kafkalite.security.authorizer.acl_authorizer.AclAuthorizer"):
        assert cfg({"authorizer.class.name": name}).get("authorizer.class.name") == name


def test_the_authorizers_own_keys_draw_no_unknown_key_warning_when_it_is_configured(caplog):
    authorizer = "kafka.security.authorizer.AclAuthorizer"
    with caplog.at_level(logging.WARNING, logger="kafka.server.KafkaConfig"):
        cfg({"authorizer.class.name": authorizer, "super.users": "User:admin",
             "allow.everyone.if.no.acl.found": "false"})
    assert "isn't a known config" not in caplog.text
    with caplog.at_level(logging.WARNING, logger="kafka.server.KafkaConfig"):
        cfg({"super.users": "User:admin"})   # no authorizer: nothing reads it
    assert "The configuration 'super.users' was supplied but isn't a known config." in caplog.text

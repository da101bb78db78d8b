"""No Kafka counterpart (Kafka's are AdminManagerTest, DynamicConfigChangeTest and the admin integration
tests): DescribeConfigs / AlterConfigs / IncrementalAlterConfigs edge cases answered as Kafka 2.4 answers
them, on the wire.

- The cluster-wide broker resource (name "") describes only what is set as the dynamic default
  (AdminManager.describeConfigs: currentDynamicDefaultConfigs, DYNAMIC_DEFAULT_BROKER_CONFIG synonyms only).
- A broker name that is no integer is "Broker id must be an integer, but it is: x" (resourceNameToBrokerId);
  another broker's id is refused with describeConfigs' / getBrokerId's own messages.
- An unknown topic is UNKNOWN_TOPIC_OR_PARTITION with no message.
"""
from __future__ import annotations

import pytest
from clients import raw_request
from harness import RawConnection
from support import wait_until

from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import (alter_configs as AC, describe_configs as DC,
                                         incremental_alter_configs as IAC)

pytestmark = pytest.mark.timeout(90)

DESCRIBE_CONFIGS, ALTER_CONFIGS, INCREMENTAL_ALTER_CONFIGS = 32, 33, 44
TOPIC, BROKER = 2, 4


@pytest.fixture
def conn(broker_factory):
    b = broker_factory()
    c = RawConnection(b.port)
    yield c
    c.close()


def describe(conn, resources: list[tuple], version: int = 1, include_synonyms: bool = False):
    """``resources``: [(type, name)]; returns [(type, name, Errors, message, {config: (value, source, read only)})]."""
    r = raw_request(conn, DESCRIBE_CONFIGS, version, DC.DescribeConfigsRequest(resources=[
        DC.DescribeConfigsResource(resource_type=t, resource_name=n, configuration_keys=None) for t, n in resources],
        include_synonyms=include_synonyms))
    return [(x.resource_type, x.resource_name, Errors.for_code(x.error_code), x.error_message,
             {c.name: (c.value, c.config_source, c.read_only) for c in x.configs}) for x in r.results]


def incremental_alter(conn, resources: list[tuple], validate_only: bool = False):
    """``resources``: [(type, name, [(key, op, value)])]; returns [(type, name, Errors, message)]."""
    r = raw_request(conn, INCREMENTAL_ALTER_CONFIGS, 0, IAC.IncrementalAlterConfigsRequest(resources=[
        IAC.AlterConfigsResource(resource_type=t, resource_name=n, configs=[
            IAC.AlterableConfig(name=k, config_operation=op, value=v) for k, op, v in ops]) for t, n, ops in resources],
        validate_only=validate_only))
    return [(x.resource_type, x.resource_name, Errors.for_code(x.error_code), x.error_message) for x in r.responses]


def test_the_cluster_default_resource_describes_the_dynamic_defaults_only(conn):
    assert describe(conn, [(BROKER, "")]) == [(BROKER, "", Errors.NONE, None, {})]
    assert incremental_alter(conn, [(BROKER, "", [("log.retention.ms", 0, "3600000")])]) == \
        [(BROKER, "", Errors.NONE, None)]

    def described():
        return describe(conn, [(BROKER, "")], include_synonyms=True)
    wait_until(lambda: described()[0][4], 10, "the dynamic default to be applied")
    assert described() == [(BROKER, "", Errors.NONE, None, {"log.retention.ms": ("3600000", 3, False)})]
    # the broker's own resource still describes every config
    [(_, _, error, _, configs)] = describe(conn, [(BROKER, "0")])
    assert error is Errors.NONE and len(configs) > 100 and configs["log.retention.ms"][:2] == ("3600000", 3)


def test_broker_names(conn):
    assert describe(conn, [(BROKER, "x"), (BROKER, "7")]) == [
        (BROKER, "x", Errors.INVALID_REQUEST, "Broker id must be an integer, but it is: x", {}),
        (BROKER, "7", Errors.INVALID_REQUEST, "Unexpected broker id, expected 0 or empty string, but received 7", {})]
    assert incremental_alter(conn, [(BROKER, "x", [("log.retention.ms", 0, "1000")]),
                                    (BROKER, "7", [("log.retention.ms", 0, "1000")])]) == [
        (BROKER, "x", Errors.INVALID_REQUEST, "Broker id must be an integer, but it is: x"),
        (BROKER, "7", Errors.INVALID_REQUEST, "Unexpected broker id, expected 0, but received 7")]
    r = raw_request(conn, ALTER_CONFIGS, 0, AC.AlterConfigsRequest(resources=[AC.AlterConfigsResource(
        resource_type=BROKER, resource_name="7", configs=[AC.AlterableConfig(name="log.retention.ms", value="1")])],
        validate_only=True))
    assert [(Errors.for_code(x.error_code), x.error_message) for x in r.responses] == [
        (Errors.INVALID_REQUEST, "Unexpected broker id, expected 0, but received 7")]


def test_unknown_topic_has_no_message(conn):
    assert describe(conn, [(TOPIC, "no-such-topic")]) == [
        (TOPIC, "no-such-topic", Errors.UNKNOWN_TOPIC_OR_PARTITION, None, {})]


def topic_overrides(conn, topic):
    [(_, _, error, _, configs)] = describe(conn, [(TOPIC, topic)])
    assert error is Errors.NONE
    return {k: v[0] for k, v in configs.items() if v[1] == 1}   # TOPIC_CONFIG


SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def test_incremental_alter_configs_refusals(conn):
    from clients import create_topic
    port = conn.sock.getpeername()[1]
    create_topic(f"127.0.0.1:{port}", "inc", partitions=1)
    # Kafka 2.4 AdminManager.incrementalAlterConfigs: a key named twice is refused before anything else
    assert incremental_alter(conn, [(TOPIC, "inc", [("retention.ms", SET, "1000"), ("retention.ms", DELETE, None)])]) \
        == [(TOPIC, "inc", Errors.INVALID_REQUEST, "Error due to duplicate config keys : retention.ms")]
    # prepareIncrementalConfigs: APPEND / SUBTRACT only for LIST keys, checked before the topic is looked up
    for topic in ("inc", "no-such-topic"):
        assert incremental_alter(conn, [(TOPIC, topic, [("retention.ms", APPEND, "1")])]) == [
            (TOPIC, topic, Errors.INVALID_REQUEST, "Config value append is not allowed for config key: retention.ms")]
    assert incremental_alter(conn, [(TOPIC, "inc", [("retention.ms", SUBTRACT, "1")])]) == [
        (TOPIC, "inc", Errors.INVALID_REQUEST, "Config value subtract is not allowed for config key: retention.ms")]
    # a key the topic configs do not have: Kafka's own Map lookup fails, UNKNOWN_SERVER_ERROR
    assert incremental_alter(conn, [(TOPIC, "inc", [("no.such.key", APPEND, "x")])]) == [
        (TOPIC, "inc", Errors.UNKNOWN_SERVER_ERROR, "key not found: no.such.key")]
    # Kafka 2.7's AdminZkClient.validateTopicConfig (README "Era notes"; 2.4 said UNKNOWN_SERVER_ERROR,
    # 'Topic "no-such-topic" does not exist.')
    assert incremental_alter(conn, [(TOPIC, "no-such-topic", [("retention.ms", SET, "1")])]) == [
        (TOPIC, "no-such-topic", Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic 'no-such-topic' does not exist.")]
    assert topic_overrides(conn, "inc") == {}


def test_incremental_append_and_subtract(conn):
    from clients import create_topic
    port = conn.sock.getpeername()[1]
    create_topic(f"127.0.0.1:{port}", "lists", partitions=1)
    # Kafka 2.6: a list key not set yet starts from its default ("delete")
    assert incremental_alter(conn, [(TOPIC, "lists", [("cleanup.policy", APPEND, "compact")])]) == \
        [(TOPIC, "lists", Errors.NONE, None)]
    wait_until(lambda: topic_overrides(conn, "lists") == {"cleanup.policy": "delete,compact"}, 10, "the append")
    # SUBTRACT removes what it names; APPEND adds what it is given as it is (Kafka does not de-duplicate)
    assert incremental_alter(conn, [(TOPIC, "lists", [("cleanup.policy", SUBTRACT, "delete")])])[0][2] is Errors.NONE
    wait_until(lambda: topic_overrides(conn, "lists") == {"cleanup.policy": "compact"}, 10, "the subtract")
    assert incremental_alter(conn, [(TOPIC, "lists", [("cleanup.policy", APPEND, "compact")])])[0][2] is Errors.NONE
    wait_until(lambda: topic_overrides(conn, "lists") == {"cleanup.policy": "compact,compact"}, 10, "the append")


def test_request_level_refusals_and_duplicate_resources(conn):
    from clients import create_topic
    port = conn.sock.getpeername()[1]
    create_topic(f"127.0.0.1:{port}", "dups", partitions=1)
    # Kafka 2.4: a resource type the handler does not serve fails the whole request (getErrorResponse), the
    # unknown type answered as UNKNOWN (0)
    assert describe(conn, [(TOPIC, "dups"), (3, "g")]) == [
        (TOPIC, "dups", Errors.INVALID_REQUEST, "Unexpected resource type UNKNOWN for resource g", {}),
        (0, "g", Errors.INVALID_REQUEST, "Unexpected resource type UNKNOWN for resource g", {})]
    assert incremental_alter(conn, [(TOPIC, "dups", [("retention.ms", SET, "1000")]), (3, "g", [])]) == [
        (TOPIC, "dups", Errors.INVALID_REQUEST, "Unexpected resource type UNKNOWN"),
        (0, "g", Errors.INVALID_REQUEST, "Unexpected resource type UNKNOWN")]
    r = raw_request(conn, ALTER_CONFIGS, 0, AC.AlterConfigsRequest(resources=[
        AC.AlterConfigsResource(resource_type=TOPIC, resource_name="dups", configs=[]),
        AC.AlterConfigsResource(resource_type=8, resource_name="0", configs=[])], validate_only=True))
    assert {(x.resource_type, Errors.for_code(x.error_code), x.error_message) for x in r.responses} == {
        (TOPIC, Errors.INVALID_REQUEST, "AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER"),
        (8, Errors.INVALID_REQUEST, "AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER")}
    assert topic_overrides(conn, "dups") == {}
    # a resource named twice is one entry of Kafka's map: asked once, for its last entry, answered once
    answers = describe(conn, [(TOPIC, "dups"), (TOPIC, "dups")])
    assert [(t, n, e) for t, n, e, _, _ in answers] == [(TOPIC, "dups", Errors.NONE)]
    assert incremental_alter(conn, [(TOPIC, "dups", [("retention.ms", SET, "1000")]),
                                    (TOPIC, "dups", [("retention.ms", SET, "2000")])]) == [(TOPIC, "dups", Errors.NONE, None)]
    wait_until(lambda: topic_overrides(conn, "dups") == {"retention.ms": "2000"}, 10, "the last entry to apply")


def test_an_empty_topic_name_is_an_invalid_topic_before_zookeeper_is_read(conn):
    # Kafka: AdminZkClient.validateTopicConfig's Topic.validate; kafkalite read /config/topics/ first and answered
    # ZooKeeper's BADARGUMENTS as UNKNOWN_SERVER_ERROR
    r = raw_request(conn, ALTER_CONFIGS, 0, AC.AlterConfigsRequest(resources=[AC.AlterConfigsResource(
        resource_type=TOPIC, resource_name="", configs=[AC.AlterableConfig(name="retention.ms", value="1")])],
        validate_only=False))
    [answer] = r.responses
    assert (Errors.for_code(answer.error_code), answer.error_message) == \
        (Errors.INVALID_TOPIC_EXCEPTION, "Topic name is illegal, it can't be empty")
    assert incremental_alter(conn, [(TOPIC, "", [("retention.ms", 0, "1")])])[0][2] is Errors.INVALID_TOPIC_EXCEPTION


@pytest.mark.parametrize("name", [" 1", "1_0", "\u0661", "2147483648"])
def test_a_broker_name_java_would_not_read_as_an_int_is_refused(conn, name):
    # Kafka: AdminManager.resourceNameToBrokerId -- Scala's toInt (Integer.parseInt); Python's int() read all four
    [(_, _, error, message, _)] = describe(conn, [(BROKER, name)])
    assert (error, message) == (Errors.INVALID_REQUEST, f"Broker id must be an integer, but it is: {name}")


def test_append_drops_trailing_empty_items_as_javas_split(conn):
    # Kafka: prepareIncrementalConfigs splits with String.split(","), which drops trailing empty strings
    assert incremental_alter(conn, [(BROKER, "", [("log.cleanup.policy", 2, "compact,")])]) == \
        [(BROKER, "", Errors.NONE, None)]
    [(_, _, _, _, configs)] = describe(conn, [(BROKER, "")])
    assert configs["log.cleanup.policy"][0] == "delete,compact"

"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/DynamicConfigChangeTest.scala (its replication quota
cases: TopicConfigHandler.parseThrottledPartitions) and the configs' checks -- DynamicConfig.Broker's rates
(longs, at least 0) and LogConfig's ThrottledReplicaListValidator; BrokerConfigHandler hands this broker's
rates (only its own entity's, as in Kafka 2.4) to the three ReplicationQuotaManagers and TopicConfigHandler
marks / removes throttled replicas."""
import pytest

from kafkalite.common.config.config_exception import ConfigException
from kafkalite.common.metrics.metrics import Metrics
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.log_config import LogConfig
from kafkalite.server import quota_factory
from kafkalite.server.dynamic_broker_config import DynamicBrokerConfig
from kafkalite.server.dynamic_config_manager import BrokerConfigHandler, TopicConfigHandler
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.server.replication_quota_manager import ALL_REPLICAS
from kafkalite.utils.time import MockTime

LONG_MAX = 2 ** 63 - 1
LEADER, FOLLOWER = "leader.replication.throttled.replicas", "follower.replication.throttled.replicas"


def parse(value, broker_id=102, prop=LEADER):
    return TopicConfigHandler.parse_throttled_partitions({prop: value}, broker_id, prop)


def test_should_parse_replication_quota_properties():
    assert parse("0:101,0:102,1:101,1:102") == (0, 1)


def test_should_parse_wildcard_replication_quota_properties():
    assert parse("*") is ALL_REPLICAS


def test_should_parse_replication_quota_reset():
    assert parse("") == ()


def test_should_parse_regardless_of_whitespace_around_values():
    assert parse("  ") == ()
    assert parse(" * ") is ALL_REPLICAS
    # kafkalite's own leniency: Kafka 2.4 fails on spaces inside the list (Integer.parseInt(" 1"))
    assert parse("0:101, 0:102 ,1:101,  1:102") == (0, 1)


@pytest.mark.parametrize("value", ["x", "0:1,a", "0-1", "0:", "1:2:3", "0:1,*"])
def test_a_malformed_throttled_replica_list_is_refused(value):
    # Kafka: ThrottledReplicaListValidator -- each entry [partitionId]:[brokerId], or the first one "*"
    for prop in (LEADER, FOLLOWER):
        with pytest.raises(ConfigException) as e:
            LogConfig.validate({prop: value})
        assert str(e.value).endswith(f"{prop} must be the literal '*' or a list of replicas in the following "
                                     f"format: [partitionId]:[brokerId],[partitionId]:[brokerId],...")
        with pytest.raises(ConfigException):
            parse(value, prop=prop)


@pytest.mark.parametrize("value", ["", "*", "0:1", " 0:1 , 1:2 ", "*,0:1"])
def test_a_well_formed_throttled_replica_list_is_accepted(value):
    LogConfig.validate({LEADER: value, FOLLOWER: value})


@pytest.fixture
def broker_config(tmp_path):
    return KafkaConfig({"broker.id": "1", "zookeeper.connect": "embedded:x", "log.dirs": str(tmp_path)},
                       do_log=False)


@pytest.fixture
def quotas(broker_config):
    time = MockTime()
    managers = quota_factory.instantiate(broker_config, Metrics(clock=time.milliseconds, yammer_registry=None), time)
    yield managers
    managers.shutdown()


@pytest.mark.parametrize("key", ["leader.replication.throttled.rate", "follower.replication.throttled.rate",
                                 "replica.alter.log.dirs.io.max.bytes.per.second"])
def test_a_negative_rate_is_refused_and_a_rate_is_a_dynamic_config(broker_config, key):
    dynamic = DynamicBrokerConfig(broker_config)
    with pytest.raises(ConfigException) as e:
        dynamic.validate({key: "-1"}, True)
    assert str(e.value) == f"Invalid value -1 for configuration {key}: Value must be at least 0"
    with pytest.raises(ConfigException, match=f"Invalid value abc for configuration {key}: Not a number of type LONG"):
        dynamic.validate({key: "abc"}, False)
    dynamic.validate({key: "0"}, True)
    dynamic.validate({key: "1000"}, False)          # accepted at the cluster default level too (and ignored)


def test_broker_config_handler_sets_this_brokers_rates(broker_config, quotas):
    handler = BrokerConfigHandler(broker_config, DynamicBrokerConfig(broker_config), quotas)
    handler.process_config_changes("1", {"leader.replication.throttled.rate": "100",
                                         "follower.replication.throttled.rate": "200"})
    assert (quotas.leader.upper_bound(), quotas.follower.upper_bound(), quotas.alter_log_dirs.upper_bound()) == (
        100, 200, LONG_MAX)
    # another broker's entity, and (as in Kafka 2.4) the cluster default, set no rate here
    handler.process_config_changes("2", {"leader.replication.throttled.rate": "5"})
    handler.process_config_changes("<default>", {"leader.replication.throttled.rate": "5"})
    assert quotas.leader.upper_bound() == 100
    handler.process_config_changes("1", {"replica.alter.log.dirs.io.max.bytes.per.second": "300"})
    assert (quotas.leader.upper_bound(), quotas.follower.upper_bound(), quotas.alter_log_dirs.upper_bound()) == (
        LONG_MAX, LONG_MAX, 300)                     # a rate removed: unlimited again


class NoLogs:
    def update_topic_config(self, topic, config):
        pass


def test_topic_config_handler_marks_this_brokers_throttled_replicas(broker_config, quotas):
    handler = TopicConfigHandler(NoLogs(), None, broker_config, quotas)
    handler.process_config_changes("t", {LEADER: "0:1,1:2,2:1", FOLLOWER: "*"})
    assert [quotas.leader.is_throttled(TopicPartition("t", p)) for p in range(3)] == [True, False, True]
    assert all(quotas.follower.is_throttled(TopicPartition("t", p)) for p in range(3))
    handler.process_config_changes("t", {LEADER: ""})
    assert not quotas.leader.is_throttled(TopicPartition("t", 0))
    assert not quotas.follower.is_throttled(TopicPartition("t", 0))


class ChangesInZooKeeper:
    """/config/changes with two notifications: broker 1's rate (stored malformed), then the cluster default."""

    def __init__(self, configs: dict):
        from kafkalite.zk.zk_data import ConfigEntityChangeNotificationSequenceZNode as Seq
        self.configs = configs
        self.notes = {"config_change_0000000000": Seq.encode("brokers/1"),
                      "config_change_0000000001": Seq.encode("brokers/<default>")}

    def _get_children(self, path):
        return list(self.notes)

    def get_data_and_version(self, path):
        return self.notes[path.rsplit("/", 1)[1]], 0

    def get_entity_configs(self, entity_type, name):
        return self.configs[name]


def test_a_change_that_fails_is_passed_over_and_the_next_ones_applied(broker_config, quotas):
    # Kafka: ZkNodeChangeNotificationListener.processNotification wraps each change in Try: a value stored by hand
    # that does not parse is logged, and every later change still applies
    from kafkalite.server.dynamic_config_manager import DynamicConfigManager
    applied = []

    class Recording(BrokerConfigHandler):
        def process_config_changes(self, name, config):
            super().process_config_changes(name, config)
            applied.append(name)
    handler = Recording(broker_config, DynamicBrokerConfig(broker_config), quotas)
    manager = DynamicConfigManager(ChangesInZooKeeper({"1": {"leader.replication.throttled.rate": "1e3"},
                                                       "<default>": {}}), {"brokers": handler})
    manager.process_notifications()
    assert applied == ["<default>"] and manager.last_executed_change == 1

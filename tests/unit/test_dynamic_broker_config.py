"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/DynamicBrokerConfigTest.scala
(testConfigUpdateWithReconfigurableValidationFailure's neighbour: stored invalid configs are removed alone,
DynamicBrokerConfig.removeInvalidConfigs)."""
import logging

import pytest

from kafkalite.server.dynamic_broker_config import DynamicBrokerConfig
from kafkalite.server.kafka_config import KafkaConfig


class StoredConfigs:
    def __init__(self, by_entity):
        self.by_entity = by_entity

    def get_entity_configs(self, entity_type, name):
        return dict(self.by_entity.get(name, {}))


@pytest.fixture
def broker_config(tmp_path):
    return KafkaConfig({"broker.id": "1", "zookeeper.connect": "embedded:x", "log.dirs": str(tmp_path)},
                       do_log=False)


@pytest.mark.parametrize("entity", ["1", "<default>"])
def test_a_stored_invalid_value_is_dropped_alone(broker_config, entity, caplog):
    # written by an older broker, or straight into ZooKeeper: "delete," is refused by ValidList today
    stored = {entity: {"log.cleanup.policy": "delete,", "log.retention.ms": "12345"}}
    dynamic = DynamicBrokerConfig(broker_config)
    with caplog.at_level(logging.ERROR):
        dynamic.initialize(StoredConfigs(stored))
    assert broker_config.get("log.retention.ms") == 12345           # the valid one applies
    assert broker_config.get("log.cleanup.policy") == ["delete"]    # the invalid one is the static value still
    source = "broker" if entity == "1" else "default cluster"
    assert any(f"Dynamic {source} config contains invalid values: {{'log.cleanup.policy': 'delete,'}}" in
               r.getMessage() for r in caplog.records)


def test_a_request_with_an_invalid_value_is_refused_whole(broker_config):
    from kafkalite.common.config.config_exception import ConfigException
    with pytest.raises(ConfigException, match="log.cleanup.policy"):
        DynamicBrokerConfig(broker_config).validate({"log.cleanup.policy": "delete,", "log.retention.ms": "1"}, True)

"""Kafka 2.4's core/src/test/.../controller/PartitionStateMachineTest, its offline-election cases
(``testOfflinePartitionToOnlinePartitionTransition``, ``testOfflinePartitionToUncleanOnlinePartitionTransition``)
as ``PartitionStateMachine.collectUncleanLeaderElectionState`` decides them: whether a partition may elect a replica outside its
ISR is asked only when no ISR member is alive, from the topic's config read in ZooKeeper at election time; a
config that cannot be read means no unclean leader, whatever the brokers' default says.
"""
from __future__ import annotations

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.controller.controller_context import ControllerContext
from kafkalite.controller.election import OfflinePartitionLeaderElectionStrategy
from kafkalite.controller.partition_state_machine import PartitionStateMachine
from kafkalite.controller.state_change_logger import StateChangeLogger
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.zk.zk_data import BrokerInfo, LeaderAndIsr
from kafkalite.zookeeper.zoo_keeper_client import Code, KeeperException

TP = TopicPartition("t", 0)


class TopicConfigs:
    """The part of KafkaZkClient the election reads: ``get_entity_configs("topics", t)``; counts the reads."""

    def __init__(self, configs=None, fail=False):
        self.configs, self.fail, self.reads = configs or {}, fail, []

    def get_entity_configs(self, entity_type, name):
        self.reads.append((entity_type, name))
        if self.fail:
            raise KeeperException(Code.CONNECTIONLOSS, f"/config/{entity_type}/{name}")
        return dict(self.configs)


def elect(zk, broker_default_unclean: bool, isr: list[int], live: list[int]):
    config = KafkaConfig.from_props({"broker.id": "0", "log.dirs": "/tmp/unused",
                                     "unclean.leader.election.enable": str(broker_default_unclean).lower()},
                                    do_log=False)
    ctx = ControllerContext()
    ctx.set_live_brokers_and_epochs({BrokerInfo(b, (f"PLAINTEXT://127.0.0.1:{9092 + b}",), {"PLAINTEXT": "PLAINTEXT"}):
                                     b for b in live})
    ctx.update_partition_replica_assignment(TP, [1, 2])
    psm = PartitionStateMachine(config, StateChangeLogger(0, in_controller_context=True), ctx, zk, None)
    lai = LeaderAndIsr(1, 3, list(isr), 5)
    [result] = psm.elect_by_strategy({TP: lai}, OfflinePartitionLeaderElectionStrategy(False))
    return result.leader_and_isr


def test_a_live_isr_member_is_elected_without_reading_the_topic_config():
    zk = TopicConfigs()
    lai = elect(zk, False, isr=[1, 2], live=[2])
    assert (lai.leader, lai.isr) == (2, [2])
    assert zk.reads == []


def test_no_live_isr_member_asks_the_topic_config_then_the_broker_default():
    assert elect(TopicConfigs({"unclean.leader.election.enable": "true"}), False, isr=[1], live=[2]).leader == 2
    assert elect(TopicConfigs({"unclean.leader.election.enable": "false"}), True, isr=[1], live=[2]) is None
    assert elect(TopicConfigs(), True, isr=[1], live=[2]).isr == [2]
    assert elect(TopicConfigs(), False, isr=[1], live=[2]) is None


def test_an_unreadable_topic_config_elects_no_unclean_leader():
    zk = TopicConfigs(fail=True)
    assert elect(zk, True, isr=[1], live=[2]) is None
    assert zk.reads == [("topics", "t")]

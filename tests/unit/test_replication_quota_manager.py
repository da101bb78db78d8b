"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/ReplicationQuotaManagerTest.scala -- which replicas
a ReplicationQuotaManager throttles (a list of partitions, or every replica of a topic), and its SimpleRate
``byte-rate`` going over the quota and back under it as (mock) time passes; plus QuotaFactory's three
managers, unbounded until a rate is set, and the metric's name."""
import pytest

from kafkalite.common.metrics.metrics import Metrics, Quota
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.server import quota_factory
from kafkalite.server.client_quota_manager import QuotaType
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.server.replication_quota_manager import (
    ReplicationQuotaManager, ReplicationQuotaManagerConfig, UnboundedQuota,
)
from kafkalite.utils.time import MockTime


@pytest.fixture
def time():
    return MockTime()


@pytest.fixture
def metrics(time):
    m = Metrics(clock=time.milliseconds, yammer_registry=None)
    yield m
    m.close()


def tp1(partition: int) -> TopicPartition:
    return TopicPartition("topic1", partition)


def rate(metrics: Metrics) -> float:
    name = metrics.metric_name("byte-rate", "LeaderReplication", "Tracking byte-rate for LeaderReplication")
    return metrics.metrics[name].metric_value()


def test_should_throttle_only_defined_replicas(metrics, time):
    quota = ReplicationQuotaManager(ReplicationQuotaManagerConfig(), metrics, QuotaType.Fetch, time)
    quota.mark_throttled("topic1", [1, 2, 3])
    assert [quota.is_throttled(tp1(p)) for p in (1, 2, 3, 4)] == [True, True, True, False]


def test_should_exceed_quota_then_return_back_below_bound_as_time_passes(metrics, time):
    quota = ReplicationQuotaManager(ReplicationQuotaManagerConfig(num_quota_samples=10, quota_window_size_seconds=1),
                                    metrics, QuotaType.LeaderReplication, time)
    quota.update_quota(Quota(100, True))
    assert not quota.is_quota_exceeded()         # not broken when we start
    time.sleep(1000)                             # the first window is fixed: skip it
    time.sleep(500)
    quota.record(1)
    assert not quota.is_quota_exceeded()
    quota.record(149)                            # 150 B in 1.5 s
    assert not quota.is_quota_exceeded()
    quota.record(1)                              # 151 B in 1.5 s: over
    assert rate(metrics) == pytest.approx(151 / 1.5)
    assert quota.is_quota_exceeded()
    time.sleep(500)                              # 151 B in 2 s: back under
    assert not quota.is_quota_exceeded()
    assert rate(metrics) == pytest.approx(151 / 2, abs=0.1)
    time.sleep(500)
    quota.record(99)                             # 250 B in 2.5 s
    assert rate(metrics) == pytest.approx(250 / 2.5)
    assert not quota.is_quota_exceeded()
    quota.record(1)
    assert quota.is_quota_exceeded()
    assert rate(metrics) == pytest.approx(251 / 2.5)
    time.sleep(2000)                             # 3.5 s... and 4.5 s of windows
    assert not quota.is_quota_exceeded()
    assert rate(metrics) == pytest.approx(251 / 4.5)


def test_should_support_wildcard_throttled_replicas(metrics, time):
    quota = ReplicationQuotaManager(ReplicationQuotaManagerConfig(), metrics, QuotaType.LeaderReplication, time)
    quota.mark_throttled("MyTopic")
    assert quota.is_throttled(TopicPartition("MyTopic", 0))
    assert not quota.is_throttled(TopicPartition("MyOtherTopic", 0))


def test_remove_throttle_and_a_new_list_replaces_the_old_one(metrics, time):
    quota = ReplicationQuotaManager(ReplicationQuotaManagerConfig(), metrics, QuotaType.FollowerReplication, time)
    quota.mark_throttled("topic1", [1])
    quota.mark_throttled("topic1", [2])
    assert (quota.is_throttled(tp1(1)), quota.is_throttled(tp1(2))) == (False, True)
    quota.remove_throttle("topic1")
    assert not quota.is_throttled(tp1(2))


def test_no_quota_is_never_exceeded_and_a_new_bound_applies_at_once(metrics, time):
    quota = ReplicationQuotaManager(ReplicationQuotaManagerConfig(), metrics, QuotaType.LeaderReplication, time)
    quota.record(10 ** 12)
    assert not quota.is_quota_exceeded() and quota.upper_bound() == 2 ** 63 - 1
    quota.update_quota(Quota.upper_bound(1))      # the existing metric takes the bound
    assert quota.is_quota_exceeded() and quota.upper_bound() == 1
    quota.update_quota(Quota.upper_bound(2 ** 63 - 1))
    assert not quota.is_quota_exceeded()


def test_quota_factory_makes_the_three_replication_managers(time):
    cfg = KafkaConfig({"zookeeper.connect": "localhost:2181", "replication.quota.window.num": "5",
                       "alter.log.dirs.replication.quota.window.size.seconds": "3"}, do_log=False)
    managers = quota_factory.instantiate(cfg, Metrics(clock=time.milliseconds, yammer_registry=None), time)
    try:
        assert [str(m.replication_type) for m in (managers.leader, managers.follower, managers.alter_log_dirs)] == [
            "LeaderReplication", "FollowerReplication", "AlterLogDirsReplication"]
        assert managers.leader.config.num_quota_samples == 5 == managers.follower.config.num_quota_samples
        assert managers.alter_log_dirs.config == ReplicationQuotaManagerConfig(num_quota_samples=11,
                                                                               quota_window_size_seconds=3)
        managers.leader.record(1)   # Kafka's MBean: kafka.server:type=LeaderReplication,name=byte-rate
        assert managers.metrics.metric(managers.metrics.metric_name("byte-rate", "LeaderReplication")) is not None
    finally:
        managers.shutdown()


def test_unbounded_quota_throttles_nothing():
    UnboundedQuota.record(10 ** 12)
    assert not UnboundedQuota.is_throttled(tp1(0)) and not UnboundedQuota.is_quota_exceeded()

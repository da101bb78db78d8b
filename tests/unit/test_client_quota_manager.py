"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/ClientQuotaManagerTest.scala (the quota resolution
order, the throttle-time computation, the window) and a few SampledStat / Rate cases of MetricsTest."""
import types

import pytest

from kafkalite.common.metrics.metrics import MetricConfig, Metrics, Quota
from kafkalite.common.metrics.stats import Rate
from kafkalite.network.request_channel import EndThrottlingAction, StartThrottlingAction
from kafkalite.security.auth.kafka_principal import KafkaPrincipal
from kafkalite.server.client_quota_manager import (DEFAULT_ENTITY, ClientQuotaManager, ClientQuotaManagerConfig,
                                                   QuotaType)
from kafkalite.server.client_request_quota_manager import ClientRequestQuotaManager
from kafkalite.utils.time import MockTime

D = DEFAULT_ENTITY


def request_of(user: str, client_id: str):
    return types.SimpleNamespace(context=types.SimpleNamespace(principal=KafkaPrincipal("User", user)),
                                 header=types.SimpleNamespace(client_id=client_id))


@pytest.fixture
def time():
    return MockTime()


@pytest.fixture
def metrics(time):
    m = Metrics(clock=time.milliseconds, yammer_registry=None)
    yield m
    m.close()


def manager(metrics, time, default=2 ** 63 - 1, quota_type=QuotaType.Produce):
    qm = ClientQuotaManager(ClientQuotaManagerConfig(quota_bytes_per_second_default=default), metrics, quota_type,
                            time, "")
    return qm


def maybe_record(qm, user, client_id, value, time):
    return qm.maybe_record_and_get_throttle_time_ms(request_of(user, client_id), value, time.milliseconds())


def test_quota_parsing_client_id(metrics, time):
    # Kafka: ClientQuotaManagerTest.testQuotaParsing (client-id level, with the static default)
    qm = manager(metrics, time, default=500)
    try:
        qm.update_quota(None, "p1", Quota.upper_bound(2000))
        qm.update_quota(None, "p2", Quota.upper_bound(4000))
        assert qm.quota("u", "p1").bound == 2000
        assert qm.quota("u", "p2").bound == 4000
        assert qm.quota("u", "unknown").bound == 500          # quota.producer.default
        qm.update_quota(None, D, Quota.upper_bound(600))       # /config/clients/<default> beats the static default
        assert qm.quota("u", "unknown").bound == 600
        # p1 at 2500 B/s over 10 s: over its own 2000, while "unknown" (600) is unaffected by p1's bytes
        assert maybe_record(qm, "u", "p1", 2500 * 11, time) > 0
        assert maybe_record(qm, "u", "unknown", 500 * 11, time) == 0
    finally:
        qm.shutdown()


def test_quota_config_precedence(metrics, time):
    # Kafka: ClientQuotaManagerTest.testQuotaConfigPrecedence -- the 8 levels, shared and exclusive sensors
    qm = manager(metrics, time)
    samples = qm.config.num_quota_samples

    def check(user, client_id, expected_bound, value, expect_throttle):
        assert qm.quota(user, client_id).bound == expected_bound, (user, client_id)
        throttle = maybe_record(qm, user, client_id, value * samples, time)
        assert (throttle > 0) == expect_throttle, (user, client_id, throttle)

    try:
        qm.update_quota(D, None, Quota(1000, True))
        qm.update_quota(None, D, Quota(2000, True))
        qm.update_quota(D, D, Quota(3000, True))
        qm.update_quota("userA", None, Quota(4000, True))
        qm.update_quota("userA", "client1", Quota(5000, True))
        qm.update_quota("userB", None, Quota(6000, True))
        qm.update_quota("userB", "client1", Quota(7000, True))
        qm.update_quota("userB", D, Quota(8000, True))
        qm.update_quota("userC", None, Quota(10000, True))
        qm.update_quota(None, "client1", Quota(9000, True))

        check("userA", "client1", 5000, 4500, False)   # <user, client> before <user>
        check("userA", "client2", 4000, 4500, True)    # <user> before <client> and the defaults
        check("userA", "client3", 4000, 0, True)       # <user> is shared by the user's clients
        check("userA", "client1", 5000, 0, False)      # <user, client> is that pair's alone
        check("userB", "client1", 7000, 8000, True)
        check("userB", "client2", 8000, 7000, False)   # <user, default client>: each client its own
        check("userB", "client3", 8000, 7000, False)
        check("userD", "client1", 3000, 3500, True)    # <default user, default client>
        check("userD", "client2", 3000, 2500, False)
        check("userE", "client1", 3000, 2500, False)

        qm.update_quota(D, D, None)                    # back to the <default user> level
        check("userD", "client1", 1000, 0, False)      # new metric tags: a new sensor
        check("userE", "client4", 1000, 1500, True)
        check("userF", "client4", 1000, 800, False)    # <default user> shared by the user's clients
        check("userF", "client5", 1000, 800, True)

        qm.update_quota(D, None, None)                 # back to the <default client> level
        check("userF", "client4", 2000, 0, False)      # shared by that client id of every user
        check("userF", "client5", 2000, 0, False)
        check("userF", "client5", 2000, 2500, True)
        check("userG", "client5", 2000, 0, True)

        qm.update_quota("userA", None, Quota(8000, True))
        qm.update_quota("userA", "client1", Quota(10000, True))
        check("userA", "client2", 8000, 0, False)
        check("userA", "client2", 8000, 4500, True)    # the new and the earlier values add up
        check("userA", "client1", 10000, 0, False)
        check("userA", "client1", 10000, 6000, True)
        qm.update_quota("userA", "client1", None)
        check("userA", "client6", 8000, 0, True)       # the shared user quota
        qm.update_quota("userA", "client6", Quota(11000, True))
        check("userA", "client6", 11000, 8500, False)
        qm.update_quota("userA", D, Quota(12000, True))
        qm.update_quota("userA", "client6", None)
        check("userA", "client6", 12000, 4000, True)
    finally:
        qm.shutdown()


def test_quota_violation_throttle_time_and_window(metrics, time):
    # Kafka: ClientQuotaManagerTest.testQuotaViolation -- X = (O - T) / T * W, W the precise rate window
    qm = manager(metrics, time, default=500)
    callbacks = []
    try:
        for _ in range(10):   # under the quota for 10 windows of 1 s
            assert maybe_record(qm, "ANONYMOUS", "unknown", 400, time) == 0
            time.sleep(1000)
        # a spike: (400*10 + 2300) / 10.5 s = 600 B/s; (600 - 500) / 500 * 10.5 s = 2100 ms
        time.sleep(500)
        throttle = maybe_record(qm, "ANONYMOUS", "unknown", 2300, time)
        assert throttle == 2100
        qm.throttle(request_of("ANONYMOUS", "unknown"), throttle, lambda r: callbacks.append(r.response_action))
        assert callbacks == [StartThrottlingAction]
        qm.throttled_channel_reaper.do_work()            # not before the throttle time has passed
        assert callbacks == [StartThrottlingAction]
        time.sleep(throttle)
        qm.throttled_channel_reaper.do_work()            # (or the reaper thread got it first)
        assert callbacks == [StartThrottlingAction, EndThrottlingAction]
        for _ in range(10):   # throttled until the burst's sample leaves the window
            maybe_record(qm, "ANONYMOUS", "unknown", 400, time)
            time.sleep(1000)
        assert maybe_record(qm, "ANONYMOUS", "unknown", 0, time) == 0
        # the throttle time is recorded per entity, as Kafka's throttle-time metric
        throttle_metric = metrics.metric(qm.throttle_metric_name({"user": "", "client-id": "unknown"}))
        assert throttle_metric is not None
    finally:
        qm.shutdown()


def test_request_percentage_quota_violation(metrics, time):
    # Kafka: ClientQuotaManagerTest.testRequestPercentageQuotaViolation -- capped at one quota window
    qm = ClientRequestQuotaManager(ClientQuotaManagerConfig(), metrics, time, "")
    try:
        qm.update_quota("ANONYMOUS", "test-client", Quota.upper_bound(1))
        sensors = qm.get_or_create_quota_sensors(KafkaPrincipal("User", "ANONYMOUS"), "test-client")
        assert sensors.metric_tags == {"user": "ANONYMOUS", "client-id": "test-client"}
        for _ in range(10):   # 4 ms of a handler thread per second: 0.4%, under 1%
            assert qm.record_and_get_throttle_time_ms(KafkaPrincipal("User", "ANONYMOUS"), "test-client",
                                                      qm.nanos_to_percentage(4_000_000), time.milliseconds()) == 0
            time.sleep(1000)
        time.sleep(500)
        # (4*10 + 67.1) ms in 10.5 s = 1.02%: (1.02 - 1) / 1 * 10.5 s = 210 ms
        throttle = qm.record_and_get_throttle_time_ms(KafkaPrincipal("User", "ANONYMOUS"), "test-client",
                                                      qm.nanos_to_percentage(67_100_000), time.milliseconds())
        assert throttle == 210
        # a huge spike is throttled for at most one quota window
        assert qm.record_and_get_throttle_time_ms(KafkaPrincipal("User", "ANONYMOUS"), "test-client",
                                                  qm.nanos_to_percentage(10_000_000_000), time.milliseconds()) == 1000
    finally:
        qm.shutdown()


def test_no_quotas_records_nothing(metrics, time):
    qm = manager(metrics, time)
    try:
        assert not qm.quotas_enabled
        assert maybe_record(qm, "u", "c", 10 ** 12, time) == 0
        assert metrics.sensors == {}
    finally:
        qm.shutdown()


def test_rate_window_size_counts_at_least_samples_minus_one_windows(time):
    # Kafka: MetricsTest.testRateWindowing -- a fresh sensor's rate is divided by (samples - 1) full windows
    config = MetricConfig(samples=3, time_window_ms=1000)
    rate = Rate()
    rate.record(config, 3000, time.milliseconds())
    assert rate.window_size(config, time.milliseconds()) == 2000
    assert rate.measure(config, time.milliseconds()) == 1500.0
    time.sleep(2500)
    rate.record(config, 0, time.milliseconds())
    assert rate.window_size(config, time.milliseconds()) == 2500
    time.sleep(3000)   # all samples obsolete: purged
    assert rate.measure(config, time.milliseconds()) == 0.0

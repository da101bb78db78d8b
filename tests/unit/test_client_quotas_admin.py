"""Mirrors Kafka 2.6's ClientQuotasRequestTest (core/src/test/scala/unit/kafka/server/) and 2.4's
DynamicConfigChangeTest quota cases: AlterClientQuotas writes /config/users and /config/clients with a change
notification, DescribeClientQuotas filters them, and the config handlers turn them into quota-manager
overrides (also at start-up), on the in-process ZooKeeper store."""
from __future__ import annotations

import types

import pytest

from kafkalite.common.metrics.metrics import Metrics
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import alter_client_quotas as acq
from kafkalite.protocol.messages import describe_client_quotas as dcq
from kafkalite.server import quota_factory
from kafkalite.server.client_quotas_admin import ClientQuotasAdmin
from kafkalite.server.dynamic_config_manager import ClientIdConfigHandler, DynamicConfigManager, UserConfigHandler
from kafkalite.utils.time import MockTime
from kafkalite.zk.kafka_zk_client import KafkaZkClient
from kafkalite.zookeeper.local_zoo_keeper import LocalZooKeeper


@pytest.fixture
def zk():
    store = LocalZooKeeper.open(None)
    client = KafkaZkClient.create("embedded", backend=store)
    yield client
    client.close()
    store.close()


@pytest.fixture
def quotas():
    cfg = types.SimpleNamespace(get={"quota.producer.default": 2 ** 63 - 1, "quota.consumer.default": 2 ** 63 - 1,
                                     "quota.window.num": 11, "quota.window.size.seconds": 1}.get)
    managers = quota_factory.instantiate(cfg, Metrics(yammer_registry=None), MockTime())
    yield managers
    managers.shutdown()


def alter(admin, entity: dict, ops: dict, validate_only=False):
    request = acq.AlterClientQuotasRequest(validate_only=validate_only, entries=[acq.EntryData(
        entity=[acq.EntityData(entity_type=t, entity_name=n) for t, n in entity.items()],
        ops=[acq.OpData(key=k, value=v or 0.0, remove=v is None) for k, v in ops.items()])])
    result = admin.alter_client_quotas(request).entries[0]
    return Errors.for_code(result.error_code)


def describe(admin, components, strict=False):
    r = admin.describe_client_quotas(dcq.DescribeClientQuotasRequest(
        components=[dcq.ComponentData(entity_type=t, match_type=m, match=n) for t, m, n in components], strict=strict))
    assert r.error_code == 0, r.error_message
    return {tuple((e.entity_type, e.entity_name) for e in entry.entity): {v.key: v.value for v in entry.values}
            for entry in r.entries}


def test_alter_writes_kafka_24_znodes_with_change_notifications(zk):
    admin = ClientQuotasAdmin(zk)
    assert alter(admin, {"user": "al ice", "client-id": "c/1"}, {"producer_byte_rate": 1024.0}) is Errors.NONE
    assert alter(admin, {"client-id": None}, {"consumer_byte_rate": 2048.0}) is Errors.NONE
    assert alter(admin, {"user": None}, {"request_percentage": 12.5}) is Errors.NONE
    assert zk.get_entity_configs("users", "al%20ice/clients/c%2F1") == {"producer_byte_rate": "1024"}
    assert zk.get_entity_configs("clients", "<default>") == {"consumer_byte_rate": "2048"}
    assert zk.get_entity_configs("users", "<default>") == {"request_percentage": "12.5"}
    changes = [zk.get_data_and_version(f"/config/changes/{c}")[0] for c in sorted(zk._get_children("/config/changes"))]
    assert [b"users/al%20ice/clients/c%2F1" in c for c in changes] == [True, False, False]
    # remove a key; validate_only writes nothing
    assert alter(admin, {"client-id": None}, {"consumer_byte_rate": None}) is Errors.NONE
    assert zk.get_entity_configs("clients", "<default>") == {}
    assert alter(admin, {"client-id": "x"}, {"producer_byte_rate": 5.0}, validate_only=True) is Errors.NONE
    assert zk.get_entity_configs("clients", "x") == {}


@pytest.mark.parametrize("entity, ops", [
    ({"user": "u", "group": "g"}, {"producer_byte_rate": 1.0}),      # unknown entity type
    ({}, {"producer_byte_rate": 1.0}),                                 # empty entity
    ({"client-id": ""}, {"producer_byte_rate": 1.0}),                  # empty name
    ({"client-id": "c"}, {"retention.ms": 1.0}),                       # not a quota key
    ({"client-id": "c"}, {"producer_byte_rate": 1.5}),                 # byte rates are whole numbers
    ({"client-id": "c"}, {"consumer_byte_rate": -3.0}),
])
def test_alter_refuses_what_kafka_refuses(zk, entity, ops):
    assert alter(ClientQuotasAdmin(zk), entity, ops) is Errors.INVALID_REQUEST
    assert zk.get_all_entities_with_config("clients") == [] or entity == {"client-id": "c"}


def test_describe_filters(zk):
    admin = ClientQuotasAdmin(zk)
    alter(admin, {"user": "alice"}, {"producer_byte_rate": 100.0})
    alter(admin, {"user": "alice", "client-id": "c1"}, {"consumer_byte_rate": 200.0})
    alter(admin, {"user": None}, {"producer_byte_rate": 300.0})
    alter(admin, {"client-id": "c1"}, {"request_percentage": 50.0})
    assert describe(admin, [("user", 0, "alice")], strict=True) == {(("user", "alice"),): {"producer_byte_rate": 100.0}}
    assert set(describe(admin, [("user", 0, "alice")])) == {(("user", "alice"),),
                                                             (("user", "alice"), ("client-id", "c1"))}
    assert describe(admin, [("user", 1, None)], strict=True) == {(("user", None),): {"producer_byte_rate": 300.0}}
    assert set(describe(admin, [("user", 2, None)], strict=True)) == {(("user", "alice"),)}
    assert set(describe(admin, [("client-id", 0, "c1")])) == {(("client-id", "c1"),),
                                                               (("user", "alice"), ("client-id", "c1"))}
    assert len(describe(admin, [])) == 4
    bad = admin.describe_client_quotas(dcq.DescribeClientQuotasRequest(
        components=[dcq.ComponentData(entity_type="group", match_type=0, match="x")]))
    assert bad.error_code == Errors.INVALID_REQUEST.code and bad.entries is None


def test_config_handlers_apply_quotas_at_startup_and_on_change(zk, quotas):
    admin = ClientQuotasAdmin(zk)
    alter(admin, {"client-id": "early"}, {"producer_byte_rate": 1000.0})          # before the broker starts
    alter(admin, {"user": "bob", "client-id": "c"}, {"consumer_byte_rate": 3000.0})
    credentials = types.SimpleNamespace(update_credentials=lambda user, config: None)
    manager = DynamicConfigManager(zk, {"users": UserConfigHandler(quotas, credentials),
                                        "clients": ClientIdConfigHandler(quotas)})
    manager.startup()
    try:
        assert quotas.produce.quota("anyone", "early").bound == 1000
        assert quotas.fetch.quota("bob", "c").bound == 3000
        alter(admin, {"client-id": "early"}, {"producer_byte_rate": 4000.0, "request_percentage": 25.0})
        from support import wait_until
        wait_until(lambda: quotas.produce.quota("anyone", "early").bound == 4000, 10, "the change to be applied")
        assert quotas.request.quota("anyone", "early").bound == 25.0
        alter(admin, {"client-id": "early"}, {"producer_byte_rate": None})
        wait_until(lambda: quotas.produce.quota("anyone", "early").bound > 2 ** 62, 10, "the removal")
    finally:
        manager.shutdown()

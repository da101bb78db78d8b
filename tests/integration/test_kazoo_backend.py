"""KafkaZkClient over kazoo and Debian's ZooKeeper: the backend-neutral KafkaZkClientTest cases of
tests/unit/test_kafka_zk_client.py, re-run against a real server (one server per module, a fresh chroot per test).

Skipped with a reason when ZooKeeper is not installed, unless ``CI`` is set (then it fails).
"""
import importlib.util
import os
import sys
import uuid

import pytest

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TESTS_DIR)
import zk_harness  # noqa: E402

from kafkalite.zk.kafka_zk_client import KafkaZkClient  # noqa: E402

pytestmark = pytest.mark.cluster


def _load_unit_tests():
    spec = importlib.util.spec_from_file_location(
        "kafka_zk_client_cases", os.path.join(TESTS_DIR, "unit", "test_kafka_zk_client.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_cases = _load_unit_tests()
for _case in _cases.BACKEND_NEUTRAL:
    globals()[_case.__name__] = _case  # collected here, with this module's zk_factory


@pytest.fixture(scope="module")
def zookeeper(tmp_path_factory):
    if zk_harness.zookeeper_jar() is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("ZooKeeper is not installed but CI is set: apt-get install -y zookeeper")
        pytest.skip("Debian's ZooKeeper is not installed (apt-get install -y zookeeper); CI is not set")
    pytest.importorskip("kazoo")
    server = zk_harness.ZooKeeperServer(tmp_path_factory.mktemp("zookeeper")).start()
    yield server
    server.stop()


@pytest.fixture
def zk_factory(zookeeper):
    connect = zookeeper.connect_string(f"kl-{uuid.uuid4().hex[:12]}")
    clients = []

    def make() -> KafkaZkClient:
        zk = KafkaZkClient.create(connect, session_timeout_ms=4000)
        clients.append(zk)
        return zk

    yield make
    for c in clients:
        c.close()


def test_chroot_is_created_and_isolates(zookeeper):
    a = KafkaZkClient.create(zookeeper.connect_string("iso-a"))
    b = KafkaZkClient.create(zookeeper.connect_string("iso-b"))
    try:
        a.create_top_level_paths()
        a.create_topic_assignment("only-in-a", {0: [0]})
        assert a.topic_exists("only-in-a") and not b.topic_exists("only-in-a")
    finally:
        a.close()
        b.close()

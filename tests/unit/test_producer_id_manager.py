"""ProducerIdManagerTest: producer ids come from blocks reserved in ZooKeeper, so two brokers never hand out the
same id (kafkalite/coordinator/transaction/producer_id_manager.py)."""
from __future__ import annotations

import json

import pytest

from kafkalite.coordinator.transaction.producer_id_manager import (PID_BLOCK_SIZE, PRODUCER_ID_BLOCK_PATH,
                                                                   ProducerIdManager)
from kafkalite.zk.kafka_zk_client import KafkaZkClient

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def zk(tmp_path):
    client = KafkaZkClient.create("", 6000, str(tmp_path))
    client.create_top_level_paths()     # leaves an empty /latest_producer_id_block, as Kafka's paths do
    yield client
    client.close()


def test_first_block_starts_at_zero_even_when_the_znode_exists_empty(zk):
    m = ProducerIdManager(0, zk)
    assert [m.generate_producer_id() for _ in range(3)] == [0, 1, 2]
    data, _ = zk.get_data_and_version(PRODUCER_ID_BLOCK_PATH)
    assert json.loads(data) == {"version": 1, "broker": 0, "block_start": "0", "block_end": str(PID_BLOCK_SIZE - 1)}


def test_two_brokers_get_disjoint_blocks(zk):
    a, b = ProducerIdManager(0, zk), ProducerIdManager(1, zk)
    ids_a = {a.generate_producer_id() for _ in range(10)}
    ids_b = {b.generate_producer_id() for _ in range(10)}
    assert not ids_a & ids_b
    assert min(ids_b) == PID_BLOCK_SIZE


def test_a_used_up_block_is_followed_by_a_new_one(zk):
    m = ProducerIdManager(0, zk)
    ids = [m.generate_producer_id() for _ in range(PID_BLOCK_SIZE + 2)]
    assert ids == list(range(PID_BLOCK_SIZE + 2))
    data, _ = zk.get_data_and_version(PRODUCER_ID_BLOCK_PATH)
    assert json.loads(data)["block_start"] == str(PID_BLOCK_SIZE)

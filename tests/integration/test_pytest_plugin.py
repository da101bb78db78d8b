"""The ``kafka_broker`` fixture of kafkalite's pytest plugin (kafkalite/testing/plugin.py), used as the README
shows: an in-process broker on a free port with its own log.dirs, reached by a real client."""
from __future__ import annotations

import os

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

pytestmark = pytest.mark.timeout(60)


def test_readme_example_round_trip(kafka_broker):
    p = Producer({"bootstrap.servers": kafka_broker.bootstrap_servers})
    p.produce("orders", b"one", key=b"k")
    assert p.flush(10) == 0

    c = Consumer({"bootstrap.servers": kafka_broker.bootstrap_servers, "group.id": "plugin-test",
                  "enable.auto.commit": False})
    try:
        c.assign([TopicPartition("orders", 0, 0)])
        msg = c.poll(10)
        assert msg is not None and msg.error() is None
        assert (msg.key(), msg.value(), msg.offset()) == (b"k", b"one", 0)
    finally:
        c.close()


def test_each_test_gets_its_own_log_dir(kafka_broker, tmp_path):
    log_dir = kafka_broker.log_dir
    assert log_dir.startswith(str(tmp_path)) and os.path.isdir(log_dir)
    assert kafka_broker.server.config.log_dirs == [log_dir]

"""No Kafka counterpart: kafkalite's pytest plugin (registered as the ``kafkalite`` pytest11 entry
point). Fixtures:

- ``kafka_broker`` -- one in-process broker per test, on a free port, with its own temporary
  ``log.dirs``; ``kafka_broker.bootstrap_servers`` is the address for any Kafka client.
- ``kafka_broker_session`` -- the same, shared by a whole test session.
"""
from __future__ import annotations

import pytest

from kafkalite.testing.embedded_kafka import EmbeddedKafka


@pytest.fixture
def kafka_broker(tmp_path):
    broker = EmbeddedKafka(log_dir=str(tmp_path / "kafka-logs")).start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture(scope="session")
def kafka_broker_session(tmp_path_factory):
    broker = EmbeddedKafka(log_dir=str(tmp_path_factory.mktemp("kafkalite") / "kafka-logs")).start()
    try:
        yield broker
    finally:
        broker.stop()

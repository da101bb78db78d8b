"""KafkaServerTest: shutdown runs Kafka 2.4's order, and one component failing to stop does not keep the
others running (CoreUtils.swallow)."""
from __future__ import annotations

import os

import pytest

from kafkalite.testing.embedded_kafka import EmbeddedKafka

pytestmark = pytest.mark.timeout(60)


def test_a_failing_component_does_not_stop_the_rest_of_the_shutdown(tmp_path, caplog):
    broker = EmbeddedKafka(log_dir=str(tmp_path / "logs")).start()
    server = broker.server
    order = []
    for name in ("kafka_scheduler", "group_coordinator", "log_manager", "socket_server"):
        component = getattr(server, name)
        original = component.shutdown

        def wrapped(original=original, name=name):
            order.append(name)
            original()                      # stop it for real (its threads are not daemons), then fail
            if name == "group_coordinator":
                raise RuntimeError("boom")
        component.shutdown = wrapped
    server.shutdown()
    assert order == ["kafka_scheduler", "group_coordinator", "log_manager", "socket_server"]
    assert os.path.exists(tmp_path / "logs" / ".kafka_cleanshutdown")     # the log manager still finished
    assert "Error during shutdown" in caplog.text and "boom" in caplog.text
    assert server.await_shutdown(0)

"""No Kafka counterpart: ``python -m kafkalite`` (kafkalite/kafka.py main) keeps CPython's cyclic garbage collector
off while the broker starts (issue 18) and always turns it back on. Structural, not timed: KafkaServer.startup is
replaced by a stand-in that records whether the collector runs, then fails, so main takes its error path."""
from __future__ import annotations

import gc

import signal

from kafkalite import kafka
from kafkalite.server.kafka_server import KafkaServer


def test_collector_is_off_during_startup_and_on_after(tmp_path, monkeypatch):
    seen = []

    def startup(self, *args, **kwargs):
        seen.append(gc.isenabled())
        raise RuntimeError("stand-in start-up failure")

    monkeypatch.setattr(KafkaServer, "startup", startup)
    monkeypatch.setattr(KafkaServer, "shutdown", lambda self: None)
    # main installs SIGTERM/SIGINT handlers for the broker's process: this test process keeps its own
    monkeypatch.setattr(kafka.signal, "signal", lambda signum, handler: signal.getsignal(signum))
    props = tmp_path / "server.properties"
    props.write_text(f"listeners=PLAINTEXT://127.0.0.1:0\nlog.dirs={tmp_path / 'logs'}\n")
    assert gc.isenabled()
    assert kafka.main([str(props)]) == 1
    assert seen == [False], "the collector ran during start-up"
    assert gc.isenabled(), "main left the collector off"

"""No Kafka counterpart: the bench measures start-up as a user sees it (issue 18, docs/benchmarks.md, Start-up).

A user's broker loads cached bytecode (pip install compiles it; an editable install writes ``__pycache__`` on its
first import), so the brokers the bench spawns may write bytecode even when the shell running the bench sets
PYTHONDONTWRITEBYTECODE. Not timed: the test only looks at the environment the broker would be given.
"""
from __future__ import annotations

import pytest

import bench.brokers as brokers


class _Spawned(Exception):
    pass


def test_the_bench_lets_the_broker_write_bytecode(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    seen = {}

    def fake_popen(cmd, **kwargs):
        seen.update(kwargs["env"])
        raise _Spawned

    monkeypatch.setattr(brokers.subprocess, "Popen", fake_popen)
    with pytest.raises(_Spawned):
        brokers.Kafkalite(str(tmp_path)).start()
    assert seen and "PYTHONDONTWRITEBYTECODE" not in seen
    assert brokers.REPO in seen["PYTHONPATH"].split(":")

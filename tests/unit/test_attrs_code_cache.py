"""No Kafka counterpart: kafkalite/utils/attrs_code_cache.py keeps the methods attrs generates across starts (issue 18).

Structural, not timed: a first interpreter builds some attrs classes and saves; a second one, with another string
hash salt, builds the same classes without compiling any of their methods, and every ``__hash__`` carries its own
process's hash literal again (never the sentinel the file stores). Each interpreter points the cache at a file in
the test's tmp dir, so the repository's own ``__pycache__`` is not touched.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BUILD_AND_REPORT = r"""
import json, sys, types
from kafkalite.utils import attrs_code_cache as cache
cache._path, cache._cache = sys.argv[1], None                 # nothing built yet: kafkalite/__init__ only installs
from kafkalite.zookeeper import zoo_keeper_client as zkc     # ~20 attrs classes, frozen (hashed) ones among them
from kafkalite.common.topic_partition import TopicPartition

def consts(code):
    for c in code.co_consts:
        yield from consts(c) if isinstance(c, types.CodeType) else (c,)

stat_hash_consts = set(c for c in consts(zkc.Stat.__hash__.__code__) if type(c) is int)
own = hash("<attrs generated hash kafkalite.zookeeper.zoo_keeper_client.Stat>")
print(json.dumps({"stats": cache.stats, "saved": cache.save(), "own_literal": own in stat_hash_consts,
                  "sentinel": cache.SENTINEL in stat_hash_consts,
                  "equal_hash": hash(TopicPartition("t", 1)) == hash(TopicPartition("t", 1)),
                  "stat_eq": zkc.Stat(version=3) == zkc.Stat(version=3) and zkc.Stat(version=3) != zkc.Stat()}))
"""


def run(cache_file: Path, seed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    env.pop("PYTHONDONTWRITEBYTECODE", None)        # save() writes only where Python would write its .pyc
    proc = subprocess.run([sys.executable, "-c", BUILD_AND_REPORT, str(cache_file)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_second_interpreter_compiles_no_attrs_method(tmp_path):
    cache_file = tmp_path / "attrs.marshal"
    first = run(cache_file, "1")
    assert first["stats"]["misses"] > 10 and first["stats"]["hits"] == 0
    assert first["saved"] and cache_file.exists()
    second = run(cache_file, "2")                    # another salt: every hash literal in the source differs
    assert second["stats"]["misses"] == 0, "a class's methods were compiled again although the cache holds them"
    assert second["stats"]["hits"] == first["stats"]["misses"]
    assert not second["saved"], "nothing new compiled: the file should not be rewritten"
    for report in (first, second):
        assert report["own_literal"] and not report["sentinel"]
        assert report["equal_hash"] and report["stat_eq"]


def test_a_file_from_another_interpreter_is_ignored(tmp_path):
    cache_file = tmp_path / "attrs.marshal"
    cache_file.write_bytes(b"kafkalite-attrs-code-1\n" + b"\0\0\r\n" + b"garbage")
    report = run(cache_file, "3")
    assert report["stats"]["hits"] == 0 and report["saved"]

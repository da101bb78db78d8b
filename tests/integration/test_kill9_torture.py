"""No Kafka counterpart: the short variant of ``tests/torture/kill9_torture.py`` (two kill -9
cycles under an acks=all idempotent load, then a full read-back: nothing acknowledged lost,
nothing duplicated, nothing reordered). The long variant is one command away:
``python tests/torture/kill9_torture.py --cycles 20``.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "torture"))

from kill9_torture import check, torture  # noqa: E402


def test_check_counts_losses_duplicates_and_reordering():
    records = {0: [b"0:0", b"0:2", b"0:1", b"0:2"], 1: [b"1:0"]}
    result = check({b"0:0", b"0:1", b"0:3", b"1:0"}, records)
    assert result == {"acked": 4, "in_log": 4, "lost": 1, "duplicates": 1, "reordered": 2}


@pytest.mark.timeout(300)
def test_kill9_cycles_lose_duplicate_and_reorder_nothing(tmp_path):
    result = torture(tmp_path, cycles=2, acks_per_cycle=1500)
    print(result)
    assert result["acked"] >= 3000
    assert (result["lost"], result["duplicates"], result["reordered"]) == (0, 0, 0), result

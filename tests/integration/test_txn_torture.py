"""No Kafka counterpart: the short variant of ``tests/torture/txn_torture.py`` -- a consume-transform-produce
application (``tests/torture/txn_ctp_app.py``, confluent-kafka, exactly-once) killed with SIGKILL at random
points 5 times, the broker killed with SIGKILL and restarted in between; a read_committed reader of the output
then finds each input record exactly once. The long variant (20 rounds) is one command away:
``python tests/torture/txn_torture.py --rounds 20 --seed 1``.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "torture"))

from txn_torture import check, torture  # noqa: E402


def test_check_counts_missing_duplicated_and_misplaced_records():
    inputs = [b"0:0", b"1:1", b"2:2", b"0:3"]
    outputs = [(0, b"out:0:0"), (0, b"out:0:0"), (2, b"out:1:1"), (2, b"out:2:2"), (1, b"out:9:9")]
    assert check(inputs, outputs) == {"input": 4, "output": 5, "missing": 1, "duplicates": 1, "misplaced": 2}


@pytest.mark.timeout(300)
def test_consume_transform_produce_killed_at_random_points_outputs_each_record_once(tmp_path):
    result = torture(tmp_path, rounds=5, seed=15, records_per_round=1000, broker_every=2)
    print(result)
    assert result["broker_kills"] == 2
    assert result["output"] >= result["input"] == 5000
    assert (result["missing"], result["duplicates"], result["misplaced"]) == (0, 0, 0), result

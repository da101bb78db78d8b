"""No Kafka counterpart: the short variant of ``tests/torture/cluster_torture.py`` -- five leader faults (SIGKILL,
SIGSTOP/SIGCONT, clean restart, picked by the seeded RNG) on three broker processes over Debian's ZooKeeper under
an idempotent acks=all load with RF=3 and min.insync.replicas=2, then nothing acknowledged lost, duplicated or
reordered and every replica identical below the high watermark; and one unclean round (acks=1, the topic's
``unclean.leader.election.enable=true``): only what a lone leader acknowledged is lost, the replicas re-converge
byte for byte, and a twin topic without the override stays offline. The long variant is one command away:
``python tests/torture/cluster_torture.py`` (100 faults, 3 unclean rounds).
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "torture"))

from cluster_torture import failures, run  # noqa: E402

pytestmark = pytest.mark.cluster


def test_failures_names_what_must_be_zero():
    clean = {"lost": 0, "duplicates": 0, "reordered": 0, "unclean-torture: lost": 12,
             "unclean-torture: lost beyond those": 0, "unclean-torture: duplicates": 0,
             "unclean-torture-twin: acked": 30, "unclean-torture-twin: lost": 0}
    assert failures(clean) == []
    assert failures({**clean, "duplicates": 2, "unclean-torture-twin: lost": 1,
                     "unclean-torture: lost beyond those": 3}) == [
        "duplicates 2", "unclean-torture-twin: lost 1", "unclean-torture: lost beyond those 3"]


@pytest.mark.timeout(240)
def test_five_leader_faults_and_an_unclean_round(tmp_path):
    result = run(tmp_path, kills=5, unclean=1, seed=14)
    print(result)
    assert failures(result) == [], result
    assert result["acked"] >= 1500 and result["partitions_with_identical_replicas"] == 3, result
    assert result["sigkills"] and result["sigstops"] and result["restarts"], "seed 14 picks every kind of fault"
    assert result["unclean_elections"] == 1, result
    assert result["unclean-torture: lost"] == result["unclean-torture: acknowledged by a leader alone"] > 0, result

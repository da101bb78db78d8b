"""No Kafka counterpart: bench/scale.py (issue 18's scale group) at tiny sizes, so it cannot rot.

Runs each of its three scenarios once against a real broker process (two partition sizes, 20 idle
connections, 2 groups of 3 raw members) and checks that every figure is there and no run failed; no figure
is judged (never timed assertions). Also checks the growth ratios and the Markdown section on fixed rows.
"""
import os

import pytest

from bench import scale


@pytest.mark.timeout(240)
def test_scale_scenarios_run_at_tiny_sizes(tmp_path):
    logged = []
    results = scale.run(str(tmp_path), logged.append, sizes={"partitions": [100, 200], "connections": [20],
                                                             "groups": [(2, 3)]}, batch_topics=1)
    parts = results["partitions"]
    assert [r["partitions"] for r in parts] == [100, 200]
    for r in parts:
        assert r["errors"] == [], r["errors"]
        assert r["produce_errors"] == 0
        assert r["restart_s"] is not None and r["restart_s"] >= r["restart_to_metadata_s"] > 0
        assert r["fds_per_partition"] > 0 and r["rss_kib_per_partition"] is not None
        assert r["metadata_ms"] > 0 and r["create_cpu_ms_per_partition"] > 0
    (conns,) = results["connections"]
    assert conns["conns"] == 20 and conns["errors"] == 0
    (groups,) = results["groups"]
    assert groups["members"] == 6 and groups["stable_members"] == 6 and groups["errors"] == 0
    assert groups["stable_s"] is not None
    assert len(logged) == 4
    text = "\n".join(scale.markdown(results))
    assert "| 200 |" in text and "| 2 × 3 |" in text
    assert os.listdir(tmp_path) is not None


def test_growth_is_cost_ratio_over_size_ratio():
    rows = [{"partitions": 100, "t": 1.0}, {"partitions": 200, "t": 2.0}, {"partitions": 400, "t": 8.0},
            {"partitions": 800, "t": None}]
    assert scale.growth(rows, "t") == ["", "1.00", "2.00", "–"]

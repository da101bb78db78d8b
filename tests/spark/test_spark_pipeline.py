"""No Kafka counterpart: the README's pipeline command, run as a user runs it (its own broker, its own Spark)."""
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.spark


def test_pipeline_command_prints_windowed_counts(tmp_path, spark_requirements):
    done = subprocess.run([sys.executable, "-m", "kafkalite.spark.pipeline", "--events", "600",
                           "--max-offsets-per-trigger", "200", "--checkpoint", str(tmp_path / "ck")],
                          capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = re.findall(r"^(\S+ \S+)\s+(\S+ \S+)\s+(/\S*)\s+(\d+)$", done.stdout, re.M)
    assert "Produced 600 page views" in done.stdout
    summary = re.search(r"^(\d+) window counts in topic page-view-counts$", done.stdout, re.M)
    assert summary and int(summary.group(1)) == len(lines) > 0, done.stdout
    counts = [int(c) for *_, c in lines]
    assert all(c > 0 for c in counts) and sum(counts) <= 600
    windows = sorted({(start, end) for start, end, _, _ in lines})
    assert len(windows) >= 2       # 30 s of event time in 10 s windows: the closed ones are printed

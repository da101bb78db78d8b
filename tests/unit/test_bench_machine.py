"""No Kafka counterpart: bench/machine.py's socket -> file loop, which the large-batch produce rows are set
against (issue 18). The default run unlinks its file (the next run reuses the freed page cache); ``keep=True``
leaves it, as a log keeps its data, until ``remove_kept``."""
import os

from bench import machine


def _segments(d):
    return sorted(n for n in os.listdir(d) if n.startswith("machine-limit"))


def test_the_loop_writes_every_frame_and_unlinks_its_file(tmp_path):
    mb_per_s, cpu_s_per_gb = machine.socket_to_file(str(tmp_path), total_mb=4)
    assert mb_per_s > 0 and cpu_s_per_gb > 0
    assert _segments(tmp_path) == []


def test_a_kept_run_leaves_its_file_until_remove_kept(tmp_path):
    machine.socket_to_file(str(tmp_path), total_mb=3, keep=True)
    machine.socket_to_file(str(tmp_path), total_mb=2, keep=True)
    kept = _segments(tmp_path)
    assert len(kept) == 2
    assert sorted(os.path.getsize(tmp_path / n) for n in kept) == [2 << 20, 3 << 20]
    machine.remove_kept(str(tmp_path))
    assert _segments(tmp_path) == []

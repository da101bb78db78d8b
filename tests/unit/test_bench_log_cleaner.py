"""No Kafka counterpart: a smoke run of ``python -m bench.log_cleaner`` (1 MiB, one repetition), so the
benchmark cannot rot. No figure is judged: it checks that a clean ran and left one record per key."""
from bench import log_cleaner


def test_log_cleaner_bench_smoke(capsys):
    med = log_cleaner.main(["--mb", "1", "--reps", "1", "--keys", "100"])
    out = capsys.readouterr().out
    assert "cleaned MB/s" in out and med["mb_per_s"] > 0
    assert med["recopy_percent"] < 50 and med["size_after_mb"] < med["dirty_mb"]

"""No Kafka counterpart: bench/client_bound.py times the producer loop and the flush apart against a real
kafkalite broker and prints a row per broker and partition count (issue 18, docs/benchmarks.md). Not timed: the
test looks at what is printed and that every record was acknowledged."""
import re

import pytest

from bench import client_bound

pytestmark = pytest.mark.timeout(120)


def test_it_runs_both_partition_counts_and_prints_the_medians(capsys):
    assert client_bound.main(["--reps", "1", "--records", "3000", "--no-peer"]) == 0
    out = capsys.readouterr().out
    for parts in (1, 6):
        assert re.search(rf"kafkalite p{parts} rep 0: loop [0-9.]+ s, flush [0-9.]+ s", out)
        assert re.search(rf"^\| kafkalite \| {parts} \|", out, re.M)

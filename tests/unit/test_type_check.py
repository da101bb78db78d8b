"""No Kafka counterpart (Kafka has javac): the type checker runs over the packages setup.cfg's [mypy]
section lists, and the Errors stub it reads agrees with errors.py's table."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(300)
def test_mypy_passes_on_the_typed_packages():
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", "/dev/null"], cwd=ROOT, capture_output=True,
                          text=True, timeout=280)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_errors_stub_matches_the_table():
    from kafkalite.protocol.make_errors_stub import STUB, render
    assert STUB.read_text() == render(), "errors.pyi is stale: python -m kafkalite.protocol.make_errors_stub"

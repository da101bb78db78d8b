"""No Kafka counterpart: the short, CI variant of ``tests/torture/fuzz_frames.py`` -- malformed frames for
every API key and version; no broker thread dies, only the offending connection closes, memory stays
bounded. The long run: ``python tests/torture/fuzz_frames.py --examples 20000``."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "torture"))

from fuzz_frames import MB, FuzzTarget, run  # noqa: E402


@pytest.mark.timeout(180)
def test_malformed_frames_for_every_api_close_only_their_connection(tmp_path):
    target = FuzzTarget(str(tmp_path / "logs"))
    try:
        run(target, 3000)
    finally:
        target.stop()
    print(f"{target.examples} frames: {target.answered} answered, {target.closed} closed; "
          f"RSS {target.rss_start / MB:.0f} -> peak {target.rss_peak / MB:.0f} MB")
    assert target.examples >= 3000
    assert target.rss_peak - target.rss_start < 150 * MB

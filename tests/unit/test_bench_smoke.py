"""No Kafka counterpart: a smoke run of the benchmark harness (``python -m bench --smoke``), so it cannot rot.

One tiny produce scenario, one repetition, loopback only, no installs, no plot and no figures judged:
the test checks that the harness starts the broker, runs the load generator, stops every process it
started and writes its table. The peer (Tansu) runs too when its binary is installed, and is left
out otherwise (``--no-peer``).
"""
import json
import os
import subprocess
import sys

import pytest

from bench.brokers import find_tansu, kafka_request, read_response, proc_cpu_seconds

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.timeout(120)
def test_smoke_run_writes_a_table_and_leaves_no_process(tmp_path):
    args = [sys.executable, "-m", "bench", "--smoke", "--out", str(tmp_path)]
    if find_tansu() is None:
        args.append("--no-peer")
    proc = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=110)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]

    table = (tmp_path / "results.md").read_text()
    assert "| produce 100 B, acks=1, 1 partition |" in table
    data = json.loads((tmp_path / "results.json").read_text())
    kl_runs = [r for r in data["runs"] if r["broker"] == "kafkalite"]
    assert len(kl_runs) == 1
    result = kl_runs[0]["result"]
    assert result["errors"] == 0
    assert result["records"] > 0 and result["mb_per_s"] > 0
    assert kl_runs[0]["broker_cpu_s"] >= 0
    if find_tansu() is not None:
        assert any(r["broker"] == "tansu" for r in data["runs"])
    assert not (tmp_path / "results.png").exists()  # the smoke run draws no figures
    # every broker the harness started was stopped by its PID
    pids = data["meta"]["broker_pids"]
    assert "kafkalite" in pids
    assert [pid for pid in pids.values() if _alive(pid)] == []


def test_wire_probe_frames_an_api_versions_request():
    frame = kafka_request(18, 0, 42)
    size = int.from_bytes(frame[:4], "big")
    assert size == len(frame) - 4
    assert frame[4:12] == bytes.fromhex("0012" "0000" "0000002a")
    assert frame[12:19] == b"\x00\x05bench"


def test_read_response_rejects_a_wrong_correlation_id():
    import socket
    a, b = socket.socketpair()
    with a, b:
        a.sendall((8).to_bytes(4, "big") + (7).to_bytes(4, "big") + b"\0\0\0\0")
        with pytest.raises(ConnectionError):
            read_response(b, 8)


def test_proc_cpu_seconds_grows_with_work():
    before = proc_cpu_seconds(os.getpid())
    x = 0
    for i in range(3_000_000):
        x += i
    assert proc_cpu_seconds(os.getpid()) > before

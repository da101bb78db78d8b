"""Mirrors what Kafka 2.4 does with a bad configuration (KafkaConfig / ConfigDef.parse throwing
ConfigException, "Invalid value abc for configuration num.io.threads: Not a number of type
INT"): the broker does not start, exits non-zero, and says so in one line naming the key and
the value (DESIGN §8). An unknown key is only warned about.
"""

import re
import shutil
import subprocess

import pytest

from harness import REPO_ROOT, free_port, port_accepts


def start_and_wait_for_exit(tmp_path, overrides, properties=None, timeout=20):
    port = free_port()
    cmd = [str(REPO_ROOT / "bin" / "kafka-server-start"), str(properties or REPO_ROOT / "server.properties"),
           "--override", f"log.dirs={tmp_path / 'kafka-logs'}"]
    if not any(k == "listeners" for k, _ in overrides):
        cmd += ["--override", f"listeners=PLAINTEXT://127.0.0.1:{port}"]
    for key, value in overrides:
        cmd += ["--override", f"{key}={value}"]
    proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"broker did not exit within {timeout}s on a bad config (port {port} open: "
                    f"{port_accepts(port)})\n{err[-3000:]}")
    return proc.returncode, out + err


def assert_one_error_line(output, key, value):
    assert "Traceback" not in output, output
    naming = [line for line in output.splitlines() if key in line and value in line]
    assert len(naming) == 1, f"want exactly one line naming {key}={value}, got:\n{output}"


@pytest.mark.parametrize("key,value", [
    ("num.io.threads", "abc"),
    ("listeners", "bogus"),
    ("num.network.threads", "0"),
    ("log.message.format.version", "garbage"),   # Kafka: ApiVersionValidator
    ("log.message.format.version", "0.10.2"),    # a format kafkalite does not write (api_version.py)
])
def test_bad_override_exits_non_zero_with_one_line(tmp_path, key, value):
    code, output = start_and_wait_for_exit(tmp_path, [(key, value)])
    assert code != 0, output
    assert_one_error_line(output, key, value)
    assert "started (kafka.server.KafkaServer)" not in output


def test_bad_value_in_server_properties(tmp_path):
    props = tmp_path / "server.properties"
    shutil.copy(REPO_ROOT / "server.properties", props)
    with open(props, "a") as f:
        f.write("\nsocket.request.max.bytes=lots\n")
    code, output = start_and_wait_for_exit(tmp_path, [], properties=props)
    assert code != 0, output
    assert_one_error_line(output, "socket.request.max.bytes", "lots")


def test_unknown_key_is_warned_about_and_broker_starts(broker_factory):
    b = broker_factory({"no.such.kafkalite.key": "1"})
    assert re.search(r"(?i)warn.*no\.such\.kafkalite\.key|no\.such\.kafkalite\.key.*(isn't a known|unknown)",
                     b.log_text()), b.log_tail()


def test_deprecated_port_key_is_checked_and_used(tmp_path):
    """Kafka 2.4 still reads ``port`` (and ``host.name``) when ``listeners`` is unset."""
    from harness import BrokerProcess
    no_listeners = tmp_path / "no-listeners.properties"
    no_listeners.write_text("".join(line for line in (REPO_ROOT / "server.properties").read_text().splitlines(True)
                                    if not line.startswith(("listeners=", "advertised.listeners="))))
    bad = BrokerProcess(tmp_path / "bad", {"listeners": None, "port": "abc"}, properties=no_listeners)
    proc = subprocess.run(bad.command(), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "port" in lines[0] and "abc" in lines[0], proc.stderr
    port = free_port()
    good = BrokerProcess(tmp_path / "good", {"listeners": None, "port": str(port), "host.name": "127.0.0.1"},
                         port=port, properties=no_listeners).start()
    try:
        assert f"PLAINTEXT://127.0.0.1:{port}" in good.log_text()
    finally:
        good.stop()


@pytest.mark.parametrize("dirs", ["/proc/kafkalite-cannot-be-here", "/proc/a,/proc/b"])
def test_unusable_log_dirs_stop_startup_with_one_line_naming_the_key(tmp_path, dirs):
    from harness import BrokerProcess
    b = BrokerProcess(tmp_path / "b", {"log.dirs": dirs, "zookeeper.connect": f"embedded:{tmp_path / 'zk'}"})
    proc = subprocess.run(b.command(), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr, proc.stderr
    fatal = [line for line in proc.stderr.splitlines() if "Fatal error during KafkaServer startup" in line]
    assert len(fatal) == 1 and "log.dirs=" in fatal[0] and "/proc/" in fatal[0], proc.stderr


def test_one_unusable_log_dir_of_two_is_offline_and_the_broker_serves(tmp_path):
    import clients
    from harness import BrokerProcess
    good = tmp_path / "good"
    b = BrokerProcess(tmp_path / "b", {"log.dirs": f"/proc/kafkalite-cannot-be-here,{good}",
                                       "zookeeper.connect": f"embedded:{tmp_path / 'zk'}"}).start()
    try:
        assert "Failed to create or validate data directory /proc/kafkalite-cannot-be-here" in b.log_text()
        clients.create_topic(b.bootstrap, "works", 1)
        clients.produce_confluent(b.bootstrap, "works", clients.make_records(5))
        assert (good / "works-0").is_dir()
    finally:
        b.stop()

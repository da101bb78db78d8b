"""No Kafka counterpart (Kafka's own fuzzing is done outside its tree): malformed frames for every API
key and version against one broker, generated with hypothesis.

Each example opens a connection and sends one frame: a well-formed request header for an API key and
version (every key kafkalite serves, every version it advertises, plus one beyond the newest and
unknown keys), followed by random bytes, or by a valid empty-ish body cut short or with bytes flipped.
Whatever the broker answers or closes, these must hold after every example:

- no broker thread has died (every thread that was alive before still is);
- a second, well-behaved connection opened before the run still gets answers (only the offending
  connection may be closed);
- the process's resident memory stays bounded.

CI runs a short variant (tests/integration/test_fuzz_frames.py, about a minute); the long one is

    python tests/torture/fuzz_frames.py --examples 20000
"""
from __future__ import annotations

import argparse
import socket
import struct
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

from hypothesis import HealthCheck, Phase, given, settings, strategies as st  # noqa: E402

from harness import RawConnection, request_header  # noqa: E402
from kafkalite.protocol.api_keys import ApiKeys  # noqa: E402

MB = 1 << 20


def rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def key_and_version():
    known = st.sampled_from(list(ApiKeys)).flatmap(
        lambda k: st.tuples(st.just(k.id), st.integers(k.min_version, k.max_version + 1),
                            st.just(k.request_header_version(min(k.max_version, max(k.min_version, 0))))))
    unknown = st.tuples(st.integers(-5, 200).filter(lambda i: not ApiKeys.has_id(i)),
                        st.integers(-2, 20), st.just(1))
    return st.one_of(known, unknown)


def body_bytes():
    return st.one_of(
        st.binary(max_size=300),
        st.binary(max_size=40).map(lambda b: b"\x00" * 8 + b),               # small counts, then noise
        st.binary(max_size=40).map(lambda b: b"\x7f\xff\xff\xff" + b),       # a huge array/string length
        st.binary(max_size=40).map(lambda b: b"\xff\xff\xff\xff" * 3 + b),  # -1s: null strings/arrays
    )


class FuzzTarget:
    """One in-process broker, one well-behaved connection, the threads alive at the start."""

    def __init__(self, tmp_dir: str):
        from kafkalite.testing.embedded_kafka import EmbeddedKafka
        self.broker = EmbeddedKafka(log_dir=tmp_dir, auto_create_topics_enable="false").start()
        self.port = self.broker.port
        self.witness = RawConnection(self.port, timeout=10)
        self.threads = [t for t in threading.enumerate() if t.is_alive()]
        self.rss_start = rss()
        self.rss_peak = self.rss_start
        self.examples = 0
        self.closed = self.answered = 0
        self._correlation = 0

    def send(self, api_key: int, version: int, header_version: int, body: bytes, cut: int) -> None:
        frame = request_header(api_key, version, 7, header_version=header_version) + body
        frame = frame[:len(frame) - cut] if cut < len(frame) else frame
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(struct.pack(">i", len(frame)) + frame)
            s.settimeout(0.3)
            try:
                data = s.recv(65536)
                if data:
                    self.answered += 1
                else:
                    self.closed += 1
            except (socket.timeout, ConnectionError):
                pass
        self.examples += 1
        self.check()

    def check(self) -> None:
        dead = [t.name for t in self.threads if not t.is_alive()]
        assert not dead, f"broker threads died: {dead}"
        self._correlation += 1
        self.witness.send_request(ApiKeys.API_VERSIONS.id, 0, self._correlation)
        reply = self.witness.recv_frame()
        assert struct.unpack(">i", reply[:4])[0] == self._correlation, "the witness connection got a wrong answer"
        self.rss_peak = max(self.rss_peak, rss())

    def stop(self) -> None:
        self.witness.sock.close()
        self.broker.stop()


def run(target: FuzzTarget, examples: int) -> None:
    # No shrinking: a broken broker fails on the first bad frame, and the frame is printed as it was.
    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(key_and_version(), body_bytes(), st.integers(0, 8))
    def fuzz(kv, body, cut):
        api_key, version, header_version = kv
        target.send(api_key, version, header_version, body, cut)

    fuzz()


def main(argv=None) -> int:
    import tempfile
    parser = argparse.ArgumentParser(description="fuzz a broker with malformed frames")
    parser.add_argument("--examples", type=int, default=20000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kafkalite-fuzz-") as tmp:
        target = FuzzTarget(tmp)
        started = time.monotonic()
        try:
            run(target, args.examples)
        finally:
            target.stop()
    print(f"{target.examples} frames in {time.monotonic() - started:.0f}s: {target.answered} answered, "
          f"{target.closed} closed; RSS {target.rss_start / MB:.0f} -> peak {target.rss_peak / MB:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Mirrors cases of Kafka's SocketServerTest (core/src/test/.../network/): bad input closes only
the connection that sent it.

Kafka 2.4: NetworkReceive refuses a size above ``socket.request.max.bytes`` or below 0
(InvalidReceiveException, "Invalid receive (size = ...)"); Processor.processCompletedReceives
closes the channel when the header does not parse, the api key is unknown or the version is
unsupported for any API but ApiVersions ("Closing socket for ... because of error"); a peer that
goes away mid-frame is a disconnect. None of it touches another connection or a thread.
"""

import re
import struct

import pytest

from harness import RawConnection, check_alive, request_header, wait_until

MAX_BYTES = 4096


def oversize(conn):
    conn.send_raw(struct.pack(">i", MAX_BYTES + 1) + b"\x00" * 64)


def negative_size(conn):
    conn.send_raw(struct.pack(">i", -5))


def garbage_header(conn):
    # Api key 18, then one byte where the version's second byte and the rest should be.
    conn.send_frame(b"\x00\x12\x00")


def client_id_past_end(conn):
    # A header whose client id claims 30000 bytes in a 20-byte frame.
    conn.send_frame(struct.pack(">hhih", 18, 0, 1, 30000) + b"abcdefghij")


def unknown_api_key(conn):
    conn.send_frame(request_header(999, 0, 1))


def unsupported_metadata_version(conn):
    # Metadata v99; only ApiVersions gets the KIP-511 fallback, any other API is closed.
    conn.send_frame(request_header(3, 99, 1, header_version=2) + struct.pack(">i", -1))


def disconnect_mid_frame(conn):
    conn.send_raw(struct.pack(">i", 100) + request_header(18, 0, 1)[:6])
    conn.close()


# Each case, and a pattern the broker's log must show for it (Kafka's wording, loosely).
CASES = {
    "oversize-frame": (oversize, r"(?i)larger than|too large|exceed"),
    "negative-size": (negative_size, r"(?i)invalid receive|negative"),
    "garbage-header": (garbage_header, r"(?i)header|invalid request|pars(e|ing)"),
    "client-id-past-end": (client_id_past_end, r"(?i)header|invalid request|pars(e|ing)"),
    "unknown-api-key": (unknown_api_key, r"(?i)api ?key"),
    "unsupported-version": (unsupported_metadata_version, r"(?i)version"),
    "disconnect-mid-frame": (disconnect_mid_frame, r"(?i)disconnect|closed|EOF|end of stream"),
}


@pytest.fixture
def small_broker(broker_factory):
    return broker_factory({"socket.request.max.bytes": MAX_BYTES})


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_closes_only_that_connection(small_broker, case):
    send_bad, why = CASES[case]
    with RawConnection(small_broker.port) as good:
        check_alive(good, 1)
        log_from = small_broker.log_size()

        bad = RawConnection(small_broker.port)
        check_alive(bad, 100)  # accepted and served before it misbehaves
        send_bad(bad)
        if case != "disconnect-mid-frame":
            assert bad.closed_by_peer(10), f"{case}: the broker kept the connection open"
        bad.close()

        # The log says why (bounded wait: the log line may trail the close).
        wait_until(lambda: re.search(why, small_broker.log_text(log_from)), 10,
                   f"a broker log line matching {why!r} after {case}")

        # The other connection and the broker are unharmed.
        check_alive(good, 2)
        with RawConnection(small_broker.port) as newcomer:
            check_alive(newcomer, 3)
    assert small_broker.running


def test_frame_at_the_limit_is_accepted(small_broker):
    # Metadata v4 (no auto-create) for one long topic name, sized so the frame is exactly
    # socket.request.max.bytes: Kafka refuses only sizes *greater* than the limit.
    with RawConnection(small_broker.port) as conn:
        header = request_header(3, 4, 9)
        name_len = MAX_BYTES - len(header) - 4 - 2 - 1
        body = struct.pack(">ih", 1, name_len) + b"x" * name_len + b"\x00"
        assert len(header + body) == MAX_BYTES
        conn.send_frame(header + body)
        (corr,) = struct.unpack_from(">i", conn.recv_frame())
        assert corr == 9
        check_alive(conn, 10)


def test_all_bad_cases_in_a_row_leave_one_good_connection_served(small_broker):
    with RawConnection(small_broker.port) as good:
        for i, (send_bad, _) in enumerate(CASES.values()):
            bad = RawConnection(small_broker.port)
            send_bad(bad)
            bad.close()
            check_alive(good, 10 + i)
        with RawConnection(small_broker.port) as newcomer:
            check_alive(newcomer, 99)

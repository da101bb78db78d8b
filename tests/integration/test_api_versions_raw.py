"""Mirrors the cases of Kafka's ApiVersionsRequestTest (core/src/test/.../server/), on raw bytes.

KIP-511 (Kafka 2.4): an ApiVersions request at a version the broker does not know gets a v0
body with UNSUPPORTED_VERSION (35) and only the ApiVersions entry, on response header v0, and
the connection stays open so the client can retry lower. Every ApiVersions response uses
response header v0, even v3+. A v3+ request whose client software name or version does not
match ``[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?`` gets INVALID_REQUEST (42).
Each real client's own handshake is exercised by test_admin_clients.py and test_kcat.py.
"""

import struct

import pytest

from harness import (API_VERSIONS, RawConnection, api_versions_v3_body, check_alive, parse_api_versions_v0,
                     parse_api_versions_v3)

# The ranges DESIGN §2 / protocol-matrix §6 tell kafkalite to advertise for what issue 2 serves.
EXPECTED = {
    18: (0, 4),   # ApiVersions
    3: (0, 12),   # Metadata
    19: (0, 7),   # CreateTopics (Kafka 3.9's minimum, issue 19)
    20: (0, 6),   # DeleteTopics (Kafka 3.9's minimum, issue 19)
}


@pytest.fixture
def conn(broker):
    with RawConnection(broker.port) as c:
        yield c


def test_api_versions_v0_lists_broker_ranges(conn):
    conn.send_request(API_VERSIONS, 0, 7)
    corr, error, ranges = parse_api_versions_v0(conn.recv_frame())
    assert (corr, error) == (7, 0)
    for key, expected in EXPECTED.items():
        assert ranges.get(key) == expected, f"api key {key}"
    assert all(lo <= hi for lo, hi in ranges.values())


def test_api_versions_v3_uses_response_header_v0_and_same_ranges(conn):
    v0 = check_alive(conn, 1)
    conn.send_request(API_VERSIONS, 3, 2, api_versions_v3_body(), header_version=2)
    # parse_api_versions_v3 reads header v0 (no tagged fields after the correlation id) and fails
    # on leftover bytes, so a v1 response header would not parse.
    corr, error, ranges, throttle = parse_api_versions_v3(conn.recv_frame())
    assert (corr, error, throttle) == (2, 0, 0)
    assert ranges == v0


def test_too_new_api_versions_gets_v0_error_body_then_retry_succeeds(conn):
    conn.send_request(API_VERSIONS, 99, 0x01020304, api_versions_v3_body(), header_version=2)
    frame = conn.recv_frame()
    assert frame == bytes.fromhex(
        "01020304"      # correlation id (response header v0)
        "0023"          # error_code 35 UNSUPPORTED_VERSION
        "00000001"      # api_keys: one entry (v0 array, int32 count)
        "0012 0000 0004".replace(" ", "")  # ApiVersions: min 0, max 4
    ), frame.hex()
    # Same connection, lower version: as kafka-python (→ max) and librdkafka (→ v0) retry.
    conn.send_request(API_VERSIONS, 3, 5, api_versions_v3_body(), header_version=2)
    corr, error, ranges, _ = parse_api_versions_v3(conn.recv_frame())
    assert (corr, error) == (5, 0)
    assert ranges[API_VERSIONS] == EXPECTED[API_VERSIONS]
    check_alive(conn, 6)


def test_too_new_api_versions_v5_also_falls_back(conn):
    # The first version above the broker's max, not just an absurd one.
    conn.send_request(API_VERSIONS, 5, 11, api_versions_v3_body(), header_version=2)
    corr, error, ranges = parse_api_versions_v0(conn.recv_frame())
    assert (corr, error, ranges) == (11, 35, {API_VERSIONS: EXPECTED[API_VERSIONS]})
    check_alive(conn, 12)


@pytest.mark.parametrize("name,version", [("bad name!", "1.0"), ("kafkalite", "-1.0-"), ("", "1.0")])
def test_invalid_client_software_name_gets_invalid_request(conn, name, version):
    conn.send_request(API_VERSIONS, 3, 21, api_versions_v3_body(name, version), header_version=2)
    frame = conn.recv_frame()
    corr, error = struct.unpack_from(">ih", frame)
    assert (corr, error) == (21, 42)  # INVALID_REQUEST; the connection stays open
    check_alive(conn, 22)

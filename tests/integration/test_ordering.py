"""No Kafka counterpart as one test (SocketServerTest sends and receives in order throughout):
Kafka mutes a channel from the moment a request is handed to the handlers until its response is
sent (Processor.processCompletedReceives / processCompletedSends), so requests pipelined on one
connection are answered one at a time, in order, while other connections are served meanwhile.
"""

import struct

from harness import API_VERSIONS, RawConnection, check_alive, parse_api_versions_v0, request_header

METADATA_V1_ALL_TOPICS = struct.pack(">i", -1)  # topics = null: every topic


def test_pipelined_requests_answered_in_order_while_another_connection_is_served(broker):
    n = 40
    with RawConnection(broker.port) as busy, RawConnection(broker.port) as other:
        frames = b""
        for corr in range(1, n + 1):
            # Alternate a cheap and a heavier request, so handler threads finishing out of
            # order would show as out-of-order responses.
            if corr % 2:
                payload = request_header(3, 1, corr) + METADATA_V1_ALL_TOPICS
            else:
                payload = request_header(API_VERSIONS, 0, corr)
            frames += struct.pack(">i", len(payload)) + payload
        busy.send_raw(frames)  # all n in one write, none read yet

        # The second connection is answered while the first still has requests outstanding.
        check_alive(other, 1000)

        for corr in range(1, n + 1):
            frame = busy.recv_frame()
            (got,) = struct.unpack_from(">i", frame)
            assert got == corr, f"response {corr} of {n} carried correlation id {got}"
            if corr % 2 == 0:
                assert parse_api_versions_v0(frame)[1] == 0
        check_alive(other, 1001)
        check_alive(busy, n + 1)


def test_two_pipelined_requests_come_back_in_order(broker):
    with RawConnection(broker.port) as conn:
        a = request_header(3, 1, 77) + METADATA_V1_ALL_TOPICS
        b = request_header(API_VERSIONS, 0, 78)
        conn.send_raw(struct.pack(">i", len(a)) + a + struct.pack(">i", len(b)) + b)
        assert struct.unpack_from(">i", conn.recv_frame()) == (77,)
        corr, error, _ = parse_api_versions_v0(conn.recv_frame())
        assert (corr, error) == (78, 0)

"""Issue 6, "Done when" 1, 2 and 4 (S20-S23, S25): the control plane at work.

- With ``control.plane.listener.name`` set, the controller's LeaderAndIsr / UpdateMetadata are read by
  the control-plane Processor and handled by ``control-plane-kafka-request-handler-0`` from the
  RequestChannel of depth 20 while the data plane's queue is full (``queued.max.requests=1`` and a
  data-plane handler held on purpose). Without it they queue behind the data requests.
- S20's config errors stop start-up with Kafka's message, one line, non-zero exit.
- A full request queue blocks reading instead of dropping: pipelined requests all come back, in order.
"""
import struct
import subprocess
import threading

import pytest

from harness import REPO_ROOT, RawConnection, free_port, parse_api_versions_v0, wait_until

pytestmark = pytest.mark.timeout(90)
API_VERSIONS = 18


def start_broker(tmp_path, **props):
    from kafkalite.server.kafka_config import KafkaConfig
    from kafkalite.server.kafka_server import KafkaServer
    base = {"broker.id": 0, "log.dirs": str(tmp_path / "logs"), "listeners": "PLAINTEXT://127.0.0.1:0",
            "num.io.threads": 1, "queued.max.requests": 1, "offsets.topic.replication.factor": 1}
    server = KafkaServer(KafkaConfig.from_props({**base, **props}))
    server.startup()
    return server


def hold_data_plane(server):
    """Make the data plane's one handler thread wait on an Event for requests from client 'blocker'."""
    apis = server.data_plane_request_processor
    release = threading.Event()
    held = threading.Event()
    original = apis.handle

    def handle(request):
        if request.header.client_id == "blocker":
            held.set()
            release.wait(30)
        original(request)
    apis.handle = handle
    return release, held


def record_handled(apis, seen):
    original = apis.handle

    def handle(request):
        seen.append((request.api_key.name, threading.current_thread().name, request.processor,
                     request.from_control_plane, apis.request_channel))
        original(request)
    apis.handle = handle


def blocker_request(conn, correlation_id):
    client = b"blocker"
    conn.send_frame(struct.pack(">hhih", API_VERSIONS, 0, correlation_id, len(client)) + client)


def fill_data_plane(server):
    """Three connections: the first holds the handler, the second fills the queue (depth 1), the third
    leaves its Processor blocked in RequestChannel.send_request."""
    release, held = hold_data_plane(server)
    conns = [RawConnection(server.bound_port("PLAINTEXT")) for _ in range(3)]
    blocker_request(conns[0], 1)
    held.wait(10)
    for i, c in enumerate(conns[1:], start=2):
        blocker_request(c, i)
    channel = server.socket_server.data_plane_request_channel
    wait_until(lambda: channel.request_queue_size() == 1, 10, "the data-plane queue to be full")
    return release, conns


CP = {"listeners": "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
      "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
      "control.plane.listener.name": "CONTROLLER"}


def test_control_requests_bypass_a_full_data_plane(tmp_path):
    server = start_broker(tmp_path, **CP)
    release = None
    try:
        seen = []
        record_handled(server.control_plane_request_processor, seen)
        release, conns = fill_data_plane(server)
        server.admin_manager.admin_zk_client.create_topic("cp-topic", 2, 1)
        wait_until(lambda: server.metadata_cache.contains("cp-topic"), 15,
                   "UpdateMetadata for cp-topic while the data plane is full")
        # the data plane is still full and held
        assert server.socket_server.data_plane_request_channel.request_queue_size() == 1
        wait_until(lambda: {"LEADER_AND_ISR", "UPDATE_METADATA"} <= {s[0] for s in seen}, 10, "both requests recorded")
        cp_channel = server.socket_server.control_plane_request_channel_opt
        cp_processor = server.socket_server.control_plane_processor_opt
        assert cp_channel.queue_size == 20
        for api, thread, processor, from_cp, channel in seen:
            assert thread == "control-plane-kafka-request-handler-0", (api, thread)
            assert processor == cp_processor.id and from_cp and channel is cp_channel
        assert cp_processor.thread.name.startswith("control-plane-kafka-network-thread-0-CONTROLLER-PLAINTEXT-")
    finally:
        if release is not None:
            release.set()
        server.shutdown()


def test_without_a_control_plane_control_requests_wait_behind_data_requests(tmp_path):
    server = start_broker(tmp_path)
    release = None
    try:
        assert server.socket_server.control_plane_request_channel_opt is None
        seen = []
        release, conns = fill_data_plane(server)
        record_handled(server.data_plane_request_processor, seen)
        server.admin_manager.admin_zk_client.create_topic("dp-topic", 1, 1)
        with pytest.raises(AssertionError):   # stuck behind the held handler: nothing arrives
            wait_until(lambda: server.metadata_cache.contains("dp-topic"), 1.5, "dp-topic")
        release.set()
        wait_until(lambda: server.metadata_cache.contains("dp-topic"), 15, "dp-topic once the data plane moves")
        control = [s for s in seen if s[0] in ("LEADER_AND_ISR", "UPDATE_METADATA")]
        assert control
        for api, thread, processor, from_cp, channel in control:
            assert thread == "data-plane-kafka-request-handler-0" and not from_cp
            assert channel is server.socket_server.data_plane_request_channel
        for i, c in enumerate(conns, start=1):   # the held data requests were answered too
            assert parse_api_versions_v0(c.recv_frame())[0] == i
    finally:
        if release is not None:
            release.set()
        server.shutdown()


def start_and_wait_for_exit(tmp_path, overrides):
    port = free_port()
    cmd = [str(REPO_ROOT / "bin" / "kafka-server-start"), str(REPO_ROOT / "server.properties"),
           "--override", f"log.dirs={tmp_path / 'logs'}"]
    for k, v in overrides.items():
        cmd += ["--override", f"{k}={v.format(port=port, port2=free_port())}"]
    proc = subprocess.run(cmd, cwd=REPO_ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("overrides,message", [
    ({"listeners": "PLAINTEXT://127.0.0.1:{port}", "control.plane.listener.name": "CONTROLLER"},
     "Listener with CONTROLLER defined in control.plane.listener.name not found in listener.security.protocol.map."),
    ({"listeners": "PLAINTEXT://127.0.0.1:{port}",
      "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
      "control.plane.listener.name": "CONTROLLER"},
     "control.plane.listener.name must be a listener name defined in listeners"),
])
def test_control_plane_config_errors_stop_start_up(tmp_path, overrides, message):
    code, output = start_and_wait_for_exit(tmp_path, overrides)
    assert code != 0
    assert "Traceback" not in output
    lines = [line for line in output.splitlines() if message in line]
    assert len(lines) == 1, output
    assert "started (kafka.server.KafkaServer)" not in output


def test_full_request_queue_blocks_reading_and_answers_every_pipelined_request_in_order(tmp_path):
    server = start_broker(tmp_path, **{"num.network.threads": 2})
    try:
        conns = [RawConnection(server.bound_port("PLAINTEXT")) for _ in range(4)]
        n = 200
        for c in conns:   # 200 requests written at once on each connection, nothing read yet
            c.send_raw(b"".join(struct.pack(">i", 14) + struct.pack(">hhih", API_VERSIONS, 0, i, 4) + b"pipe"
                                for i in range(n)))
        for c in conns:
            got = [parse_api_versions_v0(c.recv_frame()) for _ in range(n)]
            assert [g[0] for g in got] == list(range(n))
            assert all(g[1] == 0 for g in got)
    finally:
        server.shutdown()

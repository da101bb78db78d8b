"""Issue 6, "Done when" 1, 2 and 4 (S20-S23, S25), and S26 on three brokers: the control plane at work.

- With ``control.plane.listener.name`` set, the controller's LeaderAndIsr / UpdateMetadata are read by
  the control-plane Processor and handled by ``control-plane-kafka-request-handler-0`` from the
  RequestChannel of depth 20 while the data plane's queue is full (``queued.max.requests=1`` and a
  data-plane handler held on purpose). Without it they queue behind the data requests.
- S26 (KAFKA-4453) on three brokers: a preferred-leader election reaches an old leader whose one data-plane
  handler is held while an acks=all produce waits in its purgatory: with a control plane the old leader steps
  down at once and the produce is answered NOT_LEADER_FOR_PARTITION (the retry succeeds on the new leader);
  without one the produce times out in the purgatory (``bench/control_plane_election.py`` measures the same
  on broker processes).
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


# ---- S26 on three brokers: a preferred-leader election reaching an old leader whose data plane is busy

ELECTION_TOPIC = "kafka-4453"


def cluster_with_a_moved_leader(kafka_cluster_factory, control_plane: bool):
    """Three in-process brokers with one handler thread each; ELECTION_TOPIC-0 on [P, L, C] (C the controller)
    is led by L after P restarted (controlled shutdown handed the leadership over), so P is the preferred
    leader waiting for an election. Returns (cluster, P, L)."""
    from kafkalite.clients.admin.admin_client import KafkaAdminClient
    from kafkalite.clients.admin.admin_types import NewTopic
    from kafkalite.common.topic_partition import TopicPartition
    overrides = {"listeners": CP["listeners"], "listener_security_protocol_map": CP["listener.security.protocol.map"],
                 "control_plane_listener_name": "CONTROLLER"} if control_plane else {}
    cluster = kafka_cluster_factory(3, replication_factor=3, min_insync_replicas=2, num_io_threads=1,
                                    auto_leader_rebalance_enable=False, **overrides)
    c = cluster.brokers.index(cluster.controller())
    p, l_ = [i for i in range(3) if i != c]
    with KafkaAdminClient({"bootstrap.servers": cluster.bootstrap_servers}) as admin:
        admin.create_topics([NewTopic(ELECTION_TOPIC, replica_assignments={0: [p, l_, c]})])
    tp = TopicPartition(ELECTION_TOPIC, 0)
    ctx = cluster.controller().server.kafka_controller.controller_context
    wait_until(lambda: tp in ctx.partition_leadership_info
               and len(ctx.partition_leadership_info[tp].leader_and_isr.isr) == 3, 15, "a full ISR")
    cluster.brokers[p].stop()
    cluster.brokers[p].start()
    wait_until(lambda: (lai := ctx.partition_leadership_info[tp].leader_and_isr).leader == l_ and len(lai.isr) == 3,
               30, f"broker {l_} to lead with a full ISR again")
    return cluster, p, l_


def local_leader(broker, tp):
    partition = broker.server.replica_manager.get_partition(tp)
    return partition.leader_replica_id_opt if partition is not None else None


def hold_after_first_produce(server):
    """Make the data plane's one handler thread wait on an Event right after it handled the first PRODUCE: the
    acks=all request waits in the purgatory, and the followers' fetches that would complete it queue behind."""
    apis = server.data_plane_request_processor
    release, held = threading.Event(), threading.Event()
    original = apis.handle

    def handle(request):
        original(request)
        if request.api_key.name == "PRODUCE" and not held.is_set():
            held.set()
            release.wait(30)
    apis.handle = handle
    return release, held


def expired_in_purgatory(tp) -> int:
    from kafkalite.metrics.kafka_metrics_group import METRICS
    meter = METRICS.get(f"kafka.server:type=DelayedProduceMetrics,name=ExpiresPerSec,topic={tp.topic},"
                        f"partition={tp.partition}")
    return meter.count if meter is not None else 0


@pytest.mark.parametrize("control_plane", [True, False], ids=["control-plane", "shared"])
def test_preferred_leader_election_reaches_an_old_leader_whose_data_plane_is_busy(kafka_cluster_factory,
                                                                                 control_plane):
    """KAFKA-4453 on three brokers. The old leader appended an acks=all produce and parked it in its purgatory;
    its one data-plane handler is then held, so the followers' fetches that would complete the produce queue up.
    confluent-kafka's admin client asks for a preferred-leader election. With a control plane the old leader
    gets its LeaderAndIsr at once, follows the new leader, answers the parked produce NOT_LEADER_FOR_PARTITION,
    while the data plane is still held; the producer's retry is acknowledged by the new leader.
    Without one the LeaderAndIsr waits behind the data requests: the old leader believes it leads, and the
    parked produce times out in its purgatory (DelayedProduceMetrics' ExpiresPerSec)."""
    from confluent_kafka import ElectionType, Producer
    from confluent_kafka import TopicPartition as CTP
    from confluent_kafka.admin import AdminClient
    from kafkalite.common.topic_partition import TopicPartition
    cluster, p, l_ = cluster_with_a_moved_leader(kafka_cluster_factory, control_plane)
    tp = TopicPartition(ELECTION_TOPIC, 0)
    old = cluster.brokers[l_]
    release, held = hold_after_first_produce(old.server)
    try:
        expired_before = expired_in_purgatory(tp)
        producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all", "linger.ms": 0,
                             "request.timeout.ms": 3000})
        delivered = []
        producer.produce(ELECTION_TOPIC, b"parked", partition=0,
                         on_delivery=lambda err, msg: delivered.append((err, msg.offset())))
        wait_until(lambda: producer.poll(0.05) is not None and held.is_set(), 10,
                   "the old leader to park the produce and hold its data plane")
        purgatory = old.server.replica_manager.delayed_produce_purgatory
        assert purgatory.num_delayed() == 1   # appended, waiting for followers whose fetches now queue up

        admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
        result = admin.elect_leaders(ElectionType.PREFERRED, [CTP(ELECTION_TOPIC, 0)]).result(15)
        assert {(t.topic, t.partition): err for t, err in result.items()} == {(ELECTION_TOPIC, 0): None}
        wait_until(lambda: local_leader(cluster.brokers[p], tp) == p, 10, "the preferred replica to lead")
        if control_plane:
            wait_until(lambda: local_leader(old, tp) == p, 10, "the old leader to follow, its data plane held")
            # becoming a follower answered the parked produce (NOT_LEADER_FOR_PARTITION): nothing left to expire
            wait_until(lambda: purgatory.num_delayed() == 0, 10, "the parked produce to be answered")
            assert not release.is_set() and expired_in_purgatory(tp) == expired_before
            release.set()
        else:
            wait_until(lambda: expired_in_purgatory(tp) == expired_before + 1, 10,
                       "the parked produce to time out in the old leader's purgatory")
            assert local_leader(old, tp) == l_   # its LeaderAndIsr still waits behind the held data plane
            release.set()
            wait_until(lambda: local_leader(old, tp) == p, 15, "the old leader to follow once its data plane moves")
        assert producer.flush(30) == 0
        assert len(delivered) == 1 and delivered[0][0] is None, delivered
        # the retry is the new leader's last record (the parked copy may be there too: its followers had fetched
        # it before the old leader's data plane stopped, and this producer is not idempotent)
        new_log = cluster.brokers[p].server.replica_manager.get_partition(tp).leader_log_if_local()
        assert new_log.log_end_offset == delivered[0][1] + 1
    finally:
        release.set()

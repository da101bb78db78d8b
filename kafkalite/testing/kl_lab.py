"""No Kafka counterpart: the walkthrough's lab -- kafkalite's network layer in this process, on 127.0.0.1 and a
free port (SocketServer + KafkaRequestHandlerPool + KafkaApis, wired as KafkaServer.startup wires them).

Chapters 1 and 2 of docs/walkthrough import it: ``from kafkalite.testing import kl_lab``.
"""
import socket, struct, tempfile

from kafkalite.network.socket_server import SocketServer
from kafkalite.server.kafka_apis import KafkaApis
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.server.kafka_request_handler import KafkaRequestHandlerPool
from kafkalite.utils.time import SYSTEM


def start(apis=None, **overrides):
    """SocketServer + KafkaRequestHandlerPool + KafkaApis; overrides: num_io_threads=2 -> num.io.threads=2."""
    props = {"broker.id": 0, "log.dirs": tempfile.mkdtemp(), "listeners": "PLAINTEXT://127.0.0.1:0"}
    props.update({k.replace("_", "."): v for k, v in overrides.items()})
    config = KafkaConfig.from_props(props)
    socket_server = SocketServer(config)
    socket_server.startup(start_processing_requests=False)
    channel = socket_server.data_plane_request_channel
    apis = apis or KafkaApis(channel, None, None, None, None, None, None, 0, config, None, SYSTEM, "lab")
    pool = KafkaRequestHandlerPool(0, channel, apis, SYSTEM, config.num_io_threads)
    socket_server.start_processing_requests()
    return socket_server, pool


def stop(socket_server, pool):
    socket_server.stop_processing_requests()
    pool.shutdown()
    socket_server.shutdown()


def connect(socket_server):
    return socket.create_connection(("127.0.0.1", socket_server.bound_port("PLAINTEXT")), timeout=5)


def frame(api_key, api_version, correlation_id, client_id=b"lab", body=b""):
    """4-byte size + request header v1 (api_key, api_version, correlation_id, client_id) + body."""
    payload = struct.pack(">hhih", api_key, api_version, correlation_id, len(client_id)) + client_id + body
    return struct.pack(">i", len(payload)) + payload


def read_response(s):
    """One response frame: (correlation_id, rest of the payload), or (None, b'') once the broker closed."""
    head = s.recv(4, socket.MSG_WAITALL)
    if len(head) < 4:
        return None, b""
    payload = s.recv(struct.unpack(">i", head)[0], socket.MSG_WAITALL)
    return struct.unpack_from(">i", payload)[0], payload[4:]

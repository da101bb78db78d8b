"""Kafka 2.4: SslTransportLayerTest / SslSelectorTest -- two kafkalite Selectors (a server side and a
client side) over loopback, both with SslChannelBuilders, driven by hand in one thread.

Covers: the non-blocking handshake driven by poll() (server-verified and mutual TLS), the principal taken
from the client certificate, requests and responses both ways (including a large one and a file region
through transfer_from), handshake failures (untrusted server, missing client certificate, plaintext
bytes on the TLS port) ending that channel as AUTHENTICATION_FAILED, and bytes left inside the TLS engine
being read although the socket is no longer readable (Selector.keysWithBufferedRead).
"""
from __future__ import annotations

import os
import socket
import struct
import time

import pytest

from kafkalite.common.memory.memory_pool import SimpleMemoryPool
from kafkalite.network.channel_builders import ChannelBuilders
from kafkalite.network.kafka_channel import ChannelState
from kafkalite.network.network_send import NetworkSend
from kafkalite.network.selector import Selector
from kafkalite.network.ssl_transport_layer import SslTransportLayer
from kafkalite.record.file_records import FileRecords
from kafkalite.security.auth.kafka_principal import KafkaPrincipal
from kafkalite.security.ssl.ssl_engine_builder import SslConfigError
from kafkalite.tools import gen_certs

pytestmark = pytest.mark.timeout(60)
DEADLINE_S = 10.0


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("certs"))
    gen_certs.generate(d, clients=("client",))
    rogue = os.path.join(d, "rogue")
    os.makedirs(rogue)
    gen_certs.make_ca(rogue, subject="/CN=rogue-ca")
    gen_certs.make_cert(rogue, "rogue-client", "/CN=rogue-client")
    return d


def server_configs(certs, client_auth="none", **extra):
    return {"ssl.keystore.location": f"{certs}/broker.p12", "ssl.keystore.type": "PKCS12",
            "ssl.keystore.password": gen_certs.DEFAULT_PASSWORD, "ssl.truststore.location": f"{certs}/ca.crt",
            "ssl.truststore.type": "PEM", "ssl.client.auth": client_auth, **extra}


def client_configs(certs, with_cert=True, ca=None, **extra):
    c = {"ssl.truststore.location": ca or f"{certs}/ca.crt", "ssl.truststore.type": "PEM", **extra}
    if with_cert:
        c.update({"ssl.keystore.location": f"{certs}/client.pem", "ssl.keystore.type": "PEM"})
    return c


class Pair:
    """A listening socket, a server Selector (the broker's Processor) and a client Selector."""

    def __init__(self, server_cfg, client_cfg, server_pool=None, client_host="127.0.0.1", server_sndbuf=0):
        self.listener = socket.socket()
        self.listener.bind((client_host, 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        kw = {} if server_pool is None else {"memory_pool": server_pool}
        self.server = Selector(channel_builder=ChannelBuilders.server_channel_builder(
            "SSL", False, "SSL", server_cfg), **kw)
        self.client = Selector(channel_builder=ChannelBuilders.client_channel_builder("SSL", client_cfg))
        self.client.connect("node", (client_host, self.port), receive_buffer_size=4096 if server_sndbuf else -1)
        sock, _ = self.listener.accept()
        sock.setblocking(False)
        if server_sndbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, server_sndbuf)
        self.server.register("conn", sock)
        self.server_receives, self.client_receives = [], []
        self.server_disconnects, self.client_disconnects = {}, {}

    def poll_both(self):
        self.client.poll(0)
        self.client_receives += self.client.completed_receives
        self.client_disconnects.update(self.client.disconnected)
        self.server.poll(0)
        self.server_receives += self.server.completed_receives
        self.server_disconnects.update(self.server.disconnected)

    def until(self, condition, what):
        deadline = time.monotonic() + DEADLINE_S
        while not condition():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            self.poll_both()
            time.sleep(0.001)

    def handshake(self):
        self.until(lambda: self.client.is_channel_ready("node") and self.server.is_channel_ready("conn"),
                   "both sides ready")

    def close(self):
        self.client.close()
        self.server.close()
        self.listener.close()


@pytest.fixture
def pairs():
    made = []

    def make(*args, **kwargs):
        p = Pair(*args, **kwargs)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


def test_handshake_and_echo_with_mutual_tls(certs, pairs):
    p = pairs(server_configs(certs, "required"), client_configs(certs))
    p.handshake()
    server_channel = p.server.channel("conn")
    assert isinstance(server_channel.transport_layer, SslTransportLayer)
    assert server_channel.principal() == KafkaPrincipal("User", "CN=client,OU=clients,O=kafkalite-test")
    p.client.send(NetworkSend("node", [b"ping"]))
    p.until(lambda: p.server_receives, "the request")
    assert bytes(p.server_receives[0].payload()) == b"ping"
    big = os.urandom(300_000)   # many TLS records and many partial writes
    p.server.send(NetworkSend("conn", [b"pong", big]))
    p.until(lambda: p.client_receives, "the response")
    assert bytes(p.client_receives[0].payload()) == b"pong" + big


def test_send_completes_only_when_the_ciphertext_left(certs, pairs):
    """TLS counts bytes as written when it encrypted them; with a small socket buffer much of the
    ciphertext still waits in net_write_buffer, and the send must not be reported complete (nor OP_WRITE
    dropped) until it has gone, or the response would never arrive whole."""
    p = pairs(server_configs(certs), client_configs(certs, with_cert=False), server_sndbuf=4096)
    p.handshake()
    big = os.urandom(2_000_000)
    p.server.send(NetworkSend("conn", [big]))
    transport = p.server.channel("conn").transport_layer
    for _ in range(50):
        p.server.poll(0)   # the client does not read meanwhile
        assert not p.server.completed_sends or not transport.has_pending_writes()
    p.until(lambda: p.client_receives, "the whole response")
    assert bytes(p.client_receives[0].payload()) == big


def test_server_verified_only_gives_anonymous_principal(certs, pairs):
    p = pairs(server_configs(certs, "requested"), client_configs(certs, with_cert=False))
    p.handshake()
    assert p.server.channel("conn").principal() == KafkaPrincipal.ANONYMOUS


def test_file_region_goes_through_tls_without_sendfile(certs, pairs, tmp_path):
    data = os.urandom(200_000)
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(data)
    records = FileRecords.open(str(path), file_already_exists=True)
    try:
        p = pairs(server_configs(certs), client_configs(certs, with_cert=False))
        p.handshake()
        p.server.send(NetworkSend("conn", [b"hdr", records.slice(1000, 150_000)]))
        p.until(lambda: p.client_receives, "the file region")
        assert bytes(p.client_receives[0].payload()) == b"hdr" + data[1000:151_000]
    finally:
        records.close()


def test_client_that_does_not_trust_the_server_fails_authentication(certs, pairs):
    p = pairs(server_configs(certs), client_configs(certs, with_cert=False, ca=f"{certs}/rogue/ca.crt"))
    p.until(lambda: "node" in p.client_disconnects, "the client to give up")
    assert p.client_disconnects["node"] is ChannelState.AUTHENTICATION_FAILED
    p.until(lambda: "conn" in p.server_disconnects, "the server to see the alert")


def test_client_without_certificate_is_refused_under_required_auth(certs, pairs):
    p = pairs(server_configs(certs, "required"), client_configs(certs, with_cert=False))
    p.until(lambda: "conn" in p.server_disconnects, "the server to refuse the client")
    assert p.server_disconnects["conn"] is ChannelState.AUTHENTICATION_FAILED
    # TLS 1.3: the client learns it on its first read after its side of the handshake
    p.until(lambda: "node" in p.client_disconnects, "the client to see the alert")


def test_untrusted_client_certificate_is_refused(certs, pairs):
    rogue = client_configs(certs, with_cert=False)
    rogue.update({"ssl.keystore.location": f"{certs}/rogue/rogue-client.pem", "ssl.keystore.type": "PEM"})
    p = pairs(server_configs(certs, "required"), rogue)
    p.until(lambda: "conn" in p.server_disconnects, "the server to refuse the client")
    assert p.server_disconnects["conn"] is ChannelState.AUTHENTICATION_FAILED


def test_host_name_is_checked_unless_endpoint_identification_is_empty(certs, pairs):
    # the broker certificate names localhost and 127.0.0.1, not 127.0.0.2
    p = pairs(server_configs(certs), client_configs(certs, with_cert=False), client_host="127.0.0.2")
    p.until(lambda: "node" in p.client_disconnects, "the host name check to fail")
    assert p.client_disconnects["node"] is ChannelState.AUTHENTICATION_FAILED
    p2 = pairs(server_configs(certs), client_configs(certs, with_cert=False,
                                                     **{"ssl.endpoint.identification.algorithm": ""}),
               client_host="127.0.0.2")
    p2.handshake()


def test_plaintext_bytes_on_the_tls_port_fail_that_channel_only(certs, pairs):
    p = pairs(server_configs(certs), client_configs(certs, with_cert=False))
    p.handshake()
    raw = socket.create_connection(("127.0.0.1", p.port))
    sock, _ = p.listener.accept()
    sock.setblocking(False)
    p.server.register("raw", sock)
    raw.sendall(struct.pack(">i", 12) + b"\x00\x12\x00\x00" + b"x" * 8)   # a Kafka frame, not TLS
    p.until(lambda: "raw" in p.server_disconnects, "the plaintext connection to be closed")
    assert p.server_disconnects["raw"] is ChannelState.AUTHENTICATION_FAILED
    raw.close()
    p.client.send(NetworkSend("node", [b"still here"]))
    p.until(lambda: p.server_receives, "the TLS client's request")
    assert bytes(p.server_receives[0].payload()) == b"still here"


def test_bytes_buffered_in_the_engine_are_read_without_the_socket_being_readable(certs, pairs):
    """Kafka's SslSelectorTest.testMuteOnOOM: the pool has room for one request; the second one is pulled
    out of the socket into the TLS engine, then the channel mutes itself for memory. Once the first
    request's memory is back, only keys_with_buffered_read can get the second one out."""
    pool = SimpleMemoryPool(1100, 1100, strict=True)
    p = pairs(server_configs(certs), client_configs(certs, with_cert=False), server_pool=pool)
    p.handshake()
    first, second = b"a" * 1000, b"b" * 1000
    send = NetworkSend("node", [first])
    p.client.send(send)
    p.until(lambda: send.completed() and not p.client.channel("node").has_send(), "the first send")
    p.client.send(NetworkSend("node", [second]))
    p.until(lambda: p.server_receives, "the first request")
    channel = p.server.channel("conn")
    p.until(lambda: channel.has_bytes_buffered() and channel.is_muted(), "the second request to wait in the engine")
    assert p.server.keys_with_buffered_read
    assert not select_readable(channel.transport_layer.socket_channel)
    p.server_receives[0].release()
    p.until(lambda: len(p.server_receives) == 2, "the second request")
    assert bytes(p.server_receives[1].payload()) == second


def select_readable(sock) -> bool:
    import select
    poller = select.poll()   # not select.select: the whole unit run may hold more than 1,024 descriptors by now
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


def test_bad_stores_fail_configuration_with_the_key_named(certs, tmp_path):
    with pytest.raises(SslConfigError) as e:
        ChannelBuilders.server_channel_builder("SSL", False, "SSL", server_configs(
            certs, **{"ssl.keystore.password": "wrong"}))
    assert e.value.name == "ssl.keystore.location"
    jks = tmp_path / "x.jks"
    jks.write_bytes(b"\xfe\xed\xfe\xed" + b"\x00" * 40)
    with pytest.raises(SslConfigError, match="JKS"):
        ChannelBuilders.server_channel_builder("SSL", False, "SSL", server_configs(
            certs, **{"ssl.keystore.location": str(jks), "ssl.keystore.type": "JKS"}))
    with pytest.raises(SslConfigError, match="needs a key store"):
        ChannelBuilders.server_channel_builder("SSL", False, "SSL", {"ssl.client.auth": "none"})


@pytest.mark.parametrize("damage", ["corrupt", "truncate"])
def test_damaged_records_after_the_handshake_close_that_channel(certs, pairs, damage):
    """A record whose ciphertext was altered fails its MAC; half a record then EOF is an end of stream
    mid-record. Either way the server closes the channel at once (these Selectors have no idle timeout)."""
    p = pairs(server_configs(certs), client_configs(certs, with_cert=False))
    p.handshake()
    client_transport = p.client.channel("node").transport_layer
    client_transport.ssl_engine.write(struct.pack(">i", 4) + b"ping")
    record = bytearray(client_transport._net_write_bio.read())
    sock = client_transport.socket_channel
    sock.setblocking(True)
    if damage == "corrupt":
        record[-3] ^= 0xFF
        sock.sendall(bytes(record))
    else:
        sock.sendall(bytes(record[:len(record) // 2]))
        sock.shutdown(socket.SHUT_WR)
    deadline = time.monotonic() + DEADLINE_S
    while "conn" not in p.server_disconnects:
        assert time.monotonic() < deadline, "the damaged channel was not closed"
        p.server.poll(0)
        p.server_disconnects.update(p.server.disconnected)
    assert not p.server_receives


def test_inline_pem_stores_kip_651(certs, pairs):
    """ssl.keystore.key + ssl.keystore.certificate.chain and ssl.truststore.certificates given as PEM text."""
    read = lambda name: open(os.path.join(certs, name)).read()  # noqa: E731
    server = {"ssl.keystore.type": "PEM", "ssl.keystore.key": read("broker.key"),
              "ssl.keystore.certificate.chain": read("broker.crt") + read("ca.crt"),
              "ssl.truststore.type": "PEM", "ssl.truststore.certificates": read("ca.crt"), "ssl.client.auth": "required"}
    client = {"ssl.truststore.type": "PEM", "ssl.truststore.certificates": read("ca.crt"),
              "ssl.keystore.type": "PKCS12", "ssl.keystore.location": f"{certs}/client.p12",
              "ssl.keystore.password": gen_certs.DEFAULT_PASSWORD}
    p = pairs(server, client)
    p.handshake()
    assert p.server.channel("conn").principal() == KafkaPrincipal("User", "CN=client,OU=clients,O=kafkalite-test")

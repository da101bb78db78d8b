"""LocalZooKeeper: each ZooKeeper semantic of research/controller.md §4, driven through ZooKeeperClient
(No Kafka counterpart; the request/handler parts follow Kafka's ZooKeeperClientTest)."""
import os
import queue
import subprocess
import sys
import textwrap
import threading

import pytest

from kafkalite.zookeeper.local_zoo_keeper import LocalZooKeeper, LocalZooKeeperLockedException
from kafkalite.zookeeper.zoo_keeper_client import (
    CheckOp, Code, CreateOp, CreateRequest, DeleteOp, DeleteRequest, ExistsRequest, GetChildrenRequest,
    GetDataRequest, MultiRequest, SetDataOp, SetDataRequest, StateChangeHandler, ZNodeChangeHandler,
    ZooKeeperClient,
)
from support import RecordingWatcher

TIMEOUT = 5


@pytest.fixture
def store():
    zk = LocalZooKeeper.open(None)
    yield zk
    zk.close()


def client(store, name=""):
    return ZooKeeperClient(None, backend=store, name=name)


def test_stat_versions_and_zxids(store):
    c = client(store)
    r1 = c.handle_request(CreateRequest("/a", b"1"))
    assert r1.result_code == Code.OK and r1.name == "/a"
    assert (r1.stat.version, r1.stat.czxid, r1.stat.mzxid) == (0, 1, 1)
    set1 = c.handle_request(SetDataRequest("/a", b"22", 0))
    assert set1.stat.version == 1 and set1.stat.mzxid == 2 and set1.stat.czxid == 1
    assert set1.stat.data_length == 2
    c.handle_request(CreateRequest("/a/b", b""))
    got = c.handle_request(GetDataRequest("/a"))
    assert got.data == b"22"
    assert got.stat.cversion == 1 and got.stat.num_children == 1 and got.stat.pzxid == 3
    assert c.handle_request(CreateRequest("/a", b"")).result_code == Code.NODEEXISTS
    assert c.handle_request(CreateRequest("/x/y", b"")).result_code == Code.NONODE
    assert c.handle_request(DeleteRequest("/a")).result_code == Code.NOTEMPTY
    assert c.handle_request(GetDataRequest("/nope")).result_code == Code.NONODE
    assert c.handle_request(ExistsRequest("/nope")).result_code == Code.NONODE
    assert c.handle_request(GetChildrenRequest("/a")).children == ["b"]
    c.close()


def test_conditional_set_and_delete(store):
    c = client(store)
    c.handle_request(CreateRequest("/v", b"0"))
    assert c.handle_request(SetDataRequest("/v", b"1", 5)).result_code == Code.BADVERSION
    assert c.handle_request(SetDataRequest("/v", b"1", 0)).stat.version == 1
    assert c.handle_request(SetDataRequest("/v", b"2", -1)).stat.version == 2  # -1 matches any
    assert c.handle_request(DeleteRequest("/v", 1)).result_code == Code.BADVERSION
    assert c.handle_request(GetDataRequest("/v")).data == b"2"
    assert c.handle_request(DeleteRequest("/v", 2)).result_code == Code.OK
    assert c.handle_request(ExistsRequest("/v")).result_code == Code.NONODE
    c.close()


def test_sequential_nodes_have_10_digit_suffix_from_parent_cversion(store):
    c = client(store)
    c.handle_request(CreateRequest("/q", b""))
    c.handle_request(CreateRequest("/q/other", b""))  # bumps /q's cversion to 1
    names = [c.handle_request(CreateRequest("/q/item_", b"", sequential=True)).name for _ in range(3)]
    assert names == ["/q/item_0000000001", "/q/item_0000000002", "/q/item_0000000003"]
    c.close()


def test_ephemerals_vanish_when_session_closes(store):
    owner, other = client(store), client(store)
    r = owner.handle_request(CreateRequest("/e", b"x", ephemeral=True))
    assert r.stat.ephemeral_owner == owner.session_id != other.session_id
    assert owner.handle_request(CreateRequest("/e/child", b"")).result_code == Code.NOCHILDRENFOREPHEMERALS
    other.handle_request(CreateRequest("/p", b""))
    owner.close()
    assert other.handle_request(ExistsRequest("/e")).result_code == Code.NONODE
    assert other.handle_request(ExistsRequest("/p")).result_code == Code.OK
    other.close()


def test_expiry_deletes_ephemerals_and_client_reinitializes_a_new_session(store):
    c, watcher = client(store), client(store)
    old_session = c.session_id
    calls = queue.Queue()

    class H(StateChangeHandler):
        name = "test"

        def before_initializing_session(self):
            calls.put("before")

        def after_initializing_session(self):
            calls.put("after")

    c.register_state_change_handler(H())
    c.handle_request(CreateRequest("/eph", b"", ephemeral=True))
    rec = RecordingWatcher("/eph", TIMEOUT)
    watcher.register_znode_change_handler(rec)
    assert watcher.handle_request(ExistsRequest("/eph")).result_code == Code.OK
    store.expire_session(old_session)
    assert rec.next() == "deleted"
    assert calls.get(timeout=TIMEOUT) == "before" and calls.get(timeout=TIMEOUT) == "after"
    assert c.session_id != old_session
    assert c.handle_request(CreateRequest("/eph", b"", ephemeral=True)).stat.ephemeral_owner == c.session_id
    c.close()
    watcher.close()


def test_multi_is_all_or_nothing(store):
    c = client(store)
    c.handle_request(CreateRequest("/m", b"0"))
    bad = c.handle_request(MultiRequest([CreateOp("/m/new", b""), CheckOp("/m", 7), SetDataOp("/m", b"1")]))
    assert bad.result_code == Code.BADVERSION
    assert [r.code for r in bad.zk_op_results] == [Code.OK, Code.BADVERSION, Code.RUNTIMEINCONSISTENCY]
    assert c.handle_request(ExistsRequest("/m/new")).result_code == Code.NONODE
    got = c.handle_request(GetDataRequest("/m"))
    assert got.data == b"0" and got.stat.version == 0 and got.stat.cversion == 0
    ok = c.handle_request(MultiRequest([CreateOp("/m/new", b""), CheckOp("/m", 0), SetDataOp("/m", b"1", 0),
                                        DeleteOp("/m/new")]))
    assert ok.result_code == Code.OK
    assert ok.zk_op_results[0].name == "/m/new" and ok.zk_op_results[2].stat.version == 1
    # one transaction, one zxid
    assert ok.zk_op_results[2].stat.mzxid == c.handle_request(GetDataRequest("/m")).stat.mzxid
    assert c.handle_request(ExistsRequest("/m/new")).result_code == Code.NONODE
    c.close()


def test_watches_are_one_shot_and_rearmed_by_reads(store):
    writer, reader = client(store), client(store)
    rec = RecordingWatcher("/w", TIMEOUT)
    reader.register_znode_change_handler(rec)
    # no read yet: no watch, so the creation is not reported
    writer.handle_request(CreateRequest("/w", b"0"))
    store.await_events_delivered()
    assert rec.events.empty()
    reader.handle_request(GetDataRequest("/w"))  # arms the data watch
    writer.handle_request(SetDataRequest("/w", b"1"))
    writer.handle_request(SetDataRequest("/w", b"2"))
    assert rec.next() == "changed"
    store.await_events_delivered()
    assert rec.events.empty()  # one-shot: the second set is not reported
    reader.handle_request(ExistsRequest("/w"))  # re-arm
    writer.handle_request(DeleteRequest("/w"))
    assert rec.next() == "deleted"
    reader.handle_request(ExistsRequest("/w"))  # exists watch on a missing node fires on creation
    writer.handle_request(CreateRequest("/w", b""))
    assert rec.next() == "created"
    writer.close()
    reader.close()


def test_child_watch_and_unregistered_handler(store):
    writer, reader = client(store), client(store)
    writer.handle_request(CreateRequest("/ids", b""))
    rec = RecordingWatcher("/ids", TIMEOUT)
    reader.register_znode_child_change_handler(rec)
    assert reader.handle_request(GetChildrenRequest("/ids")).children == []
    writer.handle_request(CreateRequest("/ids/1", b""))
    assert rec.next() == "children"
    writer.handle_request(CreateRequest("/ids/2", b""))
    store.await_events_delivered()
    assert rec.events.empty()
    reader.handle_request(GetChildrenRequest("/ids", register_watch=False))  # does not re-arm
    writer.handle_request(DeleteRequest("/ids/2"))
    store.await_events_delivered()
    assert rec.events.empty()
    writer.close()
    reader.close()


def test_events_are_delivered_in_zxid_order_on_one_thread(store):
    writer, reader = client(store), client(store)
    seen = []
    done = threading.Event()
    paths = [f"/o{i}" for i in range(20)]

    class H(ZNodeChangeHandler):
        def __init__(self, path):
            self.path = path

        def handle_creation(self):
            seen.append((self.path, threading.current_thread().name))
            if len(seen) == len(paths):
                done.set()

    for p in paths:
        reader.register_znode_change_handler(H(p))
        reader.handle_request(ExistsRequest(p))
    for p in paths:
        writer.handle_request(CreateRequest(p, b""))
    assert done.wait(TIMEOUT)
    assert [p for p, _ in seen] == paths
    assert {t for _, t in seen} == {"LocalZooKeeper-EventThread"}
    writer.close()
    reader.close()


def test_persistence_across_reopen_drops_ephemerals(tmp_path):
    zk = LocalZooKeeper.open(str(tmp_path))
    c = client(zk)
    c.handle_request(CreateRequest("/p", b"persistent"))
    c.handle_request(SetDataRequest("/p", b"v1"))
    c.handle_request(CreateRequest("/p/seq_", b"\xff\x00", sequential=True))
    c.handle_request(CreateRequest("/eph", b"", ephemeral=True))
    zxid = zk.zxid
    # simulate a crash: no snapshot, no clean close; only the fsync'd txn log is on disk
    os.close(zk._lock_fd)
    zk._log_file.close()
    LocalZooKeeper._registry.clear()
    assert os.path.getsize(tmp_path / "__zookeeper" / "txn.log") > 0

    zk2 = LocalZooKeeper.open(str(tmp_path))
    c2 = client(zk2)
    got = c2.handle_request(GetDataRequest("/p"))
    assert got.data == b"v1" and got.stat.version == 1
    assert c2.handle_request(GetChildrenRequest("/p")).children == ["seq_0000000000"]
    assert c2.handle_request(GetDataRequest("/p/seq_0000000000")).data == b"\xff\x00"
    assert c2.handle_request(ExistsRequest("/eph")).result_code == Code.NONODE
    assert zk2.zxid > zxid  # the ephemeral's deletion was a new transaction
    c2.close()
    zk2.release()  # clean close: snapshot

    zk3 = LocalZooKeeper.open(str(tmp_path))
    assert os.path.getsize(tmp_path / "__zookeeper" / "txn.log") == 0
    c3 = client(zk3)
    assert c3.handle_request(GetDataRequest("/p")).data == b"v1"
    assert c3.handle_request(CreateRequest("/new", b"")).stat.czxid == zk2.zxid + 1
    c3.close()
    zk3.release()


def test_clients_in_one_process_share_one_store(tmp_path):
    a = ZooKeeperClient("embedded", data_dir=str(tmp_path))
    b = ZooKeeperClient("", data_dir=str(tmp_path))
    assert a.backend is b.backend and a.session_id != b.session_id
    a.handle_request(CreateRequest("/shared", b"1"))
    assert b.handle_request(GetDataRequest("/shared")).data == b"1"
    a.close()
    assert b.handle_request(GetDataRequest("/shared")).data == b"1"  # store still open for b
    b.close()


def test_second_process_gets_a_clear_error(tmp_path):
    zk = LocalZooKeeper.open(str(tmp_path))
    try:
        script = textwrap.dedent(f"""
            from kafkalite.zookeeper.local_zoo_keeper import LocalZooKeeper, LocalZooKeeperLockedException
            try:
                LocalZooKeeper.open({str(tmp_path)!r})
            except LocalZooKeeperLockedException as e:
                print("LOCKED:", e)
        """)
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                             cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
        assert "LOCKED:" in out.stdout, out.stderr
        assert "use real ZooKeeper (zookeeper.connect) for multi-process clusters" in out.stdout
        assert str(os.getpid()) in out.stdout
    finally:
        zk.release()
    zk2 = LocalZooKeeper.open(str(tmp_path))  # released: opens again
    zk2.release()


def test_lock_error_class_is_raised_in_process_only_after_registry_bypass(tmp_path):
    zk = LocalZooKeeper.open(str(tmp_path))
    with pytest.raises(LocalZooKeeperLockedException):
        LocalZooKeeper(str(tmp_path))  # a second instance, bypassing the registry, is refused too
    zk.release()


def test_pipelined_batch_is_fsynced_once_and_its_watches_fire_after(tmp_path, monkeypatch):
    """Group commit (issue 18): the controller writes one znode per new partition in one handle_requests
    batch; the store logs each transaction but fsyncs the batch once, and fires its watches only then."""
    zk = LocalZooKeeper.open(str(tmp_path))
    writer, reader = client(zk), client(zk)
    writer.handle_request(CreateRequest("/t", b""))
    children = queue.Queue()
    zk_fsync, calls = os.fsync, []

    def fsync(fd):
        calls.append(children.qsize())   # how many watch events had fired when the batch was made durable
        zk_fsync(fd)
    monkeypatch.setattr(os, "fsync", fsync)
    handler = type("H", (), {"path": "/t", "handle_child_change": lambda self: children.put(1)})()
    reader.register_znode_child_change_handler(handler)
    reader.handle_request(GetChildrenRequest("/t", register_watch=True))
    responses = writer.handle_requests([CreateRequest(f"/t/p{i}", b"x") for i in range(50)])
    assert [r.result_code for r in responses] == [Code.OK] * 50
    assert calls == [0]                  # one fsync for 50 transactions, before any watch fired
    assert children.get(timeout=TIMEOUT) == 1
    writer.handle_request(CreateRequest("/single", b""))
    assert len(calls) == 2               # a lone request is fsynced on its own, as before
    # every transaction of the batch is in the log: a crash right now loses none of them
    os.close(zk._lock_fd)
    zk._log_file.close()
    LocalZooKeeper._registry.clear()
    zk2 = LocalZooKeeper.open(str(tmp_path))
    assert len(client(zk2).handle_request(GetChildrenRequest("/t")).children) == 50
    zk2.release()

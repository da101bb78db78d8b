"""No Kafka counterpart (Kafka's system tests run ``transactions_test.py`` the same way, bouncing the copier and
the brokers): the exactly-once torture of a consume-transform-produce loop.

A broker (``bin/kafka-server-start server.properties`` on a free port and a temporary ``log.dirs``) holds an
input topic and an output topic of 3 partitions each. Each round writes more numbered input records (an
idempotent acks=all producer), starts the application ``txn_ctp_app.py`` (confluent-kafka: read_committed
consumer on the input, transactional producer to the output, ``send_offsets_to_transaction`` per batch) and
kills it with SIGKILL at a random point: just after a random step of its first transactions (each prints five:
begin, produced, offsets sent, committing, committed) and 0-5 ms more, so kills land in start-up, in
``init_transactions``, mid-batch, with the offsets pending, between EndTxn and the markers. Every
``--broker-every`` rounds the broker is killed with SIGKILL too, while the application runs, and restarted; the
application then goes on (or dies of it and is restarted). At the end the application
runs until its group's committed offsets reach the end of the input, and a read_committed reader of the output
topic must find each input record exactly once, in the partition it came from:

- **missing**: input records with no output record (must be 0);
- **duplicates**: output records beyond the first for an input record (must be 0);
- **misplaced**: output records in another partition than their input record, or with no input record (0).

An application that makes no progress for 25 s inside one step of a transaction is killed like any other
instance and counted as **app_stalls** (reported, not a failure: the exactly-once counts are what must hold).

Why the app stalled after broker restarts (librdkafka 2.16's own bug, not the broker's; the app now works
around it): killing the only broker leaves librdkafka with every broker down, which starts its re-bootstrap
(``metadata.recovery.strategy=rebootstrap``, the default): it decommissions broker 0's handle, and that handle
stays in its coordinator cache as the group's coordinator. After the restart the app's next
``send_offsets_to_transaction`` gets AddOffsetsToTxn answered NO_ERROR, then librdkafka hands the
TxnOffsetCommit to the dead handle and sends nothing more, ignoring the call's 30 s timeout. The app's debug log
(TXN_CTP_DEBUG=eos,protocol,broker) shows it each time: ``REBOOTSTRAP Starting re-bootstrap sequence``,
``DECOMMISSION Decommissioning 1 broker(s)``; after the restart ``ADDOFFSETS AddOffsetsToTxn response ...:
NO_ERROR``, then ``Received CONNECT op`` on the old handle, which logs ``Handle is terminating in state
TRY_CONNECT`` every millisecond until the kill, and no SEND at all (no FindCoordinator, no TxnOffsetCommit) for
the 25 s. The broker's answers before that are the ones Kafka 2.4 gives: FindCoordinator COORDINATOR_NOT_AVAILABLE
until the coordinators' partitions have a leader, then broker 0; AddOffsetsToTxn CONCURRENT_TRANSACTIONS while
the previous transaction is in PrepareCommit (TransactionCoordinator.handleAddPartitionsToTransaction), then
NO_ERROR. Known upstream: librdkafka #5511 ("rd_kafka_send_offsets_to_transaction() hangs when the group
coordinator is decommissioned", fix proposed in PR #5512) and #5456 (its timeout is never checked).
tests/integration/test_txn_offsets_after_broker_kill9.py reproduces it with one transaction, deterministically,
and shows the broker serving the TxnOffsetCommit when librdkafka does not re-bootstrap. ``txn_ctp_app.py``
therefore sets ``metadata.recovery.strategy=none`` (TXN_CTP_REBOOTSTRAP=1 brings the default back). app_stalls
before -> after: the CI variant (seed 15, 2 broker kills) 1 and 2 in two runs -> 0 (64 s -> 16 s); seed 7,
10 rounds, 5 broker kills, 2 -> 0; the long variant (seed 1, 20 rounds, 6 broker kills) 4 -> 0.

Run it (the long variant; CI runs 5 rounds through tests/integration/test_txn_torture.py):

    python tests/torture/txn_torture.py --rounds 20 --seed 1

It prints one line per round and a summary, and exits 1 when any count above is not 0.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "integration"))
sys.path.insert(0, str(HERE.parent))

import clients  # noqa: E402
from harness import BrokerProcess, wait_until  # noqa: E402

PARTITIONS = 3
STALL_S = 25     # an app that prints no step of a transaction for this long is stalled (and killed)
BROKER_OVERRIDES = {
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": 1000,
    "group.initial.rebalance.delay.ms": 0,
}


class App:
    """One run of ``txn_ctp_app.py``; a thread counts the transactions it reports committed."""

    def __init__(self, bootstrap: str, source: str, output: str, group: str, transactional_id: str, log_path: Path):
        self.committed = 0
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.log = open(log_path, "a")
        self.proc = subprocess.Popen([sys.executable, "-u", str(HERE / "txn_ctp_app.py"), bootstrap, source, output,
                                      group, transactional_id], stdout=subprocess.PIPE, stderr=self.log,
                                     stdin=subprocess.DEVNULL, text=True, start_new_session=True)
        self.reader = threading.Thread(target=self._read, name="txn-ctp-app-stdout", daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.log.write(line)
            self.log.flush()     # in order with the app's stderr (librdkafka's log), which goes to the same file
            with self.changed:
                self.lines.append(line.rstrip())
                if line.startswith("committed"):
                    self.committed += 1
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_steps(self, n: int, timeout: float, drained=lambda: False) -> bool | None:
        """True once the app has printed ``n`` steps (5 a transaction: begin, produced and offsets sent in either
        order, committing, committed), or has nothing left to read (``drained()``, asked every second); False if
        it exits first; None if it has printed nothing for ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        next_check = time.monotonic() + 1
        seen = len(self.lines)
        with self.changed:
            while len(self.lines) < n:
                if self.proc.poll() is not None and not self.reader.is_alive():
                    return False
                if time.monotonic() >= next_check:
                    if drained():
                        return True
                    next_check = time.monotonic() + 1
                if len(self.lines) != seen:
                    seen, deadline = len(self.lines), time.monotonic() + timeout
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.changed.wait(min(left, 0.2))
        return True

    def kill9(self) -> int | None:
        """SIGKILL (by PID); the exit code it had if it had already ended by itself."""
        already = self.proc.poll()
        if already is None:
            self.proc.kill()
        self.proc.wait(10)
        self.reader.join(10)
        self.log.close()
        return already

    def terminate(self, timeout: float = 60) -> int:
        self.proc.terminate()
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            code = "hung on SIGTERM"
        self.reader.join(10)
        self.log.close()
        return code


def check(inputs: list[bytes], outputs: list[tuple[int, bytes]]) -> dict:
    """Count missing, duplicated and misplaced output records; ``inputs`` are ``b"<partition>:<n>"``,
    ``outputs`` (partition, value) with value ``b"out:" + input``."""
    seen = Counter(value for _, value in outputs)
    wanted = {b"out:" + v for v in inputs}
    return {
        "input": len(inputs),
        "output": len(outputs),
        "missing": sum(1 for v in wanted if seen[v] == 0),
        "duplicates": sum(c - 1 for v, c in seen.items() if c > 1),
        "misplaced": sum(1 for p, v in outputs if v not in wanted or int(v[4:].split(b":")[0]) != p),
    }


def torture(workdir: Path, rounds: int, seed: int, records_per_round: int = 1500, broker_every: int = 3,
            log=print) -> dict:
    rng = random.Random(seed)
    workdir = Path(workdir)
    broker = BrokerProcess(workdir / "broker", BROKER_OVERRIDES)
    broker.start()
    app = None
    stats = Counter()
    try:
        bootstrap = broker.bootstrap
        source, output, group, txn_id = "ctp-input", "ctp-output", "ctp-group", "ctp-copier"
        for topic in (source, output):
            clients.create_topic(bootstrap, topic, PARTITIONS)
        inputs: list[bytes] = []

        def start_app():
            return App(bootstrap, source, output, group, txn_id, workdir / "app.log")

        def drained():    # the group's committed offsets are at the end of the input: no transaction to wait for
            try:
                ends = {p: clients.watermarks(bootstrap, source, p)[1] for p in range(PARTITIONS)}
                return clients.committed_offsets(bootstrap, group, source, range(PARTITIONS)) == ends
            except Exception:    # the broker is restarting
                return False

        for r in range(rounds):
            batch = [b"%d:%d" % (n % PARTITIONS, n) for n in range(len(inputs), len(inputs) + records_per_round)]
            clients.produce_confluent(bootstrap, source, [clients.Produced(int(v.split(b":")[0]), v, v, ())
                                                          for v in batch],
                                      config={"enable.idempotence": True, "acks": "all"})
            inputs += batch
            app = start_app()
            kill_broker = r % broker_every == broker_every - 1
            # the random kill point: just after a random step of one of its first transactions (up to 5 ms later),
            # so kills land in start-up, before the offsets, with the offsets pending, with EndTxn in flight, ...
            progress = app.wait_steps(rng.randint(0, 25), STALL_S, drained)
            if kill_broker and progress is not None:
                time.sleep(rng.uniform(0, 0.005))
                broker.kill9()
                stats["broker_kills"] += 1
                broker.start(timeout=60)
                if app.proc.poll() is not None:      # it died of the broker's death: a new instance goes on
                    stats["app_errors"] += 1
                    app.kill9()
                    app = start_app()
                progress = app.wait_steps(len(app.lines) + rng.randint(0, 12), STALL_S, drained)
            if progress:
                time.sleep(rng.uniform(0, 0.005))
            elif progress is None:    # stuck in one step for STALL_S: killed like any other instance, but counted
                stats["app_stalls"] += 1
                log(f"round {r + 1}: the app made no progress for {STALL_S} s, at {app.lines[-1:]}")
            code = app.kill9()
            if code is not None:
                stats["app_errors"] += 1
            stats["app_kills"] += code is None
            log(f"round {r + 1}/{rounds}: app killed after {app.committed} transactions, at {app.lines[-1:]}"
                f"{' (it had exited ' + str(code) + ')' if code is not None else ''}"
                f"{', broker killed -9 and restarted' if kill_broker else ''}")
            app = None

        # Drain: the last instance runs until its group's committed offsets reach the end of the input. The broker
        # may have restarted a moment ago and not know the input's partitions yet (no UpdateMetadata so far).
        ends = wait_until(lambda: {p: clients.watermarks(bootstrap, source, p)[1] for p in range(PARTITIONS)}, 60,
                          "the input's end offsets")
        app = start_app()

        def caught_up():
            if app.proc.poll() is not None:
                raise AssertionError(f"the app exited {app.proc.returncode} while draining: {app.lines[-5:]}")
            return clients.committed_offsets(bootstrap, group, source, range(PARTITIONS)) == ends
        wait_until(caught_up, 180, f"the app's committed offsets to reach the input's end {ends}", interval=0.5)
        code = app.terminate()
        assert code == 0, f"the app exited {code} on SIGTERM: {app.lines[-5:]}"
        app = None

        clients.wait_stable(bootstrap, output, range(PARTITIONS), timeout=60)
        got = clients.read_to_end_confluent(bootstrap, output, range(PARTITIONS), "read_committed", timeout=120)
        result = {"rounds": rounds, **check(inputs, [(m.partition, m.value) for m in got]),
                  "app_kills": stats["app_kills"], "app_errors": stats["app_errors"],
                  "broker_kills": stats["broker_kills"], "app_stalls": stats["app_stalls"]}
        log(f"summary: {result}")
        return result
    except BaseException:
        log(f"--- broker log tail:\n{broker.log_tail(60)}")
        raise
    finally:
        if app is not None:
            app.kill9()
        broker.stop()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--records-per-round", type=int, default=1500)
    parser.add_argument("--broker-every", type=int, default=3, help="kill -9 the broker every N rounds")
    parser.add_argument("--workdir", type=Path, default=None, help="default: a temporary directory")
    args = parser.parse_args(argv)
    print(f"seed {args.seed}")
    with tempfile.TemporaryDirectory(prefix="txn-torture-") as tmp:
        result = torture(args.workdir or Path(tmp), args.rounds, args.seed, args.records_per_round, args.broker_every)
    return 1 if (result["missing"], result["duplicates"], result["misplaced"]) != (0, 0, 0) else 0


if __name__ == "__main__":
    sys.exit(main())

"""No Kafka counterpart (Kafka 2.4's Acceptor spins and logs on every failed accept): a broker out of
file descriptors backs off instead of spinning, logs the problem once per interval, and accepts again as
soon as descriptors are free.

The broker process's soft RLIMIT_NOFILE is lowered while it runs (``prlimit(2)``) to just above what it
uses, then clients connect until accepting fails with EMFILE. Over the next three seconds the broker uses
little CPU and writes at most a couple of "Error while accepting connection" lines; after the clients
close their connections and the limit is raised again, a real client produces and consumes.
"""
import os
import resource
import socket
import time

import clients
from harness import wait_until


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_acceptor_backs_off_when_out_of_file_descriptors(broker_factory, unique_topic):
    b = broker_factory()
    pid = b.proc.pid
    clients.create_topic(b.bootstrap, unique_topic, 1)
    soft, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (open_fds(pid) + 10, hard))
    conns = []
    try:
        for _ in range(40):     # more than the broker can take; the rest wait in its backlog
            conns.append(socket.create_connection(("127.0.0.1", b.port), timeout=5))
        wait_until(lambda: "Too many open files" in b.log_text(), 15, "the acceptor to hit EMFILE")
        before_cpu, before_log = cpu_seconds(pid), b.log_text().count("Error while accepting connection")
        time.sleep(3)   # measuring an interval of idleness, not waiting for an event
        used = cpu_seconds(pid) - before_cpu
        lines = b.log_text().count("Error while accepting connection") - before_log
        print(f"out of descriptors for 3 s: {used:.2f} s of CPU, {lines} log lines")
        assert used < 1.0, f"the broker burned {used:.2f} s of CPU in 3 s while out of descriptors"
        assert lines <= 2, f"{lines} error lines in 3 s"
    finally:
        for c in conns:
            c.close()
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (soft, hard))
    clients.produce_confluent(b.bootstrap, unique_topic, clients.make_records(10))
    assert len(clients.read_confluent(b.bootstrap, unique_topic, [0], 10, timeout=30)) == 10

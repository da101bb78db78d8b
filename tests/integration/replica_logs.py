"""No Kafka counterpart (Kafka's replication tests compare ``Log``s in the JVM; its system tests compare
consumed messages): the invariants controller.md §5.1 asks after every reliability test, checked on the
replicas' segment files as kafkalite's own ``FileRecords`` reads them.

A log is the list ``ClusterProcesses.log_batches`` gives: (base offset, last offset, partition leader
epoch, CRC) per batch. Two replicas hold the same data up to the high watermark when these lists agree
for every batch below it (a batch's CRC covers its records, attributes, producer state and leader epoch).
"""
from __future__ import annotations

from support import wait_until


def below(batches: list[tuple], high_watermark: int) -> list[tuple]:
    """The batches wholly below ``high_watermark``."""
    return [b for b in batches if b[1] < high_watermark]


def check_offsets_strictly_increase(batches: list[tuple], what: str = "log") -> None:
    """Each batch starts where the one before it ended (no gap, no offset seen twice), and offsets go up."""
    expected = batches[0][0] if batches else 0
    for base, last, _epoch, _crc in batches:
        assert base == expected and last >= base, f"{what}: batch {base}-{last} where offset {expected} was due"
        expected = last + 1


def check_epochs_monotonic(batches: list[tuple], what: str = "log") -> None:
    epochs = [epoch for _, _, epoch, _ in batches]
    assert epochs == sorted(epochs), f"{what}: leader epochs go backwards: {epochs}"


def check_epoch_entries_monotonic(entries: list[tuple[int, int]], what: str = "leader-epoch-checkpoint") -> None:
    """Epochs strictly increase and start offsets never decrease (LeaderEpochFileCache's invariant)."""
    for (e1, o1), (e2, o2) in zip(entries, entries[1:]):
        assert e2 > e1 and o2 >= o1, f"{what}: ({e1}, {o1}) followed by ({e2}, {o2})"


def wait_for_identical_logs(cluster, topic: str, partition: int, replicas, high_watermark: int,
                            timeout: float = 20) -> list[tuple]:
    """Wait until every replica in ``replicas`` holds the same batches below ``high_watermark`` and has all of
    them; check those batches' offsets and epochs; return them."""
    replicas = list(replicas)

    def agree():
        logs = [below(cluster.log_batches(i, topic, partition), high_watermark) for i in replicas]
        complete = logs[0] and logs[0][-1][1] + 1 == high_watermark
        return logs[0] if complete and all(log == logs[0] for log in logs) else None
    try:
        batches = wait_until(agree, timeout, f"{topic}-{partition}'s replicas {replicas} to agree below offset "
                                             f"{high_watermark}")
    except AssertionError:
        detail = "\n".join(f"  broker {i}: {cluster.log_batches(i, topic, partition)}" for i in replicas)
        raise AssertionError(f"replicas of {topic}-{partition} differ below the high watermark "
                             f"{high_watermark}:\n{detail}") from None
    check_offsets_strictly_increase(batches, f"{topic}-{partition}")
    check_epochs_monotonic(batches, f"{topic}-{partition}")
    return batches

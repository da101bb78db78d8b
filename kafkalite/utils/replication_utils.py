"""Mirrors Kafka 2.4: core/src/main/scala/kafka/utils/ReplicationUtils.scala

Classes: ReplicationUtils -- the leader's conditional write of a partition's state znode when it
changes the ISR (S38). The write carries the znode version the leader last saw: if the controller
changed the partition since (a new leader epoch), the version differs and the leader's ISR change
is refused, so a deposed leader cannot overwrite the controller's decision.
"""
from __future__ import annotations

from kafkalite.zk.zk_data import LeaderAndIsr, LeaderIsrAndControllerEpoch, TopicPartitionStateZNode


class ReplicationUtils:
    """Kafka: ReplicationUtils."""

    # Kafka: ReplicationUtils.updateLeaderAndIsr -- (True, new znode version) or (False, -1)
    @staticmethod
    def update_leader_and_isr(zk_client, partition, new_leader_and_isr: LeaderAndIsr,
                              controller_epoch: int) -> tuple[bool, int]:
        path = TopicPartitionStateZNode.path(partition)
        data = TopicPartitionStateZNode.encode(LeaderIsrAndControllerEpoch(new_leader_and_isr, controller_epoch))
        ok, version = zk_client.conditional_update_path(path, data, new_leader_and_isr.zk_version)
        if ok:
            return ok, version
        return ReplicationUtils.check_leader_and_isr_zk_data(zk_client, path, data)

    # Kafka: ReplicationUtils.checkLeaderAndIsrZkData -- a write retried after a lost connection may have
    # landed the first time: the znode then holds exactly our data at a newer version, which is a success.
    @staticmethod
    def check_leader_and_isr_zk_data(zk_client, path: str, expected: bytes) -> tuple[bool, int]:
        raw, version = zk_client.get_data_and_version(path)
        if raw is None:
            return False, -1
        current = TopicPartitionStateZNode.decode(raw, version)
        wanted = TopicPartitionStateZNode.decode(expected, version)
        return (True, version) if current == wanted else (False, -1)

"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/transaction/ProducerIdManager.scala

Classes: ProducerIdManager, ProducerIdBlock.

Producer ids are unique across the cluster: each broker reserves a block of 1000 ids at a time by
a conditional update of ``/latest_producer_id_block`` in ZooKeeper, then hands them out one by one
(InitProducerId for idempotent producers, S-issue 3).
"""
from __future__ import annotations

import json
import threading

from kafkalite.utils.logging import Logging

PID_BLOCK_SIZE = 1000
PRODUCER_ID_BLOCK_PATH = "/latest_producer_id_block"


class ProducerIdBlock:
    """Kafka: ProducerIdBlock(brokerId, blockStartId, blockEndId)."""

    def __init__(self, broker_id: int, block_start_id: int, block_end_id: int):
        self.broker_id = broker_id
        self.block_start_id = block_start_id
        self.block_end_id = block_end_id


class ProducerIdManager(Logging):
    """Kafka: ProducerIdManager(brokerId, zkClient)."""

    def __init__(self, broker_id: int, zk_client):
        self.broker_id = broker_id
        self.zk_client = zk_client
        self.log_ident = f"[ProducerId Manager {broker_id}]: "
        self._lock = threading.Lock()
        self.current_producer_id_block = None
        self.next_producer_id = -1
        self.get_new_producer_id_block()
        self.next_producer_id = self.current_producer_id_block.block_start_id

    # Kafka: ProducerIdManager.getNewProducerIdBlock
    def get_new_producer_id_block(self) -> None:
        while True:
            data, version = self.zk_client.get_data_and_version(PRODUCER_ID_BLOCK_PATH)
            if not data:   # no node yet, or a node without a block
                block = ProducerIdBlock(self.broker_id, 0, PID_BLOCK_SIZE - 1)
            else:
                current = json.loads(data)
                end = int(current["block_end"])
                if end > 2**63 - 1 - PID_BLOCK_SIZE:
                    raise RuntimeError("Have exhausted all producerIds.")
                block = ProducerIdBlock(self.broker_id, end + 1, end + PID_BLOCK_SIZE)
            payload = json.dumps({"version": 1, "broker": block.broker_id, "block_start": str(block.block_start_id),
                                  "block_end": str(block.block_end_id)}, separators=(",", ":")).encode()
            if version < 0:
                try:
                    self.zk_client.create_recursive(PRODUCER_ID_BLOCK_PATH, payload)
                    ok = True
                except Exception:  # noqa: BLE001 -- someone else created it first: read again
                    ok = False
            else:
                ok, _ = self.zk_client.conditional_update_path(PRODUCER_ID_BLOCK_PATH, payload, version)
            if ok:
                self.current_producer_id_block = block
                self.info(f"Acquired new producerId block ({block.block_start_id}, {block.block_end_id}) by writing "
                          f"to Zk with path version {version + 1}")
                return

    # Kafka: ProducerIdManager.generateProducerId
    def generate_producer_id(self) -> int:
        with self._lock:
            if self.next_producer_id > self.current_producer_id_block.block_end_id:
                self.get_new_producer_id_block()
                self.next_producer_id = self.current_producer_id_block.block_start_id + 1
                return self.current_producer_id_block.block_start_id
            pid = self.next_producer_id
            self.next_producer_id += 1
            return pid

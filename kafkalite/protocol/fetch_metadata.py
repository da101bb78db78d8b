"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/requests/FetchMetadata.java

Classes: FetchMetadata -- the (session id, session epoch) pair a Fetch request carries (KIP-227).

Session id 0 means "no session". Epoch 0 asks the broker to open a new session (a full fetch), epoch
-1 (FINAL_EPOCH) asks for a full fetch and no session at all; any positive epoch is an incremental
fetch in an existing session, and the epoch goes up by one per request, wrapping from 2**31-1 to 1.
Left out: the Java class's toString details.
"""
from __future__ import annotations

import attrs

INVALID_SESSION_ID = 0   # Kafka: FetchMetadata.INVALID_SESSION_ID
INITIAL_EPOCH = 0        # Kafka: FetchMetadata.INITIAL_EPOCH
FINAL_EPOCH = -1         # Kafka: FetchMetadata.FINAL_EPOCH
_MAX_INT = 2**31 - 1


# Kafka: FetchMetadata.nextEpoch
def next_epoch(prev_epoch: int) -> int:
    if prev_epoch < 0:
        return FINAL_EPOCH          # the next epoch after FINAL_EPOCH is always FINAL_EPOCH
    if prev_epoch == _MAX_INT:
        return 1
    return prev_epoch + 1


@attrs.frozen
class FetchMetadata:
    session_id: int
    epoch: int

    # Kafka: FetchMetadata.isFull -- a full fetch names every partition the fetcher wants
    @property
    def is_full(self) -> bool:
        return self.epoch == INITIAL_EPOCH or self.epoch == FINAL_EPOCH

    # Kafka: FetchMetadata.newIncremental -- the first incremental fetch after a full one
    @staticmethod
    def new_incremental(session_id: int) -> "FetchMetadata":
        return FetchMetadata(session_id, next_epoch(INITIAL_EPOCH))

    # Kafka: FetchMetadata.nextCloseExisting -- close this session; the next full fetch opens a new one
    def next_close_existing(self) -> "FetchMetadata":
        return FetchMetadata(self.session_id, INITIAL_EPOCH)

    # Kafka: FetchMetadata.nextIncremental
    def next_incremental(self) -> "FetchMetadata":
        return FetchMetadata(self.session_id, next_epoch(self.epoch))


INITIAL = FetchMetadata(INVALID_SESSION_ID, INITIAL_EPOCH)   # Kafka: FetchMetadata.INITIAL
LEGACY = FetchMetadata(INVALID_SESSION_ID, FINAL_EPOCH)      # Kafka: FetchMetadata.LEGACY

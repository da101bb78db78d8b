"""No Kafka counterpart: the answer kafkalite gives to seed 000's closing question (S27) -- could one
preemptive priority queue in front of the request handlers do the control plane's job?

``ControlFirstQueue`` is a bounded request queue in which control requests (``ApiKeys.cluster_action``:
LeaderAndIsr, UpdateMetadata, StopReplica, ControlledShutdown) are taken before any other, and requests
of the same class keep their arrival order. ``kafkalite.request.priority=control-first`` puts it in
front of the data plane's handlers instead of Kafka's FIFO ``ArrayBlockingQueue``; walkthrough chapter 3
(S27) compares it with a separate control plane, and ``bench/control_plane_latency.py`` measures both.
What it cannot do: jump a *full* queue -- the Processor that read the control request still blocks in
``RequestChannel.send_request`` until a slot frees, which a separate control plane never does.
"""
from __future__ import annotations

import itertools
import queue


class ControlFirstQueue(queue.PriorityQueue):
    """A bounded queue: control requests first, then the rest, each in arrival order."""

    def __init__(self, maxsize: int):
        super().__init__(maxsize)
        self._seq = itertools.count()

    def put(self, item, block=True, timeout=None):
        api_key = getattr(item, "api_key", None)
        priority = 0 if api_key is not None and api_key.cluster_action else 1
        super().put((priority, next(self._seq), item), block, timeout)

    def get(self, block=True, timeout=None):
        return super().get(block, timeout)[2]

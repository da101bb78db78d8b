"""No Kafka counterpart: the request trace, kafkalite's view of one request's trip for learners.

When ``kafka.request.logger`` is at DEBUG (broker config ``kafkalite.request.trace=true`` sets it), each
Request carries a ``RequestTrace`` that collects hops -- (hop, thread name, time in ns, detail) -- at
every thread the request passes: accepted, read, queued, dequeued, handler, purgatory, response-queued,
response-dequeued, sent; the Processor logs them in one "Request trace" line once the response is out.
Otherwise a Request carries ``NO_TRACE``, whose methods do nothing: each hop costs one method call.

Classes: RequestTrace, NoTrace (``NO_TRACE``).
"""
from __future__ import annotations

import threading

from kafkalite.utils.time import SYSTEM


class NoTrace:
    """The trace of a request nobody traces: every hop is a no-op."""

    enabled = False

    def hop(self, hop: str, detail: str = "", thread_name: str | None = None, at_nanos: int | None = None) -> None:
        pass

    def purgatory_callback(self, purgatory_name: str, callback):
        return callback

    def returned_from_purgatory_call(self) -> None:
        pass

    def line(self) -> str:
        return ""


NO_TRACE = NoTrace()


class RequestTrace(NoTrace):
    """The hops of one traced request."""

    enabled = True

    def __init__(self):
        self.hops: list[tuple[str, str, int, str]] = []
        self._purgatory = None   # (name, watcher thread, state) of the callback given to ReplicaManager

    def hop(self, hop: str, detail: str = "", thread_name: str | None = None, at_nanos: int | None = None) -> None:
        self.hops.append((hop, thread_name or threading.current_thread().name,
                          SYSTEM.nanoseconds() if at_nanos is None else at_nanos, detail))

    def purgatory_callback(self, purgatory_name: str, callback):
        """Wrap the response callback KafkaApis gives ReplicaManager: an answer from another thread, or
        after the handler returned, means the request waited in the purgatory."""
        state = {"done": False, "parked": False}
        watcher = threading.current_thread().name
        self._purgatory = (purgatory_name, state)

        def completed(*args, **kwargs):
            state["done"] = True
            thread = threading.current_thread().name
            if thread != watcher or state["parked"]:
                if not state["parked"]:
                    self.hop("purgatory", f"{purgatory_name}: waiting in DelayedOperationPurgatory",
                             thread_name=watcher)
                how = "expiry (its timeout)" if thread.startswith("executor-") else "a later append/fetch"
                self.hop("purgatory-complete", f"{purgatory_name}: completed by {how}")
            return callback(*args, **kwargs)
        return completed

    def returned_from_purgatory_call(self) -> None:
        """ReplicaManager returned: no answer yet means the request is parked in the purgatory."""
        if self._purgatory is not None:
            name, state = self._purgatory
            self._purgatory = None
            if not state["done"]:
                state["parked"] = True
                self.hop("purgatory", f"{name}: waiting in DelayedOperationPurgatory")

    def line(self) -> str:
        t0 = self.hops[0][2] if self.hops else 0
        return " -> ".join(f"{hop}[{thread} +{(t - t0) / 1e6:.3f}ms{' ' + detail if detail else ''}]"
                           for hop, thread, t, detail in self.hops)

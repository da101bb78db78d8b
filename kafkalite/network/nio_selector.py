"""No Kafka counterpart: java.nio.channels.Selector for kafkalite's Selector -- the JVM class Kafka's
Selector wraps.

Python's ``selectors`` module refuses an empty interest set, but a muted Kafka channel with nothing to
send wants exactly that (Java: ``key.interestOps(0)``): neither reading nor writing, yet still
registered. Going through ``selectors`` (unregister, register again) for every request showed up as
the top frame of the broker's profile (docs/benchmarks.md). On Linux this class talks to
``select.epoll`` directly and keeps the key while the interest set is empty; like the JDK's epoll
selector it takes the descriptor out of epoll meanwhile (EPOLL_CTL_DEL), because epoll reports a
hang-up even to an empty interest set and a muted channel whose peer left would spin the loop.
Elsewhere it falls back to ``selectors`` the same way.
"""
from __future__ import annotations

import select
import selectors

OP_READ = selectors.EVENT_READ
OP_WRITE = selectors.EVENT_WRITE


class SelectionKey:
    """Java: SelectionKey -- the registered socket, its interest set and its attachment."""

    __slots__ = ("fileobj", "fd", "events", "data")

    def __init__(self, fileobj, fd: int, events: int, data):
        self.fileobj = fileobj
        self.fd = fd
        self.events = events
        self.data = data


class EpollNioSelector:
    """Java: java.nio.channels.Selector over epoll (level-triggered, as NIO's)."""

    def __init__(self):
        self._epoll = select.epoll()
        self._keys: dict[int, SelectionKey] = {}

    @staticmethod
    def _mask(events: int) -> int:
        return (select.EPOLLIN if events & OP_READ else 0) | (select.EPOLLOUT if events & OP_WRITE else 0)

    def register(self, fileobj, events: int, data=None) -> SelectionKey:
        fd = fileobj.fileno()
        key = SelectionKey(fileobj, fd, events, data)
        if events:
            self._epoll.register(fd, self._mask(events))
        self._keys[fd] = key
        return key

    def modify(self, fileobj, events: int, data=None) -> SelectionKey:
        key = self._keys[fileobj.fileno()]
        old = key.events
        if events != old:
            if old and events:
                self._epoll.modify(key.fd, self._mask(events))
            elif events:
                self._epoll.register(key.fd, self._mask(events))
            else:
                self._epoll.unregister(key.fd)
            key.events = events
        key.data = data
        return key

    def unregister(self, fileobj) -> None:
        key = self._keys.pop(fileobj.fileno(), None)
        if key is not None and key.events:
            try:
                self._epoll.unregister(key.fd)
            except (OSError, ValueError):
                pass   # already closed

    def select(self, timeout: float | None = None) -> list[tuple[SelectionKey, int]]:
        try:
            ready = self._epoll.poll(-1 if timeout is None else max(timeout, 0.0))
        except InterruptedError:
            return []
        result = []
        for fd, ev in ready:
            key = self._keys.get(fd)
            if key is None:
                continue
            mask = (OP_READ if ev & (select.EPOLLIN | select.EPOLLERR | select.EPOLLHUP) else 0) | \
                   (OP_WRITE if ev & (select.EPOLLOUT | select.EPOLLERR | select.EPOLLHUP) else 0)
            mask &= key.events
            if mask:
                result.append((key, mask))
        return result

    def close(self) -> None:
        self._keys.clear()
        self._epoll.close()


class FallbackNioSelector:
    """The ``selectors`` module, unregistering while a socket's interest set is empty."""

    def __init__(self):
        self._sel = selectors.DefaultSelector()
        self._keys: dict[int, SelectionKey] = {}

    def register(self, fileobj, events: int, data=None) -> SelectionKey:
        key = SelectionKey(fileobj, fileobj.fileno(), events, data)
        self._keys[key.fd] = key
        if events:
            self._sel.register(fileobj, events, key)
        return key

    def modify(self, fileobj, events: int, data=None) -> SelectionKey:
        key = self._keys[fileobj.fileno()]
        old, key.events, key.data = key.events, events, data
        if old and events:
            self._sel.modify(fileobj, events, key)
        elif events:
            self._sel.register(fileobj, events, key)
        elif old:
            self._sel.unregister(fileobj)
        return key

    def unregister(self, fileobj) -> None:
        key = self._keys.pop(fileobj.fileno(), None)
        if key is not None and key.events:
            try:
                self._sel.unregister(fileobj)
            except (KeyError, ValueError):
                pass

    def select(self, timeout: float | None = None) -> list[tuple[SelectionKey, int]]:
        return [(k.data, mask) for k, mask in self._sel.select(timeout)]

    def close(self) -> None:
        self._keys.clear()
        self._sel.close()


NioSelector = EpollNioSelector if hasattr(select, "epoll") else FallbackNioSelector

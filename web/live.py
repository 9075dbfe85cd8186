"""Live updates: server-sent events of a table's state.

Each change of a table publishes its new version to the `Hub`; every stream of that
table wakes (one condition per table, so a change wakes only its own watchers) and
sends `id: <version>` and `data: <state JSON>`. States are whole snapshots, so a
stream that fell behind sends only the latest. A heartbeat every `heartbeat` seconds
of silence keeps proxies and idle timers open and finds closed connections: a comment
line, for them, and an `event: ping` (which an EventSource, blind to comments, hears:
the page takes a stream silent past two heartbeats for a stalled one); a stream
ends after `max_seconds` (the browser's EventSource reconnects with `Last-Event-ID`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator

from scorer.storage.tables import StoreError, TableStore


class Hub:
    """Who is waiting for which table, and the latest version published for each."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conds: dict[str, threading.Condition] = {}
        self._versions: dict[str, int] = {}
        self.closed = False
        self.streams = 0
        self.per_table: dict[str, int] = {}  # open streams of each table
        # (table, kind, client) -> the stream open under that page's `client` id: the page's
        # next stream takes its place (a stream dropped by flaky wifi is noticed only when a
        # write to it fails, a heartbeat or more later)
        self._owners: dict[tuple[str, ...], Stream] = {}

    def _cond(self, table_id: str) -> threading.Condition:
        with self._lock:
            cond = self._conds.get(table_id)
            if cond is None:
                cond = self._conds[table_id] = threading.Condition()
            return cond

    def publish(self, table_id: str, version: int) -> None:
        """A table reached `version`: wake its streams."""
        cond = self._cond(table_id)
        with cond:
            if version > self._versions.get(table_id, 0):
                self._versions[table_id] = version
            cond.notify_all()

    def wait(self, table_id: str, after: int, timeout: float, stop: Callable[[], bool] | None = None) -> bool:
        """Block until the table passes `after`, the hub closes or `stop()`; False on timeout."""
        cond = self._cond(table_id)
        with cond:
            return cond.wait_for(lambda: self.closed or self._versions.get(table_id, 0) > after
                                 or (stop is not None and stop()), timeout)

    def close(self) -> None:
        """End every stream (server shutdown)."""
        self.closed = True
        with self._lock:
            conds = list(self._conds.values())
        for cond in conds:
            with cond:
                cond.notify_all()

    def try_open(self, limit: int, table_id: str = "", per_table: int = 0, reserved: int = 0,
                 stream: Stream | None = None) -> bool:
        """Count a stream in: False when `limit` streams are open in all, or `per_table`
        (0: no such limit) on `table_id`, so that no one client takes every stream. A
        watcher's stream passes `reserved`, the table's last places kept for its players:
        it is refused once `per_table - reserved` streams of the table are open, so that
        watchers never take the places a player's phone needs. A `stream` with an `owner`
        (its page's client id) first ends the stream that page opened before, if it is
        still counted: that one is gone (the page opens a new one when its old one stalls
        or drops) or the page no longer reads it, and its place is the new one's."""
        key = (table_id, *stream.owner) if stream is not None and stream.owner else None
        evicted = False
        with self._lock:
            old = self._owners.get(key) if key is not None else None
            if old is not None and old.evict():
                evicted = True
                self._count_out(table_id)
            cap = max(per_table - max(reserved, 0), 0) if per_table else 0
            ok = not (self.streams >= limit or per_table and self.per_table.get(table_id, 0) >= cap)
            if ok:
                self.streams += 1
                self.per_table[table_id] = self.per_table.get(table_id, 0) + 1
                if key is not None:
                    self._owners[key] = stream  # type: ignore[assignment]
            elif key is not None and evicted:
                self._owners.pop(key, None)
        if evicted:  # wake it: it ends now, its thread freed
            cond = self._cond(table_id)
            with cond:
                cond.notify_all()
        return ok

    def _count_out(self, table_id: str) -> None:
        self.streams -= 1
        left = self.per_table.get(table_id, 0) - 1
        if left > 0:
            self.per_table[table_id] = left
        else:
            self.per_table.pop(table_id, None)

    def release(self, table_id: str = "", stream: Stream | None = None) -> None:
        with self._lock:
            self._count_out(table_id)
            if stream is not None and stream.owner:
                key = (table_id, *stream.owner)
                if self._owners.get(key) is stream:
                    del self._owners[key]


def event(version: int, data: str) -> str:
    """One SSE event (the state JSON is one line: no newline inside)."""
    return f"id: {version}\ndata: {data}\n\n"


def gone(exc: StoreError) -> str:
    """The last event of a table's stream whose table was deleted meanwhile: `event: gone`
    with the refusal its reads now get (`{"error": {status, code, message, field}}`); the page's
    EventSource, reconnecting, is then refused with that 404 and stops."""
    data = json.dumps({"error": {"status": exc.status, "code": exc.code, "message": exc.message, "field": exc.field}},
                      ensure_ascii=False, separators=(",", ":"))
    return f"event: gone\ndata: {data}\n\n"


# A comment for proxies and idle timers, and a `ping` event (no id: Last-Event-ID stays the
# version) that the page's EventSource hears; its data is not empty, else it is not dispatched.
HEARTBEAT = ": keep-alive\nevent: ping\ndata: {}\n\n"


class Stream:
    """The event stream of one table, as a WSGI iterable: the state now (unless `last_id`
    is current), then every change. The caller has counted it in with `hub.try_open`;
    `close` (which the server calls, even if it never iterated) counts it out once."""

    def __init__(self, store: TableStore, hub: Hub, table_id: str, last_id: int | None,
                 heartbeat: float = 15.0, max_seconds: float = 300.0, owner: tuple[str, str] | None = None) -> None:
        self.store, self.hub, self.table_id = store, hub, table_id
        self.last_id, self.heartbeat, self.max_seconds = last_id, heartbeat, max_seconds
        self.owner = owner  # (the token's kind, the page's client id): its next stream replaces this one
        self.evicted = False
        self._released = False
        self._lock = threading.Lock()
        self._gen = self._events()

    def __iter__(self) -> Iterator[str]:
        return self._gen

    def _events(self) -> Iterator[str]:
        try:
            yield "retry: 1000\n\n"
            sent = self.last_id if self.last_id is not None else -1
            deadline = time.monotonic() + self.max_seconds
            while not self.hub.closed and not self.evicted:
                try:
                    rt = self.store.runtime(self.table_id)
                except StoreError as exc:  # the table was deleted meanwhile (a prune): the stream ends
                    yield gone(exc)
                    break
                if rt.version != sent:
                    sent = rt.version
                    yield event(rt.version, rt.state_json())
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                if not self.hub.wait(self.table_id, sent, min(self.heartbeat, left), lambda: self.evicted):
                    yield HEARTBEAT
        finally:
            self._release()

    def _release(self) -> None:
        with self._lock:
            if self._released:
                return
            self._released = True
        self.hub.release(self.table_id, self)

    def evict(self) -> bool:
        """Replaced by its page's next stream (`Hub.try_open`, which counts it out): True
        where it was still counted; it ends when it next wakes (woken at once)."""
        with self._lock:
            if self._released:
                return False
            self._released = True
            self.evicted = True
            return True

    def close(self) -> None:
        try:
            self._gen.close()
        finally:
            self._release()


def stream(store: TableStore, hub: Hub, table_id: str, last_id: int | None, heartbeat: float = 15.0,
           max_seconds: float = 300.0, owner: tuple[str, str] | None = None) -> Stream:
    """See `Stream`."""
    return Stream(store, hub, table_id, last_id, heartbeat, max_seconds, owner)

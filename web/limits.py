"""How fast one client may create tables and tournaments (`CREATE_MAX_PER_ADDRESS` per
`CREATE_WINDOW_SECONDS`).

A sliding window per client address, in this process: each creation is a time stamp,
those older than the window are forgotten, and a client holding as many stamps as the
limit is refused (HTTP 429 `too_many_creations`, `Retry-After` the seconds until its
oldest stamp leaves the window). A creation refused afterwards (a bad body, a bad file)
gives its stamp back: the limit counts what was created. Nothing stored is touched; a
refusal only stops a new row being written.

An IPv6 client on the internet counts by its /64 network (one home or phone gets a whole
/64, so its addresses would each have their own budget otherwise); one on the local network
(a link-local fe80:: or unique-local fd00:: address: a club's phones share its /64) and an
IPv4 one count by their address.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import deque
from collections.abc import Callable

_UNIQUE_LOCAL = ipaddress.IPv6Network("fc00::/7")


def client_key(addr: str | None) -> str:
    """Whose budget a request spends: its IPv4 address, its global IPv6 address's /64, its
    local IPv6 address, or the address as given where it is not one (a Unix socket, none
    at all: one shared budget)."""
    if not addr:
        return ""
    try:
        ip = ipaddress.ip_address(addr.split("%", 1)[0])  # a scope id (fe80::1%eth0) is not part of it
    except ValueError:
        return addr
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if ip.is_link_local or ip in _UNIQUE_LOCAL:  # the phones of one room: each its own
            return str(ip)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


class SlidingWindow:
    """At most `limit` stamps per key in any `window` seconds; thread-safe (one lock)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._stamps: dict[str, deque[float]] = {}
        self._clock = clock
        self._next_sweep = 0.0

    def take(self, key: str, limit: int, window: float) -> tuple[bool, float]:
        """`(True, stamp)` with a stamp counted for `key`, or `(False, seconds)` when `key`
        has `limit` stamps in the last `window` seconds, `seconds` until one leaves it."""
        with self._lock:
            now = self._clock()
            if now >= self._next_sweep:
                self._sweep(now - window)
                self._next_sweep = now + window
            stamps = self._stamps.setdefault(key, deque())
            while stamps and stamps[0] <= now - window:
                stamps.popleft()
            if len(stamps) >= limit:
                return False, stamps[0] + window - now
            stamps.append(now)
            return True, now

    def give_back(self, key: str, stamp: float) -> None:
        """Forget a stamp `take` counted (the creation did not happen)."""
        with self._lock:
            stamps = self._stamps.get(key)
            if stamps is None:
                return
            try:
                stamps.remove(stamp)
            except ValueError:  # forgotten already
                pass
            if not stamps:
                del self._stamps[key]

    def _sweep(self, before: float) -> None:
        """Drop the keys whose every stamp is older than `before` (so a stream of
        addresses seen once does not keep growing the table)."""
        for key in [k for k, s in self._stamps.items() if not s or s[-1] <= before]:
            del self._stamps[key]

    def __len__(self) -> int:
        with self._lock:
            return len(self._stamps)


def retry_after(seconds: float) -> str:
    """A `Retry-After` value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))

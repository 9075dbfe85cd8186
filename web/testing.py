"""Helpers for the browser tests and the screenshot script (not used by the app).

- `LiveServer`: the real app on waitress, in a thread, on 127.0.0.1 with a port the
  system picks; `stop()` ends it (and its live streams).
- `showdown_photo(hands)`: a synthetic photo of 16 cards laid out on a felt table
  (Pillow), each hand along its player's edge.
- `FakeRecognizer(hands)`: an object with `.scan(image, bottom)` that "reads" that
  photo: the boxes where `showdown_photo` drew the cards, and the seats; `later` reads
  the second, third... photo otherwise (another photo of the same showdown).
- `Relay(port)`: a TCP relay to the server on 127.0.0.1, as the bar's wifi between a
  phone and it: `stall()` holds every byte either way and every new connection (open,
  nothing through), `flow()` lets them all go on.
"""

from __future__ import annotations

import io
import os
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# edge k (0 bottom, 1 right, 2 top, 3 left) holds seat (bottom + k) % 4


def card_boxes(w: int, h: int) -> list[list[tuple[int, int, int, int]]]:
    """Four boxes per table edge, bottom first then counterclockwise."""
    cw = int(min(w, h) * 0.12)  # short side of a card
    ch = int(cw * 1.5)
    gap = int(cw * 0.18)
    row = 4 * cw + 3 * gap
    col = 4 * cw + 3 * gap
    x0 = (w - row) // 2
    y0 = (h - col) // 2
    m = int(min(w, h) * 0.03)
    edges = [
        [(x0 + i * (cw + gap), h - m - ch, x0 + i * (cw + gap) + cw, h - m) for i in range(4)],  # bottom
        [(w - m - ch, y0 + (3 - i) * (cw + gap), w - m, y0 + (3 - i) * (cw + gap) + cw) for i in range(4)],  # right
        [(x0 + (3 - i) * (cw + gap), m, x0 + (3 - i) * (cw + gap) + cw, m + ch) for i in range(4)],  # top
        [(m, y0 + i * (cw + gap), m + ch, y0 + i * (cw + gap) + cw) for i in range(4)],  # left
    ]
    return edges


SUIT_COLOURS = {"o": (196, 146, 44), "c": (192, 67, 46), "e": (44, 99, 156), "b": (63, 109, 44)}


def showdown_photo(hands: list[list[str]], bottom: int = 0, size: tuple[int, int] = (1200, 900)) -> bytes:
    """A JPEG of the 16 cards, seat `bottom` at the bottom edge."""
    from PIL import Image, ImageDraw

    w, h = size
    img = Image.new("RGB", size, (30, 77, 58))
    draw = ImageDraw.Draw(img)
    for r in range(0, max(w, h), 60):  # a little felt texture
        draw.ellipse((w // 2 - r, h // 2 - r, w // 2 + r, h // 2 + r), outline=(33, 82, 62))
    for edge, boxes in enumerate(card_boxes(w, h)):
        seat = (bottom + edge) % 4
        for card, box in zip(hands[seat], boxes, strict=False):
            x1, y1, x2, y2 = box
            draw.rounded_rectangle((x1 + 3, y1 + 4, x2 + 3, y2 + 4), radius=10, fill=(18, 50, 37))
            draw.rounded_rectangle(box, radius=10, fill=(250, 246, 236), outline=(120, 110, 90), width=2)
            colour = SUIT_COLOURS.get(card[-1], (30, 30, 30))
            cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
            rr = min(x2 - x1, y2 - y1) // 4
            draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=colour)
            draw.text((x1 + 8, y1 + 6), card[:-1], fill=colour)
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=88)
    return buf.getvalue()


class FakeRecognizer:
    """Reads `showdown_photo(hands)`: every card boxed, named and seated, with the
    reader's warnings as `scorer.vision` gives them. Cards in `low_conf` are read
    unsure (0.41); cards in `unread` are found but not named (a box in a warning); unsure
    cards in `tight` lie in a tight fan (a `tight_fan` warning for their seat). The
    n-th call after the first reads with `later[n - 1]` (`{"low_conf": ..., "unread": ...}`,
    each empty when left out) where given."""

    def __init__(self, hands: list[list[str]], low_conf: set[str] | None = None,
                 unread: set[str] | None = None, later: list[dict[str, set[str]]] | None = None,
                 tight: set[str] | None = None) -> None:
        self.hands = hands
        self.first = {"low_conf": low_conf or set(), "unread": unread or set(), "tight": tight or set()}
        self.later = later or []
        self.calls = 0

    def scan(self, image: Any, bottom: int = 0) -> dict[str, Any]:
        reads = self.later[self.calls - 1] if 0 < self.calls <= len(self.later) else self.first
        low_conf, unread_cards = reads.get("low_conf", set()), reads.get("unread", set())
        tight = reads.get("tight", set()) & low_conf
        self.calls += 1
        w, h = image.size
        cards, low, unread = [], [], []
        for edge, boxes in enumerate(card_boxes(w, h)):
            seat = (bottom + edge) % 4
            for card, box in zip(self.hands[seat], boxes, strict=False):
                if card in unread_cards:
                    unread.append({"code": "low_confidence", "card": None, "conf": 0.0, "box": list(box),
                                   "message": "a card was found but its index could not be read: please check"})
                    continue
                conf = 0.41 if card in low_conf else 0.97
                cards.append({"card": card, "conf": conf, "box": list(box), "seat": seat})
                if card in low_conf:
                    others = [f"{'6' if card[:-1] == '5' else '5'}{card[-1]}"]  # a neighbouring rank
                    low.append({"code": "low_confidence", "card": card, "conf": conf, "box": list(box), "others": others,
                                     "message": f"{card} read with confidence {conf:.2f}: please confirm"})
        hands = [[c for c in hd if c not in unread_cards] for hd in self.hands]
        warnings: list[dict[str, Any]] = []  # in the reader's order: seats, unsure cards, unread boxes
        for s, hd in enumerate(hands):
            if len(hd) != 4:
                warnings.append({"code": "seat_count", "seat": s, "count": len(hd),
                                 "message": f"seat {s} has {len(hd)} cards, not 4"})
        fans = [{"code": "tight_fan", "seat": s, "cards": [c for c in hd if c in tight],
                 "message": f"seat {s}: mostly covered by the next card: spread that hand and add a photo"}
                for s, hd in enumerate(hands) if tight & set(hd)]
        from scorer.vision.layout import unfamiliar_deck

        said = warnings + low + unread + fans
        return {"cards": cards, "hands": hands, "warnings": said + unfamiliar_deck(said, True), "size": [w, h]}


class LiveServer:
    """The app (`web.create_app`) served by waitress on 127.0.0.1 in a thread."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        from waitress.server import create_server

        from web import create_app

        self._tmp = tempfile.TemporaryDirectory(prefix="mus-web-")
        # every phone of a test is 127.0.0.1, so no creation limit unless the test sets one
        cfg = {"DATABASE": str(Path(self._tmp.name) / "mus.db"), "TESTING": True, "SSE_HEARTBEAT": 5.0,
               "CREATE_MAX_PER_ADDRESS": 0}
        cfg.update(config or {})
        self.app = create_app(cfg)
        self.server = create_server(self.app, host="127.0.0.1", port=0, threads=16, ident="mus-test")
        self.port = self.server.effective_port  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{self.port}"
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mus-live-server", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        srv = self.server
        while not self._stopping.is_set():
            srv.asyncore.loop(timeout=0.2, map=srv._map, count=1)  # type: ignore[union-attr]

    def stop(self) -> None:
        """End the live streams, the request threads, the loop; then the database."""
        try:
            self.app.extensions["mus_hub"].close()
            self.app.extensions["mus_teacher"].stop()
        except Exception:
            pass
        self._stopping.set()
        self._thread.join(timeout=5)
        self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)  # type: ignore[union-attr]
        for channel in list(self.server._map.values()):  # type: ignore[union-attr]
            try:
                channel.close()
            except Exception:
                pass
        try:
            self.app.extensions["mus_store"].db.close()
        except Exception:
            pass
        self._tmp.cleanup()

    def __enter__(self) -> LiveServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Relay:
    """A TCP relay on 127.0.0.1 to `port` (a `LiveServer`'s): `url` goes through it.
    `stall()` holds what either side sends, and connects no new connection, until `flow()`:
    the connections stay open, nothing comes through (a stalled wifi, not a lost one)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self._flowing = threading.Event()
        self._flowing.set()
        self._closed = False
        self._socks: list[socket.socket] = []
        self._srv = socket.create_server(("127.0.0.1", 0))
        self._srv.settimeout(0.2)
        self.port = self._srv.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._accept, name="mus-relay", daemon=True).start()

    def stall(self) -> None:
        self._flowing.clear()

    def flow(self) -> None:
        self._flowing.set()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._srv.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._open, args=(client,), daemon=True).start()

    def _open(self, client: socket.socket) -> None:
        self._socks.append(client)
        self._flowing.wait()
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target))
        except OSError:
            client.close()
            return
        self._socks.append(upstream)
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                self._flowing.wait()
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self._closed = True
        self._flowing.set()
        self._srv.close()
        for s in self._socks:
            try:
                s.close()
            except OSError:
                pass

    def __enter__(self) -> Relay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


CHROMIUM = os.environ.get("MUS_CHROMIUM", "/usr/bin/chromium")  # Debian's Chromium
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def until(page: Any, expression: str, arg: Any = None, timeout: float = 8000) -> Any:
    """Wait until `expression` (JavaScript, as `page.evaluate` takes it) is truthy in
    `page`, and return its value. Playwright's `wait_for_function` evaluates its string in
    the page, which the pages' Content-Security-Policy refuses (no 'unsafe-eval'); this
    polls from outside instead, so the tests drive the pages under the CSP users get."""
    from playwright.sync_api import Error

    deadline = time.monotonic() + timeout / 1000
    while True:
        try:
            value = page.evaluate(expression, arg)
        except Error as exc:  # the page navigating meanwhile: ask again
            if "context was destroyed" not in str(exc) and "navigat" not in str(exc):
                raise
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} ms for {expression}")
        page.wait_for_timeout(50)

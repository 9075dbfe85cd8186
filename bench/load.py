"""Load test of the table web app: N tables x 4 phones on loopback.

Starts `python -m scorer serve` on 127.0.0.1 with a fresh database, creates N
tables, and runs four phones per table for a bounded time. Each phone holds a
server-sent events connection and, when its seat is to speak (seat 0 also at
showdown), taps a legal action after a think time, on its own keep-alive
connection; some writes are sent twice with the same `client_id` to check they
apply once. Prints actions/s, write latency p50/p95/p99, event delay (write sent
-> event seen by each phone), and checks that no write was lost or applied twice.

    python bench/load.py --tables 50 --duration 30
    python bench/load.py --tables 200 --duration 30 --think 1.0
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DECK = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]
MAX_TABLES = 500
MAX_DURATION = 300
REQUEST_TIMEOUT = 15.0  # seconds; a request slower than this counts as an error


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


@dataclass
class Stats:
    latency: list[float] = field(default_factory=list)  # seconds per accepted write
    delay: list[float] = field(default_factory=list)  # write sent -> event seen, per phone
    ok: int = 0
    stale: int = 0
    retries: int = 0
    retry_bad: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    events: int = 0
    sent_at: dict[tuple[str, int], float] = field(default_factory=dict)  # (table, version reached) -> t sent


class Conn:
    """One HTTP/1.1 keep-alive connection on loopback (just what the bench needs)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def request(self, method: str, path: str, body: Any = None, token: str | None = None
                      ) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            await self.open()
        assert self.reader is not None and self.writer is not None
        data = json.dumps(body).encode() if body is not None else b""
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}", f"Content-Length: {len(data)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        if token:
            head.append(f"Authorization: Bearer {token}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        await self.writer.drain()
        status, headers = await read_head(self.reader)
        n = int(headers.get("content-length", "0"))
        payload = await self.reader.readexactly(n) if n else b""
        return status, headers, payload

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    raw = await reader.readuntil(b"\r\n\r\n")
    lines = raw.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    return status, headers


class Phone:
    """One seat's phone at one table."""

    def __init__(self, bench: Bench, table: dict[str, Any], seat: int) -> None:
        self.bench, self.table, self.seat = bench, table, seat
        self.state: dict[str, Any] | None = None
        self.acted_on = 0  # the version this phone last acted on
        self.writes: set[str] = set()  # client_ids accepted
        self.changed = asyncio.Event()
        self.last_seen = 0

    async def sse(self) -> None:
        b = self.bench
        reader, writer = await asyncio.open_connection(b.host, b.port)
        path = f"/api/tables/{self.table['id']}/events"
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {b.host}\r\nAuthorization: Bearer {self.table['token']}\r\n"
                     "Accept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        status, headers = await read_head(reader)
        if status != 200:
            b.stats.errors[f"sse {status}"] = b.stats.errors.get(f"sse {status}", 0) + 1
            writer.close()
            return
        chunked = headers.get("transfer-encoding") == "chunked"
        buf = b""
        try:
            while not b.stopping:
                if chunked:
                    size = int((await reader.readuntil(b"\r\n")).strip(), 16)
                    if size == 0:
                        break
                    buf += (await reader.readexactly(size + 2))[:-2]
                else:
                    data = await reader.read(65536)
                    if not data:
                        break
                    buf += data
                while b"\n\n" in buf:
                    block, _, buf = buf.partition(b"\n\n")
                    self.on_block(block)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def on_block(self, block: bytes) -> None:
        version, data = None, None
        for line in block.split(b"\n"):
            if line.startswith(b"id: "):
                version = int(line[4:])
            elif line.startswith(b"data: "):
                data = line[6:]
        if version is None or data is None:
            return
        now = time.monotonic()
        b = self.bench
        b.stats.events += 1
        sent = b.stats.sent_at.get((self.table["id"], version))
        if sent is not None:
            b.stats.delay.append(now - sent)
        self.last_seen = max(self.last_seen, version)
        state = json.loads(data)
        if self.state is None or state["version"] > self.state["version"]:
            self.state = state
            self.changed.set()

    def my_move(self) -> tuple[str, dict[str, Any]] | None:
        s = self.state
        if s is None or s["version"] <= self.acted_on or s["current"] is None:
            return None
        cur = s["current"]
        if cur["phase"] in ("showdown", "over"):
            if self.seat != 0:
                return None
            deal = random.sample(DECK, 16)
            return "showdown", {"hands": [deal[i * 4:i * 4 + 4] for i in range(4)]}
        if cur["to_speak"] != self.seat or not cur["legal"]:
            return None
        legal = cur["legal"]
        calm = [a for a in legal if a["act"] not in ("ordago",)]
        weights = [6 if a["act"] in ("paso", "declare", "quiero") else 1 for a in calm]
        return "actions", {"action": random.choices(calm, weights)[0]}

    async def play(self) -> None:
        b = self.bench
        conn = Conn(b.host, b.port)
        try:
            while not b.stopping:
                try:
                    await asyncio.wait_for(self.changed.wait(), 1.0)
                except TimeoutError:
                    continue
                self.changed.clear()
                move = self.my_move()
                if move is None:
                    continue
                await asyncio.sleep(random.uniform(0.5, 1.5) * b.think)
                if b.stopping:
                    break
                assert self.state is not None
                version = self.state["version"]
                route, body = move
                client_id = f"{self.table['id']}-{self.seat}-{version}-{random.getrandbits(32):x}"
                body = {"client_id": client_id, "version": version, **body}
                path = f"/api/tables/{self.table['id']}/{route}"
                self.acted_on = version
                b.stats.sent_at[(self.table["id"], version + 1)] = t0 = time.monotonic()
                try:
                    status, _, payload = await asyncio.wait_for(
                        conn.request("POST", path, body, self.table["token"]), REQUEST_TIMEOUT)
                except (ConnectionError, asyncio.IncompleteReadError, TimeoutError) as exc:
                    b.stats.errors[type(exc).__name__] = b.stats.errors.get(type(exc).__name__, 0) + 1
                    conn.close()
                    conn = Conn(b.host, b.port)
                    continue
                dt = time.monotonic() - t0
                if status == 200:
                    b.stats.ok += 1
                    b.stats.latency.append(dt)
                    self.writes.add(client_id)
                    new = json.loads(payload)
                    if random.random() < b.retry_rate:  # a phone that did not see the answer sends it again
                        b.stats.retries += 1
                        s2, h2, p2 = await asyncio.wait_for(
                            conn.request("POST", path, body, self.table["token"]), REQUEST_TIMEOUT)
                        if s2 != 200 or json.loads(p2)["version"] < new["version"] or \
                                h2.get("idempotent-replayed") != "true":
                            b.stats.retry_bad += 1
                    if self.state is None or new["version"] > self.state["version"]:
                        self.state = new
                        self.changed.set()
                elif status == 409 and b"stale_version" in payload:
                    b.stats.stale += 1
                else:
                    key = f"{status} {payload[:80]!r}"
                    b.stats.errors[key] = b.stats.errors.get(key, 0) + 1
        finally:
            conn.close()


class Bench:
    def __init__(self, host: str, port: int, think: float, retry_rate: float) -> None:
        self.host, self.port, self.think, self.retry_rate = host, port, think, retry_rate
        self.stats = Stats()
        self.stopping = False

    async def run(self, n_tables: int, duration: float) -> dict[str, Any]:
        conn = Conn(self.host, self.port)
        tables = []
        for i in range(n_tables):
            status, _, payload = await conn.request("POST", "/api/tables", {"teams": [f"A{i}", f"B{i}"],
                                                                            "esku": i % 4})
            assert status == 201, payload
            tables.append(json.loads(payload))
        phones = [Phone(self, t, seat) for t in tables for seat in range(4)]
        sse = [asyncio.create_task(p.sse()) for p in phones]
        await asyncio.sleep(1.0)  # streams open, first states in
        players = [asyncio.create_task(p.play()) for p in phones]
        t0 = time.monotonic()
        await asyncio.sleep(duration)
        self.stopping = True
        elapsed = time.monotonic() - t0
        await asyncio.gather(*players, return_exceptions=True)
        await asyncio.sleep(1.0)  # the last events arrive
        for task in sse:
            task.cancel()
        await asyncio.gather(*sse, return_exceptions=True)
        # check: every accepted write is in the table once, and every phone saw the final version
        lost = dup = behind = 0
        for i, t in enumerate(tables):
            status, _, payload = await conn.request("GET", f"/api/tables/{t['id']}", token=t["token"])
            final = json.loads(payload)
            accepted = sum(len(p.writes) for p in phones[i * 4:i * 4 + 4])
            applied = final["version"] - 1
            lost += max(0, accepted - applied)
            dup += max(0, applied - accepted)
            behind += sum(1 for p in phones[i * 4:i * 4 + 4] if p.last_seen != final["version"])
        conn.close()
        s = self.stats
        return {
            "tables": n_tables, "phones": len(phones), "seconds": round(elapsed, 1), "writes_ok": s.ok,
            "writes_per_s": round(s.ok / elapsed, 1),
            "latency_ms": {k: round(1000 * pct(s.latency, p), 1) for k, p in (("p50", 50), ("p95", 95), ("p99", 99))}
            | {"max": round(1000 * max(s.latency, default=float("nan")), 1)},
            "event_delay_ms": {k: round(1000 * pct(s.delay, p), 1) for k, p in (("p50", 50), ("p95", 95),
                                                                                ("p99", 99))}
            | {"max": round(1000 * max(s.delay, default=float("nan")), 1)},
            "events_received": s.events, "stale_409": s.stale, "retries": s.retries,
            "retries_applied_twice_or_wrong": s.retry_bad, "lost_writes": lost, "duplicated_writes": dup,
            "phones_behind_at_end": behind, "errors": s.errors,
        }


def start_server(db: str, threads: int, log: Path) -> tuple[subprocess.Popen[bytes], int]:
    """`serve` on 127.0.0.1 and a free port; its output goes to `log` (a pipe could fill and stall it)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "scorer", "serve", "--host", "127.0.0.1", "--port", "0",
                                 "--db", db, "--threads", str(threads), "--no-qr",
                                 "--create-limit", "0"],  # every table comes from 127.0.0.1
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", log.read_text(errors="replace"))
        if m:
            return proc, int(m.group(1))
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start:\n" + log.read_text(errors="replace"))


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=50, help=f"tables (at most {MAX_TABLES})")
    ap.add_argument("--duration", type=float, default=30, help=f"seconds of play (at most {MAX_DURATION})")
    ap.add_argument("--think", type=float, default=1.0, help="mean seconds a player takes to tap (default 1.0)")
    ap.add_argument("--retry-rate", type=float, default=0.05, help="share of writes sent twice (default 0.05)")
    ap.add_argument("--threads", type=int, default=0, help="server threads (default 4 per table + 32)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    n = max(1, min(args.tables, MAX_TABLES))
    duration = max(1.0, min(args.duration, MAX_DURATION))
    random.seed(args.seed)
    threads = args.threads or 4 * n + 32
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 8 * n + 256
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))
    with tempfile.TemporaryDirectory(prefix="mus-bench-") as tmp:
        log = Path(tmp) / "serve.log"
        proc, port = start_server(str(Path(tmp) / "bench.db"), threads, log)
        try:
            cpu0, load0 = proc_cpu(proc.pid), os.getloadavg()[0]
            me0 = time.process_time()
            bench = Bench("127.0.0.1", port, args.think, args.retry_rate)
            out = asyncio.run(asyncio.wait_for(bench.run(n, duration), duration + 120))  # bounded whatever happens
            out["server_cpu_s"] = round(proc_cpu(proc.pid) - cpu0, 1)
            out["bench_client_cpu_s"] = round(time.process_time() - me0, 1)
            out["load_avg_1min"] = [round(load0, 1), round(os.getloadavg()[0], 1)]
            if proc.poll() is not None:
                print("the server died:\n" + log.read_text(errors="replace")[-3000:], file=sys.stderr)
                return 1
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
    out["server_threads"] = threads
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        lat, dly = out["latency_ms"], out["event_delay_ms"]
        print(f"{out['tables']} tables x 4 phones, {out['seconds']} s, think {args.think} s, {threads} server threads")
        print(f"writes: {out['writes_ok']} ok ({out['writes_per_s']}/s), {out['stale_409']} stale 409, "
              f"{out['retries']} retries ({out['retries_applied_twice_or_wrong']} wrong)")
        print(f"write latency ms: p50 {lat['p50']}  p95 {lat['p95']}  p99 {lat['p99']}  max {lat['max']}")
        print(f"event delay ms:   p50 {dly['p50']}  p95 {dly['p95']}  p99 {dly['p99']}  max {dly['max']}"
              f"  ({out['events_received']} events)")
        print(f"lost writes: {out['lost_writes']}  duplicated: {out['duplicated_writes']}  "
              f"phones behind at the end: {out['phones_behind_at_end']}  errors: {out['errors'] or 'none'}")
        print(f"CPU: server {out['server_cpu_s']} s, bench client {out['bench_client_cpu_s']} s over "
              f"{out['seconds']} s; load average {out['load_avg_1min'][0]} -> {out['load_avg_1min'][1]} "
              f"on {os.cpu_count()} CPUs")
    ok = (out["lost_writes"] == 0 and out["duplicated_writes"] == 0 and out["retries_applied_twice_or_wrong"] == 0
          and out["phones_behind_at_end"] == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

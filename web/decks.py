"""Teach the card reader a club's own deck from the web app: four photos in, new models out.

A deck no model has seen (the modern Fournier most players own) is read card by card at
three in four; taught from four photos of its 40 cards laid out, at 98 in 100
(`models/HISTORY.md`, "A deck taught in minutes" and "More showdowns to learn from"). This module runs that
recipe for the people at the table: `datasets.enroll` cuts the faces out of the photos,
`datasets.heads` gives the readers new last layers trained on showdowns rendered from them
(about a quarter of an hour on two cores, no torch), and the server reads every later
photo with the new models once someone says so. A deck may also be *refined* where the
train extra is installed: `datasets.adapt` tunes every layer of both readers on the same
rendered showdowns and `datasets.ensemble` reads the two teachings as one (about an hour
more; `models/HISTORY.md`, twenty-seventh and twenty-eighth sessions). Both run as child processes of the server
from the source checkout that holds `datasets/` (as `scripts/run.sh` runs the app), one job
at a time.

Everything here changes what every table reads, so every route asks for the server's
admin key (`Authorization: Bearer KEY`, or `?key=` for the sheet image), which
`mus-scorer serve` prints in the page's address (`/decks#key=...`) and keeps in the data folder.

Files, under `DECKS_DIR` (default: `decks/` beside the database):
`<id>/job.json` (the state below), `photos/`, `faces/` (the enrolled deck, `sheet.jpg`),
`models/` (the taught models, `ADAPTED.json`), `log.txt`, `child.pid` (the step running
now), `job.lock` (locked, `flock`, by the server whose job it is for as long as the job
runs: another server on the same folder leaves a locked deck alone); `active` names the deck chosen on the page, read unless the server was started with a
model folder (`serve --model`), which it reads instead.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; a restart reads every running job as left over
    fcntl = None  # type: ignore[assignment]

from flask import Blueprint, Response, current_app, request, send_file

from scorer.engine.errors import said
from scorer.storage.tables import same
from web.api import _dump, _reduction, _token, image_error, in_scan_slot, open_upload
from web.errors import ApiError

log = logging.getLogger(__name__)

bp = Blueprint("decks", __name__, url_prefix="/api/decks")

SUITS = ("oros", "copas", "espadas", "bastos")
"""The four photos, in the order `datasets.enroll` takes them: one suit each."""
RUNNING = ("queued", "reading", "teaching", "refining")
STATES = (*RUNNING, "ready", "failed", "interrupted")
"""A deck's job, from posted to done (the OpenAPI document lists them from here)."""
PHOTO_LIMIT = 25 * 1024 * 1024
"""Bytes per photo (25 MB); the request may carry four."""
UPLOAD_LIMIT = len(SUITS) * PHOTO_LIMIT + 64 * 1024
"""Bytes a deck's upload (POST /api/decks) may carry: its four photos and the form's fields."""
_ID = re.compile(r"^[a-z0-9]{12}$")
NICE = 10
"""How much lower the job runs than the server (`nice`), so that the tables' photos come first."""
REFINE_HOURS = 0.4
"""Hours of tuning per reader when a deck is refined (two readers: about 50 minutes on two cores)."""
STOPPED = "the server stopped while the deck was being taught; teach it again"
"""A job's error where the server stopped (or died) before the deck's heads were taught."""
REFINE_STOPPED = "the server stopped while the deck was being refined; to refine it, teach it again"
"""A deck's `refine_error` where the server stopped (or died) while refining it: its heads'
models were written before, so it is ready all the same, as first taught."""


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def source_dir() -> Path | None:
    """The checkout whose `datasets/` teaches a deck, or None when this is an installed copy."""
    root = Path(__file__).resolve().parents[1]
    return root if (root / "datasets" / "heads.py").is_file() and (root / "datasets" / "enroll.py").is_file() else None


def unavailable() -> str | None:
    """Why a deck cannot be taught on this server, or None when it can."""
    if source_dir() is None:
        return "teaching a deck needs the source checkout (its datasets/ folder); run the app with scripts/run.sh"
    missing = [m for m in ("onnx", "cv2", "tqdm") if importlib.util.find_spec(m) is None]
    if missing:
        return f"teaching a deck needs {', '.join(missing)}: pip install -e '.[enroll]'"
    return None


def refine_unavailable() -> str | None:
    """Why a deck cannot be refined on this server (tuned whole with torch), or None when it can."""
    why = unavailable()
    if why:
        return why
    missing = [m for m in ("torch", "ultralytics") if importlib.util.find_spec(m) is None]
    if missing:
        return f"refining a deck needs {', '.join(missing)}: pip install -e '.[train]'"
    return None


PR_SET_PDEATHSIG = 1
"""prctl(2): the signal a Linux process gets when the thread that started it ends."""

_WATCHED = f"""\
import ctypes, os, signal, sys
try:
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl({PR_SET_PDEATHSIG}, signal.SIGKILL, 0, 0, 0)
except (OSError, AttributeError):
    pass
if os.getppid() != int(sys.argv[1]):
    os._exit(1)
os.execv(sys.argv[2], sys.argv[2:])
"""
"""What a step's process runs first (`python -c`, given the server's pid and the step's
command line): it asks for SIGKILL when its parent ends, exits where its parent is no
longer the server (the server died before it asked), and becomes the step (exec: the
same pid, the signal kept)."""


def _dies_with_server(argv: list[str]) -> list[str]:
    """`argv` (an executable and its arguments) run so that, on Linux, the step is killed
    (SIGKILL) when the server dies (SIGKILL, the OOM killer): a teaching child left alone
    would run on for minutes, writing into a deck's folder that the next server reads as
    interrupted and may teach again beside it. The child asks for it itself (`_WATCHED`):
    no `preexec_fn`, which may deadlock a threaded server between fork and exec. The
    signal comes when the *thread* that started the child ends: the job's thread, which
    waits for the child and so outlives it. `argv` as it is elsewhere (the next server
    ends such a child by its pid, `Teacher._end_orphans`)."""
    if not sys.platform.startswith("linux"):
        return argv
    return [sys.executable, "-S", "-c", _WATCHED, str(os.getpid()), *argv]


def _group(pgid: int) -> list[tuple[int, int, int | None, str]]:
    """The living processes of process group `pgid`: (pid, parent's pid, start time in clock
    ticks since boot, field 22 of /proc/<pid>/stat, or None without /proc, command line)."""
    proc = Path("/proc")
    if (proc / "self" / "stat").is_file():
        found = []
        for p in proc.iterdir():
            if not p.name.isdigit():
                continue
            try:
                fields = (p / "stat").read_text(encoding="utf-8", errors="replace").rsplit(")", 1)[1].split()
                if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):  # a zombie is dead already
                    found.append((int(p.name), int(fields[1]), int(fields[19]), (p / "cmdline").read_bytes().replace(
                        b"\0", b" ").decode("utf-8", "replace")))
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile
        return found
    if os.name != "posix":
        return []
    try:  # macOS and the BSDs: no /proc
        ps = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,pgid=,stat=,command="], capture_output=True, text=True,
                            timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in ps.stdout.splitlines():
        parts = line.split(None, 4)
        if (len(parts) == 5 and parts[0].isdigit() and parts[1].isdigit() and parts[2] == str(pgid)
                and not parts[3].startswith("Z")):
            found.append((int(parts[0]), int(parts[1]), None, parts[4]))
    return found


def _started(pid: int) -> int | None:
    """When `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat), or None."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace").rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _boot_id() -> str | None:
    """This boot's id (Linux), which a pid and a start time are only good within; or None."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return boot if boot and " " not in boot else None


def _spared() -> set[int]:
    """The processes a restart never signals, whatever a `child.pid` says: this server, its
    process group (the terminal's or the service's job) and the processes above it."""
    spared = {os.getpid(), 0, 1}
    if os.name == "posix":
        spared.add(os.getppid())
        spared.update(pid for pid, *_ in _group(os.getpgrp()))
    pid = os.getpid()
    for _ in range(256):  # up the tree, where /proc says it
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace").rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        if pid <= 1:
            break
        spared.add(pid)
    return spared


def _lock(folder: Path, wait: bool = True) -> int | None | bool:
    """Lock the deck's `job.lock` (`flock`, exclusive): held by the server whose job runs
    on the deck, from before its job.json is written until the job is over, and let go
    when that server dies however it dies (the descriptor is not inherited by the steps).
    The descriptor, or None where there are no such locks (then nothing is known of other
    servers), or False where `wait` is False and another holds it."""
    if fcntl is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / "job.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        if wait:
            raise
        return False
    return fd


def _unlock(fd: int | None | bool) -> None:
    if isinstance(fd, int) and not isinstance(fd, bool):
        os.close(fd)  # closing the only descriptor lets the lock go


def _end(proc: subprocess.Popen) -> None:
    """End a step that runs now, and the processes it started (its session's group)."""
    if proc.poll() is not None:
        return
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGTERM)
        else:
            proc.terminate()
    except OSError:
        pass  # it ended meanwhile


_ELSEWHERE = re.compile(r"(?<![\w.:/\\-])(?:/[^\s'\"/:,;()\[\]]+){2,}|\b[A-Za-z]:\\[^\s'\"]+")
"""An absolute path (POSIX, or a Windows drive's) in an error's text."""


_QUOTED = re.compile(r"""(['"])((?:/|[A-Za-z]:\\)[^'"\n]*)\1""")
"""An absolute path in quotes (as Python's errors quote a file): to its closing quote, spaces and all."""


def _last(path: str) -> str:
    return re.split(r"[/\\]", path)[-1]


def _last_part(match: re.Match[str]) -> str:
    return _last(match.group(0))


def _roots() -> list[str]:
    """Folders of this server that an error or a progress line may name a file under: the
    source checkout, Python's prefixes, the home folder (the decks folder is the teacher's)."""
    found = [source_dir(), Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)]
    try:
        found.append(Path.home())
    except (RuntimeError, KeyError, OSError):
        pass
    return [str(r) for r in found if r is not None]


def public_text(text: str, roots: list[str]) -> str:
    """`text` without the server's paths: what lies under one of `roots` from that root (the
    longest first, matched exactly, spaces and all), a quoted path and any other by its last
    part."""
    for root in sorted({r.rstrip("/\\") for r in roots if len(r.rstrip("/\\")) > 2}, key=len, reverse=True):
        text = re.sub(r"(?<![\w./\\-])" + re.escape(root) + r"[/\\]", "", text)
        text = re.sub(r"(?<![\w./\\-])" + re.escape(root) + r"(?![\w.-])", lambda _m, r=root: _last(r), text)
    text = _QUOTED.sub(lambda m: m.group(1) + _last(m.group(2)) + m.group(1), text)
    text = re.sub(r"\bfile://(/[^\s'\"]+)", lambda m: _last(m.group(1)), text)
    return _ELSEWHERE.sub(_last_part, text)


def admin_key(folder: Path) -> str:
    """The server's admin key, kept in `folder/admin.key` (made on first use, owner-only)."""
    path = folder / "admin.key"
    try:
        key = path.read_text(encoding="ascii").strip()
        if len(key) >= 16:
            return key
    except (OSError, UnicodeDecodeError):
        pass
    folder.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(18)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(key + "\n")
    return key


class Teacher:
    """The decks folder and the one teaching job that may run at a time."""

    def __init__(self, root: Path, base_models: Path, heads_args: list[str] | None = None,
                 refine_hours: float = REFINE_HOURS, refine_args: list[str] | None = None) -> None:
        self.root = root
        self.base_models = base_models
        self.heads_args = list(heads_args or [])
        self.refine_hours = refine_hours
        self.refine_args = list(refine_args or [])
        self.lock = threading.Lock()
        self.job: tuple[str, threading.Thread] | None = None
        self.proc: subprocess.Popen | None = None
        self.cancelled: dict[str, str] = {}
        """Jobs ended on purpose, and why."""
        self.reads: Callable[[], str | None] | None = None
        """The model folder the tables read now (the app's `MODEL_DIR`; `init_app` sets it),
        or None where this teacher has no app: then the deck chosen is the one read."""
        self.models_given = False
        """Whether the server was started with a model folder (`serve --model`): read in place
        of the shipped models, and of the deck chosen before it started."""
        for info in self.decks():  # a job the last server was running died with it
            if info["state"] in RUNNING:
                lock = _lock(self.root / info["id"], wait=False)
                if lock is False:
                    continue  # its server runs it still (another server on this folder): not ours to touch
                try:
                    self._recover(info["id"])
                finally:
                    _unlock(lock)

    def _recover(self, deck_id: str) -> None:
        """A deck whose job the last server left running: ready as first taught where it was
        being refined (its heads' models are on disk), else interrupted; its rendered
        showdowns removed. Called with the deck's `job.lock` held (where there are locks):
        no server runs its job now."""
        folder = self.root / deck_id
        try:
            info = json.loads((folder / "job.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if info.get("state") not in RUNNING:
            return  # its job ended meanwhile, as its server let go of it
        self._end_orphans(folder)
        models = folder / "models"
        if info["state"] == "refining":
            self._heads_back(folder)  # stopped between _refine's two renames
        report = None
        if info["state"] == "refining" and (models / "cards-det.onnx").is_file():
            try:
                report = json.loads((models / "ADAPTED.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                report = None
        if report is not None:
            refined = "ensemble" in report  # stopped after the last rename: refined, the job not yet told
            self._ready(deck_id, report, info.get("minutes"), refined=refined,
                        refine_error=None if refined else REFINE_STOPPED)
        else:
            self._update(deck_id, state="interrupted", finished=_now(), error=STOPPED)
        shutil.rmtree(folder / "work", ignore_errors=True)

    @staticmethod
    def _end_orphans(folder: Path) -> None:
        """End what a server killed outright left of its job: the step it ran (the group
        whose leader's pid `child.pid` keeps, written when the step started) and the
        processes that step started (its group), where they would not die with it (not
        Linux; a step's own workers). Only those known to be the job's: where `child.pid`
        keeps the boot and the step's start time (Linux), a process of this boot in that
        group, its leader started then and a worker not before; elsewhere one whose command
        line names this deck's folder. Never this server, its group or the processes above
        it (a pid reused since), nor a step whose server still runs it."""
        pidfile = folder / "child.pid"
        try:
            parts = pidfile.read_text(encoding="ascii").split()
            pgid = int(parts[0])
            server = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        except (OSError, ValueError, IndexError, UnicodeDecodeError):
            return
        start = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else None
        boot, now = (parts[3] if len(parts) > 3 and parts[3] != "-" else None), _boot_id()
        if boot is not None and now is not None and boot != now:  # written before a reboot: none of it runs
            pidfile.unlink(missing_ok=True)
            return
        group = _group(pgid)
        if start is not None and boot is not None and now is not None:
            leader = [started for pid, _, started, _ in group if pid == pgid]
            if leader and leader[0] != start:
                group = []  # the pid is another process's now, leading a group of its own
            mine = [(pid, parent) for pid, parent, started, _ in group if started is not None and started >= start]
        else:
            mine = [(pid, parent) for pid, parent, _, command in group if str(folder) in command]
        if server and (pgid, server) in mine:
            return  # the step's server still runs it (another server on this folder): nothing is left over
        spared = _spared()
        left = [pid for pid, _ in mine if pid not in spared]
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        end = time.time() + 10
        while left and time.time() < end and any(pid in left for pid, *_ in _group(pgid)):
            time.sleep(0.05)
        if left:
            log.warning("deck %s: ended %d process(es) of its job that the last server left running: %s",
                        folder.name, len(left), ", ".join(map(str, left)))
        pidfile.unlink(missing_ok=True)

    # ---------------------------------------------------------------- state

    def folder(self, deck_id: str) -> Path:
        if not _ID.match(deck_id) or not (self.root / deck_id / "job.json").is_file():
            raise ApiError(404, "deck_not_found", f"no deck {said(deck_id)} on this server", "deck")
        return self.root / deck_id

    def info(self, deck_id: str) -> dict[str, Any]:
        """The deck's job.json, `active` (its models read now) and, while it runs, `log`."""
        info = json.loads((self.folder(deck_id) / "job.json").read_text(encoding="utf-8"))
        info["active"] = self.reading() == deck_id
        # stable codes beside the English of a job stopped with its server, for a page to say in its language
        info["error_code"] = "stopped" if info.get("error") == STOPPED else None
        info["refine_error_code"] = "stopped" if info.get("refine_error") == REFINE_STOPPED else None
        if info["state"] in RUNNING:
            info["log"] = self.log_tail(deck_id)
        return info

    def decks(self) -> list[dict[str, Any]]:
        out = []
        for p in sorted(self.root.glob("*/job.json")):
            try:
                out.append(self.info(p.parent.name))
            except (OSError, ValueError, ApiError):
                continue  # a folder that is not ours, or half written: not listed
        return sorted(out, key=lambda d: d["created"], reverse=True)

    def _update(self, deck_id: str, **values: Any) -> dict[str, Any]:
        path = self.root / deck_id / "job.json"
        info = json.loads(path.read_text(encoding="utf-8"))
        info.update(values)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
        return info

    def log_tail(self, deck_id: str) -> str:
        """The last line the job printed (its progress), for people watching (`_public`)."""
        try:
            text = (self.root / deck_id / "log.txt").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        lines = [ln.strip() for ln in re.split(r"[\r\n]+", text[-4000:]) if ln.strip() and not ln.startswith("$ ")]
        return self._public(deck_id, lines[-1])[:200] if lines else ""  # without the server's paths, as errors

    def active(self) -> str | None:
        """The deck chosen on the page (kept across restarts), if its models are there."""
        try:
            deck_id = (self.root / "active").read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        ready = _ID.match(deck_id) and (self.root / deck_id / "models" / "cards-det.onnx").is_file()
        return deck_id if ready else None

    def reading(self) -> str | None:
        """The deck whose models the tables read now, or None (the models the server started
        with: the shipped ones, or the folder `serve --model` gave, which a deck chosen before
        the start does not override)."""
        if self.reads is None:
            return self.active()
        return self.deck_of(self.reads())

    def deck_of(self, folder: str | Path | None) -> str | None:
        """The deck whose taught models `folder` is, or None."""
        if not folder:
            return None
        models = Path(folder).resolve()
        deck_id = models.parent.name
        mine = models.name == "models" and models.parent.parent == self.root.resolve() and _ID.match(deck_id)
        return deck_id if mine and (models / "cards-det.onnx").is_file() else None

    def set_active(self, deck_id: str | None) -> None:
        path = self.root / "active"
        if deck_id is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(deck_id + "\n", encoding="ascii")

    def running(self) -> str | None:
        job = self.job
        return job[0] if job and job[1].is_alive() else None

    # ---------------------------------------------------------------- jobs

    def start(self, name: str, photos: dict[str, tuple[bytes, str]], refine: bool = False) -> dict[str, Any]:
        """Save the photos and teach the deck in the background (refined after its heads if
        `refine`); `busy` while one is taught."""
        with self.lock:
            if self.running():
                raise ApiError(409, "busy", "a deck is being taught already; wait for it (one at a time: it takes "
                               "the server's processors for a few minutes)", None)
            deck_id = secrets.token_hex(6)
            folder = self.root / deck_id
            (folder / "photos").mkdir(parents=True)  # the decks folder too, on first use
            lock = _lock(folder)  # before job.json: another server never sees this job running unlocked
            try:
                paths = []
                for suit in SUITS:
                    data, ext = photos[suit]
                    path = folder / "photos" / f"{suit}.{ext}"
                    path.write_bytes(data)
                    paths.append(path)
                info = {"id": deck_id, "name": name, "state": "queued", "created": _now(), "started": None,
                        "finished": None, "error": None, "agree": None, "check": None, "verdict": None,
                        "minutes": None, "refine": refine, "refined": None, "refine_error": None}
                (folder / "job.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
                thread = threading.Thread(target=self._locked_run, args=(lock, deck_id, paths, refine),
                                          name=f"teach-{deck_id}", daemon=True)
                self.job = (deck_id, thread)
                thread.start()
            except BaseException:
                _unlock(lock)
                raise
        return self.info(deck_id)

    def _locked_run(self, lock: int | None | bool, deck_id: str, photos: list[Path], refine: bool) -> None:
        """`_run`, the deck's `job.lock` held throughout (taken by `start`) and let go after."""
        try:
            self._run(deck_id, photos, refine)
        finally:
            _unlock(lock)

    def _step(self, deck_id: str, argv: list[str]) -> tuple[int, str]:
        """Run one command of the recipe, its output appended to the log; (exit code, stderr's
        last line). The child runs in its own session (`stop` ends it and what it started;
        Ctrl-C in the server's terminal reaches the server alone, which stops it), dies with
        the server on Linux, and its pid is kept in `child.pid` while it runs (a later server
        ends it if it outlived this one)."""
        src = source_dir()
        folder = self.root / deck_id
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": os.pathsep.join(
            [str(src), *filter(None, [os.environ.get("PYTHONPATH")])])}
        with open(folder / "log.txt", "a", encoding="utf-8") as out:
            out.write("$ " + " ".join(argv) + "\n")
            out.flush()
            nice = shutil.which("nice") if NICE else None
            with self.lock:  # against stop(): it finds this step running, or this step finds the job stopped
                if deck_id in self.cancelled:  # stopped between two steps: the next one does not start
                    return -1, ""
                proc = subprocess.Popen([*([nice, "-n", str(NICE)] if nice else []),
                                         *_dies_with_server([sys.executable, *argv])],
                                        cwd=src, env=env, stdout=out, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                        text=True, errors="replace", start_new_session=os.name == "posix")
                self.proc = proc
            try:
                try:
                    (folder / "child.pid").write_text(  # step, server, the step's start (ticks since boot), boot
                        f"{proc.pid} {os.getpid()} {_started(proc.pid) or '-'} {_boot_id() or '-'}\n",
                        encoding="ascii")
                except OSError:  # the folder removed meanwhile: the step is still waited for below
                    pass
                last = ""
                assert proc.stderr is not None
                for line in proc.stderr:  # progress bars and errors: both go to the log
                    out.write(line)
                    out.flush()
                    if line.strip():
                        last = line.strip()
                rc = proc.wait()
            finally:  # the log could not be written (a full disk): the step is ended, not left running
                if proc.poll() is None:
                    _end(proc)
                    try:
                        proc.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
                if proc.stderr is not None:
                    proc.stderr.close()
                self.proc = None
                (folder / "child.pid").unlink(missing_ok=True)
        return rc, last

    def _run(self, deck_id: str, photos: list[Path], refine: bool = False) -> None:
        folder = self.root / deck_id
        started = time.time()
        self._update(deck_id, state="reading", started=_now())
        try:
            rc, last = self._step(deck_id, ["-m", "datasets.enroll", *map(str, photos), "--out", str(folder / "faces"),
                                            "--models", str(self.base_models)])
            if rc != 0 or deck_id in self.cancelled:
                return self._fail(deck_id, last.removeprefix("enroll: ") or f"reading the photos failed ({rc})")
            enrolled = json.loads((folder / "faces" / "deck.json").read_text(encoding="utf-8"))
            self._update(deck_id, state="teaching", agree=int(enrolled["agree"]))
            rc, last = self._step(deck_id, ["-m", "datasets.heads", "--deck", str(folder / "faces"),
                                            "--out", str(folder / "models"), "--models", str(self.base_models),
                                            "--work", str(folder / "work"), *self.heads_args])
            if rc != 0 or deck_id in self.cancelled:
                return self._fail(deck_id, last or f"teaching the readers failed ({rc})")
            report = json.loads((folder / "models" / "ADAPTED.json").read_text(encoding="utf-8"))
            if refine:  # the heads' models are written: from here on the deck can be read as they taught it
                self._update(deck_id, state="refining", minutes=round((time.time() - started) / 60, 1))
                why = self._refine(deck_id, folder, report)
                if why is not None and deck_id in self.cancelled:  # stopped: ready as first taught
                    why = REFINE_STOPPED
                elif why is not None:
                    log.warning("deck %s: refining failed: %s", deck_id, why)
                    why = self._public(deck_id, why)
                self._update(deck_id, refined=why is None, refine_error=why)
                report = json.loads((folder / "models" / "ADAPTED.json").read_text(encoding="utf-8"))
            shutil.rmtree(folder / "work", ignore_errors=True)  # gone before the deck reads as ready
            self._ready(deck_id, report, round((time.time() - started) / 60, 1))
        except Exception as exc:  # noqa: BLE001 - whatever went wrong is the job's answer, not a dead thread
            log.exception("deck %s: the teaching job broke", deck_id)
            try:
                self._heads_back(folder)  # not lost with work/ below
            except OSError:
                log.exception("deck %s: its heads' models could not be put back", deck_id)
            self._fail(deck_id, f"{type(exc).__name__}: {exc}")
        finally:
            # rendered crops: hundreds of MB, not needed now (a failed or stopped job's too)
            shutil.rmtree(folder / "work", ignore_errors=True)

    def _refine(self, deck_id: str, folder: Path, report: dict[str, Any]) -> str | None:
        """Tune both readers whole on the showdowns the heads were taught on (`work/deck`;
        `report`: the heads' ADAPTED.json) and make `models` read each as the mean of both
        teachings, checked on the heads' check showdowns; why not, or None when done (the
        heads' models are kept as they were when a step fails)."""
        work, scenes = folder / "work", int(report["deck"]["scenes"])
        check = int((report.get("check") or {}).get("showdowns of the deck", 0))
        rc, last = self._step(deck_id, ["-m", "datasets.adapt", "--deck", str(folder / "faces"),
                                        "--models", str(self.base_models), "--out", str(work / "tuned"),
                                        "--work", str(work), "--deck-scenes", str(scenes), "--deck-check", "0",
                                        "--readers", "cls,index", "--time", str(self.refine_hours),
                                        "--replay-scenes", "0", *self.refine_args])
        if rc != 0:
            return last.removeprefix("adapt: ") or f"tuning the readers failed ({rc})"
        rc, last = self._step(deck_id, ["-m", "datasets.ensemble", str(folder / "models"), str(work / "tuned"),
                                        "--out", str(work / "both"), "--crops", str(work / "deck"),
                                        "--deck", str(folder / "faces"), "--check", str(check)])
        if rc != 0:
            return last.removeprefix("ensemble: ") or f"reading the two teachings as one failed ({rc})"
        try:
            os.replace(folder / "models", work / "heads")  # the deck is not ready yet: nothing reads either
            os.replace(work / "both", folder / "models")
        except OSError as exc:  # the heads' models back where they were, before work/ is removed
            self._heads_back(folder)
            return f"{type(exc).__name__}: {exc}"
        return None

    @staticmethod
    def _heads_back(folder: Path) -> None:
        """The heads' models back in `models` where `_refine` moved them aside and did not
        put the refined ones in their place."""
        models, heads = folder / "models", folder / "work" / "heads"
        if not (models / "cards-det.onnx").is_file() and (heads / "cards-det.onnx").is_file():
            shutil.rmtree(models, ignore_errors=True)
            os.replace(heads, models)

    def _ready(self, deck_id: str, report: dict[str, Any], minutes: float | None, **values: Any) -> None:
        """The deck ready, with what its models' `report` (ADAPTED.json) says of them."""
        check = report.get("check")
        self._update(deck_id, state="ready", finished=_now(), minutes=minutes, verdict=report.get("verdict"),
                     check={k: {"photos": v["photos"], "full": v["full"], "seated": v["seated"]}
                            for k, v in check.items() if k in ("before", "after", "ensemble")} if check else None,
                     **values)

    def _public(self, deck_id: str | None, text: str) -> str:
        """An error as the API says it: without the server's paths (kept in the server's
        log and the deck's log.txt). A photo of the deck by its suit, another file of the
        deck from the deck's folder (`models/ADAPTED.json`), any other file by its name."""
        if deck_id is not None:
            folder = str(self.root / deck_id)
            text = re.sub(re.escape(os.path.join(folder, "photos", "")) + r"(\w+)\.\w+", r"the \1 photo", text)
            text = re.sub(re.escape(folder) + r"(?:[/\\]|(?![\w.-]))",
                          lambda m: "" if m.group(0) != folder else "the deck's folder", text)
        return public_text(text, [str(self.root), str(self.root.resolve()), str(self.base_models), *_roots()])

    def _fail(self, deck_id: str, error: str) -> None:
        error = self.cancelled.get(deck_id, error)
        log.warning("deck %s: teaching failed: %s", deck_id, error)
        if (self.root / deck_id).is_dir():
            self._update(deck_id, state="failed", finished=_now(), error=self._public(deck_id, error))

    def stop(self, why: str = STOPPED, deck_id: str | None = None) -> None:
        """End the job running now, if any (only if it is deck `deck_id`'s, where given); it
        reads as failed, for `why`, unless it was refining: then the deck is ready as first
        taught, its `refine_error` `REFINE_STOPPED`."""
        with self.lock:  # a step starting now is either seen here or sees the job stopped; a job starting is seen
            job = self.job
            if not job or not job[1].is_alive() or (deck_id is not None and job[0] != deck_id):
                return
            self.cancelled[job[0]] = why
            proc = self.proc
        if proc is not None:
            _end(proc)
        job[1].join(timeout=30)

    def delete(self, deck_id: str) -> None:
        """Remove a deck (its job cancelled first); the deck read now cannot be removed (one
        chosen, but not read for a model folder given at start, can: it is chosen no more)."""
        folder = self.folder(deck_id)
        if self.reading() == deck_id:
            if self.models_given and self.deck_of(self.base_models) == deck_id:
                raise ApiError(409, "deck_in_use", "the server was started with this deck's models (serve --model); "
                               "start it without them to remove the deck", "deck")
            raise ApiError(409, "deck_in_use", "this deck's models read the photos now; go back to the models the "
                           "server was started with first", "deck")
        self.stop("cancelled", deck_id)  # its job only: another deck's, started meanwhile, runs on
        if self.active() == deck_id:
            self.set_active(None)
        shutil.rmtree(folder, ignore_errors=True)


# ---------------------------------------------------------------- routes


def teacher() -> Teacher:
    return current_app.extensions["mus_teacher"]


def _check_key() -> None:
    given = _token("key")
    if not given:
        raise ApiError(401, "admin_key_required", "teaching a deck needs the server's admin key (mus-scorer serve "
                       "prints it with this page's address)", "key")
    if not same(given, current_app.config["ADMIN_KEY"]):
        raise ApiError(403, "admin_key_wrong", "that is not this server's admin key", "key")


def _links(info: dict[str, Any]) -> dict[str, Any]:
    base = f"/api/decks/{info['id']}"
    links = {"self": base}
    if info.get("agree") is not None:  # the faces are cut out (always so once ready)
        links["sheet"] = base + "/sheet.jpg"
    if info["state"] == "ready":
        links["use"] = base + "/use"
    return {**info, "links": links}


@bp.before_request
def _guard() -> None:
    _check_key()


@bp.get("")
def list_decks() -> Response:
    t, why, refine_why = teacher(), unavailable(), refine_unavailable()
    return _dump({"available": why is None, "why": why, "refine_available": refine_why is None,
                  "refine_why": refine_why, "refine_hours": 2 * t.refine_hours, "active": t.reading(),
                  "models_given": t.models_given, "given_deck": t.deck_of(t.base_models) if t.models_given else None,
                  "running": t.running(), "decks": [_links(d) for d in t.decks()]})


@bp.post("")
def create_deck() -> Response:
    why = unavailable()
    if why:
        raise ApiError(503, "teaching_unavailable", why, None)
    request.max_content_length = UPLOAD_LIMIT
    name = (request.form.get("name") or "").strip() or "Club deck"
    if len(name) > 40:
        raise ApiError(400, "invalid", f"name: at most 40 characters, got {len(name)}", "name")
    refine = (request.form.get("refine") or "").strip().lower()
    if refine not in ("", "0", "1", "true", "false", "on", "off"):
        raise ApiError(400, "invalid", f"refine: 1 or 0, got {said(refine[:20])}", "refine")
    refine_it = refine in ("1", "true", "on")
    if refine_it and (why := refine_unavailable()):
        raise ApiError(503, "refining_unavailable", why, "refine")
    photos, opened, problems = {}, {}, {}
    for suit in SUITS:  # every photo's header first: the cheap refusals before any decoding
        try:
            data = _upload(suit)
            opened[suit] = open_upload(data, suit, f"{suit}: ")  # as a table's photo: format, megapixels, least size
        except ApiError as exc:
            problems[suit] = exc
            continue
        photos[suit] = (data, EXTENSION[opened[suit].format])
    problems.update(_decodes(opened))  # the photos whose header passed: every bad photo is told at once
    for suit, refusal in _repeated(photos).items():
        problems.setdefault(suit, refusal)
    if problems:
        raise photos_refused([problems[suit] for suit in SUITS if suit in problems])
    return _dump(_links(teacher().start(name, photos, refine_it)), 202)


def _upload(suit: str) -> bytes:
    """The bytes of a suit's photo, refused when missing, empty or over `PHOTO_LIMIT`."""
    f = request.files.get(suit)
    if f is None or not f.filename:
        raise ApiError(400, "photo_missing", f"{suit}: no photo; four are needed, one a suit", suit)
    data = f.read(PHOTO_LIMIT + 1)
    if not data:
        raise ApiError(400, "empty_image", f"{suit}: the photo is empty", suit)
    if len(data) > PHOTO_LIMIT:
        raise ApiError(413, "too_large", f"{suit}: the photo is larger than the {PHOTO_LIMIT // (1024 * 1024)} MB "
                                         f"a deck's photo may have", suit)
    return data


def _repeated(photos: dict[str, tuple[bytes, str]]) -> dict[str, ApiError]:
    """The suits whose photo is byte for byte another suit's (one photo sent for several,
    which would teach a deck of one suit): each one's refusal, naming the suits it repeats."""
    alike: dict[bytes, list[str]] = {}
    for suit, (data, _ext) in photos.items():
        alike.setdefault(data, []).append(suit)
    refused = {}
    for suits in alike.values():
        for suit in suits if len(suits) > 1 else ():
            others = [s for s in suits if s != suit]
            named = others[0] if len(others) == 1 else f"{', '.join(others[:-1])} and {others[-1]}"
            refused[suit] = ApiError(400, "same_photo", f"{suit}: the same photo as {named} (each suit needs a "
                                     "photo of its own ten cards)", suit)
    return refused


def photos_refused(problems: list[ApiError]) -> ApiError:
    """Every bad photo in one refusal: the first one's status, code and field (its suit), a
    message naming each, and `problems`, each photo's own refusal, in the order of the suits."""
    first = problems[0]
    return ApiError(first.status, first.code, "; ".join(p.message for p in problems), first.field, problems)


EXTENSION = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}
"""A deck's photo file, by its format."""


def _decodes(photos: dict[str, Any]) -> dict[str, ApiError]:
    """Each photo decoded whole (a JPEG at 1/8: every byte is still read), one at a time on
    the scan workers that decode a table's photos, so that a damaged or truncated file is
    refused now, by its suit, and not by the job minutes later: the refusal of each that
    does not decode, by suit."""
    from scorer import vision

    refused = {}
    for suit, photo in photos.items():
        try:
            in_scan_slot(_decodes_whole, photo)
        except vision.ImageError as exc:
            refused[suit] = image_error(exc, suit, f"{suit}: ")
    return refused


def _decodes_whole(photo: Any) -> None:
    photo.decode(_reduction(photo, None))


@bp.get("/<deck_id>")
def get_deck(deck_id: str) -> Response:
    return _dump(_links(teacher().info(deck_id)))


@bp.get("/<deck_id>/sheet.jpg")
def get_sheet(deck_id: str) -> Response:
    path = teacher().folder(deck_id) / "faces" / "sheet.jpg"
    if not path.is_file():
        raise ApiError(404, "not_found", "the deck's faces are not cut out yet", None)
    resp = send_file(path, mimetype="image/jpeg", max_age=0)
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.delete("/<deck_id>")
def delete_deck(deck_id: str) -> Response:
    teacher().delete(deck_id)
    return Response(status=204)


@bp.post("/<deck_id>/use")
def use_deck(deck_id: str) -> Response:
    t = teacher()
    info = t.info(deck_id)
    if info["state"] != "ready":
        raise ApiError(409, "deck_not_ready", f"the deck is {info['state']}, not ready: its models are not written",
                       "deck")
    _switch(t.folder(deck_id) / "models")
    t.set_active(deck_id)
    return _dump(_links(t.info(deck_id)))


@bp.post("/shipped/use")
def use_shipped() -> Response:
    t = teacher()
    _switch(None)
    t.set_active(None)
    return _dump({"active": None})


def _switch(models: Path | None) -> None:
    """Read every later photo with `models` (None: the models the server started with);
    loaded here, so a folder that cannot be read is refused and the old models kept."""
    from scorer import vision

    ext = current_app.extensions
    folder = models or Path(current_app.config["BASE_MODEL_DIR"])
    try:
        recognizer = vision.Recognizer(folder)
    except vision.ModelError as exc:
        which = "the deck's models" if models is not None else "the models the server was started with"
        raise ApiError(503, "recognizer_unavailable", f"{which} cannot be read "
                       f"({teacher()._public(None, str(exc))})", None) from None
    with ext["mus_scan_lock"]:
        ext["mus_recognizer"] = recognizer
        current_app.config["MODEL_DIR"] = str(folder)


def init_app(app: Any) -> None:
    """The teacher on the app: its folder, the admin key, the models it starts from; and the
    deck chosen before a restart read again, unless a model folder was given."""
    from scorer import vision

    db = app.config["DATABASE"]
    if app.config.get("DECKS_DIR"):
        root = Path(app.config["DECKS_DIR"])
    elif db == ":memory:":  # nothing kept: neither are the decks
        import tempfile

        root = Path(tempfile.mkdtemp(prefix="mus-decks-")) / "decks"
    else:
        root = Path(db).resolve().parent / "decks"
    if not app.config.get("ADMIN_KEY"):
        app.config["ADMIN_KEY"] = admin_key(root.parent)
    base = Path(app.config.get("MODEL_DIR") or vision.default_model_dir())
    app.config["BASE_MODEL_DIR"] = str(base)
    t = Teacher(root, base, app.config.get("TEACH_ARGS"), float(app.config.get("TEACH_REFINE_HOURS") or REFINE_HOURS),
                app.config.get("TEACH_REFINE_ARGS"))
    app.extensions["mus_teacher"] = t
    t.models_given = bool(app.config.get("MODEL_DIR"))
    t.reads = lambda: app.config.get("MODEL_DIR")  # what the tables read, whatever chose it
    active = t.active()
    if active and not t.models_given:
        app.config["MODEL_DIR"] = str(root / active / "models")

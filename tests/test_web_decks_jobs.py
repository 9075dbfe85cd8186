"""A deck's job around its edges, on stand-in steps: `datasets.enroll`, `heads`, `adapt` and
`ensemble` replaced by tiny scripts of a fake checkout (each writes what the next one reads,
or sleeps until it is ended, or fails as told), so that a server stopped while a deck is
refined, a server killed outright, a restart, a deck removed between two steps, a model
folder given at start and the errors a person is shown are checked for real in seconds
(the real recipe runs in `test_web_decks.py`)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import web.decks
from web import create_app
from web.decks import RUNNING, SUITS, Teacher

KEY = "k" * 24
REPO = Path(__file__).resolve().parents[1]

_STEP = '''
import json, os, shutil, sys, time
from pathlib import Path

NAME = {name!r}
here = Path(__file__).resolve().parents[1]
plan = json.loads((here / "plan.json").read_text()).get(NAME, "ok")
args = sys.argv[1:]
out = Path(args[args.index("--out") + 1])
(here / "ran").mkdir(exist_ok=True)
if sys.platform.startswith("linux"):  # the signal it gets when its server dies (PR_GET_PDEATHSIG)
    import ctypes
    deathsig = ctypes.c_int(-1)
    ctypes.CDLL(None).prctl(2, ctypes.byref(deathsig), 0, 0, 0)
    (here / "ran" / (NAME + ".deathsig")).write_text(str(deathsig.value))
(here / "ran" / NAME).write_text(str(os.getpid()))
if plan.startswith("say:"):
    print(plan[4:], file=sys.stderr, flush=True)
    plan = "sleep"
if plan == "sleep":
    time.sleep(120)  # until it is ended
if plan.startswith("fail:"):
    print(plan[5:].replace("{{photo}}", args[0]).replace("{{out}}", str(out)), file=sys.stderr)
    sys.exit(1)
out.mkdir(parents=True, exist_ok=True)
if NAME == "enroll":
    (out / "deck.json").write_text(json.dumps({{"agree": 40}}))
    (out / "sheet.jpg").write_bytes(b"\\xff\\xd8\\xff\\xd9")
elif NAME == "heads" and plan != "no-report":
    work = Path(args[args.index("--work") + 1])
    (work / "deck").mkdir(parents=True, exist_ok=True)
    (out / "cards-det.onnx").write_bytes(b"heads")
    (out / "ADAPTED.json").write_text(json.dumps({{
        "method": "heads", "deck": {{"scenes": 3}}, "verdict": "better",
        "check": {{"showdowns of the deck": 1, "before": {{"photos": 1, "full": 0, "seated": 10}},
                  "after": {{"photos": 1, "full": 1, "seated": 16}}}}}}))
elif NAME == "adapt":
    (out / "tuned.onnx").write_bytes(b"tuned")
elif NAME == "ensemble":
    shutil.copytree(args[0], out, dirs_exist_ok=True)
    report = json.loads((out / "ADAPTED.json").read_text())
    report["ensemble"] = {{"temperatures": {{"cls": 1.0, "index": 1.0}}}}
    report["check"]["ensemble"] = {{"photos": 1, "full": 1, "seated": 16}}
    (out / "ADAPTED.json").write_text(json.dumps(report))
'''


def _fake_checkout(src: Path, plan: dict[str, str] | None = None) -> Path:
    """A checkout whose `datasets` package holds the four stand-in steps, run as `plan` says
    (`ok`, `sleep`, `say:<stderr line>` then sleep, `fail:<stderr line>`, where `{photo}` is its first argument and `{out}`
    its `--out`, `no-report` for heads: no ADAPTED.json)."""
    (src / "datasets").mkdir(parents=True, exist_ok=True)
    (src / "datasets" / "__init__.py").write_text("")
    for name in ("enroll", "heads", "adapt", "ensemble"):
        (src / "datasets" / f"{name}.py").write_text(_STEP.format(name=name))
    (src / "plan.json").write_text(json.dumps(plan or {}))
    return src


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """The stand-in checkout, `web.decks` teaching from it; `fake.plan(...)` sets how its steps run."""
    src = _fake_checkout(tmp_path / "src")
    monkeypatch.setattr(web.decks, "source_dir", lambda: src)
    monkeypatch.setattr(web.decks, "unavailable", lambda: None)
    monkeypatch.setattr(web.decks, "refine_unavailable", lambda: None)

    class Fake:
        path = src

        @staticmethod
        def plan(**steps: str) -> None:
            (src / "plan.json").write_text(json.dumps(steps))

        @staticmethod
        def ran(name: str, timeout: float = 30) -> int:
            """The pid of the step `name` once it started."""
            marker, end = src / "ran" / name, time.time() + timeout
            while time.time() < end:
                if marker.is_file() and marker.read_text():
                    return int(marker.read_text())
                time.sleep(0.05)
            raise AssertionError(f"{name} never started")

    return Fake


def _photos() -> dict[str, tuple[bytes, str]]:
    return {suit: (b"photo of " + suit.encode(), "jpg") for suit in SUITS}


def _wait(t: Teacher, deck_id: str, timeout: float = 60) -> dict:
    end = time.time() + timeout
    while time.time() < end:
        info = t.info(deck_id)
        if info["state"] not in RUNNING and not t.running():
            return info
        time.sleep(0.05)
    raise AssertionError(f"still {info['state']} after {timeout} s")


def _auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {KEY}"}


def _app(tmp_path, **cfg):
    return create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "ADMIN_KEY": KEY, **cfg})


def left_deck(root: Path, deck_id: str, state: str = "teaching", *, models: str | None = None,
              report: dict | None = None, **fields) -> Path:
    """A deck a server left behind: `<root>/<deck_id>` with its work/ folder and its job.json
    in `state` (name: its id, unless `fields` say; `fields` over the rest), and where `models`
    names a folder in it, the heads' models there (a stand-in detector, `report` as
    ADAPTED.json)."""
    folder = root / deck_id
    (folder / "work").mkdir(parents=True)
    (folder / "job.json").write_text(json.dumps(
        {"id": deck_id, "name": deck_id, "state": state, "created": "2026-11-24T10:00:00Z", **fields}))
    if models:
        (folder / models).mkdir(parents=True)
        (folder / models / "cards-det.onnx").write_bytes(b"heads")
        (folder / models / "ADAPTED.json").write_text(json.dumps(report or {"method": "heads", "check": None}))
    return folder


def _sleeper(*argv: str) -> subprocess.Popen:
    """A process of its own session that sleeps two minutes, `argv` on its command line."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", *argv], start_new_session=True)
    _running(proc.pid, "time.sleep")
    return proc


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return not sys.platform.startswith("linux")
    return state not in ("Z", "X")


def _running(pid: int, text: str, timeout: float = 10) -> None:
    """Wait until `pid` runs a command line holding `text` (past its fork, its exec done)."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            if text.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                return
        except OSError:
            if not Path("/proc/self").exists():
                time.sleep(0.5)  # no /proc: give it time
                return
        time.sleep(0.02)
    raise AssertionError(f"{pid} never ran {text!r}")


def _gone(pid: int, timeout: float = 10) -> bool:
    """Whether `pid` ends within `timeout` seconds (looked at once at least, however short)."""
    end = time.time() + timeout
    while True:
        if not _alive(pid):
            return True
        if time.time() >= end:
            return False
        time.sleep(0.05)


def test_gone_looks_at_least_once() -> None:
    assert _gone(os.getpid(), 0) is False
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    assert _gone(done.pid, 0) is True


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# ---------------------------------------------------------------- D1: a refine stopped


def test_the_stand_ins_teach_and_refine_a_deck_as_the_real_steps_do(tmp_path, fake) -> None:
    t = Teacher(tmp_path / "decks", tmp_path / "base")
    info = _wait(t, t.start("x", _photos(), refine=True)["id"])
    assert info["state"] == "ready" and info["refined"] is True and info["refine_error"] is None, info
    assert set(info["check"]) == {"before", "after", "ensemble"} and info["minutes"] is not None
    assert not (tmp_path / "decks" / info["id"] / "work").exists()


def test_a_server_stopped_while_a_deck_is_refined_leaves_it_ready_as_first_taught(tmp_path, fake, monkeypatch) -> None:
    """`Teacher.stop()`, what `serve` does on SIGTERM, during `datasets.adapt`: the heads'
    models are on disk, so the deck is ready as they taught it, and says refining was stopped."""
    fake.plan(adapt="sleep")
    root = tmp_path / "decks"
    app = _app(tmp_path, DECKS_DIR=str(root))
    t = app.extensions["mus_teacher"]
    deck_id = t.start("club", _photos(), refine=True)["id"]
    adapt = fake.ran("adapt")
    assert t.info(deck_id)["state"] == "refining"
    t.stop()
    assert _gone(adapt)
    info = t.info(deck_id)
    assert info["state"] == "ready" and info["refined"] is False, info
    assert "stopped" in info["refine_error"] and "refined" in info["refine_error"], info
    assert info["error"] is None and info["verdict"] == "better" and set(info["check"]) == {"before", "after"}
    assert info["minutes"] is not None
    folder = root / deck_id
    assert (folder / "models" / "cards-det.onnx").read_bytes() == b"heads" and not (folder / "work").exists()

    switched = []
    monkeypatch.setattr(web.decks, "_switch", lambda models: switched.append(models))
    c = _app(tmp_path, DECKS_DIR=str(root)).test_client()  # the server started again
    listed = c.get(f"/api/decks/{deck_id}", headers=_auth()).get_json()
    assert listed["state"] == "ready" and "use" in listed["links"]
    r = c.post(f"/api/decks/{deck_id}/use", headers=_auth())
    assert r.status_code == 200 and switched == [folder / "models"], r.get_json()


def test_a_restart_finds_a_deck_that_was_being_refined_ready_as_first_taught(tmp_path) -> None:
    """The server killed while refining (no stop at all): its heads' models are on disk, so
    the restart makes it ready as they taught it; where they are not, it was interrupted."""
    root = tmp_path / "decks"
    report = {"method": "heads", "verdict": "same", "check": {"before": {"photos": 1, "full": 1, "seated": 16},
                                                               "after": {"photos": 1, "full": 1, "seated": 16}}}

    def deck(deck_id: str, models: str | None) -> Path:
        folder = left_deck(root, deck_id, "refining", models=models, report=report,
                           started="2026-11-24T10:00:00Z", finished=None, error=None, minutes=14.5, check=None,
                           verdict=None, refine=True, refined=None, refine_error=None)
        (folder / "work" / "deck").mkdir()
        return folder

    kept = deck("aaaaaaaaaaaa", "models")
    moved = deck("bbbbbbbbbbbb", "work/heads")  # killed between _refine's two renames
    deck("cccccccccccc", None)
    t = Teacher(root, tmp_path / "base")
    infos = {d["id"]: d for d in t.decks()}
    for deck_id in ("aaaaaaaaaaaa", "bbbbbbbbbbbb"):
        info = infos[deck_id]
        assert info["state"] == "ready" and info["refined"] is False and "stopped" in info["refine_error"], info
        assert info["verdict"] == "same" and info["check"]["after"]["full"] == 1 and info["minutes"] == 14.5
        assert info["error"] is None and info["finished"]
    assert (kept / "models" / "cards-det.onnx").is_file() and (moved / "models" / "cards-det.onnx").is_file()
    assert not (kept / "work").exists() and not (moved / "work").exists()
    assert infos["cccccccccccc"]["state"] == "interrupted" and "teach it again" in infos["cccccccccccc"]["error"]
# ---------------------------------------------------------------- D2: a server killed outright


_PARENT = '''
import sys, time
from pathlib import Path
sys.path.insert(0, {repo!r})
import web.decks as d
d.source_dir = lambda: Path({src!r})
t = d.Teacher(Path({root!r}), Path({root!r}) / "base")
print(t.start("x", {{s: (s.encode(), "jpg") for s in d.SUITS}})["id"], flush=True)
time.sleep(600)
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child dies with its parent on Linux")
def test_a_server_killed_outright_takes_its_teaching_child_with_it(tmp_path) -> None:
    """SIGKILL (the OOM killer) to a process teaching a deck: its child, which would run on
    alone and keep writing into the deck's folder, dies with it."""
    src = _fake_checkout(tmp_path / "src", {"enroll": "sleep"})
    code = _PARENT.format(repo=str(REPO), src=str(src), root=str(tmp_path / "decks"))
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = None
    try:
        deck_id = parent.stdout.readline().strip()
        assert deck_id, "the parent did not start the job"
        marker, end = src / "ran" / "enroll", time.time() + 30
        while not (marker.is_file() and marker.read_text()) and time.time() < end:
            time.sleep(0.05)
        child = int(marker.read_text())
        assert _alive(child)
        parent.kill()
        parent.wait()
        assert _gone(child), "the teaching child outlived the server"
        t = Teacher(tmp_path / "decks", tmp_path / "base")  # its job.lock went with it: the restart takes over
        assert t.info(deck_id)["state"] == "interrupted"
    finally:
        parent.kill()
        parent.wait()
        if child:
            _kill(child)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child dies with its parent on Linux")
def test_a_step_asks_to_die_with_its_server_itself_and_no_preexec_fn_runs(tmp_path, fake, monkeypatch) -> None:
    """Each step starts with no `preexec_fn` (Python run between fork and exec, which may
    deadlock a threaded server), in a session of its own, and asks for SIGKILL when its
    server dies itself, then runs as the step under the pid the job knows (exec)."""
    real_popen, kwargs_of, pids = subprocess.Popen, [], []

    def popen(argv, *args, **kwargs):
        proc = real_popen(argv, *args, **kwargs)
        kwargs_of.append(kwargs)
        pids.append(proc.pid)
        return proc

    monkeypatch.setattr(web.decks.subprocess, "Popen", popen)
    t = Teacher(tmp_path / "decks", tmp_path / "base")
    info = _wait(t, t.start("x", _photos())["id"])
    monkeypatch.undo()
    assert info["state"] == "ready", info
    assert len(kwargs_of) == 2 and all(kw.get("preexec_fn") is None and kw.get("start_new_session")
                                       for kw in kwargs_of), kwargs_of
    for name, pid in zip(("enroll", "heads"), pids, strict=True):
        assert int((fake.path / "ran" / name).read_text()) == pid
        assert int((fake.path / "ran" / f"{name}.deathsig").read_text()) == signal.SIGKILL, name


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child dies with its parent on Linux")
def test_a_step_whose_server_died_before_it_asked_to_die_with_it_does_not_run(tmp_path) -> None:
    """The server killed between the fork and the child's own prctl: the child, whose parent
    is then not the server it was started by, exits at once instead of teaching for nobody."""
    marker = tmp_path / "ran"
    step = [sys.executable, "-c", "import sys; open(sys.argv[1], 'w').write('ran')", str(marker)]
    watched = web.decks._dies_with_server(step)
    server = len(watched) - len(step) - 1
    assert watched[server + 1:] == step and watched[server] == str(os.getpid())
    assert subprocess.run(watched, timeout=60).returncode == 0 and marker.read_text() == "ran"
    marker.unlink()
    reparented = [*watched[:server], "1", *watched[server + 1:]]  # its parent (this test) is not pid 1
    assert subprocess.run(reparented, timeout=60).returncode == 1
    assert not marker.exists()


def test_a_restart_ends_a_teaching_child_the_last_server_left_running(tmp_path) -> None:
    """Where the step did not die with its server (not Linux), or its own workers outlived
    it, the next server ends them, by the pid the job wrote, before the deck reads as
    interrupted; a pid that is not that deck's job, and a step whose server still runs
    it, are left alone."""
    root = tmp_path / "decks"
    orphan_deck, workers_deck, live_deck = (left_deck(root, deck_id) for deck_id in ("a" * 12, "b" * 12, "d" * 12))
    reused_deck = left_deck(root, "c" * 12, "reading")
    orphan = _sleeper(str(orphan_deck / "faces"))  # its server (pid 1 here: not its parent) is gone
    (orphan_deck / "child.pid").write_text(f"{orphan.pid} 1\n")
    starter = subprocess.run(  # a step that started a worker of its own, then died: the worker is left
        [sys.executable, "-c", "import subprocess as s, sys; print(s.Popen([sys.executable, '-c', 'import time; "
         "time.sleep(120)', sys.argv[1]], stdout=s.DEVNULL, stderr=s.DEVNULL).pid)", str(workers_deck / "work")],
        start_new_session=True, capture_output=True, text=True, check=True)
    worker = int(starter.stdout)
    _running(worker, "time.sleep")
    (workers_deck / "child.pid").write_text(f"{os.getpgid(worker)} 1\n")  # the step's pid: its group's
    other = _sleeper()  # not a deck's job: a pid reused since
    (reused_deck / "child.pid").write_text(f"{other.pid} 1\n")
    live = _sleeper(str(live_deck / "faces"))  # its server (this process) still runs it, its job.lock held
    (live_deck / "child.pid").write_text(f"{live.pid} {os.getpid()}\n")
    held = web.decks._lock(live_deck)
    try:
        t = Teacher(root, tmp_path / "base")
        assert orphan.wait(timeout=10) == -signal.SIGKILL
        assert _gone(worker), "the step's own worker was left running"
        assert other.poll() is None and live.poll() is None
        states = {d["id"]: d["state"] for d in t.decks()}
        assert states == {**dict.fromkeys(("a" * 12, "b" * 12, "c" * 12), "interrupted"),
                          "d" * 12: "interrupted" if held is None else "teaching"}, states
        assert not (orphan_deck / "work").exists() and not (orphan_deck / "child.pid").exists()
        if held is not None:  # the live job is left as it is: its rendered showdowns and its step's pid
            assert (live_deck / "work").is_dir() and (live_deck / "child.pid").is_file()
    finally:
        web.decks._unlock(held)
        for p in (orphan, other, live):
            p.kill()
            p.wait()
        _kill(worker)


@pytest.mark.skipif(web.decks.fcntl is None, reason="no flock: a restart cannot tell another server's job")
def test_a_second_server_on_the_same_decks_folder_leaves_the_running_job_alone(tmp_path, fake) -> None:
    """`mus-scorer serve` started again on the same data folder while the first one teaches
    a deck (by mistake: it fails on the port, after making its app): the deck's job is the
    first server's, locked, so the second one neither ends its step nor rewrites its state
    nor removes its rendered showdowns; the first server's job goes on and ends as its own."""
    fake.plan(heads="sleep")
    root = tmp_path / "decks"
    first = Teacher(root, tmp_path / "base")
    deck_id = first.start("x", _photos())["id"]
    heads = fake.ran("heads")
    _running(heads, "datasets")
    (root / deck_id / "work" / "deck").mkdir(parents=True, exist_ok=True)  # what heads renders
    second = Teacher(root, tmp_path / "base")
    assert second.info(deck_id)["state"] == "teaching" and first.running() == deck_id
    assert _alive(heads) and (root / deck_id / "work" / "deck").is_dir() and (root / deck_id / "child.pid").is_file()
    first.stop()
    assert _gone(heads)
    info = first.info(deck_id)
    assert info["state"] == "failed" and "teach it again" in info["error"], info
    assert Teacher(root, tmp_path / "base").info(deck_id)["state"] == "failed"  # ended: nothing left to recover

@pytest.mark.skipif(not Path("/proc/self/stat").is_file() or web.decks._boot_id() is None,
                    reason="start times and the boot's id come from /proc")
def test_a_restart_ends_only_the_step_that_child_pid_names_by_its_start_time(tmp_path) -> None:
    """`child.pid` keeps the boot and the step's start time: a restart ends the group whose
    leader started then (its command line naming the deck or not: a worker spawned anew),
    and leaves alone a process that has the pid now (its command line naming the deck: a
    `tail -f` of its log) or a pid of another boot."""
    root = tmp_path / "decks"
    boot = web.decks._boot_id()
    step_deck, reused_deck, old_boot_deck = (left_deck(root, deck_id) for deck_id in ("e" * 12, "f" * 12, "0" * 12))
    step = _sleeper()  # names no deck
    (step_deck / "child.pid").write_text(f"{step.pid} 1 {web.decks._started(step.pid)} {boot}\n")
    tail = _sleeper(str(reused_deck / "log.txt"))  # names the deck, but started after the step it replaced
    (reused_deck / "child.pid").write_text(f"{tail.pid} 1 {web.decks._started(tail.pid) - 1} {boot}\n")
    again = _sleeper(str(old_boot_deck / "faces"))
    (old_boot_deck / "child.pid").write_text(f"{again.pid} 1 {web.decks._started(again.pid)} "
                                             f"00000000-0000-0000-0000-000000000000\n")
    try:
        t = Teacher(root, tmp_path / "base")
        assert step.wait(timeout=10) == -signal.SIGKILL
        assert tail.poll() is None and again.poll() is None
        assert {d["state"] for d in t.decks()} == {"interrupted"}
        assert not any((d / "child.pid").exists() for d in (step_deck, reused_deck, old_boot_deck))
    finally:
        for p in (step, tail, again):
            p.kill()
            p.wait()


_SERVER = '''
import os, sys
from pathlib import Path
sys.path.insert(0, {repo!r})
import web.decks as d
folder = Path(sys.argv[1])
(folder / "child.pid").write_text(sys.argv[2].replace("SELF", str(os.getpid())).replace(
    "START", str(d._started(os.getpid()))).replace("BOOT", str(d._boot_id())) + "\\n")
d.Teacher(folder.parent, folder.parent / "base")
print("started", flush=True)
'''


@pytest.mark.skipif(os.name != "posix", reason="process groups")
@pytest.mark.parametrize("pidfile", ["SELF 4242", "SELF 4242 START BOOT"])
def test_a_restart_never_ends_the_server_itself(tmp_path, pidfile) -> None:
    """A `child.pid` left by a server killed outright whose pid is the new server's now (after
    a reboot; a group leader, under systemd or a shell), and the server started with the
    deck's own models (`serve --model <decks>/<id>/models`: its command line names the
    deck): the new server does not end itself."""
    folder = tmp_path / "decks" / "abcdef012345"
    (folder / "models").mkdir(parents=True)
    (folder / "job.json").write_text(json.dumps({"id": "abcdef012345", "name": "x", "state": "teaching",
                                                 "created": "2026-11-24T10:00:00Z"}))
    p = subprocess.run([sys.executable, "-c", _SERVER.format(repo=str(REPO)), str(folder), pidfile, "--model",
                        str(folder / "models")], start_new_session=True, capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout.strip()) == (0, "started"), p.stderr[-500:]
    assert json.loads((folder / "job.json").read_text())["state"] == "interrupted"

# ---------------------------------------------------------------- a deck removed between two steps


def test_a_deck_removed_between_two_steps_starts_no_next_step(tmp_path, fake, monkeypatch) -> None:
    """DELETE while no step runs (enroll done, heads not started: `proc` is None): the job
    ends there, heads never starts, and the removal does not wait for a step to time out."""
    fake.plan(heads="sleep")
    t = Teacher(tmp_path / "decks", tmp_path / "base")
    real_update, removing = t._update, []

    def update(deck_id: str, **values):
        info = real_update(deck_id, **values)
        if values.get("state") == "teaching":  # between the two steps, in the job's thread
            assert t.proc is None
            remover = threading.Thread(target=t.delete, args=(deck_id,))
            remover.start()
            removing.append(remover)  # started: the test joins it as soon as it is here
            end = time.time() + 10
            while deck_id not in t.cancelled and time.time() < end:
                time.sleep(0.01)
        return info

    monkeypatch.setattr(t, "_update", update)
    deck_id = t.start("x", _photos())["id"]
    fake.ran("enroll")
    end = time.time() + 10
    while not removing and time.time() < end:
        time.sleep(0.01)
    removing[0].join(timeout=20)
    assert not removing[0].is_alive(), "the removal waited for a step that should not have started"
    assert not (fake.path / "ran" / "heads").exists() and not t.running()
    assert not (tmp_path / "decks" / deck_id).exists()


def test_a_deck_removed_as_its_next_step_starts_ends_that_step(tmp_path, fake, monkeypatch) -> None:
    """DELETE just as a step is being started (the job past its check, its child not yet
    known): the removal waits for the child to be known and ends it, rather than finding
    no child, waiting 30 s for the job and removing the folder under a running step."""
    fake.plan(heads="sleep")
    t = Teacher(tmp_path / "decks", tmp_path / "base")
    real_popen, removing = subprocess.Popen, []

    def popen(argv, *args, **kwargs):
        if "datasets.heads" in argv:  # the job is about to start heads: the removal comes now
            remover = threading.Thread(target=t.delete, args=(deck_id,))
            remover.start()
            removing.append(remover)
            time.sleep(0.5)  # time for it to find no child running, where nothing makes it wait
        return real_popen(argv, *args, **kwargs)

    deck_id = t.start("x", _photos())["id"]
    monkeypatch.setattr(web.decks.subprocess, "Popen", popen)
    fake.ran("enroll")
    end = time.time() + 10
    while not removing and time.time() < end:
        time.sleep(0.01)
    removing[0].join(timeout=20)
    monkeypatch.undo()
    heads = fake.path / "ran" / "heads"
    try:
        assert not removing[0].is_alive(), "the removal did not end the step it raced"
        assert not t.running() and not (tmp_path / "decks" / deck_id).exists()
        pid = heads.read_text() if heads.is_file() else ""
        assert not pid or _gone(int(pid)), "the step raced by the removal runs on"  # or it never wrote its pid
    finally:
        if heads.is_file() and heads.read_text():
            _kill(int(heads.read_text()))


# ---------------------------------------------------------------- D3: a model folder given at start


def test_a_model_folder_given_at_start_is_what_the_decks_say_the_tables_read(tmp_path) -> None:
    """`serve --model DIR` (config MODEL_DIR) reads DIR, not the deck chosen before: GET
    /api/decks says no deck is read and that a model folder was given, and that deck may be
    removed (it is no longer chosen then); the deck read really is kept from removal."""
    root, deck_id = tmp_path / "decks", "abcdef012345"
    folder = root / deck_id
    (folder / "models").mkdir(parents=True)
    (folder / "models" / "cards-det.onnx").write_bytes(b"taught")
    (folder / "job.json").write_text(json.dumps({"id": deck_id, "name": "club", "state": "ready",
                                                 "created": "2026-11-24T10:00:00Z"}))
    (root / "active").write_text(deck_id + "\n")  # chosen on the page before the restart

    app = _app(tmp_path, DECKS_DIR=str(root))  # no model folder given: the deck chosen is read
    c = app.test_client()
    assert app.config["MODEL_DIR"] == str(folder / "models")
    listing = c.get("/api/decks", headers=_auth()).get_json()
    assert (listing["active"], listing["models_given"], listing["decks"][0]["active"]) == (deck_id, False, True)
    assert c.delete(f"/api/decks/{deck_id}", headers=_auth()).get_json()["error"]["code"] == "deck_in_use"

    given = tmp_path / "given-models"
    given.mkdir()
    app = _app(tmp_path, DECKS_DIR=str(root), MODEL_DIR=str(given))
    c = app.test_client()
    assert app.config["MODEL_DIR"] == str(given)  # what the tables read
    listing = c.get("/api/decks", headers=_auth()).get_json()
    assert (listing["active"], listing["models_given"], listing["decks"][0]["active"]) == (None, True, False)
    assert c.get(f"/api/decks/{deck_id}", headers=_auth()).get_json()["active"] is False
    # a model folder that is the deck's own: that deck is read
    mine = _app(tmp_path, DECKS_DIR=str(root), MODEL_DIR=str(folder / "models")).test_client()
    assert mine.get("/api/decks", headers=_auth()).get_json()["active"] == deck_id
    assert mine.delete(f"/api/decks/{deck_id}", headers=_auth()).status_code == 409

    assert c.delete(f"/api/decks/{deck_id}", headers=_auth()).status_code == 204
    assert not folder.exists() and not (root / "active").exists()
    assert _app(tmp_path, DECKS_DIR=str(root)).config.get("MODEL_DIR") is None


# ---------------------------------------------------------------- the photos and the errors a person sees


def _jpeg(colour: str) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (320, 240), colour).save(buf, "JPEG")
    return buf.getvalue()


def test_the_same_photo_sent_for_several_suits_is_refused_before_any_job(tmp_path, fake) -> None:
    """One photo sent as all four suits (oros photographed four times): refused at once, each
    suit named with the suits it repeats, and no job starts; two suits alike, those two."""
    c = _app(tmp_path).test_client()
    same = _jpeg("green")
    r = c.post("/api/decks", headers=_auth(), data={s: (io.BytesIO(same), f"{s}.jpg") for s in SUITS},
               content_type="multipart/form-data")
    err = r.get_json()["error"]
    assert (r.status_code, err["code"], err["field"]) == (400, "same_photo", "oros")
    assert [(p["field"], p["code"], p["status"]) for p in err["problems"]] == [(s, "same_photo", 400) for s in SUITS]
    assert err["problems"][0]["message"].startswith("oros: the same photo as copas, espadas and bastos")
    assert err["problems"][3]["message"].startswith("bastos: the same photo as oros, copas and espadas")
    assert c.get("/api/decks", headers=_auth()).get_json()["decks"] == [] and not (fake.path / "ran").exists()

    photos = {"oros": _jpeg("red"), "copas": _jpeg("green"), "espadas": _jpeg("red"), "bastos": _jpeg("blue")}
    r = c.post("/api/decks", headers=_auth(), data={s: (io.BytesIO(b), f"{s}.jpg") for s, b in photos.items()},
               content_type="multipart/form-data")
    err = r.get_json()["error"]
    assert r.status_code == 400 and [(p["field"], p["code"]) for p in err["problems"]] == [
        ("oros", "same_photo"), ("espadas", "same_photo")]
    assert err["message"].startswith("oros: the same photo as espadas") and "; espadas: the same photo as oros" in err[
        "message"]
    photos["espadas"] = _jpeg("yellow")  # four photos: taught
    r = c.post("/api/decks", headers=_auth(), data={s: (io.BytesIO(b), f"{s}.jpg") for s, b in photos.items()},
               content_type="multipart/form-data")
    assert r.status_code == 202, r.get_json()
    assert _wait(c.application.extensions["mus_teacher"], r.get_json()["id"])["state"] == "ready"


def test_a_failed_job_tells_no_server_paths_but_logs_them(tmp_path, fake, caplog) -> None:
    """A step's error or the job's own names files on the server: the deck's error says
    them from the deck's folder (a photo by its suit), any other by its name alone; the
    deck's log.txt and the server's log keep them whole."""
    root = tmp_path / "decks"
    t = Teacher(root, tmp_path / "base")

    def fails(refine: bool = False, **plan: str) -> dict:
        fake.plan(**plan)
        info = _wait(t, t.start("x", _photos(), refine=refine)["id"])
        said = info["error"] or info["refine_error"]
        assert said and str(tmp_path) not in said and "/" + tmp_path.parts[1] not in said, info
        return info

    with caplog.at_level("WARNING", logger="web.decks"):
        info = fails(enroll="fail:enroll: {photo}: cannot identify image file")
    assert info["state"] == "failed" and info["error"] == "the oros photo: cannot identify image file", info
    assert str(root / info["id"] / "photos" / "oros.jpg") in (root / info["id"] / "log.txt").read_text()
    assert str(root / info["id"] / "photos" / "oros.jpg") in caplog.text

    info = fails(heads="no-report")  # the job's own error: a file it expected is not there
    assert info["error"] == "FileNotFoundError: [Errno 2] No such file or directory: 'models/ADAPTED.json'", info

    info = fails(heads="fail:OSError: [Errno 28] No space left on device: '/var/tmp/mus/x/crops/12o.png'")
    assert info["error"] == "OSError: [Errno 28] No space left on device: '12o.png'", info

    info = fails(refine=True, adapt="fail:adapt: cannot write {out}/last.pt (see /srv/mus/models/x.onnx)")
    assert info["state"] == "ready" and info["refine_error"] == "cannot write work/tuned/last.pt (see x.onnx)", info


def test_server_paths_are_told_from_the_folders_they_are_in_spaces_and_all(tmp_path, monkeypatch) -> None:
    """The checkout, Python's prefix and the home folder are taken off a path exactly (a
    folder with a space in its name too), a quoted path is cut to its last part at its
    closing quote, and a running deck's progress line is told the same way."""
    home = tmp_path / "Users" / "ana"
    src = home / "My Projects" / "mus"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(web.decks, "source_dir", lambda: src)
    root, d = src / "decks", "abcdef012345"
    t = Teacher(root, src / "models")
    said = {
        f"No such file or directory: '{src}/datasets/x y.py'": "No such file or directory: 'datasets/x y.py'",
        f"model file not found: {src}/models/cards-det.onnx": "model file not found: cards-det.onnx",
        f"cannot open {home}/Library/Application Support/mus/cards-cls.json":
            "cannot open Library/Application Support/mus/cards-cls.json",
        f"no module named torch ({sys.prefix}/lib/site-packages)": "no module named torch (lib/site-packages)",
        "cannot write 'C:\\Users\\Ana Lopez\\mus\\a.onnx'": "cannot write 'a.onnx'",
        "No such file: '/opt/other place/x y/z.onnx'": "No such file: 'z.onnx'",
        "see file:///srv/mus/models/x.onnx": "see x.onnx",
        f"{root}/{d}x/faces": f"{d}x/faces",
        f"Permission denied: '{root}/{d}'": "Permission denied: 'the deck's folder'",
    }
    for text, public in said.items():
        assert t._public(d, text) == public, text
    (root / d).mkdir(parents=True)
    (root / d / "job.json").write_text(json.dumps({"id": d, "name": "x", "state": "reading",
                                                   "created": "2026-11-24T10:00:00Z"}))
    (root / d / "log.txt").write_text(f"$ enroll\n40 faces written to {root / d / 'faces'} (see {src}/x y/z.txt)\n")
    assert t.info(d)["log"] == "40 faces written to faces (see x y/z.txt)"


def test_models_that_cannot_be_read_are_not_named_by_their_folder(tmp_path) -> None:
    given = tmp_path / "secret place" / "models"
    given.mkdir(parents=True)
    c = _app(tmp_path, MODEL_DIR=str(given)).test_client()
    r = c.post("/api/decks/shipped/use", headers=_auth())
    err = r.get_json()["error"]
    assert (r.status_code, err["code"]) == (503, "recognizer_unavailable"), err
    assert err["message"].startswith("the models the server was started with cannot be read")
    assert str(tmp_path) not in err["message"] and "secret place" not in err["message"], err


def test_refined_models_that_cannot_be_put_in_place_leave_the_heads_models(tmp_path, fake, monkeypatch) -> None:
    """An error between `_refine`'s two renames (the heads' models moved aside, the refined
    ones not moved in): the heads' models are put back before work/ is removed, and the
    deck is ready as first taught, saying why refining failed."""
    real_replace = os.replace

    def replace(src, dst, *args, **kwargs):
        if Path(src).name == "both":
            raise OSError(28, "No space left on device")
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(web.decks.os, "replace", replace)
    t = Teacher(tmp_path / "decks", tmp_path / "base")
    info = _wait(t, t.start("x", _photos(), refine=True)["id"])
    folder = tmp_path / "decks" / info["id"]
    assert info["state"] == "ready" and info["refined"] is False, info
    assert info["refine_error"] == "OSError: [Errno 28] No space left on device", info
    assert (folder / "models" / "cards-det.onnx").read_bytes() == b"heads" and not (folder / "work").exists()


def test_a_log_that_cannot_be_written_ends_the_step(tmp_path, fake, monkeypatch) -> None:
    """The disk full while a step's output is written to log.txt: the step is ended and
    waited for, `proc` and `child.pid` cleared, and the deck fails saying why."""
    fake.plan(enroll="say:reading the photos")
    real_open = open

    class Full:
        def __init__(self, f) -> None:
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc) -> None:
            self.f.close()

        def write(self, text: str) -> int:
            if not text.startswith("$ "):
                raise OSError(28, "No space left on device")
            return self.f.write(text)

        def flush(self) -> None:
            self.f.flush()

        def fileno(self) -> int:
            return self.f.fileno()

    def opens(path, mode="r", *args, **kwargs):
        f = real_open(path, mode, *args, **kwargs)
        return Full(f) if Path(path).name == "log.txt" and "a" in mode else f

    monkeypatch.setattr(web.decks, "open", opens, raising=False)
    t = Teacher(tmp_path / "decks", tmp_path / "base")
    deck_id = t.start("x", _photos())["id"]
    step = fake.ran("enroll")
    info = _wait(t, deck_id, timeout=30)
    try:
        assert info["state"] == "failed" and "No space left on device" in info["error"], info
        assert _gone(step, 5) and t.proc is None and not (tmp_path / "decks" / deck_id / "child.pid").exists()
    finally:
        _kill(step)


def test_removing_a_deck_never_stops_another_decks_job(tmp_path, fake) -> None:
    """`stop(why, deck_id)` (what removing a deck does) ends that deck's job only: another
    deck's job, started just before, runs on."""
    fake.plan(heads="sleep")
    t = Teacher(tmp_path / "decks", tmp_path / "base")
    running = t.start("y", _photos())["id"]
    heads = fake.ran("heads")
    t.stop("cancelled", "abcdef012345")
    assert t.running() == running and running not in t.cancelled and _alive(heads)
    t.stop("cancelled", running)
    assert _gone(heads) and _wait(t, running)["error"] == "cancelled"


def test_a_stopped_job_says_so_by_a_code_and_a_deck_given_at_start_is_named(tmp_path) -> None:
    """`error_code` / `refine_error_code` `stopped` beside the English (a page says it in its
    language); `serve --model <deck>/models`: `given_deck` names it, and removing it says
    to start the server without it (going back to the models it started with is that deck)."""
    root = tmp_path / "decks"
    left_deck(root, "a" * 12, "refining", models="models")
    left_deck(root, "b" * 12, "teaching")
    c = _app(tmp_path, DECKS_DIR=str(root), MODEL_DIR=str(root / ("a" * 12) / "models")).test_client()
    listing = c.get("/api/decks", headers=_auth()).get_json()
    decks = {d["id"]: d for d in listing["decks"]}
    assert (decks["a" * 12]["state"], decks["a" * 12]["refine_error_code"], decks["a" * 12]["error_code"]) == (
        "ready", "stopped", None)
    assert (decks["b" * 12]["state"], decks["b" * 12]["error_code"], decks["b" * 12]["refine_error_code"]) == (
        "interrupted", "stopped", None)
    assert (listing["active"], listing["models_given"], listing["given_deck"]) == ("a" * 12, True, "a" * 12)
    err = c.delete(f"/api/decks/{'a' * 12}", headers=_auth()).get_json()["error"]
    assert err["code"] == "deck_in_use" and "start it without them" in err["message"], err
    plain = _app(tmp_path, DECKS_DIR=str(root)).test_client().get("/api/decks", headers=_auth()).get_json()
    assert (plain["models_given"], plain["given_deck"]) == (False, None)

"""The commands other than `serve` on inputs that are not what they expect: one line on
standard error naming what is wrong, and an exit status, never a Python traceback."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HAND = ROOT / "examples" / "hand.json"
MATCH = ROOT / "examples" / "match.jsonl"


def cli(*args: str, cwd: Path = ROOT, stdout: object = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "scorer", *args], stdout=stdout, stderr=subprocess.PIPE, text=True,
                          cwd=cwd, env=env, timeout=120)


def one_line(proc: subprocess.CompletedProcess[str], command: str, status: int) -> str:
    assert proc.returncode == status, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith(f"mus-scorer {command}: ") and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


# -- a database corrupt past the pages checked on opening --------------------------------
def _database_of(tmp_path: Path, tables: int) -> Path:
    """A mus-scorer database holding `tables` tables, closed."""
    from scorer.storage import Database
    from scorer.storage.tables import TableStore

    db = tmp_path / "mus.db"
    store = TableStore(Database(db))
    for n in range(tables):
        store.create({"teams": [f"Team {n}", f"Other {n}"]})
    store.db.close()
    return db


@pytest.fixture()
def corrupt_db(tmp_path: Path) -> Path:
    """A mus-scorer database whose first two pages (the header and the schema) are sound
    and whose other pages are noise: it opens, then fails the first query that reads on."""
    db = _database_of(tmp_path, 40)
    data = db.read_bytes()
    size = int.from_bytes(data[16:18], "big") or 65536  # the page size
    assert len(data) > 4 * size
    noise = random.Random(7).randbytes(len(data) - 2 * size)
    db.write_bytes(data[:2 * size] + noise)
    return db


@pytest.mark.parametrize("command", [["prune", "--dry-run"], ["prune"], ["prune", "--tables-days", "1"],
                                     ["export-photos", "out"]])
def test_a_database_corrupt_inside_is_named_not_a_traceback(corrupt_db: Path, tmp_path: Path,
                                                              command: list[str]) -> None:
    err = one_line(cli(*command, "--db", str(corrupt_db), cwd=tmp_path), command[0], 1)
    assert f"{corrupt_db}: cannot use the database (" in err


@pytest.mark.parametrize("command", [["prune", "--dry-run"], ["export-photos", "out"]])
def test_a_database_damaged_in_its_second_half_is_refused_not_read_as_empty(tmp_path: Path,
                                                                            command: list[str]) -> None:
    """Damage the queries of a dry run do not reach: it said "would delete 0 photo(s)"; the
    file is now checked (`PRAGMA quick_check`) before it is used."""
    db = _database_of(tmp_path, 60)
    data = db.read_bytes()
    half = len(data) // 2
    db.write_bytes(data[:half] + random.Random(3).randbytes(len(data) - half))
    err = one_line(cli(*command, "--db", str(db), cwd=tmp_path), command[0], 1)
    assert f"{db}: cannot use the database (it is damaged: " in err and "backup" in err


# -- scan: a model that cannot be loaded ---------------------------------------------------
@pytest.mark.parametrize(("broken", "says"), [("cards-det.onnx", "cards-det.onnx"),
                                              ("cards-cls.json", "one of its .json files is not JSON")])
def test_scan_with_a_broken_model_says_so(tmp_path: Path, broken: str, says: str) -> None:
    pytest.importorskip("onnxruntime")
    shipped = ROOT / "models"
    if not (shipped / "cards-det.onnx").is_file() or not (shipped / "cards-cls.json").is_file():
        pytest.skip("no shipped model to copy")
    model = tmp_path / "model"
    model.mkdir()
    for f in ("cards-det.onnx", "cards-cls.onnx", "cards-cls.json"):
        shutil.copy(shipped / f, model / f)
    (model / broken).write_text("{not a model")
    from PIL import Image

    photo = tmp_path / "photo.png"
    Image.new("RGB", (200, 150), "white").save(photo)
    err = one_line(cli("scan", "--model-dir", str(model), str(photo)), "scan", 2)
    assert f"the card model in {model} cannot be loaded: " in err and says in err


# -- output that cannot be written ---------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("command", [["settle", str(HAND)], ["replay", str(MATCH)], ["replay", "--json", str(MATCH)],
                                     ["standings", str(MATCH)]])
def test_a_full_disk_is_one_line(command: list[str]) -> None:
    with open("/dev/full", "w") as full:
        err = one_line(cli(*command, stdout=full), command[0], 2)
    assert err.endswith(": cannot write the output: No space left on device\n")


# -- settle --jobs ---------------------------------------------------------------------------
@pytest.mark.parametrize(("jobs", "says"), [("257", "'257' is more than 256 processes"), ("-1", "'-1' is not"),
                                            ("²", "'²' is not a whole number"), ("١", "'١' is not a whole number")])
def test_settle_jobs_out_of_bounds_is_refused(jobs: str, says: str) -> None:
    proc = cli("settle", "--jobs", jobs, str(HAND))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and says in proc.stderr, proc.stderr


def test_settle_many_jobs_for_few_lines(tmp_path: Path) -> None:
    hand = json.loads(HAND.read_text())
    lines = tmp_path / "hands.jsonl"
    lines.write_text("".join(json.dumps(hand) + "\n" for _ in range(600)))  # three blocks of 256 lines at most
    proc = cli("settle", "--jobs", "256", str(lines))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert len(out) == 600 and len(set(out)) == 1


# -- standings: a damaged tournament zip -----------------------------------------------------
def damaged_zip(path: Path, members: dict[str, bytes], damaged: str) -> None:
    """A zip of `members` (deflated) whose member `damaged` has its compressed bytes flipped."""
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(damaged)
    raw = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for i in range(start + 4, start + min(40, info.compress_size - 2)):
        raw[i] ^= 0x55
    path.write_bytes(bytes(raw))


def test_standings_names_a_zip_member_that_cannot_be_unpacked(tmp_path: Path) -> None:
    zipped = tmp_path / "tour.zip"
    damaged_zip(zipped, {"matches/01-a-b.jsonl": MATCH.read_bytes() * 20}, "matches/01-a-b.jsonl")
    proc = cli("standings", str(zipped))
    err = one_line(proc, "standings", 2)
    assert f"{zipped}:matches/01-a-b.jsonl: cannot be unpacked (" in err and proc.stdout == ""


def test_standings_over_a_zip_whose_tournament_json_is_damaged_ranks_its_matches(tmp_path: Path) -> None:
    zipped = tmp_path / "tour.zip"
    damaged_zip(zipped, {"matches/01-a-b.jsonl": MATCH.read_bytes(),
                         "tournament.json": json.dumps({"teams": ["Txuriak", "Beltzak"] * 50}).encode()},
                "tournament.json")
    proc = cli("standings", str(zipped))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert "Txuriak" in proc.stdout

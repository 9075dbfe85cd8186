"""Real photos labelled at the table: `mus-scorer export-photos` writes the stored
showdown photos with the cards the players settled, and `datasets.evaluate_photos`
scores a reader on them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from datasets.evaluate_photos import LabelError, evaluate_photos, load_labels, score, to_markdown
from scorer.storage import Database
from scorer.storage.photos import ExportError, export, labelled_photos, scan_bottom
from scorer.storage.prune import prune
from scorer.storage.tables import TableStore
from web.testing import FakeRecognizer, showdown_photo

pytestmark = pytest.mark.webapi

DECK = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]
DEAL = [DECK[0:4], DECK[10:14], DECK[20:24], DECK[30:34]]
MISREAD = [DEAL[0], DEAL[1], DEAL[2], [*DEAL[3][:3], "12c"]]  # the reader took 4b for 12c


def _to_showdown(store: TableStore, tid: str, prefix: str) -> None:
    for i in range(80):
        rt = store.runtime(tid)
        if rt.live.phase in ("showdown", "over"):
            return
        store.act(tid, f"{prefix}{i}", rt.version, rt.live.legal()[0])


@pytest.fixture()
def db(tmp_path) -> Database:
    """A table with one hand settled on a photo (read with one card wrong, seat 1 at the
    bottom), one settled without a photo, and a photo no hand cites."""
    store = TableStore(Database(tmp_path / "m.db"))
    tid = store.create({}).id
    photo = showdown_photo(DEAL, bottom=1)
    _to_showdown(store, tid, "a")
    scan = {"cards": [], "hands": MISREAD, "warnings": [], "bottom": 1}
    cited, _ = store.add_photo(tid, "p1", "image/jpeg", photo, None, scan)
    store.add_photo(tid, "p2", "image/jpeg", photo, None, {"cards": [], "hands": None, "warnings": []})
    store.showdown(tid, "s1", store.runtime(tid).version, DEAL, cited["photo_id"])
    _to_showdown(store, tid, "b")
    store.showdown(tid, "s2", store.runtime(tid).version, DEAL, None)
    _to_showdown(store, tid, "c")
    # a hand settled on a photo the reader made no showdown of: no hands read
    none, _ = store.add_photo(tid, "p3", "image/jpeg", photo, None, {"cards": [], "hands": None, "warnings": []})
    store.showdown(tid, "s3", store.runtime(tid).version, DEAL, none["photo_id"])
    return store.db


def test_export_writes_the_cited_photos_and_their_labels(db: Database, tmp_path: Path) -> None:
    out = tmp_path / "real"
    assert export(db, out) == (2, 2)
    lines = (out / "labels.jsonl").read_text().splitlines()
    assert len(lines) == 2
    label, unread = (json.loads(line) for line in lines)
    assert unread["read"] == [[], [], [], []] and unread["hand"] == 3 and unread["bottom"] == 0
    assert label["format"] == "mus-photo-label/1" and label["bottom"] == 1 and label["hand"] == 1
    assert label["hands"] == DEAL and label["read"] == MISREAD
    assert (out / label["image"]).read_bytes() == next(labelled_photos(db)).data
    assert export(db, out) == (2, 0)  # a second run keeps what is there
    assert not list(out.rglob("*.part"))


def test_photos_come_oldest_first_each_read_as_it_is_reached(tmp_path: Path) -> None:
    """The photos are put in order without their bytes (sorted with them, every photo was
    held in memory at once), in the same order as before: by the time the photo was taken,
    then table and hand; the bytes of each are those stored; one pruned meanwhile is left
    out."""
    store = TableStore(Database(tmp_path / "m.db"))
    taken: list[tuple[str, int, str]] = []  # (table, hand, photo)
    for t in range(2):
        tid = store.create({}).id
        for n in range(1, 4):
            _to_showdown(store, tid, f"t{t}h{n}-")
            first, _ = store.add_photo(tid, f"f{t}{n}", "image/jpeg", f"first {t} {n}".encode(), None, {"cards": []})
            more, _ = store.add_photo(tid, f"m{t}{n}", "image/jpeg", f"more {t} {n}".encode(), None, {"cards": []},
                                      with_id=first["photo_id"])
            store.showdown(tid, f"s{t}{n}", store.runtime(tid).version, DEAL, first["photo_id"])
            taken += [(tid, n, first["photo_id"]), (tid, n, more["photo_id"])]
    with store.db.write() as conn:  # taken in another order than stored: the later tables' first, two at one time
        for k, (_, _, pid) in enumerate(taken):
            conn.execute("UPDATE photos SET created = ? WHERE id = ?", (1000.0 - (k // 2) * 10 - (k % 2), pid))
        conn.execute("UPDATE photos SET created = 500 WHERE id IN (?, ?)", (taken[0][2], taken[7][2]))
    created = dict(store.db.reader().execute("SELECT id, created FROM photos").fetchall())
    expected = sorted(taken, key=lambda x: (created[x[2]], x[0], x[1]))
    got = list(labelled_photos(store.db))
    assert [(p.table_id, p.hand, p.photo_id) for p in got] == expected
    assert [p.data for p in got] == [store.photo(tid, pid)[1] for tid, _, pid in expected]
    assert [p.created for p in got] == [created[pid] for _, _, pid in expected]

    photos = labelled_photos(store.db)
    assert next(photos).photo_id == expected[0][2]
    with store.db.write() as conn:  # a prune while the export runs
        conn.execute("DELETE FROM photos WHERE id = ?", (expected[1][2],))
    assert [p.photo_id for p in photos] == [pid for _, _, pid in expected[2:]]
    store.db.close()


def test_a_second_export_keeps_the_labels_of_photos_pruned_since(db: Database, tmp_path: Path) -> None:
    out = tmp_path / "real"
    assert export(db, out) == (2, 2)
    before = (out / "labels.jsonl").read_text()
    with db.write() as conn:  # the photos are 40 days old
        conn.execute("UPDATE photos SET created = created - 40 * 86400")
    assert prune(db, photos_days=30).photos == 3
    assert list(labelled_photos(db)) == []
    assert export(db, out) == (2, 0)  # the photos written before are still labelled
    assert (out / "labels.jsonl").read_text() == before
    sorted((out / "photos").iterdir())[0].unlink()  # a photo thrown away: its label goes too
    assert export(db, out) == (1, 0)


def test_a_labels_file_that_is_not_utf8_is_named_and_nothing_is_written(db: Database, tmp_path: Path) -> None:
    out = tmp_path / "real"
    out.mkdir()
    theirs = "image,cards\n".encode("utf-16")  # a spreadsheet's export, say
    (out / "labels.jsonl").write_bytes(theirs)
    with pytest.raises(ExportError, match=r"labels.jsonl is not UTF-8 text at byte 0"):
        export(db, out)
    assert (out / "labels.jsonl").read_bytes() == theirs and sorted(out.iterdir()) == [out / "labels.jsonl"]


def test_export_command(db: Database, tmp_path: Path) -> None:
    db.close()
    db_path = tmp_path / "m.db"
    run = [sys.executable, "-m", "scorer.cli", "export-photos"]
    done = subprocess.run([*run, str(tmp_path / "x"), "--db", str(db_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "2 labelled photo(s), 2 written now" in done.stdout
    missing = subprocess.run([*run, str(tmp_path / "y"), "--db", str(tmp_path / "nope.db")],
                             capture_output=True, text=True)
    assert missing.returncode == 1 and "no database at" in missing.stderr


def test_the_bottom_seat_of_a_scan_kept_before_it_was_stored() -> None:
    assert scan_bottom({"bottom": 2, "cards": []}) == 2
    lowest = {"cards": [{"seat": 3, "box": [0, 0, 10, 10]}, {"seat": 1, "box": [0, 800, 10, 900]},
                        {"seat": None, "box": [0, 950, 10, 990]}]}
    assert scan_bottom(lowest) == 1  # the seat of the lowest seated card
    assert scan_bottom({"cards": []}) == 0


def test_evaluate_photos_scores_a_reader_against_the_labels(db: Database, tmp_path: Path) -> None:
    export(db, tmp_path / "real")
    labels = load_labels(tmp_path / "real")[:1]
    # a reader that reads the photo with 4b taken for 12c, and says it is unsure of it
    reader = FakeRecognizer(MISREAD, low_conf={"12c"})
    r = evaluate_photos(reader, labels)
    assert reader.calls == 1
    assert (r["photos"], r["full"], r["seated"], r["named"]) == (1, 0, 15, 15)
    assert (r["wrong"], r["wrong_flagged"], r["right_flagged"]) == (1, 1, 0)
    assert r["per_card"]["4b"] == {"tp": 0, "fp": 0, "fn": 1} and r["per_card"]["12c"]["fp"] == 1
    assert r["precision"] == r["recall"] == pytest.approx(15 / 16, abs=1e-5)
    assert r["at_the_table"] == {"photos": 1, "full": 0, "seated": 15, "named": 15, "wrong": 1,
                                 "wrong_flagged": 0, "right_flagged": 0}
    md = to_markdown(r)
    assert "| showdowns read fully right (16 cards, right seats) | 0 of 1 (0.0%) |" in md
    assert "| cards in the right seat | 15 of 16 (93.8%) |" in md
    assert r["unfamiliar"] == 0 and "(`unfamiliar_deck`: teach it on the deck page) | 0 of 1 (0.0%) |" in md
    right = evaluate_photos(FakeRecognizer(DEAL), labels)
    assert (right["full"], right["seated"], right["wrong"]) == (1, 16, 0)
    # a reader unsure of five cards says the deck looks unfamiliar, and the figures count it
    unsure = evaluate_photos(FakeRecognizer(DEAL, low_conf={"1o", "2o", "3o", "1c", "2c"}), labels)
    assert unsure["unfamiliar"] == 1 and "| 1 of 1 (100.0%) |" in to_markdown(unsure)


def test_a_seat_swap_reads_every_card_but_no_seat_right() -> None:
    swapped = [DEAL[1], DEAL[2], DEAL[3], DEAL[0]]
    s = score(DEAL, swapped)
    assert (s["named"], s["seated"], s["full"]) == (16, 0, 0)


@pytest.mark.parametrize(("line", "says"), [
    ("{not json", ":1: not JSON"),
    ('["a"]', ":1: expected an object, got list"),
    ('{"format": "mus-hand/1"}', ":1: format: expected 'mus-photo-label/1'"),
    ('{"format": "mus-photo-label/1", "image": "p.jpg", "hands": [["1o","2o","3o","4o"],["1c","2c","3c","4c"],'
     '["1e","2e","3e","4e"],["1b","2b","3b","1o"]]}', "hands[3][3]"),
    ('{"format": "mus-photo-label/1", "image": "p.jpg", "hands": [["1o","2o","3o","8o"],["1c","2c","3c","4c"],'
     '["1e","2e","3e","4e"],["1b","2b","3b","4b"]]}', "not a card of the Mus deck"),
    ('{"format": "mus-photo-label/1", "image": "p.jpg", "bottom": 4, "hands": [["1o","2o","3o","4o"],'
     '["1c","2c","3c","4c"],["1e","2e","3e","4e"],["1b","2b","3b","4b"]]}', "bottom: expected the seat 0..3"),
    ('{"format": "mus-photo-label/1", "image": "gone.jpg", "hands": [["1o","2o","3o","4o"],["1c","2c","3c","4c"],'
     '["1e","2e","3e","4e"],["1b","2b","3b","4b"]]}', "image: 'gone.jpg' is not a file"),
])
def test_bad_label_lines_are_named(tmp_path: Path, line: str, says: str) -> None:
    (tmp_path / "p.jpg").write_bytes(b"x")
    (tmp_path / "labels.jsonl").write_text(line + "\n")
    with pytest.raises(LabelError) as exc:
        load_labels(tmp_path)
    assert says in str(exc.value)
    assert "labels.jsonl:1" in str(exc.value) or says.startswith(":1")


def test_no_labels_file_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(LabelError, match="mus-scorer export-photos"):
        load_labels(tmp_path)


def test_a_photo_its_hand_no_longer_cites_is_not_exported_with_that_hands_cards(db: Database) -> None:
    """Listed for the export, then the showdown undone and settled again with another photo
    and other cards before the export read it: the first photo is left out, never written
    with the new cards (labels meant for training)."""
    store = TableStore(db)
    tid = store.create({}).id
    _to_showdown(store, tid, "a")
    first, _ = store.add_photo(tid, "p1", "image/jpeg", b"photo P", None, {"cards": []})
    store.showdown(tid, "s1", store.runtime(tid).version, DEAL, first["photo_id"])
    other_deal = [DECK[4:8], DECK[14:18], DECK[24:28], DECK[34:38]]
    real_reader = db.reader
    later: list[str] = []

    class Listing:  # the export's listing, then the table changes before each photo is read
        def __init__(self, conn) -> None:
            self.conn = conn

        def execute(self, sql, *args):
            cur = self.conn.execute(sql, *args)
            if "ORDER BY" not in sql:
                return cur
            rows = cur.fetchall()
            store.undo(tid, "u1", store.runtime(tid).version)
            again, _ = store.add_photo(tid, "p2", "image/jpeg", b"photo Q", None, {"cards": []})
            store.showdown(tid, "s2", store.runtime(tid).version, other_deal, again["photo_id"])
            later.append(again["photo_id"])
            return type("Rows", (), {"fetchall": lambda _self: rows})()

    db.reader = lambda: Listing(real_reader())
    try:
        exported = list(labelled_photos(db))
    finally:
        db.reader = real_reader
    assert all(p.photo_id != first["photo_id"] for p in exported if p.table_id == tid), [(p.photo_id, p.hands[0]) for p in exported]
    assert [(p.photo_id, p.hands) for p in labelled_photos(db) if p.table_id == tid] == [(later[0], other_deal)]

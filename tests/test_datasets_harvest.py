"""`datasets.harvest`: training crops cut from photos labelled at the table, each card
labelled only where the settled hands make its name certain."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from datasets.evaluate_photos import load_labels
from datasets.harvest import harvest, harvest_photo, label_cards

H = [["1o", "2o", "3o", "4o"], ["1c", "2c", "3c", "4c"], ["1e", "2e", "3e", "4e"], ["1b", "2b", "3b", "4b"]]


def _cards(names_by_seat: list[list[str]]) -> list[dict]:
    return [{"card": n, "seat": s} for s, names in enumerate(names_by_seat) for n in names]


def test_right_reads_are_labelled_as_read() -> None:
    got = label_cards(_cards(H), H)
    assert [(n, how) for _, n, how in got] == [(n, "read") for hand in H for n in hand]


def test_one_wrong_read_in_a_seat_is_the_card_it_lacks() -> None:
    read = [list(h) for h in H]
    read[2][1] = "12e"  # 2e read as 12e: the players settled 2e
    got = {i: (n, how) for i, n, how in label_cards(_cards(read), H)}
    assert got[9] == ("2e", "elimination") and len(got) == 16


def test_no_guess_where_two_are_wrong_a_name_is_read_twice_or_a_card_is_missing() -> None:
    read = [list(h) for h in H]
    read[1][0], read[1][1] = "5c", "6c"  # two wrong in seat 1: which is which?
    read[3][0] = "2o"  # 1b read as 2o, which seat 0 also holds: both reads of 2o are doubtful
    names = {n for _, n, _ in label_cards(_cards(read), H)}
    assert not names & {"1c", "2c", "5c", "6c", "2o", "1b"}
    short = [list(h) for h in H]
    short[2] = short[2][:2] + ["7e"]  # three read in seat 2, one of them wrong
    assert "7e" not in {n for _, n, _ in label_cards(_cards(short), H)}
    assert all(how == "read" for _, _, how in label_cards(_cards(short), H))


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> tuple[Path, list]:
    """Two rendered showdowns saved as JPEG, labelled with their dealt hands."""
    from datasets.render import render_scene

    folder = tmp_path_factory.mktemp("real")
    (folder / "photos").mkdir()
    scenes, lines = [], []
    for i in range(2):
        scene = render_scene(np.random.default_rng([8100, i]), kind="table", size=(1600, 1200),
                             decks=("fournier-1878", "naipes-libres"), bottom=i, card_extras=False)
        scene.image.save(folder / "photos" / f"p{i}.jpg", quality=92)
        scenes.append(scene)
        lines.append(json.dumps({"format": "mus-photo-label/1", "image": f"photos/p{i}.jpg", "bottom": i,
                                 "hands": scene.hands}))
    (folder / "labels.jsonl").write_text("\n".join(lines) + "\n")
    return folder, scenes


def _iou(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def test_harvested_labels_are_the_cards_under_the_boxes(photos) -> None:
    from scorer.vision import Recognizer

    folder, scenes = photos
    rec = Recognizer()
    labels = load_labels(folder)
    total = 0
    for label, scene in zip(labels, scenes, strict=True):
        found, trace = harvest_photo(rec, Image.open(label["path"]).convert("RGB"), label["hands"], label["bottom"])
        truth = [c for c in scene.cards if c["seat"] is not None]
        for card in found:
            best = max(truth, key=lambda t: _iou(card.box, t["box"]))
            assert best["card"] == card.name, (card, best["card"])
            assert card.corners, card  # a labelled card has an index corner to cut
        total += len(found)
        assert trace["image"].size[0] <= trace["full"][0]
    assert total >= 28  # most of the 32 cards


def test_harvest_writes_the_training_layouts(photos, tmp_path) -> None:
    from scorer.vision import Recognizer

    folder, _ = photos
    counts = harvest(Recognizer(), load_labels(folder), tmp_path, val=0.5)
    assert counts["photos"] == 2 and counts["cards_read"] >= 28
    cls = sorted(tmp_path.glob("cls/*/*/*.png"))
    index = sorted(tmp_path.glob("index/*/*/*.png"))
    assert len(cls) == len(index) == counts.get("crops_train", 0) + counts.get("crops_val", 0) > 0
    assert {p.parent.name for p in cls} <= {f"{r}{s}" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12) for s in "oceb"}
    assert {p.parent.name for p in index} <= {"1", "2", "3", "4", "5", "6", "7", "10", "11", "12"}
    assert Image.open(cls[0]).size == (64, 64) and Image.open(index[0]).size == (32, 32)
    # a photo's crops all go to one split
    for stem in ("p0", "p1"):
        assert len({p.parts[-3] for p in cls if p.name.startswith(f"{stem}-")}) == 1


def test_a_file_that_is_no_photo_is_said_and_the_others_still_count(photos, tmp_path, capsys) -> None:
    import shutil

    from datasets.evaluate_photos import evaluate_photos, to_markdown
    from scorer.vision import Recognizer

    folder, _ = photos
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    (copy / "photos" / "broken.jpg").write_bytes(b"\xff\xd8 not a jpeg")
    line = json.dumps({"format": "mus-photo-label/1", "image": "photos/broken.jpg", "bottom": 0, "hands": H})
    with (copy / "labels.jsonl").open("a") as f:
        f.write(line + "\n")
    labels = load_labels(copy)
    rec = Recognizer()
    counts = harvest(rec, labels, tmp_path / "out", val=0.0)
    assert counts["photos"] == 2 and counts["photos_unreadable"] == 1 and counts["cards_read"] >= 28
    assert "photos/broken.jpg" in capsys.readouterr().err
    r = evaluate_photos(rec, labels)
    assert r["photos"] == 2 and r["unreadable"] == 1 and r["seated"] >= 28
    assert "photos/broken.jpg" in capsys.readouterr().err
    assert "not readable as images | 1 |" in to_markdown(r)

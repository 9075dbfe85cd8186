"""`datasets.adapt`: the readers fine-tuned on a club's labelled photos. The layout of the
training sets runs everywhere; the whole recipe, on two photos and a few seconds of
training, needs the train extra."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from datasets.adapt import best_temperature, fit_temperature, main, split_photos, training_set, verdict


def _crop(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), (200, 10, 10)).save(path)


def test_photos_split_the_same_way_every_time_and_never_leave_nothing_to_adapt_on() -> None:
    labels = [{"image": f"photos/p{i}.jpg"} for i in range(40)]
    a1, c1 = split_photos(labels, 0.25)
    a2, c2 = split_photos(list(reversed(labels)), 0.25)
    assert {x["image"] for x in c1} == {x["image"] for x in c2}
    assert 4 <= len(c1) <= 16 and len(a1) + len(c1) == 40
    assert split_photos(labels, 0.0) == (labels, [])
    one = [{"image": "only.jpg"}]
    assert split_photos(one, 0.99) == (one, [])  # a single photo adapts rather than only checks


def test_training_set_repeats_harvested_crops_keeps_every_class_and_groups_court_suits(tmp_path) -> None:
    h, r = tmp_path / "harvested", tmp_path / "replay"
    _crop(h / "index" / "train" / "11" / "a.png")
    _crop(h / "index" / "train" / "3" / "b.png")
    _crop(h / "index" / "val" / "11" / "c.png")
    _crop(h / "index" / "train" / "zz" / "not-a-rank.png")
    _crop(r / "index" / "train" / "5" / "s.png")
    names = ["1", "10", "11", "12", "2", "3", "4", "5", "6", "7", "8", "9"]
    counts = training_set("index", names, h, r, tmp_path / "idx", repeat=3)
    assert counts == {"harvested": 6, "deck": 0, "check": 1, "replay": 1}
    assert sorted(p.name for p in (tmp_path / "idx" / "train").iterdir()) == sorted(names)
    assert len(list((tmp_path / "idx" / "train" / "11").iterdir())) == 3
    assert [p.name for p in (tmp_path / "idx" / "val" / "11").iterdir()] == ["c0_11_c.png"]
    assert not list((tmp_path / "idx" / "train" / "8").iterdir())  # empty, but there

    _crop(h / "cls" / "train" / "11c" / "d.png")
    _crop(h / "cls" / "train" / "12c" / "e.png")
    _crop(h / "cls" / "train" / "5c" / "f.png")  # no court card: not for the suit reader
    _crop(h / "cls" / "train" / "10o" / "g.png")
    counts = training_set("suit", ["b", "c", "e", "o"], h, None, tmp_path / "suit", repeat=1)
    assert counts == {"harvested": 3, "deck": 0, "check": 3, "replay": 0}  # no held-out photo: val = train
    assert sorted(p.name for p in (tmp_path / "suit" / "train" / "c").iterdir()) == ["h0_11c_d.png", "h0_12c_e.png"]
    assert [p.name for p in (tmp_path / "suit" / "train" / "o").iterdir()] == ["h0_10o_g.png"]


def test_training_set_takes_an_enrolled_decks_crops_and_checks_on_its_val_without_photos(tmp_path) -> None:
    d = tmp_path / "deck"
    _crop(d / "index" / "train" / "12" / "a.png")
    _crop(d / "index" / "train" / "12" / "b.png")
    _crop(d / "index" / "val" / "4" / "c.png")
    names = ["1", "10", "11", "12", "2", "3", "4", "5", "6", "7", "8", "9"]
    counts = training_set("index", names, tmp_path / "no-harvest", None, tmp_path / "idx", repeat=4, deck=d)
    assert counts == {"harvested": 0, "deck": 2, "check": 1, "replay": 0}  # deck crops once each, not repeated
    assert sorted(p.name for p in (tmp_path / "idx" / "train" / "12").iterdir()) == ["d0_12_a.png", "d0_12_b.png"]
    assert [p.name for p in (tmp_path / "idx" / "val" / "4").iterdir()] == ["c0_4_c.png"]


def test_a_tuned_reader_surer_than_it_is_right_is_calibrated_on_its_val_crops(tmp_path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from vision_helpers import RANKS, _fake_classifier

    from scorer.vision.model import sharpen

    model = tmp_path / "cards-index.onnx"
    _fake_classifier(model, RANKS, "7", 0.99, 32)  # always 7, at 0.99
    for i in range(10):  # but only 7 crops in 10 are 7s
        _crop(tmp_path / "val" / ("7" if i < 7 else "12") / f"c{i}.png")
    t = fit_temperature(model, tmp_path / "val", RANKS, 32)
    assert t > 1
    p = np.full((1, 12), 0.01 / 11, np.float32)
    p[0, RANKS.index("7")] = 0.99
    assert sharpen(p, t)[0, RANKS.index("7")] == pytest.approx(0.7, abs=0.03)  # as sure as it is right
    assert fit_temperature(model, tmp_path / "none", RANKS, 32) == 1.0  # no crops: left as it is
    z = np.log(np.array([[0.9, 0.1]] * 10))
    assert best_temperature(z, np.zeros(10, np.int64)) < 0.1  # always right: sharpened to the grid's end
    assert best_temperature(z, np.array([0] * 9 + [1])) == pytest.approx(1.0, abs=0.05)  # right 9 in 10 at 0.9


def test_verdict_weighs_full_showdowns_before_cards() -> None:
    assert verdict({"full": 3, "seated": 60}, {"full": 4, "seated": 50}) == "better"
    assert verdict({"full": 3, "seated": 60}, {"full": 3, "seated": 59}) == "worse"
    assert verdict({"full": 3, "seated": 60}, {"full": 3, "seated": 60}) == "same"


def test_bad_arguments_and_labels_are_refused_by_name(tmp_path, capsys) -> None:
    assert main([str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "labels.jsonl: no such file" in capsys.readouterr().err
    (tmp_path / "labels.jsonl").write_text('{"format": "mus-photo-label/9"}\n')
    assert main([str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "format: expected 'mus-photo-label/1'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--out", str(tmp_path / "o"), "--readers", "det"])
    assert "--readers" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--out", str(tmp_path / "m"), "--models", str(tmp_path / "m")])
    assert "--out must be a new folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "o")])
    assert "give a folder of labelled photos (DIR), an enrolled deck (--deck), or both" in capsys.readouterr().err
    assert main(["--deck", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "not a deck enrolled with datasets.enroll (no deck.json)" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.train
def test_adapt_tunes_the_rank_reader_on_two_photos_and_measures_a_held_out_one(tmp_path) -> None:
    pytest.importorskip("ultralytics")
    from datasets.render import render_scene

    (tmp_path / "photos").mkdir()
    lines = []
    for i in range(3):
        scene = render_scene(np.random.default_rng([8300, i]), kind="table", size=(1600, 1200),
                             decks=("fournier-1878",), bottom=i, card_extras=False)
        scene.image.save(tmp_path / "photos" / f"p{i}.jpg", quality=92)
        lines.append(json.dumps({"format": "mus-photo-label/1", "image": f"photos/p{i}.jpg", "bottom": i,
                                 "hands": scene.hands}))
    (tmp_path / "labels.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "club"
    assert main([str(tmp_path), "--out", str(out), "--time", "0.001", "--replay-scenes", "2",
                 "--readers", "index", "--check", "0.34"]) == 0
    report = json.loads((out / "ADAPTED.json").read_text())
    assert report["photos"]["adapt"] + report["photos"]["check"] == 3 and report["photos"]["adapt"] >= 1
    assert report["readers"]["index"]["harvested"] > 0 and report["readers"]["index"]["replay"] > 0
    shipped = Path(__file__).resolve().parents[1] / "models"
    meta = json.loads((out / "cards-index.json").read_text())
    t = meta.pop("temperature")  # fitted anew on the val crops, the rest kept
    assert 0.05 <= t <= 20 and report["readers"]["index"]["temperature"] == t
    assert meta == json.loads((shipped / "cards-index.json").read_text())
    assert (out / "cards-index.onnx").read_bytes() != (shipped / "cards-index.onnx").read_bytes()
    assert (out / "cards-cls.onnx").read_bytes() == (shipped / "cards-cls.onnx").read_bytes()
    if report["photos"]["check"]:
        assert report["verdict"] in ("better", "same", "worse")
        assert report["check"]["after"]["photos"] == report["photos"]["check"]
    from scorer.vision import Recognizer

    assert Recognizer(out).scan(tmp_path / "photos" / "p0.jpg")["cards"]  # the adapted models read


def test_serve_says_when_its_models_were_adapted(tmp_path) -> None:
    from scorer.commands.serve import adapted_note

    assert adapted_note(tmp_path) == ""
    (tmp_path / "ADAPTED.json").write_text(json.dumps({"photos": {"adapt": 65, "check": 15}, "verdict": "better"}))
    assert adapted_note(tmp_path) == " (adapted to a club's deck on 65 photos; held-out photos read better)"
    (tmp_path / "ADAPTED.json").write_text(json.dumps({"photos": {"adapt": 9, "check": 0}}))
    assert "not measured" in adapted_note(tmp_path)
    (tmp_path / "ADAPTED.json").write_text(json.dumps({"photos": {"adapt": 0, "check": 0}, "verdict": "better",
                                                       "deck": {"folder": "decks/club", "scenes": 400}}))
    assert adapted_note(tmp_path) == (" (adapted to a club's deck on the faces of its cards (club); "
                                      "synthetic showdowns of the deck read better)")
    (tmp_path / "ADAPTED.json").write_text("{not json")
    assert adapted_note(tmp_path) == " (its ADAPTED.json cannot be read)"

"""The evaluation command: its showdowns, its scoring and the model card it writes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tqdm")

from datasets import evaluate as E  # noqa: E402
from datasets.render import DECKS  # noqa: E402


def test_readable_showdowns_show_an_index_of_every_card_and_are_deterministic() -> None:
    for i in range(6):
        scene, tries = E.readable_showdown(41, i, DECKS, (800, 600), bottom=i % 4)
        seated = [c for c in scene.cards if c["seat"] is not None]
        assert len(seated) == 16
        assert all(any(k["labelled"] for k in c["corners"]) for c in seated)
        assert scene.bottom == i % 4
        again, tries2 = E.readable_showdown(41, i, DECKS, (800, 600), bottom=i % 4)
        assert tries2 == tries and again.hands == scene.hands
        assert again.image.tobytes() == scene.image.tobytes()


def test_showdowns_with_extras_lay_8s_and_9s_beside_the_16_dealt_cards() -> None:
    from datasets.render import NON_MUS_CARDS

    eights = 0
    for i in range(8):
        scene, _ = E.readable_showdown(41, i, ("naipes-libres",), (800, 600), bottom=0, extras=True)
        seated = [c for c in scene.cards if c["seat"] is not None]
        assert len(seated) == 16 and not any(c["card"] in NON_MUS_CARDS for c in seated)
        eights += sum(c["seat"] is None and c["card"] in NON_MUS_CARDS for c in scene.cards)
        plain, _ = E.readable_showdown(41, i, ("naipes-libres",), (800, 600), bottom=0)
        assert not any(c["card"] in NON_MUS_CARDS for c in plain.cards)
    assert eights > 0


def test_evaluate_with_extras_reads_the_8s_and_9s_as_no_mus_card() -> None:
    r = E.evaluate(E.ROOT / "models", 5, 41, ("naipes-libres",), (1200, 900), truth_classifier=False,
                   progress=False, extras=True)
    e = r["extras"]
    assert e["shown"] == 3  # showdowns 2 (an 8 of oros) and 4 (the 8s of oros and copas) of seed 41
    assert e["named"] + e["read_as_mus_cards"] <= e["shown"]
    # the 8 of oros of showdown 4 lies in the open and is read as itself; the others show
    # a corner at most, under other cards, and none of them is taken for a Mus card
    assert e["named"] >= 1 and e["read_as_mus_cards"] == 0
    assert "8s and 9s of the drawn deck lay among the distractors: 3 in all" in E.to_markdown("(a)", r)
    assert E.evaluate(E.ROOT / "models", 1, 41, ("naipes-libres",), (800, 600), truth_classifier=False,
                      progress=False)["extras"] is None


def test_inside_a_quad_either_winding() -> None:
    import numpy as np

    quad = np.array([[0, 0], [10, 0], [12, 8], [1, 9]], float)
    for q in (quad, quad[::-1]):
        assert E._inside((5, 4), q) and E._inside((0, 0), q)
        assert not E._inside((11, 1), q) and not E._inside((-1, 4), q) and not E._inside((5, 10), q)


def test_evaluate_scores_the_shipped_models_and_writes_the_card(tmp_path) -> None:
    r = E.evaluate(E.ROOT / "models", 3, 7001, DECKS, (1200, 900))
    assert r["photos"] == 3 and 0 <= r["redrawn"] <= 3
    for key in ("showdowns_fully_right", "cards_read_right", "cards_right_in_seat", "macro_f1"):
        assert 0.0 <= r[key] <= 1.0
    assert r["cards_right_in_seat"] <= r["cards_read_right"]
    assert r["micro"]["f1"] > 0.5  # the shipped models read most cards of the training decks
    stats = r["per_card"]
    assert sum(s["tp"] + s["fn"] for s in stats.values()) == 16 * 3  # every dealt card counted once
    assert sum(sum(row.values()) for row in r["rank_confusion"].values()) == 16 * 3
    fl = r["flagged"]
    # every read card is right (in its seat) or wrong, and at most 16 per showdown are right
    assert fl["right_reads"] == round(r["cards_right_in_seat"] * 16 * 3)
    assert 0 <= fl["wrong_flagged"] <= fl["wrong_reads"] and 0 <= fl["right_flagged"] <= fl["right_reads"]
    assert 0.0 <= r["showdowns_wrong_without_warning"] <= 1.0 - r["showdowns_fully_right"]
    assert r["showdowns_unfamiliar_deck"] in (0.0, 1 / 3, 2 / 3, 1.0)
    c = r["classifier_on_true_corners"]
    assert c["corners"] >= 16 * 3  # at least one labelled index corner per dealt card
    assert c["top1"] <= min(c["rank"], c["suit"]) <= 1.0  # a right name has a right rank and suit
    assert c["top1"] > 0.5
    w = c["with_reader"]  # the shipped models include a rank reader
    assert 0.5 < c["reader_rank"] <= 1.0 and w["corners"] == c["corners"]
    assert w["top1"] <= min(w["rank"], w["suit"]) <= 1.0
    card = tmp_path / "CARD.md"
    card.write_text(f"# Card\n\nbefore\n\n{E.BEGIN}\nold figures\n{E.END}\n\nafter\n")
    E.write_card(card, [E.to_markdown("(a) test", r)])
    text = card.read_text()
    assert "old figures" not in text and "before" in text and "after" in text
    assert "(a) test" in text and f"{r['micro']['f1']:.3f}" in text
    assert f"{c['top1']:.1%} ({c['rank']:.1%}, {c['suit']:.1%}; {c['corners']} corners)" in text
    assert f"| rank reader alone on the true corners' numerals: rank right | {c['reader_rank']:.1%} |" in text
    assert f"(`unfamiliar_deck`) | {r['showdowns_unfamiliar_deck']:.1%} |" in text


def test_ablation_reads_the_same_showdowns_with_each_step_off(capsys) -> None:
    from datasets import ablate
    from scorer.vision import layout, pipeline

    before = (pipeline.TTA_BELOW, layout.ORPHAN_CONF, pipeline.read_unread, pipeline.unique_names)
    assert ablate.main(["--n", "1", "--seed", "5"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "%" in line]
    assert [r.split(" | ")[0][2:] for r in rows] == [title for title, _ in ablate.STEPS]
    # every knob is back as it was
    assert (pipeline.TTA_BELOW, layout.ORPHAN_CONF, pipeline.read_unread, pipeline.unique_names) == before
    assert E.readable_showdown.__name__ == "readable_showdown"


def test_cross_models_without_a_detector_borrow_the_shipped_one_and_say_so(tmp_path, monkeypatch) -> None:
    shipped = E.ROOT / "models"
    cross = tmp_path / "cross"
    cross.mkdir()
    for name in ("cards-cls.onnx", "cards-cls.json", "cards-index.onnx", "cards-index.json"):
        (cross / name).symlink_to(shipped / name)
    # a folder with its own detector is read as it is
    whole = tmp_path / "whole"
    whole.mkdir()
    (whole / "cards-det.onnx").write_bytes(b"x")
    assert E.with_detector(whole, shipped, tmp_path / "unused") == (whole, None)
    assert not (tmp_path / "unused").exists()
    # one without borrows the detector, and nothing else (no court suit reader appears)
    folder, note = E.with_detector(cross, shipped, tmp_path / "lent")
    assert folder == tmp_path / "lent" and "detector" in note and str(shipped) in note
    assert sorted(f.name for f in folder.iterdir()) == sorted(
        ["cards-det.onnx", "cards-cls.onnx", "cards-cls.json", "cards-index.onnx", "cards-index.json"])
    assert (folder / "cards-det.onnx").resolve() == (shipped / "cards-det.onnx").resolve()
    assert not (cross / "cards-det.onnx").exists()  # the cross-deck folder is left as it was
    with pytest.raises(SystemExit, match="no cards-det.onnx"):
        E.with_detector(cross, tmp_path / "empty", tmp_path / "lent2")
    # the whole command: the card names the cross folder and whose detector read it
    card = tmp_path / "CARD.md"
    monkeypatch.setattr(E, "ROOT", tmp_path)  # its runs/eval/*.json go there, not into the checkout
    assert E.main(["--n", "1", "--models", str(shipped), "--cross-models", str(cross), "--size", "800x600",
                   "--card", str(card)]) == 0
    assert (tmp_path / "runs" / "eval" / "cross.json").is_file()
    text = card.read_text()
    assert f"models `{cross}`; the detector is `{shipped}`'s, which was trained on both decks" in text
    assert "(b) Cross-deck" in text and "(a) Same decks" in text


def test_the_kept_cross_deck_models_load_with_the_borrowed_detector(tmp_path) -> None:
    from scorer.vision.model import Models

    folder, note = E.with_detector(E.ROOT / "models" / "cross-deck", E.ROOT / "models", tmp_path / "m")
    assert note is not None  # no detector of its own: the card must say whose it is
    cross, shipped = Models(folder), Models(E.ROOT / "models")
    assert cross.names == shipped.names and cross.ranks == shipped.ranks
    assert cross.index_weight == shipped.index_weight == 0.5
    assert cross.suit is None  # read without a court suit reader, as the card says


@pytest.mark.parametrize("name, side, classes", [("cards-cls.onnx", 64, 49), ("cards-index.onnx", 32, 12)])
def test_the_kept_cross_deck_readers_are_two_models_read_as_one(name: str, side: int, classes: int) -> None:
    # models/cross-deck (thirty-seventh session): each reader is a yolo11s-cls and a
    # yolo11m-cls, their weights in half precision, joined by datasets.ensemble.mean_graph
    import onnx
    import onnxruntime as ort

    path = E.ROOT / "models" / "cross-deck" / name
    model = onnx.load(str(path))
    nodes = [n.name for n in model.graph.node]
    assert any(n.startswith("a/") for n in nodes) and any(n.startswith("b/") for n in nodes)
    assert [n.op_type for n in model.graph.node][-1] == "Softmax"
    halves = [i for i in model.graph.initializer if i.data_type == onnx.TensorProto.FLOAT16]
    assert len(halves) > 100  # stored halved, cast back to float when loaded
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(3).random((5, 3, side, side), dtype=np.float32)
    p = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    assert p.shape == (5, classes) and np.allclose(p.sum(axis=1), 1, atol=1e-4) and (p >= 0).all()


def test_a_retake_given_the_draw_count_is_the_same_photo_without_drawing_again(monkeypatch) -> None:
    calls: list[dict] = []
    real = E.render_scene

    def counted(*a, **k):
        calls.append(k)
        return real(*a, **k)

    for i in (0, 5):  # showdown 5 of seed 41 takes a second draw (a hidden index on the first)
        first, draws = E.readable_showdown(41, i, ("naipes-libres",), (800, 600), bottom=1)
        assert draws == (2 if i == 5 else 1)
        slow, _ = E.readable_showdown(41, i, ("naipes-libres",), (800, 600), bottom=1, retake=True)
        calls.clear()
        monkeypatch.setattr(E, "render_scene", counted)
        fast, again = E.readable_showdown(41, i, ("naipes-libres",), (800, 600), bottom=1, retake=True, draws=draws)
        monkeypatch.setattr(E, "render_scene", real)
        assert len(calls) == 1 and calls[0]["retake"] == 41 * 1000 + i  # one render: the retake itself
        assert again == draws and fast.hands == first.hands
        assert fast.image.tobytes() == slow.image.tobytes()


def test_a_second_photo_of_each_table_is_scored_alone_and_together() -> None:
    first, _ = E.readable_showdown(41, 0, ("naipes-libres",), (800, 600), bottom=1)
    again, _ = E.readable_showdown(41, 0, ("naipes-libres",), (800, 600), bottom=1, retake=True)
    assert again.hands == first.hands and again.bottom == 1  # the same table...
    assert again.image.tobytes() != first.image.tobytes()  # ...photographed again
    r = E.evaluate(E.ROOT / "models", 2, 41, ("naipes-libres",), (1200, 900), truth_classifier=False,
                   progress=False, retake=True)
    t = r["two_photos"]
    assert set(t) == {"second_alone", "together", "together_wrong_without_warning"}
    assert all(v in (0.0, 0.5, 1.0) for v in t.values())  # counts of two showdowns
    assert t["together"] + t["together_wrong_without_warning"] <= 1.0
    assert "a second photo of each table" in E.to_markdown("(a)", r)
    assert E.evaluate(E.ROOT / "models", 1, 41, ("naipes-libres",), (800, 600), truth_classifier=False,
                      progress=False)["two_photos"] is None


def test_hands_spread_as_the_showdown_page_asks_are_the_same_draws_laid_wider() -> None:
    as_drawn, _ = E.readable_showdown(7002, 3, ("fournier-1878",), (800, 600), bottom=1)
    same, _ = E.readable_showdown(7002, 3, ("fournier-1878",), (800, 600), bottom=1, min_spread=0.0)
    spread, _ = E.readable_showdown(7002, 3, ("fournier-1878",), (800, 600), bottom=1, min_spread=0.5)
    assert same.image.tobytes() == as_drawn.image.tobytes()  # 0: drawn as always
    assert spread.hands == as_drawn.hands and spread.image.tobytes() != as_drawn.image.tobytes()

    def least(scene) -> float:
        return min(c["visible"] for c in scene.cards if c["seat"] is not None)

    assert least(as_drawn) < 0.35 < 0.45 < least(spread)  # a card a third showing, then nearly half
    r = E.evaluate(E.ROOT / "models", 1, 41, ("naipes-libres",), (800, 600), truth_classifier=False,
                   progress=False, min_spread=0.5)
    assert r["min_spread"] == 0.5 and "Every hand spread at least 0.5" in E.to_markdown("(a)", r)


def test_no_card_writes_nothing_and_json_dir_says_where_the_figures_go(tmp_path, monkeypatch, capsys) -> None:
    shipped = E.ROOT / "models"
    monkeypatch.setattr(E, "ROOT", tmp_path / "checkout")  # the defaults: its runs/eval, its models/MODEL_CARD.md
    (tmp_path / "checkout").mkdir()
    argv = ["--n", "1", "--models", str(shipped), "--size", "800x600"]
    assert E.main([*argv, "--no-card"]) == 0
    assert "(a) Same decks" in capsys.readouterr().out
    assert list((tmp_path / "checkout").iterdir()) == []  # print only: no json, no card
    assert E.main([*argv, "--no-card", "--json-dir", str(tmp_path / "figures")]) == 0
    assert sorted(f.name for f in (tmp_path / "figures").iterdir()) == ["same.json"]
    assert list((tmp_path / "checkout").iterdir()) == []


def test_macro_f1_leaves_out_the_cards_neither_dealt_nor_read_and_says_so() -> None:
    r = E.evaluate(E.ROOT / "models", 1, 41, ("naipes-libres",), (800, 600), truth_classifier=False,
                   progress=False)
    touched = {c: s for c, s in r["per_card"].items() if s["tp"] + s["fp"] + s["fn"]}
    assert 16 <= len(touched) < 40 and r["macro_cards"] == len(touched)  # one showdown deals 16 of the 40
    assert r["macro_f1"] == pytest.approx(float(np.mean([s["f1"] for s in touched.values()])))
    assert r["macro_f1"] >= r["micro"]["f1"] - 0.2  # not dragged towards 0 by the 24 cards never dealt
    md = E.to_markdown("(a) one showdown", {**r, "redrawn": 1})
    left = 40 - len(touched)
    assert f"| per-card macro F1 ({len(touched)} cards dealt or read; {left} neither, left out) |" in md
    assert "1 first draw had a card" in md
    untouched = next(c for c in r["per_card"] if c not in touched)
    assert any(line.startswith(f"| {untouched} | – | – | – |") or f"| {untouched} | – | – | – |" in line
               for line in md.splitlines())
    assert "No first draw had" in E.to_markdown("(a)", {**r, "redrawn": 0})
    assert "3 first draws had" in E.to_markdown("(a)", {**r, "redrawn": 3})
    # a full run averages all 40, as the card's row has always said
    full = {**r, "per_card": {c: {**s, "tp": 1} for c, s in r["per_card"].items()}, "macro_cards": 40}
    assert "| per-card macro F1 (40 cards) |" in E.to_markdown("(a)", full)

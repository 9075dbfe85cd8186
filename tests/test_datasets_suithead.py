"""`datasets.suithead`: a suit head on the frozen features of the two-member cross-deck
classifier, and the court suit reader written from it. Needs the `onnx` package, not torch."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

pytest.importorskip("onnx")

from datasets.heads import train_head  # noqa: E402
from datasets.suithead import (  # noqa: E402
    SUITS,
    by_group,
    decks_of,
    feature_session,
    read,
    scores,
    suit_marginal,
    suit_reader,
)

pytestmark = pytest.mark.train

CROSS = Path(__file__).resolve().parents[1] / "models" / "cross-deck"


def test_the_suit_reader_computes_in_onnx_what_the_head_computes_on_the_features(tmp_path) -> None:
    crops = np.random.default_rng(3).integers(0, 256, (24, 64, 64, 3), dtype=np.uint8)
    x = crops.transpose(0, 3, 1, 2).astype(np.float32) / 255
    probs, a_pooled, b_pooled, a_map, b_map = ort_out = feature_session(CROSS / "cards-cls.onnx").run(None, {"images": x})
    assert [o.shape[1:] for o in ort_out] == [(49,), (1280,), (1280,), (256, 4, 4), (512, 2, 2)]
    np.testing.assert_allclose(probs.sum(1), 1, atol=1e-4)
    feats = np.concatenate([o.reshape(len(x), -1) for o in (a_pooled, b_pooled, a_map, b_map)], axis=1)
    head = train_head(feats, np.arange(24) % 4, len(SUITS), hidden=8, epochs=2, seed=0)
    suit_reader(CROSS / "cards-cls.onnx", head, "maps", tmp_path / "cards-suit.onnx")
    got = ort.InferenceSession(str(tmp_path / "cards-suit.onnx"), providers=["CPUExecutionProvider"]).run(
        None, {"images": x})[0]
    assert got.shape == (24, 4)
    np.testing.assert_allclose(got, head.predict(feats), atol=1e-4)


def test_the_suit_marginal_sums_each_suit_over_ranks_and_leaves_other_out() -> None:
    names = [str(n) for n in json.loads((CROSS / "cards-cls.json").read_text())["names"]]
    p = np.zeros((2, len(names)), np.float32)
    p[0, names.index("1o")], p[0, names.index("12o")], p[0, names.index("3c")] = 0.3, 0.3, 0.2
    p[0, names.index("other")] = 0.2
    p[1, names.index("8e")] = 1.0
    m = suit_marginal(p, names)
    np.testing.assert_allclose(m[0], [0, 0.25, 0, 0.75])
    assert SUITS[int(m[1].argmax())] == "e"


def test_suit_accuracy_is_split_by_rank_group() -> None:
    cards = np.array(["1o", "5c", "12e", "11b"])
    got = by_group(np.array([3, 0, 2, 0]), np.array([3, 1, 2, 0]), cards)
    assert got["all"] == 0.75 and got["aces"] == 1.0 and got["2-7"] == 0.0 and got["courts"] == 1.0
    assert (got["n_aces"], got["n_2-7"], got["n_courts"]) == (1, 1, 2)


def test_scores_count_top1_rank_and_suit_per_rank_group() -> None:
    got = scores(["1o", "5o", "12c", "10b"], ["1o", "5c", "12e", "11b"])
    assert got["all"] == {"top1": 0.25, "rank": 0.75, "suit": 0.5, "n": 4}
    assert got["aces"] == {"top1": 1.0, "rank": 1.0, "suit": 1.0, "n": 1}
    assert got["2-7"] == {"top1": 0.0, "rank": 1.0, "suit": 0.0, "n": 1}
    assert got["courts"] == {"top1": 0.0, "rank": 0.5, "suit": 0.5, "n": 2}


def test_read_names_each_crop_by_the_classifier_s_own_classes(tmp_path) -> None:
    """`read` gives what the classifier's argmax names, crop by crop, through its json."""
    from PIL import Image

    model = CROSS / "cards-cls.onnx"
    names = json.loads(model.with_suffix(".json").read_text())["names"]
    rng = np.random.default_rng(3)
    crops, cards = [], ["1o", "5c", "12e", "11b", "7b"]
    for i, card in enumerate(cards):
        (tmp_path / "val" / card).mkdir(parents=True)
        img = rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)
        Image.fromarray(img).save(tmp_path / "val" / card / f"{i}.png")
        crops.append(img)
    (tmp_path / "val" / "other").mkdir()  # not a Mus card: left out
    Image.fromarray(crops[0]).save(tmp_path / "val" / "other" / "x.png")
    sess = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    order = sorted(range(len(cards)), key=lambda i: f"val/{cards[i]}/{i}.png")
    x = np.stack([crops[i] for i in order]).transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    preds = [names[j] for j in sess.run(None, {sess.get_inputs()[0].name: x})[0].argmax(axis=1)]
    assert read(model, tmp_path) == scores(preds, [cards[i] for i in order])
    assert read(model, tmp_path)["all"]["n"] == 5


def test_each_crop_is_traced_to_the_deck_its_scene_was_drawn_from() -> None:
    from datasets.generate import _cls_draw

    decks = ["d0", "d1", "d2"]
    files = np.array([f"5_{i:06d}_{n:03d}.png" for i in range(6) for n in range(2)])
    assert list(decks_of(files, 5, decks)) == [_cls_draw(5, i, decks)[4] for i in range(6) for _ in range(2)]

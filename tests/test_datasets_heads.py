"""`datasets.heads`: new heads for the readers, trained in numpy on frozen features and
written into their ONNX graphs. Needs the `onnx` package (test extra), not torch."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

pytest.importorskip("onnx")

from datasets.heads import (  # noqa: E402
    READERS,
    Head,
    HeadError,
    attach,
    calibrate,
    features,
    main,
    merge,
    tap_session,
    train_head,
)

MODELS = Path(__file__).resolve().parents[1] / "models"


def _rings(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two classes no line separates: points inside and outside a circle, in 6 dimensions
    (4 of noise)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 6)).astype(np.float32)
    return x, (np.hypot(x[:, 0], x[:, 1]) > 1.18).astype(np.int64)


def test_a_head_learns_classes_no_linear_layer_separates_and_the_same_seed_gives_the_same_head() -> None:
    x, y = _rings(3000, 1)
    xt, yt = _rings(1000, 2)
    head = train_head(x, y, 2, hidden=64, epochs=40, seed=3)
    assert (head.predict(xt).argmax(1) == yt).mean() > 0.9
    linear = np.c_[xt[:, :2], np.ones(len(xt))]  # the best line, fitted on the test points themselves
    w = np.linalg.lstsq(linear, 2.0 * yt - 1, rcond=None)[0]
    assert ((linear @ w > 0) == yt).mean() < 0.75
    again = train_head(x, y, 2, hidden=64, epochs=40, seed=3)
    assert np.array_equal(head.w1, again.w1) and np.array_equal(head.b2, again.b2)
    assert repr(head) == "Head(features=6, hidden=64, classes=2)"
    with pytest.raises(HeadError, match="no crops"):
        train_head(x[:0], y[:0], 2)


def test_merged_heads_give_the_mean_of_their_logits_and_read_better_than_one() -> None:
    x, y = _rings(3000, 1)
    xt, yt = _rings(2000, 2)
    members = [train_head(x, y, 2, hidden=8, epochs=5, seed=s) for s in (3, 4, 5)]
    merged = merge(members)
    assert repr(merged) == "Head(features=6, hidden=24, classes=2)"
    np.testing.assert_allclose(merged.logits(xt), np.mean([h.logits(xt) for h in members], axis=0), atol=1e-4)
    assert merge(members[:1]).logits(xt) == pytest.approx(members[0].logits(xt), abs=1e-6)

    def loss(h: Head) -> float:
        return float(-np.log(h.predict(xt)[np.arange(len(yt)), yt]).mean())

    assert loss(merged) < np.mean([loss(h) for h in members])
    with pytest.raises(HeadError, match="no heads"):
        merge([])
    other = train_head(x * 2, y, 2, hidden=8, epochs=1, seed=3)
    with pytest.raises(HeadError, match="other features"):
        merge([members[0], other])


def test_calibration_sharpens_a_head_less_sure_than_right_and_softens_one_more_sure() -> None:
    x, y = _rings(3000, 1)
    head = train_head(x, y, 2, hidden=64, epochs=40, seed=3)
    xv, yv = _rings(1000, 2)

    def log_loss(h: Head) -> float:
        return float(-np.log(h.predict(xv)[np.arange(len(yv)), yv]).mean())

    flip = np.random.default_rng(6).random(len(yv)) < 0.1  # one label in ten wrong: no head is sure
    yv = np.where(flip, 1 - yv, yv)
    _, t0 = calibrate(head, xv, yv)
    assert 0.1 < t0 < 10
    for scale in (0.5, 2.0):  # logits halved (less sure still) or doubled
        off = Head(head.mean, head.scale, head.w1, head.b1, head.w2 * scale, head.b2 * scale)
        fixed, t = calibrate(off, xv, yv)
        assert t == pytest.approx(t0 * scale, rel=0.05) and log_loss(fixed) < log_loss(off)
        assert np.array_equal(fixed.predict(xv).argmax(1), off.predict(xv).argmax(1))
    same, t = calibrate(head, xv[:0], yv[:0])
    assert same is head and t == 1.0


def test_the_attached_head_computes_in_onnx_what_it_computes_in_numpy(tmp_path) -> None:
    model = MODELS / READERS["index"][0]
    taps = READERS["index"][2]
    crops = np.random.default_rng(4).integers(0, 256, (40, 32, 32, 3), dtype=np.uint8)
    feats = features(tap_session(model, taps), crops)
    assert feats.shape == (40, 1280 + 128 * 4 * 4 + 64 * 4 * 4)  # stride 8, and stride 4 averaged over 2x2
    head = train_head(feats, np.arange(40) % 12, 12, hidden=16, epochs=2, seed=0)
    attach(model, head, taps, tmp_path / "m.onnx")
    sess = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"images": crops.transpose(0, 3, 1, 2).astype(np.float32) / 255})[0]
    assert got.shape == (40, 12)
    np.testing.assert_allclose(got, head.predict(feats), atol=1e-4)
    np.testing.assert_allclose(got.sum(1), 1, atol=1e-5)


def test_a_head_that_does_not_fit_the_model_is_refused_by_name(tmp_path) -> None:
    model = MODELS / READERS["index"][0]
    z = np.zeros
    head = Head(z(3328, np.float32), np.ones(3328, np.float32), z((3328, 4), np.float32), z(4, np.float32),
                z((4, 5), np.float32), z(5, np.float32))
    with pytest.raises(HeadError, match="5 classes but cards-index.onnx outputs 12"):
        attach(model, head, READERS["index"][2], tmp_path / "m.onnx")
    with pytest.raises(HeadError, match="no tensor '/model.99/out'"):
        attach(model, head, (("/model.99/out", 1),), tmp_path / "m.onnx")
    with pytest.raises(HeadError, match="cannot be averaged over 0 x 0"):
        attach(model, head, (("/model.4/cv2/act/Mul_output_0", 0),), tmp_path / "m.onnx")
    assert not (tmp_path / "m.onnx").exists()


def test_a_folder_that_is_not_an_enrolled_deck_is_refused(tmp_path, capsys) -> None:
    assert main(["--deck", str(tmp_path), "--out", str(tmp_path / "club")]) == 2
    assert "not a deck enrolled with datasets.enroll" in capsys.readouterr().err
    assert not (tmp_path / "club").exists()


def test_heads_teach_the_readers_an_enrolled_deck_and_measure_it(tmp_path) -> None:
    from datasets.procedural import write_deck

    deck = write_deck(tmp_path / "deck", 5, 0)
    out = tmp_path / "club"
    assert main(["--deck", str(deck), "--out", str(out), "--scenes", "3", "--check", "1", "--epochs", "2",
                 "--hidden", "32", "--workers", "1"]) == 0
    report = json.loads((out / "ADAPTED.json").read_text())
    assert report["method"] == "heads" and report["deck"] == {"folder": str(deck), "scenes": 3}
    assert set(report["readers"]) == {"cls", "index", "suit"}
    assert report["readers"]["index"]["train"] > 20 and report["readers"]["cls"]["train"] > 20
    assert all(0.05 <= r["temperature"] <= 20 for r in report["readers"].values())
    assert report["check"]["after"]["photos"] == 1 and report["verdict"] in ("better", "same", "worse")
    for task, (file, meta, _) in READERS.items():
        assert (out / file).read_bytes() != (MODELS / file).read_bytes(), task
        assert json.loads((out / meta).read_text()) == json.loads((MODELS / meta).read_text())
    assert (out / "cards-det.onnx").read_bytes() == (MODELS / "cards-det.onnx").read_bytes()
    from scorer.commands.serve import adapted_note
    from scorer.vision.model import Models

    assert f"the faces of its cards ({deck.name})" in adapted_note(out)
    assert Models(out).classify(np.zeros((2, 3, 64, 64), np.float32)).shape == (2, 49)

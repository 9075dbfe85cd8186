"""Smoke test of the training pipeline: generate a few photos, train the four models (the
detector, the corner classifier, the rank reader, the court suit reader) for one epoch at
a tiny size, export ONNX and check the output shapes the runtime relies on."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

pytestmark = pytest.mark.train

pytest.importorskip("ultralytics")
ort = pytest.importorskip("onnxruntime")


def _train(task: str, data: str, tmp_path, imgsz: int, *extra: str) -> None:
    from datasets.train import main

    rc = main(
        [task, "--data", data, "--epochs", "1", "--imgsz", str(imgsz), "--batch", "8", "--workers", "0",
         "--project", str(tmp_path / "runs"), "--out", str(tmp_path / "models"), *extra]
    )
    assert rc == 0


def test_device_and_cache_reach_ultralytics():
    from datasets.train import _common

    args = argparse.Namespace(epochs=1, batch=8, device="0", workers=0, cache="ram", project="runs", name="x",
                              seed=0, time=0.0, optimizer="", warmup=None)
    kw = _common(args)
    assert kw["device"] == "0" and kw["cache"] == "ram"
    args.device, args.cache = "cpu", None
    kw = _common(args)
    assert kw["device"] == "cpu" and kw["cache"] is False


def test_generate_train_export(tmp_path, monkeypatch):
    from datasets.generate import RANKS, SUIT_NAMES
    from datasets.generate import main as generate
    from datasets.render import CLASSES
    from scorer.vision.model import COURT_RANKS

    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo-config"))
    out = tmp_path / "data"
    assert generate(["--out", str(out), "--seed", "3", "--n", "12", "--cls-scenes", "4",
                     "--val-frac", "0.5", "--workers", "1", "--crops", "both"]) == 0
    labels = list((out / "det" / "labels").rglob("*.txt"))
    assert len(labels) == 12
    rows = [line.split() for f in labels for line in f.read_text().splitlines()]
    assert rows and {r[0] for r in rows} <= {"0", "1"}
    assert all(0 <= float(v) <= 1 for r in rows for v in r[1:])

    _train("det", str(out / "det.yaml"), tmp_path, 64, "--cache", "ram", "--device", "cpu")
    _train("cls", str(out / "cls"), tmp_path, 64)
    numerals = list((out / "index").rglob("*.png"))
    corner_crops = [f for f in (out / "cls").rglob("*.png") if f.parent.name != "other"]
    assert len(numerals) == len(corner_crops) > 0  # a numeral crop beside each corner crop
    assert {f.parent.name for f in numerals} <= set(RANKS)
    _train("index", str(out / "index"), tmp_path, 32)
    # the shipped rank reader, rebuilt as a checkpoint, fine-tunes on new crops
    from datasets.train import ROOT
    from datasets.train import main as train_main

    assert train_main(["unfuse", "index", "--weights", str(ROOT / "models" / "cards-index.onnx"),
                       "--out", str(tmp_path / "unfused" / "index.pt")]) == 0
    _train("index", str(out / "index"), tmp_path, 32, "--init", str(tmp_path / "unfused" / "index.pt"),
           "--name", "tuned", "--out", str(tmp_path / "tuned"))
    assert (tmp_path / "tuned" / "cards-index.onnx").is_file()
    assert generate(["--out", str(tmp_path / "courts"), "--court-suits-of", str(out / "cls")]) == 0
    courts = list((tmp_path / "courts" / "suit").rglob("*.png"))
    want = [f for f in corner_crops if f.parent.name[:-1] in COURT_RANKS]
    card_of = {f.stat().st_ino: f.parent.name for f in want}  # hard links: the same inodes
    assert len(courts) == len(want) > 0 and sorted(card_of) == sorted(f.stat().st_ino for f in courts)
    assert all(card_of[f.stat().st_ino][-1] == f.parent.name for f in courts)  # each under its suit
    _train("suit", str(tmp_path / "courts" / "suit"), tmp_path, 32)

    det = ort.InferenceSession(str(tmp_path / "models" / "cards-det.onnx"), providers=["CPUExecutionProvider"])
    (y,) = det.run(None, {det.get_inputs()[0].name: np.zeros((1, 3, 64, 64), np.float32)})
    assert y.shape[:2] == (1, 6) and y.shape[2] > 0

    cls = ort.InferenceSession(str(tmp_path / "models" / "cards-cls.onnx"), providers=["CPUExecutionProvider"])
    (p,) = cls.run(None, {cls.get_inputs()[0].name: np.zeros((1, 3, 64, 64), np.float32)})
    names = json.loads((tmp_path / "models" / "cards-cls.json").read_text())["names"]
    assert p.shape == (1, len(CLASSES)) and sorted(names) == sorted(CLASSES)
    assert abs(float(p.sum()) - 1) < 1e-3

    index = ort.InferenceSession(str(tmp_path / "models" / "cards-index.onnx"), providers=["CPUExecutionProvider"])
    (r,) = index.run(None, {index.get_inputs()[0].name: np.zeros((2, 3, 32, 32), np.float32)})
    meta = json.loads((tmp_path / "models" / "cards-index.json").read_text())
    assert r.shape == (2, len(meta["names"])) and meta["imgsz"] == 32
    assert set(meta["names"]) <= set(RANKS) and len(meta["names"]) >= 2

    suit = ort.InferenceSession(str(tmp_path / "models" / "cards-suit.onnx"), providers=["CPUExecutionProvider"])
    (q,) = suit.run(None, {suit.get_inputs()[0].name: np.zeros((3, 3, 32, 32), np.float32)})
    meta = json.loads((tmp_path / "models" / "cards-suit.json").read_text())
    assert q.shape == (3, len(meta["names"])) and set(meta["names"]) <= set(SUIT_NAMES)


@pytest.mark.parametrize("task, size, folder", [("index", 32, "models"), ("det", 320, "models")])
def test_unfuse_rebuilds_the_shipped_models_exactly(tmp_path, task, size, folder):
    """The shipped models (the cross-deck readers are two models read as one: see
    test_datasets_evaluate)."""
    from datasets.train import FILES, ROOT, export, unfuse

    shipped = ROOT / folder / FILES[task][0]
    pt = unfuse(task, shipped, tmp_path / f"{task}.pt")
    exported = export(task, pt, tmp_path / "back")
    x = np.random.default_rng(5).random((1 if task == "det" else 6, 3, size, size), dtype=np.float32)
    a = ort.InferenceSession(str(shipped), providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(str(exported), providers=["CPUExecutionProvider"])
    want = a.run(None, {a.get_inputs()[0].name: x})[0]
    got = b.run(None, {b.get_inputs()[0].name: x})[0]
    assert got.shape == want.shape and np.abs(got - want).max() <= 1e-4 * max(1.0, np.abs(want).max())
    if task == "index":
        assert json.loads((tmp_path / "back" / "cards-index.json").read_text())["names"] == \
            json.loads((ROOT / folder / "cards-index.json").read_text())["names"]


def test_unfuse_refuses_an_unknown_task_and_a_model_of_another_shape(tmp_path):
    import shutil

    from datasets.train import ROOT, unfuse

    with pytest.raises(SystemExit, match="'seg': expected one of det, cls, index, suit"):
        unfuse("seg", ROOT / "models" / "cards-det.onnx", tmp_path / "seg.pt")
    # the rank reader's weights under the classifier's names: 12 outputs where 49 are named
    shutil.copy(ROOT / "models" / "cards-index.onnx", tmp_path / "cards-cls.onnx")
    shutil.copy(ROOT / "models" / "cards-cls.json", tmp_path / "cards-cls.json")
    with pytest.raises(SystemExit, match=r"model.10.linear.weight: \(12, 1280\)"):
        unfuse("cls", tmp_path / "cards-cls.onnx", tmp_path / "cls.pt")
    assert not (tmp_path / "cls.pt").exists()

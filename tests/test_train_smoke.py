"""Smoke test of the training pipeline: generate a few photos, train both models for one
epoch at a tiny size, export ONNX and check the output shapes the runtime relies on."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytestmark = pytest.mark.train

pytest.importorskip("ultralytics")
ort = pytest.importorskip("onnxruntime")


def _train(task: str, data: str, tmp_path, imgsz: int) -> None:
    from datasets.train import main

    rc = main(
        [task, "--data", data, "--epochs", "1", "--imgsz", str(imgsz), "--batch", "8", "--workers", "0",
         "--project", str(tmp_path / "runs"), "--out", str(tmp_path / "models")]
    )
    assert rc == 0


def test_generate_train_export(tmp_path, monkeypatch):
    from datasets.generate import main as generate
    from datasets.render import CLASSES

    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo-config"))
    out = tmp_path / "data"
    assert generate(["--out", str(out), "--seed", "3", "--n", "12", "--cls-scenes", "4",
                     "--val-frac", "0.5", "--workers", "1"]) == 0
    labels = list((out / "det" / "labels").rglob("*.txt"))
    assert len(labels) == 12
    rows = [line.split() for f in labels for line in f.read_text().splitlines()]
    assert rows and {r[0] for r in rows} <= {"0", "1"}
    assert all(0 <= float(v) <= 1 for r in rows for v in r[1:])

    _train("det", str(out / "det.yaml"), tmp_path, 64)
    _train("cls", str(out / "cls"), tmp_path, 64)

    det = ort.InferenceSession(str(tmp_path / "models" / "cards-det.onnx"), providers=["CPUExecutionProvider"])
    (y,) = det.run(None, {det.get_inputs()[0].name: np.zeros((1, 3, 64, 64), np.float32)})
    assert y.shape[:2] == (1, 6) and y.shape[2] > 0

    cls = ort.InferenceSession(str(tmp_path / "models" / "cards-cls.onnx"), providers=["CPUExecutionProvider"])
    (p,) = cls.run(None, {cls.get_inputs()[0].name: np.zeros((1, 3, 64, 64), np.float32)})
    names = json.loads((tmp_path / "models" / "cards-cls.json").read_text())["names"]
    assert p.shape == (1, len(CLASSES)) and sorted(names) == sorted(CLASSES)
    assert abs(float(p.sum()) - 1) < 1e-3

"""`datasets.fasttrain`: crops held in memory, augmented in batches, a YOLO11-cls model trained
to a time budget; its checkpoint exports to the runtime's ONNX and packs from half-precision
weights. Runs on the CPU on crops drawn here."""

from __future__ import annotations

import argparse

import numpy as np
import pytest
from PIL import Image, ImageDraw

pytestmark = pytest.mark.train

torch = pytest.importorskip("torch")
pytest.importorskip("ultralytics")
ort = pytest.importorskip("onnxruntime")

from datasets import fasttrain  # noqa: E402

CLASSES = ("bar", "dot", "ring")


def _crop(kind: str, rng: np.random.Generator, size: int = 32) -> Image.Image:
    """A shape on a plain ground of random colours, a little off the centre."""
    ground = tuple(int(v) for v in rng.integers(120, 255, 3))
    ink = tuple(int(v) for v in rng.integers(0, 90, 3))
    im = Image.new("RGB", (size, size), ground)
    d = ImageDraw.Draw(im)
    c, r = size / 2 + rng.uniform(-3, 3), size * rng.uniform(0.22, 0.32)
    if kind == "bar":
        d.rectangle((c - r / 3, c - r, c + r / 3, c + r), fill=ink)
    elif kind == "dot":
        d.ellipse((c - r, c - r, c + r, c + r), fill=ink)
    else:
        d.ellipse((c - r, c - r, c + r, c + r), outline=ink, width=3)
    return im


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    """A crop folder as `datasets.generate` writes one: train/<class>/*.png, val/<class>/*.png."""
    root = tmp_path_factory.mktemp("shapes")
    rng = np.random.default_rng(0)
    for split, n in (("train", 60), ("val", 15)):
        for kind in CLASSES:
            (root / split / kind).mkdir(parents=True)
            for i in range(n):
                _crop(kind, rng).save(root / split / kind / f"{i}.png")
    return root


def _args(**kw) -> argparse.Namespace:
    base = {"scale": 0.1, "degrees": 6.0, "translate": 0.08, "hue": 0.05, "saturation": 0.7, "grey": 0.1,
            "contrast": 0.4, "brightness": 0.4, "blur": 1.0, "noise": 0.04, "erasing": 0.2}
    return argparse.Namespace(**{**base, **kw})


def test_classes_and_crops_are_read_as_ultralytics_reads_them(shapes, tmp_path, capsys):
    assert fasttrain.class_names([shapes]) == list(CLASSES)
    x, y = fasttrain.load([shapes], "val", list(CLASSES), 32, workers=2)
    assert x.shape == (45, 32, 32, 3) and x.dtype == np.uint8
    assert np.bincount(y).tolist() == [15, 15, 15]
    # RGB, not OpenCV's BGR: the first file of "bar" as Pillow reads it
    first = np.asarray(Image.open(shapes / "val" / "bar" / "0.png").convert("RGB"))
    assert np.array_equal(x[0], first)
    # a file cut short by a stopped render is left out, and said so
    cut = tmp_path / "cut"
    for kind in CLASSES:
        (cut / "val" / kind).mkdir(parents=True)
        _crop(kind, np.random.default_rng(1)).save(cut / "val" / kind / "a.png")
    (cut / "val" / "dot" / "b.png").write_bytes((cut / "val" / "dot" / "a.png").read_bytes()[:40])
    x, y = fasttrain.load([cut], "val", list(CLASSES), 32, workers=1)
    assert len(x) == 3 and y.tolist() == [0, 1, 2]
    assert "1 unreadable crops left out of val" in capsys.readouterr().out


def test_augment_keeps_shape_and_range_and_is_the_identity_at_zero():
    rng = np.random.default_rng(2)
    xb = torch.from_numpy(np.stack([np.asarray(_crop(k, rng)) for k in CLASSES * 4]))
    g = torch.Generator().manual_seed(0)
    out = fasttrain.augment(xb, g, _args())
    assert out.shape == (12, 3, 32, 32) and out.dtype == torch.float32
    assert float(out.min()) >= 0 and float(out.max()) <= 1
    assert not torch.allclose(out, xb.permute(0, 3, 1, 2).float() / 255, atol=0.02)
    # the same generator state gives the same batch
    again = fasttrain.augment(xb, torch.Generator().manual_seed(0), _args())
    assert torch.equal(out, again)
    still = _args(scale=0.0, degrees=0.0, translate=0.0, hue=0.0, saturation=0.0, grey=0.0, contrast=0.0,
                  brightness=0.0, blur=0.0, noise=0.0, erasing=0.0)
    same = fasttrain.augment(xb, torch.Generator().manual_seed(0), still)
    assert torch.allclose(same, xb.permute(0, 3, 1, 2).float() / 255, atol=1e-4)


def test_trains_exports_and_packs(shapes, tmp_path):
    from datasets.train import export

    out = tmp_path / "runs" / "shapes.pt"
    rc = fasttrain.main(["index", "--data", str(shapes), "--device", "cpu", "--minutes", "5", "--epochs", "15",
                         "--batch", "30", "--workers", "2", "--warmup", "0.05", "--lr0", "0.003",
                         "--erasing", "0", "--noise", "0.01", "--out", str(out)])
    assert rc == 0 and out.exists() and out.with_suffix(".state.pt").exists()
    state = torch.load(out.with_suffix(".state.pt"), map_location="cpu", weights_only=False)
    assert state["names"] == list(CLASSES) and state["imgsz"] == 32 and state["arch"] == "n"
    assert [r["epoch"] for r in state["log"]][-1] == 15  # --epochs stops the run before --minutes
    assert state["log"][-1]["val_top1"] >= 0.7  # three shapes, learnt in seconds
    assert all(v.dtype == torch.float16 for v in state["state_dict"].values() if v.is_floating_point())

    onnx = export("index", out, tmp_path / "models")
    sess = ort.InferenceSession(str(onnx), providers=["CPUExecutionProvider"])
    x, y = fasttrain.load([shapes], "val", list(CLASSES), 32, workers=2)
    probs = sess.run(None, {sess.get_inputs()[0].name: x.transpose(0, 3, 1, 2).astype(np.float32) / 255})[0]
    assert probs.shape == (45, 3) and np.allclose(probs.sum(1), 1, atol=1e-4)
    assert (probs.argmax(1) == y).mean() >= 0.7

    # the half-precision weights pack into a checkpoint that reads as the full one does
    packed = fasttrain.pack(out.with_suffix(".state.pt"), tmp_path / "packed.pt")
    model = torch.load(packed, map_location="cpu", weights_only=False)["model"]
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    assert abs(fasttrain.accuracy(model, xt, yt) - (probs.argmax(1) == y).mean()) <= 1 / 45

    # and it is a start for another run, whose checkpoint keeps the model's size
    rc = fasttrain.main(["index", "--data", str(shapes), "--device", "cpu", "--epochs", "1", "--batch", "32",
                         "--workers", "1", "--init", str(out.with_suffix(".state.pt")), "--arch", "s",
                         "--out", str(tmp_path / "again.pt")])
    assert rc == 0
    assert torch.load(tmp_path / "again.state.pt", weights_only=False)["arch"] == "n"


def test_an_onnx_start_keeps_what_it_read(shapes, tmp_path):
    """A shipped reader rebuilt from its ONNX reads as the ONNX does before any step, and its
    batch norms keep their statistics in training (they are fused into the convolutions)."""
    from pathlib import Path

    from datasets.train import ROOT

    onnx = Path(ROOT / "models" / "cards-index.onnx")
    names = [str(r) for r in sorted(range(1, 13), key=str)]
    model = fasttrain.initial("index", str(onnx), names, 32, "n", tmp_path / "wi.pt")
    x = np.random.default_rng(3).random((6, 3, 32, 32), dtype=np.float32)
    sess = ort.InferenceSession(str(onnx), providers=["CPUExecutionProvider"])
    want = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    fasttrain.train_mode(model, frozen_norms=True)
    assert not any(m.training for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d))
    with torch.no_grad():
        got = model(torch.from_numpy(x)).softmax(1).numpy()
    assert np.allclose(got, want, atol=1e-3)


def test_runs_sharing_a_folder_start_from_files_of_their_own(tmp_path):
    """Two runs writing to one folder (gpu_round.sh's wc and wb, both classifiers) once
    rebuilt their ONNX starts into one init-cls.pt at once, and both died reading it."""
    from pathlib import Path

    from datasets.train import ROOT

    onnx = Path(ROOT / "models" / "cards-index.onnx")
    names = [str(r) for r in sorted(range(1, 13), key=str)]
    runs = tmp_path / "runs"
    runs.mkdir()
    for run in ("wi", "wj"):
        fasttrain.initial("index", str(onnx), names, 32, "n", runs / f"{run}.pt")
    assert sorted(p.name for p in runs.iterdir()) == ["init-wi.pt", "init-wj.pt"]
    assert fasttrain.init_path(runs / "wb.state.pt") == runs / "init-wb.pt"


def test_a_start_of_other_classes_and_a_folder_without_crops_are_refused(shapes, tmp_path):
    with pytest.raises(SystemExit, match="has no train/ folder"):
        fasttrain.main(["index", "--data", str(tmp_path), "--device", "cpu", "--out", str(tmp_path / "x.pt")])
    with pytest.raises(SystemExit, match="names"):
        fasttrain.main(["cls", "--data", str(shapes), "--device", "cpu", "--minutes", "0.01",
                        "--init", "models/cards-cls.onnx", "--out", str(tmp_path / "x.pt")])


def test_halve_stores_half_the_weights_and_reads_the_same(tmp_path):
    from datasets.train import ROOT

    src = ROOT / "models" / "cards-index.onnx"
    dest = fasttrain.halve(src, tmp_path / "cards-index.onnx")
    assert dest.stat().st_size < 0.6 * src.stat().st_size
    x = np.random.default_rng(4).random((8, 3, 32, 32), dtype=np.float32)
    a = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(str(dest), providers=["CPUExecutionProvider"])
    pa = a.run(None, {a.get_inputs()[0].name: x})[0]
    pb = b.run(None, {b.get_inputs()[0].name: x})[0]
    assert pa.shape == pb.shape and np.abs(pa - pb).max() < 2e-3
    assert (pa.argmax(1) == pb.argmax(1)).all()
    with pytest.raises(SystemExit, match="moves its outputs"):
        fasttrain.halve(src, tmp_path / "strict.onnx", tolerance=0.0)
    assert not (tmp_path / "strict.onnx").exists()

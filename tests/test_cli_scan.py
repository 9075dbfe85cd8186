"""`mus-scorer scan` through a subprocess, and the annotated image."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))
from vision_helpers import jpeg, write_fake_models  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def fake_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("onnx")
    boxes = [(0, 100, 60, 220, 260, 0.9), (1, 10, 10, 40, 50, 0.8)]
    return write_fake_models(tmp_path_factory.mktemp("models"), boxes, card="7c", conf=0.95)


def _scan(*args: str, model_dir: Path | None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if model_dir is not None:
        env["MUS_MODEL_DIR"] = str(model_dir)
    return subprocess.run([sys.executable, "-m", "scorer", "scan", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)


def test_scan_json_reads_good_images_and_reports_bad_ones(fake_dir: Path, tmp_path: Path) -> None:
    good = tmp_path / "table.jpg"
    good.write_bytes(jpeg(Image.new("RGB", (1600, 1200), (20, 120, 40))))
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo")
    gif = tmp_path / "anim.gif"
    Image.new("RGB", (8, 8)).save(gif)
    out_dir = tmp_path / "annotated"
    proc = _scan(str(good), str(bad), str(gif), str(tmp_path / "missing.jpg"), str(good), "--json",
                 "--bottom", "3", "--annotate", str(out_dir), model_dir=fake_dir)
    assert proc.returncode == 1, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["image"] for line in lines] == [str(good), str(bad), str(gif), str(tmp_path / "missing.jpg"),
                                                 str(good)]
    first = lines[0]
    assert set(first) >= {"image", "cards", "hands", "warnings"}
    assert first["cards"][0]["card"] == "7c" and len(first["cards"][0]["box"]) == 4
    assert lines[4]["cards"] == first["cards"]
    assert lines[1]["error"]["code"] == "not_image"
    assert lines[2]["error"]["code"] == "unsupported_format" and "GIF" in lines[2]["error"]["message"]
    assert lines[3]["error"]["message"]
    annotated = Image.open(out_dir / "table.annotated.jpg")
    assert annotated.size == (1600, 1200)


def test_scan_readable_summary(fake_dir: Path, tmp_path: Path) -> None:
    good = tmp_path / "t.png"
    Image.new("RGB", (800, 600), (20, 120, 40)).save(good)
    proc = _scan(str(good), model_dir=fake_dir)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{good}: 1 card") and "7c" in proc.stdout


def test_scan_together_reports_bad_photos_and_reads_the_rest_as_one(fake_dir: Path, tmp_path: Path) -> None:
    good = tmp_path / "a.png"
    Image.new("RGB", (800, 600), (20, 120, 40)).save(good)
    bad = tmp_path / "b.jpg"
    bad.write_text("not a photo")
    proc = _scan(str(good), str(bad), str(good), "--json", "--together", model_dir=fake_dir)
    assert proc.returncode == 1, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0] == {"image": str(bad), "error": lines[0]["error"]} and lines[0]["error"]["code"] == "not_image"
    assert lines[1]["images"] == [str(good), str(good)] and lines[1]["photos"] == 2
    assert [(c["card"], c["photo"]) for c in lines[1]["cards"]] == [("7c", 0)]  # read twice, reported once
    text = _scan(str(good), str(good), "--together", model_dir=fake_dir)
    assert text.returncode == 0 and text.stdout.startswith(f"{good} + {good}: 1 card"), text.stdout


def test_scan_into_a_closed_pipe_is_quiet(fake_dir: Path, tmp_path: Path) -> None:
    good = tmp_path / "t.png"
    Image.new("RGB", (800, 600), (20, 120, 40)).save(good)
    env = {**os.environ, "MUS_MODEL_DIR": str(fake_dir)}
    proc = subprocess.Popen([sys.executable, "-m", "scorer", "scan", str(good), str(good), "--json"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # as `| head -c 0` would
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


def test_scan_without_models_says_so(tmp_path: Path) -> None:
    img = tmp_path / "t.png"
    Image.new("RGB", (80, 60)).save(img)
    proc = _scan(str(img), "--model-dir", str(tmp_path / "nothing"), model_dir=None)
    assert proc.returncode == 2 and "not found" in proc.stderr


def test_annotate_draws_boxes_names_and_seats() -> None:
    from scorer.vision import annotate, load_image

    ramp = np.linspace(40, 160, 800, dtype=np.float32)[None, :, None]
    img = Image.fromarray(np.broadcast_to(ramp, (600, 800, 3)).astype(np.uint8))
    boxes = [(100 + 150 * k, 380, 230 + 150 * k, 580) for k in range(4)]
    result = {
        "cards": [{"card": n, "conf": 0.9, "box": list(b), "seat": 0} for n, b in zip(["1o", "2o", "3o", "4o"], boxes,
                                                                                       strict=True)],
        "hands": [["1o", "2o", "3o", "4o"], [], [], []],
        "warnings": [{"code": "low_confidence", "message": "?", "card": None, "conf": 0.0, "box": [10, 10, 90, 90]}],
    }
    data = annotate(img, result)
    out = Image.open(io.BytesIO(data))
    assert out.format == "JPEG" and out.size == img.size
    diff = np.abs(np.asarray(out.convert("RGB"), np.int16) - np.asarray(img, np.int16))
    assert diff[380:582, 100:232].max() > 100  # a box drawn
    assert diff[200:300, 600:700].mean() < 10  # the rest is the photo
    # bytes and paths are loaded too
    assert Image.open(io.BytesIO(annotate(jpeg(img), result))).size == img.size
    assert load_image(data).size == img.size


def test_annotate_can_shrink_a_big_photo_and_keeps_its_boxes_in_place() -> None:
    from scorer.vision import annotate

    img = Image.new("RGB", (3000, 2000), (90, 90, 90))
    result = {"cards": [{"card": "5c", "conf": 0.4, "box": [1500, 1000, 1800, 1460], "seat": 1}],
              "hands": None,
              "warnings": [{"code": "low_confidence", "message": "?", "card": "5c", "conf": 0.4,
                            "box": [1500, 1000, 1800, 1460]}]}
    out = Image.open(io.BytesIO(annotate(img, result, max_side=1200)))
    assert out.size == (1200, 800)
    a = np.asarray(out.convert("RGB"), np.int16)
    # the box drawn at 0.4 of its place, in the warning's red (the warning matched the card)
    edge = a[400:584, 598:604]
    assert (edge[..., 0] > 180).any() and (edge[..., 1] < 120).any()
    assert np.abs(a[100:300, 100:300] - 90).max() < 12  # elsewhere the photo
    assert Image.open(io.BytesIO(annotate(img, result, max_side=4000))).size == img.size  # never enlarged


class _SaysNothing:
    def __init__(self, *_: object) -> None:
        pass

    def scan(self, photo: object, bottom: int = 0) -> dict:
        return {"cards": [], "hands": None, "warnings": [], "size": list(photo.size)}


def test_scan_escapes_control_characters_of_file_names(tmp_path: Path, monkeypatch, capsys) -> None:
    # a name that would recolour the terminal, one that would retitle and clear it
    import scorer.vision
    from scorer.cli import main

    monkeypatch.setattr(scorer.vision, "Recognizer", _SaysNothing)
    good = tmp_path / "ok\x1b[31mRED.jpg"
    good.write_bytes(jpeg(Image.new("RGB", (320, 240), (20, 120, 40))))
    bad = tmp_path / "evil\x1b]0;PWNED\x07\x1b[2J.jpg"
    bad.write_bytes(b"")
    assert main(["scan", str(good), str(bad)]) == 1
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "\x07" not in err
    assert out.startswith(f"{tmp_path}/ok\\x1b[31mRED.jpg: 0 cards")
    assert err.startswith(f"{tmp_path}/evil\\x1b]0;PWNED\\x07\\x1b[2J.jpg: error (empty)")
    assert main(["scan", "--together", str(good), str(good)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and out.count("ok\\x1b[31mRED.jpg") == 2
    assert main(["scan", "--json", str(good)]) == 0  # JSON escapes them itself
    assert json.loads(capsys.readouterr().out)["image"] == str(good)

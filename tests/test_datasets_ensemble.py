"""`datasets.ensemble`: two model folders' readers read as one, the geometric mean of
both, in one ONNX graph the runtime reads as any reader."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from datasets.ensemble import EnsembleError, ensemble, main, mean_graph, split, split_graph
from scorer.vision.model import Models, sharpen

sys.path.insert(0, str(Path(__file__).parent))
from vision_helpers import RANKS, _fake_classifier, write_fake_models, write_fake_rank_reader  # noqa: E402


def _read(path: Path, side: int) -> np.ndarray:
    import onnxruntime as ort

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.run(None, {sess.get_inputs()[0].name: np.zeros((2, 3, side, side), np.float32)})[0]


def test_the_mean_graph_computes_the_normalised_geometric_mean_at_each_readers_temperature(tmp_path) -> None:
    a, b = tmp_path / "a.onnx", tmp_path / "b.onnx"
    _fake_classifier(a, RANKS, "7", 0.9, 32)
    _fake_classifier(b, RANKS, "6", 0.6, 32)
    pa, pb = _read(a, 32), _read(b, 32)
    for ta, tb in ((1.0, 1.0), (0.5, 2.0)):
        mean_graph(a, b, tmp_path / "ab.onnx", (ta, tb))
        got = _read(tmp_path / "ab.onnx", 32)
        want = np.sqrt(sharpen(pa, ta) * sharpen(pb, tb))
        want /= want.sum(axis=1, keepdims=True)
        assert got.shape == (2, 12) and np.allclose(got, want, atol=1e-5)
    # at (1, 1): 7 (0.9 against 0.4 / 11) outweighs 6 (0.6 against 0.1 / 11)
    mean_graph(a, b, tmp_path / "ab.onnx")
    assert RANKS[int(_read(tmp_path / "ab.onnx", 32)[0].argmax())] == "7"
    _fake_classifier(tmp_path / "big.onnx", RANKS, "7", 0.9, 64)
    with pytest.raises(EnsembleError, match=r"reads \['batch', 3, 32, 32\].* but .*big.onnx \['batch', 3, 64, 64\]"):
        mean_graph(a, tmp_path / "big.onnx", tmp_path / "bad.onnx")


def _folder(tmp_path: Path, name: str, rank: str, conf: float) -> Path:
    d = write_fake_models(tmp_path / name, [], card="12o")
    return write_fake_rank_reader(d, rank, conf)


def test_ensemble_keeps_the_first_folders_models_and_fits_a_temperature_on_val_crops(tmp_path) -> None:
    a, b = _folder(tmp_path, "a", "7", 0.99), _folder(tmp_path, "b", "7", 0.95)
    crops = tmp_path / "set"
    for i in range(10):  # 7 of 10 numerals are 7s: both readers are surer than they are right
        f = crops / "index" / "val" / ("7" if i < 7 else "12") / f"c{i}.png"
        f.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (32, 32), (i, 0, 0)).save(f)
    (a / "ADAPTED.json").write_text(json.dumps({"method": "heads"}))
    out = tmp_path / "ab"
    done = ensemble(a, b, out, ("cls", "index"), crops)
    written = done["temperatures"]
    assert "check" not in done  # no deck to check on
    assert json.loads((out / "ADAPTED.json").read_text()) == {
        "method": "heads", "ensemble": {"with": str(b), "temperatures": written}}
    assert set(written) == {"cls", "index"} and written["index"] > 1  # softened
    assert written["cls"] == 1.0  # no cls crops in the set: nothing to fit on
    assert (out / "cards-det.onnx").read_bytes() == (a / "cards-det.onnx").read_bytes()
    meta = json.loads((out / "cards-index.json").read_text())
    assert meta["temperature"] == written["index"] and meta["weight"] == 0.5
    m = Models(out)  # the runtime reads it as any rank reader
    p = m.read_ranks(np.zeros((1, 3, 32, 32), np.float32))[0]
    assert p[m.ranks.index("7")] == pytest.approx(0.7, abs=0.03)
    # a reader whose names differ is refused by name
    meta_b = json.loads((b / "cards-index.json").read_text())
    (b / "cards-index.json").write_text(json.dumps({**meta_b, "names": list(reversed(meta_b["names"]))}))
    with pytest.raises(EnsembleError, match="cards-index.json names"):
        ensemble(a, b, tmp_path / "bad", ("index",))


def test_the_command_line_refuses_what_is_not_a_model_folder_and_writes_over_neither(tmp_path, capsys) -> None:
    a = _folder(tmp_path, "a", "7", 0.9)
    b = _folder(tmp_path, "b", "6", 0.9)
    assert main([str(a), str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert "nope: not a model folder (no cards-cls.json)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(a), str(b), "--out", str(a)])
    with pytest.raises(SystemExit):
        main([str(a), str(b), "--out", str(tmp_path / "o"), "--readers", "index,colour"])
    assert "unknown colour" in capsys.readouterr().err
    before = (a / "cards-index.onnx").read_bytes()
    assert main([str(a), str(b), "--out", str(tmp_path / "o"), "--readers", "index"]) == 0
    assert json.loads(capsys.readouterr().out)["temperatures"] == {"index": 1.0}
    assert (a / "cards-index.onnx").read_bytes() == before
    assert (tmp_path / "o" / "cards-cls.onnx").read_bytes() == (a / "cards-cls.onnx").read_bytes()
    shutil.rmtree(tmp_path / "o")


def test_split_gives_back_the_two_readers_of_a_join_and_the_temperature_each_was_read_at(tmp_path) -> None:
    from datasets.fasttrain import halve

    a, b = _folder(tmp_path, "a", "7", 0.9), _folder(tmp_path, "b", "6", 0.6)
    meta_b = json.loads((b / "cards-index.json").read_text())
    (b / "cards-index.json").write_text(json.dumps({**meta_b, "temperature": 2.0}))
    joined = tmp_path / "joined"
    ensemble(a, b, joined, ("cls", "index"))
    # stored in half precision, as models/cross-deck is
    halve(joined / "cards-index.onnx", tmp_path / "half.onnx")
    shutil.move(tmp_path / "half.onnx", joined / "cards-index.onnx")
    done = split(joined, tmp_path / "parts")
    parts = tmp_path / "parts"
    assert done == {t: [str(parts / k / f) for k in "ab"] for t, f in (("cls", "cards-cls.onnx"),
                                                                        ("index", "cards-index.onnx"))}
    for name, side in (("cards-cls.onnx", 64), ("cards-index.onnx", 32)):
        for k, src in (("a", a), ("b", b)):
            assert np.allclose(_read(parts / k / name, side), _read(src / name, side), atol=1e-3), (k, name)
    # each member keeps its names, and the temperature the join read it at
    assert json.loads((parts / "a" / "cards-index.json").read_text()) == {
        k: v for k, v in json.loads((a / "cards-index.json").read_text()).items() if k != "temperature"}
    assert json.loads((parts / "b" / "cards-index.json").read_text())["temperature"] == pytest.approx(2.0)
    # joined again at those temperatures, they read as the join did
    mean_graph(parts / "a" / "cards-index.onnx", parts / "b" / "cards-index.onnx", tmp_path / "re.onnx", (1.0, 2.0))
    assert np.allclose(_read(tmp_path / "re.onnx", 32), _read(joined / "cards-index.onnx", 32), atol=1e-6)
    # a reader that is not a join is refused by name; so is it on the command line
    with pytest.raises(EnsembleError, match=r"cards-index.onnx: not two readers read as one"):
        split_graph(a / "cards-index.onnx", tmp_path / "no")
    assert main(["split", str(a), "--out", str(tmp_path / "no")]) == 2
    (joined / "cards-cls.json").unlink()
    with pytest.raises(EnsembleError, match=r"cards-cls.onnx has no cards-cls.json beside it"):
        split(joined, tmp_path / "no")
    assert main(["split", str(tmp_path / "missing"), "--out", str(tmp_path / "no")]) == 2  # nothing to split
    assert not (tmp_path / "no").exists()
    assert main(["split", str(joined), "--out", str(tmp_path / "cli"), "--readers", "index"]) == 0
    # a joined reader is no model to fine-tune: unfuse says to split it first
    from datasets.train import unfuse

    with pytest.raises(SystemExit, match=r"two readers read as one .* split it first"):
        unfuse("index", joined / "cards-index.onnx", tmp_path / "x.pt")
    assert sorted(p.name for p in (tmp_path / "cli").rglob("*")) == ["a", "b"] + ["cards-index.json"] * 2 + [
        "cards-index.onnx"] * 2

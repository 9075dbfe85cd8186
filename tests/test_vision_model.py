"""ONNX pre/post-processing and the pipeline's plumbing, with stand-in models."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from scorer.vision import pipeline as P
from scorer.vision.model import Models, letterbox, letterbox_geometry, nms, postprocess, read_names

sys.path.insert(0, str(Path(__file__).parent))
from vision_helpers import (  # noqa: E402
    NAMES,
    det_output,
    jpeg,
    write_fake_models,
    write_fake_rank_reader,
    write_fake_suit_reader,
)

ROOT = Path(__file__).resolve().parents[1]


def test_import_pulls_no_heavy_packages() -> None:
    code = (
        "import sys, scorer.vision, scorer.commands.scan\n"
        "bad = [m for m in ('torch', 'cv2', 'ultralytics', 'torchvision', 'onnx') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_letterbox_matches_ultralytics_geometry() -> None:
    assert letterbox_geometry(4000, 3000, 320) == (0.08, 320, 240, 0, 40)
    tensor, r, (left, top) = letterbox(Image.new("RGB", (400, 300), (255, 0, 0)), 320)
    assert tensor.shape == (3, 320, 320) and tensor.dtype == np.float32
    assert (r, left, top) == (0.8, 0, 40)
    assert tensor[:, 0, 0] == pytest.approx([114 / 255] * 3)
    assert tensor[:, 160, 160] == pytest.approx([1.0, 0.0, 0.0])


def test_postprocess_decodes_and_suppresses() -> None:
    out = det_output([
        (0, 10, 10, 110, 160, 0.9),
        (0, 12, 12, 112, 162, 0.8),  # duplicate of the first: suppressed
        (1, 12, 12, 40, 50, 0.7),  # other class inside: kept
        (0, 200, 10, 300, 160, 0.2),  # below the threshold
    ])
    d = postprocess(out, conf=0.25, iou=0.5)
    assert len(d) == 2
    assert d.classes.tolist() == [0, 1]
    assert d.boxes[0].tolist() == pytest.approx([10, 10, 110, 160])
    assert d.scores.tolist() == pytest.approx([0.9, 0.7])
    assert len(postprocess(np.zeros((1, 6, 2100), np.float32))) == 0


def test_nms() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]], np.float32)
    assert nms(boxes, np.array([0.5, 0.9, 0.7]), 0.5).tolist() == [1, 2]


def test_names_file_forms(tmp_path: Path) -> None:
    p = tmp_path / "n.json"
    for text in ('["1o", "2o"]', '{"names": ["1o", "2o"], "imgsz": 64}', '{"names": {"1": "2o", "0": "1o"}}'):
        p.write_text(text)
        assert read_names(p) == ["1o", "2o"]


def test_pieces_cover_regions_and_pack_into_tiles() -> None:
    regions = [(0.0, 0.0, 1200.0, 900.0), (2000.0, 0.0, 2300.0, 400.0), (0.0, 2000.0, 500.0, 2600.0)]
    items = P.pieces(regions, 0.3, 320, overlap=60)
    assert all(p.w <= 320 and p.h <= 320 for p in items)
    tiles = P.pack(items, 320)
    placed = [pl for t in tiles for pl in t]
    assert sorted(id(pl.piece) for pl in placed) == sorted(id(p) for p in items)
    for t in tiles:  # inside the tile, no overlaps
        for a in t:
            assert 0 <= a.left and a.left + a.w <= 320 and 0 <= a.top and a.top + a.h <= 320
            for b in t:
                if a is not b:
                    assert (a.left + a.w <= b.left or b.left + b.w <= a.left
                            or a.top + a.h <= b.top or b.top + b.h <= a.top)
    # the first region is cut into overlapping windows that cover it
    first = [p.rect for p in items if p.rect[0] < 1200 and p.rect[1] < 900]
    assert min(r[0] for r in first) == 0 and max(r[2] for r in first) == pytest.approx(1200)
    assert max(r[3] for r in first) == pytest.approx(900)


def test_tile_boxes_map_back_to_the_photo() -> None:
    piece = P.Piece((1000.0, 500.0, 1400.0, 1100.0), 100, 150)  # 4x down
    pl = P.Placed(piece, 20, 30)
    box = np.array([20, 30, 45, 60], np.float32)  # the piece's top-left 25x30 tile px
    assert P._to_photo(box, [pl]) == pytest.approx((1000, 500, 1100, 620))
    assert P._to_photo(np.array([0, 0, 5, 5], np.float32), [pl]) is None


def test_suppress_contained() -> None:
    dets = np.array([[0, 0, 100, 100, 0.9], [10, 10, 60, 60, 0.8], [90, 90, 200, 200, 0.7]], np.float32)
    assert P.suppress_contained(dets)[:, 4].tolist() == pytest.approx([0.9, 0.7])


@pytest.fixture(scope="module")
def fake_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("onnx")
    # coarse and fine alike: a card in the middle of the input, a corner at its top-left (in a
    # fine tile, inside the piece placed there)
    boxes = [(0, 100, 60, 220, 260, 0.9), (1, 10, 10, 40, 50, 0.8)]
    return write_fake_models(tmp_path_factory.mktemp("models"), boxes, card="12o", conf=0.9)


def test_recognizer_plumbing_with_stand_in_models(fake_dir: Path) -> None:
    rec = P.Recognizer(fake_dir)
    assert rec.models.det_size == 320 and rec.models.cls_size == 64 and rec.models.names == NAMES
    img = Image.new("RGB", (1600, 1200), (20, 120, 40))
    timings: dict[str, float] = {}
    for source in (img, jpeg(img)):
        result = rec.scan(source, bottom=2, timings=timings)
        assert result["size"] == [1600, 1200]
        assert result["hands"] is None
        assert [c["card"] for c in result["cards"]] == ["12o"]
        card = result["cards"][0]
        assert card["conf"] == pytest.approx(0.9, abs=0.01) and card["seat"] is None
        # the coarse card box, 320 -> 1600 wide: x 100..220 -> 500..1100, y (60-40)..(260-40) -> 100..1100
        assert card["box"] == [500, 100, 1100, 1100]
        assert result["warnings"] == []
    assert set(timings) == {"decode", "coarse", "fine", "classify", "layout"}


def test_a_shipped_rank_reader_reads_each_corner_numeral_again(fake_dir: Path, tmp_path: Path) -> None:
    import shutil

    img = Image.new("RGB", (1600, 1200), (20, 120, 40))
    assert Models(fake_dir).index is None  # no cards-index.onnx: the classifier alone
    agree = write_fake_rank_reader(Path(shutil.copytree(fake_dir, tmp_path / "agree")), "12", weight=0.5)
    m = Models(agree)
    assert m.index is not None and m.index_size == 32 and m.index_weight == 0.5 and len(m.ranks) == 12
    (card,) = P.Recognizer(agree).scan(img)["cards"]
    assert card["card"] == "12o" and card["conf"] > 0.95  # the numeral agrees: surer than 0.9
    differ = write_fake_rank_reader(Path(shutil.copytree(fake_dir, tmp_path / "differ")), "7", weight=0.5)
    result = P.Recognizer(differ).scan(img)
    (card,) = result["cards"]
    # the numeral says 7, the classifier 12 of oros: a 7 of oros, to be confirmed
    assert card["card"] == "7o" and card["conf"] < 0.6
    assert [w["code"] for w in result["warnings"]] == ["low_confidence"]


def test_a_readers_temperature_from_its_json_softens_what_it_says(fake_dir: Path, tmp_path: Path) -> None:
    import json
    import shutil

    from scorer.vision import ModelError

    img = Image.new("RGB", (1600, 1200), (20, 120, 40))
    d = write_fake_rank_reader(Path(shutil.copytree(fake_dir, tmp_path / "soft")), "7", weight=0.5)
    assert Models(d).index_temperature == 1.0  # none in the json
    meta = json.loads((d / "cards-index.json").read_text())
    (d / "cards-index.json").write_text(json.dumps({**meta, "temperature": 20}))
    m = Models(d)
    assert m.index_temperature == 20.0
    ranks = m.read_ranks(np.zeros((1, 3, 32, 32), np.float32))[0]
    assert ranks[m.ranks.index("7")] < 0.2  # 0.99 at T = 1, almost flat at T = 20
    (card,) = P.Recognizer(d).scan(img)["cards"]
    assert card["card"] == "12o"  # the softened numeral no longer outweighs the classifier's 12 of oros
    s = write_fake_suit_reader(Path(shutil.copytree(fake_dir, tmp_path / "suit")), "c", weight=0.7)
    meta = json.loads((s / "cards-suit.json").read_text())
    (s / "cards-suit.json").write_text(json.dumps({**meta, "temperature": 0.5}))
    assert Models(s).suit_temperature == 0.5
    (s / "cards-suit.json").write_text(json.dumps({**meta, "temperature": 0}))
    with pytest.raises(ModelError, match="temperature in .*cards-suit.json must be a number from 0.05 to 20, got 0"):
        Models(s)


def test_a_rank_reader_whose_names_do_not_match_its_output_is_refused(fake_dir: Path, tmp_path: Path) -> None:
    import json
    import shutil

    from scorer.vision import ModelError

    d = write_fake_rank_reader(Path(shutil.copytree(fake_dir, tmp_path / "bad")), "7")
    meta = json.loads((d / "cards-index.json").read_text())
    (d / "cards-index.json").write_text(json.dumps({**meta, "names": meta["names"][:11]}))
    with pytest.raises(ModelError, match="outputs 12 ranks but cards-index.json names 11"):
        Models(d)


def test_a_shipped_court_suit_reader_reads_the_suit_of_court_cards_again(fake_dir: Path, tmp_path: Path) -> None:
    import shutil

    img = Image.new("RGB", (1600, 1200), (20, 120, 40))
    assert Models(fake_dir).suit is None  # no cards-suit.onnx: the classifier's suit stands
    copas = write_fake_suit_reader(Path(shutil.copytree(fake_dir, tmp_path / "copas")), "c", weight=0.7)
    m = Models(copas)
    assert m.suit is not None and m.suit_size == 64 and m.suit_weight == 0.7 and m.suits == ["b", "c", "e", "o"]
    assert sorted(m.names[j] for j in m.court) == sorted(f"{r}{s}" for r in (10, 11, 12) for s in "bceo")
    result = P.Recognizer(copas).scan(img)
    (card,) = result["cards"]
    # the classifier says 12 of oros at 0.9, the reader copas at 0.99: the rank stays, the suit moves
    assert card["card"] == "12c" and card["conf"] < 0.9
    agree = write_fake_suit_reader(Path(shutil.copytree(fake_dir, tmp_path / "oros")), "o", weight=0.7)
    (card,) = P.Recognizer(agree).scan(img)["cards"]
    assert card["card"] == "12o" and card["conf"] == pytest.approx(0.9, abs=0.01)  # agreeing: as sure as before


def test_a_suit_reader_whose_names_do_not_match_its_output_is_refused(fake_dir: Path, tmp_path: Path) -> None:
    import json
    import shutil

    from scorer.vision import ModelError

    d = write_fake_suit_reader(Path(shutil.copytree(fake_dir, tmp_path / "bad")), "c")
    (d / "cards-suit.json").write_text(json.dumps({"names": ["b", "c", "e"], "weight": 0.5}))
    with pytest.raises(ModelError, match="outputs 4 suits but cards-suit.json names 3"):
        Models(d)
    (d / "cards-suit.json").write_text(json.dumps({"names": ["b", "c", "e", "o"], "weight": 1.5}))
    with pytest.raises(ModelError, match="weight in .*cards-suit.json must be a number from 0 to 1, got 1.5"):
        Models(d)


def test_models_missing(tmp_path: Path) -> None:
    from scorer.vision import ModelError

    with pytest.raises(ModelError, match="not found"):
        Models(tmp_path)


def test_classifier_batches(fake_dir: Path) -> None:
    m = Models(fake_dir)
    probs = m.classify(np.zeros((5, 3, 64, 64), np.float32))
    assert probs.shape == (5, len(NAMES))
    assert probs.argmax(1).tolist() == [NAMES.index("12o")] * 5
    assert m.classify(np.zeros((0, 3, 64, 64), np.float32)).shape == (0, len(NAMES))


def test_refine_takes_the_fine_box_of_the_same_card() -> None:
    coarse = [(100.0, 100.0, 360.0, 500.0), (1000.0, 100.0, 1260.0, 500.0)]
    fine_cards = np.array([[104, 96, 362, 497, 0.9], [600, 100, 860, 500, 0.9]], np.float32)
    assert P.refine(coarse, fine_cards) == [(104.0, 96.0, 362.0, 497.0), coarse[1]]


def test_classifier_temperature_from_the_names_file(fake_dir: Path, tmp_path: Path) -> None:
    import json
    import shutil

    from scorer.vision import ModelError

    plain = Models(fake_dir)
    assert plain.temperature == 1.0
    batch = np.zeros((3, 3, 64, 64), np.float32)
    p1 = plain.classify(batch)
    d = tmp_path / "warm"
    shutil.copytree(fake_dir, d)
    meta = json.loads((d / "cards-cls.json").read_text())
    meta = {"names": meta} if isinstance(meta, list) else meta
    (d / "cards-cls.json").write_text(json.dumps({**meta, "temperature": 0.5}))
    sharp = Models(d)
    p2 = sharp.classify(batch)
    assert sharp.temperature == 0.5
    assert np.allclose(p2.sum(axis=1), 1.0, atol=1e-5)
    assert (p2.argmax(1) == p1.argmax(1)).all()
    assert (p2.max(1) > p1.max(1)).all()  # T < 1 makes the best class surer
    expect = p1**2 / (p1**2).sum(axis=1, keepdims=True)
    assert np.allclose(p2, expect, atol=1e-5)
    for bad in (0, -1, "hot", True, 100):
        (d / "cards-cls.json").write_text(json.dumps({**meta, "temperature": bad}))
        with pytest.raises(ModelError, match="temperature"):
            Models(d)


def test_sessions_do_not_spin_between_runs() -> None:
    """Four sessions take turns on the cores: an idle one must not spin (bench_vision measures the gain)."""
    models = Models()
    for sess in (models.det, models.cls, models.index, models.suit):
        assert sess.get_session_options().get_session_config_entry("session.intra_op.allow_spinning") == "0"

"""Helpers for the vision tests: stand-in ONNX models and images made at test time."""

from __future__ import annotations

import io
import json
import struct
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

NAMES = [f"{r}{s}" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12) for s in "oceb"]
NAMES += [f"{r}{s}" for r in (8, 9) for s in "oceb"] + ["other"]


def det_output(boxes: list[tuple[int, float, float, float, float, float]], n: int = 2100) -> np.ndarray:
    """A (1, 6, n) YOLO output holding `boxes` as (class, x1, y1, x2, y2, score)."""
    out = np.zeros((1, 6, n), np.float32)
    for k, (cls, x1, y1, x2, y2, score) in enumerate(boxes):
        out[0, :4, k] = [(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1]
        out[0, 4 + cls, k] = score
    return out


def write_fake_models(folder: Path, det_boxes: list, card: str = "1o", conf: float = 0.9) -> Path:
    """A model folder with a detector that always outputs `det_boxes` (batch 1) and a
    classifier (dynamic batch) that always says `card` with probability about `conf`."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    folder.mkdir(parents=True, exist_ok=True)
    const = det_output(det_boxes)
    x = helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 320, 320])
    y = helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(const.shape))
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["m"], keepdims=0),
        helper.make_node("Mul", ["m", "zero"], ["z"]),
        helper.make_node("Add", ["const", "z"], ["output0"]),
    ]
    inits = [numpy_helper.from_array(const, "const"), numpy_helper.from_array(np.zeros((), np.float32), "zero")]
    graph = helper.make_graph(nodes, "fake-det", [x], [y], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), folder / "cards-det.onnx")

    _fake_classifier(folder / "cards-cls.onnx", NAMES, card, conf, 64)
    (folder / "cards-cls.json").write_text(json.dumps(NAMES))
    return folder


def _fake_classifier(path: Path, names: list[str], says: str, conf: float, side: int) -> None:
    """An ONNX classifier (dynamic batch, `side` x `side` input) over `names` that always
    says `says` with probability `conf`, the other classes sharing the rest evenly."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    c = len(names)
    logits = np.zeros(c, np.float32)
    logits[names.index(says)] = np.log(conf * (c - 1) / (1 - conf))
    xi = helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, side, side])
    yo = helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", c])
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["m"], axes=[2, 3], keepdims=0),
        helper.make_node("MatMul", ["m", "w"], ["l0"]),
        helper.make_node("Add", ["l0", "b"], ["l1"]),
        helper.make_node("Softmax", ["l1"], ["output0"], axis=1),
    ]
    inits = [numpy_helper.from_array(np.zeros((3, c), np.float32), "w"), numpy_helper.from_array(logits, "b")]
    graph = helper.make_graph(nodes, path.stem, [xi], [yo], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


RANKS = [str(r) for r in range(1, 13)]


def write_fake_rank_reader(folder: Path, rank: str, conf: float = 0.99, weight: float = 0.5) -> Path:
    """Adds to a model folder a rank reader (`cards-index.onnx`, dynamic batch, 32x32
    input) that always says `rank` with probability `conf`, and its json with `weight`."""
    _fake_classifier(folder / "cards-index.onnx", RANKS, rank, conf, 32)
    (folder / "cards-index.json").write_text(json.dumps({"names": RANKS, "imgsz": 32, "weight": weight}))
    return folder


SUITS = ["b", "c", "e", "o"]


def write_fake_suit_reader(folder: Path, suit: str, conf: float = 0.99, weight: float = 0.5) -> Path:
    """Adds to a model folder a court suit reader (`cards-suit.onnx`, dynamic batch, 64x64
    input) that always says `suit` with probability `conf`, and its json with `weight`."""
    _fake_classifier(folder / "cards-suit.onnx", SUITS, suit, conf, 64)
    (folder / "cards-suit.json").write_text(json.dumps({"names": SUITS, "imgsz": 64, "weight": weight}))
    return folder


def jpeg(img: Image.Image, orientation: int | None = None, quality: int = 90) -> bytes:
    """`img` as JPEG bytes, with an EXIF orientation tag if given."""
    out = io.BytesIO()
    if orientation is None:
        img.save(out, "JPEG", quality=quality)
    else:
        exif = Image.Exif()
        exif[0x0112] = orientation
        img.save(out, "JPEG", quality=quality, exif=exif)
    return out.getvalue()


def encoded(img: Image.Image, fmt: str) -> bytes:
    out = io.BytesIO()
    img.save(out, fmt)
    return out.getvalue()


def png_header(w: int, h: int) -> bytes:
    """A PNG whose header claims `w` x `h` pixels, with almost no data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


def jpeg_header(w: int, h: int) -> bytes:
    """A JPEG whose frame header claims `w` x `h` pixels (the rest of a tiny JPEG)."""
    data = bytearray(jpeg(Image.new("RGB", (16, 16), (90, 120, 200))))
    i = 2
    while i < len(data):
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2 : i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            data[i + 5 : i + 9] = struct.pack(">HH", h, w)
            break
        i += 2 + length
    return bytes(data)


# -- crafted files that are cheap on the wire and dear to parse or decode (tests/test_vision_limits.py,
# bench/bench_limits.py)
def progressive_jpeg(size: tuple[int, int] = (96, 72)) -> bytes:
    """A small progressive JPEG of one colour."""
    out = io.BytesIO()
    Image.new("RGB", size, (30, 120, 60)).save(out, "JPEG", quality=80, progressive=True)
    return out.getvalue()


def jpeg_with_scans(total: int, size: tuple[int, int] = (96, 72)) -> bytes:
    """A progressive JPEG holding `total` scans: Pillow's own, then empty AC scans of the
    first component before EOI (each one more pass over every pixel when decoded)."""
    data = progressive_jpeg(size)
    extra = total - data.count(b"\xff\xda")
    assert extra >= 0 and data.endswith(b"\xff\xd9")
    sos = b"\xff\xda" + struct.pack(">HB", 8, 1) + b"\x01\x00" + bytes([1, 63, 0x00])
    return data[:-2] + sos * extra + b"\xff\xd9"


def jpeg_with_segments(extra: int, where: str = "header") -> bytes:
    """A small JPEG with `extra` empty APP12 segments in its header (before the first
    scan) or, progressive, between its first two scans."""
    app12 = b"\xff\xec\x00\x02"
    if where == "header":
        data = jpeg(Image.new("RGB", (96, 72), (30, 120, 60)))
        return data[:2] + app12 * extra + data[2:]
    data = progressive_jpeg()
    second = data.find(b"\xff\xda", data.find(b"\xff\xda") + 2)
    return data[:second] + app12 * extra + data[second:]


def png_with_chunks(extra: int, kind: bytes = b"prVt", where: str = "header") -> bytes:
    """A small PNG with `extra` empty chunks of `kind` before its pixel data or after it."""
    out = io.BytesIO()
    Image.new("RGB", (96, 72), (30, 120, 60)).save(out, "PNG")
    data = out.getvalue()
    at = data.find(b"IDAT" if where == "header" else b"IEND") - 4
    chunk = struct.pack(">I", 0) + kind + struct.pack(">I", zlib.crc32(kind))
    return data[:at] + chunk * extra + data[at:]


def webp_with_chunks(extra: int) -> bytes:
    """A small WebP (VP8X, with EXIF) with `extra` empty unknown chunks after its VP8X."""
    out = io.BytesIO()
    Image.new("RGB", (96, 72), (30, 120, 60)).save(out, "WEBP", exif=Image.Exif().tobytes())
    body = out.getvalue()[12:]
    assert body[:4] == b"VP8X"
    body = body[:18] + (b"JUNK" + struct.pack("<I", 0)) * extra + body[18:]
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body

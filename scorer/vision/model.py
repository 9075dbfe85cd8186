"""ONNX inference: the detector, the corner classifier, the rank reader and the court
suit reader, with pure pre/post-processing.

Sessions are created once per `Models`; every call is stateless.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime as ort
from PIL import Image

from scorer.engine.errors import said
from scorer.vision.crops import CROP_SIZE, INDEX_SIZE

PAD = 114
DET_FILE, CLS_FILE, NAMES_FILE = "cards-det.onnx", "cards-cls.onnx", "cards-cls.json"
INDEX_FILE, INDEX_NAMES_FILE = "cards-index.onnx", "cards-index.json"
INDEX_WEIGHT = 0.5
SUIT_FILE, SUIT_NAMES_FILE = "cards-suit.onnx", "cards-suit.json"
SUIT_WEIGHT = 0.5
COURT_RANKS = ("10", "11", "12")
SUIT_PRIOR = 0.05  # how much a rank's suit leans on the suit read over all ranks (`combine`)


class ModelError(RuntimeError):
    """The model files are missing or unusable."""


def default_model_dir() -> Path:
    """`$MUS_MODEL_DIR`, else `models/` at the repository root beside the package."""
    env = os.environ.get("MUS_MODEL_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "models"


def letterbox_geometry(w: int, h: int, size: int) -> tuple[float, int, int, int, int]:
    """Scale, new width and height, left and top padding, as ultralytics letterboxes."""
    r = min(size / w, size / h)
    nw, nh = max(1, round(w * r)), max(1, round(h * r))
    return r, nw, nh, round((size - nw) / 2 - 0.1), round((size - nh) / 2 - 0.1)


def letterbox(image: Image.Image, size: int) -> tuple[np.ndarray, float, tuple[int, int]]:
    """`image` scaled into a `size` square padded with grey 114, as a (3, size, size)
    float32 array in 0..1; with the scale and the (left, top) padding."""
    r, nw, nh, left, top = letterbox_geometry(image.width, image.height, size)
    canvas = np.full((size, size, 3), PAD, np.uint8)
    resized = image if (nw, nh) == image.size else image.resize((nw, nh), Image.Resampling.BILINEAR, reducing_gap=3.0)
    canvas[top : top + nh, left : left + nw] = np.asarray(resized.convert("RGB"))
    return to_tensor(canvas), r, (left, top)


def to_tensor(rgb: np.ndarray) -> np.ndarray:
    """An (H, W, 3) uint8 array as a (3, H, W) float32 array in 0..1."""
    return np.ascontiguousarray(rgb.transpose(2, 0, 1), dtype=np.float32) / 255.0


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices of the boxes kept by greedy non-maximum suppression, best first."""
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    areas = (boxes[:, 2] - boxes[:, 0]).clip(0) * (boxes[:, 3] - boxes[:, 1]).clip(0)
    while order.size:
        i = order[0]
        keep.append(int(i))
        rest = order[1:]
        xx1 = np.maximum(boxes[i, 0], boxes[rest, 0])
        yy1 = np.maximum(boxes[i, 1], boxes[rest, 1])
        xx2 = np.minimum(boxes[i, 2], boxes[rest, 2])
        yy2 = np.minimum(boxes[i, 3], boxes[rest, 3])
        inter = (xx2 - xx1).clip(0) * (yy2 - yy1).clip(0)
        union = areas[i] + areas[rest] - inter
        order = rest[inter <= iou * np.maximum(union, 1e-9)]
    return np.array(keep, dtype=np.int64)


@dataclass(frozen=True)
class Detections:
    """Boxes (K, 4) as x1, y1, x2, y2, scores (K,) and classes (K,)."""

    boxes: np.ndarray
    scores: np.ndarray
    classes: np.ndarray

    @staticmethod
    def empty() -> Detections:
        return Detections(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))

    def of(self, cls: int) -> Detections:
        m = self.classes == cls
        return Detections(self.boxes[m], self.scores[m], self.classes[m])

    def __len__(self) -> int:
        return len(self.scores)


def postprocess(output: np.ndarray, conf: float = 0.25, iou: float = 0.5) -> Detections:
    """YOLO output (6, N) or (1, 6, N) (cx, cy, w, h, score per class) to detections
    in input pixels, class by class NMS."""
    out = output[0] if output.ndim == 3 else output
    scores_all = out[4:]
    cls = scores_all.argmax(0)
    score = scores_all[cls, np.arange(out.shape[1])]
    m = score >= conf
    if not m.any():
        return Detections.empty()
    cx, cy, w, h = out[:4, m]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1).astype(np.float32)
    score, cls = score[m].astype(np.float32), cls[m]
    # class-aware NMS: shift each class apart
    keep = nms(boxes + (cls[:, None] * 1e5), score, iou)
    return Detections(boxes[keep], score[keep], cls[keep])


def _session(path: Path) -> ort.InferenceSession:
    if not path.is_file():
        raise ModelError(f"model file not found: {path}")
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    threads = int(os.environ.get("MUS_THREADS", "0") or 0)
    if threads:
        opts.intra_op_num_threads = threads
    opts.log_severity_level = 3
    # Each session has its own threads, and by default they spin after a run: with four
    # sessions taking turns on two cores, the idle ones' spinning slows the one running
    # (a 12 MP photo: about 225 ms with spinning, 200 without; bench/bench_vision.py).
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def _dynamic_batch(sess: ort.InferenceSession) -> bool:
    return not isinstance(sess.get_inputs()[0].shape[0], int)


def read_names(path: Path) -> list[str]:
    """Class names from `cards-cls.json`: a list, or `{"names": list | {index: name}}`."""
    if not path.is_file():
        raise ModelError(f"class names not found: {path}")
    obj = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(obj, dict):
        obj = obj.get("names", obj)
    if isinstance(obj, dict):
        obj = [obj[k] for k in sorted(obj, key=int)]
    return [str(n) for n in obj]


def input_size(sess: ort.InferenceSession, default: int, names_path: Path | None = None) -> int:
    """The square input side a model takes; for a dynamic shape, `imgsz` from `cards-cls.json`."""
    side = sess.get_inputs()[0].shape[-1]
    if isinstance(side, int):
        return side
    if names_path is not None and names_path.is_file():
        obj = json.loads(names_path.read_text(encoding="utf-8"))
        if isinstance(obj, dict) and isinstance(obj.get("imgsz"), int):
            return obj["imgsz"]
    return default


def _json_number(path: Path, key: str, default: float, lo: float, hi: float) -> float:
    """The number at `key` in the json object at `path` (`default` when the file or key is
    absent), refused by name unless it lies in `lo`..`hi`."""
    obj = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    v = obj.get(key, default) if isinstance(obj, dict) else default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
        raise ModelError(f"{key} in {path} must be a number from {lo:g} to {hi:g}, got {said(v)}")
    return float(v)


def read_temperature(path: Path) -> float:
    """A model's calibration temperature from its json (`cards-cls.json`, `cards-index.json`,
    `cards-suit.json`; 1 when absent): its probabilities are read as `p ** (1 / T)`,
    normalised, so that a model trained with stronger augmentation, and less sure for it,
    or fine-tuned until it is surer than it is right, meets the reader's fixed thresholds."""
    return _json_number(path, "temperature", 1.0, 0.05, 20)


def read_weight(path: Path, default: float = INDEX_WEIGHT) -> float:
    """A reader's weight from its json (`cards-index.json`, `cards-suit.json`; `default`
    when absent): how far its read outweighs the corner classifier's, from 0 to 1."""
    return _json_number(path, "weight", default, 0, 1)


def rank_of(name: str) -> str | None:
    """The rank of a card class name (`12o` -> `12`); None for a class that is no card."""
    return name[:-1] if len(name) > 1 and name[-1] in "oceb" and name[:-1].isdigit() else None


def _one_hot(idx: np.ndarray, n: int) -> np.ndarray:
    """(K, n) rows of the identity: a (N, K) matrix times it sums its columns by `idx`."""
    return np.eye(n)[idx]


def _given_rank(pc: np.ndarray, rank_idx: np.ndarray, suit_idx: np.ndarray, n_ranks: int,
                n_suits: int) -> tuple[np.ndarray, np.ndarray]:
    """Card probabilities `pc` (N, K), the cards' ranks and suits as indexes: the
    probabilities summed by rank (N, R), and each card's given its rank (N, K), leaning by
    `SUIT_PRIOR` on the suits summed over all the ranks."""
    by_rank, by_suit = pc @ _one_hot(rank_idx, n_ranks), pc @ _one_hot(suit_idx, n_suits)
    suit = by_suit / np.maximum(by_rank.sum(axis=1, keepdims=True), 1e-12)
    return by_rank, (pc + SUIT_PRIOR * suit[:, suit_idx]) / (by_rank[:, rank_idx] + SUIT_PRIOR)


def combine(p: np.ndarray, names: list[str], ranks_p: np.ndarray, ranks: list[str], weight: float) -> np.ndarray:
    """Card probabilities (N, C) with the rank read again from the numeral: a card's
    probability becomes that of its rank, the weighted geometric mean of the classifier's
    (its card probabilities summed by rank) and the rank reader's `ranks_p` (N, R), times
    that of its suit given the rank, from the classifier: its cards of that rank, leaning
    by `SUIT_PRIOR` on its suits over all ranks (so that a rank the classifier gave almost
    nothing takes the suit the pips showed). Classes that are no card keep theirs."""
    if weight == 0 or len(p) == 0:
        return p
    col = {r: j for j, r in enumerate(ranks)}
    of = [rank_of(n) for n in names]
    cards = np.array([r is not None and r in col for r in of])
    idx = np.flatnonzero(cards)
    rank_idx = np.array([col[of[j]] for j in idx])
    suits = sorted({names[j][-1] for j in idx})
    suit_idx = np.array([suits.index(names[j][-1]) for j in idx])
    by_rank, given = _given_rank(p[:, idx].astype(np.float64), rank_idx, suit_idx, len(ranks), len(suits))
    mass = by_rank.sum(axis=1, keepdims=True)  # what the classifier gives to cards
    rank = np.power(np.maximum(by_rank, 1e-9), 1 - weight) * np.power(np.maximum(ranks_p, 1e-9), weight)
    rank /= rank.sum(axis=1, keepdims=True)
    out = p.astype(np.float64).copy()
    out[:, idx] = mass * rank[:, rank_idx] * given
    return (out / out.sum(axis=1, keepdims=True)).astype(np.float32)


def combine_suits(p: np.ndarray, names: list[str], suits_p: np.ndarray, suits: list[str],
                  weight: float) -> np.ndarray:
    """Card probabilities (N, C) with the suit of the court cards read again by the court
    suit reader (`suits_p` (N, S), its suits named `suits`): each court rank keeps the
    probability the classifier gives it, and its suits, given the rank (leaning by
    `SUIT_PRIOR` on the court cards' suits over all three ranks), take the weighted
    geometric mean with the reader's, as `combine` does for ranks. Other classes keep
    theirs."""
    if weight == 0 or len(p) == 0:
        return p
    col = {s: j for j, s in enumerate(suits)}
    idx = np.array([j for j, n in enumerate(names) if rank_of(n) in COURT_RANKS and n[-1] in col], np.int64)
    if len(idx) == 0:
        return p
    court = sorted({rank_of(names[j]) for j in idx})
    rank_idx = np.array([court.index(rank_of(names[j])) for j in idx])
    suit_idx = np.array([col[names[j][-1]] for j in idx])
    by_rank, given = _given_rank(p[:, idx].astype(np.float64), rank_idx, suit_idx, len(court), len(suits))
    mixed = np.power(np.maximum(given, 1e-9), 1 - weight) * np.power(np.maximum(suits_p[:, suit_idx], 1e-9), weight)
    per_rank = mixed @ _one_hot(rank_idx, len(court))
    out = p.astype(np.float64).copy()
    out[:, idx] = by_rank[:, rank_idx] * mixed / per_rank[:, rank_idx]
    return out.astype(np.float32)


def sharpen(p: np.ndarray, temperature: float) -> np.ndarray:
    """Probabilities (B, C) at another temperature: `p ** (1 / T)` over its row sum."""
    if temperature == 1.0 or len(p) == 0:
        return p
    q = np.power(np.maximum(p, 1e-12), 1.0 / temperature)
    return (q / q.sum(axis=1, keepdims=True)).astype(np.float32)


class Models:
    """The ONNX sessions (detector, classifier, and the rank reader and court suit reader
    where shipped), the class names, the models' temperatures and the readers' weights."""

    def __init__(self, model_dir: Path | str | None = None) -> None:
        self.model_dir = Path(model_dir) if model_dir else default_model_dir()
        self.det = _session(self.model_dir / DET_FILE)
        self.cls = _session(self.model_dir / CLS_FILE)
        self.names = read_names(self.model_dir / NAMES_FILE)
        self.temperature = read_temperature(self.model_dir / NAMES_FILE)
        self.det_size = input_size(self.det, 320)
        self.cls_size = input_size(self.cls, CROP_SIZE, self.model_dir / NAMES_FILE)
        self._det_batch, self._cls_batch = _dynamic_batch(self.det), _dynamic_batch(self.cls)
        # the rank reader and the court suit reader, where shipped
        (self.index, self.ranks, self.index_weight, self.index_size, self._index_batch,
         self.index_temperature) = _reader(self.model_dir, INDEX_FILE, INDEX_NAMES_FILE, INDEX_WEIGHT,
                                           INDEX_SIZE, "ranks")
        (self.suit, self.suits, self.suit_weight, self.suit_size, self._suit_batch,
         self.suit_temperature) = _reader(self.model_dir, SUIT_FILE, SUIT_NAMES_FILE, SUIT_WEIGHT,
                                          CROP_SIZE, "suits")
        # the suit read from the frame line's breaks (`scorer.vision.pintas`): its weight, 0 (off)
        # unless the classifier's json gives `pintas_weight`
        self.pintas_weight = _json_number(self.model_dir / NAMES_FILE, "pintas_weight", 0.0, 0, 4)
        # an ace's suit, which a deck's big central emblem sets apart and its corner hardly does:
        # where the json gives `pintas_ace_weight`, a corner read as an ace has its pintas read
        # at that weight where its suit is under `pintas.ACE_BELOW` (0.99, not 0.9)
        self.pintas_ace_weight = _json_number(self.model_dir / NAMES_FILE, "pintas_ace_weight", 0.0, 0, 4)
        # the classifier's columns of the court cards, whose suit the suit reader reads again
        self.court = np.array([j for j, n in enumerate(self.names) if rank_of(n) in COURT_RANKS], np.int64)

    def detect(self, batch: np.ndarray) -> np.ndarray:
        """Raw detector output (B, 4 + classes, N) for a (B, 3, S, S) batch."""
        return _run(self.det, batch, self._det_batch)

    def classify(self, batch: np.ndarray) -> np.ndarray:
        """Class probabilities (B, C) for a (B, 3, s, s) batch (at the model's temperature)."""
        if len(batch) == 0:
            return np.zeros((0, len(self.names)), np.float32)
        return sharpen(_run(self.cls, batch, self._cls_batch), self.temperature)

    def read_ranks(self, batch: np.ndarray) -> np.ndarray:
        """Rank probabilities (B, R) for a (B, 3, s, s) batch of numeral crops."""
        if self.index is None or len(batch) == 0:
            return np.zeros((len(batch), len(self.ranks)), np.float32)
        return sharpen(_run(self.index, batch, self._index_batch), self.index_temperature)

    def read_suits(self, batch: np.ndarray) -> np.ndarray:
        """Suit probabilities (B, S) for a (B, 3, s, s) batch of court-card corner crops."""
        if self.suit is None or len(batch) == 0:
            return np.zeros((len(batch), len(self.suits)), np.float32)
        return sharpen(_run(self.suit, batch, self._suit_batch), self.suit_temperature)


def _reader(model_dir: Path, file: str, meta_file: str, weight: float, size: int,
            what: str) -> tuple[ort.InferenceSession | None, list[str], float, int, bool, float]:
    """An optional reader's session, class names, weight (`weight` when its json has
    none), input size (`size` when neither model nor json says), whether it takes a batch
    and its temperature; (None, [], 0, 0, False, 1) where `file` is not shipped. Refused by
    name when its output does not match its names."""
    if not (model_dir / file).is_file():
        return None, [], 0.0, 0, False, 1.0
    meta = model_dir / meta_file
    sess = _session(model_dir / file)
    names = read_names(meta)
    width = sess.get_outputs()[0].shape[-1]
    if isinstance(width, int) and width != len(names):
        raise ModelError(f"{file} outputs {width} {what} but {meta_file} names {len(names)}")
    return (sess, names, read_weight(meta, weight), input_size(sess, size, meta), _dynamic_batch(sess),
            read_temperature(meta))


def _run(sess: ort.InferenceSession, batch: np.ndarray, dynamic: bool) -> np.ndarray:
    name = sess.get_inputs()[0].name
    batch = np.ascontiguousarray(batch, dtype=np.float32)
    if dynamic:
        return sess.run(None, {name: batch})[0]
    return np.concatenate([sess.run(None, {name: batch[i : i + 1]})[0] for i in range(len(batch))])

"""Teach the card readers a deck in minutes, without torch: new heads on frozen features.

    python -m datasets.enroll oros.jpg copas.jpg espadas.jpg bastos.jpg --out decks/club
    python -m datasets.heads --deck decks/club --out models-club [--models models]
    bash scripts/run.sh --model models-club

The corner classifier and the rank reader keep their convolutions as shipped. Their last
layer (one linear map from 1,280 pooled features) is replaced by a small two-layer head
that also reads two mid-level feature maps on a 4x4 grid (where the strokes of the numeral
and of the frame lie; the finer one averaged down from 8x8), trained in numpy on the crops
of showdowns rendered from the enrolled deck. Two such heads from other seeds are merged
into one (the mean of their logits), and its probabilities calibrated on held-out crops.
The models stay plain ONNX files, read by the runtime as before.

`datasets.adapt --deck` fine-tunes every layer (it needs torch and tens of minutes) and
reads no more on faces cut as `datasets.enroll` cuts them; this needs only the `onnx`
package and about a quarter of an hour on two cores (`models/HISTORY.md`, "Faces cut true"
and "A finer map for the heads").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from datasets.adapt import (
    _by_class,
    best_temperature,
    check_line,
    check_on_deck,
    copy_models,
    probabilities,
    render_deck,
)
from datasets.render import ENROLLED
from scorer.vision.crops import CROP_SIZE, INDEX_SIZE

ROOT = Path(__file__).resolve().parents[1]
Tap = tuple[str, int]
"""A mid-level map a head reads: the tensor's name, and k: the map averaged over k x k squares."""
TAPS64: tuple[Tap, ...] = (("/model.6/cv2/act/Mul_output_0", 1), ("/model.4/cv2/act/Mul_output_0", 2))
TAPS32: tuple[Tap, ...] = (("/model.4/cv2/act/Mul_output_0", 1), ("/model.2/cv2/act/Mul_output_0", 2))
READERS = {"cls": ("cards-cls.onnx", "cards-cls.json", TAPS64),
           "index": ("cards-index.onnx", "cards-index.json", TAPS32),
           "suit": ("cards-suit.onnx", "cards-suit.json", TAPS64)}
"""Task -> (model file, json file, the maps its new head reads). Each is 4x4: a 64 px crop
gives 128 channels at stride 16 and 128 at stride 8 averaged over 2x2 squares, the reader's
32 px numeral crop 128 at stride 8 and 64 at stride 4 so averaged; besides the 1,280
pooled features. The finer map took the classifier's held-out crops from 93.0% to
94.6% and the rank reader's from 91.5% to 92.3% (`models/HISTORY.md`, "A finer map for the heads")."""
SCENES = 1000
"""Showdowns of the deck rendered to train on: on Fournier 1878 taught from four photos,
1,000 read (b) 2 to 7 showdowns in 100 better than 400 did, and 2,000 no better than 1,000
(`models/HISTORY.md`, "More showdowns to learn from")."""


MEMBERS, EPOCHS = 2, 15
"""Heads per reader and passes over the crops for each: two heads of 15 passes, merged, read
the held-out crops better than one of 30 in the same time (`models/HISTORY.md`, "Two heads
merged")."""


class HeadError(ValueError):
    """A model whose graph has no place for a new head, or crops that cannot train one."""


@dataclass(frozen=True)
class Head:
    """A two-layer head: features standardised by `mean` and `scale`, then `w1` (D, H),
    `b1`, ReLU, `w2` (H, C), `b2`, softmax."""

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def __repr__(self) -> str:
        return f"Head(features={self.w1.shape[0]}, hidden={self.w1.shape[1]}, classes={self.w2.shape[1]})"

    def logits(self, feats: np.ndarray) -> np.ndarray:
        """Logits (N, C) of features (N, D), as the exported graph computes them."""
        h = np.maximum(((feats - self.mean) / self.scale) @ self.w1 + self.b1, 0)
        return h @ self.w2 + self.b2

    def predict(self, feats: np.ndarray) -> np.ndarray:
        """Class probabilities (N, C)."""
        return softmax(self.logits(feats))


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax."""
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _graph_parts(model: Any, taps: tuple[Tap, ...]) -> tuple[Any, Any, str, str]:
    """The final Gemm and Softmax nodes of a classifier graph, the pooled features the Gemm
    reads and the graph's output name; refused by name when the graph is not shaped so."""
    g = model.graph
    out = g.output[0].name
    by_output = {o: n for n in g.node for o in n.output}
    soft = by_output.get(out)
    gemm = by_output.get(soft.input[0]) if soft is not None and soft.op_type == "Softmax" else None
    if gemm is None or gemm.op_type != "Gemm":
        raise HeadError(f"the graph's output {out!r} is not a softmax of a linear layer")
    for tap, k in taps:
        if tap not in by_output:
            raise HeadError(f"the graph has no tensor {tap!r} to read a mid-level map from")
        if k < 1:
            raise HeadError(f"the map {tap!r} cannot be averaged over {k} x {k} squares")
    return gemm, soft, gemm.input[0], out


def _feature_nodes(pooled: str, taps: tuple[Tap, ...]) -> list[Any]:
    """Nodes that put the pooled features and each tap (averaged over k x k squares, then
    flattened) side by side in `head/features`, for training and for the exported head alike."""
    from onnx import helper

    nodes, flat = [], [pooled]
    for i, (tap, k) in enumerate(taps):
        src = tap
        if k > 1:
            src = f"head/avg{i}"
            nodes.append(helper.make_node("AveragePool", [tap], [src], kernel_shape=[k, k], strides=[k, k]))
        flat.append(f"head/map{i}")
        nodes.append(helper.make_node("Flatten", [src], [flat[-1]], axis=1))
    nodes.append(helper.make_node("Concat", flat, ["head/features"], axis=1))
    return nodes


def tap_session(model_path: Path, taps: tuple[Tap, ...]) -> Any:
    """An onnxruntime session of a classifier that outputs the features a new head reads:
    its pooled features and the maps `taps`, side by side."""
    import onnx
    import onnxruntime as ort

    model = onnx.load(str(model_path))
    _, _, pooled, _ = _graph_parts(model, taps)
    model.graph.node.extend(_feature_nodes(pooled, taps))
    del model.graph.output[:]
    model.graph.output.append(onnx.helper.make_tensor_value_info("head/features", onnx.TensorProto.FLOAT, None))
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def features(sess: Any, crops: np.ndarray, batch: int = 256) -> np.ndarray:
    """The features (N, D) a `tap_session` gives uint8 crops (N, s, s, 3)."""
    name = sess.get_inputs()[0].name
    out = []
    for i in range(0, len(crops), batch):
        x = crops[i : i + batch].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        out.append(sess.run(None, {name: x})[0].reshape(len(x), -1))
    return np.concatenate(out) if out else np.zeros((0, 0), np.float32)


def crop_side(meta: dict[str, Any], task: str) -> int:
    """A reader's square crop side: its json's `imgsz`, else the runtime's (the rank
    reader's numeral crops, the classifier's and the suit reader's corners)."""
    return int(meta.get("imgsz", INDEX_SIZE if task == "index" else CROP_SIZE))


def load_crops(files: dict[str, list[Path]], names: list[str], size: int) -> tuple[np.ndarray, np.ndarray]:
    """The crop files of the classes `names` (`files`: class -> paths), as uint8 (N, size,
    size, 3) and their class indexes (N,); classes not in `names` are left out."""
    xs, ys = [], []
    for i, name in enumerate(names):
        for f in files.get(name, []):
            with Image.open(f) as im:
                rgb = im.convert("RGB")
            if rgb.size != (size, size):
                rgb = rgb.resize((size, size), Image.Resampling.BILINEAR)
            xs.append(np.asarray(rgb))
            ys.append(i)
    if not xs:
        return np.zeros((0, size, size, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(xs), np.array(ys, np.int64)


def train_head(feats: np.ndarray, labels: np.ndarray, classes: int, hidden: int = 512, epochs: int = 30,
               lr: float = 1e-3, decay: float = 0.01, dropout: float = 0.2, smoothing: float = 0.1,
               batch: int = 256, seed: int = 0) -> Head:
    """A two-layer head fitted by AdamW (decoupled weight decay `decay`) on minibatches,
    with dropout before each layer and label smoothing, from torch's default initialisation."""
    if len(feats) == 0:
        raise HeadError("no crops to train a head on")
    rng = np.random.default_rng(seed)
    mean = feats.mean(axis=0).astype(np.float32)
    scale = (feats.std(axis=0) + 1e-3).astype(np.float32)
    x = ((feats - mean) / scale).astype(np.float32)
    d = x.shape[1]
    params = [rng.uniform(-1, 1, (d, hidden)).astype(np.float32) / np.sqrt(d),
              rng.uniform(-1, 1, hidden).astype(np.float32) / np.sqrt(d),
              rng.uniform(-1, 1, (hidden, classes)).astype(np.float32) / np.sqrt(hidden),
              rng.uniform(-1, 1, classes).astype(np.float32) / np.sqrt(hidden)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    target = np.full((classes,), smoothing / classes, np.float32)
    keep = 1.0 - dropout
    step = 0
    for _ in range(epochs):
        for idx in np.array_split(rng.permutation(len(x)), max(1, -(-len(x) // batch))):
            w1, b1, w2, b2 = params
            xb = x[idx] * (rng.random((len(idx), d)) < keep) / keep
            h = np.maximum(xb @ w1 + b1, 0)
            mask = (rng.random(h.shape) < keep) / keep
            hd = h * mask
            p = softmax(hd @ w2 + b2)
            t = np.tile(target, (len(idx), 1))
            t[np.arange(len(idx)), labels[idx]] += 1.0 - smoothing
            g = (p - t) / len(idx)
            gh = (g @ w2.T) * mask * (h > 0)
            grads = [xb.T @ gh, gh.sum(axis=0), hd.T @ g, g.sum(axis=0)]
            step += 1
            for k, (param, grad) in enumerate(zip(params, grads, strict=True)):
                param *= 1 - lr * decay
                m[k] = 0.9 * m[k] + 0.1 * grad
                v[k] = 0.999 * v[k] + 0.001 * grad * grad
                param -= lr * (m[k] / (1 - 0.9**step)) / (np.sqrt(v[k] / (1 - 0.999**step)) + 1e-8)
    return Head(mean, scale, *params)


def merge(heads: list[Head]) -> Head:
    """One head whose logits are the mean of `heads`' logits (an ensemble): their hidden
    layers side by side, their last layers stacked and divided by their number. They must
    share the standardisation (`mean`, `scale`), as heads trained on the same features do."""
    if not heads:
        raise HeadError("no heads to merge")
    first = heads[0]
    if any(not (np.array_equal(h.mean, first.mean) and np.array_equal(h.scale, first.scale)) for h in heads):
        raise HeadError("heads trained on other features cannot be merged")
    k = np.float32(len(heads))
    return Head(first.mean, first.scale, np.concatenate([h.w1 for h in heads], axis=1),
                np.concatenate([h.b1 for h in heads]), np.concatenate([h.w2 for h in heads]) / k,
                sum(h.b2 for h in heads) / k)


def calibrate(head: Head, feats: np.ndarray, labels: np.ndarray) -> tuple[Head, float]:
    """`head` with its logits divided by the temperature (0.05 to 20) that gives the labelled
    `feats` the least log loss, and that temperature (1 without features). A head trained
    with dropout and label smoothing is less sure than it is right; the runtime's
    thresholds (a corner read again, a card flagged) expect probabilities that mean what
    they say."""
    if len(feats) == 0:
        return head, 1.0
    t = best_temperature(head.logits(feats), labels)
    return replace(head, w2=head.w2 / np.float32(t), b2=head.b2 / np.float32(t)), t


def attach(model_path: Path, head: Head, taps: tuple[Tap, ...], out_path: Path) -> None:
    """Write the model at `model_path` with `head` in place of its last layer, reading its
    pooled features and the maps `taps`; the standardisation is folded into the first
    layer, so the graph adds only plain operators (AveragePool, Flatten, Concat, Gemm, Relu)."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(model_path))
    g = model.graph
    gemm, soft, pooled, out = _graph_parts(model, taps)
    width = g.output[0].type.tensor_type.shape.dim[-1].dim_value
    if width and width != head.w2.shape[1]:
        raise HeadError(f"the head has {head.w2.shape[1]} classes but {model_path.name} outputs {width}")
    dropped = set(gemm.input[1:])
    g.node.remove(gemm)
    g.node.remove(soft)
    keep = [i for i in g.initializer if i.name not in dropped]
    del g.initializer[:]
    g.initializer.extend(keep)
    w1 = (head.w1 / head.scale[:, None]).astype(np.float32)
    b1 = (head.b1 - (head.mean / head.scale) @ head.w1).astype(np.float32)
    for name, arr in (("head.w1", w1), ("head.b1", b1), ("head.w2", head.w2.astype(np.float32)),
                      ("head.b2", head.b2.astype(np.float32))):
        g.initializer.append(numpy_helper.from_array(arr, name))
    g.node.extend([
        *_feature_nodes(pooled, taps),
        helper.make_node("Gemm", ["head/features", "head.w1", "head.b1"], ["head/hidden"]),
        helper.make_node("Relu", ["head/hidden"], ["head/relu"]),
        helper.make_node("Gemm", ["head/relu", "head.w2", "head.b2"], ["head/logits"]),
        helper.make_node("Softmax", ["head/logits"], [out], axis=1),
    ])
    onnx.checker.check_model(model)
    onnx.save(model, str(out_path))


def refit(task: str, models: Path, crops: Path, out: Path, epochs: int = EPOCHS, hidden: int = 512,
          seed: int = 0, members: int = MEMBERS) -> dict[str, Any]:
    """Fit a new head for one reader on the crops of a generated set (`crops`, with `cls/`
    and `index/`, as `datasets.adapt` reads them for `task`): `members` heads from other
    seeds, merged into one (`merge`), and write its model to `out`; the figures: crops,
    accuracy on the set's val crops before and after, seconds."""
    model_file, meta_file, taps = READERS[task]
    meta = json.loads((models / meta_file).read_text(encoding="utf-8"))
    names, size = [str(n) for n in meta["names"]], crop_side(meta, task)
    started = time.time()
    sess = tap_session(models / model_file, taps)
    x, y = load_crops(_by_class(crops, "train", task), names, size)
    xv, yv = load_crops(_by_class(crops, "val", task), names, size)
    import onnxruntime as ort

    base = ort.InferenceSession(str(models / model_file), providers=["CPUExecutionProvider"])
    before = _accuracy(base, xv, yv)
    feats = features(sess, x)
    head = merge([train_head(feats, y, len(names), hidden=hidden, epochs=epochs, seed=seed + 1000 * m)
                  for m in range(members)])
    head, temperature = calibrate(head, features(sess, xv), yv)
    attach(models / model_file, head, taps, out / model_file)
    after = _accuracy(ort.InferenceSession(str(out / model_file), providers=["CPUExecutionProvider"]), xv, yv)
    return {"train": len(y), "val": len(yv), "val_accuracy": {"before": before, "after": after},
            "head": repr(head), "temperature": temperature, "seconds": round(time.time() - started, 1)}


def _accuracy(sess: Any, crops: np.ndarray, labels: np.ndarray) -> float | None:
    """Top-1 accuracy of a classifier session on uint8 crops; None without crops."""
    if len(crops) == 0:
        return None
    return round(float((probabilities(sess, crops).argmax(axis=1) == labels).mean()), 4)


def heads(deck: Path, models: Path, out: Path, work: Path, scenes: int = SCENES, check: int = 20,
          epochs: int = EPOCHS, hidden: int = 512, seed: int = 0, workers: int = 2, progress: bool = True,
          members: int = MEMBERS) -> dict[str, Any]:
    """Render `scenes` showdowns of `deck`, fit new heads for the readers `models` has, and
    write `out` (the detector copied) with `ADAPTED.json` as `datasets.adapt` writes it
    (`"method": "heads"`): the recipe, and `check` more showdowns of the deck read before
    and after."""
    started = time.time()
    drawn = render_deck(deck, work, scenes, seed, workers)
    copy_models(models, out)
    report: dict[str, Any] = {"format": "mus-adapted/1", "method": "heads", "base_models": str(models),
                              "epochs": epochs, "hidden": hidden, "members": members, "seed": seed, "photos": {"adapt": 0, "check": 0},
                              "deck": {"folder": str(deck), "scenes": scenes}, "readers": {}}
    for task in READERS:
        if (models / READERS[task][0]).is_file():
            report["readers"][task] = refit(task, models, drawn, out, epochs, hidden, seed, members)
    if check > 0:
        report.update(check_on_deck(models, out, deck, check, seed, progress))
    report["minutes"] = round((time.time() - started) / 60, 1)
    (out / "ADAPTED.json").write_text(json.dumps(report, indent=1) + "\n")
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.heads", description=__doc__.split("\n")[0])
    p.add_argument("--deck", required=True, help="a deck enrolled with `datasets.enroll`")
    p.add_argument("--out", required=True, help="the folder for the models with new heads")
    p.add_argument("--models", default=str(ROOT / "models"), help="the models to start from (default: the shipped ones)")
    p.add_argument("--work", default=None, help="scratch folder for the rendered crops (default: OUT.work)")
    p.add_argument("--scenes", type=int, default=SCENES,
                   help=f"showdowns of the deck rendered to train on (default {SCENES})")
    p.add_argument("--check", type=int, default=20, help="showdowns of the deck rendered to measure (default 20; 0: none)")
    p.add_argument("--epochs", type=int, default=EPOCHS, help=f"passes over the crops per head (default {EPOCHS})")
    p.add_argument("--members", type=int, default=MEMBERS,
                   help=f"heads per reader, from other seeds, merged into one (default {MEMBERS})")
    p.add_argument("--hidden", type=int, default=512, help="hidden units per head (default 512)")
    p.add_argument("--workers", type=int, default=2, help="processes rendering the showdowns (default 2)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    deck, out, models = Path(args.deck), Path(args.out), Path(args.models)
    if not (deck / ENROLLED).is_file():
        print(f"heads: {deck}: not a deck enrolled with datasets.enroll (no {ENROLLED})", file=sys.stderr)
        return 2
    if out.resolve() == models.resolve():
        p.error("--out must be a new folder, not the models the heads start from")
    if min(args.scenes, args.epochs, args.hidden, args.members) < 1:
        p.error("--scenes, --epochs, --hidden and --members must be positive")
    work = Path(args.work) if args.work else out.with_name(out.name + ".work")
    report = heads(deck, models, out, work, args.scenes, args.check, args.epochs, args.hidden, args.seed, args.workers,
                   members=args.members)
    print(json.dumps(report, indent=1))
    if "check" in report:
        print(check_line(report), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

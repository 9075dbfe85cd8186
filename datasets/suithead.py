"""A suit head on the frozen features of a two-member cross-deck classifier, taught by many decks.

    python -m datasets.procedural --out runs/decks --n 32 --seed 501
    python -m datasets.generate --out runs/train --seed 9161 --n 0 --cls-scenes 1200 \\
        --crops-per-corner 1 --other-frac 0 --decks "$(ls -d runs/decks/p0* | paste -sd,),naipes-libres"
    python -m datasets.generate --out runs/fournier --seed 9160 --n 0 --cls-scenes 150 \\
        --crops-per-corner 1 --other-frac 0 --decks fournier-1878
    python -m datasets.suithead features --model models/cross-deck/cards-cls.onnx \\
        --crops runs/train/cls --out runs/train.npz
    python -m datasets.suithead features --model models/cross-deck/cards-cls.onnx \\
        --crops runs/fournier/cls --out runs/fournier.npz
    python -m datasets.suithead read --crops runs/fournier/cls MODEL.onnx...   # top-1, rank, suit by rank group
    python -m datasets.suithead fit --train runs/train.npz --test runs/fournier.npz \\
        --names models/cross-deck/cards-cls.json --seed 9161 --decks "<the same --decks>" \\
        --hold 4 --features maps --out runs/suit-head.npz [--reader runs/cards-suit.onnx \\
        --model models/cross-deck/cards-cls.onnx]

`datasets.heads` teaches a new head the deck it will read. This asks whether a head taught
by *other* decks (made-up ones, `datasets.procedural`, and the drawn deck) reads the suit of
a deck none of them is better than the classifier's own last layer does. The cross-deck
classifier is two ultralytics classifiers read as one (`datasets.ensemble.mean_graph`, their
tensors prefixed `a/` and `b/`); the head reads both members' 1,280 pooled features
(`--features pooled`) and, with `maps`, their stride-16 maps as well (`TAP`, 4x4 on a 64 px
corner; member b's averaged to 2x2), 8,704 features in all. `fit` trains a 4-class head
(`datasets.heads.train_head`, two seeds merged) on the corners of the 40 Mus cards (8s, 9s
and `other` left out) of every deck but the last `--hold` made-up ones, which fit its
temperature and are measured, and reports the suit read on those and on each `--test` set
three ways: (i) the classifier's suit marginal (its 48 cards' probabilities summed by suit),
(ii) the head, (iii) the product of the two, overall and by rank group (aces, 2-7, courts).
`--reader` writes the classifier with the head in place of its members' last layers as a
court suit reader (`cards-suit.onnx`, suits b, c, e, o, 64 px). Needs only numpy, onnx and
onnxruntime. Taught by 32 made-up decks and the drawn deck, no such head read Fournier 1878's
suits better than the classifier (`datasets/README.md`, the 2026-11-26 entry).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from datasets.heads import Head, calibrate, merge, train_head
from scorer.vision.pintas import suit_sums

SUITS = ("b", "c", "e", "o")
"""The head's classes, as the court suit reader names them."""
MEMBERS = ("a/", "b/")
POOLED = "/model.10/Flatten_output_0"
TAP = "/model.6/cv2/act/Mul_output_0"
POOL_B = 2
"""Member b's stride-16 map (512 channels) averaged over 2x2 squares: 2,048 features, as
member a's 256 channels give at 4x4 over 4,096."""
GROUPS = {"aces": ("1",), "2-7": ("2", "3", "4", "5", "6", "7"), "courts": ("10", "11", "12")}


FEATURES = {"a_pooled": "a/" + POOLED, "b_pooled": "b/" + POOLED, "a_map": "a/" + TAP, "b_map": "suithead/b_map"}
"""Each feature a head may read, by the merged classifier's tensor that holds it (`b_map`:
the node `_pool_b` adds)."""


def _pool_b() -> Any:
    """The node averaging member b's stride-16 map over `POOL_B` x `POOL_B` squares."""
    from onnx import helper

    return helper.make_node("AveragePool", ["b/" + TAP], [FEATURES["b_map"]],
                            kernel_shape=[POOL_B, POOL_B], strides=[POOL_B, POOL_B])


def feature_session(model_path: Path) -> Any:
    """An onnxruntime session of the merged classifier that outputs its probabilities, then
    each of `FEATURES` in order."""
    import onnx
    import onnxruntime as ort
    from onnx import helper

    model = onnx.load(str(model_path))
    model.graph.node.append(_pool_b())
    outputs = [model.graph.output[0].name, *FEATURES.values()]
    del model.graph.output[:]
    for t in outputs:
        model.graph.output.append(helper.make_tensor_value_info(t, onnx.TensorProto.FLOAT, None))
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def crop_files(root: Path) -> list[tuple[Path, str]]:
    """(file, card) for every crop of the 40 Mus cards under a classifier set's `cls/`
    (both splits), sorted."""
    out = []
    for f in sorted(root.glob("*/*/*.png")):
        card = f.parent.name
        if card != "other" and card[:-1] not in ("8", "9"):
            out.append((f, card))
    return out


def _batches(files: list[tuple[Path, str]], batch: int) -> Iterator[np.ndarray]:
    """The crops of `files`, `batch` at a time, as a classifier reads them: (n, 3, H, W)
    float32 in 0..1."""
    from PIL import Image

    for i in range(0, len(files), batch):
        x = np.stack([np.asarray(Image.open(f).convert("RGB")) for f, _ in files[i : i + batch]])
        yield x.transpose(0, 3, 1, 2).astype(np.float32) / 255.0


def extract(model_path: Path, root: Path, out: Path, batch: int = 256) -> dict[str, Any]:
    """Features of every Mus-card crop under `root` into `out` (.npz, float16): `probs`
    (N, 49), `a_pooled`, `b_pooled`, `a_map`, `b_map`; `cards` and `files` (names)."""
    started = time.time()
    sess = feature_session(model_path)
    keys = ["probs", *FEATURES]
    files = crop_files(root)
    parts: dict[str, list[np.ndarray]] = {k: [] for k in keys}
    for x in _batches(files, batch):
        outs = sess.run(None, {sess.get_inputs()[0].name: x})
        for k, o in zip(keys, outs, strict=True):
            parts[k].append(o.reshape(len(x), -1).astype(np.float16))
    arrays = {k: np.concatenate(v) for k, v in parts.items()}
    np.savez(out, **arrays, cards=np.array([c for _, c in files]), files=np.array([f.name for f, _ in files]))
    return {"crops": len(files), "seconds": round(time.time() - started, 1)}


FEATURE_SETS = {"pooled": ("a_pooled", "b_pooled"), "maps": ("a_pooled", "b_pooled", "a_map", "b_map")}
"""What a head reads: both members' pooled features, or those and their stride-16 maps."""


def load(path: Path, feature_set: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(features float32 (N, D), suit labels (N,), the classifier's probabilities (N, 49),
    card names (N,)) of a features file."""
    z = np.load(path)
    x = np.concatenate([z[k].astype(np.float32) for k in FEATURE_SETS[feature_set]], axis=1)
    cards = z["cards"]
    return x, np.array([SUITS.index(c[-1]) for c in cards], np.int64), z["probs"].astype(np.float32), cards


def suit_marginal(probs: np.ndarray, names: list[str]) -> np.ndarray:
    """The classifier's probabilities summed by suit over its card classes (`other` left
    out), renormalised: (N, 4) in `SUITS` order."""
    return suit_sums(probs, names, SUITS)


def decks_of(files: np.ndarray, seed: int, decks: list[str]) -> np.ndarray:
    """The deck each crop's scene was drawn from (`datasets.generate.scene_deck`)."""
    from datasets.generate import scene_deck

    deck = scene_deck(seed, decks)
    return np.array([deck(str(f)) for f in files])


def by_group(pred: np.ndarray, labels: np.ndarray, cards: np.ndarray) -> dict[str, Any]:
    """Suit accuracy overall and per rank group (`GROUPS`), with the crops counted."""
    ranks = np.array([c[:-1] for c in cards])
    out: dict[str, Any] = {"all": round(float((pred == labels).mean()), 4), "n": len(labels)}
    for g, rs in GROUPS.items():
        m = np.isin(ranks, rs)
        out[g] = round(float((pred[m] == labels[m]).mean()), 4) if m.any() else None
        out[f"n_{g}"] = int(m.sum())
    return out


def three_ways(head: Head, x: np.ndarray, y: np.ndarray, probs: np.ndarray, cards: np.ndarray,
               names: list[str]) -> dict[str, Any]:
    """Suit read (i) by the classifier's suit marginal, (ii) by the head, (iii) by their product."""
    pm, ph = suit_marginal(probs, names), head.predict(x)
    return {"classifier": by_group(pm.argmax(1), y, cards), "head": by_group(ph.argmax(1), y, cards),
            "product": by_group((pm * ph).argmax(1), y, cards)}


def fit(train: Path, tests: list[Path], names: list[str], seed: int, decks: list[str], hold: int,
        feature_set: str = "maps", epochs: int = 15, hidden: int = 512, members: int = 2) -> tuple[Head, dict[str, Any]]:
    """A suit head trained on the crops of `train` whose decks are not among the last
    `hold` made-up decks of `decks` (those measure it, and fit its temperature), merged from
    `members` seeds; the three ways measured on the held-out decks and on each of `tests`."""
    started = time.time()
    x, y, probs, cards = load(train, feature_set)
    held_decks = [d for d in decks if Path(d).name.startswith("p")][-hold:] if hold else []
    held = np.isin(decks_of(np.load(train)["files"], seed, decks), held_decks)
    heads = [train_head(x[~held], y[~held], len(SUITS), hidden=hidden, epochs=epochs, seed=1000 * m)
             for m in range(members)]
    head, temperature = calibrate(merge(heads), x[held], y[held])
    report: dict[str, Any] = {"features": feature_set, "dims": int(x.shape[1]), "train_crops": int((~held).sum()),
                              "held_decks": held_decks, "held_crops": int(held.sum()), "temperature": temperature}
    if held.any():
        report["held"] = three_ways(head, x[held], y[held], probs[held], cards[held], names)
    for t in tests:
        xt, yt, pt, ct = load(t, feature_set)
        report[t.stem] = three_ways(head, xt, yt, pt, ct, names)
    report["seconds"] = round(time.time() - started, 1)
    return head, report


def save_head(head: Head, path: Path) -> None:
    np.savez(path, mean=head.mean, scale=head.scale, w1=head.w1, b1=head.b1, w2=head.w2, b2=head.b2)


def load_head(path: Path) -> Head:
    z = np.load(path)
    return Head(z["mean"], z["scale"], z["w1"], z["b1"], z["w2"], z["b2"])


def suit_reader(model_path: Path, head: Head, feature_set: str, out: Path) -> None:
    """Write the merged classifier at `model_path` as a court suit reader: its input, the
    features `feature_set` the head was trained on, the head (standardisation folded into its
    first layer), and a softmax over `SUITS`; the members' last layers and their mean dropped."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(model_path))
    g = model.graph
    new = [_pool_b()]
    flat = []
    for k in FEATURE_SETS[feature_set]:
        flat.append(f"suithead/flat_{k}")
        new.append(helper.make_node("Flatten", [FEATURES[k]], [flat[-1]], axis=1))
    w1 = (head.w1 / head.scale[:, None]).astype(np.float32)
    b1 = (head.b1 - (head.mean / head.scale) @ head.w1).astype(np.float32)
    new += [helper.make_node("Concat", flat, ["suithead/features"], axis=1),
            helper.make_node("Gemm", ["suithead/features", "suithead.w1", "suithead.b1"], ["suithead/hidden"]),
            helper.make_node("Relu", ["suithead/hidden"], ["suithead/relu"]),
            helper.make_node("Gemm", ["suithead/relu", "suithead.w2", "suithead.b2"], ["suithead/logits"]),
            helper.make_node("Softmax", ["suithead/logits"], ["suits"], axis=1)]
    nodes = list(g.node) + new
    # keep only what the suit output needs
    producer = {o: n for n in nodes for o in n.output}
    needed, stack = set(), ["suits"]
    while stack:
        t = stack.pop()
        if t in needed:
            continue
        needed.add(t)
        if t in producer:
            stack.extend(i for i in producer[t].input if i)
    keep = [n for n in nodes if any(o in needed for o in n.output)]
    inits = [i for i in g.initializer if i.name in needed]
    del g.node[:]
    g.node.extend(keep)
    del g.initializer[:]
    g.initializer.extend(inits)
    for name, arr in (("suithead.w1", w1), ("suithead.b1", b1), ("suithead.w2", head.w2.astype(np.float32)),
                      ("suithead.b2", head.b2.astype(np.float32))):
        g.initializer.append(numpy_helper.from_array(arr, name))
    del g.output[:]
    g.output.append(helper.make_tensor_value_info("suits", onnx.TensorProto.FLOAT, ["batch", len(SUITS)]))
    vi = [v for v in g.value_info if v.name in needed]
    del g.value_info[:]
    g.value_info.extend(vi)
    onnx.checker.check_model(model)
    onnx.save(model, str(out))


def scores(preds: list[str], cards: list[str]) -> dict[str, Any]:
    """Top-1, rank right and suit right (shares) of card names read against the true ones,
    over all and per rank group (`GROUPS`), with the crops counted."""
    out: dict[str, Any] = {}
    for g, ranks in [("all", None), *GROUPS.items()]:
        idx = [k for k, c in enumerate(cards) if ranks is None or c[:-1] in ranks]
        n = max(1, len(idx))
        out[g] = {"top1": round(sum(preds[k] == cards[k] for k in idx) / n, 4),
                  "rank": round(sum(preds[k][:-1] == cards[k][:-1] for k in idx) / n, 4),
                  "suit": round(sum(preds[k][-1:] == cards[k][-1:] for k in idx) / n, 4), "n": len(idx)}
    return out


def read(model_path: Path, root: Path, batch: int = 256) -> dict[str, Any]:
    """`scores` of any corner classifier (an ONNX beside its json) on the Mus-card crops under
    a classifier set's `cls/`: how a candidate reads an unseen deck's corners, before an
    end-to-end run."""
    import onnxruntime as ort

    names = [str(n) for n in json.loads(model_path.with_suffix(".json").read_text())["names"]]
    sess = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    files = crop_files(root)
    preds: list[str] = []
    for x in _batches(files, batch):
        preds += [names[j] for j in sess.run(None, {sess.get_inputs()[0].name: x})[0].argmax(axis=1)]
    return scores(preds, [c for _, c in files])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.suithead", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("features", help="features of a classifier set's Mus-card crops")
    f.add_argument("--model", required=True, help="a two-member classifier (datasets.ensemble.mean_graph)")
    f.add_argument("--crops", required=True, help="a classifier set's cls/ folder")
    f.add_argument("--out", required=True, help="the .npz to write")
    r = sub.add_parser("read", help="top-1, rank and suit of classifiers on a set's Mus-card crops, by rank group")
    r.add_argument("--crops", required=True, help="a classifier set's cls/ folder")
    r.add_argument("models", nargs="+", help="corner classifiers (ONNX, each beside its json)")
    t = sub.add_parser("fit", help="train a suit head and measure it three ways")
    t.add_argument("--train", required=True, help="features of the training crops (`features`)")
    t.add_argument("--test", action="append", default=[], help="features of crops to measure on (repeatable)")
    t.add_argument("--names", required=True, help="the classifier's json (its class names)")
    t.add_argument("--seed", type=int, required=True, help="the seed the training crops were generated with")
    t.add_argument("--decks", required=True, help="the --decks they were generated with")
    t.add_argument("--hold", type=int, default=4, help="made-up decks held out to measure and calibrate (default 4)")
    t.add_argument("--features", choices=sorted(FEATURE_SETS), default="maps")
    t.add_argument("--epochs", type=int, default=15)
    t.add_argument("--hidden", type=int, default=512)
    t.add_argument("--members", type=int, default=2)
    t.add_argument("--out", help="write the head here (.npz)")
    t.add_argument("--reader", help="also write the classifier with the head as a court suit reader (.onnx)")
    t.add_argument("--model", help="the classifier, for --reader")
    a = p.parse_args(argv)
    if a.cmd == "features":
        print(json.dumps(extract(Path(a.model), Path(a.crops), Path(a.out))))
        return 0
    if a.cmd == "read":
        for m in a.models:
            print(json.dumps({"model": m, **read(Path(m), Path(a.crops))}))
        return 0
    if a.reader and not a.model:  # before the fit, not after it
        p.error("--reader needs --model")
    names = [str(n) for n in json.loads(Path(a.names).read_text())["names"]]
    head, report = fit(Path(a.train), [Path(x) for x in a.test], names, a.seed, [d for d in a.decks.split(",") if d],
                       a.hold, a.features, a.epochs, a.hidden, a.members)
    print(json.dumps(report, indent=1))
    if a.out:
        save_head(head, Path(a.out))
    if a.reader:
        suit_reader(Path(a.model), head, a.features, Path(a.reader))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

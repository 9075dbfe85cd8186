"""Adapt the card readers to a club's own deck, from its showdown photos labelled at the table.

    mus-scorer export-photos photos/
    python -m datasets.adapt photos/ --out models-club [--models models] [--time 0.1]
    MUS_MODEL_DIR=models-club bash scripts/run.sh

or from the deck itself, photographed laid out (`datasets.enroll`), before any game:

    python -m datasets.enroll oros.jpg copas.jpg espadas.jpg bastos.jpg --out decks/club
    python -m datasets.adapt --deck decks/club --out models-club

1. The photos are split by a hash of their names: most adapt the readers, a share
   (`--check`) is held out to measure them.
2. Both parts are harvested (`datasets.harvest`): every card whose name the settled
   hands make certain gives its corner crops and numeral crops.
3. A replay set of synthetic crops of the shipped decks (`datasets.generate`, or `--replay`
   given) keeps the readers from forgetting what they knew.
4. The classifier, the rank reader and the court suit reader are each rebuilt from their
   ONNX (`datasets.train unfuse`), fine-tuned for `--time` hours on the harvested crops
   (repeated `--repeat` times) and the replay, and exported from their last weights.
5. Each tuned reader's calibration temperature is fitted on its val crops (fine-tuning
   leaves it surer than it is right).
6. `--out` gets the shipped models with the tuned ones in their place (the json files keep
   the readers' weights and get the new temperatures) and `ADAPTED.json`, the recipe and
   the figures: the held-out photos read with the models before and after.

The scratch folder (`--work`, default `OUT.work` beside `--out`) keeps the harvest, the
replay set (reused by the next run) and the training runs; delete it when done.

Needs the train extra (torch, ultralytics).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from datasets.evaluate_photos import LabelError, evaluate_photos, load_labels
from datasets.harvest import _split, harvest
from datasets.render import ENROLLED

ROOT = Path(__file__).resolve().parents[1]
READERS = {"cls": ("cards-cls.onnx", "cards-cls.json"),
           "index": ("cards-index.onnx", "cards-index.json"),
           "suit": ("cards-suit.onnx", "cards-suit.json")}
"""Task -> (model file, json file)."""


def split_photos(labels: list[dict[str, Any]], check: float) -> tuple[list[dict], list[dict]]:
    """(adapt, check): each photo by a hash of its image's name, the same on every run and
    the same split `harvest` makes with `val=check`."""
    adapt, held = [], []
    for label in labels:
        (held if _split(Path(label["image"]).stem, check) == "val" else adapt).append(label)
    if labels and not adapt:
        adapt, held = held, []
    return adapt, held


def _by_class(src: Path, split: str, task: str) -> dict[str, list[Path]]:
    """The crops of a harvest or replay split for one reader, by its class: the numeral
    crops by rank (`index/`), the corner crops by card (`cls/`), or the court cards' corner
    crops by suit (`suit`)."""
    from scorer.vision.model import COURT_RANKS

    kind = "index" if task == "index" else "cls"
    out: dict[str, list[Path]] = {}
    root = src / kind / split
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        if task == "suit":
            if folder.name[:-1] in COURT_RANKS:
                out.setdefault(folder.name[-1], []).extend(sorted(folder.iterdir()))
        else:
            out.setdefault(folder.name, []).extend(sorted(folder.iterdir()))
    return out


def _link(crops: dict[str, list[Path]], dst: Path, repeat: int, prefix: str) -> int:
    """Hard-link (or copy) each crop into `dst/<class>/`, `repeat` times; how many."""
    n = 0
    for name, files in crops.items():
        (dst / name).mkdir(parents=True, exist_ok=True)
        for f in files:
            for r in range(repeat):
                target = dst / name / f"{prefix}{r}_{f.parent.name}_{f.name}"
                try:
                    os.link(f, target)
                except OSError:
                    shutil.copyfile(f, target)
                n += 1
    return n


def training_set(task: str, names: list[str], harvested: Path, replay: Path | None, out: Path,
                 repeat: int, deck: Path | None = None) -> dict[str, int]:
    """`out/{train,val}/<class>/` for one reader: the harvested crops `repeat` times, the
    crops rendered from an enrolled deck (`deck`, a generated set) and the replay's crops in
    train, the held-out photos' crops in val (else the deck set's val, else the harvested
    ones), and an empty folder for each class of the model that has no crop, so that the
    model keeps its outputs."""
    for split in ("train", "val"):
        for name in names:
            (out / split / name).mkdir(parents=True, exist_ok=True)
    known = set(names)

    def crops(src: Path | None, split: str) -> dict[str, list[Path]]:
        """The classes of this model that have crops in `src`'s `split`."""
        return {k: v for k, v in _by_class(src, split, task).items() if k in known and v} if src else {}

    train, check, drawn = crops(harvested, "train"), crops(harvested, "val"), crops(deck, "train")
    counts = {"harvested": _link(train, out / "train", repeat, "h"),
              "deck": _link(drawn, out / "train", 1, "d"),
              "check": _link(check or crops(deck, "val") or drawn or train, out / "val", 1, "c")}
    counts["replay"] = 0
    if replay is not None:
        counts["replay"] = _link(crops(replay, "train"), out / "train", 1, "s")
    return counts


def best_temperature(z: np.ndarray, labels: np.ndarray) -> float:
    """The temperature (0.05 to 20, on a log grid) that gives the logits `z` (N, C) of the
    labelled rows the least log loss; 1 without rows."""
    if len(labels) == 0:
        return 1.0
    z = z - z.max(axis=1, keepdims=True)

    def loss(t: float) -> float:
        zt = z / t
        return float((np.log(np.exp(zt).sum(axis=1)) - zt[np.arange(len(labels)), labels]).mean())

    return round(float(min(np.geomspace(0.05, 20, 131), key=loss)), 3)


def fit_temperature(model: Path, val: Path, names: list[str], size: int) -> float:
    """The calibration temperature of the ONNX reader `model` (softmax out) on the crops in
    `val/<class>/`: fine-tuning leaves a reader surer than it is right, and the runtime's
    thresholds (a corner read again, a card flagged) expect probabilities that mean what
    they say. 1 without crops."""
    from datasets.heads import load_crops

    files = {n: sorted((val / n).iterdir()) for n in names if (val / n).is_dir()}
    return temperature_on(model, *load_crops(files, names, size))


def temperature_on(model: Path, x: np.ndarray, y: np.ndarray) -> float:
    """The calibration temperature of the ONNX reader `model` on uint8 crops `x` (N, s, s,
    3) of the classes `y` (N,); 1 without crops."""
    import onnxruntime as ort

    if len(y) == 0:
        return 1.0
    p = probabilities(ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]), x)
    return best_temperature(np.log(np.maximum(p, 1e-12)), y)


def probabilities(sess: Any, crops: np.ndarray, batch: int = 256) -> np.ndarray:
    """A classifier session's output (N, C) for uint8 crops (N, s, s, 3), `batch` at a time."""
    name = sess.get_inputs()[0].name
    out = [sess.run(None, {name: crops[i : i + batch].transpose(0, 3, 1, 2).astype(np.float32) / 255.0})[0]
           for i in range(0, len(crops), batch)]
    return np.concatenate(out)


def _names(models: Path, task: str) -> list[str]:
    return json.loads((models / READERS[task][1]).read_text())["names"]


def adapt(labels: list[dict[str, Any]], models: Path, out: Path, work: Path, hours: float = 0.1,
          repeat: int = 4, check: float = 0.25, replay: Path | None = None, replay_scenes: int = 150,
          tasks: tuple[str, ...] = ("cls", "index", "suit"), seed: int = 0, batch: int = 64,
          device: str = "cpu", progress: bool = True, deck: Path | None = None, deck_scenes: int = 400,
          deck_check: int = 20) -> dict[str, Any]:
    """Run the whole recipe (see the module's doc); the report written to `out/ADAPTED.json`.
    With `deck` (a folder of `datasets.enroll`), `deck_scenes` showdowns of it are rendered
    and cut into crops for training, and without held-out photos `deck_check` more of
    them measure the models before and after."""
    from datasets.train import export, unfuse
    from datasets.train import main as train_main
    from scorer.vision import Recognizer

    started = time.time()
    work.mkdir(parents=True, exist_ok=True)
    adapt_photos, held = split_photos(labels, check)
    base = Recognizer(models)
    harvested = work / "harvested"  # {cls,index}/train: the adapt photos' crops, /val: the held-out ones'
    shutil.rmtree(harvested, ignore_errors=True)
    # harvest splits the photos by the same hash as split_photos; nothing in val if none is held out
    counts = harvest(base, labels, harvested, val=check if held else 0.0, progress=progress) if labels else {}
    drawn = render_deck(deck, work, deck_scenes, seed) if deck is not None else None
    if replay is None and replay_scenes > 0:
        replay = work / "replay"
        if not (replay / "cls").is_dir():
            rc = generate_set(["--out", str(replay), "--seed", str(9900 + seed), "--n", "0", "--cls-scenes", str(replay_scenes),
                           "--crops", "both", "--restyle", "0.3", "--val-frac", "0", "--workers", "2"])
            if rc:
                raise SystemExit(f"adapt: generating the replay set failed ({rc})")
    copy_models(models, out)
    tuned: dict[str, Any] = {}
    for task in tasks:
        model_file, meta_file = READERS[task]
        if not (models / model_file).is_file():
            continue
        data = work / f"data-{task}"
        shutil.rmtree(data, ignore_errors=True)
        sizes = training_set(task, _names(models, task), harvested, replay, data, repeat, drawn)
        if not sizes["harvested"] + sizes["deck"]:
            tuned[task] = {"skipped": "no crops harvested", **sizes}
            continue
        pt = unfuse(task, models / model_file, work / "unfused" / f"{task}.pt")
        name = f"adapt-{task}"
        shutil.rmtree(work / "runs" / task / name, ignore_errors=True)
        argv = [task, "--data", str(data), "--init", str(pt), "--time", str(hours), "--batch", str(batch),
                "--workers", "1", "--optimizer", "AdamW", "--lr0", "0.0005", "--warmup", "0", "--seed", str(seed),
                "--device", device, "--hsv", "0.05,0.8,0.5", "--project", str(work / "runs"), "--name", name,
                "--out", str(work / "export-best")]
        if train_main(argv):
            raise SystemExit(f"adapt: training {task} failed")
        last = work / "runs" / task / name / "weights" / "last.pt"
        exported = export(task, last, work / "export" / task)
        shutil.copyfile(exported, out / model_file)
        meta = json.loads((models / meta_file).read_text())
        new = json.loads((work / "export" / task / meta_file).read_text())
        if new["names"] != meta["names"]:
            raise SystemExit(f"adapt: the tuned {task} names {new['names']} differ from {meta['names']}")
        # the reader's weight kept, its temperature fitted anew on the val crops
        meta["temperature"] = fit_temperature(out / model_file, data / "val", new["names"], int(new["imgsz"]))
        (out / meta_file).write_text(json.dumps(meta, indent=1) + "\n")
        tuned[task] = {**sizes, "temperature": meta["temperature"]}
    report: dict[str, Any] = {
        "format": "mus-adapted/1", "base_models": str(models), "hours_per_reader": hours, "repeat": repeat,
        "seed": seed, "photos": {"adapt": len(adapt_photos), "check": len(held)}, "harvest": counts,
        "readers": tuned, "replay": str(replay) if replay else None,
        "deck": {"folder": str(deck), "scenes": deck_scenes} if deck else None,
    }
    if held:
        before = evaluate_photos(base, held)
        after = evaluate_photos(Recognizer(out), held)
        keys = ("photos", "full", "seated", "named", "wrong", "wrong_flagged", "f1", "ms_median")
        report["check"] = {"before": {k: before[k] for k in keys}, "after": {k: after[k] for k in keys}}
        report["verdict"] = verdict(report["check"]["before"], report["check"]["after"])
    elif deck is not None and deck_check > 0:
        report.update(check_on_deck(models, out, deck, deck_check, seed, progress))
    report["minutes"] = round((time.time() - started) / 60, 1)
    (out / "ADAPTED.json").write_text(json.dumps(report, indent=1) + "\n")
    return report


def copy_models(models: Path, out: Path) -> None:
    """Every model and json file of `models` copied into `out`, the folder the tuned ones
    then replace theirs in."""
    out.mkdir(parents=True, exist_ok=True)
    for f in models.iterdir():
        if f.suffix in (".onnx", ".json") and f.is_file():
            shutil.copyfile(f, out / f.name)


def check_on_deck(models: Path, out: Path, deck: Path, n: int, seed: int, progress: bool) -> dict[str, Any]:
    """The report's `check` and `verdict`: `n` showdowns of an enrolled deck read with the
    models before (`models`) and after (`out`)."""
    check = {"showdowns of the deck": n, "before": deck_figures(models, deck, n, seed, progress),
             "after": deck_figures(out, deck, n, seed, progress)}
    return {"check": check, "verdict": verdict(check["before"], check["after"])}


def check_line(report: dict[str, Any]) -> str:
    """What a report's check says in a line: the showdowns fully right and the cards in
    their seat, before and after, and the verdict."""
    b, a = report["check"]["before"], report["check"]["after"]
    n = b["photos"]
    what = "held-out photos" if report["photos"]["check"] else "synthetic showdowns of the deck"
    return (f"{what}: {n}; fully right {b['full']} -> {a['full']}, cards in their seat "
            f"{b['seated']} -> {a['seated']} of {16 * n}: {report['verdict'].upper()}"
            + ("; keep the models you had" if report["verdict"] == "worse" else ""))


def render_deck(deck: Path, work: Path, scenes: int, seed: int, workers: int = 2) -> Path:
    """`work/deck`: `scenes` showdowns of an enrolled deck cut into crops (`datasets.generate`,
    seed 9800 + `seed`, a tenth in val), reused when it was rendered from the same deck,
    scenes and seed (`datasets.heads` and this module share it)."""
    drawn, made = work / "deck", f"{deck.resolve()} {scenes} {9800 + seed}\n"
    done = drawn / "done"  # what the set was rendered from
    if not done.is_file() or done.read_text() != made:
        shutil.rmtree(drawn, ignore_errors=True)
        rc = generate_set(["--out", str(drawn), "--seed", str(9800 + seed), "--n", "0", "--cls-scenes", str(scenes),
                           "--crops", "both", "--decks", str(deck.resolve()), "--val-frac", "0.1",
                           "--workers", str(workers)])
        if rc:
            raise SystemExit(f"rendering the deck {deck} failed ({rc})")
        done.write_text(made)
    return drawn


def generate_set(argv: list[str]) -> int:
    """`datasets.generate` (imported late: it is only needed to render)."""
    from datasets.generate import main as generate

    return generate(argv)


def deck_figures(models: Path, deck: Path, n: int, seed: int, progress: bool) -> dict[str, Any]:
    """`n` synthetic showdowns of an enrolled deck read with `models` (seed apart from the
    training scenes'), in the keys of `evaluate_photos`."""
    from datasets.evaluate import evaluate

    r = evaluate(models, n, 9850 + seed, (str(deck.resolve()),), (1600, 1200), truth_classifier=False,
                 progress=progress)
    return {"photos": n, "full": round(r["showdowns_fully_right"] * n), "seated": round(r["cards_right_in_seat"] * 16 * n),
            "named": round(r["cards_read_right"] * 16 * n), "f1": round(r["micro"]["f1"], 4),
            "ms_median": round(r["ms_per_photo"].get("median", 0.0))}


def verdict(before: dict[str, Any], after: dict[str, Any]) -> str:
    """`better`, `same` or `worse`: the held-out photos fully right, then cards in their seat."""
    b, a = (before["full"], before["seated"]), (after["full"], after["seated"])
    return "better" if a > b else "worse" if a < b else "same"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.adapt", description=__doc__.split("\n")[0])
    p.add_argument("folder", metavar="DIR", nargs="?", help="a folder written by `mus-scorer export-photos`")
    p.add_argument("--deck", help="a deck enrolled with `datasets.enroll`: its showdowns rendered to train on "
                   "(with DIR, or alone)")
    p.add_argument("--deck-scenes", type=int, default=400, help="showdowns of --deck rendered for training (default 400)")
    p.add_argument("--deck-check", type=int, default=20,
                   help="showdowns of --deck rendered to measure, where no photo is held out (default 20; 0: none)")
    p.add_argument("--out", required=True, help="the folder for the adapted models")
    p.add_argument("--models", default=str(ROOT / "models"), help="the models to adapt (default: the shipped ones)")
    p.add_argument("--work", default=None, help="scratch folder (default: OUT.work beside OUT)")
    p.add_argument("--time", type=float, default=0.1, help="hours of training per reader (default 0.1)")
    p.add_argument("--repeat", type=int, default=4, help="times each harvested crop is shown per epoch (default 4)")
    p.add_argument("--check", type=float, default=0.25, help="share of the photos held out to measure (default 0.25)")
    p.add_argument("--replay", default=None, help="a generated set (with cls/ and index/) instead of a new one")
    p.add_argument("--replay-scenes", type=int, default=150, help="scenes of a new replay set (0: none)")
    p.add_argument("--readers", default="cls,index,suit", help="which readers to tune (default cls,index,suit)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if not 0 <= args.check < 1 or args.time <= 0 or args.repeat < 1:
        p.error("--check must lie in [0, 1), --time be positive and --repeat at least 1")
    if Path(args.out).resolve() == Path(args.models).resolve():
        p.error("--out must be a new folder, not the models being adapted")
    tasks = tuple(t for t in args.readers.split(",") if t)
    if not tasks or any(t not in READERS for t in tasks):
        p.error(f"--readers: expected some of cls,index,suit, got {args.readers!r}")
    if not args.folder and not args.deck:
        p.error("give a folder of labelled photos (DIR), an enrolled deck (--deck), or both")
    if args.deck and not (Path(args.deck) / ENROLLED).is_file():
        print(f"adapt: {args.deck}: not a deck enrolled with datasets.enroll (no {ENROLLED})", file=sys.stderr)
        return 2
    labels: list[dict[str, Any]] = []
    if args.folder:
        try:
            labels = load_labels(Path(args.folder))
        except LabelError as exc:
            print(f"adapt: {exc}", file=sys.stderr)
            return 2
        if not labels:
            print(f"adapt: {args.folder}: no labelled photos", file=sys.stderr)
            return 2
    out = Path(args.out)
    work = Path(args.work) if args.work else out.with_name(out.name + ".work")
    report = adapt(labels, Path(args.models), out, work, args.time, args.repeat, args.check,
                   Path(args.replay) if args.replay else None, args.replay_scenes, tasks, args.seed,
                   device=args.device, deck=Path(args.deck) if args.deck else None, deck_scenes=args.deck_scenes,
                   deck_check=args.deck_check)
    print(json.dumps({k: v for k, v in report.items() if k != "harvest"}, indent=1))
    if "check" in report:
        print(check_line(report), file=sys.stderr)
    else:
        print("nothing was held out (--check 0, --deck-check 0): the adapted models are not measured", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

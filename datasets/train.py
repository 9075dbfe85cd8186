"""Train the card detector or the corner classifier offline (on the CPU, or a GPU with --device 0), and export ONNX.

    python -m datasets.train det --data datasets/out/main/det.yaml --epochs 30 [--time 0.8] [--resume]
    python -m datasets.train cls --data datasets/out/main/cls --epochs 20 [--resume]
    python -m datasets.train index --data datasets/out/main/index --epochs 10 [--resume]
    python -m datasets.train suit --data datasets/out/courts/suit --epochs 10 [--resume]
    python -m datasets.train export det|cls|index --weights runs/det/main/weights/last.pt --out /work/models-shared
    python -m datasets.train unfuse index --weights models/cards-index.onnx --out runs/unfused/index.pt

Models are built from `yolo11n.yaml` / `yolo11n-cls.yaml` (never downloaded weights);
ultralytics is kept offline (`YOLO_OFFLINE`, no auto-install, a local font, and any download
it would start is an error: a missing `--data`, `--init` or `--weights` is refused before
ultralytics sees it). Every epoch writes `runs/<task>/<name>/weights/last.pt`, so `--resume`
carries on after an interruption (Ctrl-C, a crash, a killed job). A run that ended, its
`--epochs` done or its `--time` up, is finished: ultralytics strips the optimizer from its
`last.pt`, and `--resume` refuses it (train a new `--name`, or from it with `--init`).
At the end the best weights are exported to ONNX (opset 17, plain head: det output
`(1, 6, N)`, cls output `(1, C)`) into `--out` as `cards-det.onnx`, `cards-cls.onnx` +
`cards-cls.json` (the class names in the model's output order), or, for the rank reader
(`index`, a classifier of numeral crops), `cards-index.onnx` + `cards-index.json`, or, for
the court suit reader (`suit`, a classifier of the court cards' corner crops by suit),
`cards-suit.onnx` + `cards-suit.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPSET = 17
DET_IMGSZ = 320
CLS_IMGSZ = 64
INDEX_IMGSZ = 32
IMGSZ = {"det": DET_IMGSZ, "cls": CLS_IMGSZ, "index": INDEX_IMGSZ, "suit": CLS_IMGSZ}
"""Each model's input size (a classifier's json may say otherwise)."""
HALF_SUFFIX = "_f16"
"""How a weight stored in half precision is named (`datasets.fasttrain halve`): its float
name is the output of the `Cast` that reads it."""
FILES = {"det": ("cards-det.onnx", None), "cls": ("cards-cls.onnx", "cards-cls.json"),
         "index": ("cards-index.onnx", "cards-index.json"), "suit": ("cards-suit.onnx", "cards-suit.json")}


def offline_env(config_dir: Path | None = None) -> Path:
    """Point ultralytics (and matplotlib) at a local, writable config with a font; no network."""
    cfg = Path(config_dir or os.environ.get("YOLO_CONFIG_DIR") or ROOT / "runs" / "yolo-config")
    cfg.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_CONFIG_DIR"] = str(cfg)
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    os.environ.setdefault("MPLCONFIGDIR", str(cfg / "mpl"))
    font = cfg / "Arial.ttf"
    if not font.exists():
        import matplotlib

        src = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
        shutil.copyfile(src, font)
    return cfg


def _forbid_downloads() -> None:
    """Make every download ultralytics would start an error: this project never reaches the
    network. Its downloads all go through `download` (which makes its folder first, under
    ultralytics' datasets folder), `safe_download` or the GitHub asset list, which some of
    its modules bind by name, so each bound copy is replaced."""
    from ultralytics.utils import downloads

    def refuse(*args, **kwargs):
        what = kwargs.get("url") or (args[0] if args else "a file")
        raise RuntimeError(f"ultralytics tried to download {what}; this project never reaches the network "
                           "(is a --data, --init or --weights path missing?)")

    refuse.refuses = True  # type: ignore[attr-defined]
    for name in ("download", "safe_download", "get_github_assets"):
        original = getattr(downloads, name)
        if getattr(original, "refuses", False):
            continue
        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith("ultralytics") and getattr(module, name, None) is original:
                setattr(module, name, refuse)


def _yolo():
    """ultralytics' `YOLO`, offline (`offline_env`) and unable to download."""
    offline_env()
    from ultralytics import YOLO

    _forbid_downloads()
    return YOLO


def resume_problem(run_dir: Path, data: str | None) -> str | None:
    """Why `--resume` of the run in `run_dir` cannot go on, in one line, or None when it can
    (or, with no checkpoint, when `data` starts the run afresh). As ultralytics decides it
    (`Model.train`, `BaseTrainer.resume_training`): a `last.pt` resumes while it keeps its
    optimizer and an epoch >= 0 below its run's epochs. A run that ended, its epochs done or
    its `--time` up (ultralytics then stops it like a finished one), has its optimizer
    stripped and its epoch set to -1; ultralytics would start a fresh run on its own
    defaults (ImageNet, downloaded) in its place."""
    name = run_dir.name
    last = run_dir / "weights" / "last.pt"
    if not last.exists():
        if data:
            return None
        return (f"--resume: run {name} has no checkpoint to resume ({last} does not exist), "
                "and no --data to start it from")
    offline_env()
    import torch

    try:
        ckpt = torch.load(last, map_location="cpu", weights_only=False)
    except Exception as e:  # noqa: BLE001 - any unreadable file is refused the same way
        return f"--resume: cannot read {last}: {type(e).__name__}: {e}"
    if not isinstance(ckpt, dict):
        return f"--resume: {last} is not an ultralytics checkpoint"
    train_args = ckpt.get("train_args") or {}
    epochs = train_args.get("epochs")
    results = ckpt.get("train_results") or {}
    done = len(results.get("epoch") or ()) or epochs
    epoch = ckpt.get("epoch", -1)
    epoch = -1 if epoch is None else int(epoch)
    if epoch < 0 or ckpt.get("optimizer") is None or (epochs is not None and epoch + 1 >= int(epochs)):
        fresh = f"start a new --name, or train from it with --init {last}"
        if train_args.get("time"):
            return (f"--resume: run {name} stopped at its --time limit ({train_args['time']} h) after {done} "
                    f"epochs, which ends a run as finished: nothing to resume; {fresh}")
        return f"--resume: run {name} finished all its {epochs} epochs: nothing to resume; {fresh}"
    if not data:
        was = train_args.get("data")
        if not was or not Path(was).exists():
            return (f"--resume: run {name} was trained on {was or 'no recorded data'}, which is not there now; "
                    "pass --data to point at it")
    return None


def _common(args: argparse.Namespace) -> dict:
    kw = {
        "epochs": args.epochs,
        "batch": args.batch,
        "device": args.device,
        "workers": args.workers,
        "cache": args.cache or False,
        "project": str(Path(args.project).resolve()),
        "name": args.name,
        "exist_ok": True,
        "amp": False,
        "plots": False,
        "patience": 0,
        "seed": args.seed,
        "verbose": False,
    }
    if args.time:
        kw["time"] = args.time
    if args.optimizer:
        kw["optimizer"] = args.optimizer
        kw["lr0"] = args.lr0
    if args.warmup is not None:
        kw["warmup_epochs"] = args.warmup
    return kw


def train(task: str, args: argparse.Namespace) -> Path:
    """Train (or resume) and return the best weights. `--resume` is checked first
    (`resume_problem`)."""
    YOLO = _yolo()  # noqa: N806 - ultralytics' class

    run_dir = Path(args.project) / args.name
    last = run_dir / "weights" / "last.pt"
    if args.resume and last.exists():
        if args.data:
            YOLO(str(last)).train(resume=True, data=str(Path(args.data).resolve()))
        else:
            YOLO(str(last)).train(resume=True)
    elif task == "det":
        YOLO(args.init or "yolo11n.yaml").train(
            data=str(Path(args.data).resolve()),
            imgsz=args.imgsz or DET_IMGSZ,
            mosaic=0.0,
            close_mosaic=0,
            fliplr=0.0,
            degrees=0.0,
            scale=0.3,
            translate=0.1,
            hsv_h=0.01,
            **_common(args),
        )
    else:
        YOLO(args.init or "yolo11n-cls.yaml").train(
            data=str(Path(args.data).resolve()),
            imgsz=args.imgsz or IMGSZ[task],
            fliplr=0.0,
            scale=0.1,
            erasing=args.erasing,
            dropout=args.dropout,
            auto_augment=args.augment or None,
            hsv_h=args.hsv[0],
            hsv_s=args.hsv[1],
            hsv_v=args.hsv[2],
            **_common(args),
        )
    best = run_dir / "weights" / "best.pt"
    return best if best.exists() else last


def export(task: str, weights: Path, out: Path, imgsz: int | None = None, temperature: float = 1.0) -> Path:
    """Export `weights` to ONNX into `out` under the name the runtime expects (for the
    classifiers, with the class names and the calibration `temperature` in a json beside)."""
    YOLO = _yolo()  # noqa: N806 - ultralytics' class

    model = YOLO(str(weights))
    size = imgsz or IMGSZ[task]
    onnx = Path(model.export(format="onnx", opset=OPSET, imgsz=size, simplify=True, dynamic=task != "det", nms=False))
    out.mkdir(parents=True, exist_ok=True)
    name, meta_name = FILES[task]
    dest = out / name
    shutil.copyfile(onnx, dest)
    if meta_name:
        names = [model.names[i] for i in range(len(model.names))]
        meta: dict = {"names": names, "imgsz": size}
        if temperature != 1.0:
            meta["temperature"] = temperature
        (out / meta_name).write_text(json.dumps(meta, indent=1) + "\n")
    print(f"exported {dest} ({dest.stat().st_size / 1e6:.1f} MB)")
    return dest


def unfuse(task: str, onnx_path: Path, out: Path) -> Path:
    """A trainable ultralytics checkpoint (`out`, a `.pt`) rebuilt from a shipped ONNX (the
    detector, the classifier or a reader), for `--init`: fine-tune the shipped model without
    its training run. Export fused each batch norm into its convolution; here the
    convolution takes the fused weights and the batch norm becomes the identity plus the
    fused bias, so the checkpoint computes what the ONNX does (checked on random input)."""
    import onnx

    if task not in FILES:
        raise SystemExit(f"unfuse: {task!r}: expected one of {', '.join(FILES)}")
    graph = onnx.load(str(onnx_path)).graph
    if {"mean/wa", "mean/wb"} <= {i.name for i in graph.initializer}:
        raise SystemExit(f"unfuse: {onnx_path} is two readers read as one (datasets.ensemble.mean_graph): "
                         "split it first (python -m datasets.ensemble split FOLDER --out DIR) and start from "
                         "DIR/a or DIR/b")
    offline_env()
    import numpy as np
    import onnxruntime as ort
    import torch
    from onnx import numpy_helper
    from ultralytics import __version__
    from ultralytics.nn.tasks import ClassificationModel, DetectionModel

    # weights stored in half precision (`datasets.fasttrain halve`) are read back as float
    inits = {}
    for i in graph.initializer:
        arr = numpy_helper.to_array(i)
        name = i.name.removesuffix(HALF_SUFFIX) if arr.dtype == np.float16 else i.name
        inits[name] = arr.astype(np.float32) if arr.dtype == np.float16 else arr
    if task == "det":
        names, size, kind = ["card", "corner"], DET_IMGSZ, "detect"
        model = DetectionModel("yolo11n.yaml", nc=len(names), verbose=False)
    else:
        meta = json.loads((onnx_path.parent / FILES[task][1]).read_text())
        names, kind = meta["names"], "classify"
        size = int(meta.get("imgsz", IMGSZ[task]))
        # the model's size (yolo11n-cls is shipped; the cross-deck models are yolo11s-cls): the
        # first one whose first convolution has the ONNX's shape
        first = inits.get("model.0.conv.weight")
        for scale in "nsml":
            model = ClassificationModel(f"yolo11{scale}-cls.yaml", nc=len(names), verbose=False)
            if first is None or tuple(model.state_dict()["model.0.conv.weight"].shape) == first.shape:
                break
    state, used = model.state_dict(), set()
    for key, value in state.items():
        base, _, leaf = key.rpartition(".")
        module, _, layer = base.rpartition(".")
        if layer == "bn" and leaf in ("weight", "bias", "running_mean", "running_var"):
            bn = model.get_submodule(base)
            src = {"weight": np.ones(value.shape), "running_mean": np.zeros(value.shape),
                   "running_var": np.full(value.shape, 1.0 - bn.eps)}.get(leaf)
            if src is None:
                src = inits[f"{module}.conv.bias"]
                used.add(f"{module}.conv.bias")
        elif leaf == "num_batches_tracked":
            continue
        elif key in inits:
            src = inits[key]
            used.add(key)
        else:
            raise SystemExit(f"unfuse: {onnx_path} has no weights for {key}")
        if tuple(src.shape) != tuple(value.shape):
            raise SystemExit(f"unfuse: {key}: {tuple(src.shape)} in {onnx_path}, {tuple(value.shape)} in the model")
        state[key] = torch.tensor(np.array(src), dtype=value.dtype)
    model.load_state_dict(state)
    model.names = dict(enumerate(names))
    model.args = {"task": kind, "imgsz": size}
    model.eval()
    # the rebuilt model must compute what the ONNX computes
    x = np.random.default_rng(0).random((1 if task == "det" else 4, 3, size, size), dtype=np.float32)
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    want = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    with torch.no_grad():
        got = model(torch.from_numpy(x))
    got = (got[0] if isinstance(got, (tuple, list)) else got).numpy()
    if got.shape != want.shape:
        raise SystemExit(f"unfuse: the rebuilt {task} model gives {got.shape} where {onnx_path} gives {want.shape}")
    gap = float(np.abs(got - want).max() / max(1.0, float(np.abs(want).max())))
    if gap > 1e-3:
        raise SystemExit(f"unfuse: the rebuilt {task} model differs from {onnx_path} by {gap:.2g}")
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model, "train_args": {"task": kind, "imgsz": size}, "version": __version__,
                "date": None, "epoch": -1, "optimizer": None, "best_fitness": None}, out)
    print(f"unfused {onnx_path} -> {out} ({len(used)} of {len(inits)} ONNX tensors; largest gap {gap:.1e})")
    return out


def _hsv(text: str) -> tuple[float, float, float]:
    parts = text.split(",")
    try:
        h, sat, v = (float(x) for x in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--hsv wants three fractions H,S,V, got {text!r}") from None
    if not all(0 <= x <= 1 for x in (h, sat, v)):
        raise argparse.ArgumentTypeError(f"--hsv fractions must lie in [0, 1], got {text!r}")
    return h, sat, v


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.train", description=__doc__.split("\n")[0])
    p.add_argument("task", choices=["det", "cls", "index", "suit", "export", "unfuse"])
    p.add_argument("what", nargs="?", choices=["det", "cls", "index", "suit"], help="for export, unfuse: which model")
    p.add_argument("--data", help="det: the dataset yaml; cls, index, suit: the folder with train/ and val/")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--time", type=float, default=0.0, help="hours to train for (overrides --epochs)")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--imgsz", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--device", default="cpu", help="'cpu' (default) or a CUDA device, e.g. 0")
    p.add_argument("--cache", choices=["ram", "disk"], default=None, help="cache decoded images (faster epochs)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--optimizer", default="", help="e.g. AdamW (default: ultralytics' auto choice)")
    p.add_argument("--lr0", type=float, default=0.002, help="with --optimizer")
    p.add_argument("--warmup", type=float, default=None, help="warm-up epochs (ultralytics default 3)")
    p.add_argument("--erasing", type=float, default=0.0, help="cls: random erasing probability (occlusion)")
    p.add_argument("--dropout", type=float, default=0.0, help="cls: dropout before the classifier head")
    p.add_argument("--augment", choices=["randaugment", "autoaugment", "augmix"], default=None,
                   help="cls: a torchvision policy over each crop (style variety; default none)")
    p.add_argument("--hsv", type=_hsv, default=(0.01, 0.7, 0.4),
                   help="cls: hue,saturation,value jitter fractions (default 0.01,0.7,0.4)")
    p.add_argument("--temperature", type=float, default=1.0,
                   help="export cls: calibration temperature written to cards-cls.json (below 1 sharpens)")
    p.add_argument("--project", default=str(ROOT / "runs"))
    p.add_argument("--name", default="")
    p.add_argument("--resume", action="store_true", help="carry on from the run's last.pt after an interruption "
                   "(a run whose epochs or --time ran out is finished and is refused)")
    p.add_argument("--init", help="start from these weights (a .pt of an earlier run) instead of the YAML")
    p.add_argument("--weights", help="export: the .pt to export; unfuse: the .onnx to rebuild (beside its json)")
    p.add_argument("--out", default=str(ROOT / "runs" / "export"), help="folder for the ONNX model(s)")
    args = p.parse_args(argv)

    def refuse(message: str) -> int:
        """A one-line error, exit status 2 (as argparse's, without the usage)."""
        print(f"{p.prog}: error: {message}", file=sys.stderr)
        return 2

    # a path ultralytics does not find is a name it would download: refused here instead
    for flag, path in (("--weights", args.weights), ("--init", args.init), ("--data", args.data)):
        if path and not Path(path).exists():
            return refuse(f"{flag} {path} does not exist")
    if args.task == "unfuse":
        if not (args.what and args.weights):
            p.error("unfuse needs det|cls|index|suit, --weights MODEL.onnx and --out FILE.pt")
        unfuse(args.what, Path(args.weights), Path(args.out))
        return 0
    if args.task == "export":
        if not (args.what and args.weights):
            p.error("export needs det|cls and --weights")
        export(args.what, Path(args.weights), Path(args.out), args.imgsz or None, args.temperature)
        return 0
    if not args.data and not args.resume:
        p.error("--data is required")
    args.name = args.name or args.task
    args.project = str(Path(args.project) / args.task)
    if args.resume:
        problem = resume_problem(Path(args.project) / args.name, args.data)
        if problem:
            return refuse(problem)
    best = train(args.task, args)
    export(args.task, best, Path(args.out), args.imgsz or None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Train a classifier (the corner classifier or a reader) with every crop held on the device.

    python -m datasets.fasttrain index --data datasets/out/g80/index datasets/out/g81/index \\
        --minutes 4 --device cuda --out runs/fast/index.pt
    python -m datasets.train export index --weights runs/fast/index.pt --out runs/fast

`datasets.train` reads crops through ultralytics' loader, a few thousand a second: right
on the CPU, where the network is the cost, but it leaves a GPU waiting. Here the crops of
one or more image folders (`train/<class>/*.png`, `val/<class>/*.png`, as
`datasets.generate` writes them) are decoded once into one uint8 tensor on the device and
augmented there, batch by batch (geometry, colour, blur, noise, erasing), so an H100
trains a YOLO11-cls model on 300,000 crops in a few seconds an epoch. The model is the
same ultralytics `ClassificationModel` built from its YAML (`--arch n` is
`yolo11n-cls.yaml`, the shipped models' size), trained on logits with label smoothing and
AdamW under a cosine learning rate over `--minutes`. The result is an ultralytics
checkpoint that `datasets.train export` turns into the runtime's ONNX, and `--init`
takes (a `.pt` of either trainer, a `.state.pt`, or an `.onnx` rebuilt with
`datasets.train.unfuse`, whose batch norms then keep their statistics).
Training needs torch and ultralytics (the `train` extra); the runtime needs neither.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from datasets.train import FILES, HALF_SUFFIX, IMGSZ, offline_env, unfuse

SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")


def class_names(folders: list[Path]) -> list[str]:
    """The classes of the folders' `train/` sets, sorted as ultralytics sorts them."""
    names: set[str] = set()
    for f in folders:
        if not (f / "train").is_dir():
            raise SystemExit(f"fasttrain: {f} has no train/ folder (expected train/<class>/*.png)")
        names |= {d.name for d in (f / "train").iterdir() if d.is_dir()}
    return sorted(names)


def load(folders: list[Path], split: str, names: list[str], size: int, workers: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Every crop of `split` in `folders` as (N, size, size, 3) RGB uint8 and (N,) labels."""
    import cv2

    paths, labels = [], []
    for f in folders:
        for k, n in enumerate(names):
            d = f / split / n
            if d.is_dir():
                found = sorted(p for p in d.iterdir() if p.suffix.lower() in SUFFIXES)
                paths += found
                labels += [k] * len(found)

    def read(p: Path) -> np.ndarray | None:
        im = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if im is None:  # a file cut short (a render stopped mid-write): left out, counted
            return None
        if im.shape[:2] != (size, size):
            im = cv2.resize(im, (size, size), interpolation=cv2.INTER_LINEAR)
        return im[:, :, ::-1]

    x = np.empty((len(paths), size, size, 3), np.uint8)
    ok = np.ones(len(paths), bool)
    with ThreadPoolExecutor(workers) as pool:
        for i, im in enumerate(pool.map(read, paths, chunksize=256)):
            if im is None:
                ok[i] = False
            else:
                x[i] = im
    if not ok.all():
        print(f"fasttrain: {int((~ok).sum())} unreadable crops left out of {split}", flush=True)
    return x[ok], np.asarray(labels, np.int64)[ok]


def augment(x, g, a: argparse.Namespace):
    """A batch of uint8 NHWC crops on the device, augmented: float NCHW in [0, 1]."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    x = x.permute(0, 3, 1, 2).float() / 255.0

    def u(lo: float, hi: float, *shape: int):
        return torch.rand((n, *shape), device=x.device, generator=g) * (hi - lo) + lo

    # geometry: scale, turn, shift (the detector's boxes are never exact)
    s = u(1 - a.scale, 1 + a.scale)
    r = u(-a.degrees, a.degrees) * math.pi / 180
    t = u(-a.translate, a.translate, 2)
    cos, sin = torch.cos(r) / s, torch.sin(r) / s
    theta = torch.stack([torch.stack([cos, -sin, t[:, 0]], 1), torch.stack([sin, cos, t[:, 1]], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    # colour: hue turned in YIQ, saturation, contrast, brightness, sometimes grey
    if a.hue > 0:
        h = u(-a.hue, a.hue) * 2 * math.pi
        yiq = torch.tensor([[0.299, 0.587, 0.114], [0.596, -0.274, -0.322], [0.211, -0.523, 0.312]], device=x.device)
        c, sn = torch.cos(h), torch.sin(h)
        rot = torch.zeros(n, 3, 3, device=x.device)
        rot[:, 0, 0] = 1
        rot[:, 1, 1], rot[:, 1, 2], rot[:, 2, 1], rot[:, 2, 2] = c, -sn, sn, c
        m = torch.linalg.inv(yiq) @ rot @ yiq
        x = torch.einsum("nij,njhw->nihw", m, x)
    grey = (0.299 * x[:, 0] + 0.587 * x[:, 1] + 0.114 * x[:, 2]).unsqueeze(1)
    sat = u(1 - a.saturation, 1 + a.saturation, 1, 1, 1)
    sat = torch.where(u(0, 1, 1, 1, 1) < a.grey, torch.zeros_like(sat), sat)
    x = grey + (x - grey) * sat
    mean = x.mean((1, 2, 3), keepdim=True)
    x = (x - mean) * u(1 - a.contrast, 1 + a.contrast, 1, 1, 1) + mean
    x = x * u(1 - a.brightness, 1 + a.brightness, 1, 1, 1)
    # blur: a Gaussian of its own width for each crop, one grouped convolution
    if a.blur > 0:
        sigma = u(0.05, a.blur).clamp(min=0.05)
        k = torch.arange(-3, 4, device=x.device, dtype=x.dtype)
        w = torch.exp(-(k[None] ** 2) / (2 * sigma[:, None] ** 2))
        w = (w / w.sum(1, keepdim=True)).repeat_interleave(3, 0)
        hw = x.shape[-1]
        y = F.conv2d(F.pad(x.reshape(1, n * 3, hw, hw), (3, 3, 0, 0), mode="replicate"), w[:, None, None, :], groups=n * 3)
        y = F.conv2d(F.pad(y, (0, 0, 3, 3), mode="replicate"), w[:, None, :, None], groups=n * 3)
        x = y.reshape(n, 3, hw, hw)
    if a.noise > 0:
        x = x + torch.randn(x.shape, device=x.device, generator=g) * u(0, a.noise, 1, 1, 1)
    # erasing: a patch of flat colour, as a coin or another card over the corner
    if a.erasing > 0:
        hw = x.shape[-1]
        side = (u(0.15, 0.45) * hw).long()
        cx, cy = (u(0, 1) * hw).long(), (u(0, 1) * hw).long()
        ii = torch.arange(hw, device=x.device)
        inside = ((ii[None, :] - cx[:, None]).abs() <= side[:, None] // 2)[:, None, :] & \
                 ((ii[None, :] - cy[:, None]).abs() <= side[:, None] // 2)[:, :, None]
        inside &= (u(0, 1) < a.erasing)[:, None, None]
        x = torch.where(inside[:, None], u(0, 1, 3, 1, 1), x)
    return x.clamp(0, 1)


def init_path(out: Path) -> Path:
    """Where the run writing `out` keeps the checkpoint it starts from: beside `out`, named
    after it, so that runs sharing a folder never write one file at once."""
    return out.with_name(f"init-{out.stem.removesuffix('.state')}.pt")


def initial(task: str, init: str | None, names: list[str], size: int, arch: str, out: Path):
    """The model to start from: `init` (a checkpoint, or an ONNX rebuilt), else the YAML."""
    import torch
    from ultralytics.nn.tasks import ClassificationModel

    if init:
        path = Path(init)
        if path.suffix == ".onnx":
            path = unfuse(task, path, init_path(out))
        elif path.name.endswith(".state.pt"):
            path = pack(path, init_path(out))
        model = torch.load(path, map_location="cpu", weights_only=False)["model"].float()
        if [model.names[i] for i in range(len(model.names))] != names:
            raise SystemExit(f"fasttrain: {init} names {list(model.names.values())}, the data {names}")
    else:
        model = ClassificationModel(f"yolo11{arch}-cls.yaml", nc=len(names), verbose=False)
    model.names = dict(enumerate(names))
    model.args = {"task": "classify", "imgsz": size}
    for p in model.parameters():
        p.requires_grad_(True)
    return model


def train_mode(model, frozen_norms: bool) -> None:
    """Training mode; a model rebuilt from an ONNX keeps its batch norms' statistics (its
    convolutions hold them fused: batch statistics would undo them)."""
    import torch

    model.train()
    if frozen_norms:
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.eval()


def accuracy(model, x, y, batch: int = 2048) -> float:
    """Top-1 on uint8 NHWC crops held on the device."""
    import torch

    model.eval()
    right = 0
    with torch.no_grad(), torch.autocast(x.device.type, dtype=torch.bfloat16, enabled=x.device.type == "cuda"):
        for i in range(0, len(x), batch):
            out = model(x[i:i + batch].permute(0, 3, 1, 2).float() / 255.0)
            out = out[0] if isinstance(out, (tuple, list)) else out
            right += int((out.argmax(1) == y[i:i + batch]).sum())
    return right / max(1, len(x))


def save(model, out: Path, meta: dict) -> None:
    """An ultralytics checkpoint (for `datasets.train export` and `--init`) and its weights
    in half precision beside it (`.state.pt`: half the size, for `pack` on another machine)."""
    import copy

    import torch
    from ultralytics import __version__

    m = copy.deepcopy(model).float().eval().cpu()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": m, "train_args": {"task": "classify", "imgsz": meta["imgsz"]}, "version": __version__,
                "date": None, "epoch": meta.get("epoch", -1), "optimizer": None, "best_fitness": None}, out)
    state = {k: v.half() if v.is_floating_point() else v for k, v in m.state_dict().items()}
    torch.save({"state_dict": state, **meta}, out.with_suffix(".state.pt"))


def fit(a: argparse.Namespace) -> dict:
    """Train as `a` says; returns the figures it printed."""
    offline_env()
    import torch
    import torch.nn.functional as F

    folders = [Path(d) for d in a.data]
    names = class_names(folders)
    size = a.imgsz or IMGSZ[a.task]
    t0 = time.time()
    xtr, ytr = load(folders, "train", names, size, a.workers)
    xva, yva = load(folders, "val", names, size, a.workers)
    print(f"fasttrain: {len(xtr)} train / {len(xva)} val crops of {len(names)} classes, {size}px, "
          f"read in {time.time() - t0:.0f} s", flush=True)
    if not len(xtr):
        raise SystemExit(f"fasttrain: no crops under {', '.join(map(str, folders))}")
    dev = torch.device(a.device)
    torch.manual_seed(a.seed)
    g = torch.Generator(device=dev)
    g.manual_seed(a.seed)
    xtr_d, ytr_d = torch.from_numpy(xtr).to(dev), torch.from_numpy(ytr).to(dev)
    xva_d, yva_d = torch.from_numpy(xva).to(dev), torch.from_numpy(yva).to(dev)
    out = Path(a.out)
    model = initial(a.task, a.init, names, size, a.arch, out).to(dev)
    frozen = bool(a.init) and a.init.endswith(".onnx")
    arch = getattr(model, "yaml", {}).get("scale") or a.arch  # an --init model's own size
    print(f"fasttrain: from {a.init or f'yolo11{a.arch}-cls.yaml'}: val top-1 {accuracy(model, xva_d, yva_d):.4f}", flush=True)
    train_mode(model, frozen)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr0, weight_decay=a.weight_decay)
    budget, batch = a.minutes * 60, min(a.batch, len(xtr_d))
    total = a.epochs * (len(xtr_d) // batch)  # steps, when --epochs caps the run too
    warm = min(0.5, a.warmup * 60 / budget)  # of the run
    start, step, epoch, log = time.time(), 0, 0, []
    while True:
        perm = torch.randperm(len(xtr_d), device=dev, generator=g)
        seen, loss_sum = 0, 0.0
        for i in range(0, len(perm) - batch + 1, batch):
            done = max((time.time() - start) / budget, step / total if total else 0.0)
            if done >= 1:
                break
            lr = a.lr0 * (done / warm if done < warm else 0.5 * (1 + math.cos(math.pi * done)))
            for pg in opt.param_groups:
                pg["lr"] = max(lr, a.lr0 * 0.01)
            idx = perm[i:i + batch]
            xb = augment(xtr_d[idx], g, a)
            with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=dev.type == "cuda"):
                loss = F.cross_entropy(model(xb), ytr_d[idx], label_smoothing=a.smoothing)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            seen += len(idx)
            loss_sum += float(loss.detach()) * len(idx)
        else:
            epoch += 1
            acc = accuracy(model, xva_d, yva_d)
            train_mode(model, frozen)
            row = {"epoch": epoch, "loss": round(loss_sum / max(1, seen), 4), "val_top1": round(acc, 4),
                   "minutes": round((time.time() - start) / 60, 2)}
            log.append(row)
            print(json.dumps(row), flush=True)
            save(model, out, {"names": names, "imgsz": size, "epoch": epoch, "arch": arch, "log": log})
            continue
        break
    if seen or not log:  # the time ran out within an epoch (or before the first)
        acc = accuracy(model, xva_d, yva_d)
        log.append({"epoch": epoch + 1, "partial": True, "val_top1": round(acc, 4), "steps": step,
                    "minutes": round((time.time() - start) / 60, 2)})
        print(json.dumps(log[-1]), flush=True)
        save(model, out, {"names": names, "imgsz": size, "epoch": epoch, "arch": arch, "log": log})
    # otherwise acc is the last epoch's, no step taken since
    print(f"fasttrain: {out} ({len(xtr)} crops, {step} steps, val top-1 {acc:.4f})")
    return {"train": len(xtr), "val": len(xva), "val_top1": acc, "steps": step, "log": log}


def pack(state_path: Path, out: Path) -> Path:
    """The ultralytics checkpoint of a `.state.pt` written by `save` (weights back in float)."""
    offline_env()
    import torch
    from ultralytics.nn.tasks import ClassificationModel

    st = torch.load(state_path, map_location="cpu", weights_only=False)
    model = ClassificationModel(f"yolo11{st.get('arch', 'n')}-cls.yaml", nc=len(st["names"]), verbose=False)
    model.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in st["state_dict"].items()})
    model.names = dict(enumerate(st["names"]))
    model.args = {"task": "classify", "imgsz": st["imgsz"]}
    save(model, out, {k: v for k, v in st.items() if k != "state_dict"})
    print(f"packed {state_path} -> {out}")
    return out


def halve(src: Path, dest: Path, tolerance: float = 2e-3) -> Path:
    """`src` (an ONNX model) with its float weights stored in half precision, each cast back
    to float by a `Cast` node that onnxruntime folds when it loads the model: half the file,
    the same arithmetic. Refused if the outputs move by more than `tolerance` on random input."""
    import onnx
    import onnxruntime as ort
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    kept, casts = [], []
    for init in graph.initializer:
        arr = numpy_helper.to_array(init)
        if arr.dtype == np.float32 and arr.size > 16:
            half = init.name + HALF_SUFFIX
            kept.append(numpy_helper.from_array(arr.astype(np.float16), half))
            casts.append(helper.make_node("Cast", [half], [init.name], to=onnx.TensorProto.FLOAT,
                                          name=init.name + "_cast"))
        else:
            kept.append(init)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    dest.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(dest))
    a = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(str(dest), providers=["CPUExecutionProvider"])
    inp = a.get_inputs()[0]
    side = next((d for d in inp.shape[2:] if isinstance(d, int)), 32)
    x = np.random.default_rng(0).random((4, 3, side, side), dtype=np.float32)
    gap = float(np.abs(a.run(None, {inp.name: x})[0] - b.run(None, {inp.name: x})[0]).max())
    if gap > tolerance:
        dest.unlink()
        raise SystemExit(f"halve: {src} in half precision moves its outputs by {gap:.2g} (> {tolerance})")
    print(f"halved {src} -> {dest} ({src.stat().st_size / 1e6:.1f} -> {dest.stat().st_size / 1e6:.1f} MB, "
          f"outputs within {gap:.1e})")
    return dest


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        import sys

        argv = sys.argv[1:]
    if argv[:1] == ["halve"]:
        if len(argv) != 3:
            raise SystemExit("usage: python -m datasets.fasttrain halve MODEL.onnx OUT.onnx")
        halve(Path(argv[1]), Path(argv[2]))
        return 0
    if argv[:1] == ["pack"]:
        if len(argv) != 3:
            raise SystemExit("usage: python -m datasets.fasttrain pack RUN.state.pt OUT.pt")
        pack(Path(argv[1]), Path(argv[2]))
        return 0
    p = argparse.ArgumentParser(prog="python -m datasets.fasttrain", description=__doc__.split("\n")[0])
    p.add_argument("task", choices=[t for t in FILES if t != "det"])
    p.add_argument("--data", nargs="+", required=True, help="crop folders, each with train/ and val/")
    p.add_argument("--out", required=True, help="the checkpoint to write (.pt), each epoch")
    p.add_argument("--minutes", type=float, default=5.0, help="training time; the learning rate follows it")
    p.add_argument("--epochs", type=int, default=0, help="stop after this many epochs, if sooner (0: time alone)")
    p.add_argument("--device", default="cuda")
    p.add_argument("--arch", default="n", choices=list("nsml"), help="yolo11<arch>-cls.yaml (n is shipped)")
    p.add_argument("--init", help="start from a .pt checkpoint, a .state.pt, or a shipped .onnx (beside its json)")
    p.add_argument("--imgsz", type=int, default=0)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--lr0", type=float, default=0.002)
    p.add_argument("--weight-decay", type=float, default=0.05)
    p.add_argument("--warmup", type=float, default=0.2, help="minutes of linear warm-up")
    p.add_argument("--smoothing", type=float, default=0.1)
    p.add_argument("--workers", type=int, default=16, help="threads decoding the crops")
    p.add_argument("--seed", type=int, default=0)
    aug = p.add_argument_group("augmentation (per crop, on the device)")
    aug.add_argument("--scale-jitter", dest="scale", type=float, default=0.1)
    aug.add_argument("--degrees", type=float, default=6.0)
    aug.add_argument("--translate", type=float, default=0.08, help="of half the crop")
    aug.add_argument("--hue", type=float, default=0.05, help="of a full turn")
    aug.add_argument("--saturation", type=float, default=0.7)
    aug.add_argument("--grey", type=float, default=0.1, help="probability of a grey crop")
    aug.add_argument("--contrast", type=float, default=0.4)
    aug.add_argument("--brightness", type=float, default=0.4)
    aug.add_argument("--blur", type=float, default=1.0, help="largest Gaussian sigma, pixels")
    aug.add_argument("--noise", type=float, default=0.04)
    aug.add_argument("--erasing", type=float, default=0.2)
    a = p.parse_args(argv)
    fit(a)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Two teachings of one deck read as one: each reader the geometric mean of both.

    python -m datasets.heads --deck decks/club --out models-club
    python -m datasets.adapt --deck decks/club --out models-club-ft \\
        --work models-club.work --readers cls,index --deck-scenes 1000 --deck-check 0 --replay-scenes 0 --time 0.55
    python -m datasets.ensemble models-club models-club-ft --out models-club2 --crops models-club.work/deck

The heads (frozen convolutions, new last layers) and the fine-tuned readers (every layer
tuned, surer than they are right) err on different corners. `--out` gets the first
folder's models with each reader named in `--readers` replaced by one ONNX graph that runs
both and returns the normalised geometric mean of their probabilities (a softmax of the
mean of their log-probabilities), its temperature fitted on the val crops of `--crops` (a
rendered set, as `datasets.heads` and `datasets.adapt --deck` leave in their scratch
folder). The runtime reads it as any other reader (`models/HISTORY.md`, twenty-seventh
session). Needs only the `onnx` package.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from datasets.adapt import READERS, _by_class, copy_models, deck_figures, temperature_on, verdict
from datasets.heads import crop_side, load_crops


class EnsembleError(ValueError):
    """Two readers that cannot be read as one, named."""


def mean_graph(a: Path, b: Path, out: Path, temperatures: tuple[float, float] = (1.0, 1.0)) -> None:
    """Write to `out` one ONNX model that feeds its input to the softmax readers `a` and `b`
    (same input, same classes) and outputs softmax((log pa / Ta + log pb / Tb) / 2), each
    read at its temperature as the runtime would (`temperatures`, from their json)."""
    import onnx
    from onnx import compose, helper, numpy_helper

    ma, mb = compose.add_prefix(onnx.load(str(a)), "a/"), compose.add_prefix(onnx.load(str(b)), "b/")
    shapes = []
    for path, m in ((a, ma), (b, mb)):
        if len(m.graph.input) != 1 or len(m.graph.output) != 1:
            raise EnsembleError(f"{path}: not a reader (one input, one output)")
        shapes.append([[d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
                       for v in (m.graph.input[0], m.graph.output[0])])
    if shapes[0][0][1:] != shapes[1][0][1:] or shapes[0][1][-1] != shapes[1][1][-1]:
        raise EnsembleError(f"{a} reads {shapes[0][0]} into {shapes[0][1]} but {b} {shapes[1][0]} into {shapes[1][1]}")
    (in_shape, out_shape), elem = shapes[0], ma.graph.input[0].type.tensor_type.elem_type
    opset = max((o.version for m in (ma, mb) for o in m.opset_import if o.domain in ("", "ai.onnx")), default=17)
    nodes = [helper.make_node("Identity", ["images"], [ma.graph.input[0].name]),
             helper.make_node("Identity", ["images"], [mb.graph.input[0].name]),
             *ma.graph.node, *mb.graph.node,
             helper.make_node("Max", [ma.graph.output[0].name, "mean/eps"], ["mean/pa"]),
             helper.make_node("Max", [mb.graph.output[0].name, "mean/eps"], ["mean/pb"]),
             helper.make_node("Log", ["mean/pa"], ["mean/log_a"]),
             helper.make_node("Log", ["mean/pb"], ["mean/log_b"]),
             helper.make_node("Mul", ["mean/log_a", "mean/wa"], ["mean/za"]),
             helper.make_node("Mul", ["mean/log_b", "mean/wb"], ["mean/zb"]),
             helper.make_node("Add", ["mean/za", "mean/zb"], ["mean/logits"]),
             helper.make_node("Softmax", ["mean/logits"], ["output0"], axis=1)]
    graph = helper.make_graph(
        nodes, "mean", [helper.make_tensor_value_info("images", elem, in_shape)],
        [helper.make_tensor_value_info("output0", elem, ["batch", out_shape[-1]])],
        [*ma.graph.initializer, *mb.graph.initializer, numpy_helper.from_array(np.array(1e-12, np.float32), "mean/eps"),
         *(numpy_helper.from_array(np.array(0.5 / t, np.float32), f"mean/w{k}")
           for k, t in zip("ab", temperatures, strict=True))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = min(ma.ir_version, mb.ir_version) or model.ir_version
    onnx.checker.check_model(model)
    onnx.save(model, str(out))


def split_graph(joined: Path, out_dir: Path) -> list[tuple[Path, float]]:
    """The two readers a `mean_graph` joined, written back as plain readers `out_dir/a` and
    `out_dir/b` (each its own graph, weights as stored, file name as `joined`'s): each one's
    path and the temperature the join read it at (from its weight). Refused by name when
    `joined` is not such a graph. A member so written is what `datasets.train unfuse` and
    `datasets.fasttrain --init` rebuild a trainable checkpoint from."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(joined))
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    if {"mean/wa", "mean/wb"} - inits.keys() or not g.output or g.output[0].name != "output0":
        raise EnsembleError(f"{joined}: not two readers read as one (datasets.ensemble.mean_graph)")
    feeds = {n.output[0]: n.input[0] for n in g.node if n.op_type == "Identity" and n.input[0] == g.input[0].name}
    written = []
    for k in "ab":
        pre = f"{k}/"
        nodes = [n for n in g.node if n.output and all(o.startswith(pre) for o in n.output)
                 and not (n.op_type == "Identity" and n.output[0] in feeds)]
        entry = next((o for o in feeds if o.startswith(pre)), None)
        produced = {o for n in nodes for o in n.output}
        heads = [o for o in produced if o.startswith(pre) and not any(o in n.input for n in nodes)]
        if entry is None or len(heads) != 1:
            raise EnsembleError(f"{joined}: reader {k!r} has no single input and output")

        def strip(name: str, pre: str = pre, entry: str = entry) -> str:
            return "images" if name == entry else name.removeprefix(pre)

        for n in nodes:
            n.input[:] = [strip(i) for i in n.input]
            n.output[:] = [strip(o) for o in n.output]
            n.name = strip(n.name)
        own = []
        for name, init in inits.items():
            if name.startswith(pre):
                arr = numpy_helper.to_array(init)
                own.append(numpy_helper.from_array(arr, strip(name)))
        shape = [d.dim_param or d.dim_value for d in g.input[0].type.tensor_type.shape.dim]
        width = [d.dim_param or d.dim_value for d in g.output[0].type.tensor_type.shape.dim]
        elem = g.input[0].type.tensor_type.elem_type
        graph = helper.make_graph(nodes, f"reader-{k}", [helper.make_tensor_value_info("images", elem, shape)],
                                  [helper.make_tensor_value_info("output0", elem, width)], own)
        for n in graph.node:  # the member's last node writes the graph's output
            n.output[:] = ["output0" if o == strip(heads[0]) else o for o in n.output]
        member = helper.make_model(graph, opset_imports=list(model.opset_import))
        member.ir_version = model.ir_version
        onnx.checker.check_model(member)
        dest = out_dir / k / joined.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        onnx.save(member, str(dest))
        written.append((dest, 0.5 / float(numpy_helper.to_array(inits[f"mean/w{k}"]))))
    return written


def split(folder: Path, out: Path, tasks: tuple[str, ...] = ("cls", "index")) -> dict[str, Any]:
    """Each reader of `folder` named in `tasks` that is two read as one (`mean_graph`),
    written back as its two readers, `out/a` and `out/b`, each with its json (the join's,
    with the temperature the member was read at where it is not 1). Returns the files."""
    done: dict[str, Any] = {}
    for task in tasks:
        model_file, meta_file = READERS[task]
        if not (folder / model_file).is_file():
            continue
        if not (folder / meta_file).is_file():
            raise EnsembleError(f"{folder / model_file} has no {meta_file} beside it (its class names)")
        members = split_graph(folder / model_file, out)
        meta = _meta(folder / meta_file)
        meta.pop("temperature", None)  # the join's own, over both
        for path, t in members:
            (path.parent / meta_file).write_text(json.dumps({**meta, **({"temperature": t} if abs(t - 1) > 1e-6
                                                                        else {})}, indent=1) + "\n")
        done[task] = [str(p) for p, _ in members]
    return done


def _meta(path: Path) -> dict[str, Any]:
    """A reader's json as an object (an older one is the bare list of its names)."""
    obj = json.loads(path.read_text(encoding="utf-8"))
    return obj if isinstance(obj, dict) else {"names": obj}


def ensemble(a: Path, b: Path, out: Path, tasks: tuple[str, ...] = ("cls", "index"),
             crops: Path | None = None, deck: Path | None = None, check: int = 0) -> dict[str, Any]:
    """`out`: `a`'s models, with each reader of `tasks` that both folders have replaced by
    the mean of both (`mean_graph`, each at its json's temperature), its own temperature
    fitted on `crops`' val crops (1 without crops). Returns the temperatures written, by
    task, and with an enrolled `deck` and `check` > 0, `check`: the figures of `out` on the
    showdowns `datasets.heads` checks on (the same seed), also ADAPTED.json's check's `ensemble`
    (its `verdict` then weighs them against the check's `before`)."""
    copy_models(a, out)
    written: dict[str, float] = {}
    for task in tasks:
        model_file, meta_file = READERS[task]
        if not ((a / model_file).is_file() and (b / model_file).is_file()):
            continue
        meta, other = (_meta(d / meta_file) for d in (a, b))
        if meta["names"] != other["names"]:
            raise EnsembleError(f"{a / meta_file} names {meta['names']} but {b / meta_file} {other['names']}")
        mean_graph(a / model_file, b / model_file, out / model_file,
                   (float(meta.get("temperature", 1.0)), float(other.get("temperature", 1.0))))
        meta.pop("temperature", None)  # both are in the graph now
        if crops is not None:
            x, y = load_crops(_by_class(crops, "val", task), meta["names"], crop_side(meta, task))
            meta["temperature"] = temperature_on(out / model_file, x, y)
        written[task] = float(meta.get("temperature", 1.0))
        (out / meta_file).write_text(json.dumps(meta, indent=1) + "\n")
    figures = deck_figures(out, deck, check, 0, progress=False) if deck is not None and check > 0 else None
    report = out / "ADAPTED.json"  # `a`'s recipe, where it has one, says what was added
    if report.is_file() and written:
        obj = json.loads(report.read_text(encoding="utf-8"))
        obj["ensemble"] = {"with": str(b), "temperatures": written}
        if (b / "ADAPTED.json").is_file():  # how `b` was taught, kept when its folder is not
            obj["ensemble"]["recipe"] = json.loads((b / "ADAPTED.json").read_text(encoding="utf-8"))
        if figures is not None:
            obj.setdefault("check", {})["ensemble"] = figures
            if "before" in obj["check"]:  # the verdict is on the models written now
                obj["verdict"] = verdict(obj["check"]["before"], figures)
        report.write_text(json.dumps(obj, indent=1) + "\n")
    return {"temperatures": written, **({"check": figures} if figures is not None else {})}


def split_main(argv: list[str]) -> int:
    """`python -m datasets.ensemble split FOLDER --out DIR`."""
    p = argparse.ArgumentParser(prog="python -m datasets.ensemble split",
                                description="Readers read as one, written back as the two readers they join "
                                            "(OUT/a, OUT/b), e.g. to fine-tune them again (--init).")
    p.add_argument("folder", help="a model folder whose readers are two read as one (models/cross-deck)")
    p.add_argument("--out", required=True, help="the folder for the two readers of each")
    p.add_argument("--readers", default="cls,index", help="the readers to split (default cls,index)")
    args = p.parse_args(argv)
    tasks = tuple(t for t in args.readers.split(",") if t)
    if bad := [t for t in tasks if t not in READERS]:
        p.error(f"--readers: unknown {', '.join(bad)} (cls, index, suit)")
    try:
        done = split(Path(args.folder), Path(args.out), tasks)
    except EnsembleError as e:
        print(f"ensemble split: {e}", file=sys.stderr)
        return 2
    if not done:  # a mistyped folder, or one without these readers
        print(f"ensemble split: {args.folder}: no {' or '.join(READERS[t][0] for t in tasks)} there", file=sys.stderr)
        return 2
    print(json.dumps(done))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["split"]:
        return split_main(argv[1:])
    p = argparse.ArgumentParser(prog="python -m datasets.ensemble", description=__doc__.split("\n")[0])
    p.add_argument("a", help="a model folder (its detector and other files are kept)")
    p.add_argument("b", help="another model folder with the same readers")
    p.add_argument("--out", required=True, help="the folder for the models read as one")
    p.add_argument("--readers", default="cls,index", help="the readers to read as one (default cls,index)")
    p.add_argument("--crops", default=None, help="a rendered set (cls/, index/) whose val crops fit the temperatures")
    p.add_argument("--deck", default=None, help="the enrolled deck: --check of its showdowns read with the result")
    p.add_argument("--check", type=int, default=0, help="showdowns of --deck read (those datasets.heads checks on)")
    args = p.parse_args(argv)
    a, b, out = Path(args.a), Path(args.b), Path(args.out)
    tasks = tuple(t for t in args.readers.split(",") if t)
    if bad := [t for t in tasks if t not in READERS]:
        p.error(f"--readers: unknown {', '.join(bad)} (cls, index, suit)")
    for d in (a, b):
        if not (d / "cards-cls.json").is_file():
            print(f"ensemble: {d}: not a model folder (no cards-cls.json)", file=sys.stderr)
            return 2
    if out.resolve() in (a.resolve(), b.resolve()):
        p.error("--out must be a new folder")
    try:
        done = ensemble(a, b, out, tasks, Path(args.crops) if args.crops else None,
                        Path(args.deck) if args.deck else None, args.check)
    except EnsembleError as e:
        print(f"ensemble: {e}", file=sys.stderr)
        return 2
    print(json.dumps({"out": str(out), **done}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

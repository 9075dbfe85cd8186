"""`mus-scorer scan IMAGE...`: read the cards in showdown photos. What it prints as text
goes through `shown`, so that a file name holding control characters cannot recolour or
rewrite the terminal; `--json` escapes them anyway."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scorer.commands._io import piped, shown


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photos (JPEG, PNG or WebP)")
    parser.add_argument("--json", action="store_true", help="one JSON object per image, one per line")
    parser.add_argument("--bottom", type=int, default=0, choices=range(4), metavar="N",
                        help="the seat (0-3) at the photo's bottom edge; the others follow counterclockwise")
    parser.add_argument("--annotate", type=Path, metavar="DIR",
                        help="write each photo with its cards drawn to DIR/<name>.annotated.jpg")
    parser.add_argument("--together", action="store_true",
                        help="the photos are of one showdown (another angle, the glare elsewhere): read each, "
                             "then report them as one, each card at its surest read")
    parser.add_argument("--model-dir", type=Path, metavar="DIR",
                        help="the ONNX models (default: $MUS_MODEL_DIR, else models/ in the project)")


def run(args: argparse.Namespace) -> int:
    """Read every photo; 0 if all were read, 1 if any was not, 2 if the models or --annotate fail."""
    return piped(lambda: _scan(args))


def _scan(args: argparse.Namespace) -> int:
    from scorer.vision import ImageError, ModelError, Recognizer, annotate, combine, open_photo

    try:
        recognizer = Recognizer(args.model_dir)
    except ModelError as exc:
        print(shown(f"mus-scorer scan: {exc}"), file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a model file onnxruntime cannot load, a names file not JSON
        why = " ".join(str(exc).split()) or type(exc).__name__
        if isinstance(exc, json.JSONDecodeError):
            why = f"one of its .json files is not JSON ({why})"
        print(shown(f"mus-scorer scan: the card model in {args.model_dir or 'the default folder'} cannot be loaded: "
                    f"{why}"), file=sys.stderr)
        return 2
    if args.annotate and (why := _annotate_dir(args.annotate)):
        print(shown(f"mus-scorer scan: --annotate {args.annotate}: {why}"), file=sys.stderr)
        return 2
    status = 0
    written: set[Path] = set()
    read: list[tuple[str, dict]] = []
    for path in args.images:
        try:
            photo = open_photo(path)
            result = recognizer.scan(photo, args.bottom)
        except (ImageError, OSError) as exc:
            status = 1
            code = getattr(exc, "code", "unreadable")
            message = getattr(exc, "message", None) or exc.strerror or str(exc)
            if args.json:
                print(json.dumps({"image": path, "error": {"code": code, "message": message}}), flush=True)
            else:
                print(shown(f"{path}: error ({code}): {message}"), file=sys.stderr, flush=True)
            continue
        if args.annotate:
            out = args.annotate / (Path(path).stem + ".annotated.jpg")
            k = 1
            while out in written:  # two photos of the same name
                k += 1
                out = args.annotate / f"{Path(path).stem}-{k}.annotated.jpg"
            written.add(out)
            try:
                out.write_bytes(annotate(photo.decode(), result))
            except OSError as exc:
                print(shown(f"mus-scorer scan: --annotate {out}: {exc.strerror or exc}"), file=sys.stderr)
                return 2
        if args.together:
            read.append((path, result))
        elif args.json:
            print(json.dumps({"image": path, **result}), flush=True)
        else:
            print(shown(_summary(path, result)), flush=True)
    if args.together and read:
        together = combine([r for _, r in read])
        images = [p for p, _ in read]
        if args.json:
            print(json.dumps({"image": images[0], "images": images, **together}), flush=True)
        else:
            print(shown(_summary(" + ".join(images), together)), flush=True)
    return status


def _annotate_dir(folder: Path) -> str | None:
    """Why the annotated photos cannot be written to `folder` (made if missing), or None."""
    if folder.exists() and not folder.is_dir():
        return "exists and is not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file on the way to it
        return "a part of the path is a file, not a folder"
    except OSError as exc:
        return f"cannot make the folder ({exc.strerror or exc})"
    return None


def _summary(path: str, result: dict) -> str:
    """The scan of one photo in a few readable lines."""
    cards = result["cards"]
    lines = [f"{path}: {len(cards)} card{'s' if len(cards) != 1 else ''}"]
    if result["hands"] is not None:
        for seat, hand in enumerate(result["hands"]):
            lines.append(f"  seat {seat}: {' '.join(hand) if hand else '-'}")
    elif cards:
        lines.append("  " + " ".join(f"{c['card']} ({c['conf']:.2f})" for c in cards))
    for w in result["warnings"]:
        lines.append(f"  warning ({w['code']}): {w['message']}")
    return "\n".join(lines)

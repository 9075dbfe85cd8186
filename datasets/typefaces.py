"""The typefaces the numeral restyling draws from, gathered for a machine without them.

`datasets.restyle` redraws index numerals in the typefaces installed here. A machine
with the Debian font packages below has several hundred, but many draw the same digits
(Noto's fonts for other scripts carry Noto Sans's digits, a family's widths repeat its
shapes). This gathers those whose ten digits look unlike every other's, each cut down to
the ten digits (a few kilobytes), into one folder that `datasets/gpu_round.sh` copies
onto a GPU machine that has no registry (`.carry/fonts/`):

    apt-get install $(python -m datasets.typefaces --packages)
    python -m datasets.typefaces .carry/fonts
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

PACKAGES = (
    "fonts-urw-base35 fonts-texgyre fonts-lmodern fonts-freefont-ttf fonts-ebgaramond "
    "fonts-linuxlibertine fonts-crosextra-caladea fonts-crosextra-carlito fonts-oldstandard "
    "fonts-century-catalogue fonts-goudybookletter fonts-quattrocento fonts-vollkorn "
    "fonts-sil-gentium-basic fonts-sil-charis fonts-adf-romande fonts-lindenhill fonts-junicode "
    "fonts-cmu fonts-open-sans fonts-lato fonts-cantarell fonts-roboto-unhinted fonts-roboto-slab "
    "fonts-cabin fonts-courier-prime fonts-averia-serif-gwf fonts-karla fonts-play fonts-croscore "
    "fonts-clear-sans fonts-dosis fonts-jura fonts-gfs-didot fonts-gfs-bodoni-classic fonts-noto-core"
).split()
"""Debian packages of Latin typefaces, serif and sans, old and new."""

def distinct(paths: list[str], threshold: float = 0.06) -> list[str]:
    """`paths` less each font whose digits differ from an earlier kept one's by less than
    `threshold` (mean absolute difference of the signatures)."""
    from datasets.restyle import signature

    kept: list[str] = []
    sigs: list[np.ndarray] = []
    for p in paths:
        s = signature(p)
        if all(float(np.abs(s - t).mean()) >= threshold for t in sigs):
            kept.append(p)
            sigs.append(s)
    return kept


def subset(path: str, out: Path) -> Path:
    """A copy of the font at `path` holding only the ten digits, written into `out`."""
    from fontTools import subset as ft

    from datasets.restyle import DIGITS

    src = Path(path)
    dest = out / f"{src.parent.name}-{src.name}".replace(" ", "-")
    options = ft.Options()
    options.layout_features = []
    options.hinting = False
    options.name_IDs = ["*"]
    font = ft.load_font(str(src), options)
    sub = ft.Subsetter(options)
    sub.populate(text=DIGITS)
    sub.subset(font)
    ft.save_font(font, str(dest), options)
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.typefaces", description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", type=Path, help="folder to write the digit-only fonts into")
    ap.add_argument("--packages", action="store_true", help="print the Debian packages and stop")
    ap.add_argument("--threshold", type=float, default=0.06,
                    help="how unlike every kept font's digits a font's must be (0.06)")
    args = ap.parse_args(argv)
    if args.packages:
        print(" ".join(PACKAGES))
        return 0
    if args.out is None:
        ap.error("give OUT, or --packages")
    from datasets.restyle import fonts

    found = list(fonts())
    kept = distinct(found, args.threshold)
    args.out.mkdir(parents=True, exist_ok=True)
    size = written = 0
    for p in kept:
        try:
            size += subset(p, args.out).stat().st_size
            written += 1
        except Exception as e:  # a font fontTools cannot cut is left out, and said
            print(f"left out {p}: {e}", file=sys.stderr)
    print(f"{written} of {len(found)} typefaces kept, {size / 1e6:.1f} MB, in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Enrol a club's own deck: its 40 faces cut out of a few photos of the cards laid out.

    python -m datasets.enroll oros.jpg copas.jpg espadas.jpg bastos.jpg --out decks/club
    python -m datasets.adapt --deck decks/club --out models-club
    MUS_MODEL_DIR=models-club bash scripts/run.sh

Lay the cards face up and apart, upright, in rows, on a plain surface, and photograph them
from above, in the deck's order: oros 1 to 7, 10, 11, 12, then copas, espadas and bastos
(`ORDER`). One photo per suit, two rows of five, is easiest; any split into photos in that
order works, down to one photo of four rows of ten. Each photo's cards are found by the shipped detector, outlined (GrabCut),
straightened and read in rows, top to bottom, left to right.

`--out` gets `<card>.png` for the 40 faces, `back.png` (`--back`: a photo of one card's
back), `deck.json` (`mus-deck/1`: the photos and what the readers made of each face) and
`sheet.jpg`, the faces side by side with their names, to check by eye. The readers' check
is a warning only: a deck they have never seen is read about three cards in four right,
so fewer than half agreeing means the cards were not laid in order.

`datasets.render` draws an enrolled deck like the shipped ones (its folder as the deck's
name), so `datasets.generate --decks decks/club` renders showdowns of it, and
`datasets.adapt --deck` tunes the readers on them. Needs the train extra (OpenCV).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from datasets.render import CARD_ASPECT, CORNER_H, CORNER_W, DECK_FORMAT, ENROLLED
from datasets.render import DECK_ORDER as ORDER
from scorer.vision.crops import far_end
from scorer.vision.image import ImageError, load_image
from scorer.vision.model import Models, nms
from scorer.vision.pipeline import CARD, classify_corners, coarse, fine, suppress_contained

FACE_H = 520
"""Height of a written face, px (the Fournier 1878 scans are 521)."""
DETECT_LONG = 1600
CARD_CONF = 0.5
AGREE_WARN = 0.5
RECT_GROWS = (0.0, 0.02, 0.05)
GRABCUT_PX = 320


class EnrollError(ValueError):
    """The photos do not hold a deck laid out as `ORDER` asks."""


@dataclass(frozen=True)
class Face:
    """A card cut out of a photo: its face upright, where it lay, and what the readers read."""

    image: Image.Image
    photo: str
    quad: tuple[tuple[float, float], ...]
    read: str
    conf: float


def order_corners(quad: np.ndarray) -> np.ndarray:
    """The 4 points clockwise on screen from the top-left one (least x + y)."""
    c = quad.mean(0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]  # clockwise on screen, image y pointing down
    return np.roll(q, -int(np.argmin(q.sum(1))), axis=0)


def outline(rgb: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The card's 4 corners round its detector box (photo pixels): GrabCut on a reduced
    crop, from the box as found and from the box grown a little (a box that stops at the
    frame line leaves the card's rim out), each outline's sides fitted straight
    (`fit_sides`); the one whose sides part card from table most clearly (`edge_contrast`)
    is kept. The box's own corners when GrabCut finds no card."""
    import cv2

    h, w = rgb.shape[:2]
    x1, y1, x2, y2 = box
    pad = 0.1 * max(x2 - x1, y2 - y1)
    cx1, cy1 = int(max(0, x1 - pad)), int(max(0, y1 - pad))
    cx2, cy2 = int(min(w, x2 + pad)), int(min(h, y2 + pad))
    crop = rgb[cy1:cy2, cx1:cx2]
    s = min(1.0, GRABCUT_PX / max(crop.shape[:2]))
    small = cv2.resize(crop, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else crop.copy()
    bgr = np.ascontiguousarray(small[:, :, ::-1])  # for GrabCut, once for all its runs
    fallback = (np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64) - [cx1, cy1]) * s
    best = (edge_contrast(small, fallback), fallback)
    for grow in RECT_GROWS:
        g = grow * max(x2 - x1, y2 - y1)
        rx1, ry1 = max(0, int((x1 - g - cx1) * s)), max(0, int((y1 - g - cy1) * s))
        rx2 = min(small.shape[1] - 1, int((x2 + g - cx1) * s))
        ry2 = min(small.shape[0] - 1, int((y2 + g - cy1) * s))
        quad = _grabcut_quad(bgr, (rx1, ry1, rx2 - rx1, ry2 - ry1))
        if quad is not None:
            score = edge_contrast(small, quad)
            if score > best[0]:
                best = (score, quad)
    return order_corners(best[1] / s + [cx1, cy1])


def _grabcut_quad(bgr: np.ndarray, rect: tuple[int, int, int, int]) -> np.ndarray | None:
    """The card's corners (clockwise from top-left) in `bgr` (contiguous, blue first, as
    OpenCV takes it) by GrabCut from `rect` (x, y, w, h), or None."""
    import cv2

    if min(rect[2:]) < 8:
        return None
    mask = np.zeros(bgr.shape[:2], np.uint8)
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    try:
        cv2.grabCut(bgr, mask, rect, bgd, fgd, 4, cv2.GC_INIT_WITH_RECT)
    except cv2.error:
        return None
    fg = np.isin(mask, (cv2.GC_FGD, cv2.GC_PR_FGD)).astype(np.uint8)
    contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    cnt = max(contours, key=cv2.contourArea)
    if cv2.contourArea(cnt) < 0.5 * rect[2] * rect[3]:
        return None
    hull = cv2.convexHull(cnt)
    quad = None
    for eps in (0.02, 0.03, 0.045, 0.06, 0.08):
        approx = cv2.approxPolyDP(hull, eps * cv2.arcLength(hull, True), True)
        if len(approx) == 4:
            quad = approx.reshape(4, 2).astype(np.float64)
            break
    if quad is None:  # rounded corners cut off: the least rectangle round the card
        quad = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
    return fit_sides(cnt.reshape(-1, 2).astype(np.float64), order_corners(quad))


def edge_contrast(rgb: np.ndarray, quad: np.ndarray, off: float = 2.0, n: int = 24) -> float:
    """How clearly `quad` (clockwise from top-left) runs along an edge in `rgb`: the colour
    difference between points `off` px outside and inside it, sampled along the middle of
    each side; the median of each side, the least of the four."""
    h, w = rgb.shape[:2]
    t = np.linspace(0.15, 0.85, n)[:, None]
    sides = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        u = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
        out = np.array([u[1], -u[0]])  # outward for a clockwise quad, image y pointing down
        p = a + t * (b - a)
        po = np.clip(np.rint(p + off * out), 0, [w - 1, h - 1]).astype(int)
        pi = np.clip(np.rint(p - off * out), 0, [w - 1, h - 1]).astype(int)
        diff = np.linalg.norm(rgb[po[:, 1], po[:, 0]].astype(np.float32) - rgb[pi[:, 1], pi[:, 0]], axis=1)
        sides.append(float(np.median(diff)))
    return min(sides)


def _line(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The least-squares line through `points`: a point on it and its unit normal."""
    c = points.mean(0)
    _, _, vt = np.linalg.svd(points - c, full_matrices=False)
    return c, vt[1]


def fit_sides(contour: np.ndarray, quad: np.ndarray, rng_seed: int = 0) -> np.ndarray:
    """`quad` (clockwise) moved onto the card's straight edges: each side's line fitted
    (RANSAC, then least squares on its inliers) to the outline points along the middle of
    that side, and the corners put where the lines meet, so that rounded corners, and bits
    of a pattern the outline took in, do not pull them. `quad` itself where a side has too
    few points or the lines meet far from it."""
    rng = np.random.default_rng(rng_seed)
    short = min(np.linalg.norm(quad[i] - quad[(i + 1) % 4]) for i in range(4))
    band, tol = 0.12 * short, max(1.0, 0.008 * short)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        u = (b - a) / max(length, 1e-9)
        n = np.array([-u[1], u[0]])
        t = (contour - a) @ u / max(length, 1e-9)
        d = (contour - a) @ n
        pts = contour[(t > 0.12) & (t < 0.88) & (np.abs(d) < band)]
        if len(pts) < 8:
            return quad
        best = None
        for _ in range(60):
            p, q = pts[rng.choice(len(pts), 2, replace=False)]
            if np.linalg.norm(q - p) < 0.2 * length:
                continue
            m = np.array([-(q - p)[1], (q - p)[0]]) / np.linalg.norm(q - p)
            inl = np.abs((pts - p) @ m) < tol
            if best is None or inl.sum() > best.sum():
                best = inl
        if best is None or best.sum() < 8:
            return quad
        lines.append(_line(pts[best]))
    out = []
    for i in range(4):
        (p1, n1), (p2, n2) = lines[i - 1], lines[i]  # side i-1 ends and side i starts at corner i
        m = np.array([n1, n2])
        if abs(np.linalg.det(m)) < 0.2:
            return quad
        out.append(np.linalg.solve(m, [n1 @ p1, n2 @ p2]))
    out = np.array(out)
    if np.max(np.linalg.norm(out - quad, axis=1)) > 0.15 * short:
        return quad
    return out


def rectify(image: Image.Image, quad: np.ndarray, turns: int = 0) -> Image.Image:
    """The card inside `quad` (clockwise from top-left) warped flat and upright,
    `FACE_H` px tall; `turns` rotates the corner order by quarter turns first."""
    import cv2

    q = np.roll(order_corners(quad), -turns, axis=0)
    side = lambda a, b: float(np.linalg.norm(q[a] - q[b]))  # noqa: E731
    width = (side(0, 1) + side(3, 2)) / 2
    height = (side(0, 3) + side(1, 2)) / 2
    aspect = float(np.clip(width / max(height, 1e-6), 0.55, 0.75))
    fw = round(FACE_H * aspect)
    dst = np.array([[0, 0], [fw - 1, 0], [fw - 1, FACE_H - 1], [0, FACE_H - 1]], np.float32)
    m = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
    out = cv2.warpPerspective(np.asarray(image), m, (fw, FACE_H), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_REPLICATE)
    return Image.fromarray(out)


def read_face(models: Models, face: Image.Image) -> np.ndarray:
    """Class probabilities of an upright face: its two index corners read as the runtime
    reads a card's (`far_end` tells the numeral upside down), averaged."""
    w, h = face.size
    corners = ((0.0, 0.0, CORNER_W * w, CORNER_H * h), ((1 - CORNER_W) * w, (1 - CORNER_H) * h, float(w), float(h)))
    crops = [(box, 0, far_end(box, (w / 2, h / 2), 0)) for box in corners]
    return classify_corners(models, face, (1.0, 1.0), crops).mean(axis=0)


def find_cards(models: Models, image: Image.Image) -> list[np.ndarray]:
    """The outlines of the cards in a photo, in rows top to bottom, each left to right:
    the cards found at `CARD_CONF` or more by the detector's coarse pass or its fine pass
    (each card about 150 px, around the coarse pass's proposals)."""
    small = image.copy()
    small.thumbnail((DETECT_LONG, DETECT_LONG))
    d = coarse(models, small, image.size).of(CARD)
    if not len(d):
        return []
    ref = float(np.percentile(np.maximum(d.boxes[:, 2] - d.boxes[:, 0], d.boxes[:, 3] - d.boxes[:, 1]), 75))
    _, sharp = fine(models, small, image.size, [tuple(map(float, b)) for b in d.boxes], ref)
    cards = np.concatenate([sharp, np.c_[d.boxes, d.scores]])
    cards = cards[cards[:, 4] >= CARD_CONF]
    cards = cards[nms(cards[:, :4], cards[:, 4], 0.5)]  # best first
    cards = suppress_contained(cards)
    rgb = np.asarray(image)
    return in_rows([outline(rgb, b[:4]) for b in cards])


def in_rows(quads: list[np.ndarray]) -> list[np.ndarray]:
    """Quads in reading order: a new row where a centre lies more than half a card's
    height below the row's first."""
    if not quads:
        return []
    centres = np.array([q.mean(0) for q in quads])
    height = float(np.median([np.ptp(q[:, 1]) for q in quads]))
    rows: list[list[int]] = []
    for i in np.argsort(centres[:, 1]):
        if rows and centres[i, 1] - centres[rows[-1][0], 1] < 0.5 * height:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    return [quads[i] for row in rows for i in sorted(row, key=lambda k: centres[k, 0])]


def upright_face(models: Models, image: Image.Image, quad: np.ndarray) -> tuple[Image.Image, np.ndarray]:
    """The face standing up, and its class probabilities. A card lying on its side is
    read both ways up and kept as the readers find it surer (not `other`)."""
    q = order_corners(quad)
    landscape = np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[3] - q[0])
    best: tuple[float, Image.Image, np.ndarray] | None = None
    for turns in ((1, 3) if landscape else (0,)):
        face = rectify(image, q, turns)
        p = read_face(models, face)
        score = float(p.max()) if models.names[int(p.argmax())] != "other" else 0.0
        if best is None or score > best[0]:
            best = (score, face, p)
    assert best is not None
    return best[1], best[2]


def _load(photo: Path) -> Image.Image:
    """A photo upright, or `EnrollError` naming it."""
    try:
        return load_image(photo)
    except (ImageError, OSError) as exc:
        raise EnrollError(f"{photo}: {exc}") from None


def enroll(photos: list[Path], out: Path, models: Models, back: Path | None = None) -> dict:
    """Cut the 40 faces out of `photos` (see the module's doc) into `out`; the report,
    also written to `out/deck.json`. `EnrollError` if the photos do not hold 40 cards."""
    found: list[tuple[Path, Image.Image, list[np.ndarray]]] = []
    for photo in photos:
        image = _load(photo)
        found.append((photo, image, find_cards(models, image)))
    counts = {str(p): len(q) for p, _, q in found}
    total = sum(counts.values())
    if total != len(ORDER):
        per = ", ".join(f"{p}: {n}" for p, n in counts.items())
        raise EnrollError(f"found {total} cards ({per}); a Mus deck has {len(ORDER)}: lay all of them face up, "
                          "apart, on a plain surface, each photo holding whole cards only")
    back_face = None
    if back is not None:  # before anything is written: a bad back photo leaves no half deck
        image = _load(back)
        quads = find_cards(models, image)
        if not quads:
            raise EnrollError(f"{back}: no card found for the back")
        back_face = rectify(image, max(quads, key=lambda q: float(np.ptp(q[:, 0]) * np.ptp(q[:, 1]))))
    faces: list[Face] = []
    for photo, image, quads in found:
        for quad in quads:
            face, p = upright_face(models, image, quad)
            j = int(p.argmax())
            faces.append(Face(face, str(photo), tuple(map(tuple, quad.round(1).tolist())),
                              models.names[j], float(p[j])))
    out.mkdir(parents=True, exist_ok=True)
    size = (int(np.median([f.image.width for f in faces])), FACE_H)  # one deck, one size
    cards = {}
    for name, f in zip(ORDER, faces, strict=True):
        f.image.resize(size, Image.Resampling.LANCZOS).save(out / f"{name}.png")
        cards[name] = {"photo": f.photo, "quad": f.quad, "read": f.read, "conf": round(f.conf, 3)}
    if back_face is not None:
        back_face.resize(size, Image.Resampling.LANCZOS).save(out / "back.png")
    agree = sum(c["read"] == n for n, c in cards.items())
    report = {"format": DECK_FORMAT, "order": list(ORDER), "photos": [str(p) for p in photos],
              "back": str(back) if back else None, "agree": agree, "cards": cards}
    (out / ENROLLED).write_text(json.dumps(report, indent=1) + "\n")
    sheet(faces, list(ORDER)).save(out / "sheet.jpg", quality=90)
    return report


def sheet(faces: list[Face], names: list[str], cols: int = 10, h: int = 200) -> Image.Image:
    """The faces side by side, each under its name (and what the readers read, where they differ)."""
    w = round(h * CARD_ASPECT)
    rows = -(-len(faces) // cols)
    im = Image.new("RGB", (cols * (w + 8) + 8, rows * (h + 30) + 8), (40, 40, 40))
    d = ImageDraw.Draw(im)
    for k, (f, n) in enumerate(zip(faces, names, strict=True)):
        x, y = 8 + (k % cols) * (w + 8), 8 + (k // cols) * (h + 30)
        im.paste(f.image.resize((w, h)), (x, y))
        d.text((x, y + h + 4), n if f.read == n else f"{n} (read {f.read})",
               fill=(255, 255, 255) if f.read == n else (255, 180, 60))
    return im


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.enroll", description=__doc__.split("\n")[0])
    p.add_argument("photos", nargs="+", metavar="PHOTO", help="photos of the 40 cards laid out, in the deck's order")
    p.add_argument("--out", required=True, help="the folder for the deck's faces")
    p.add_argument("--back", help="a photo of one card's back (default: a plain back is drawn)")
    p.add_argument("--models", default=None, help="the models that find and read the cards (default: the shipped ones)")
    args = p.parse_args(argv)
    try:
        report = enroll([Path(x) for x in args.photos], Path(args.out), Models(args.models),
                        Path(args.back) if args.back else None)
    except (EnrollError, ImageError) as exc:
        print(f"enroll: {exc}", file=sys.stderr)
        return 2
    agree = report["agree"]
    print(f"{len(ORDER)} faces written to {args.out}; the readers agree with the order on {agree} "
          f"(check {Path(args.out) / 'sheet.jpg'})")
    if agree < AGREE_WARN * len(ORDER):
        print(f"enroll: warning: only {agree} of {len(ORDER)} faces read as the order says: were the cards "
              "laid oros, copas, espadas, bastos, each 1 to 7, 10, 11, 12, in rows from the top left?",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Evaluate the shipped recognizer on fresh synthetic showdowns and write the model card.

    python -m datasets.evaluate --models models --n 100 --seed 7001 \
        [--cross-models runs/cross-models --cross-n 100] [--retake] [--min-spread 0.5]
        [--card models/MODEL_CARD.md | --no-card] [--json-dir runs/eval]

The card's figures: `--models models --n 100 --cross-models models/cross-deck --retake`.

(a) same decks: showdowns drawn from both decks with a seed the training never used;
(b) cross-deck: Fournier-1878-only showdowns read with models trained without that deck.
Each set is read end to end by the runtime (`scorer.vision.Recognizer`) and scored:
per-card precision/recall/F1, the rank confusion matrix (a true card against the card
read at its place), the share of showdowns read fully right (all 16 cards in the right
seats), ms per photo; and, as a stage figure, the classifier alone on the true corner
boxes. With `--retake`, a second photo of each table as well (`render_scene(retake=)`:
the same cards, another view, light and glare), scored alone and read together with the
first (`scorer.vision.combine`), as "Add a photo" does at the table. Results go to
`<--json-dir>/<set>.json` (default `runs/eval/`) and between the `eval` markers of the card;
with `--no-card`, only printed (no file written, unless `--json-dir` is given). With `--min-spread S`,
every hand lies spread at least S of a card's width, from the same draws (the showdown
page asks for 0.5); the card's figures are without.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from datasets.render import DECKS, MUS_CARDS, MUS_RANKS, NON_MUS_CARDS, render_scene
from scorer.vision.layout import LOW_CONFIDENCE
from scorer.vision.model import DET_FILE
from scorer.vision.pipeline import COURT_MASS

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- eval:begin -->", "<!-- eval:end -->"
RANK_COLS = [str(r) for r in MUS_RANKS] + ["8", "9", "other", "none"]


def _rank(name: str | None) -> str:
    if not name:
        return "none"
    if name == "other":
        return "other"
    return name.rstrip("ocebOCEB") or name


def _pair(truth: list[dict], pred: list[dict]) -> dict[int, int]:
    """Greedy one-to-one pairing of true and read cards by box overlap (IoU >= 0.2)."""
    from scorer.vision.layout import iou

    pairs = sorted(
        ((iou(t["box"], p["box"]), i, j) for i, t in enumerate(truth) for j, p in enumerate(pred) if p.get("box")),
        reverse=True,
    )
    out: dict[int, int] = {}
    used: set[int] = set()
    for v, i, j in pairs:
        if v < 0.2:
            break
        if i not in out and j not in used:
            out[i] = j
            used.add(j)
    return out


def _classifier_on_truth(models, scenes: list) -> dict | None:
    """Top-1 accuracy of the runtime's classifier (`scorer.vision.model.Models`) on crops
    of the true corner boxes, in batches of 256, with the share of right ranks and of
    right suits (the `other` class counts as wrong for both). Where the models include a
    rank reader: its own share of right ranks on the true corners' numerals
    (`reader_rank`), and the three shares again for the two combined (`with_reader`).
    Where they include a court suit reader as well: the three shares with both readers
    (`with_suit_reader`)."""
    from scorer.vision.crops import corner_crop, far_end, index_crop
    from scorer.vision.model import combine, combine_suits, to_tensor

    batch, numerals, labels = [], [], []
    for sc in scenes:
        for c in sc.cards:
            q = c["quarter_turns"]
            centre = tuple(np.mean(np.array(c["quad"]), axis=0))
            for k in c["corners"]:
                if k["labelled"]:
                    box = tuple(k["box"])
                    batch.append(to_tensor(np.asarray(corner_crop(sc.image, box, q, size=models.cls_size))))
                    if models.index is not None:
                        crop = index_crop(sc.image, box, q, far_end(box, centre, q), size=models.index_size)
                        numerals.append(to_tensor(np.asarray(crop)))
                    labels.append(c["card"])
    if not batch:
        return None
    probs = _batched(models.classify, batch)
    out = _shares([models.names[int(p.argmax())] for p in probs], labels)
    if numerals:
        ranks = _batched(models.read_ranks, numerals)
        out["reader_rank"] = sum(models.ranks[int(r.argmax())] == t[:-1] for r, t in zip(ranks, labels, strict=True)) / len(labels)
        both = combine(probs, models.names, ranks, models.ranks, models.index_weight)
        out["with_reader"] = _shares([models.names[int(p.argmax())] for p in both], labels)
        if models.suit is not None:  # the crops are the classifier's, as in the runtime
            suits = _batched(models.read_suits, batch)
            court = both[:, models.court].sum(axis=1) >= COURT_MASS
            both[court] = combine_suits(both[court], models.names, suits[court], models.suits, models.suit_weight)
            out["with_suit_reader"] = _shares([models.names[int(p.argmax())] for p in both], labels)
    return out


def _batched(run, tensors: list[np.ndarray], size: int = 256) -> np.ndarray:
    """`run` over `tensors` stacked in batches of `size`, the outputs concatenated."""
    return np.concatenate([run(np.stack(tensors[i : i + size])) for i in range(0, len(tensors), size)])


def _shares(pred: list[str], labels: list[str]) -> dict:
    """Top-1, right rank and right suit shares of corner reads (`other` is wrong for both)."""
    pairs = list(zip(pred, labels, strict=True))
    n = len(labels)
    return {
        "top1": sum(p == t for p, t in pairs) / n,
        "rank": sum(p != "other" and p[:-1] == t[:-1] for p, t in pairs) / n,
        "suit": sum(p != "other" and p[-1] == t[-1] for p, t in pairs) / n,
        "corners": n,
    }


def readable_showdown(seed: int, i: int, decks: tuple[str, ...], size: tuple[int, int], bottom: int,
                      tries: int = 20, extras: bool = False, retake: bool = False, min_spread: float = 0.0,
                      draws: int | None = None):
    """Showdown `i` of `seed`, drawn again (next sub-seed) while one of its 16 cards shows
    no index corner (a glass or another card over both): players lay their cards with
    the indices showing, and a hidden index is not a reading error. With `extras`, 8s and
    9s of naipes-libres (the one deck of 48 here; only where `decks` holds it) lie among
    the coins, glasses and backs, as the rest of a 48-card pack does at a table (a
    different draw). Returns the scene and the number of draws it took; with `retake`,
    another photo of that table instead (`retake` = seed x 1000 + i); with `min_spread`,
    every hand spread at least that share of a card's width. A retake given `draws` (the
    count the first call returned) is rendered at once, without drawing the table again."""
    def sub_seed(k: int) -> list[int]:
        return [seed, i] if k == 0 else [seed, i, k]

    if retake and draws is not None:
        k = draws - 1
    else:
        for k in range(tries):
            scene = render_scene(np.random.default_rng(sub_seed(k)), kind="table", size=size, decks=decks,
                                 bottom=bottom, card_extras=extras, min_spread=min_spread)
            seated = [c for c in scene.cards if c["seat"] is not None]
            if len(seated) == 16 and all(any(corner["labelled"] for corner in c["corners"]) for c in seated):
                break
    if retake:
        scene = render_scene(np.random.default_rng(sub_seed(k)), kind="table", size=size, decks=decks, bottom=bottom,
                             card_extras=extras, retake=seed * 1000 + i, min_spread=min_spread)
    return scene, k + 1


def _fully_right(res: dict, hands: list[list[str]] | None) -> bool:
    """All 16 cards read, each in its seat."""
    got = res.get("hands")
    return bool(got and hands) and all(h is not None and sorted(h) == sorted(t) for h, t in zip(got, hands, strict=True))


def evaluate(model_dir: Path, n: int, seed: int, decks: tuple[str, ...], size: tuple[int, int],
             truth_classifier: bool = True, progress: bool = True, extras: bool = False,
             retake: bool = False, min_spread: float = 0.0) -> dict:
    """Render `n` showdowns from `decks` (with `extras`, 8s and 9s among the distractors),
    read them with the runtime, and score them (with `truth_classifier`, also the
    classifier alone on the true corner boxes; with `retake`, a second photo of each
    table alone and read together with the first)."""
    from scorer.vision import Recognizer, combine

    rec = Recognizer(model_dir)
    stats = {c: {"tp": 0, "fp": 0, "fn": 0} for c in MUS_CARDS}
    confusion = {r: dict.fromkeys(RANK_COLS, 0) for r in map(str, MUS_RANKS)}
    full_right = cards_right = seats_right = 0
    silent_wrong = wrong_reads = wrong_flagged = right_flagged = unfamiliar = 0
    times: list[float] = []
    scenes = []
    rng0 = np.random.default_rng(seed)
    redrawn = extras_shown = extras_named = extras_misread = 0
    two = {"second_alone": 0, "together": 0, "together_wrong_without_warning": 0}
    for i in tqdm(range(n), desc=f"eval {'+'.join(decks)}", disable=not progress):
        scene, tries = readable_showdown(seed, i, decks, size, int(rng0.integers(4)), extras=extras,
                                         min_spread=min_spread)
        redrawn += tries > 1
        scenes.append(scene)
        t0 = time.perf_counter()
        res = rec.scan(scene.image, bottom=scene.bottom)
        times.append((time.perf_counter() - t0) * 1000)
        truth = [c for c in scene.cards if c["seat"] is not None]
        eights = [(c["card"], np.array(c["quad"])) for c in scene.cards
                  if c["seat"] is None and c["card"] in NON_MUS_CARDS]
        extras_shown += len(eights)
        got = [c["card"] for c in res["cards"]]
        true_names = {c["card"] for c in truth}
        seen: set[str] = set()
        for name in got:
            if name in stats:
                if name in true_names and name not in seen:
                    stats[name]["tp"] += 1
                else:
                    stats[name]["fp"] += 1
            seen.add(name)
        for name in true_names - seen:
            stats[name]["fn"] += 1
        cards_right += len(true_names & seen)
        # a dealt card read by its name is on the diagonal; the others against the read card at
        # their place (box overlap) among the reads that named no dealt card
        left = [c for c in res["cards"] if c["card"] not in true_names]
        unread = [t for t in truth if t["card"] not in seen]
        pairs = _pair(unread, left)
        for t in truth:
            if t["card"] in seen:
                confusion[_rank(t["card"])][_rank(t["card"])] += 1
        for ti, t in enumerate(unread):
            p = left[pairs[ti]] if ti in pairs else None
            col = _rank(p["card"]) if p else "none"
            confusion[_rank(t["card"])][col if col in RANK_COLS else "other"] += 1
        # a read is right when it names a dealt card in its seat (a name read twice: once);
        # a dealt card is in its seat when such a read names it (names are unique in a deal)
        truth_seat = {t["card"]: t["seat"] for t in truth}
        counted: set[str] = set()
        for c in res["cards"]:
            unsure = c["conf"] < LOW_CONFIDENCE
            x1, y1, x2, y2 = c["box"]
            under = {name for name, q in eights if _inside(((x1 + x2) / 2, (y1 + y2) / 2), q)}
            if c["card"] in under:  # an 8 or 9 read as itself: no Mus card, no seat
                extras_named += 1
                continue
            if truth_seat.get(c["card"], -1) == c.get("seat") and c["card"] not in counted:
                counted.add(c["card"])
                seats_right += 1
                right_flagged += unsure
            else:
                wrong_reads += 1
                wrong_flagged += unsure
                extras_misread += bool(under) and c["card"] not in NON_MUS_CARDS
        unfamiliar += any(w["code"] == "unfamiliar_deck" for w in res["warnings"])
        if _fully_right(res, scene.hands):
            full_right += 1
        elif not res["warnings"]:
            silent_wrong += 1
        if retake:
            again, _ = readable_showdown(seed, i, decks, size, scene.bottom, extras=extras, retake=True,
                                         min_spread=min_spread, draws=tries)
            second = rec.scan(again.image, bottom=again.bottom)
            together = combine([res, second])
            two["second_alone"] += _fully_right(second, again.hands)
            if _fully_right(together, scene.hands):
                two["together"] += 1
            elif not together["warnings"]:
                two["together_wrong_without_warning"] += 1
    per_card = {}
    for c, s in stats.items():
        p = s["tp"] / (s["tp"] + s["fp"]) if s["tp"] + s["fp"] else 0.0
        r = s["tp"] / (s["tp"] + s["fn"]) if s["tp"] + s["fn"] else 0.0
        per_card[c] = {**s, "precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}
    tp = sum(s["tp"] for s in stats.values())
    fp = sum(s["fp"] for s in stats.values())
    fn = sum(s["fn"] for s in stats.values())
    # a card neither dealt nor read (a small run) has no F1 to speak of: left out of the mean
    scored = [v["f1"] for v in per_card.values() if v["tp"] + v["fp"] + v["fn"]]
    micro_p = tp / (tp + fp) if tp + fp else 0.0
    micro_r = tp / (tp + fn) if tp + fn else 0.0
    return {
        "decks": list(decks),
        "photos": n,
        "seed": seed,
        "size": list(size),
        "models": str(model_dir),
        "redrawn": redrawn,
        "min_spread": min_spread or None,
        "extras": {"shown": extras_shown, "named": extras_named, "read_as_mus_cards": extras_misread}
        if extras else None,
        "showdowns_fully_right": full_right / n if n else 0.0,
        "cards_read_right": cards_right / (16 * n) if n else 0.0,
        "cards_right_in_seat": seats_right / (16 * n) if n else 0.0,
        "showdowns_wrong_without_warning": silent_wrong / n if n else 0.0,
        "showdowns_unfamiliar_deck": unfamiliar / n if n else 0.0,
        "two_photos": {k: v / n for k, v in two.items()} if retake and n else None,
        "flagged": {"wrong_reads": wrong_reads, "wrong_flagged": wrong_flagged,
                    "right_reads": seats_right, "right_flagged": right_flagged},
        "micro": {"precision": micro_p, "recall": micro_r,
                  "f1": 2 * micro_p * micro_r / (micro_p + micro_r) if micro_p + micro_r else 0.0},
        "macro_f1": float(np.mean(scored)) if scored else 0.0,
        "macro_cards": len(scored),
        "ms_per_photo": {"median": float(np.median(times)), "mean": float(np.mean(times))} if times else {},
        "classifier_on_true_corners": _classifier_on_truth(rec.models, scenes) if truth_classifier else None,
        "per_card": per_card,
        "rank_confusion": confusion,
    }


def _inside(point: tuple[float, float], quad: np.ndarray) -> bool:
    """Whether `point` lies inside the convex quadrilateral `quad` (4x2, either winding)."""
    p = np.asarray(point, np.float64)
    edges = np.roll(quad, -1, axis=0) - quad
    cross = edges[:, 0] * (p[1] - quad[:, 1]) - edges[:, 1] * (p[0] - quad[:, 0])
    return bool((cross >= 0).all() or (cross <= 0).all())


def _truth_cell(r: dict) -> str:
    c = r["classifier_on_true_corners"]
    if c is None:
        return "n/a"
    return _shares_cell(c, corners=True)


def _shares_cell(c: dict, corners: bool = False) -> str:
    """Top-1 with the rank and suit shares, as `98.5% (99.7%, 98.8%)`, and with
    `corners` the number of corners, as `98.5% (99.7%, 98.8%; 1708 corners)`."""
    n = f"; {c['corners']} corners" if corners else ""
    return f"{c['top1']:.1%} ({c['rank']:.1%}, {c['suit']:.1%}{n})"


def _reader_rows(r: dict) -> list[str]:
    """The rank reader's rows, where the models have one."""
    c = r["classifier_on_true_corners"]
    if not c or "with_reader" not in c:
        return []
    w = c["with_reader"]
    rows = [f"| rank reader alone on the true corners' numerals: rank right | {c['reader_rank']:.1%} |",
            f"| classifier with the rank reader on true corner boxes: top-1 (rank right, suit right) | "
            f"{_shares_cell(w)} |"]
    if "with_suit_reader" in c:
        rows.append(f"| ... and with the court suit reader: top-1 (rank right, suit right) | "
                    f"{_shares_cell(c['with_suit_reader'])} |")
    return rows


def _draws(k: int) -> str:
    """How many first draws were drawn again, as the start of a sentence."""
    return "No first draw had" if k == 0 else "1 first draw had" if k == 1 else f"{k} first draws had"


def _macro_cards(r: dict) -> str:
    """Which cards the macro F1 averages: all of them, or those dealt or read (a card
    neither dealt nor read in a small run has no F1, and is left out)."""
    total = len(r["per_card"])
    k = r.get("macro_cards", total)
    return f"{total} cards" if k == total else f"{k} cards dealt or read; {total - k} neither, left out"


def _prf(s: dict) -> str:
    """A card's precision, recall and F1 cells; dashes for a card neither dealt nor read."""
    if not s["tp"] + s["fp"] + s["fn"]:
        return "– | – | –"
    return f"{s['precision']:.2f} | {s['recall']:.2f} | {s['f1']:.2f}"


def _share(k: int, n: int) -> str:
    return f"{k} of {n} ({k / n:.0%})" if n else "0 of 0"


def _extras_line(r: dict) -> str:
    """Where 8s and 9s lay among the distractors: how many, how many were read as themselves
    and how many as Mus cards."""
    e = r.get("extras")
    if not e:
        return ""
    return (f" 8s and 9s of the drawn deck lay among the distractors: {e['shown']} in all, {e['named']} "
            f"read as themselves (no seat, a `not_mus_card` warning; not counted as reads below), "
            f"{e['read_as_mus_cards']} read as a Mus card (counted among the wrong reads).")


def _two_photo_rows(r: dict) -> list[str]:
    """With `--retake`: a second photo of each table, alone and read together with the first."""
    t = r.get("two_photos")
    if not t:
        return []
    return [f"| a second photo of each table: fully right alone / read together with the first | "
            f"{t['second_alone']:.1%} / {t['together']:.1%} |",
            f"| the two read together: wrong with no warning | {t['together_wrong_without_warning']:.1%} |"]


def to_markdown(title: str, r: dict) -> str:
    """One evaluation as a section of the model card."""
    f = r["micro"]
    fl = r["flagged"]
    lines = [
        f"### {title}",
        "",
        f"{r['photos']} synthetic showdowns, {r['size'][0]}x{r['size'][1]}, decks {', '.join(r['decks'])}, "
        f"seed {r['seed']}, models `{r['models']}`{'; ' + r['note'] if r.get('note') else ''}. "
        f"{_draws(r.get('redrawn', 0))} a card with both "
        "index corners hidden (under a glass or other cards) and were drawn again: players lay their cards "
        "with the indices showing." + _extras_line(r)
        + (f" Every hand spread at least {r['min_spread']} of a card's width." if r.get("min_spread") else ""),
        "",
        "| figure | value |",
        "|---|---|",
        f"| showdowns read fully right (16 cards, right seats) | {r['showdowns_fully_right']:.1%} |",
        f"| cards read (right name, any seat) | {r['cards_read_right']:.1%} |",
        f"| cards read in the right seat | {r['cards_right_in_seat']:.1%} |",
        f"| showdowns read wrong with no warning at all (silent errors) | {r['showdowns_wrong_without_warning']:.1%} |",
        *_two_photo_rows(r),
        *([f"| showdowns warned that the deck may be one the readers never learnt (`unfamiliar_deck`) | "
           f"{r['showdowns_unfamiliar_deck']:.1%} |"] if "showdowns_unfamiliar_deck" in r else []),
        f"| wrong reads flagged as unsure (confidence < {LOW_CONFIDENCE}) | {_share(fl['wrong_flagged'], fl['wrong_reads'])} |",
        f"| right reads flagged as unsure | {_share(fl['right_flagged'], fl['right_reads'])} |",
        f"| per-card micro precision / recall / F1 | {f['precision']:.5f} / {f['recall']:.5f} / {f['f1']:.5f} |",
        f"| per-card macro F1 ({_macro_cards(r)}) | {r['macro_f1']:.5f} |",
        "| classifier alone on true corner boxes: top-1 (rank right, suit right) | " + _truth_cell(r) + " |",
        *_reader_rows(r),
        f"| ms per photo (median / mean, this machine's shared CPU) | "
        f"{r['ms_per_photo'].get('median', 0):.0f} / {r['ms_per_photo'].get('mean', 0):.0f} |",
        "",
        "<details><summary>Per-card precision / recall / F1</summary>",
        "",
        "| card | P | R | F1 | card | P | R | F1 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    items = list(r["per_card"].items())
    half = (len(items) + 1) // 2
    for (a, x), (b, y) in zip(items[:half], items[half:], strict=False):
        lines.append(f"| {a} | {_prf(x)} | {b} | {_prf(y)} |")
    lines += ["", "</details>", "", "Rank confusion (rows: true rank; columns: the rank read: a dealt card read by its name "
              "anywhere counts on the diagonal, any other against the stray read at its place; "
              "`none`: no card read there):", "", "| true \\ read | " + " | ".join(RANK_COLS) + " |",
              "|---" * (len(RANK_COLS) + 1) + "|"]
    for t, row in r["rank_confusion"].items():
        lines.append(f"| **{t}** | " + " | ".join(str(row[c]) for c in RANK_COLS) + " |")
    return "\n".join(lines) + "\n"


def write_card(card: Path, sections: list[str]) -> None:
    """Replace the text between the eval markers of the model card (appended if absent)."""
    body = BEGIN + "\n\n" + "\n".join(sections) + "\n" + END
    text = card.read_text() if card.exists() else "# Model card\n\n## Evaluation\n\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + body + rest.split(END, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + body + "\n"
    card.parent.mkdir(parents=True, exist_ok=True)
    card.write_text(text)


def with_detector(cross: Path, shipped: Path, into: Path) -> tuple[Path, str | None]:
    """The cross-deck model folder to read with: `cross` itself when it has a detector,
    else `into` holding links to `cross`'s files and to `shipped`'s detector (a detector
    finds cards and corners, not names; the card says whose it is). Returns the folder
    and the note for the card (None when nothing was borrowed)."""
    if (cross / DET_FILE).exists():
        return cross, None
    if not (shipped / DET_FILE).exists():
        raise SystemExit(f"--cross-models {cross} has no {DET_FILE}, and --models {shipped} none to lend")
    into.mkdir(parents=True, exist_ok=True)
    for f in cross.iterdir():
        if f.is_file():
            (into / f.name).symlink_to(f.resolve())
    (into / DET_FILE).symlink_to((shipped / DET_FILE).resolve())
    return into, f"the detector is `{shipped}`'s, which was trained on both decks"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.evaluate", description=__doc__.split("\n")[0])
    p.add_argument("--models", default=str(ROOT / "models"), help="folder with the models to evaluate")
    p.add_argument("--n", type=int, default=100, help="showdowns per set")
    p.add_argument("--seed", type=int, default=7001)
    p.add_argument("--size", default="1600x1200")
    p.add_argument("--cross-models", help="models trained without the Fournier 1878 deck (a folder without "
                   "cards-det.onnx borrows --models' detector, and the card says so)")
    p.add_argument("--cross-n", type=int, default=0, help="Fournier-only showdowns (default --n)")
    p.add_argument("--extras", action="store_true", help="8s and 9s of the drawn deck among the distractors "
                   "(another draw of the showdowns; the figures in the card are without)")
    p.add_argument("--retake", action="store_true", help="a second photo of each table too, alone and read "
                   "together with the first (`scorer.vision.combine`)")
    p.add_argument("--min-spread", type=float, default=0.0, help="every hand spread at least this share of a "
                   "card's width, from the same draws (the showdown page asks for 0.5; default 0: as drawn)")
    p.add_argument("--card", default=str(ROOT / "models" / "MODEL_CARD.md"))
    p.add_argument("--no-card", action="store_true",
                   help="print only: neither the card nor the json files are written (unless --json-dir)")
    p.add_argument("--json-dir", help="folder for each set's figures as json, <set>.json "
                   "(default runs/eval; none with --no-card)")
    args = p.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    out = Path(args.json_dir) if args.json_dir else None if args.no_card else ROOT / "runs" / "eval"
    if out:
        out.mkdir(parents=True, exist_ok=True)
    sections = []
    runs = [("(a) Same decks, new seed", "same", Path(args.models), DECKS)]
    if args.cross_models:
        runs.append(("(b) Cross-deck: Fournier 1878 held out of training", "cross", Path(args.cross_models),
                     ("fournier-1878",)))
    with tempfile.TemporaryDirectory(prefix="cross-models-") as scratch:
        for title, key, models, decks in runs:
            n = args.cross_n or args.n if key == "cross" else args.n
            note = None
            if key == "cross":
                models, note = with_detector(models, Path(args.models), Path(scratch) / "models")
            r = evaluate(models, n, args.seed + (1 if key == "cross" else 0), decks, size,  # type: ignore[arg-type]
                         extras=args.extras, retake=args.retake, min_spread=args.min_spread)
            if note:
                r["models"], r["note"] = args.cross_models, note
            if out:
                (out / f"{key}.json").write_text(json.dumps(r, indent=1))
            md = to_markdown(title, r)
            print(md)
            sections.append(md)
    if not args.no_card:
        write_card(Path(args.card), sections)
        print(f"wrote {args.card}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

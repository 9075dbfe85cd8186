#!/usr/bin/env bash
# One round of cross-deck training on a GPU machine that has torch but no registry:
# render crops on every core, then train the corner classifier and the rank reader on the
# GPU with datasets.fasttrain, several runs at once. The cross-deck runs see no Fournier
# 1878 face: the decks are the drawn deck and made-up ones (datasets.procedural). The runs
# fc and fi, candidates for the shipped models, also see a third set, f: both real decks,
# lightly restyled.
#
#   bash datasets/gpu_round.sh OUT_DIR
#
# It expects, beside the repository's files:
#   .whl/    ultralytics and ultralytics-thop wheels (the machine has torch, opencv, onnx);
#   .carry/cards/  the decks (../shared/cards), .carry/fonts/  the typefaces restyle draws
#   (python -m datasets.typefaces .carry/fonts, after installing its --packages).
# Knobs (environment): RENDER_S (seconds of rendering, 200), TRAIN_MIN (minutes of each
# training run, 4), SEED (80), RUNS (which runs, "xi xc si sc"); INIT_INDEX, INIT_CLS (a
# .state.pt of an earlier round, or a reader ONNX that `python -m datasets.ensemble split`
# wrote, carried, for the runs wi and wc; its own size, s or m), INIT_CLS_B (the same for the
# run wb, the classifier's member b, a yolo11m-cls), CROPS (both, or corner when no rank
# reader trains), SWAP (0.5: the drawn
# deck's numerals on other cards' art), DEVICE (cuda). The runs xi and xc start from
# models/cross-deck as it was when it held one model a reader; since the thirty-seventh
# session it holds two read as one: split them, and use wi and wc.
set -uo pipefail
OUT=${1:?usage: gpu_round.sh OUT_DIR}
RENDER_S=${RENDER_S:-200}
TRAIN_MIN=${TRAIN_MIN:-4}
SEED=${SEED:-80}
RUNS=${RUNS:-"xi xc si sc"}
W=/tmp/round
mkdir -p "$OUT" $W
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }

python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 MUS_CARDS_DIR=$PWD/.carry/cards
mkdir -p /usr/share/fonts/truetype/carried && cp .carry/fonts/* /usr/share/fonts/truetype/carried/
nproc; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
python3 -c "import torch, ultralytics, cv2; print('torch', torch.__version__, 'ultralytics', ultralytics.__version__, 'cv2', cv2.__version__)"
python3 -c "from datasets.restyle import fonts; print(len(fonts()), 'typefaces')"

stamp "made-up decks"
python3 -m datasets.procedural --out $W/pdecks --n 24 --seed 1 --workers 16 || exit 1
decks=$(ls -d $W/pdecks/p0* | paste -sd,)
sets="a b"
case " $RUNS " in *" fc "*|*" fi "*) sets="a b f" ;; esac
share=$(( $(nproc) / $(echo $sets | wc -w) )); [ "$share" -ge 1 ] || share=1
stamp "rendering for ${RENDER_S} s on $(nproc) cores"
# the drawn deck, numerals redrawn, swapped onto other cards' art, faded, zoomed out, art recoloured
timeout "$RENDER_S" python3 -m datasets.generate --out $W/a --seed "$SEED" --n 0 --cls-scenes 20000 --crops "${CROPS:-both}" \
  --restyle 0.8 --recolor 0.6 --fade 0.4 --swap "${SWAP:-0.5}" --index-zoom 0.6 --zoom-max 2.3 \
  --decks naipes-libres --workers "$share" > $W/a.log 2>&1 &
# the made-up decks, some numerals redrawn too
timeout "$RENDER_S" python3 -m datasets.generate --out $W/b --seed $((SEED + 1)) --n 0 --cls-scenes 20000 --crops "${CROPS:-both}" \
  --restyle 0.3 --recolor 0.3 --fade 0.3 --swap 0.3 --index-zoom 0.6 --zoom-max 2.3 \
  --decks "$decks" --workers "$share" > $W/b.log 2>&1 &
# both real decks, mostly as printed (the shipped models' candidates only)
case $sets in *f*)
timeout "$RENDER_S" python3 -m datasets.generate --out $W/f --seed $((SEED + 2)) --n 0 --cls-scenes 20000 --crops "${CROPS:-both}" \
  --restyle 0.3 --recolor 0.2 --fade 0.2 --swap 0.2 --index-zoom 0.6 --zoom-max 2.3 \
  --decks fournier-1878,naipes-libres --workers "$share" > $W/f.log 2>&1 & ;;
esac
wait
for d in $sets; do tail -c 300 $W/$d.log; echo; done
for d in $sets; do for k in cls index; do echo "$d/$k: $(find $W/$d/$k -name '*.png' | wc -l) crops"; done; done
stamp "training ${TRAIN_MIN} min: $RUNS"
for run in $RUNS; do
  case $run in
    xi) args="index --data $W/a/index $W/b/index --init models/cross-deck/cards-index.onnx --lr0 0.0005 --warmup 0.1" ;;
    si) args="index --data $W/a/index $W/b/index --arch s --lr0 0.002" ;;
    ni) args="index --data $W/a/index $W/b/index --arch n --lr0 0.002" ;;
    wi) args="index --data $W/a/index $W/b/index --init $INIT_INDEX --lr0 0.001 --warmup 0.1" ;;
    wc) args="cls --data $W/a/cls $W/b/cls --init $INIT_CLS --lr0 0.001 --warmup 0.1 --hue 0.5" ;;
    wb) args="cls --data $W/a/cls $W/b/cls --init $INIT_CLS_B --arch m --lr0 0.001 --warmup 0.1 --hue 0.5" ;;
    xc) args="cls --data $W/a/cls $W/b/cls --init models/cross-deck/cards-cls.onnx --lr0 0.0005 --warmup 0.1 --hue 0.5" ;;
    sc) args="cls --data $W/a/cls $W/b/cls --arch s --lr0 0.002 --hue 0.5" ;;
    mc) args="cls --data $W/a/cls $W/b/cls --arch m --lr0 0.0015 --hue 0.5" ;;
    mi) args="index --data $W/a/index $W/b/index --arch m --lr0 0.0015" ;;
    nc) args="cls --data $W/a/cls $W/b/cls --arch n --lr0 0.002 --hue 0.5" ;;
    fc) args="cls --data $W/a/cls $W/b/cls $W/f/cls --arch n --lr0 0.002 --hue 0.5" ;;
    fi) args="index --data $W/a/index $W/b/index $W/f/index --arch n --lr0 0.002" ;;
    *) echo "unknown run $run"; continue ;;
  esac
  # shellcheck disable=SC2086
  python3 -m datasets.fasttrain $args --seed "$SEED" --minutes "$TRAIN_MIN" --device "${DEVICE:-cuda}" --workers 4 --out $W/runs/$run.pt > $W/$run.log 2>&1 &
done
wait
# a file over 15 MB comes back in parts (the device returns files of at most 16 MiB): cat them here
for run in $RUNS; do
  echo "== $run"; grep -v "^unfused" $W/$run.log | tail -n 6
  f=$W/runs/$run.state.pt; [ -f "$f" ] || continue
  if [ "$(stat -c %s "$f")" -gt 15000000 ]; then split -b 11M "$f" "$OUT/$run.state.pt.part-"; else cp "$f" "$OUT/"; fi
done
for f in $W/*.log; do echo "===== $f"; cat "$f"; done > "$OUT/logs.txt"
stamp done

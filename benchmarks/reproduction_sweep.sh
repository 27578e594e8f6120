#!/usr/bin/env bash
# The CogScale reproduction sweep of docs/reproduction.md. Resumable: run it again and it goes on
# where it stopped (finished runs are skipped by run id, and so are the runs shipped with the
# package). Small first, then medium in two phases: Phase A trains each medium cell at the learning
# rate CogScale's published table chose (`--only lr=published`: 10 of its 50 runs, a complete cell
# for the comparison), Phase B the other learning rates; within a phase, the plan below in order.
# (The ESN has no learning rate: it runs in Phase B.)
#
#   bash benchmarks/reproduction_sweep.sh [RESULTS_DIR] [LANES]     # defaults: results-cogscale-paper, 2
#
# LANES one-thread processes share RESULTS_DIR through run claims (docs/train.md), each logging to
# RESULTS_DIR/lane<i>.log. Ship what finished with
#   rote-hf results --export-reproduction --results RESULTS_DIR
#
# Fleet sizes follow benchmarks/fleet_speed.md (one CPU thread): fleets pay at 1k and 10k; at 100k
# they are neutral or slower, except for the encoder-decoder (2.2x), so those cells run one at a
# time (--fleet 1, the exact path). Mamba's scan tensors grow with the fleet and the sequence: at 10k a
# fleet of 10 gains 1.8x on 12-step adding_problem but 1.0x on 50-step continuous_postcasting, and
# most tasks have 40-60 steps, so Mamba runs one at a time from 10k.
# These are CPU measurements; on a GPU (not measured here) run train.py with --fleet directly.
set -u
cd "$(dirname "$0")/.."
RESULTS=${1:-results-cogscale-paper}
LANES=${2:-2}
PYTHON=${PYTHON:-.venv/bin/python}
# model, budgets, fleet size
PLAN="lstm 1k,10k 25
lstm 100k 1
gru 1k,10k 25
gru 100k 1
transformer 1k,10k 25
transformer 100k 10
transformer-ed 1k,10k,100k 25
mamba 1k 25
mamba 10k 1
esn 1k,10k 1
xlstm 1k,10k 1
mamba 100k 1
xlstm 100k 1"
mkdir -p "$RESULTS"

lane() {
  # difficulty and the learning rates of each phase ("" = all of them)
  for phase in "small " "medium published" "medium "; do
    read -r difficulty lrs <<<"$phase"
    while read -r model budgets fleet; do
      [ -n "$lrs" ] && [ "$model" = esn ] && continue
      OMP_NUM_THREADS=1 "$PYTHON" eval_suite/train.py --config cogscale_paper --results "$RESULTS" \
        --only difficulty="$difficulty" --only model="$model" --only budget="$budgets" --fleet "$fleet" \
        ${lrs:+--only lr="$lrs"} --no-table </dev/null || return $?
    done <<<"$PLAN"
  done
}

for i in $(seq "$LANES"); do
  lane >"$RESULTS/lane$i.log" 2>&1 &
done
wait

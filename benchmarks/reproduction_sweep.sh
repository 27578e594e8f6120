#!/usr/bin/env bash
# The CogScale reproduction sweep of docs/reproduction.md. Resumable: run it again and it goes on
# where it stopped (finished runs are skipped by run id, and so are the runs shipped with the
# package). Small first, model by model (the families with a fleet path first), then medium.
#
#   bash benchmarks/reproduction_sweep.sh [RESULTS_DIR] [LANES]     # defaults: results-cogscale-paper, 2
#
# LANES one-thread processes share RESULTS_DIR through run claims (docs/train.md), each logging to
# RESULTS_DIR/lane<i>.log. Ship what finished with
#   rote-hf results --export-reproduction --results RESULTS_DIR
set -u
cd "$(dirname "$0")/.."
RESULTS=${1:-results-cogscale-paper}
LANES=${2:-2}
PYTHON=${PYTHON:-.venv/bin/python}
MODELS="lstm gru transformer transformer-ed mamba esn xlstm"
mkdir -p "$RESULTS"

lane() {
  for difficulty in small medium; do
    for model in $MODELS; do
      OMP_NUM_THREADS=1 "$PYTHON" eval_suite/train.py --config cogscale_paper --results "$RESULTS" \
        --only difficulty="$difficulty" --only model="$model" --no-table || return $?
    done
  done
}

for i in $(seq "$LANES"); do
  lane >"$RESULTS/lane$i.log" 2>&1 &
done
wait

"""``hf:<model_type>`` names in sweep configs: a CogScale fleet (one at a time: no batched forward)
and a ROTE sweep train transformers decoders into ordinary result rows."""

from __future__ import annotations

import pytest

from rote_hf.results import load
from rote_hf.train import SweepConfig, expand, run_specs

COGSCALE = """
name: hf_tiny
suite: cogscale
data: {tasks: [adding_problem], difficulties: [small], seeds: [0, 1]}
models:
  - {name: "hf:mamba2", budget: 1000}
learning_rates: [1.0e-2]
protocol: {batch_size: 50, max_epochs: 2, patience: 10}
"""

ROTE = """
name: hf_rote_tiny
suite: rote
data:
  seeds: {source: paper, track: main, symbols: [2], complexities: [10], seed_count: 1}
  sequence_length: 200
  window: 8
  horizon: 4
models:
  - {name: "hf:llama", hidden_size: 8}
protocol: {max_epochs: 2}
runs: 1
"""


def test_a_cogscale_fleet_of_hf_models_trains_one_at_a_time(tmp_path):
    (tmp_path / "c.yaml").write_text(COGSCALE)
    specs = expand(SweepConfig.from_yaml(tmp_path / "c.yaml"))
    assert [s.run_id.split("-")[1] for s in specs] == ["hf_mamba2", "hf_mamba2"]
    run_specs(specs, tmp_path / "results", progress=False, fleet=2)
    rows = load(tmp_path / "results")
    assert sorted(rows["status"]) == ["ok", "ok"] and set(rows["model"]) == {"hf:mamba2"}
    assert all(900 <= n <= 1100 for n in rows["param_count"])


def test_a_rote_sweep_trains_an_hf_model(tmp_path):
    (tmp_path / "r.yaml").write_text(ROTE)
    specs = expand(SweepConfig.from_yaml(tmp_path / "r.yaml"))
    run_specs(specs, tmp_path / "results", progress=False)
    rows = load(tmp_path / "results")
    assert list(rows["status"]) == ["ok"] and list(rows["model"]) == ["hf:llama"]


def test_an_unknown_type_is_refused_when_the_config_is_read(tmp_path):
    (tmp_path / "c.yaml").write_text(COGSCALE.replace("hf:mamba2", "hf:mamba3"))
    with pytest.raises(ValueError, match=r"models\[0\]\.name: 'hf:mamba3': unknown .*close matches: .*hf:mamba2"):
        expand(SweepConfig.from_yaml(tmp_path / "c.yaml"))

"""rote_hf.train: the sweep runner: sweep configs, the Accelerate loop, fleets of runs, and one
run's execution with its failure recorded as a row.

Which executor runs a spec is the suite's business (:mod:`rote_hf.suites`); the fit protocols
live in :mod:`rote_hf.protocols` and are re-exported here, as the 0.1 documentation named them.

Importing this package is cheap: torch and accelerate are imported inside the functions.

>>> from rote_hf.train import SweepConfig, expand, run_specs
>>> specs = expand(SweepConfig.from_yaml("eval_suite/configs/rote_smoke.yaml"))
>>> run_specs(specs, "results")          # inside `accelerate launch` or a plain process
"""

from rote_hf.protocols.cogscale import CogScaleData, CogScaleProtocol, fit_cogscale, fit_esn
from rote_hf.protocols.rote import RoteData, RoteProtocol, fit_rote, rollout
from rote_hf.train.config import RunSpec, SweepConfig, expand
from rote_hf.train.loop import LoopReport, check_world, make_accelerator, run_config, run_specs, shard
from rote_hf.train.suites import execute, run_cogscale, run_rote

__all__ = [
    "CogScaleData", "CogScaleProtocol", "LoopReport", "RoteData", "RoteProtocol", "RunSpec",
    "SweepConfig", "check_world", "execute", "expand", "fit_cogscale", "fit_esn", "fit_rote", "make_accelerator",
    "rollout", "run_cogscale", "run_config", "run_rote", "run_specs", "shard",
]

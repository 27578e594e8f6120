"""The CogScale training protocols (docs/train.md, "The protocols"), one fit.

Gradient models (``fit_cogscale``): Adam (default betas, no weight decay, no schedule), one
learning rate from the paper grid {1e-2, 3e-3, 1e-3, 3e-4, 1e-4}, batch 10 with a shuffled
order, at most 200 epochs, losses restricted to the prediction steps T (cross-entropy on the
argmax target, BCE-with-logits for multi-label, MSE for regression), early stopping with
patience 10 on the *validation score* (not the loss), best weights restored; validation and
test run in chunks of 10. Multi-label: the threshold is tuned on validation over
``linspace(0.01, 0.99, 100)`` to maximise exact-match accuracy (the reference's choice) and
the test score is label-wise at that threshold; ``best_val_score`` is at threshold 0.5.

Divergence (``on_divergence``): ``"fail"`` (default) records a fit whose training loss is not
finite as failed. ``"continue"`` is the reference's ``run.py``, which never checks the loss:
training goes on with the non-finite weights, their validation scores are compared like any
other, and the best weights are restored; the fit fails only when its test score is not finite.
The paper says nothing of divergence; both give the same fit when the loss stays finite.

ESN (``fit_esn``): a seeded reservoir (the reference's is not) with a closed-form ridge readout
fitted only on the T steps; the ridge is chosen from 1e-1 … 1e-9 on the validation score.

The seed drives both data (``build_task(..., seed)``) and initialisation, as in the paper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from rote_hf.cogscale.registry import CATEGORIES
from rote_hf.protocols.device import now
from rote_hf.protocols.rote import epoch_order, finite_losses
from rote_hf.results.provenance import array_fingerprint

RIDGE_GRID = tuple(10.0 ** -i for i in range(1, 10))  # 1e-1 … 1e-9
THRESHOLDS_N = 100
#: What a fit does when its training loss is not finite (module docstring).
ON_DIVERGENCE = ("fail", "continue")


@dataclass(frozen=True)
class CogScaleProtocol:
    """Settings of one CogScale gradient fit (paper cluster values as defaults)."""

    learning_rate: float = 1e-3
    batch_size: int = 10
    max_epochs: int = 200
    patience: int = 10
    eval_chunk: int = 10
    on_divergence: str = "fail"

    def __post_init__(self) -> None:
        if self.on_divergence not in ON_DIVERGENCE:
            raise ValueError(f"on_divergence must be one of {ON_DIVERGENCE}, got {self.on_divergence!r}")
        if not isinstance(self.learning_rate, (int, float)) or not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be a number > 0, got {self.learning_rate!r}")
        for name in ("batch_size", "max_epochs", "eval_chunk"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        if isinstance(self.patience, bool) or not isinstance(self.patience, int) or self.patience < 0:
            raise ValueError(f"patience must be an integer >= 0 (0 = no early stopping), got {self.patience!r}")


@dataclass(frozen=True)
class CogScaleData:
    """One task build: arrays ``X`` (N, time, in) float, ``Y`` (N, time, out) float, ``T`` (N, n_pred) int."""

    X_train: Any
    Y_train: Any
    T_train: Any
    X_valid: Any
    Y_valid: Any
    T_valid: Any
    X_test: Any
    Y_test: Any
    T_test: Any
    category: str
    fingerprint: str = ""

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"category must be one of {CATEGORIES}, got {self.category!r}")

    @classmethod
    def from_build(cls, built: Any) -> "CogScaleData":
        """From ``build_task``'s 10-tuple (X/Y/T train, valid, test, category) or a mapping with those keys."""
        keys = ("X_train", "Y_train", "T_train", "X_valid", "Y_valid", "T_valid", "X_test", "Y_test", "T_test", "category")
        if isinstance(built, Mapping):
            values = {k: built[k] for k in keys}
        else:
            built = tuple(built)
            if len(built) != len(keys):
                raise ValueError(f"built must have {len(keys)} items {keys}, got {len(built)}")
            values = dict(zip(keys, built))
        values["fingerprint"] = array_fingerprint([values[k] for k in keys[:-1]])
        return cls(**values)

    @property
    def input_size(self) -> int:
        return int(self.X_train.shape[-1])

    @property
    def output_size(self) -> int:
        return int(self.Y_train.shape[-1])


def gather_steps(arr: Any, steps: Any) -> Any:
    """``arr[i, steps[i], :]`` for every sample: (N, time, O), (N, n_pred) -> (N, n_pred, O)."""
    import numpy as np

    arr = np.asarray(arr)
    steps = np.asarray(steps, dtype=np.int64)
    return arr[np.arange(arr.shape[0])[:, None], steps]


def score_steps(y: Any, y_hat: Any, category: str, threshold: float | None = 0.5) -> float:
    """CogScale's score on gathered steps (lower is better), (docs/metrics.md), computed by the
    metric functions of :mod:`rote_hf.metrics.cogscale_score`. Both arrays (N, n_pred, O);
    for multi_classification ``y_hat`` are logits (sigmoid ≥ ``threshold``, default 0.5)."""
    import numpy as np

    from rote_hf.metrics.cogscale_score import CATEGORIES as SCORERS  # lazy: imports rapidfuzz

    if category not in SCORERS:
        raise ValueError(f"category must be one of {CATEGORIES}, got {category!r}")
    y = np.asarray(y, dtype=np.float64)
    y_hat = np.asarray(y_hat, dtype=np.float64)
    n_out = y.shape[-1]  # the scorers take (N*n_pred, O)
    return SCORERS[category](y_hat.reshape(-1, n_out), y.reshape(-1, n_out), 0.5 if threshold is None else threshold)


def best_exact_match_threshold(y: Any, logits: Any) -> float:
    """The threshold in ``linspace(0.01, 0.99, 100)`` with the lowest exact-match error (first on ties)."""
    import numpy as np

    probs = 1.0 / (1.0 + np.exp(-np.asarray(logits, dtype=np.float64)))
    truth = np.asarray(y) > 0.5
    best_t, best = 0.5, math.inf
    for t in np.linspace(0.01, 0.99, THRESHOLDS_N):
        err = 1.0 - np.mean(np.all((probs >= t) == truth, axis=(1, 2)))
        if err < best:
            best, best_t = err, float(t)
    return best_t


def _masked_loss(preds, targets, steps, category: str):
    import torch
    import torch.nn.functional as F

    rows = torch.arange(preds.shape[0], device=preds.device)[:, None]
    p, t = preds[rows, steps], targets[rows, steps]  # (B, n_pred, O)
    if category == "classification":
        return F.cross_entropy(p.reshape(-1, p.shape[-1]), t.argmax(-1).reshape(-1))
    if category == "multi_classification":
        return F.binary_cross_entropy_with_logits(p.reshape(-1, p.shape[-1]), t.reshape(-1, t.shape[-1]))
    return F.mse_loss(p, t)


def predict(model: Any, X: Any, chunk: int, device: Any):
    """Per-step outputs of ``model`` on ``X`` in chunks, eval mode, as a float64 numpy array.

    ``X`` (numpy or a tensor) is moved to ``device`` once; the host reads the outputs once.
    """
    import numpy as np
    import torch

    model.eval()
    X = torch.as_tensor(X if isinstance(X, torch.Tensor) else np.asarray(X), dtype=torch.float32).to(device)
    out = []
    with torch.no_grad():
        for s in range(0, len(X), chunk):
            out.append(model(X[s:s + chunk]).double())
    return torch.cat(out, dim=0).cpu().numpy()


@dataclass
class CogScaleFit:
    """What one fit produced. ``history``: per-epoch (train_loss_mean, valid_score)."""

    metrics: dict[str, float]
    epochs: int
    best_epoch: int
    train_time_s: float
    history: list[tuple[float, float]] = field(default_factory=list)


def fit_cogscale(build_model: Callable[[], Any], data: CogScaleData, protocol: CogScaleProtocol = CogScaleProtocol(),
                 *, seed: int = 0, device: Any = "cpu") -> tuple[Any, CogScaleFit]:
    """Train a fresh model (built right after ``torch.manual_seed(seed)``) under the CogScale protocol.

    ``build_model()`` returns an ``nn.Module`` mapping (B, time, in) floats to (B, time, out).
    A non-finite training loss raises ``ValueError`` (the run is recorded as failed); with
    ``protocol.on_divergence == "continue"`` training goes on as the reference's did, the first
    such epoch is ``metrics["diverged_epoch"]``, and only a non-finite test score raises.
    """
    import numpy as np
    import torch

    if not isinstance(data, CogScaleData):
        raise TypeError(f"data must be a CogScaleData, got {type(data).__name__}")
    device = torch.device(device)
    cat = data.category
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(seed)
        model = build_model().to(device)
        optimizer = torch.optim.Adam(model.parameters(), lr=protocol.learning_rate)
        # the run's data moves to the device once (not three copies per batch)
        X = torch.as_tensor(np.asarray(data.X_train), dtype=torch.float32).to(device)
        Y = torch.as_tensor(np.asarray(data.Y_train), dtype=torch.float32).to(device)
        T = torch.as_tensor(np.asarray(data.T_train), dtype=torch.long).to(device)
        X_valid = torch.as_tensor(np.asarray(data.X_valid), dtype=torch.float32).to(device)
        y_valid = gather_steps(data.Y_valid, data.T_valid)
        start = now(device)
        best, best_state, best_epoch, bad, epoch = math.inf, None, 0, 0, 0
        diverged_epoch = None
        history: list[tuple[float, float]] = []
        for epoch in range(1, protocol.max_epochs + 1):
            model.train()
            step_losses = []
            order = epoch_order(len(X)).to(device)
            for s in range(0, len(order), protocol.batch_size):
                idx = order[s:s + protocol.batch_size]
                optimizer.zero_grad()
                loss = _masked_loss(model(X[idx]), Y[idx], T[idx], cat)
                loss.backward()
                optimizer.step()
                step_losses.append(loss.detach())
            if protocol.on_divergence == "fail":
                losses = finite_losses(step_losses, epoch)  # one host read per epoch, not per step
            else:
                losses = torch.stack(step_losses).tolist()
                if diverged_epoch is None and not all(map(math.isfinite, losses)):
                    diverged_epoch = epoch
            valid_pred = gather_steps(predict(model, X_valid, protocol.eval_chunk, device), data.T_valid)
            val_score = score_steps(y_valid, valid_pred, cat)
            history.append((sum(losses) / len(losses), val_score))
            if val_score < best:
                best, best_epoch, bad = val_score, epoch, 0
                best_state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
            else:
                bad += 1
            if protocol.patience > 0 and bad >= protocol.patience:
                break
        if protocol.patience > 0 and best_state is not None:
            model.load_state_dict(best_state)
        metrics = _final_scores(model, data, protocol.eval_chunk, device, best)
        if diverged_epoch is not None:
            if not math.isfinite(metrics["test_score"]):
                raise ValueError(f"training loss is not finite from epoch {diverged_epoch} and the test score is "
                                 f"{metrics['test_score']} (on_divergence='continue'): diverged")
            metrics["diverged_epoch"] = float(diverged_epoch)
        train_time = now(device) - start
    return model, CogScaleFit(metrics=metrics, epochs=epoch, best_epoch=best_epoch, train_time_s=train_time,
                              history=history)


def _final_scores(model, data: CogScaleData, chunk: int, device, best_val: float) -> dict[str, float]:
    threshold = None
    if data.category == "multi_classification":
        valid_logits = gather_steps(predict(model, data.X_valid, chunk, device), data.T_valid)
        threshold = best_exact_match_threshold(gather_steps(data.Y_valid, data.T_valid), valid_logits)
    test_pred = gather_steps(predict(model, data.X_test, chunk, device), data.T_test)
    metrics = {"test_score": score_steps(gather_steps(data.Y_test, data.T_test), test_pred, data.category, threshold),
               "best_val_score": best_val}
    if threshold is not None:
        metrics["threshold"] = threshold
    return metrics


def fit_esn(build_model: Callable[[], Any], data: CogScaleData, *, seed: int = 0, device: Any = "cpu",
            ridges: tuple[float, ...] = RIDGE_GRID) -> tuple[Any, CogScaleFit]:
    """The ESN path: seeded reservoir, ridge readout on the T steps, ridge chosen on validation.

    ``build_model()`` returns the zoo's ``esn`` module, which maps (B, time, in) -> (B, time, out) and
    exposes ``states(x)`` and ``fit_readouts(x, y, mask, ridges, states=...)``: the closed-form readout
    of each ridge in turn, yielding the ridge once the readout is set.
    """
    import numpy as np
    import torch

    device = torch.device(device)
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(seed)  # the reservoir is drawn here: seeded, unlike the reference
        model = build_model().to(device)
        X = torch.as_tensor(np.asarray(data.X_train), dtype=torch.float32, device=device)
        Y = torch.as_tensor(np.asarray(data.Y_train), dtype=torch.float32, device=device)
        mask = torch.zeros(X.shape[:2], dtype=torch.bool, device=device)
        mask[torch.arange(X.shape[0], device=device)[:, None], torch.as_tensor(np.asarray(data.T_train), device=device)] = True
        y_valid = gather_steps(data.Y_valid, data.T_valid)
        start = now(device)
        # the reservoir is fixed: its states on train and validation are computed once, not per ridge
        model.eval()
        with torch.no_grad():
            train_states = model.states(X)
            X_valid = torch.as_tensor(np.asarray(data.X_valid), dtype=torch.float32, device=device)
            valid_states = [model.states(X_valid[s:s + 10]) for s in range(0, len(X_valid), 10)]
        best, best_ridge, best_state = math.inf, None, None
        history = []
        for ridge in model.fit_readouts(X, Y, mask, ridges, states=train_states):
            with torch.no_grad():  # = predict(model, data.X_valid, 10, device), from the stored states
                valid_out = torch.cat([model.readout(s).double() for s in valid_states]).cpu().numpy()
            score = score_steps(y_valid, gather_steps(valid_out, data.T_valid), data.category)
            history.append((ridge, score))
            if score < best:  # first (largest) ridge kept on ties
                best, best_ridge = score, ridge
                best_state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        model.load_state_dict(best_state)
        metrics = _final_scores(model, data, 10, device, best)
        metrics["ridge"] = best_ridge
        train_time = now(device) - start
    return model, CogScaleFit(metrics=metrics, epochs=1, best_epoch=1, train_time_s=train_time, history=history)


#: Default log-uniform ranges of the ESN random search (leak rate, spectral radius, input scaling).
ESN_SEARCH_RANGES: dict[str, tuple[float, float]] = {
    "leak_rate": (0.05, 1.0), "spectral_radius": (0.05, 2.0), "input_scaling": (0.01, 10.0),
}


def search_esn(build_for: Callable[[Mapping[str, float]], Callable[[], Any]], data: CogScaleData, *, seed: int = 0,
               trials: int = 20, search_seed: int = 0, ranges: Mapping[str, tuple[float, float]] | None = None,
               include_base: bool = True, device: Any = "cpu") -> tuple[Any, CogScaleFit, dict[str, float]]:
    """Seeded random search of ESN hyper-parameters, chosen on the validation score.

    The reference's search code is not published (its report lists "random", "fixed_lr" and
    "multiple_instances" strategies; docs/train.md); ours is a plain random search: ``trials``
    draws, each hyper-parameter log-uniform in ``ranges`` from ``numpy.random.default_rng(search_seed)``,
    each fitted with :func:`fit_esn` (its own ridge choice on validation); the draw with the lowest
    validation score wins (the first on ties). With ``include_base`` the base configuration
    (``build_for({})``: the model entry's own values) is candidate 0, so the search never does
    worse on validation than no search. The test set is scored once, for the winner.
    Returns (model, fit, chosen hyper-parameters; ``{}`` when the base won).
    """
    import numpy as np

    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials must be an integer >= 1, got {trials!r}")
    ranges = dict(ESN_SEARCH_RANGES if ranges is None else ranges)
    for key, bounds in ranges.items():
        if len(bounds) != 2 or not 0 < bounds[0] <= bounds[1]:
            raise ValueError(f"ranges[{key!r}] must be (low, high) with 0 < low <= high, got {bounds!r}")
    rng = np.random.default_rng(search_seed)
    draws = [{k: float(np.exp(rng.uniform(np.log(lo), np.log(hi)))) for k, (lo, hi) in sorted(ranges.items())}
             for _ in range(trials)]
    if include_base:
        draws.insert(0, {})
    best = None
    start = now(device)
    for hp in draws:
        model, fit = fit_esn(build_for(hp), data, seed=seed, device=device)
        if best is None or fit.metrics["best_val_score"] < best[1].metrics["best_val_score"]:
            best = (model, fit, hp)
    model, fit, hp = best
    fit.train_time_s = now(device) - start  # the whole search is the cost of this run
    fit.history = [(i, d) for i, d in enumerate(draws)]  # type: ignore[list-item]
    return model, fit, hp


__all__ = [
    "CogScaleData", "CogScaleFit", "CogScaleProtocol", "ESN_SEARCH_RANGES", "ON_DIVERGENCE", "RIDGE_GRID",
    "THRESHOLDS_N", "best_exact_match_threshold", "fit_cogscale", "fit_esn", "gather_steps", "predict",
    "score_steps", "search_esn",
]

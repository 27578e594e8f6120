"""The ROTE training protocol (docs/train.md, "The protocols"), one fit.

Exactly the reference's fit: AdamW(lr 3e-4, wd 0.01) plus an always-on StepLR(100, 0.5)
stepped after each training pass; batch 128 with a shuffled training order; validation loss
= unweighted mean over batches of the per-batch mean cross-entropy; stop after the epoch when
validation loss ≤ 0.05 (inclusive) or after ``patience`` epochs without *strict* improvement;
restore the best-validation weights; test loss/accuracy; greedy closed-loop rollout (ties go to
the lowest index of the sorted alphabet, i.e. ``argmax``'s first maximum).

Randomness: ``torch.manual_seed(3407 + run)`` immediately before the model is built, inside
``torch.random.fork_rng`` so that the caller's global RNG state is untouched afterwards. The
training order reproduces ``DataLoader(shuffle=True)`` draw for draw (each loader iteration
draws a base seed, then the sampler draws its permutation seed, both from the global RNG;
evaluation loaders draw one base seed too), so a fit here equals the reference fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from rote_hf.protocols.device import now
from rote_hf.registry import resolve_object
from rote_hf.results.provenance import array_fingerprint

OPTIMIZERS = ("AdamW", "Adam")

#: Metric name -> "module:function" computing ``f(target, forecast) -> float`` (target first).
DEFAULT_ROLLOUT_METRICS: tuple[tuple[str, str], ...] = (
    ("DL", "rote_hf.metrics:dl_distance"),
    ("JW", "rote_hf.metrics:jw_distance"),
)


@dataclass(frozen=True)
class RoteProtocol:
    """The ROTE fit settings (paper defaults, as the reference's CLI; docs/train.md)."""

    optimizer: str = "AdamW"
    learning_rate: float = 3e-4
    weight_decay: float = 0.01
    batch_size: int = 128
    max_epochs: int = 200
    patience: int = 10
    stopping_loss: float = 0.05
    lr_step_size: int = 100
    lr_gamma: float = 0.5
    base_seed: int = 3407
    rollout_metrics: tuple[tuple[str, str], ...] = DEFAULT_ROLLOUT_METRICS

    def __post_init__(self) -> None:
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        for name in ("batch_size", "max_epochs", "patience", "lr_step_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        for name in ("learning_rate", "lr_gamma"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"{name} must be a number > 0, got {value!r}")
        if not isinstance(self.weight_decay, (int, float)) or self.weight_decay < 0:
            raise ValueError(f"weight_decay must be a number >= 0, got {self.weight_decay!r}")
        if not isinstance(self.stopping_loss, (int, float)):
            raise TypeError(f"stopping_loss must be a number, got {type(self.stopping_loss).__name__}")
        object.__setattr__(self, "rollout_metrics", tuple(tuple(p) for p in dict(self.rollout_metrics).items()))

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> "RoteProtocol":
        known = set(cls.__dataclass_fields__)
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"protocol keys must be among {sorted(known)}, got unknown {sorted(unknown)}")
        values = dict(values)
        if "rollout_metrics" in values and isinstance(values["rollout_metrics"], Mapping):
            values["rollout_metrics"] = tuple(values["rollout_metrics"].items())
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["rollout_metrics"] = dict(self.rollout_metrics)
        return d


@dataclass(frozen=True)
class RoteData:
    """One seed's windows as tensors.

    ``x_*``: (B, w) int64 symbol indices; ``y_*``: (B,) int64 next-symbol indices; ``alphabet``:
    ``sorted(set(seed))`` as a string (class i = ``alphabet[i]``); ``context`` (w symbols) starts
    the rollout and ``target`` (k symbols) is the withheld continuation.
    """

    alphabet: str
    x_train: Any
    y_train: Any
    x_valid: Any
    y_valid: Any
    x_test: Any
    y_test: Any
    context: str
    target: str
    fingerprint: str = ""

    @property
    def window(self) -> int:
        return int(self.x_train.shape[1])

    @classmethod
    def from_windows(cls, windows: Any) -> "RoteData":
        """From a :class:`rote_hf.symbolic.RoteWindows` (anything with ``arrays(split)``,
        ``alphabet``, ``context``, ``target``)."""
        import torch

        parts = {}
        for split, key in (("train", "train"), ("validation", "valid"), ("test", "test")):
            x, y = windows.arrays(split)
            parts[f"x_{key}"] = torch.as_tensor(x, dtype=torch.long)
            parts[f"y_{key}"] = torch.as_tensor(y, dtype=torch.long)
        fp = array_fingerprint([parts[k] for k in sorted(parts)] + [list(map(ord, windows.context + windows.target))])
        return cls(alphabet=windows.alphabet, context=windows.context, target=windows.target, fingerprint=fp, **parts)


@dataclass
class RoteFit:
    """What one fit produced. ``history``: per-epoch (train_loss_mean, valid_loss, lr)."""

    metrics: dict[str, float]
    forecast: str
    epochs: int
    best_epoch: int
    stop_reason: str  # "stopping_loss" | "patience" | "max_epochs"
    train_time_s: float
    history: list[tuple[float, float, float]] = field(default_factory=list)


def finite_losses(losses: list[Any], epoch: int) -> list[float]:
    """The epoch's step losses (0-d tensors) as floats; ``ValueError`` when any is not finite.

    Checked once per epoch (one host sync) instead of per step. A diverged run still fails in the
    epoch where it diverged (the steps after a NaN in that epoch run, then the check fails), and a
    run that does not diverge computes exactly what a per-step check would.
    """
    import torch

    if not losses:
        return []
    stacked = torch.stack(losses)
    finite = torch.isfinite(stacked)
    if not bool(finite.all()):
        first = int((~finite).nonzero()[0, 0])
        raise ValueError(f"training loss is not finite ({float(stacked[first])}) at epoch {epoch}, step {first + 1}: "
                         "diverged")
    return stacked.tolist()


def _draw_seed() -> int:
    """One ``int64`` draw from the global torch RNG, as DataLoader and RandomSampler do."""
    import torch

    return int(torch.empty((), dtype=torch.int64).random_().item())


def epoch_order(n: int):
    """The index order of one ``DataLoader(shuffle=True)`` pass (same global-RNG draws)."""
    import torch

    _draw_seed()  # the loader iterator's _base_seed (unused without workers, still drawn)
    gen = torch.Generator()
    gen.manual_seed(_draw_seed())  # RandomSampler's per-iteration seed
    return torch.randperm(n, generator=gen)


def last_step_logits(out: Any) -> Any:
    """(B, T, n) per-step outputs -> (B, n) at the last step; (B, n) passes through."""
    return out[:, -1] if out.dim() == 3 else out


def evaluate_split(model, x, y, n_classes: int, batch_size: int, device) -> tuple[float, float]:
    """(mean of per-batch mean CE, accuracy) over unshuffled batches — the reference's figures.

    ``x``/``y`` may live on ``device`` already (moved once per fit); batches are sliced and one-hot
    encoded there, and the host reads the results once, at the end (no sync per batch).
    """
    import torch
    import torch.nn.functional as F

    _draw_seed()  # an unshuffled DataLoader still draws its _base_seed per iteration
    model.eval()
    x, y = x.to(device), y.to(device)
    losses, correct = [], []
    with torch.no_grad():
        for start in range(0, len(y), batch_size):
            xb = F.one_hot(x[start:start + batch_size], n_classes).float()
            yb = y[start:start + batch_size]
            logits = last_step_logits(model(xb))
            losses.append(F.cross_entropy(logits, yb))
            correct.append((logits.argmax(dim=-1) == yb).sum())
    if not losses:
        return 0.0, 0.0
    values = torch.stack(losses).tolist()  # python floats of the float32 losses, as .item() gives
    return sum(values) / len(values), int(torch.stack(correct).sum().item()) / len(y)


def rollout(model, context: str, horizon: int, alphabet: str, window: int, device) -> str:
    """Greedy closed-loop forecast of ``horizon`` symbols from ``context`` (ties: lowest index).

    The symbol ids stay on ``device``; the host reads the forecast once, at the end.
    """
    import torch
    import torch.nn.functional as F

    lookup = {a: i for i, a in enumerate(alphabet)}
    ids = torch.tensor([lookup[s] for s in context], dtype=torch.long, device=device)
    model.eval()
    with torch.no_grad():
        for _ in range(horizon):
            x = F.one_hot(ids[-window:][None], len(alphabet)).float()
            ids = torch.cat([ids, last_step_logits(model(x)).argmax(dim=-1)])
    return "".join(alphabet[i] for i in ids[len(context):].tolist())


def fit_rote(
    build_model: Callable[[], Any],
    data: RoteData,
    protocol: RoteProtocol = RoteProtocol(),
    *,
    run: int = 0,
    device: Any = "cpu",
    on_epoch: Callable[[int, float], None] | None = None,
) -> tuple[Any, RoteFit]:
    """Train a fresh model on ``data`` under ``protocol``; returns (model with best weights, RoteFit).

    ``build_model()`` must return an ``nn.Module`` mapping (B, w, n) one-hot floats to (B, n)
    or (B, w, n) logits. A non-finite training loss raises ``ValueError`` (the run is then
    recorded as failed). ``train_time_s`` runs from just before epoch 1 to after the rollout,
    as in the reference.
    """
    import torch
    import torch.nn.functional as F

    if not isinstance(data, RoteData):
        raise TypeError(f"data must be a RoteData, got {type(data).__name__}")
    if isinstance(run, bool) or not isinstance(run, int) or run < 0:
        raise ValueError(f"run must be an integer >= 0, got {run!r}")
    device = torch.device(device)
    n = len(data.alphabet)
    metric_fns = {name: resolve_object(spec) for name, spec in protocol.rollout_metrics}
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(protocol.base_seed + run)
        model = build_model().to(device)
        opt_cls = torch.optim.AdamW if protocol.optimizer == "AdamW" else torch.optim.Adam
        optimizer = opt_cls(model.parameters(), lr=protocol.learning_rate, weight_decay=protocol.weight_decay)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=protocol.lr_step_size, gamma=protocol.lr_gamma)
        x_train = F.one_hot(data.x_train.to(device), n).float()  # the run's data moves to the device once
        y_train = data.y_train.to(device)
        x_valid, y_valid = data.x_valid.to(device), data.y_valid.to(device)
        x_test, y_test = data.x_test.to(device), data.y_test.to(device)
        start = now(device)
        best, best_state, best_epoch, bad = math.inf, None, 0, 0
        history: list[tuple[float, float, float]] = []
        stop_reason, epoch = "max_epochs", 0
        for epoch in range(1, protocol.max_epochs + 1):
            model.train()
            order = epoch_order(len(y_train)).to(device)
            step_losses = []
            for s in range(0, len(order), protocol.batch_size):
                idx = order[s:s + protocol.batch_size]
                optimizer.zero_grad(set_to_none=True)
                loss = F.cross_entropy(last_step_logits(model(x_train[idx])), y_train[idx])
                loss.backward()
                optimizer.step()
                step_losses.append(loss.detach())
            train_losses = finite_losses(step_losses, epoch)  # one host read per epoch, not per step
            lr = optimizer.param_groups[0]["lr"]
            scheduler.step()
            valid_loss, _ = evaluate_split(model, x_valid, y_valid, n, protocol.batch_size, device)
            history.append((sum(train_losses) / len(train_losses), valid_loss, lr))
            if on_epoch is not None:
                on_epoch(epoch, valid_loss)
            if valid_loss < best:
                best, best_epoch, bad = valid_loss, epoch, 0
                best_state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
            else:
                bad += 1
            if valid_loss <= protocol.stopping_loss:
                stop_reason = "stopping_loss"
                break
            if bad >= protocol.patience:
                stop_reason = "patience"
                break
        if best_state is not None:
            model.load_state_dict(best_state)
        test_loss, test_accuracy = evaluate_split(model, x_test, y_test, n, protocol.batch_size, device)
        forecast = rollout(model, data.context, len(data.target), data.alphabet, data.window, device)
        train_time = now(device) - start
    metrics = {"test_loss": test_loss, "test_accuracy": test_accuracy, "valid_loss_best": best,
               "exact": float(forecast == data.target)}
    for name, fn in metric_fns.items():
        metrics[name] = float(fn(data.target, forecast))
    return model, RoteFit(metrics=metrics, forecast=forecast, epochs=epoch, best_epoch=best_epoch,
                          stop_reason=stop_reason, train_time_s=train_time, history=history)


__all__ = [
    "DEFAULT_ROLLOUT_METRICS", "OPTIMIZERS", "RoteData", "RoteFit", "RoteProtocol", "epoch_order",
    "evaluate_split", "finite_losses", "fit_rote", "last_step_logits", "rollout",
]

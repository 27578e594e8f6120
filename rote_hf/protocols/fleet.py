"""Fleet training: K independent fits of one architecture and one data shape as one computation.

Member k of a fleet is the fit :func:`~rote_hf.protocols.cogscale.fit_cogscale` (or
:func:`~rote_hf.protocols.rote.fit_rote`) would make with member k's settings, computed together
with the others through stacked parameters (:mod:`rote_hf.zoo.fleet`). What each member keeps
of its own, exactly as in the one-run path:

- its seed: the model is built right after ``torch.manual_seed(seed)`` inside ``fork_rng``, and
  the global RNG state left after the build becomes the member's own ``torch.Generator``, from
  which its shuffle orders (the same draws as ``epoch_order``) and its dropout masks come, in
  the one-run order; so initial weights, batch orders and masks are bit-identical;
- its learning rate and Adam state (:func:`adam_step`: ``torch.optim.Adam``'s single-tensor
  arithmetic, operation for operation, with one learning rate per member);
- early stopping, best-weight restore and (multi-label) threshold tuning; a stopped member
  leaves the fleet (its tensors are dropped from the stacks) while the others go on;
- divergence: a non-finite training loss marks that member failed (checked once per epoch, so
  no host sync per step); the others are untouched, because no operation mixes members. A fleet
  whose protocol says ``on_divergence: continue`` fits its members one at a time.

Equality with the one-run path is to float rounding (differences ~1e-7 per step): the one-run
modules run fused kernels (oneDNN's LSTM, ATen's GRU cell, fused attention and layer norm) that
the fleet's batched operations do not reproduce bit for bit, so rare chaotic fits can drift;
benchmarks/reproducibility.md measures the agreement and why no cheap exact fleet exists. Final
test scores are computed by the one-run code on the member's own module, so restore, threshold
tuning and scoring are literally the same functions.

Families without a fleet forward (:func:`rote_hf.zoo.fleet.fleet_forward` returns ``None``) are
fitted one at a time by the one-run path.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from rote_hf.protocols.cogscale import (
    CogScaleData, CogScaleFit, CogScaleProtocol, best_exact_match_threshold, fit_cogscale, gather_steps,
    score_steps,
)
from rote_hf.protocols.rote import RoteFit, evaluate_split, fit_rote, rollout
from rote_hf.registry import resolve_object


@dataclass(frozen=True)
class CogScaleMember:
    """One fit of a CogScale fleet: its data, its protocol (learning rate may differ) and its seed."""

    data: CogScaleData
    protocol: CogScaleProtocol
    seed: int


def _member_generator(seed: int, build_model: Callable[[], Any], device) -> tuple[Any, Any]:
    """Build member ``seed``'s model exactly as the one-run path does; return (model, its RNG)."""
    import torch

    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(seed)
        model = build_model().to(device)
        gen = torch.Generator()
        gen.set_state(torch.get_rng_state())  # what the global RNG holds when training starts
    return model, gen


def _dropout_generator(seed: int, cpu_gen, device):
    """Where member dropout masks come from: the CPU stream itself, or a CUDA stream seeded like ``manual_seed``."""
    import torch

    if device.type == "cpu":
        return cpu_gen
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return gen


def _draw_seed(gen) -> int:
    import torch

    return int(torch.empty((), dtype=torch.int64).random_(generator=gen).item())


def epoch_order(n: int, gen):
    """``epoch_order`` drawn from ``gen`` instead of the global RNG (same draws, same permutation)."""
    import torch

    _draw_seed(gen)  # the loader iterator's _base_seed
    perm_gen = torch.Generator()
    perm_gen.manual_seed(_draw_seed(gen))
    return torch.randperm(n, generator=perm_gen)


class FlatFleet:
    """The members' parameters as one flat leaf tensor; ``params()`` gives (K, ...) views by name.

    One flat buffer makes the optimiser a handful of operations per step whatever the number of
    parameter tensors; the views come from ``split`` (whose backward is one ``cat``), so the
    gradient is a single (P,) tensor. Block ``name`` holds the K members' copies one after the
    other; ``member`` (P,) says which member each element belongs to.
    """

    def __init__(self, stacked: dict[str, Any], trainable: Sequence[str]):
        import torch

        self.names = [n for n in stacked if n in set(trainable)]
        self.buffers = {n: t.detach() for n, t in stacked.items() if n not in set(trainable)}
        self.shapes = {n: tuple(stacked[n].shape) for n in self.names}
        self.k = int(stacked[self.names[0]].shape[0])
        self.flat = torch.cat([stacked[n].detach().reshape(-1) for n in self.names]).requires_grad_(True)
        self.sizes = [math.prod(self.shapes[n]) for n in self.names]
        device = self.flat.device
        self.member = torch.cat([torch.arange(self.k, device=device).repeat_interleave(size // self.k)
                                 for size in self.sizes])

    def params(self) -> dict[str, Any]:
        """name -> (K, ...) view into the flat buffer (plus the stacked buffers)."""
        views = {n: piece.view(self.shapes[n]) for n, piece in zip(self.names, self.flat.split(self.sizes))}
        return {**views, **self.buffers}

    def take(self, flat: Any, keep: Sequence[int]) -> Any:
        """Members ``keep`` of any tensor laid out like the flat buffer (P,) -> (P',)."""
        import torch

        index = torch.as_tensor(list(keep), dtype=torch.long, device=flat.device)
        return torch.cat([piece.view(self.shapes[n]).index_select(0, index).reshape(-1)
                          for n, piece in zip(self.names, flat.split(self.sizes))])

    def select(self, keep: Sequence[int]) -> None:
        """Keep members ``keep`` (indices into the current stack), in that order."""
        import torch

        index = torch.as_tensor(list(keep), dtype=torch.long, device=self.flat.device)
        flat = self.take(self.flat.detach(), keep)
        self.buffers = {n: t.index_select(0, index) for n, t in self.buffers.items()}
        self.shapes = {n: (len(keep),) + s[1:] for n, s in self.shapes.items()}
        self.sizes = [size // self.k * len(keep) for size in self.sizes]
        self.k = len(keep)
        self.flat = flat.requires_grad_(True)
        self.member = torch.cat([torch.arange(self.k, device=flat.device).repeat_interleave(size // self.k)
                                 for size in self.sizes])

    def state(self, k: int) -> dict[str, Any]:
        """Member ``k``'s ``state_dict`` (CPU copies)."""
        return {n: p[k].detach().cpu().clone() for n, p in self.params().items()}


class StackedAdam:
    """``torch.optim.Adam``/``AdamW`` (single-tensor path, default betas/eps) over a :class:`FlatFleet`.

    ``lr``: one learning rate per member. Every active member has taken the same number of
    steps (members only leave), so the bias corrections are shared scalars; the per-member
    scalars (step size, decay factor) are computed in float64 as Python does and cast to
    float32 as the kernels cast their scalar argument, so every element sees the same
    arithmetic as in ``torch.optim.Adam`` (equal bit for bit, tested).
    """

    def __init__(self, fleet: FlatFleet, lr: Sequence[float], *, weight_decay: float = 0.0,
                 decoupled: bool = False, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8):
        import torch

        self.fleet = fleet
        self.lr = [float(v) for v in lr]
        self.weight_decay, self.decoupled = float(weight_decay), decoupled
        self.beta1, self.beta2, self.eps = betas[0], betas[1], eps
        self.exp_avg = torch.zeros_like(fleet.flat)
        self.exp_avg_sq = torch.zeros_like(fleet.flat)
        self.steps = 0

    def select(self, keep: Sequence[int]) -> None:
        """Keep members ``keep`` (indices into the current stack) in the optimiser and its fleet."""
        self.lr = [self.lr[i] for i in keep]
        self.exp_avg = self.fleet.take(self.exp_avg, keep)
        self.exp_avg_sq = self.fleet.take(self.exp_avg_sq, keep)
        self.fleet.select(keep)

    def _per_element(self, values: Sequence[float]) -> Any:
        import torch

        flat = self.fleet.flat
        member_values = torch.tensor(values, dtype=torch.float64).to(flat.dtype).to(flat.device)
        return member_values[self.fleet.member]

    def step(self, grad: Any) -> None:
        """One step with ``grad`` (P,), the gradient of the flat buffer."""
        import torch

        self.steps += 1
        step = float(self.steps)
        bias_correction1 = 1 - self.beta1 ** step
        bias_correction2 = 1 - self.beta2 ** step
        bias_correction2_sqrt = bias_correction2 ** 0.5
        param = self.fleet.flat
        with torch.no_grad():
            if self.weight_decay != 0:
                if self.decoupled:
                    param.mul_(self._per_element([1 - lr * self.weight_decay for lr in self.lr]))
                else:
                    grad = grad.add(param, alpha=self.weight_decay)
            self.exp_avg.lerp_(grad, 1 - self.beta1)
            self.exp_avg_sq.mul_(self.beta2).addcmul_(grad, grad, value=1 - self.beta2)
            denom = (self.exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(self.eps)
            # param.addcdiv_(exp_avg, denom, value=-step_size) computes param + (value * exp_avg) / denom
            param.add_(self._per_element([-(lr / bias_correction1) for lr in self.lr]) * self.exp_avg / denom)


def stack_members(models: Sequence[Any]) -> dict[str, Any]:
    """The members' ``state_dict`` tensors stacked: name -> (K, ...)."""
    import torch

    states = [m.state_dict() for m in models]
    return {n: torch.stack([s[n].detach() for s in states]) for n in states[0]}


def flat_fleet(models: Sequence[Any]) -> FlatFleet:
    """A :class:`FlatFleet` of ``models`` (their parameters trainable, their buffers fixed)."""
    return FlatFleet(stack_members(models), [n for n, _ in models[0].named_parameters()])


def _masked_losses(preds, targets, steps, category: str):
    """Per-member mean losses on the T steps: preds/targets (K, B, time, O), steps (K, B, n_pred) -> (K,)."""
    import torch
    import torch.nn.functional as F

    k, _, _, out = preds.shape
    index = steps.unsqueeze(-1).expand(*steps.shape, out)
    p, t = preds.gather(2, index), targets.gather(2, index)  # (K, B, n_pred, O)
    if category == "classification":
        loss = F.cross_entropy(p.reshape(-1, out), t.argmax(-1).reshape(-1), reduction="none")
    elif category == "multi_classification":
        loss = F.binary_cross_entropy_with_logits(p, t, reduction="none")
    else:
        loss = F.mse_loss(p, t, reduction="none")
    return loss.reshape(k, -1).mean(1)


def _fleet_predict(forward, params, X, chunk: int):
    """Eval-mode outputs of every member on its own X (K, N, time, in), in chunks -> float64 numpy (K, N, time, O)."""
    import numpy as np
    import torch

    with torch.no_grad():
        outs = [forward(params, X[:, s:s + chunk], None).double().cpu().numpy() for s in range(0, X.shape[1], chunk)]
    return np.concatenate(outs, axis=1)


class _EpochLosses:
    """Per-member step losses of one epoch, kept on the device (no host sync per step): their
    mean, and the first non-finite loss of each member with its 1-based step, which
    :meth:`result` turns into the one-run path's divergence error
    (:func:`rote_hf.protocols.rote.finite_losses`)."""

    def __init__(self, k: int, device: Any) -> None:
        import torch

        self.total = torch.zeros(k, dtype=torch.float64, device=device)
        self.first_bad = torch.full((k,), math.nan, dtype=torch.float64, device=device)
        self.seen_bad = torch.zeros(k, dtype=torch.bool, device=device)
        self.bad_step = torch.zeros(k, dtype=torch.long, device=device)
        self.steps = 0

    def add(self, losses: Any) -> None:
        """One step's losses, shape (k,)."""
        import torch

        detached = losses.detach().double()
        new_bad = ~torch.isfinite(detached) & ~self.seen_bad
        self.first_bad = torch.where(new_bad, detached, self.first_bad)
        self.bad_step = torch.where(new_bad, self.steps + 1, self.bad_step)
        self.seen_bad |= new_bad
        self.total += detached
        self.steps += 1

    def result(self, epoch: int) -> tuple[list[float], list[ValueError | None]]:
        """(mean loss per member, its divergence error or None): the epoch's one host sync."""
        values, steps = self.first_bad.cpu().tolist(), self.bad_step.cpu().tolist()
        errors = [ValueError(f"training loss is not finite ({v}) at epoch {epoch}, step {st}: diverged") if bad else None
                  for bad, v, st in zip(self.seen_bad.cpu().tolist(), values, steps)]
        return (self.total / self.steps).cpu().tolist(), errors


def _end_epoch(t0: float, active: list[int], leaving: list[int], member_time: list[float], opt: Any,
               tensors: tuple[Any, ...], device: Any) -> tuple[list[int], tuple[Any, ...]]:
    """Close one fleet epoch: charge its wall time (seconds since ``t0``) equally to the active
    members, then drop the ``leaving`` stack positions from the optimiser and from each
    member-stacked tensor (leading dim K). Returns the still-active member ids (empty when all
    left) and the narrowed tensors."""
    share = (time.perf_counter() - t0) / len(active)
    for i in active:
        member_time[i] += share
    if not leaving:
        return active, tensors
    gone = set(leaving)
    keep = [pos for pos in range(len(active)) if pos not in gone]
    if not keep:
        return [], tensors
    import torch

    opt.select(keep)
    index = torch.as_tensor(keep, dtype=torch.long, device=device)
    return [active[pos] for pos in keep], tuple(a.index_select(0, index) for a in tensors)


def fit_cogscale_fleet(build_model: Callable[[], Any], members: Sequence[CogScaleMember], *,
                       device: Any = "cpu") -> list[Any]:
    """Fit every member under the CogScale protocol as one fleet; one outcome per member, in order.

    All members share ``build_model`` (one architecture) and data shapes, category,
    batch size, eval chunk, patience and max epochs; seeds, data values and learning rates may
    differ. An outcome is ``(model, CogScaleFit)`` with the best weights restored, or the
    ``ValueError`` the one-run path raises when the member's training loss is not finite.
    """
    import numpy as np
    import torch

    from rote_hf.zoo.fleet import MemberDropout, fleet_forward  # lazy: imports torch

    if not members:
        return []
    device = torch.device(device)
    _check_shared(members)
    built = [_member_generator(m.seed, build_model, device) for m in members]
    forward = fleet_forward(built[0][0])
    first, cat = members[0].protocol, members[0].data.category
    # no batched twin for this family, or training on through divergence: the one-run path, one at a time
    if forward is None or first.on_divergence != "fail":
        return [_one_run(build_model, m, device) for m in members]
    models = [b[0] for b in built]
    gens = [b[1] for b in built]
    drop_gens = [_dropout_generator(m.seed, g, device) for m, g in zip(members, gens)]
    fleet = flat_fleet(models)
    opt = StackedAdam(fleet, [m.protocol.learning_rate for m in members])

    def stack(name, dtype):
        return torch.stack([torch.as_tensor(np.asarray(getattr(m.data, name)), dtype=dtype) for m in members]).to(device)

    X, Y, T = stack("X_train", torch.float32), stack("Y_train", torch.float32), stack("T_train", torch.long)
    Xv = stack("X_valid", torch.float32)
    y_valid = [gather_steps(m.data.Y_valid, m.data.T_valid) for m in members]
    n_train = X.shape[1]
    K = len(members)
    active = list(range(K))  # member ids still training, in stack order
    best = [math.inf] * K
    best_state: list[dict | None] = [None] * K
    best_epoch, bad, epochs = [0] * K, [0] * K, [0] * K
    history: list[list[tuple[float, float]]] = [[] for _ in range(K)]
    final_state: list[dict | None] = [None] * K
    failed: list[Exception | None] = [None] * K
    member_time = [0.0] * K
    for epoch in range(1, first.max_epochs + 1):
        t0 = time.perf_counter()
        orders = torch.stack([epoch_order(n_train, gens[i]) for i in active]).to(device)  # (K, N)
        rows = torch.arange(len(active), device=device)[:, None]
        dropout = MemberDropout([drop_gens[i] for i in active])
        watch = _EpochLosses(len(active), device)
        for s in range(0, n_train, first.batch_size):
            idx = orders[:, s:s + first.batch_size]
            losses = _masked_losses(forward(fleet.params(), X[rows, idx], dropout), Y[rows, idx], T[rows, idx], cat)
            (grad,) = torch.autograd.grad(losses.sum(), [fleet.flat])
            opt.step(grad)
            watch.add(losses)
        # one host sync per epoch: divergence, then validation
        mean_losses, diverged = watch.result(epoch)
        preds = _fleet_predict(forward, fleet.params(), Xv, _eval_chunk(first.eval_chunk))
        leaving: list[int] = []
        for pos, i in enumerate(active):
            epochs[i] = epoch
            if diverged[pos] is not None:
                failed[i] = diverged[pos]
                leaving.append(pos)
                continue
            val = score_steps(y_valid[i], gather_steps(preds[pos], members[i].data.T_valid), cat)
            history[i].append((mean_losses[pos], val))
            if val < best[i]:
                best[i], best_epoch[i], bad[i] = val, epoch, 0
                best_state[i] = fleet.state(pos)
            else:
                bad[i] += 1
            if (first.patience > 0 and bad[i] >= first.patience) or epoch == first.max_epochs:
                final_state[i] = fleet.state(pos)
                leaving.append(pos)
        active, (X, Y, T, Xv) = _end_epoch(t0, active, leaving, member_time, opt, (X, Y, T, Xv), device)
        if not active:
            break
    t0 = time.perf_counter()
    done = [i for i in range(K) if failed[i] is None]
    states = {i: best_state[i] if members[i].protocol.patience > 0 and best_state[i] is not None else final_state[i]
              for i in done}
    metrics = _final_fleet_scores(forward, states, [members[i].data for i in done], first.eval_chunk, device,
                                  [best[i] for i in done])
    share = (time.perf_counter() - t0) / max(1, len(done))
    outcomes: list[Any] = []
    for i, model in enumerate(models):
        if failed[i] is not None:
            outcomes.append(failed[i])
            continue
        model.load_state_dict(states[i])
        outcomes.append((model, CogScaleFit(metrics=metrics[done.index(i)], epochs=epochs[i], best_epoch=best_epoch[i],
                                            train_time_s=member_time[i] + share, history=history[i])))
    return outcomes


def _final_fleet_scores(forward, states: dict[int, dict], datas: Sequence[CogScaleData], chunk: int, device,
                        best_vals: Sequence[float]) -> list[dict[str, float]]:
    """``_final_scores`` of every member at once: its restored weights, test score (multi-label:
    threshold tuned on its validation split), best validation score."""
    import numpy as np
    import torch

    if not states:
        return []
    order = list(states)
    params = {n: torch.stack([states[i][n] for i in order]).to(device) for n in states[order[0]]}

    def stacked(name):
        return torch.stack([torch.as_tensor(np.asarray(getattr(d, name)), dtype=torch.float32) for d in datas]).to(device)

    test = _fleet_predict(forward, params, stacked("X_test"), _eval_chunk(chunk))
    valid = _fleet_predict(forward, params, stacked("X_valid"), _eval_chunk(chunk)) \
        if datas[0].category == "multi_classification" else None
    out = []
    for j, data in enumerate(datas):
        threshold = None
        if valid is not None:
            threshold = best_exact_match_threshold(gather_steps(data.Y_valid, data.T_valid),
                                                   gather_steps(valid[j], data.T_valid))
        metrics = {"test_score": score_steps(gather_steps(data.Y_test, data.T_test),
                                             gather_steps(test[j], data.T_test), data.category, threshold),
                   "best_val_score": best_vals[j]}
        if threshold is not None:
            metrics["threshold"] = threshold
        out.append(metrics)
    return out


def _eval_chunk(chunk: int) -> int:
    """Samples per evaluation forward: outputs do not depend on the chunking (no batch statistics), so
    the fleet evaluates at least 100 samples per member at once (the one-run path uses ``chunk``)."""
    return max(chunk, 100)


def _one_run(build_model, member: CogScaleMember, device) -> Any:
    try:
        return fit_cogscale(build_model, member.data, member.protocol, seed=member.seed, device=device)
    except ValueError as exc:
        return exc


def _check_shared(members: Sequence[CogScaleMember]) -> None:
    """Members must agree on everything but seed, data values and learning rate (``ValueError`` otherwise)."""
    first = members[0]
    for m in members:
        if not isinstance(m, CogScaleMember):
            raise TypeError(f"members must be CogScaleMember, got {type(m).__name__}")
        for name in ("batch_size", "max_epochs", "patience", "eval_chunk", "on_divergence"):
            if getattr(m.protocol, name) != getattr(first.protocol, name):
                raise ValueError(f"members must share protocol.{name}; got {getattr(m.protocol, name)!r} and "
                                 f"{getattr(first.protocol, name)!r}")
        if m.data.category != first.data.category or data_shapes(m.data) != data_shapes(first.data):
            raise ValueError("members must share the data category and array shapes")


def data_shapes(data: Any) -> tuple:
    """The array shapes of a :class:`CogScaleData` or :class:`~rote_hf.protocols.rote.RoteData` (the fleet key's data part)."""
    import numpy as np

    names = [n for n in ("X_train", "Y_train", "T_train", "X_valid", "Y_valid", "T_valid", "X_test", "Y_test",
                         "T_test", "x_train", "y_train", "x_valid", "y_valid", "x_test", "y_test") if hasattr(data, n)]
    extra = (getattr(data, "category", None), len(getattr(data, "alphabet", "")))
    return tuple(tuple(np.shape(getattr(data, n))) for n in names) + extra


# --- the ROTE protocol ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RoteMember:
    """One fit of a ROTE fleet: its windows, its protocol (learning rate may differ) and its run."""

    data: Any  # RoteData
    protocol: Any  # RoteProtocol
    run: int


def fit_rote_fleet(build_model: Callable[[], Any], members: Sequence[RoteMember], *, device: Any = "cpu") -> list[Any]:
    """Fit every member under the ROTE protocol as one fleet; one outcome per member, in order.

    Member k equals :func:`~rote_hf.protocols.rote.fit_rote` with its settings: init after
    ``manual_seed(base_seed + run)``, the same shuffle and loader draws from its own generator,
    AdamW/Adam with its learning rate and the StepLR schedule, validation loss as the mean of
    per-batch mean cross-entropies, stop on ``stopping_loss`` or ``patience``, best weights
    restored; test and rollout by the one-run functions on the member's own module. Outcomes:
    ``(model, RoteFit)`` or the ``ValueError`` of a diverged member. Families without a fleet
    forward run one at a time through ``fit_rote``.
    """
    import torch
    import torch.nn.functional as F

    from rote_hf.zoo.fleet import MemberDropout, fleet_forward  # lazy: imports torch

    if not members:
        return []
    device = torch.device(device)
    first = members[0].protocol
    for m in members:
        for name in ("optimizer", "weight_decay", "batch_size", "max_epochs", "patience", "stopping_loss",
                     "lr_step_size", "lr_gamma", "base_seed"):
            if getattr(m.protocol, name) != getattr(first, name):
                raise ValueError(f"members must share protocol.{name}")
        if data_shapes(m.data) != data_shapes(members[0].data):
            raise ValueError("members must share the data shapes and alphabet size")
    built = [_member_generator(first.base_seed + m.run, build_model, device) for m in members]
    forward = fleet_forward(built[0][0])
    if forward is None:
        outcomes = []
        for m in members:
            try:
                outcomes.append(fit_rote(build_model, m.data, m.protocol, run=m.run, device=device))
            except ValueError as exc:
                outcomes.append(exc)
        return outcomes
    n = len(members[0].data.alphabet)
    models, gens = [b[0] for b in built], [b[1] for b in built]
    drop_gens = [_dropout_generator(first.base_seed + m.run, g, device) for m, g in zip(members, gens)]
    fleet = flat_fleet(models)
    lrs = [float(m.protocol.learning_rate) for m in members]
    opt = StackedAdam(fleet, lrs, weight_decay=first.weight_decay, decoupled=first.optimizer == "AdamW")
    X = torch.stack([F.one_hot(m.data.x_train, n).float() for m in members]).to(device)
    Y = torch.stack([m.data.y_train for m in members]).to(device)
    Xv = torch.stack([F.one_hot(m.data.x_valid, n).float() for m in members]).to(device)
    Yv = torch.stack([m.data.y_valid for m in members]).to(device)
    K, n_train = len(members), X.shape[1]
    active = list(range(K))
    best, best_state = [math.inf] * K, [None] * K
    best_epoch, bad, epochs = [0] * K, [0] * K, [0] * K
    stop = ["max_epochs"] * K
    history: list[list[tuple[float, float, float]]] = [[] for _ in range(K)]
    failed: list[Exception | None] = [None] * K
    member_time = [0.0] * K
    for epoch in range(1, first.max_epochs + 1):
        t0 = time.perf_counter()
        orders = torch.stack([epoch_order(n_train, gens[i]) for i in active]).to(device)
        rows = torch.arange(len(active), device=device)[:, None]
        dropout = MemberDropout([drop_gens[i] for i in active])
        watch = _EpochLosses(len(active), device)
        for s in range(0, n_train, first.batch_size):
            idx = orders[:, s:s + first.batch_size]
            logits = forward(fleet.params(), X[rows, idx], dropout)[:, :, -1]  # (K, B, n) at the last step
            losses = F.cross_entropy(logits.reshape(-1, n), Y[rows, idx].reshape(-1),
                                     reduction="none").reshape(len(active), -1).mean(1)
            (grad,) = torch.autograd.grad(losses.sum(), [fleet.flat])
            opt.step(grad)
            watch.add(losses)
        current_lr = list(opt.lr)
        if epoch % first.lr_step_size == 0:  # StepLR.step() after the epoch
            opt.lr = [lr * first.lr_gamma for lr in opt.lr]
        for i in active:
            _draw_seed(gens[i])  # the validation loader's _base_seed, as in evaluate_split
        with torch.no_grad():
            params = fleet.params()
            batch_losses = []
            for s in range(0, Xv.shape[1], first.batch_size):
                logits = forward(params, Xv[:, s:s + first.batch_size], None)[:, :, -1]
                yb = Yv[:, s:s + first.batch_size]
                batch_losses.append(F.cross_entropy(logits.reshape(-1, n), yb.reshape(-1), reduction="none")
                                    .reshape(len(active), -1).mean(1))
            valid = torch.stack(batch_losses, 1).cpu().tolist()  # (K, n_batches) float32 values
        mean_losses, diverged = watch.result(epoch)
        leaving = []
        for pos, i in enumerate(active):
            epochs[i] = epoch
            if diverged[pos] is not None:
                failed[i] = diverged[pos]
                leaving.append(pos)
                continue
            valid_loss = sum(valid[pos]) / max(1, len(valid[pos]))
            history[i].append((mean_losses[pos], valid_loss, current_lr[pos]))
            if valid_loss < best[i]:
                best[i], best_epoch[i], bad[i] = valid_loss, epoch, 0
                best_state[i] = fleet.state(pos)
            else:
                bad[i] += 1
            if valid_loss <= first.stopping_loss:
                stop[i] = "stopping_loss"
            elif bad[i] >= first.patience:
                stop[i] = "patience"
            if stop[i] != "max_epochs" or epoch == first.max_epochs:
                if best_state[i] is None:
                    best_state[i] = fleet.state(pos)
                leaving.append(pos)
        active, (X, Y, Xv, Yv) = _end_epoch(t0, active, leaving, member_time, opt, (X, Y, Xv, Yv), device)
        if not active:
            break
    outcomes: list[Any] = []
    for i, (m, model) in enumerate(zip(members, models)):
        if failed[i] is not None:
            outcomes.append(failed[i])
            continue
        t0 = time.perf_counter()
        model.load_state_dict(best_state[i])
        with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
            torch.set_rng_state(gens[i].get_state())  # the test loader draws from the member's stream
            test_loss, test_accuracy = evaluate_split(model, m.data.x_test, m.data.y_test, n, m.protocol.batch_size, device)
            forecast = rollout(model, m.data.context, len(m.data.target), m.data.alphabet, m.data.window, device)
        member_time[i] += time.perf_counter() - t0
        metrics = {"test_loss": test_loss, "test_accuracy": test_accuracy, "valid_loss_best": best[i],
                   "exact": float(forecast == m.data.target)}
        for name, spec in m.protocol.rollout_metrics:
            metrics[name] = float(resolve_object(spec)(m.data.target, forecast))
        outcomes.append((model, RoteFit(metrics=metrics, forecast=forecast, epochs=epochs[i], best_epoch=best_epoch[i],
                                        stop_reason=stop[i], train_time_s=member_time[i], history=history[i])))
    return outcomes


__all__ = [
    "CogScaleMember", "FlatFleet", "RoteMember", "StackedAdam", "data_shapes", "epoch_order",
    "fit_cogscale_fleet", "fit_rote_fleet", "flat_fleet", "stack_members",
]

"""Fleet training: member k of a fleet equals the one-run fit with member k's settings.

Tiny tasks (one-hot delayed copy, its regression twin and a multi-label variant) and zoo models
of a few hundred parameters; every comparison runs the real one-run path beside the fleet.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rote_hf.train import CogScaleData, CogScaleProtocol, fit_cogscale
from rote_hf.protocols.fleet import (CogScaleMember, StackedAdam, epoch_order, fit_cogscale_fleet, flat_fleet,
                                     stack_members)
from rote_hf.train.fleet import plan_fleets
from rote_hf.protocols.rote import epoch_order as one_run_order
from rote_hf.zoo import build_model

MODELS = {
    "gru": {"hidden_size": 6, "num_layers": 1},
    "lstm": {"hidden_size": 5, "num_layers": 1},
    "transformer": {"d_model": 4, "num_layers": 2, "nhead": 2, "dropout": 0.1, "final_norm": True},
    "transformer-ed": {"d_model": 4, "num_layers": 2, "nhead": 2, "dropout": 0.1, "final_norm": True,
                       "shared_embedding": False},
    "mamba": {"d_model": 4, "num_layers": 2, "d_state": 4, "d_conv": 2, "expand": 2, "residual": False,
              "scan_chunk": 4, "scan": "auto"},
}


# At LR 3e-2 the encoder-decoder's multi-label fit is chaotic: float rounding (1e-8 in the first epochs, as for
# every family) grows to 1e-3 by epoch 9, so its large learning rate here is 1e-2 (benchmarks/fleet_equality.md).
LARGE_LR = {"transformer-ed": 1e-2}


def _copy_task(n: int, seed: int, category: str, length: int = 10, k: int = 3, delay: int = 2):
    rng = np.random.default_rng(seed)
    X = np.eye(k)[rng.integers(0, k, size=(n, length))]
    Y = np.zeros_like(X)
    Y[:, delay:] = X[:, :-delay]
    if category == "multi_classification":  # two labels on: the delayed symbol and the current one
        Y = np.clip(Y + X, 0, 1)
    if category == "regression":
        Y = Y * 0.5
    T = np.tile(np.arange(delay, length), (n, 1))
    return X, Y, T


def tiny_data(category: str, seed: int) -> CogScaleData:
    parts = [_copy_task(n, 10 * seed + i, category) for i, n in enumerate((30, 10, 10))]
    return CogScaleData.from_build([a for p in parts for a in p] + [category])


def _builder(name: str):
    return lambda: build_model(name, input_size=3, output_size=3, **MODELS[name])


def _assert_member_equals_one_run(build, member: CogScaleMember, outcome) -> None:
    _, one = fit_cogscale(build, member.data, member.protocol, seed=member.seed)
    model, fit = outcome
    assert (fit.epochs, fit.best_epoch) == (one.epochs, one.best_epoch)
    for key, value in one.metrics.items():
        assert fit.metrics[key] == pytest.approx(value, abs=1e-5), key
    assert [h[1] for h in fit.history] == pytest.approx([h[1] for h in one.history], abs=1e-5)
    assert [h[0] for h in fit.history] == pytest.approx([h[0] for h in one.history], rel=1e-5)


def test_the_fleet_families_have_a_batched_forward():
    from rote_hf.zoo.fleet import FLEET_FAMILIES, fleet_forward

    assert set(FLEET_FAMILIES) == set(MODELS)  # so the equality test below runs the batched path of each
    torch.manual_seed(0)  # the members' weights; unseeded, they followed whatever ran before in the worker
    for name in MODELS:
        forward = fleet_forward(_builder(name)())
        assert forward is not None, name
        members = [_builder(name)() for _ in range(3)]
        params = stack_members(members)
        x = torch.randn(3, 2, 7, 3, generator=torch.Generator().manual_seed(0))
        for m in members:
            m.eval()
        expected = torch.stack([m(x[i]) for i, m in enumerate(members)])
        # the one-run modules' fused kernels round otherwise (benchmarks/reproducibility.md): up to 2.2e-6 apart for the
        # encoder-decoder over 30 seeds
        torch.testing.assert_close(forward(params, x, None), expected, rtol=1e-5, atol=1e-5, msg=name)
    assert fleet_forward(build_model("xlstm", input_size=3, output_size=3, d_model=4, num_blocks=2, slstm_at=(1,),
                                     context_length=8, slstm_backend="vanilla")) is None


@pytest.mark.parametrize("category", ["classification", "multi_classification", "regression"])
@pytest.mark.parametrize("family", ["gru", "lstm", "transformer", "transformer-ed", "mamba"])
def test_members_equal_one_run_fits(family, category):
    build = _builder(family)
    members = [CogScaleMember(tiny_data(category, seed), CogScaleProtocol(learning_rate=lr, max_epochs=12, patience=3),
                              seed) for seed in (0, 1) for lr in (LARGE_LR.get(family, 3e-2), 1e-3)]
    outcomes = fit_cogscale_fleet(build, members)
    assert len(outcomes) == 4
    for member, outcome in zip(members, outcomes):
        _assert_member_equals_one_run(build, member, outcome)
    if category == "multi_classification":
        assert all("threshold" in o[1].metrics for o in outcomes)  # tuned per member on its own validation


def test_a_stopped_member_is_frozen_while_others_continue():
    build = _builder("gru")
    # patience 1 with a large LR stops early; patience 8 at a small LR runs to max_epochs
    members = [CogScaleMember(tiny_data("classification", 0), CogScaleProtocol(learning_rate=lr, max_epochs=15,
                                                                               patience=patience), seed)
               for seed, lr, patience in ((0, 1e-3, 4), (1, 1e-1, 4), (2, 3e-3, 4))]
    outcomes = fit_cogscale_fleet(build, members)
    epochs = [o[1].epochs for o in outcomes]
    assert min(epochs) < max(epochs)  # someone left the fleet before the others finished
    for member, outcome in zip(members, outcomes):
        _assert_member_equals_one_run(build, member, outcome)


def test_a_diverging_member_fails_alone():
    build = _builder("gru")
    data = tiny_data("regression", 0)
    members = [CogScaleMember(data, CogScaleProtocol(learning_rate=lr, max_epochs=6, patience=3), 0)
               for lr in (1e-2, 1e30, 1e-3)]
    with pytest.raises(ValueError, match="not finite") as one_run:
        fit_cogscale(build, members[1].data, members[1].protocol, seed=0)
    outcomes = fit_cogscale_fleet(build, members)
    assert isinstance(outcomes[1], ValueError) and str(outcomes[1]) == str(one_run.value)
    for i in (0, 2):
        _assert_member_equals_one_run(build, members[i], outcomes[i])


def test_family_without_fleet_forward_runs_one_at_a_time():
    from tests.train.tiny import TinyGRU  # not a zoo module: no fleet forward

    build = lambda: TinyGRU(3, 3, units=5)  # noqa: E731
    members = [CogScaleMember(tiny_data("classification", s), CogScaleProtocol(learning_rate=1e-2, max_epochs=4), s)
               for s in (0, 1)]
    for member, (model, fit) in zip(members, fit_cogscale_fleet(build, members)):
        _, one = fit_cogscale(build, member.data, member.protocol, seed=member.seed)
        assert fit.metrics == one.metrics and fit.history == one.history  # literally the one-run path


def test_members_must_share_protocol_and_shapes():
    a = CogScaleMember(tiny_data("classification", 0), CogScaleProtocol(max_epochs=3), 0)
    with pytest.raises(ValueError, match="batch_size"):
        fit_cogscale_fleet(_builder("gru"), [a, CogScaleMember(a.data, CogScaleProtocol(batch_size=5), 1)])
    with pytest.raises(ValueError, match="category"):
        fit_cogscale_fleet(_builder("gru"), [a, CogScaleMember(tiny_data("regression", 0), a.protocol, 1)])


@pytest.mark.parametrize("decoupled", [False, True])
def test_stacked_adam_is_torch_adam_bit_for_bit(decoupled):
    torch.manual_seed(0)
    models = [torch.nn.Linear(4, 3) for _ in range(3)]
    lrs = [1e-2, 3e-3, 1e-4]
    opt_cls = torch.optim.AdamW if decoupled else torch.optim.Adam
    wd = 0.01 if decoupled else 0.0
    refs = [torch.nn.Linear(4, 3) for _ in range(3)]
    for r, m in zip(refs, models):
        r.load_state_dict(m.state_dict())
    opts = [opt_cls(r.parameters(), lr=lr, weight_decay=wd) for r, lr in zip(refs, lrs)]
    fleet = flat_fleet(models)
    stacked = StackedAdam(fleet, lrs, weight_decay=wd, decoupled=decoupled)
    for step in range(5):
        grads = {n: torch.randn_like(p) for n, p in fleet.params().items()}
        stacked.step(torch.cat([grads[n].reshape(-1) for n in fleet.names]))
        for k, (r, o) in enumerate(zip(refs, opts)):
            r.weight.grad, r.bias.grad = grads["weight"][k].clone(), grads["bias"][k].clone()
            o.step()
        if step == 2:  # a member leaves: the others' states go on unchanged
            stacked.select([0, 2])
            refs, opts = [refs[0], refs[2]], [opts[0], opts[2]]
    params = fleet.params()
    for k, r in enumerate(refs):
        assert torch.equal(params["weight"][k], r.weight) and torch.equal(params["bias"][k], r.bias)


def test_epoch_order_draws_like_the_one_run_path():
    with torch.random.fork_rng():
        torch.manual_seed(7)
        expected = [one_run_order(13) for _ in range(3)]
    gen = torch.Generator()
    gen.manual_seed(7)
    assert all(torch.equal(epoch_order(13, gen), e) for e in expected)


def test_plan_fleets_groups_by_architecture_and_keeps_ids():
    from rote_hf.train.config import SweepConfig, expand

    config = SweepConfig.from_dict({
        "name": "plan", "suite": "cogscale",
        "data": {"tasks": ["adding_problem", "simple_copy"], "difficulties": ["small"], "seeds": [0, 1, 2]},
        "models": [{"name": "gru", "budget": 1000}, {"name": "lstm", "budget": 1000},
                   {"name": "esn", "budget": 1000}],
        "learning_rates": [1e-2, 1e-3]})
    specs = expand(config)
    for size in (1, 4, 16):
        units = plan_fleets(specs, size)
        flat = [s.run_id for u in units for s in u]
        assert sorted(flat) == sorted(s.run_id for s in specs)  # every run once, ids unchanged
        for unit in units:
            assert len(unit) <= size
            assert len({(s.task, s.model["name"], s.model.get("budget")) for s in unit}) == 1
            assert len(unit) == 1 or unit[0].model["name"] != "esn"
    assert [len(u) for u in plan_fleets(specs, 1)] == [1] * len(specs)
    assert max(len(u) for u in plan_fleets(specs, 16)) == 6  # 3 seeds x 2 LRs of one (task, model)
    with pytest.raises(ValueError, match="fleet size"):
        plan_fleets(specs, 0)


@pytest.mark.parametrize("family", ["gru", "lstm"])
def test_rote_members_equal_fit_rote(family):
    from rote_hf.train import RoteProtocol, fit_rote
    from rote_hf.protocols.fleet import RoteMember, fit_rote_fleet
    from tests.train.tiny import windows_data

    data = windows_data("ABACBBCAABCA", 90, 8, 8)
    n = len(data.alphabet)
    kwargs = {"hidden_size": 6, "num_layers": 2}
    build = lambda: build_model(family, input_size=n, output_size=n, **kwargs)  # noqa: E731
    members = [RoteMember(data, RoteProtocol(max_epochs=8, patience=2, batch_size=16, lr_step_size=3,
                                             learning_rate=lr), run) for run, lr in ((0, 3e-2), (1, 3e-3), (2, 1e-1))]
    outcomes = fit_rote_fleet(build, members)
    for member, (model, fit) in zip(members, outcomes):
        _, one = fit_rote(build, member.data, member.protocol, run=member.run)
        assert (fit.epochs, fit.best_epoch, fit.stop_reason, fit.forecast) == (one.epochs, one.best_epoch,
                                                                               one.stop_reason, one.forecast)
        for key, value in one.metrics.items():
            assert fit.metrics[key] == pytest.approx(value, abs=1e-5), key
        assert np.allclose(np.array(fit.history), np.array(one.history), rtol=1e-5, atol=1e-6)

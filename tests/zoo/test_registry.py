"""Registry, interface and input validation."""

from __future__ import annotations

import pytest
import torch

from rote_hf.zoo import MODEL_PRESETS, build_model, get_spec, model_info, names, register, resolve_arch

EXPECTED = {"lstm", "gru", "mingru", "minlstm", "minlstm-rote", "transformer", "transformer-ed", "linear-attention",
            "performer", "rwkv", "rwkv-rote", "xlstm", "mamba", "esn"}


def test_names_and_specs():
    assert set(names()) == EXPECTED and list(names()) == sorted(EXPECTED)
    assert [n for n in names() if not get_spec(n).causal] == ["transformer-ed"]
    for n in names():
        spec = get_spec(n)
        assert spec.source and spec.family and spec.width_key in spec.defaults
        assert set(spec.presets) <= set(MODEL_PRESETS)
    assert get_spec("minlstm-rote").family == get_spec("minlstm").family == "minLSTM"
    assert get_spec("rwkv").source.startswith("transformers")


def test_register_refuses_duplicates():
    with pytest.raises(ValueError, match="already registered"):
        register("gru", family="GRU", source="x", width_key="hidden_size", defaults={})(lambda i, o: None)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="name must be one of"):
        build_model("lstmx", input_size=2, output_size=2)
    with pytest.raises(ValueError, match="preset for 'mamba' must be None or one of"):
        build_model("mamba", input_size=2, output_size=2, preset="rote-paper")
    with pytest.raises(TypeError, match=r"unknown argument\(s\) \['units'\]"):
        build_model("gru", input_size=2, output_size=2, units=8)
    with pytest.raises(ValueError, match="input_size must be >= 1"):
        build_model("gru", input_size=0, output_size=2)
    with pytest.raises(TypeError, match="output_size must be an int"):
        build_model("gru", input_size=2, output_size=True)
    with pytest.raises(ValueError, match="target_m is only used"):
        build_model("gru", input_size=2, output_size=2, target_m=0.1)
    with pytest.raises(ValueError, match="d_model .* must be divisible by nhead"):
        build_model("transformer", input_size=2, output_size=2, d_model=10, nhead=4)
    with pytest.raises(ValueError, match="key_stabilizer must be"):
        build_model("performer", input_size=2, output_size=2, d_model=16, key_stabilizer="local")
    with pytest.raises(TypeError, match="model must come from"):
        model_info(torch.nn.Linear(2, 2))


def test_seed_is_local_and_deterministic():
    torch.manual_seed(123)
    state = torch.get_rng_state()
    a = build_model("rwkv-rote", input_size=3, output_size=3, seed=7, d_model=8)
    b = build_model("rwkv-rote", input_size=3, output_size=3, seed=7, d_model=8)
    c = build_model("rwkv-rote", input_size=3, output_size=3, seed=8, d_model=8)
    assert torch.equal(torch.get_rng_state(), state)  # the caller's global RNG is untouched
    sa, sb, sc = a.state_dict(), b.state_dict(), c.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert not all(torch.equal(sa[k], sc[k]) for k in sa)


def test_build_info_and_resolution_agree():
    res = resolve_arch("transformer", input_size=3, output_size=2, budget=20_000)
    model = build_model("transformer", input_size=3, output_size=2, budget=20_000)
    info = model_info(model)
    assert info.n_params == res.expected_params and dict(info.arch) == dict(res.arch)
    assert info.budget == 20_000 and info.name == "transformer" and info.causal
    assert info.relative_error == pytest.approx((info.n_params - 20_000) / 20_000)
    with pytest.raises(TypeError):
        info.arch["d_model"] = 3  # read-only

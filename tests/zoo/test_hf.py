"""``hf:<model_type>``: transformers decoders built from their configs, under the zoo contract.

Sixteen types spanning attention, SSM, linear attention, recurrent and hybrid stacks, at the 1k and
10k budgets (input 3 -> output 4) and at tiny fixed widths for the behaviour checks.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from rote_hf.suites.base import ModelEntry
from rote_hf.suites.execution import model_builder
from rote_hf.suites.model_names import check_zoo_models
from rote_hf.zoo import build_model, count_parameters, get_spec, model_info, resolve_arch
from rote_hf.zoo.display import display_name, variant

FAMILIES = {
    "llama": "attention", "gpt2": "attention", "olmo2": "attention", "gemma3_text": "attention",
    "mamba": "ssm", "mamba2": "ssm",
    "qwen3_next": "linear-attention", "kimi_linear": "linear-attention",
    "recurrent_gemma": "recurrent", "xlstm": "recurrent", "rwkv": "recurrent",
    "jamba": "hybrid", "bamba": "hybrid", "zamba2": "hybrid", "falcon_h1": "hybrid", "lfm2": "hybrid",
}
# at 1k these types' smallest (or closest) valid config misses the budget by more than 10% (the refusal names it)
REFUSE_1K = {"gpt2": "smallest valid size, hidden_size=4", "mamba": "closest hidden_size=4",
             "jamba": "smallest valid size, hidden_size=4", "bamba": "smallest valid size, hidden_size=4",
             "zamba2": "smallest valid size, hidden_size=4"}
# a cache whose step-by-step forward equals the full forward (recurrent_gemma, rwkv and xlstm's
# caches are not reachable through ``cache``/``past_key_values``; bamba's cache needs an attention layer first)
CACHED = ("llama", "gpt2", "olmo2", "gemma3_text", "mamba", "mamba2", "qwen3_next", "kimi_linear", "jamba",
          "zamba2", "falcon_h1", "lfm2")
FIT = {"attention": "llama", "ssm": "mamba2", "linear-attention": "qwen3_next", "recurrent": "recurrent_gemma",
       "hybrid": "jamba"}


def _tiny(model_type: str, seed: int = 0):
    return build_model("hf:" + model_type, input_size=3, output_size=4, hidden_size=8, seed=seed)


@pytest.mark.parametrize("budget", [1000, 10000])
@pytest.mark.parametrize("model_type", sorted(FAMILIES))
def test_budget_is_met_within_ten_percent_or_refused_naming_the_smallest_size(model_type, budget):
    if budget == 1000 and model_type in REFUSE_1K:
        with pytest.raises(ValueError, match=rf"budget=1000 cannot be met .*{REFUSE_1K[model_type]},? has \d+"):
            resolve_arch("hf:" + model_type, input_size=3, output_size=4, budget=budget)
        return
    res = resolve_arch("hf:" + model_type, input_size=3, output_size=4, budget=budget)
    model = build_model("hf:" + model_type, input_size=3, output_size=4, budget=budget, seed=0)
    info = model_info(model)
    assert info.arch == res.arch and info.n_params == res.expected_params == count_parameters(model)
    assert abs(info.n_params - budget) <= 0.1 * budget
    # the unused token table is frozen (counted as fixed, not trained); everything trained gets a gradient
    table = model.backbone.get_input_embeddings().weight
    assert not table.requires_grad and info.n_fixed >= table.numel() == 4 * model.config.hidden_size
    model(torch.randn(2, 5, 3)).square().mean().backward()
    assert [n for n, p in model.named_parameters() if p.requires_grad and p.grad is None] == []


@pytest.mark.parametrize("model_type", sorted(FAMILIES))
def test_causal_and_deterministic_under_one_seed(model_type):
    a, b, c = _tiny(model_type, 0), _tiny(model_type, 0), _tiny(model_type, 1)
    state = torch.random.get_rng_state()
    _tiny(model_type, 2)
    assert torch.equal(torch.random.get_rng_state(), state)  # initialisation ran in a forked RNG
    sa, sb, sc = a.state_dict(), b.state_dict(), c.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert any(not torch.equal(sa[k], sc[k]) for k in sa)
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(2, 12, 3, generator=gen)
    x2 = x.clone()
    x2[:, 6:] = torch.randn(2, 6, 3, generator=gen)
    a.eval()
    with torch.no_grad():
        y, y2 = a(x), a(x2)
    assert y.shape == (2, 12, 4) and model_info(a).causal
    assert (y[:, :6] - y2[:, :6]).abs().max().item() <= 1e-6
    assert (y[:, 6:] - y2[:, 6:]).abs().max().item() > 1e-4


@pytest.mark.parametrize("model_type", CACHED)
def test_step_by_step_through_the_cache_equals_the_full_forward(model_type):
    model = _tiny(model_type).double().eval()
    x = torch.randn(2, 7, 3, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    with torch.no_grad():
        full, steps = model(x), model.forward_stepwise(x)
    assert (full - steps).abs().max().item() <= 1e-6 * max(1.0, full.abs().max().item())


@pytest.mark.parametrize("family", sorted(FIT))
def test_a_tiny_fit_lowers_the_loss(family):
    model = _tiny(FIT[family])
    gen = torch.Generator().manual_seed(5)
    x = torch.randn(16, 10, 3, generator=gen)
    target = torch.cat([torch.zeros(16, 1, 4), F.pad(x[:, :-1], (0, 1))], dim=1)  # the previous input
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(40):
        opt.zero_grad()
        loss = F.mse_loss(model(x), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0]


def test_overrides_reach_the_config_and_the_count():
    model = build_model("hf:llama", input_size=3, output_size=4, hidden_size=8, num_hidden_layers=3, seed=0)
    assert model.config.num_hidden_layers == 3 and len(model.backbone.layers) == 3
    assert model.config.vocab_size == 4 and not model.backbone.get_input_embeddings().weight.requires_grad
    hybrid = build_model("hf:qwen3_next", input_size=3, output_size=4, hidden_size=8, seed=0)
    assert hybrid.config.layer_types == ["linear_attention", "full_attention"]  # one layer of each kind
    assert get_spec("hf:mamba2").source.startswith("transformers ")


@pytest.mark.parametrize("name, kwargs, match", [
    ("hf:mamba3", {}, r"unknown transformers model_type 'mamba3'; close matches: .*hf:mamba2"),
    ("hf:t5", {}, r"t5 is an encoder-decoder \(seq2seq\) model"),
    ("hf:vit", {}, r"vit is not a decoder"),
    ("hf:bart", {}, r"bart is an encoder-decoder \(seq2seq\) model"),
    ("hf:gemma3", {}, r"composite \(multimodal\).*use hf:gemma3_text"),
    ("hf:meta-llama/Llama-3.2-1B", {}, r"remote repo ids and paths are refused"),
    ("hf:llama", {"trust_remote_code": True}, r"trust_remote_code refused"),
    ("hf:llama", {"hidden_size": 16, "num_attention_heads": 3},
     r"^hf:llama\(hidden_size=16, num_attention_heads=3\): .*not a multiple of the number of attention heads"),
    ("hf:gpt2", {"budget": 500}, r"smallest valid size, hidden_size=4, has \d+ trainable parameters"),
])
def test_bad_input_is_refused_with_its_reason(name, kwargs, match):
    with pytest.raises(ValueError, match=match):
        build_model(name, input_size=3, output_size=4, **kwargs)


def test_sweep_configs_accept_hf_names_and_refuse_unknown_types():
    check_zoo_models([ModelEntry("hf:mamba2", {"budget": 10000}), ModelEntry("gru", {})])
    with pytest.raises(ValueError, match=r"models\[1\]\.name: 'hf:mamba3': unknown .*hf:mamba2"):
        check_zoo_models([ModelEntry("gru", {}), ModelEntry("hf:mamba3", {})])
    model = model_builder({"name": "hf:mamba2", "hidden_size": 8, "seed": 0}, 3, 4)()
    assert model_info(model).name == "hf:mamba2" and model(torch.zeros(1, 4, 3)).shape == (1, 4, 4)


def test_display_name_is_the_model_type():
    assert display_name("hf:mamba2") == "mamba2" and display_name("hf:qwen3_next") == "qwen3_next"
    assert display_name("hf:mamba") == "mamba (transformers)" != display_name("mamba")  # not the zoo's Mamba
    assert display_name(display_name("hf:xlstm")) == "xlstm (transformers)"
    assert variant("hf:mamba2", {"budget": 10000}) == "transformers config"


def test_parameters_that_get_no_gradient_are_frozen_and_not_counted():
    bert = build_model("hf:bert", input_size=3, output_size=4, hidden_size=8, seed=0)
    assert bert.config.is_decoder  # BERT as its causal-LM class runs it: causal self-attention
    pooler = bert.backbone.pooler.dense  # the pooler never reaches the per-step outputs
    assert not pooler.weight.requires_grad and not pooler.bias.requires_grad
    assert model_info(bert).n_params == sum(p.numel() for p in bert.parameters() if p.requires_grad)
    assert model_info(bert).n_fixed >= pooler.weight.numel() + pooler.bias.numel()

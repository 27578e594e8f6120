"""``hf:<model_type>``: any decoder architecture of the installed ``transformers``, built from its config.

``hf_spec("hf:mamba2")`` makes a :class:`~rote_hf.zoo.spec.ModelSpec` on the fly (no registration:
``transformers`` lists ~200 causal-LM types). The model is
``Linear(input_size -> hidden)`` -> ``AutoModel.from_config(AutoConfig.for_model(type, **config))``
(the base model, fed through ``inputs_embeds``, no LM head) -> ``Linear(hidden -> output_size)``
on the last hidden states. ``trust_remote_code`` is never set and no repo id is read: only the
config classes of the installed library are used.

Sizes (:func:`tiny_config`): the budget search varies ``hidden_size`` (``width``); every other size
field of the type's default config is derived from it by one generic rule per field kind --
heads = min(default, 2) and head dims = width / heads, key-value heads keep grouped-query
attention (1 when the default groups them), feed-forward / MoE / low-rank sizes keep the
default's ratio to the hidden size, experts <= 4 (<= 2 per token, <= 1 shared), SSM states <= 16,
SSM heads 2 with head dim = SSM inner size / 2, groups 1 -- and the number of layers is 2, or the
number of distinct layer kinds of a hybrid (its ``layer_types``-like lists keep one layer of each
kind, in the default's order), so every hybrid keeps all its mixers. A few types need one more
tweak (:data:`TYPE_TWEAKS`). Any config field may be overridden (``build_model("hf:llama", ...,
num_hidden_layers=4)``); overrides win over the derived sizes.

Honest count: the input token-embedding table is not used (inputs enter through
``inputs_embeds``), so its vocabulary is shrunk to 4 rows and the table is frozen: it is excluded
from ``count_parameters`` and reported in ``BuildInfo.n_fixed``; so is any other parameter a probe
forward + backward leaves without a gradient (:func:`freeze_unreached`). Position tables are sized for
1024 steps (CogScale medium's longest task is 900 steps) and counted: they are used.
"""

from __future__ import annotations

import difflib
import functools
import math
from typing import Any, Callable, Mapping

import torch
from torch import nn

from ..spec import HF_PREFIX, ModelSpec

#: Rows kept in the (frozen, unused) token-embedding table.
VOCAB_ROWS = 4
#: Positions every model must reach (position tables are sized for it).
CONTEXT = 1024
#: Smallest and largest hidden sizes the budget search tries.
WIDTH_MIN, WIDTH_MAX = 4, 2048

# ---- field kinds (names as in the configs' ``to_dict()``) -----------------------------------------
WIDTH_FIELDS = ("hidden_size", "d_model", "n_embd", "embedding_dim", "lru_width", "attention_hidden_size",
                "emb_dim", "embedding_size", "backbone_hidden_size", "input_embedding_size", "word_embed_proj_dim")
LAYER_FIELDS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers", "num_blocks", "decoder_layers")
HEAD_FIELDS = ("num_attention_heads", "n_head", "n_heads", "decoder_attention_heads", "swa_num_attention_heads",
               "attention_heads", "linear_num_heads", "index_n_heads", "linear_num_key_heads")
KV_HEAD_FIELDS = ("num_key_value_heads", "num_kv_heads", "swa_num_key_value_heads", "num_query_groups",
                  "multi_query_group_num")
HEAD_DIM_FIELDS = ("head_dim", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "linear_key_head_dim",
                   "linear_value_head_dim", "linear_head_dim", "swa_head_dim", "index_head_dim", "attention_head_dim",
                   "attention_head_size", "d_head", "dim_head", "kv_channels", "rotary_dim")
RATIO_FIELDS = ("intermediate_size", "moe_intermediate_size", "shared_expert_intermediate_size",
                "shared_intermediate_size", "decoder_ffn_dim", "ffn_dim", "n_inner", "d_inner", "dim_ff", "dff",
                "feed_forward_size", "ffn_hidden_size", "expert_ffn_hidden_size", "dense_intermediate_size",
                "intermediate_size_mlp", "moe_shared_expert_intermediate_size", "shared_experts_intermediate_size",
                "router_hidden_size", "kv_lora_rank", "q_lora_rank", "o_lora_rank", "laurel_rank",
                "hidden_size_per_layer_input", "ple_embed_dim", "gated_norm_rank", "loop_gate_rank", "hc_lowrank")
LOW_RANK_FIELDS = ("kv_lora_rank", "q_lora_rank", "o_lora_rank", "laurel_rank", "gated_norm_rank", "loop_gate_rank",
                   "hc_lowrank", "router_hidden_size", "hidden_size_per_layer_input", "ple_embed_dim")
#: The zoo's own knob (not a config field): multiplies the default feed-forward-to-hidden ratios;
#: the budget search moves it off 1 only when no hidden size alone lands within +-10%.
FFN_SCALE = "ffn_scale"
FFN_SCALES = (1.0, 0.75, 1.25, 0.5, 1.5, 2.0)
SSM_HEAD_FIELDS = ("mamba_n_heads", "n_mamba_heads", "mamba_num_heads")
SSM_HEAD_DIM_FIELDS = ("mamba_d_head", "mamba_head_dim", "mamba_headdim")
STATE_FIELDS = ("state_size", "mamba_d_state", "ssm_state_size", "d_state")
GROUP_FIELDS = ("n_groups", "mamba_n_groups", "mamba_ngroups", "n_group", "topk_group", "num_expert_group")
EXPERT_FIELDS = ("num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts")
TOPK_FIELDS = ("num_experts_per_tok", "num_experts_per_token", "moe_topk", "moe_k")
SHARED_EXPERT_FIELDS = ("n_shared_experts", "num_shared_experts", "moe_num_shared_experts")
DT_RANK_FIELDS = ("time_step_rank", "mamba_dt_rank")
POSITION_FIELDS = ("max_position_embeddings", "n_positions", "max_seq_len", "n_ctx", "context_length")
#: SSD chunk lengths (compute only: the torch path pads a sequence up to a whole chunk).
CHUNK_FIELDS = ("chunk_size", "mamba_chunk_size")
CHUNK = 32
SMALL_LAYER_COUNTS = ("first_k_dense_replace", "max_window_layers", "num_dense_layers", "num_kv_shared_layers")
TOKEN_FIELDS = {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}

#: Entries that would run code or read files from outside the installed library.
REFUSED_KEYS = ("trust_remote_code", "auto_map", "pretrained_model_name_or_path", "name_or_path", "_name_or_path",
                "revision", "code_revision", "token")


def _even(value: float, low: int = 2) -> int:
    return max(low, int(round(value / 2)) * 2)


def _compress_pattern(values: list[Any], layers: int) -> list[Any]:
    """A per-layer pattern (list or string of kinds) cut to ``layers`` layers keeping every kind once,
    in the order of first appearance; with more layers than kinds the last kind repeats."""
    kinds = list(dict.fromkeys(values))
    out = (kinds + [kinds[-1]] * layers)[:layers] if kinds else []
    return out


@functools.lru_cache(maxsize=None)
def default_config(model_type: str) -> dict[str, Any]:
    """The type's default config as a dict (``AutoConfig.for_model(model_type).to_dict()``)."""
    from transformers import AutoConfig  # lazy: imports transformers

    return AutoConfig.for_model(model_type).to_dict()


def _layer_count(cfg: Mapping[str, Any]) -> int | None:
    for key in LAYER_FIELDS:
        if isinstance(cfg.get(key), int):
            return cfg[key]
    return None


def _pattern_fields(cfg: Mapping[str, Any]) -> list[str]:
    """Fields holding one kind per layer (lists, or strings such as nemotron_h's pattern); a list of
    distinct layer indices (e.g. lfm2's ``full_attn_idxs``) is not one (see :func:`_index_fields`)."""
    n = _layer_count(cfg)
    return [k for k, v in cfg.items() if n and isinstance(v, (list, str)) and len(v) == n and n > 1
            and k not in ("model_type", "architectures") and not k.startswith("_")
            and (isinstance(v, str) and k.endswith("pattern") or isinstance(v, list))
            and k not in _index_fields(cfg)]


def _index_fields(cfg: Mapping[str, Any]) -> list[str]:
    """Fields listing layer indices (distinct ints below the layer count)."""
    n = _layer_count(cfg) or 0
    return [k for k, v in cfg.items() if isinstance(v, list) and v and not k.startswith("_")
            and all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n for i in v)
            and len(set(v)) == len(v) and (len(v) < n or v == list(range(n))) and n > 1
            and any(t in k for t in ("idx", "ids", "indices", "layers"))]


def hybrid_layers(model_type: str) -> int:
    """Layers of the smallest config: 2, or the most distinct kinds in one per-layer pattern."""
    cfg = default_config(model_type)
    kinds = [len(set(map(repr, cfg[k]))) for k in _pattern_fields(cfg)]
    return max([2, *kinds, *TYPE_MIN_LAYERS.get(model_type, ())])


def tiny_config(model_type: str, width: int, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The config kwargs (beyond the type's defaults) of ``hf:model_type`` at hidden size ``width``.

    ``overrides`` (any config fields) win; a ``num_hidden_layers``/``num_attention_heads``-like
    override also drives the derived layer patterns and head dims.
    """
    overrides = dict(overrides or {})
    ffn_scale = float(overrides.pop(FFN_SCALE, 1.0))
    cfg = default_config(model_type)
    kw: dict[str, Any] = {}
    hidden0 = next((cfg[k] for k in WIDTH_FIELDS if isinstance(cfg.get(k), int) and cfg[k] > 0), None)
    layer_key = next((k for k in LAYER_FIELDS if isinstance(cfg.get(k), int)), None)
    layers = int(overrides.get(layer_key, hybrid_layers(model_type))) if layer_key else hybrid_layers(model_type)
    for key in WIDTH_FIELDS:
        if isinstance(cfg.get(key), int):
            kw[key] = width
    for key in LAYER_FIELDS:
        if isinstance(cfg.get(key), int):
            kw[key] = layers
    head_key = next((k for k in HEAD_FIELDS if isinstance(cfg.get(k), int) and cfg[k] > 0), None)
    heads0 = cfg[head_key] if head_key else 1
    heads = int(overrides.get(head_key, min(heads0, 2))) if head_key else 1
    for key in HEAD_FIELDS:
        if isinstance(cfg.get(key), int) and cfg[key] > 0:
            kw[key] = heads
    if isinstance(cfg.get("linear_num_value_heads"), int) and isinstance(cfg.get("linear_num_key_heads"), int):
        kw["linear_num_value_heads"] = heads * max(1, cfg["linear_num_value_heads"] // max(1, cfg["linear_num_key_heads"]))
    for key in KV_HEAD_FIELDS:
        if isinstance(cfg.get(key), int) and cfg[key] > 0:
            kw[key] = heads if cfg[key] >= heads0 else max(1, heads // 2)
    if "num_key_value_heads" in cfg and cfg["num_key_value_heads"] is None and head_key:
        kw["num_key_value_heads"] = heads  # None means "as many as the heads"; some stacks divide by it
    head_dim = max(2, width // max(1, heads))
    for key in HEAD_DIM_FIELDS:
        if isinstance(cfg.get(key), int) and cfg[key] > 0:
            kw[key] = _even(head_dim)
    if "head_dim" in cfg and cfg["head_dim"] is None and head_key:
        kw["head_dim"] = _even(head_dim)  # None means hidden / heads; some rotary inits read it as is
    if "qk_head_dim" in cfg and "qk_nope_head_dim" in kw and "qk_rope_head_dim" in kw:
        kw["qk_head_dim"] = kw["qk_nope_head_dim"] + kw["qk_rope_head_dim"]
    for key in RATIO_FIELDS:
        if isinstance(cfg.get(key), int) and cfg[key] > 0 and hidden0:
            kw[key] = _even(cfg[key] / hidden0 * width * (ffn_scale if key not in LOW_RANK_FIELDS else 1.0))
    if isinstance(cfg.get("query_pre_attn_scalar"), int):
        kw["query_pre_attn_scalar"] = kw.get("head_dim", head_dim)
    expand = next((cfg[k] for k in ("mamba_expand", "expand") if isinstance(cfg.get(k), (int, float))), 2)
    ssm_inner = kw.get("mamba_d_ssm", int(expand * width))
    if isinstance(cfg.get("mamba_d_ssm"), int) and hidden0:
        ssm_inner = kw["mamba_d_ssm"] = _even(cfg["mamba_d_ssm"] / hidden0 * width)
    for key in SSM_HEAD_FIELDS:
        if isinstance(cfg.get(key), int):
            kw[key] = 2
    for key in SSM_HEAD_DIM_FIELDS:
        if isinstance(cfg.get(key), int):
            kw[key] = max(1, ssm_inner // 2)
    for key in STATE_FIELDS:
        if isinstance(cfg.get(key), int):
            kw[key] = min(cfg[key], 16)
    for key in GROUP_FIELDS:
        if key in cfg and (cfg[key] is None or isinstance(cfg[key], int)):
            kw[key] = 1
    for key in EXPERT_FIELDS:
        if isinstance(cfg.get(key), int) and cfg[key] > 0:
            kw[key] = min(cfg[key], 4)
    for key in TOPK_FIELDS:
        if isinstance(cfg.get(key), int) and cfg[key] > 0:
            kw[key] = min(cfg[key], 2)
        elif key in cfg and cfg[key] is None and any(isinstance(cfg.get(k), int) for k in EXPERT_FIELDS):
            kw[key] = 2  # None where the router reads it as its k
    for key in SHARED_EXPERT_FIELDS:
        if isinstance(cfg.get(key), int) and cfg[key] > 0:
            kw[key] = min(cfg[key], 1)
    for key in DT_RANK_FIELDS:
        if isinstance(cfg.get(key), int):
            kw[key] = math.ceil(width / 16)
    for key in POSITION_FIELDS:
        if isinstance(cfg.get(key), int):
            kw[key] = CONTEXT
    for key in CHUNK_FIELDS:
        if isinstance(cfg.get(key), int) and model_type != "xlstm":
            kw[key] = min(cfg[key], CHUNK)
    for key in SMALL_LAYER_COUNTS:
        if isinstance(cfg.get(key), int) and cfg[key] > 0:
            kw[key] = min(cfg[key], max(1, layers - 1))
    for key in ("attn_layer_period", "expert_layer_period"):
        if isinstance(cfg.get(key), int):
            kw[key] = min(cfg[key], layers)
            off = key.replace("period", "offset")
            if isinstance(cfg.get(off), int):
                kw[off] = cfg[off] % kw[key]
    for key in _index_fields(cfg):
        kept = [i for i in cfg[key] if i < layers]
        kw[key] = kept or [layers - 1]
    for key in _pattern_fields(cfg):
        value = cfg[key]
        out = _compress_pattern(list(value), layers)
        kw[key] = "".join(out) if isinstance(value, str) else out
    if isinstance(cfg.get("vocab_size"), int):
        kw["vocab_size"] = VOCAB_ROWS
    for key, token in TOKEN_FIELDS.items():
        if key in cfg and cfg[key] is not None:
            kw[key] = token
    tweak = TYPE_TWEAKS.get(model_type)
    if tweak is not None:
        tweak(kw, cfg, width, layers, heads)
    kw.update(overrides)
    return kw


# ---- the few types that need one more rule ---------------------------------------------------------


def _mamba2(kw, cfg, width, layers, heads):
    kw["num_heads"] = 2
    kw["head_dim"] = max(1, int(cfg.get("expand", 2) * width) // 2)


def _xlstm(kw, cfg, width, layers, heads):
    kw["num_heads"] = 2
    kw["ffn_round_up_to_multiple_of"] = 2


def _lfm2(kw, cfg, width, layers, heads):
    # the default config lists only attention layers; LFM2 is a short-conv / attention hybrid
    kw["layer_types"] = ["conv", "full_attention"][:layers] + ["full_attention"] * max(0, layers - 2)
    kw.pop("full_attn_idxs", None)
    kw["full_attn_idxs"] = [i for i, t in enumerate(kw["layer_types"]) if t == "full_attention"]
    kw["block_multiple_of"] = 2


def _zamba2(kw, cfg, width, layers, heads):
    # the shared attention block reads [hidden, embeddings] concatenated: the config derives its sizes
    for key in ("attention_hidden_size", "attention_head_dim", "mamba_headdim"):
        kw.pop(key, None)


def _recurrent_gemma(kw, cfg, width, layers, heads):
    kw["num_hidden_layers"] = max(layers, 3)  # the block pattern recurrent, recurrent, attention


def _xlm(kw, cfg, width, layers, heads):
    kw["causal"] = True  # XLM's own switch: causal self-attention (its CLM objective)


TYPE_TWEAKS = {"xlm": _xlm, "mamba2": _mamba2, "zamba2": _zamba2, "xlstm": _xlstm, "lfm2": _lfm2, "lfm2_moe": _lfm2, "recurrent_gemma": _recurrent_gemma}
TYPE_MIN_LAYERS: dict[str, tuple[int, ...]] = {"recurrent_gemma": (3,)}


# ---- names and refusals -------------------------------------------------------------------------


def causal_lm_types() -> tuple[str, ...]:
    """Every model type ``AutoModelForCausalLM`` lists in the installed ``transformers``, sorted."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES  # lazy: imports transformers

    return tuple(sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES))


#: Types in the causal-LM mapping whose base model lets a step see later inputs (measured by
#: benchmarks/hf_zoo.py's perturbation check).
NOT_CAUSAL = {"xlnet": "its two-stream attention sees the whole sequence unless a permutation mask is given "
                       "(outputs before a change of later inputs move)"}

#: Sub-configs of a composite model (encoders the base model holds beside its text decoder).
COMPOSITE_KEYS = ("text_config", "decoder", "decoder_config", "vision_config", "audio_config", "audio_encoder_config",
                  "vq_config", "encoder_config", "text_encoder", "audio_encoder", "patcher_config",
                  "depth_decoder_config")


def check_model_type(name: str) -> str:
    """``"hf:<model_type>"`` -> model_type, or ValueError saying why it cannot be built."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES  # lazy: imports transformers

    if not isinstance(name, str) or not name.startswith(HF_PREFIX):
        raise ValueError(f"an hf model name is written 'hf:<model_type>', got {name!r}")
    model_type = name[len(HF_PREFIX):]
    if "/" in model_type or "\\" in model_type or "." in model_type:
        raise ValueError(f"{name!r}: remote repo ids and paths are refused; name a model_type of the installed "
                         f"transformers (e.g. 'hf:llama'), built from its config with no remote code")
    causal = causal_lm_types()
    if model_type not in CONFIG_MAPPING_NAMES:
        close = difflib.get_close_matches(model_type, causal, n=5, cutoff=0.5)
        raise ValueError(f"{name!r}: unknown transformers model_type {model_type!r}; close matches: "
                         f"{', '.join('hf:' + c for c in close) or 'none'}")
    try:
        cfg = default_config(model_type)
    except Exception as exc:  # noqa: BLE001 -- the library refuses its own defaults
        raise ValueError(f"{name!r}: the default {model_type} config does not build: {type(exc).__name__}: "
                         f"{' '.join(str(exc).split())}") from None
    if model_type not in causal:
        kind = "an encoder-decoder (seq2seq) model" if cfg.get("is_encoder_decoder") else \
            "not a decoder (no causal-LM class: an encoder-only, vision, audio or other non-causal model)"
        raise ValueError(f"{name!r}: {model_type} is {kind}; AutoModelForCausalLM does not list it")
    if model_type in NOT_CAUSAL:
        raise ValueError(f"{name!r}: {model_type} is not a causal stack: {NOT_CAUSAL[model_type]}")
    if cfg.get("is_encoder_decoder"):
        raise ValueError(f"{name!r}: {model_type} is an encoder-decoder (seq2seq) model; its base model needs "
                         f"decoder inputs and a bidirectional encoder, so it is not a causal stack")
    subs = [k for k in COMPOSITE_KEYS if isinstance(cfg.get(k), dict)]
    if subs:
        text_type = cfg[subs[0]].get("model_type")
        hint = f"; use hf:{text_type}" if text_type and text_type in causal and text_type != model_type else ""
        raise ValueError(f"{name!r}: {model_type} is a composite (multimodal) config whose base model holds "
                         f"unused encoders ({', '.join(subs)}){hint}")
    return model_type


def check_overrides(name: str, overrides: Mapping[str, Any]) -> None:
    """Refuse the entries that would load remote code or weights."""
    bad = sorted(k for k in overrides if k in REFUSED_KEYS)
    if bad:
        raise ValueError(f"{name!r}: {', '.join(bad)} refused: hf models are built from the installed transformers' "
                         f"config classes only (no remote code, no repo ids)")


# ---- the model -------------------------------------------------------------------------------------


class HFDecoder(nn.Module):
    """``Linear(in -> hidden)`` -> transformers base model (``inputs_embeds``) -> ``Linear(hidden -> out)``.

    x: (batch, time, input_size) float -> (batch, time, output_size).
    """

    causal = True

    def __init__(self, model_type: str, input_size: int, output_size: int, config: Any, backbone: nn.Module):
        super().__init__()
        self.model_type = model_type
        self.config = config
        self.proj = nn.Linear(input_size, config.hidden_size)
        self.backbone = backbone
        self.head = nn.Linear(config.hidden_size, output_size)

    def hidden_states(self, x: torch.Tensor, **kwargs: Any) -> Any:
        """The backbone's output (``last_hidden_state`` and, with ``use_cache=True``, its cache)."""
        emb = self.proj(x).to(next(self.backbone.parameters()).dtype)
        return self.backbone(inputs_embeds=emb, **kwargs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.hidden_states(x, use_cache=False)
        return self.head(out.last_hidden_state.to(self.head.weight.dtype))

    def forward_stepwise(self, x: torch.Tensor) -> torch.Tensor:
        """The same map computed one step at a time through the backbone's cache (``cache``, or the
        older ``past_key_values`` / ``cache_params``): x (batch, time, in) -> (batch, time, out).
        Equals :meth:`forward` up to float rounding for a causal model whose cache is exact."""
        import inspect

        params = inspect.signature(self.backbone.forward).parameters
        name = next((n for n in ("cache", "past_key_values", "cache_params") if n in params), None)
        if name is None:
            raise ValueError(f"hf:{self.model_type} takes no cache")
        outs, cache = [], None
        for t in range(x.shape[1]):
            kwargs: dict[str, Any] = {"use_cache": True} if cache is None else {"use_cache": True, name: cache}
            out = self.hidden_states(x[:, t:t + 1], **kwargs)
            cache = next((getattr(out, n) for n in ("cache", "past_key_values", "cache_params")
                          if getattr(out, n, None) is not None), None)
            if cache is None:
                raise ValueError(f"hf:{self.model_type} returned no cache")
            outs.append(out.last_hidden_state)
        return self.head(torch.cat(outs, dim=1).to(self.head.weight.dtype))


def _refusal(name: str, entry: Mapping[str, Any], exc: BaseException, what: str = "") -> ValueError:
    """The type's own error on one line, prefixed with the entry (name and arguments) that caused it."""
    args = ", ".join(f"{k}={v!r}" for k, v in entry.items())
    return ValueError(f"{name}({args}){what}: {type(exc).__name__}: {' '.join(str(exc).split())}")


def make_config(model_type: str, name: str, kwargs: Mapping[str, Any], entry: Mapping[str, Any]) -> Any:
    """``AutoConfig.for_model(model_type, **kwargs)``; its error is prefixed with ``entry``."""
    from transformers import AutoConfig  # lazy: imports transformers

    try:
        return AutoConfig.for_model(model_type, **kwargs)
    except Exception as exc:  # noqa: BLE001 -- the type's own error, whatever its class
        raise _refusal(name, entry, exc) from None


def build_hf(model_type: str, input_size: int, output_size: int, **arch: Any) -> HFDecoder:
    """Build ``hf:model_type`` with ``arch`` = {"hidden_size": width, **config overrides}."""
    from transformers import AutoModel  # lazy: imports transformers
    from transformers.utils import logging as hf_logging  # lazy: imports transformers

    name = HF_PREFIX + model_type
    overrides = dict(arch)
    width = int(overrides.pop("hidden_size"))
    check_overrides(name, overrides)
    entry = {"hidden_size": width, **overrides}
    config = make_config(model_type, name, tiny_config(model_type, width, overrides), entry)
    if hasattr(config, "is_decoder") and not getattr(config, "is_decoder") and _needs_decoder_flag(model_type):
        config.is_decoder = True  # BERT-like stacks: causal self-attention, as their *ForCausalLM sets
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # token-id range warnings of the shrunk vocabulary
    try:
        try:  # the experts' reference loop: grouped_mm wants 16-byte-aligned strides, which tiny widths miss
            backbone = AutoModel.from_config(config, dtype=torch.float32, experts_implementation="eager")
        except ValueError as exc:
            if "experts_implementation" not in str(exc):
                raise
            backbone = AutoModel.from_config(config, dtype=torch.float32)
    except Exception as exc:  # noqa: BLE001 -- the type's own error, prefixed with the entry
        raise _refusal(name, entry, exc) from None
    finally:
        hf_logging.set_verbosity(verbosity)
    emb = backbone.get_input_embeddings() if hasattr(backbone, "get_input_embeddings") else None
    if isinstance(emb, nn.Module):
        emb.requires_grad_(False)  # unused: inputs enter through inputs_embeds
    model = HFDecoder(model_type, input_size, output_size, config, backbone)
    if not any(p.is_meta for p in model.parameters()):
        freeze_unreached(model)
    return model


def freeze_unreached(model: HFDecoder) -> list[str]:
    """Freeze the parameters that a probe forward + backward leaves without a gradient (they do
    not shape the output: BERT's pooler, the top-k indexers of DeepSeek-V3.2-style sparse
    attention at sequences shorter than their k, ...), so the count holds what is trained.
    Expert weights are kept: which experts a probe reaches depends on its routing. The probe
    (2 x 16 steps, eval mode, its own generator) leaves the global RNG alone. Returns the names."""
    x = torch.randn(2, 16, model.proj.in_features, generator=torch.Generator().manual_seed(0))
    was_training = model.training
    model.eval()
    try:
        model(x).square().sum().backward()
    except Exception:  # noqa: BLE001 -- a forward that fails is reported by the caller's own use
        return []
    finally:
        model.train(was_training)
    frozen = []
    for name, p in model.named_parameters():
        if p.requires_grad and p.grad is None and "expert" not in name:
            p.requires_grad_(False)
            frozen.append(name)
        p.grad = None
    return frozen


def _needs_decoder_flag(model_type: str) -> bool:
    return model_type in DECODER_FLAG_TYPES


#: Encoder stacks whose causal-LM class switches ``is_decoder`` on.
DECODER_FLAG_TYPES = frozenset({
    "bert", "bert-generation", "big_bird", "camembert", "data2vec-text", "electra", "ernie", "megatron-bert",
    "rembert", "roberta", "roberta-prelayernorm", "roc_bert", "roformer", "xlm-roberta", "xlm-roberta-xl", "xmod",
})


def hf_spec(name: str) -> ModelSpec:
    """The :class:`ModelSpec` of ``hf:<model_type>`` (ValueError when it cannot be built)."""
    model_type = check_model_type(name)
    return _spec(model_type)


@functools.lru_cache(maxsize=None)
def _spec(model_type: str) -> ModelSpec:
    def builder(input_size: int, output_size: int, **arch: Any) -> HFDecoder:
        return build_hf(model_type, input_size, output_size, **arch)

    builder.__name__ = f"build_hf_{model_type}"
    return ModelSpec(
        name=HF_PREFIX + model_type, family="hf", source=f"transformers {_version()} ({model_type})", causal=True,
        width_key="hidden_size", width_min=WIDTH_MIN, width_step=2, width_max=WIDTH_MAX,
        defaults={"hidden_size": 32}, builder=builder, count=_probed_count(model_type), monotone=False, open_arguments=True,
        search=functools.partial(search_budget, model_type),
        description=f"transformers' {model_type} base model from its config, inputs_embeds in, linear head out",
    )


#: (model_type, input_size, output_size, arch) -> trainable count, or the ValueError that size raised.
_PROBES: dict[tuple, int | ValueError] = {}


def _probed_count(model_type: str) -> Callable[[int, int, Mapping[str, Any]], int]:
    """The count of a real CPU build that also ran a 5-step forward (a size whose config builds
    but whose forward fails, e.g. a head dim its rotary or conv kernel cannot split, raises
    ValueError like a refused config). Builds run in a forked RNG; results are cached."""

    def count(input_size: int, output_size: int, arch: Mapping[str, Any]) -> int:
        key = (model_type, input_size, output_size, repr(sorted(arch.items())))
        if key not in _PROBES:
            _PROBES[key] = _probe(model_type, input_size, output_size, arch)
        result = _PROBES[key]
        if isinstance(result, ValueError):
            raise result
        return result

    return count


def _probe(model_type: str, input_size: int, output_size: int, arch: Mapping[str, Any]) -> int | ValueError:
    from ..budget import count_parameters

    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            model = build_hf(model_type, input_size, output_size, **arch)
            with torch.no_grad():
                model.eval()(torch.zeros(1, 5, input_size))
    except ValueError as exc:
        return exc
    except Exception as exc:  # noqa: BLE001 -- the type's forward refuses this size
        return _refusal(HF_PREFIX + model_type, arch, exc, " forward")
    return count_parameters(model)


def _version() -> str:
    import transformers  # lazy: imports transformers

    return transformers.__version__


def search_budget(model_type: str, count: Callable[[Mapping[str, Any]], int | None], budget: int,
                  fixed: Mapping[str, Any]) -> tuple[dict[str, Any], int, bool]:
    """The sizes of an ``hf:`` model closest to ``budget``: (arch updates, count, smallest_valid).

    ``count(updates)`` is the trainable count with ``updates`` (None where the config or its
    forward refuses them, e.g. a head dim its rotary embedding cannot split: such a hidden size is
    skipped for the next even one). Even hidden sizes from WIDTH_MIN are searched by galloping then
    bisecting (the count grows with the width); when no hidden size alone lands within +-10%, the
    feed-forward ratio (``ffn_scale``) is tried at the two hidden sizes around the budget, then 1 to
    3 more layers at the hidden size below it (tiny budgets: a wider stack overshoots).
    ``fixed``: the caller's overrides (a fixed ``ffn_scale`` or layer count is not searched).
    """
    from ..budget import BUDGET_TOLERANCE

    widths = list(range(WIDTH_MIN, WIDTH_MAX + 1, 2))
    seen: dict[int, int | None] = {}

    def at(i: int) -> int | None:
        if widths[i] not in seen:
            seen[widths[i]] = count({"hidden_size": widths[i]})
        return seen[widths[i]]

    def valid_from(i: int, tries: int = 8) -> int | None:
        for j in range(i, min(i + tries, len(widths))):
            if at(j) is not None:
                return j
        return None

    lo = valid_from(0, tries=len(widths) // 8)
    if lo is None:
        raise ValueError("no hidden size builds")
    first = lo
    hi = lo
    while at(hi) < budget:  # gallop
        nxt = valid_from(min(len(widths) - 1, 2 * hi + 1))
        if nxt is None or nxt <= hi:
            break
        lo, hi = hi, nxt
    while hi - lo > 1 and at(lo) < budget <= at(hi):  # bisect
        mid = valid_from((lo + hi) // 2, tries=hi - (lo + hi) // 2)
        if mid is None or mid >= hi:
            break
        if at(mid) < budget:
            lo = mid
        else:
            hi = mid
    candidates = sorted({lo, hi}, key=lambda i: (abs(at(i) - budget), i))
    best: tuple[dict[str, Any], int] = ({"hidden_size": widths[candidates[0]]}, at(candidates[0]))
    scales = (1.0,) if FFN_SCALE in fixed else FFN_SCALES
    layer_key = next((k for k in LAYER_FIELDS if isinstance(default_config(model_type).get(k), int)), None)
    depths: tuple[int | None, ...] = (None,)
    if layer_key and layer_key not in fixed:  # a deeper stack where a wider one overshoots
        depths += tuple(hybrid_layers(model_type) + d for d in (1, 2, 3))
    for depth in depths:
        if abs(best[1] - budget) <= BUDGET_TOLERANCE * budget:
            break
        for i in sorted({lo, hi}) if depth is None else [j for j in (lo, hi) if at(j) < budget][:1]:
            for scale in scales:
                updates = {"hidden_size": widths[i]}
                if scale != 1.0:
                    updates[FFN_SCALE] = scale
                if depth is not None:
                    updates[layer_key] = depth
                c = count(updates) if len(updates) > 1 else at(i)
                if c is not None and abs(c - budget) < abs(best[1] - budget):
                    best = (updates, c)
    smallest = best[0]["hidden_size"] == widths[first] and best[1] > budget
    return best[0], best[1], smallest

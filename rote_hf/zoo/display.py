"""One display name per architecture: the name every surface (leaderboard tables, plots, reports)
shows for a zoo registry name, and for the names the papers' published rows use.

The display names are the papers' own (``GRU``, ``Transformer``, ``minLSTM``, ...), so our runs
and the published rows of the same architecture share one name, one table line and one plot
colour. What distinguishes two models of one architecture (the ROTE reference's variant of a
layer, a preset, a width) is the *variant*, shown in a column of its own.

Pure constants and functions (no torch); ``tests/zoo/test_display.py`` checks that every
registry name has a display name.
"""

from __future__ import annotations

from typing import Any, Mapping

DISPLAY_NAMES: Mapping[str, str] = {
    "esn": "ESN",
    "gru": "GRU",
    "linear-attention": "LinearAttention",
    "lstm": "LSTM",
    "mamba": "Mamba",
    "mingru": "minGRU",
    "minlstm": "minLSTM",
    "minlstm-rote": "minLSTM",
    "performer": "Performer",
    "rwkv": "RWKV",
    "rwkv-rote": "RWKV",
    "transformer": "Transformer",
    "transformer-ed": "TransformerEncDec",
    "xlstm": "xLSTM",
}
"""Zoo registry name -> display name (the names of the papers' published rows)."""

REGISTRY_VARIANTS: Mapping[str, str] = {
    "minlstm-rote": "ROTE reference layer",
    "rwkv-rote": "ROTE reference layer",
}
"""Registry names that are a variant of another name's architecture -> the variant shown."""

PUBLISHED_ALIASES: Mapping[str, str] = {
    # CogScale's table calls the decoder-only (causal) Transformer TRANSFORMER_DECODER; ROTE's
    # tables call the same architecture Transformer (zoo: ``transformer``)
    "TransformerDecoder": "Transformer",
}
"""Names in the papers' files that differ from the display name of the same architecture."""

PUBLISHED_SUITE_ALIASES: Mapping[str, Mapping[str, str]] = {
    # the ROTE reference's "Transformer" is an encoder-decoder fed the same window twice (the zoo's
    # ``transformer-ed``), not the decoder-only ``transformer`` that CogScale's TransformerDecoder is
    "rote": {"transformer": "TransformerEncDec"},
    "rote_matched": {"transformer": "TransformerEncDec"},
}
"""Suite -> names in that suite's published rows (lower case) whose architecture is another
display name than the same name elsewhere (:func:`published_display_name`)."""

_BY_LOWER = {**{k.lower(): v for k, v in DISPLAY_NAMES.items()},
             **{v.lower(): v for v in DISPLAY_NAMES.values()},
             **{k.lower(): v for k, v in PUBLISHED_ALIASES.items()}}

_WIDTH_KEYS = ("hidden_size", "d_model", "units", "reservoir_size")


HF_SUFFIX = " (transformers)"
"""Added to the model type of an ``hf:`` name that would otherwise read as a zoo display name
(``hf:mamba`` is transformers' Mamba, not the zoo's ``mamba``)."""


def display_name(name: Any) -> str:
    """The display name of a registry name, a display name or a published alias (any case);
    ``hf:<model_type>`` shows its model type (``hf:mamba2`` -> ``mamba2``; a type whose name is a
    zoo display name gets `` (transformers)``: ``hf:mamba`` -> ``mamba (transformers)``);
    any other name (a visitor's own architecture, an LLM id) is returned unchanged."""
    text = str(name)
    if text.startswith("hf:"):
        model_type = text[3:]
        return model_type + HF_SUFFIX if model_type.lower() in _BY_LOWER else model_type
    return _BY_LOWER.get(text.lower(), text)


def published_display_name(name: Any, suite: Any) -> str:
    """The display name of model ``name`` of a paper's published row of ``suite``: as
    :func:`display_name`, except where the paper's name means another architecture
    (:data:`PUBLISHED_SUITE_ALIASES`: ROTE's ``Transformer`` is ``TransformerEncDec``)."""
    return PUBLISHED_SUITE_ALIASES.get(str(suite), {}).get(str(name).lower()) or display_name(name)


def variant(name: Any, model_config: Mapping[str, Any] | None = None) -> str:
    """What distinguishes this model within its architecture: the registry variant (e.g. ``ROTE
    reference layer`` for ``minlstm-rote``), then the preset (``preset: rote-paper``) or, without
    a preset, the width setting (``hidden_size=32``); ``""`` when nothing does."""
    parts = []
    if str(name).startswith("hf:"):
        parts.append("transformers config")
    tag = REGISTRY_VARIANTS.get(str(name).lower())
    if tag:
        parts.append(tag)
    cfg = model_config if isinstance(model_config, Mapping) else {}
    if cfg.get("preset"):
        parts.append(f"preset {cfg['preset']}")
    else:
        parts.extend(f"{k}={cfg[k]}" for k in _WIDTH_KEYS if cfg.get(k) not in (None, ""))
    return ", ".join(parts)

"""One display name per architecture (rote_hf.zoo.display), shared by our rows and the papers'."""

from __future__ import annotations

from rote_hf.results.published import paper_rows
from rote_hf.zoo.display import DISPLAY_NAMES, PUBLISHED_ALIASES, display_name, published_display_name, variant
from rote_hf.zoo.registry import names


def test_every_registry_name_has_a_display_name():
    assert set(DISPLAY_NAMES) == set(names())


def test_registry_and_published_names_meet_on_one_name():
    assert [display_name(n) for n in ("gru", "GRU", "Gru", "transformer", "TransformerDecoder", "transformer-ed",
                                      "minlstm-rote", "linear-attention", "xlstm")] == [
        "GRU", "GRU", "GRU", "Transformer", "Transformer", "TransformerEncDec", "minLSTM", "LinearAttention", "xLSTM"]
    # every architecture the papers published is a display name (or an alias of one)
    published = {r.model for r in paper_rows() if r.suite != "mdl"}
    assert published <= set(DISPLAY_NAMES.values()) | set(PUBLISHED_ALIASES)
    assert {display_name(m) for m in published} <= set(DISPLAY_NAMES.values())
    # names that are not architectures of ours pass through unchanged
    assert display_name("MyNet") == "MyNet" and display_name("openai/gpt-4o") == "openai/gpt-4o"


def test_a_published_name_is_read_in_its_papers_terms():
    # ROTE's Transformer is its encoder-decoder (our transformer-ed); CogScale's decoder stays the decoder
    assert [published_display_name("Transformer", s) for s in ("rote", "rote_matched", "cogscale", None)] == [
        "TransformerEncDec", "TransformerEncDec", "Transformer", "Transformer"]
    assert published_display_name("TransformerDecoder", "cogscale") == "Transformer"
    assert published_display_name("GRU", "rote") == "GRU" and published_display_name("MyNet", "rote") == "MyNet"


def test_variant_says_what_distinguishes_a_model_within_its_architecture():
    assert variant("minlstm-rote", {"preset": "rote-paper"}) == "ROTE reference layer, preset rote-paper"
    assert variant("gru", {"hidden_size": 32, "num_layers": 2}) == "hidden_size=32"
    assert variant("GRU", {}) == "" and variant("gru", None) == ""

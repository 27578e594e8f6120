"""A tiny GPT-2 built from a config (no download) through the local transformers responder."""

from __future__ import annotations

import string

import pytest

from rote_hf.llm import LocalPipelineResponder, PromptConfig, SampleItem, build_messages, evaluate_llm, make_responder


def _tiny_model_dir(root):
    import torch
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    chars = sorted(set(string.printable))
    vocab = {"<unk>": 0, "<eos>": 1, **{c: i + 2 for i, c in enumerate(chars)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")  # one token per character
    tok.decoder = decoders.Fuse()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", eos_token="<eos>", pad_token="<eos>")
    torch.manual_seed(0)  # only the weights' init; the test compares against the same saved model
    config = GPT2Config(vocab_size=len(vocab), n_positions=1024, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=1, eos_token_id=1, pad_token_id=1)
    model = GPT2LMHeadModel(config)
    path = root / "tiny-gpt2"
    model.save_pretrained(path)
    fast.save_pretrained(path)
    return path, model, fast


def test_local_responder_runs_tiny_gpt2(tmp_path):
    import torch

    path, model, tok = _tiny_model_dir(tmp_path)
    responder = make_responder("local", path=str(path), max_new_tokens=12)
    assert isinstance(responder, LocalPipelineResponder) and responder.model_id == "local:tiny-gpt2"
    prompt = PromptConfig(n_shown=5, k_next=3)
    item = SampleItem("A000027", "clean", (1, 2, 3, 4, 5), (6, 7, 8))
    messages = build_messages(item.shown, prompt)
    reply = responder.respond(messages)

    # the same greedy continuation computed directly with the model
    text = "\n\n".join(m["content"] for m in messages) + "\n"
    ids = tok(text, return_tensors="pt").input_ids
    with torch.no_grad():
        out = model.eval().generate(ids, do_sample=False, max_new_tokens=12, pad_token_id=1)
    expected = tok.decode(out[0, ids.shape[1]:], skip_special_tokens=True)
    assert reply == expected and len(out[0]) - ids.shape[1] == 12

    report = evaluate_llm([item], responder, results=tmp_path / "res", prompt=prompt, concurrency=2)
    rec = report.records[0]
    assert rec.reply == reply and rec.parsed.status in ("no_json", "bad_json")  # random weights: no JSON
    assert report.summary["clean"]["n_failed"] == 1.0 and report.summary["clean"]["n_scored"] == 0.0
    again = evaluate_llm([item], responder, results=tmp_path / "res", prompt=prompt)
    assert again.n_cached == 1 and again.records[0].reply == reply


def test_local_responder_rejects_missing_folder(tmp_path):
    with pytest.raises(ValueError, match="path"):
        LocalPipelineResponder(tmp_path / "nope")
    with pytest.raises(ValueError, match="kind"):
        make_responder("carrier-pigeon")

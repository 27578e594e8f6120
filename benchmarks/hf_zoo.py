"""Coverage of ``hf:<model_type>``: every causal-LM type of the installed transformers at 1k, 10k, 100k.

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python benchmarks/hf_zoo.py [TYPE ...]

For each type and budget (input 4 -> output 3, the shapes of CogScale small's
discrete_pattern_completion) it records, into ``benchmarks/hf_zoo.jsonl`` (resumable: types
already there are skipped), then renders ``benchmarks/hf_zoo.md``:

- whether ``build_model("hf:<type>", budget=...)`` builds, or its one-line reason;
- the trainable parameter count and its relative error to the budget;
- causality: outputs at steps 0..29 of a (2, 60, 4) input, in float64, before and after the
  inputs at steps 30..59 are redrawn (max |change| must be exactly 0; float32 with a 1e-6 bound
  when the type does not run in float64), and that the late outputs do change;
- forward + backward seconds of one CogScale-small batch (10 sequences x 60 steps, MSE loss,
  float32, median of 3 after one warm-up, one thread);
- memory of one training step: tensors saved for backward in that forward (deduplicated by
  storage) + 4x the parameter bytes (weights, gradients, Adam's two moments), in MiB;
- trainable parameters that get no gradient (a count that is not honest would show here).
"""

from __future__ import annotations

import json
import platform
import signal
import statistics
import sys
import time
from pathlib import Path

import torch

from rote_hf.zoo import build_model, model_info
from rote_hf.zoo.families.hf import causal_lm_types

HERE = Path(__file__).parent
RAW = HERE / "hf_zoo.jsonl"
OUT = HERE / "hf_zoo.md"
BUDGETS = (1000, 10000, 100000)
IN, OUT_SIZE, BATCH, STEPS, CUT = 4, 3, 10, 60, 30
TIME_LIMIT_S = 240  # per type and budget
NAMED = ("mamba2", "qwen3_next", "kimi_linear", "recurrent_gemma", "lfm2", "falcon_h1", "jamba", "bamba", "zamba2",
         "xlstm", "olmo2", "gemma3_text")


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout(f"over {TIME_LIMIT_S} s")


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ").replace("|", "/")
    return text if len(text) < 300 else text[:297] + "..."


def causality(model) -> tuple[float, float, str]:
    """(max past change, min late change, dtype) under a redraw of the inputs after step CUT."""
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(2, STEPS, IN, generator=gen, dtype=torch.float64)
    x2 = x.clone()
    x2[:, CUT:] = torch.randn(2, STEPS - CUT, IN, generator=gen, dtype=torch.float64)
    for dtype in (torch.float64, torch.float32):
        try:
            m = model.to(dtype).eval()
            with torch.no_grad():
                y, y2 = m(x.to(dtype)), m(x2.to(dtype))
            past = (y[:, :CUT] - y2[:, :CUT]).abs().max().item()
            late = (y[:, CUT:] - y2[:, CUT:]).abs().max().item()
            return past, late, str(dtype).replace("torch.", "")
        except Timeout:
            raise
        except Exception:  # noqa: BLE001 -- a type without a float64 path: retry in float32
            if dtype == torch.float32:
                raise
    raise AssertionError


def step_cost(model) -> tuple[float, float, int]:
    """(median fwd+bwd seconds, training-step MiB, trainable params without a gradient)."""
    model = model.float().train()
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(BATCH, STEPS, IN, generator=gen)
    y = torch.randn(BATCH, STEPS, OUT_SIZE, generator=gen)
    saved: dict[int, int] = {}

    def pack(t):
        try:
            saved[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        except (RuntimeError, NotImplementedError):
            pass
        return t

    times = []
    for i in range(4):
        model.zero_grad(set_to_none=True)
        start = time.perf_counter()
        if i == 0:
            with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                loss = torch.nn.functional.mse_loss(model(x), y)
        else:
            loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        if i:
            times.append(time.perf_counter() - start)
    trainable = [p for p in model.parameters() if p.requires_grad]
    no_grad = sum(p.numel() for p in trainable if p.grad is None)
    param_bytes = sum(p.numel() * p.element_size() for p in trainable)
    return statistics.median(times), (sum(saved.values()) + 4 * param_bytes) / 2**20, no_grad


def measure(model_type: str, budget: int) -> dict:
    row = {"type": model_type, "budget": budget}
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT_S)
    try:
        start = time.perf_counter()
        model = build_model("hf:" + model_type, input_size=IN, output_size=OUT_SIZE, budget=budget, seed=0)
        info = model_info(model)
        row.update(built=True, params=info.n_params, rel_error=info.relative_error, fixed=info.n_fixed,
                   arch=dict(info.arch), build_s=time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001 -- recorded as the reason
        signal.alarm(0)
        return {**row, "built": False, "reason": _one_line(exc)}
    try:
        past, late, dtype = causality(model)
        row.update(past_change=past, late_change=late, causal_dtype=dtype,
                   causal=(past == 0.0 if dtype == "float64" else past <= 1e-6) and late > 1e-6)
        seconds, mib, no_grad = step_cost(model)
        row.update(step_s=seconds, step_mib=mib, no_grad=no_grad)
    except Exception as exc:  # noqa: BLE001
        row.update(causal=row.get("causal", False), error=_one_line(exc))
    finally:
        signal.alarm(0)
    return row


def load() -> list[dict]:
    if not RAW.exists():
        return []
    return [json.loads(line) for line in RAW.read_text().splitlines() if line.strip()]


def render(rows: list[dict]) -> str:
    import transformers

    types = causal_lm_types()
    by = {(r["type"], r["budget"]): r for r in rows}
    ok = {b: sorted(t for t in types if by.get((t, b), {}).get("causal")) for b in BUDGETS}
    built = {b: sorted(t for t in types if by.get((t, b), {}).get("built")) for b in BUDGETS}
    lines = [
        "# `hf:<model_type>` coverage: every causal-LM type of the installed transformers",
        "",
        f"Produced by `PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python benchmarks/hf_zoo.py` (transformers "
        f"{transformers.__version__}, torch {torch.__version__}, {platform.machine()} CPU, one thread, "
        f"a shared machine: times are indicative). Input 4 -> output 3; the methods are in the script's docstring.",
        "",
        f"{len(types)} types are listed by `AutoModelForCausalLM`.",
        "",
        "| budget | build | build and pass causality |",
        "|---|---|---|",
        *[f"| {b:,} | {len(built[b])} | {len(ok[b])} |" for b in BUDGETS],
        "",
        "Named in issue 29 (pass = builds within +-10% and passes causality):",
        "",
        "| type | 1k | 10k | 100k |",
        "|---|---|---|---|",
        *[f"| {t} | " + " | ".join("pass" if by.get((t, b), {}).get("causal") else "-" for b in BUDGETS) + " |"
          for t in NAMED],
        "",
        "## Every type and budget",
        "",
        "| type | budget | params | rel. error | causal (max past change) | fwd+bwd s / batch | step MiB | "
        "no-grad params | arch or reason |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for t in types:
        for b in BUDGETS:
            r = by.get((t, b))
            if r is None:
                lines.append(f"| {t} | {b:,} | | | | | | | not measured |")
            elif not r["built"]:
                lines.append(f"| {t} | {b:,} | | | | | | | {r['reason']} |")
            else:
                causal = "yes" if r.get("causal") else "**no**"
                if "past_change" in r:
                    causal += f" ({r['past_change']:.1e}, {r['causal_dtype']})"
                arch = ", ".join(f"{k}={v}" for k, v in r["arch"].items())
                if r.get("error"):
                    arch += f"; {r['error']}"
                step = f"{r['step_s']:.3f}" if "step_s" in r else ""
                mib = f"{r['step_mib']:.1f}" if "step_mib" in r else ""
                lines.append(f"| {t} | {b:,} | {r['params']:,} | {r['rel_error']:+.1%} | {causal} | {step} | {mib} | "
                             f"{r.get('no_grad', '')} | {arch} |")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    torch.set_num_threads(1)
    wanted = sys.argv[1:] or list(causal_lm_types())
    done = {r["type"] for r in load()}
    with RAW.open("a") as f:
        for t in wanted:
            if t in done:
                continue
            for b in BUDGETS:
                row = measure(t, b)
                f.write(json.dumps(row) + "\n")
                f.flush()
                print(t, b, "causal" if row.get("causal") else row.get("reason") or row.get("error"), flush=True)
    OUT.write_text(render(load()))


if __name__ == "__main__":
    main()

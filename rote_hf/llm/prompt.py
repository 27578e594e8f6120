"""The query prompt of the MDL LLM evaluation (MDL paper §9; docs/llm.md).

Our own wording; the JSON field names are the paper's (``next_three``, ``formula`` or
``NO_FORMULA_FOUND``, ``confidence``, ``recognized``, ``name_if_recognized``), so that parsed
replies stay comparable with the released responses. The number of shown terms (paper: 20) and
of predicted terms (paper: 3) are parameters; with ``k_next != 3`` the list key becomes
``next_<k>`` (e.g. ``next_5``) and the parser accepts both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rote_hf.mdl.strata import LLM_K_NEXT, LLM_N_SHOWN

ABSTAIN = "NO_FORMULA_FOUND"
"""The formula value that means "I have no rule" (abstention)."""

SYSTEM_PROMPT = (
    "You are given the first terms of an integer sequence. "
    "Reply with one JSON object and nothing else."
)

def next_key(k_next: int) -> str:
    """The JSON key of the predicted terms: the paper's ``next_three`` for 3, else ``next_<k>``."""
    return "next_three" if k_next == 3 else f"next_{k_next}"


@dataclass(frozen=True)
class PromptConfig:
    """How many terms are shown (``n_shown``) and how many the model must continue (``k_next``)."""

    n_shown: int = LLM_N_SHOWN  # the paper's protocol, whose one home is rote_hf.mdl.strata
    k_next: int = LLM_K_NEXT

    def __post_init__(self) -> None:
        for name, low, high in (("n_shown", 1, 1000), ("k_next", 1, 50)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, got {type(value).__name__}")
            if not low <= value <= high:
                raise ValueError(f"{name} must be in {low}..{high}, got {value}")


def user_prompt(terms: Sequence[int], config: PromptConfig = PromptConfig()) -> str:
    """The user message for the first ``config.n_shown`` of ``terms`` (which must have that many)."""
    shown = list(terms)
    if len(shown) < config.n_shown:
        raise ValueError(f"terms must hold at least n_shown={config.n_shown} terms, got {len(shown)}")
    shown = shown[: config.n_shown]
    for i, t in enumerate(shown):
        if isinstance(t, bool) or not isinstance(t, int):
            raise TypeError(f"terms[{i}] must be an int, got {type(t).__name__}")
    k = config.k_next
    slots = ", ".join(["int"] * k)
    return (
        f"Terms a(1)..a({config.n_shown}): {', '.join(str(t) for t in shown)}\n\n"
        f"Predict the next {k} term{'s' if k > 1 else ''} and give a rule if you can find one. "
        "Fill in this JSON template:\n"
        "{\n"
        f'  "{next_key(k)}": [{slots}],\n'
        f'  "formula": "a closed form or recurrence for a(n), or exactly {ABSTAIN} if you have none",\n'
        '  "confidence": an integer from 1 (a guess) to 5 (certain),\n'
        '  "recognized": true if you recognise this sequence, else false,\n'
        '  "name_if_recognized": "its name, or an empty string"\n'
        "}"
    )


def build_messages(terms: Sequence[int], config: PromptConfig = PromptConfig()) -> list[dict[str, str]]:
    """Chat messages ``[system, user]`` for one sequence (OpenAI chat-completions format)."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": user_prompt(terms, config)},
    ]

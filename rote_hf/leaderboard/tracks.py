"""Architecture submissions: a model entry (no code) and a track from a fixed menu.

A visitor names a zoo model the way a sweep config's ``models`` entry does, e.g.
``{"name": "gru", "hidden_size": 64, "num_layers": 1}`` or ``{"name": "lstm", "budget": 20000}``:

- ``name``: a zoo registry name (:data:`ZOO_NAMES`); ``"module:factory"`` (code) is refused, an
  unknown name is refused listing the close matches;
- the other keys: width and depth overrides (:data:`ARCH_LIMITS`, positive integers within the
  limits, so one request cannot occupy a backend for days) or ``budget`` (total trainable
  parameters, searched over the family's width), not both. Whether a model takes a key is the
  zoo's business: the backend resolves the entry and rejects the request when it does not.

A track (:data:`TRACKS`) fixes the suite, the data and the official protocol, as a sweep config
without ``models``; :func:`sweep_config` adds the visitor's entry and names the config after the
request, so its run ids are the request's own. Torch-free: the Space validates with it, and the
backend (:mod:`rote_hf.leaderboard.backend`) builds the sweep from it.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any, Mapping

from rote_hf.leaderboard.requests import one_line
from rote_hf.leaderboard.submission import SubmissionError, check_json_text
from rote_hf.zoo.display import DISPLAY_NAMES

ZOO_NAMES: tuple[str, ...] = tuple(sorted(DISPLAY_NAMES))
"""The zoo's registry names (every one has a display name; ``tests/zoo/test_display.py`` and
``tests/space/test_requests.py`` check the two lists agree)."""
ARCH_LIMITS: Mapping[str, int] = {
    "hidden_size": 1024, "d_model": 1024, "units": 4096, "num_layers": 8, "num_blocks": 8, "nhead": 16,
    "dim_head": 256, "dim_feedforward": 4096, "ff_mult": 8, "d_state": 64, "expand": 4,
}
"""Width and depth arguments a visitor may set -> the largest value accepted."""
BUDGET_MAX = 1_000_000
ENTRY_MAX_CHARS = 600


class EntryError(ValueError):
    """A model entry or track the Space refuses; the message is one line."""


@dataclass(frozen=True)
class Track:
    """One menu item: the suite, what it runs, and the sweep config without ``models``.

    ``budget``: the parameter budget every model of the track is trained at (CogScale tracks
    fix it; an entry may repeat it but not change it, nor set widths); ``None`` when the entry
    chooses widths or a budget. ``models``: the zoo names the track takes."""

    name: str
    suite: str
    description: str
    config: Mapping[str, Any]
    models: tuple[str, ...]
    budget: int | None = None
    preset: str | None = None


_TRAINED = tuple(n for n in ZOO_NAMES if n != "esn")  # the ESN's readout is fitted, not trained
COGSCALE_MODELS = ("gru", "lstm", "mamba", "transformer", "transformer-ed", "xlstm")
"""The trained zoo models with a ``cogscale`` preset (CogScale's baseline architectures)."""
_ROTE_PROTOCOL = {"optimizer": "AdamW", "learning_rate": 3.0e-4, "weight_decay": 0.01, "batch_size": 128,
                  "max_epochs": 200, "patience": 10, "stopping_loss": 0.05, "lr_step_size": 100, "lr_gamma": 0.5,
                  "base_seed": 3407}
COGSCALE_TASKS = ("sinus_forecasting", "chaotic_forecasting", "discrete_postcasting", "continuous_postcasting",
                  "simple_copy", "selective_copy", "associative_recall", "discrete_pattern_completion",
                  "continuous_pattern_completion", "induction_heads", "adding_problem", "sorting_problem",
                  "bracket_matching", "cross_situation")

TRACKS: Mapping[str, Track] = {t.name: t for t in (
    Track("rote-smoke", "rote",
          "ROTE protocol (rote_smoke data): 2 paper seeds (n=2 and n=4, c=10), N=540, w=k=20, 1 run each; 2 fits",
          {"suite": "rote",
           "data": {"seeds": {"source": "paper", "track": "main", "symbols": [2, 4], "complexities": [10],
                              "seed_count": 1}, "sequence_length": 540, "window": 20, "horizon": 20},
           "protocol": {"max_epochs": 100}, "runs": 1},
          _TRAINED),
    Track("rote-main-c90", "rote",
          "ROTE paper protocol, main track at c=90 (Table 2's column): n=2,4,6,8, one paper seed each, "
          "N=3500, w=k=100, 1 run each; 4 fits",
          {"suite": "rote",
           "data": {"seeds": {"source": "paper", "track": "main", "symbols": [2, 4, 6, 8], "complexities": [90],
                              "seed_count": 1}, "sequence_length": 3500, "window": 100, "horizon": 100},
           "protocol": dict(_ROTE_PROTOCOL), "runs": 1},
          _TRAINED),
    Track("cogscale-small-1k", "cogscale",
          "CogScale paper protocol, all 14 tasks at difficulty small, 1k parameters, the paper's 5 learning "
          "rates, seeds 0-2; 210 fits",
          {"suite": "cogscale",
           "data": {"tasks": list(COGSCALE_TASKS), "difficulties": ["small"], "seeds": [0, 1, 2]},
           "learning_rates": [1.0e-2, 3.0e-3, 1.0e-3, 3.0e-4, 1.0e-4],
           "protocol": {"batch_size": 10, "max_epochs": 200, "patience": 10}},
          COGSCALE_MODELS, budget=1000, preset="cogscale"),
)}
"""The fixed menu of tracks (small on purpose: each is an official protocol at a cost a backend
can pay per request; docs/space.md gives the measured and estimated times)."""


def close_matches(name: str, choices: tuple[str, ...]) -> str:
    """``"; did you mean 'gru', 'mingru'?"`` or ``""``."""
    near = difflib.get_close_matches(str(name).lower(), choices, n=3, cutoff=0.5)
    return f"; did you mean {', '.join(map(repr, near))}?" if near else ""


def get_track(name: Any) -> Track:
    """The menu item ``name``; :class:`EntryError` listing the menu otherwise."""
    if not isinstance(name, str) or name not in TRACKS:
        shown = repr(name)[:60]
        raise EntryError(f"track must be one of {list(TRACKS)}, got {shown}"
                         f"{close_matches(name, tuple(TRACKS)) if isinstance(name, str) else ''}")
    return TRACKS[name]


def parse_entry(entry: Any) -> dict[str, Any]:
    """A model entry (a mapping, or its JSON text) checked for the Space: see the module docstring.
    Returns ``{"name": ..., **overrides}``; :class:`EntryError` names the problem in one line."""
    if isinstance(entry, str):
        if len(entry) > ENTRY_MAX_CHARS:
            raise EntryError(f"model entry must be at most {ENTRY_MAX_CHARS} characters of JSON, got {len(entry)}")
        text = entry.strip()
        if text and text[0] not in "{[\"":
            text = json.dumps({"name": text})  # a bare zoo name
        try:
            check_json_text(text, "model entry")
            entry = json.loads(text or "null")
        except SubmissionError as exc:
            raise EntryError(str(exc)) from None
        except ValueError as exc:
            raise EntryError(f"model entry must be a JSON object like {{\"name\": \"gru\", \"hidden_size\": 64}}: "
                             f"{one_line(exc, 200)}") from None
    if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str) or not entry.get("name"):
        raise EntryError('model entry must be an object with a "name", e.g. {"name": "gru", "hidden_size": 64}')
    name = entry["name"]
    if ":" in name or "." in name or "/" in name:
        raise EntryError(f"model name must be a zoo name, not code ('module:factory' entries are refused); "
                         f"zoo names: {', '.join(ZOO_NAMES)}")
    if name not in ZOO_NAMES:
        raise EntryError(f"unknown zoo model {name[:40]!r}{close_matches(name, ZOO_NAMES)} "
                         f"(zoo names: {', '.join(ZOO_NAMES)})")
    out: dict[str, Any] = {"name": name}
    for key, value in entry.items():
        if key == "name":
            continue
        if key == "budget":
            limit = BUDGET_MAX
        elif key in ARCH_LIMITS:
            limit = ARCH_LIMITS[key]
        else:
            raise EntryError(f"model entry key {str(key)[:30]!r} is not allowed; allowed: budget or "
                             f"{', '.join(ARCH_LIMITS)}")
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit:
            raise EntryError(f"model entry {key} must be an integer in 1..{limit}, got {str(value)[:30]!r}")
        out[key] = value
    if "budget" in out and any(k in out for k in ("hidden_size", "d_model", "units")):
        raise EntryError("model entry gives either budget or a width (hidden_size, d_model, units), not both")
    return out


def check_request(entry: Any, track: Any) -> tuple[dict[str, Any], Track]:
    """The entry and track of an architecture request, checked together (a CogScale track fixes
    the budget: the entry may repeat it but set neither another budget nor widths)."""
    track = get_track(track)
    model = parse_entry(entry)
    if model["name"] not in track.models:
        raise EntryError(f"track {track.name!r} takes the models {', '.join(track.models)}; got {model['name']!r}")
    if track.budget is not None:
        extra = sorted(k for k in model if k not in ("name", "budget"))
        if extra or model.get("budget", track.budget) != track.budget:
            raise EntryError(f"track {track.name!r} trains every model at budget {track.budget} with the "
                             f"{track.preset!r} preset; leave out {extra or ['budget']}")
    return model, track


def sweep_config(request_id: str, entry: Mapping[str, Any], track: str) -> dict[str, Any]:
    """The sweep config (a dict for ``SweepConfig.from_dict``) that runs the request: the track's
    config with the entry as its one model, named ``request-<id>``."""
    model, chosen = check_request(entry, track)
    if chosen.budget is not None:
        model = {**model, "preset": chosen.preset, "budget": chosen.budget}
    return {**json.loads(json.dumps(chosen.config)), "name": f"request-{request_id}",
            "description": f"architecture request {request_id} on track {chosen.name}", "models": [model]}


__all__ = ["ARCH_LIMITS", "BUDGET_MAX", "EntryError", "TRACKS", "Track", "ZOO_NAMES", "check_request",
           "close_matches", "get_track", "parse_entry", "sweep_config"]

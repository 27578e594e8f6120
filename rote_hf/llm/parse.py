"""Parse a model's reply into the fields of the evaluation (MDL paper §9; docs/llm.md), as a pure function.

Real replies are messy: prose before or after the JSON, code fences, several JSON objects (the
paper's greedy regex spanned two objects and failed with "Extra data"), output truncated at
``max_tokens``, single quotes, trailing commas, numbers as strings, integers beyond 64 bits,
booleans written as yes/no. :func:`parse_response` handles all of them and gives every reply one
status:

* ``ok``: the fields validated;
* ``no_json``: empty reply, or no JSON-like ``{...:...`` at all (prose cut off before any JSON);
* ``bad_json``: a JSON-like object was started but none could be decoded, even leniently (this includes
  JSON truncated in the middle);
* ``schema_error``: an object decoded but a field is missing or has the wrong type;
* ``api_error``: the call itself failed (made by :func:`api_error`, never by parsing text).

Failed replies are reported with their status and never scored as wrong answers.

Steps: strip code fences; scan for *balanced* top-level ``{...}`` objects (string-aware, linear);
``json.loads`` each, last object first (models reason before answering), preferring objects that
carry the schema's keys; if none decodes strictly, a lenient pass (trailing commas removed,
single-quoted / Python-literal objects via ``ast.literal_eval``); then validate.

Validation choices (documented in docs/llm.md): terms are ints of any size up to
:data:`MAX_TERM_DIGITS` digits, int-valued strings (``"12"``, ``"-3"``) and integral floats below
2**53 (``3.0``, the spec's open decision: accepted, noted ``float_terms``) count as ints; a string
``"1, 2, 3"`` is accepted as the list (noted ``terms_as_string``); confidence is an int (or an
int-valued string such as ``"4"`` or ``"4/5"``), clamped to 1..5 and noted ``confidence_clamped``
when outside; a missing confidence is ``None``; ``recognized`` is a bool or one of
yes/no/true/false/y/n/1/0 (any case); abstention is ``formula.strip().upper() ==
"NO_FORMULA_FOUND"`` (trailing punctuation and quotes ignored); an abstaining reply may leave the
terms empty (then nothing is predicted).
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from rote_hf.llm.prompt import ABSTAIN, next_key
from rote_hf.mdl.strata import LLM_K_NEXT

STATUSES = ("ok", "no_json", "bad_json", "schema_error", "api_error")
MAX_TERM_DIGITS = 4000
"""Longest accepted term (decimal digits); Python's int<->str limit is 4300."""
MAX_PARSE_CHARS = 200_000
"""Longer texts are cut before scanning (the responders already cap replies far below this)."""

_FENCE = re.compile(r"```[A-Za-z0-9_+-]*")
_TERMS_KEYS = ("next_three", "next_terms", "next", "next_values", "prediction", "predictions")
_FORMULA_KEYS = ("formula", "rule", "recurrence")
_NAME_KEYS = ("name_if_recognized", "name", "sequence_name")
_SCHEMA_HINTS = {"next_three", "formula", "confidence", "recognized", "name_if_recognized", "next_terms"}
_TRUE = {"true", "yes", "y", "1"}
_FALSE = {"false", "no", "n", "0"}


@dataclass(frozen=True)
class ParsedResponse:
    """One parsed reply. ``next_terms`` holds Python ints (any size); ``notes`` records repairs."""

    status: str
    next_terms: tuple[int, ...] = ()
    formula: str = ""
    abstained: bool = False
    confidence: int | None = None
    recognized: bool | None = None
    name: str = ""
    error: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict (terms as decimal strings, so huge ints survive any JSON reader)."""
        d = asdict(self)
        d["next_terms"] = [str(t) for t in self.next_terms]
        d["notes"] = list(self.notes)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ParsedResponse":
        """Inverse of :meth:`to_dict`."""
        return cls(**{**d, "next_terms": tuple(int(t) for t in d.get("next_terms", ())),
                      "notes": tuple(d.get("notes", ()))})


def api_error(message: str) -> ParsedResponse:
    """The record of a call that failed (HTTP error, timeout, local generation error)."""
    return ParsedResponse(status="api_error", error=str(message)[:500])


class _SchemaError(Exception):
    pass


# ---------------------------------------------------------------------------------------- scan
def strip_fences(text: str) -> str:
    """Remove Markdown code-fence markers (```json ... ```), keeping their content."""
    return _FENCE.sub("", text)


def scan_objects(text: str) -> tuple[list[str], bool]:
    """Balanced top-level ``{...}`` substrings of ``text`` that look like JSON (contain ``:``), in
    order, and whether a JSON-like ``{`` was left open (truncated output).

    One linear pass with a stack of open braces: every ``}`` closes the innermost open ``{``, so a
    stray unclosed brace in prose does not swallow the object after it. Double-quoted strings
    (with backslash escapes) inside braces are skipped, so braces in them do not count.
    """
    stack: list[int] = []
    pairs: list[tuple[int, int]] = []
    in_str = esc = False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and stack:
            in_str = True
        elif ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            pairs.append((stack.pop(), i))
    objects, last_end = [], -1
    for start, end in sorted(pairs, key=lambda p: (p[0], -p[1])):
        if start > last_end:  # not inside an earlier top-level object
            last_end = end
            inner = text[start + 1 : end]
            if ":" in inner or not inner.strip():  # JSON-like: has a key, or is the empty object
                objects.append(text[start : end + 1])
    left_open = any(":" in text[start:] for start in stack[:1])
    return objects, left_open


# -------------------------------------------------------------------------------------- decode
class _TooBig(Exception):
    pass


def _parse_int(s: str) -> int:
    if len(s.lstrip("-+")) > MAX_TERM_DIGITS:
        raise _TooBig(f"an integer has more than {MAX_TERM_DIGITS} digits")
    return int(s)


def _strict(obj: str) -> Any:
    return json.loads(obj, parse_int=_parse_int)


def _outside_strings(text: str, fn) -> str:
    """Apply ``fn`` to the parts of ``text`` outside '...' and "..." strings."""
    out, buf, quote, esc = [], [], "", False
    for ch in text:
        if quote:
            buf.append(ch)
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == quote:
                out.append("".join(buf))
                buf, quote = [], ""
        elif ch in "\"'":
            out.append(fn("".join(buf)))
            buf, quote = [ch], ch
        else:
            buf.append(ch)
    out.append("".join(buf) if quote else fn("".join(buf)))
    return "".join(out)


_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_JSON_WORDS = {"true": "True", "false": "False", "null": "None"}
_WORD = re.compile(r"\b(true|false|null)\b")


def _lenient(obj: str) -> Any:
    """Decode a nearly-JSON object: smart quotes, trailing commas, single quotes, Python literals."""
    text = obj.replace("\u201c", '"').replace("\u201d", '"').replace("\u2018", "'").replace("\u2019", "'")
    try:
        return _strict(_outside_strings(text, lambda s: _TRAILING_COMMA.sub(r"\1", s)))
    except _TooBig:
        raise
    except ValueError:
        pass
    py = _outside_strings(text, lambda s: _WORD.sub(lambda m: _JSON_WORDS[m.group(1)], s))
    try:
        value = ast.literal_eval(py)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise ValueError(f"not JSON even leniently: {type(exc).__name__}") from None
    _check_ints(value)
    return value


def _check_ints(value: Any) -> None:
    if isinstance(value, dict):
        for v in value.values():
            _check_ints(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _check_ints(v)
    elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_TERM_DIGITS * 3.33:
        raise _TooBig(f"an integer has more than {MAX_TERM_DIGITS} digits")


def _has_schema(d: dict) -> bool:
    return any(str(k).strip().lower() in _SCHEMA_HINTS or str(k).strip().lower().startswith("next_") for k in d)


def _unwrap(d: dict) -> dict:
    """``{"answer": {...schema...}}`` -> the inner object."""
    if _has_schema(d):
        return d
    inner = [v for v in d.values() if isinstance(v, dict) and _has_schema(v)]
    return inner[0] if len(inner) == 1 else d


# ------------------------------------------------------------------------------------ validate
def _as_int(value: Any, what: str, notes: list[str]) -> int:
    if isinstance(value, bool):
        raise _SchemaError(f"{what} must be an integer, got a boolean")
    if isinstance(value, int):
        if value.bit_length() > MAX_TERM_DIGITS * 3.33:
            raise _SchemaError(f"{what} has more than {MAX_TERM_DIGITS} digits")
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
            notes.append("float_terms")
            return int(value)
        raise _SchemaError(f"{what} must be an integer, got {value!r}")
    if isinstance(value, str):
        s = value.strip().replace("_", "")
        if re.fullmatch(r"[+-]?\d+", s):
            if len(s.lstrip("+-")) > MAX_TERM_DIGITS:
                raise _SchemaError(f"{what} has more than {MAX_TERM_DIGITS} digits")
            notes.append("terms_as_strings")
            return int(s)
        raise _SchemaError(f"{what} must be an integer, got the string {value[:40]!r}")
    raise _SchemaError(f"{what} must be an integer, got {type(value).__name__}")


def _terms(d: dict, k_next: int, abstained: bool, notes: list[str]) -> tuple[int, ...]:
    keys = (next_key(k_next), *_TERMS_KEYS)
    present = [k for k in keys if k in d]
    if not present or d[present[0]] is None or d[present[0]] in ([], ""):
        if abstained:
            notes.append("no_terms")
            return ()
        raise _SchemaError(f"missing {next_key(k_next)!r} (a list of {k_next} integers)")
    raw = d[present[0]]
    if isinstance(raw, str):
        parts = [p for p in re.split(r"[,\s;]+", raw.strip().strip("[]()")) if p]
        notes.append("terms_as_string")
        raw = parts
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and k_next == 1:
        raw = [raw]
    if not isinstance(raw, (list, tuple)):
        raise _SchemaError(f"{present[0]!r} must be a list of {k_next} integers, got {type(raw).__name__}")
    if len(raw) != k_next:
        raise _SchemaError(f"{present[0]!r} must hold exactly {k_next} integers, got {len(raw)}")
    return tuple(_as_int(v, f"{present[0]}[{i}]", notes) for i, v in enumerate(raw))


def _confidence(value: Any, notes: list[str]) -> int | None:
    if value is None:
        notes.append("no_confidence")
        return None
    if isinstance(value, bool):
        raise _SchemaError("confidence must be an integer 1..5, got a boolean")
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([+-]?\d+(?:\.0+)?)\s*(?:/\s*5)?\s*", value)
        if not m:
            raise _SchemaError(f"confidence must be an integer 1..5, got the string {value[:40]!r}")
        value = float(m.group(1)) if "." in m.group(1) else int(m.group(1))
    if isinstance(value, float):
        if not (math.isfinite(value) and value.is_integer()):
            raise _SchemaError(f"confidence must be an integer 1..5, got {value!r}")
        value = int(value)
    if not isinstance(value, int):
        raise _SchemaError(f"confidence must be an integer 1..5, got {type(value).__name__}")
    if not 1 <= value <= 5:
        notes.append("confidence_clamped")
        value = min(5, max(1, value))
    return value


def _recognized(value: Any) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        s = value.strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
    raise _SchemaError(f"recognized must be true/false (or yes/no, 1/0), got {value!r}")


def _first(d: dict, keys: tuple[str, ...]) -> Any:
    for k in keys:
        if k in d:
            return d[k]
    return None


def _validate(d: dict, k_next: int, notes: list[str]) -> ParsedResponse:
    d = {str(k).strip().lower(): v for k, v in d.items()}
    formula = _first(d, _FORMULA_KEYS)
    if formula is None:
        raise _SchemaError("missing 'formula' (a string, or NO_FORMULA_FOUND)")
    if isinstance(formula, (int, float)) and not isinstance(formula, bool):
        formula = str(formula)
    if not isinstance(formula, str):
        raise _SchemaError(f"formula must be a string, got {type(formula).__name__}")
    abstained = re.sub(r"[\s.`'\"!]+$", "", formula.strip()).strip("`'\" ").upper() == ABSTAIN
    terms = _terms(d, k_next, abstained, notes)
    confidence = _confidence(d.get("confidence"), notes)
    recognized = _recognized(d.get("recognized"))
    name = _first(d, _NAME_KEYS)
    name = "" if name is None else str(name)
    return ParsedResponse(status="ok", next_terms=terms, formula=formula, abstained=abstained,
                          confidence=confidence, recognized=recognized, name=name,
                          notes=tuple(dict.fromkeys(notes)))


# ---------------------------------------------------------------------------------------- main
def parse_response(text: str | None, k_next: int = LLM_K_NEXT) -> ParsedResponse:
    """Parse one raw reply (see the module docstring). ``None`` counts as an empty reply."""
    if isinstance(k_next, bool) or not isinstance(k_next, int) or k_next < 1:
        raise ValueError(f"k_next must be a positive int, got {k_next!r}")
    if text is None:
        return ParsedResponse(status="no_json", error="empty reply")
    if not isinstance(text, str):
        raise TypeError(f"text must be a str or None, got {type(text).__name__}")
    text = text[:MAX_PARSE_CHARS]
    if not text.strip():
        return ParsedResponse(status="no_json", error="empty reply")
    body = strip_fences(text)
    objects, left_open = scan_objects(body)
    if not objects:
        if left_open:  # an object with a key was started and never closed
            return ParsedResponse(status="bad_json", error="a JSON object was started but never closed (truncated?)")
        return ParsedResponse(status="no_json", error="no JSON object in the reply")

    notes: list[str] = []
    if len(objects) > 1:
        notes.append("several_objects")
    errors: list[str] = []
    chosen: dict | None = None
    fallback: dict | None = None
    for lenient in (False, True):
        for obj in reversed(objects):  # last object first: models reason before they answer
            try:
                value = _lenient(obj) if lenient else _strict(obj)
            except _TooBig as exc:
                return ParsedResponse(status="schema_error", error=str(exc), notes=tuple(notes))
            except ValueError as exc:
                errors.append(str(exc)[:120])
                continue
            if not isinstance(value, dict):
                continue
            value = _unwrap(value)
            if _has_schema(value):
                chosen = value
                break
            fallback = value if fallback is None else fallback
        if chosen is not None:
            if lenient:
                notes.append("repaired_json")
            break
    if chosen is None and fallback is None:
        return ParsedResponse(status="bad_json", error=errors[0] if errors else "no decodable object",
                              notes=tuple(notes))
    chosen = chosen if chosen is not None else fallback
    try:
        return _validate(chosen, k_next, notes)
    except _SchemaError as exc:
        return ParsedResponse(status="schema_error", error=str(exc), notes=tuple(dict.fromkeys(notes)))

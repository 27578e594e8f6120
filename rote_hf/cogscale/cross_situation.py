"""Cross-situational learning (docs/cogscale.md): two-situation sentences -> multi-hot role labels.

The reference enumerates and one-hot encodes every two-situation sentence (7.2 million at
large) before drawing samples from them. Here only the one-situation grammar (at most a few
thousand sentences) is enumerated; a drawn index ``k`` is decoded as the pair
``(k // n1, k % n1)`` of one-situation sentences, the reference's i-major enumeration order,
and only the drawn samples are encoded.

Input columns: ``column_order="alphabetical"`` (default) sorts the vocabulary, which makes X
independent of the process. ``"legacy"`` reproduces the reference, whose column order is
Python ``set`` iteration order and therefore depends on ``PYTHONHASHSEED``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .checks import require
from .registry import Draws, Layout, Params, SampleTask

NO_ROLE, ACTION, OBJECT, COLOR = 0, 1, 2, 3
FUNCTION_ACTIONS = ("this", "that", "is")  # label slots after the positions
CONJUNCTION = "and"
COLUMN_ORDERS = ("alphabetical", "legacy")

Phrases = dict[str, tuple[int, ...]]  # phrase text -> role of each word


def _entries(items: Sequence[str | tuple[str, ...]], role: int) -> Phrases:
    """Each item (or each synonym of a tuple item) as a one-word phrase with ``role``."""
    out: Phrases = {}
    for item in items:
        for word in (item if isinstance(item, tuple) else (item,)):
            out[word] = (role,)
    return out


def _concat(*parts: Phrases) -> Phrases:
    """All concatenations, first part varying slowest; an empty phrase adds no word.

    Later duplicates overwrite the roles but keep the first position (dict semantics), which
    is how the reference grammar collapses identical sentences.
    """
    out = parts[0]
    for part in parts[1:]:
        out = {f"{a} {b}".strip(): ra + rb for a, ra in out.items() for b, rb in part.items()}
    return out


def one_situation_sentences(objects, colors, positions) -> Phrases:
    """The six one-situation templates of the reference grammar, in its order (docs/cogscale.md)."""
    obj, col, pos = _entries(objects, OBJECT), _entries(colors, COLOR), _entries(positions, ACTION)
    det = {"a": (NO_ROLE,), "the": (NO_ROLE,)}
    is_action, is_plain = {"is": (ACTION,)}, {"is": (NO_ROLE,)}
    there_is = {"there is": (NO_ROLE, NO_ROLE)}
    noun_phrase = _concat(det, {**col, "": ()}, obj)
    on_position = _concat({"on the": (NO_ROLE, NO_ROLE)}, pos)
    return {
        **_concat({"this is": (ACTION, NO_ROLE), "that is": (ACTION, NO_ROLE)}, noun_phrase),
        **_concat(det, obj, is_action, col),
        **_concat(det, obj, on_position, is_plain, col),
        **_concat(noun_phrase, is_plain, on_position),
        **_concat(there_is, noun_phrase, on_position),
        **_concat(on_position, {**is_plain, **there_is}, noun_phrase),
    }


def _slot_index(items: Sequence[str | tuple[str, ...]], base: int) -> dict[str, int]:
    return {w: base + i for i, item in enumerate(items) for w in (item if isinstance(item, tuple) else (item,))}


@dataclass(frozen=True)
class Grammar:
    """One-situation sentences encoded once; everything a two-situation sample is made from.

    - ``vocabulary``: input column names (``n_words``);
    - ``left`` / ``right``: ``[n1, max_len]`` column codes of each one-situation sentence,
      left- / right-aligned, -1 = no word; ``lengths``: ``[n1]`` word counts;
    - ``labels``: ``[n1, n_slots]`` float64 multi-hot role labels of each sentence;
    - ``steps``: two-situation input length (``2 * max_len + 1``).
    """

    sentences: tuple[str, ...]
    vocabulary: tuple[str, ...]
    left: np.ndarray
    right: np.ndarray
    lengths: np.ndarray
    labels: np.ndarray
    steps: int

    @property
    def n_pairs(self) -> int:
        """Number of two-situation sentences (the reference's ``N_total``)."""
        return len(self.sentences) ** 2

    def two_situation_sentence(self, index: int) -> str:
        i, j = divmod(int(index), len(self.sentences))
        return f"{self.sentences[i]} {CONJUNCTION} {self.sentences[j]}"


def _freeze(items) -> tuple:
    return tuple(tuple(x) if isinstance(x, (list, tuple)) else x for x in items)


def grammar(objects, colors, positions, column_order: str = "alphabetical") -> Grammar:
    """The (cached) :class:`Grammar` for a vocabulary."""
    if column_order not in COLUMN_ORDERS:
        raise ValueError(f"column_order must be one of {list(COLUMN_ORDERS)}, got {column_order!r}")
    return _grammar(_freeze(objects), _freeze(colors), _freeze(positions), column_order)


@lru_cache(maxsize=16)
def _grammar(objects: tuple, colors: tuple, positions: tuple, column_order: str) -> Grammar:
    one = one_situation_sentences(objects, colors, positions)
    sentences = tuple(one)
    words = [s.split() for s in sentences]
    # first-occurrence order of the words of "s0 and s0", "s0 and s1", ...: s0, 'and', the rest
    seen = dict.fromkeys(words[0])
    seen[CONJUNCTION] = None
    for ws in words[1:]:
        seen.update(dict.fromkeys(ws))
    if column_order == "alphabetical":
        vocabulary = tuple(sorted(seen))
    else:
        # the reference's list(set(words)): a set fed the same distinct words in the same order
        # iterates alike. It must be fed a list: set(dict) presizes its table differently.
        vocabulary = tuple(set(list(seen)))
    column = {w: c for c, w in enumerate(vocabulary)}

    n1, max_len = len(sentences), max(len(ws) for ws in words)
    left = np.full((n1, max_len), -1, dtype=np.int64)
    right = np.full((n1, max_len), -1, dtype=np.int64)
    lengths = np.array([len(ws) for ws in words], dtype=np.int64)
    for i, ws in enumerate(words):
        codes = [column[w] for w in ws]
        left[i, : len(ws)] = codes
        right[i, max_len - len(ws):] = codes

    actions = list(positions) + list(FUNCTION_ACTIONS)
    slot = {
        OBJECT: _slot_index(objects, 0),
        COLOR: _slot_index(colors, len(objects)),
        ACTION: _slot_index(actions, len(objects) + len(colors)),
    }
    labels = np.zeros((n1, len(objects) + len(colors) + len(actions)))
    for i, (ws, roles) in enumerate(zip(words, one.values())):
        for w, r in zip(ws, roles):
            if r != NO_ROLE:
                labels[i, slot[r][w]] = 1.0
    return Grammar(sentences, vocabulary, left, right, lengths, labels, 2 * max_len + 1)


def _check_items(name: str, value, *, tuples: bool) -> None:
    if not isinstance(value, (list, tuple)) or not value:
        raise TypeError(f"{name} must be a non-empty list of words, got {value!r}")
    for item in value:
        words = item if (tuples and isinstance(item, (list, tuple))) else (item,)
        for w in words:
            if not isinstance(w, str) or not w or " " in w:
                allowed = "words or tuples of synonym words" if tuples else "words"
                raise TypeError(f"{name} must hold {allowed} (non-empty, no spaces), got {item!r}")


def _check(p: Params) -> None:
    _check_items("objects", p["objects"], tuples=False)
    _check_items("colors", p["colors"], tuples=False)
    _check_items("positions", p["positions"], tuples=True)
    require(p.get("column_order", "alphabetical") in COLUMN_ORDERS,
            f"column_order must be one of {list(COLUMN_ORDERS)}, got {p.get('column_order')!r}")


def grammar_of(p: Mapping) -> Grammar:
    return grammar(p["objects"], p["colors"], p["positions"], p.get("column_order", "alphabetical"))


def _layout(p: Params) -> Layout:
    g = grammar_of(p)
    return Layout(g.steps, len(g.vocabulary), 2 * g.labels.shape[1], 1)


def _draw(rng: np.random.Generator, p: Params, n: int) -> Draws:
    # one integers(0, N_total) call per sample in the reference; a batched call draws the same
    return {"index": rng.integers(0, grammar_of(p).n_pairs, size=n)}


def _fill(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    g = grammar_of(p)
    n1, max_len, steps = len(g.sentences), g.left.shape[1], g.steps
    first, second = np.divmod(dr["index"], n1)
    len2 = g.lengths[second]
    # second situation: right-aligned at the end of the sequence
    r, c = np.nonzero(g.right[second] >= 0)
    X[r, steps - max_len + c, g.right[second][r, c]] = 1.0
    # 'and' just before it
    rows = np.arange(len(first))
    X[rows, steps - len2 - 1, g.vocabulary.index(CONJUNCTION)] = 1.0
    # first situation: ends just before 'and'
    start = steps - len2 - 1 - g.lengths[first]
    r, c = np.nonzero(g.left[first] >= 0)
    X[r, start[r] + c, g.left[first][r, c]] = 1.0
    Y[:, steps - 1, :] = np.concatenate([g.labels[first], g.labels[second]], axis=1)
    T[:] = steps - 1


CROSS_SITUATION = SampleTask(
    "cross_situation", "multi_classification", _check, _layout, _draw, _fill,
    "a sentence describing two scenes; at its end output the object/colour/action roles of both",
)

"""LZW code count, exact-period reduction and the ROTE complexity κ (paper Algorithms 1–2).

``complexity(s) = lzw_complexity(reduce_period(s))``. :class:`IncrementalComplexity` keeps κ
up to date in amortised O(1) per appended symbol, which is what makes seed generation fast:

- the greedy LZW parse of a prefix is a prefix of the parse, so the code count of every prefix
  length is known as the string grows (a trie walk per symbol);
- the KMP prefix function gives the shortest period ``p = L - π(L)``; the string is an exact
  repetition iff ``p`` divides ``L`` (and ``p < L``), and then its reduction is the prefix of
  length ``p``, whose LZW count was recorded when the string had that length.
"""

from __future__ import annotations

from rote_hf.symbolic.alphabet import ALPHABET, check_symbols

_INITIAL = {symbol: code for code, symbol in enumerate(ALPHABET)}


def lzw_complexity(s: str) -> int:
    """Number of LZW output codes of ``s`` with the 52 letters as initial dictionary.

    ``""`` -> 0, one letter -> 1. Units: codes (not bits).
    """
    check_symbols(s)
    state = IncrementalComplexity()
    for symbol in s:
        state.append(symbol)
    return state.lzw_count()


def reduce_period(s: str) -> str:
    """Shortest prefix ``u`` such that ``s == u * (len(s) // len(u))`` (``s`` itself if none).

    Only periods dividing the length count: ``"ABABA"`` stays, ``"ABAB"`` -> ``"AB"``.
    """
    check_symbols(s)
    n = len(s)
    if n <= 1:
        return s
    border = _prefix_function(s)[-1]
    period = n - border
    return s[:period] if period < n and n % period == 0 else s


def complexity(s: str) -> int:
    """The paper's κ(s): LZW code count of the exact-period reduction of ``s``."""
    return lzw_complexity(reduce_period(s))


def _prefix_function(s: str) -> list[int]:
    """KMP prefix function: ``pi[i]`` = length of the longest proper border of ``s[:i+1]``."""
    pi = [0] * len(s)
    k = 0
    for i in range(1, len(s)):
        while k and s[i] != s[k]:
            k = pi[k - 1]
        if s[i] == s[k]:
            k += 1
        pi[i] = k
    return pi


class IncrementalComplexity:
    """κ of a growing string, updated per appended letter (amortised O(1)).

    Symbols are not validated here (callers append letters they drew from the alphabet);
    use :func:`complexity` for untrusted input.
    """

    __slots__ = ("_chars", "_pi", "_trie", "_node", "_codes", "_prefix_counts")

    def __init__(self) -> None:
        self._chars: list[str] = []
        self._pi: list[int] = []
        # trie over dictionary phrases: (node, symbol) -> node; node -1 is the empty phrase
        self._trie: dict[tuple[int, str], int] = {(-1, a): code for a, code in _INITIAL.items()}
        self._node = -1  # current phrase w (node of the trie), -1 = empty
        self._codes = 0  # codes emitted so far (excluding the pending phrase)
        self._prefix_counts = [0]  # LZW count of every prefix length, index = length

    def __len__(self) -> int:
        return len(self._chars)

    def append(self, symbol: str) -> int:
        """Append one letter; returns the new κ."""
        chars, pi = self._chars, self._pi
        # KMP border of the new prefix
        n = len(chars)
        k = pi[-1] if n else 0
        while k and chars[k] != symbol:
            k = pi[k - 1]
        if n and chars[k] == symbol:
            k += 1
        chars.append(symbol)
        pi.append(k if n else 0)
        # LZW parse step
        key = (self._node, symbol)
        nxt = self._trie.get(key)
        if nxt is not None:
            self._node = nxt
        else:
            self._codes += 1
            self._trie[key] = len(self._trie)
            self._node = _INITIAL[symbol]
        self._prefix_counts.append(self._codes + 1)  # the pending phrase is non-empty
        return self.complexity()

    def lzw_count(self) -> int:
        """LZW code count of the whole string (unreduced)."""
        return self._prefix_counts[-1]

    def complexity(self) -> int:
        """κ of the whole string: LZW count of its exact-period reduction."""
        n = len(self._chars)
        if n <= 1:
            return self._prefix_counts[n]
        period = n - self._pi[-1]
        if period < n and n % period == 0:
            return self._prefix_counts[period]
        return self._prefix_counts[n]

    def string(self) -> str:
        return "".join(self._chars)

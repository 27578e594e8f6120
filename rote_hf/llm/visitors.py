"""LLM queries for strangers: what a public front end (the Space's LLM-query tab) runs (issue 26).

:class:`VisitorQueries` puts the guards of this package around :func:`~rote_hf.llm.evaluate_llm`:

* **addresses** -- the responder's :class:`~rote_hf.llm.network.NetworkPolicy` is
  :meth:`~rote_hf.llm.network.NetworkPolicy.public_only` (plus ``$ROTE_LLM_ALLOWED_HOSTS``); a
  refused URL is refused before anything runs or is stored, and every connection checks again;
* **replies** -- one :class:`~rote_hf.llm.cache.ReplyCache` shared by every query, keyed by the
  visitor's credentials (a keyed hash of the token, never the token);
* **time** -- a deadline over each whole query (``deadline_s``, default 120 s), and a
  :class:`~rote_hf.llm.fair.FairQueue` of queries per user;
* **disk** -- quotas on the reply cache and on the per-sample logs (oldest evicted first).

Every limit has an environment variable (:data:`ENV`), read by :meth:`QueryLimits.from_env`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from rote_hf.llm.cache import ReplyCache
from rote_hf.llm.fair import FairQueue
from rote_hf.llm.network import NetworkPolicy
from rote_hf.llm.prompt import PromptConfig
from rote_hf.llm.responders import RetryPolicy, make_responder
from rote_hf.llm.runner import EvalReport, SampleItem, evaluate_llm


@dataclass(frozen=True)
class QueryLimits:
    """The limits of visitors' queries (seconds, counts and bytes)."""

    deadline_s: float = 120.0
    """Whole-query deadline: every call of one query, retries included."""
    request_timeout_s: float = 30.0
    """Each whole request (connect, headers, full body)."""
    retries: int = 1
    max_running: int = 8
    """Queries running at once, all users together."""
    max_waiting: int = 2
    """Queries one user may have waiting beyond the one running."""
    concurrency: int = 4
    """Calls in flight within one query."""
    cache_max_bytes: int = 64 * 2**20
    log_max_bytes: int = 64 * 2**20

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            low = 0 if f.name in ("retries", "max_waiting") else 1e-9
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= low \
                    or (f.type == "int" and not isinstance(value, int)):
                raise ValueError(f"{f.name} must be a {'non-negative' if low == 0 else 'positive'} "
                                 f"{'int' if f.type == 'int' else 'number'}, got {value!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> QueryLimits:
        """The defaults, overridden by the variables of :data:`ENV` that are set (``ValueError``
        naming the variable for a value that is not a positive number)."""
        env = os.environ if environ is None else environ
        kwargs: dict[str, float | int] = {}
        for name, var in ENV.items():
            text = env.get(var, "").strip()
            if not text:
                continue
            kind = int if cls.__dataclass_fields__[name].type == "int" else float
            try:
                kwargs[name] = kind(text)
            except ValueError:
                raise ValueError(f"{var} must be a {'whole' if kind is int else ''} number, got {text[:40]!r}") from None
        try:
            return cls(**kwargs)
        except ValueError as exc:
            name = str(exc).split(" ", 1)[0]
            raise ValueError(f"{ENV.get(name, name)}: {exc}") from None


ENV = {"deadline_s": "ROTE_LLM_DEADLINE_S", "request_timeout_s": "ROTE_LLM_REQUEST_TIMEOUT_S",
       "retries": "ROTE_LLM_RETRIES", "max_running": "ROTE_LLM_MAX_RUNNING", "max_waiting": "ROTE_LLM_MAX_WAITING",
       "concurrency": "ROTE_LLM_CONCURRENCY", "cache_max_bytes": "ROTE_LLM_CACHE_MAX_BYTES",
       "log_max_bytes": "ROTE_LLM_LOG_MAX_BYTES"}
"""QueryLimits field -> the environment variable that sets it."""


class VisitorQueries:
    """Runs visitors' queries under ``root`` (``llm_cache/`` and ``llm_logs/`` there).

    ``network`` defaults to :meth:`NetworkPolicy.public_only` (read when this object is made);
    ``limits`` to :meth:`QueryLimits.from_env`.
    """

    def __init__(self, root: str | os.PathLike, *, network: NetworkPolicy | None = None,
                 limits: QueryLimits | None = None, cache_secret: bytes | None = None) -> None:
        self.root = Path(root)
        self.network = network if network is not None else NetworkPolicy.public_only()
        self.limits = limits if limits is not None else QueryLimits.from_env()
        self.queue = FairQueue(self.limits.max_running, max_waiting=self.limits.max_waiting)
        self._cache_secret = cache_secret
        self._cache: ReplyCache | None = None

    @property
    def cache(self) -> ReplyCache:
        """The reply cache shared by every query (opened on first use, so a refused query stores nothing)."""
        if self._cache is None:
            self._cache = ReplyCache(self.root / "llm_cache", max_bytes=self.limits.cache_max_bytes,
                                     secret=self._cache_secret)
        return self._cache

    def run(self, user: str, base_url: str, model: str, token: str | None, items: Sequence[SampleItem],
            prompt: PromptConfig = PromptConfig()) -> EvalReport:
        """One visitor's query: ``AddressRefused`` (a ``ValueError``) for a refused URL and
        ``QueueFull`` for a user with too many queries waiting, before anything is stored; else the
        report of :func:`evaluate_llm` (no result rows: the caller stores them as the visitor's)."""
        lim = self.limits
        responder = make_responder("openai", base_url=base_url, model=model, api_key=token or None,
                                   network=self.network, timeout_s=lim.request_timeout_s,
                                   retry=RetryPolicy(max_retries=lim.retries))
        try:
            responder.check_address()
            with self.queue.slot(user):
                return evaluate_llm(items, responder, results=None, cache_dir=self.cache,
                                    log_dir=self.root / "llm_logs", prompt=prompt, concurrency=lim.concurrency,
                                    deadline_s=lim.deadline_s, log_max_bytes=lim.log_max_bytes)
        finally:
            responder.close()

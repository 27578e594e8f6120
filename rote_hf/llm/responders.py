"""Responders: anything that turns chat messages into reply text, behind one small protocol.

``respond(messages) -> str`` returns the raw reply (possibly empty) or raises
:class:`ResponderError` once its bounded retries are spent; ``model_id`` names the model in
caches, logs and result rows. Two responders ship, looked up by name in :data:`RESPONDERS`:

* ``"openai"``: :class:`OpenAICompatibleResponder`, an OpenAI-compatible chat-completions
  client on an ``httpx2`` client of its own whose connections a
  :class:`~rote_hf.llm.network.NetworkPolicy` vets -- HF inference providers,
  vLLM/TGI/llama.cpp servers, OpenRouter, OpenAI. Temperature 0, a seed (omit with
  ``seed=None`` for servers that reject it), ``max_tokens``, a timeout over the whole request, bounded
  retries with exponential backoff on 5xx/408/429/timeouts/connection errors and 200 answers
  without content (``ProtocolError``), a cap on the
  reply size. The API token is read from the environment (``ROTE_LLM_API_KEY``, then
  ``HF_TOKEN``; never the token saved by ``hf auth login``) and is never part of a repr, error message, cache, log or result.
* ``"local"``: :class:`LocalPipelineResponder`, a ``transformers`` text-generation pipeline on
  a local model folder (greedy decoding, ``do_sample=False``).

Adding a responder is one class and one ``@register_responder("name")`` line.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

from rote_hf import __version__
from rote_hf.llm.cache import credential_scope
from rote_hf.llm.network import NetworkPolicy, guarded_client
from rote_hf.registry import Registry

API_KEY_ENV = ("ROTE_LLM_API_KEY", "HF_TOKEN")
"""Environment variables read for the API token, first set wins."""

NO_TOKEN = "EMPTY"
"""Sent as the bearer token when none is configured (the convention of local OpenAI-compatible
servers). The token saved by ``hf auth login`` is never used: it would be sent to whatever server
``base_url`` names."""

Messages = Sequence[Mapping[str, str]]


class ResponderError(RuntimeError):
    """A call that failed for good (after retries); its message never contains the token."""


class ProtocolError(RuntimeError):
    """A server answered 200 without a usable chat completion (no choices, content null or missing,
    not JSON). Retried like a 5xx; never an answer of the model, so never cached."""


class RequestTimeout(TimeoutError):
    """The whole request (connect, headers and full body) took longer than ``timeout_s``."""


class ServerError(RuntimeError):
    """The server answered with a status outside 2xx (after redirects); ``status_code`` says which.
    Retried on 5xx, 408 and 429."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code


class ResponderClosed(RuntimeError):
    """A request on a responder that was closed (its query's deadline passed); never retried."""


MAX_BODY_BYTES = 8 * 2**20
"""The largest answer body read (bytes); a larger one is a ``ProtocolError``, never decoded."""


@runtime_checkable
class Responder(Protocol):
    """The protocol: a model id and ``respond(messages) -> reply text``."""

    model_id: str

    def respond(self, messages: Messages) -> str: ...


RESPONDERS: Registry[Callable[..., Responder]] = Registry("responder kind")
"""Responder kind -> factory; a second registration of a kind is refused (``ValueError``)."""


def register_responder(name: str) -> Callable[[type], type]:
    """Class decorator adding a responder factory to :data:`RESPONDERS` under ``name``."""
    return RESPONDERS.register(name)


def make_responder(kind: str, **kwargs: Any) -> Responder:
    """Build the responder registered as ``kind`` (``ValueError`` naming the known kinds)."""
    return RESPONDERS.get(kind)(**kwargs)


@dataclass(frozen=True)
class RetryPolicy:
    """At most ``max_retries`` retries after the first try; waits ``backoff_s * factor**i`` (capped)."""

    max_retries: int = 3
    backoff_s: float = 1.0
    factor: float = 2.0
    max_backoff_s: float = 30.0

    def __post_init__(self) -> None:
        if not 0 <= self.max_retries <= 10:
            raise ValueError(f"max_retries must be in 0..10, got {self.max_retries}")
        if self.backoff_s < 0 or self.factor < 1 or self.max_backoff_s < 0:
            raise ValueError("backoff_s and max_backoff_s must be >= 0 and factor >= 1, got "
                             f"{self.backoff_s}, {self.max_backoff_s}, {self.factor}")

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        return min(self.max_backoff_s, self.backoff_s * self.factor**attempt)


def call_with_retries(fn: Callable[[], str], policy: RetryPolicy, retryable: Callable[[BaseException], bool],
                      describe: Callable[[BaseException], str], sleep: Callable[[float], None] = time.sleep) -> str:
    """``fn()`` with bounded retries; a non-retryable error or the last failure -> ResponderError."""
    for attempt in range(policy.max_retries + 1):
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 - classified below, re-raised as ResponderError
            if attempt == policy.max_retries or not retryable(exc):
                raise ResponderError(f"{describe(exc)} (after {attempt + 1} attempt{'s' * bool(attempt)})") from None
            sleep(policy.delay(attempt))
    raise AssertionError("unreachable")  # pragma: no cover


def redact(text: str, secrets: Sequence[str | None]) -> str:
    """``text`` with every non-empty secret replaced by ``***``."""
    for s in secrets:
        if s:
            text = text.replace(s, "***")
    return text


def api_key_from_env(names: Sequence[str] = API_KEY_ENV) -> str | None:
    """The first non-empty of the environment variables ``names`` (None if none is set)."""
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def endpoint_identity(base_url: str) -> str:
    """``scheme://host:port/path`` of a validated base URL (the port made explicit, host lower-case);
    part of the reply cache's key, so one model name on two servers never shares replies."""
    parts = urlsplit(check_base_url(base_url))
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{host}:{port}{parts.path.rstrip('/')}"


def check_base_url(base_url: str) -> str:
    """Validated base URL without a trailing slash (``http(s)://host[:port]/path``)."""
    if not isinstance(base_url, str):
        raise TypeError(f"base_url must be a str, got {type(base_url).__name__}")
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must be an http:// or https:// URL with a host, got {base_url!r}")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError("base_url must not carry credentials, a query or a fragment "
                         "(put the token in the ROTE_LLM_API_KEY environment variable)")
    url = base_url.strip().rstrip("/")
    if url.endswith("/chat/completions"):  # the client appends this itself
        url = url[: -len("/chat/completions")]
    return url


@register_responder("openai")
class OpenAICompatibleResponder:
    """Chat completions against an OpenAI-compatible server, over an HTTP client of its own whose
    every connection is vetted by a :class:`~rote_hf.llm.network.NetworkPolicy`.

    ``base_url`` ends with ``/v1`` for most servers (the client POSTs ``{base_url}/chat/completions``).
    ``api_key=None`` reads the token from ``ROTE_LLM_API_KEY`` or ``HF_TOKEN``; without one,
    :data:`NO_TOKEN` is sent (local servers ignore it). ``timeout_s`` bounds each whole request
    (connect, headers and full body; seconds); ``max_reply_chars`` cuts longer replies
    (the cut reply then usually parses as ``bad_json``). ``network`` says which addresses may be
    reached (default :meth:`NetworkPolicy.public_only`: public addresses and the hosts of
    ``$ROTE_LLM_ALLOWED_HOSTS``). ``sleep`` is injectable for tests.

    Why not ``huggingface_hub.InferenceClient``: it sends every request through one process-wide
    HTTP session, which cannot be given a per-client address check; the request it would send
    (``model, messages, temperature, max_tokens, seed, stream``) is sent here unchanged.
    """

    def __init__(self, base_url: str, model: str, *, max_tokens: int = 1024, temperature: float = 0.0,
                 seed: int | None = 0, timeout_s: float = 60.0, retry: RetryPolicy = RetryPolicy(),
                 max_reply_chars: int = 65_536, json_mode: bool = False, api_key: str | None = None,
                 network: NetworkPolicy | None = None, sleep: Callable[[float], None] = time.sleep) -> None:
        from huggingface_hub import constants

        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}")
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0 seconds, got {timeout_s!r}")
        if not isinstance(max_reply_chars, int) or max_reply_chars < 1:
            raise ValueError(f"max_reply_chars must be a positive int, got {max_reply_chars!r}")
        if network is not None and not isinstance(network, NetworkPolicy):
            raise TypeError(f"network must be a NetworkPolicy, got {type(network).__name__}")
        if constants.is_offline_mode():
            # the Hugging Face convention: offline mode makes no request at all, loopback included
            raise ValueError("HF_HUB_OFFLINE is set: no request is made in offline mode, the base URL "
                             "included; unset HF_HUB_OFFLINE to query a server")
        self.base_url = check_base_url(base_url)
        self.model = model.strip()
        self.model_id = self.model
        self.max_tokens, self.temperature, self.seed = max_tokens, float(temperature), seed
        self.timeout_s, self.retry, self.max_reply_chars = float(timeout_s), retry, max_reply_chars
        self.json_mode, self._sleep = json_mode, sleep
        self.network = network if network is not None else NetworkPolicy.public_only()
        self.__token = (api_key if api_key is not None else api_key_from_env()) or None
        self._http, self._backend = guarded_client(self.network, timeout_s=self.timeout_s)
        self._closed = False

    def __repr__(self) -> str:  # never shows the token
        return (f"OpenAICompatibleResponder(base_url={self.base_url!r}, model={self.model!r}, "
                f"max_tokens={self.max_tokens}, seed={self.seed}, authenticated={self.__token is not None})")

    def settings(self) -> dict[str, Any]:
        """The request settings (for result rows; no token)."""
        return {"responder": "openai", "base_url": self.base_url, "model": self.model, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "seed": self.seed, "timeout_s": self.timeout_s,
                "max_retries": self.retry.max_retries, "json_mode": self.json_mode,
                "max_reply_chars": self.max_reply_chars}

    def cache_identity(self) -> dict[str, Any]:
        """Everything that determines a reply (the reply cache's key; no token): the endpoint
        (``scheme://host:port/path``), the model and the sampling parameters."""
        return {"responder": "openai", "endpoint": endpoint_identity(self.base_url), "model": self.model,
                "temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed,
                "json_mode": self.json_mode, "max_reply_chars": self.max_reply_chars}

    def credential_scope(self, secret: bytes) -> str:
        """Keyed hash of the token under ``secret`` (empty without a token): the reply cache keeps
        one caller's replies from another caller (:func:`rote_hf.llm.cache.credential_scope`)."""
        return credential_scope(secret, self.__token)

    def check_address(self) -> None:
        """Refuse (``AddressRefused``) a base URL whose host the network policy refuses, before any
        request; each connection checks again."""
        self.network.check_url(self.base_url)

    def close(self) -> None:
        """Stop: shut every open connection (a request in flight fails at once) and refuse new ones."""
        self._closed = True
        self._backend.abort()
        self._http.close()

    def _payload(self, messages: Messages) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages],
                                "temperature": self.temperature, "max_tokens": self.max_tokens, "stream": False}
        if self.seed is not None:
            body["seed"] = self.seed
        if self.json_mode:
            body["response_format"] = {"type": "json_object"}
        return body

    def _once(self, messages: Messages) -> str:
        if self._closed:
            raise ResponderClosed("the responder was closed (the query's deadline passed)")
        headers = {"Authorization": f"Bearer {self.__token or NO_TOKEN}", "User-Agent": f"rote-hf/{__version__}",
                   "Accept": "application/json"}
        with self._http.stream("POST", f"{self.base_url}/chat/completions", json=self._payload(messages),
                               headers=headers) as response:
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_BODY_BYTES:
                    raise ProtocolError(f"the answer is larger than {MAX_BODY_BYTES} bytes")
        if not 200 <= response.status_code < 300:
            raise ServerError(response.status_code, _error_message(bytes(body), response.reason_phrase))
        try:
            content = json.loads(body)["choices"][0]["message"]["content"]
        except (IndexError, KeyError, TypeError, ValueError) as exc:
            # a 200 answer that is not a chat completion ({"foo": 1}, no choices, not JSON at all)
            raise ProtocolError(f"the 200 answer has no usable content ({type(exc).__name__})") from None
        if not isinstance(content, str):  # content null or missing: not an answer of the model
            raise ProtocolError(f"the 200 answer has no usable content (message content is "
                                f"{type(content).__name__})")
        return content[: self.max_reply_chars]

    def _bounded(self, messages: Messages) -> str:
        """``_once`` with a deadline of ``timeout_s`` over the whole request (connect, headers, full
        body): httpx's timeout bounds each read only, so a server dripping one byte at a time would
        otherwise hold a call for as long as it likes. The call runs in a daemon thread; past the
        deadline it is abandoned (its connection ends with the server, the per-read timeout or
        :meth:`close`)."""
        box: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                box["reply"] = self._once(messages)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name="rote-hf-llm-request", daemon=True).start()
        if not done.wait(self.timeout_s):
            raise RequestTimeout(f"request timed out after {self.timeout_s:g} s (whole request)")
        if "error" in box:
            raise box["error"]
        return box["reply"]

    @staticmethod
    def _retryable(exc: BaseException) -> bool:
        import httpx2

        if isinstance(exc, (RequestTimeout, ProtocolError)):
            return True
        if isinstance(exc, ServerError):
            return exc.status_code >= 500 or exc.status_code in (408, 429)
        return isinstance(exc, httpx2.TransportError)

    def _describe(self, exc: BaseException) -> str:
        status = getattr(exc, "status_code", None)
        first = str(exc).splitlines()[0] if str(exc) else ""
        text = f"{type(exc).__name__}{f' HTTP {status}' if status else ''}: {first}"
        return redact(text, [self.__token])[:300]

    def respond(self, messages: Messages) -> str:
        reply = call_with_retries(lambda: self._bounded(messages), self.retry, self._retryable, self._describe, self._sleep)
        return redact(reply, [self.__token])  # a server could echo the token; never store it


def _error_message(body: bytes, reason: str) -> str:
    """The server's own error message (``{"error": {"message": ...}}`` or ``{"error": "..."}``),
    else its reason phrase; one line, at most 200 characters."""
    try:
        err = json.loads(body).get("error")
        text = err.get("message") if isinstance(err, dict) else err
    except (ValueError, AttributeError):
        text = None
    text = str(text) if text else (reason or "error")
    return (text.splitlines() or [""])[0][:200]


@register_responder("local")
class LocalPipelineResponder:
    """A local ``transformers`` text-generation pipeline (greedy) on a model folder.

    Chat models (tokenizer with a chat template) get the messages; others get
    ``system + "\\n\\n" + user + "\\n"`` as plain text. Generation is serialised with a lock, so
    the runner's concurrency does not oversubscribe the CPU/GPU. Loads lazily on the first call.
    """

    def __init__(self, path: str | os.PathLike, *, max_new_tokens: int = 256, device: str | None = None,
                 model_id: str | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise ValueError(f"path must be a local model folder (config.json, weights, tokenizer), got {str(path)!r}")
        if not isinstance(max_new_tokens, int) or max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be a positive int, got {max_new_tokens!r}")
        self.max_new_tokens, self.device = max_new_tokens, device
        self.model_id = model_id or f"local:{self.path.resolve().name}"
        self._pipe: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalPipelineResponder(path={str(self.path)!r}, max_new_tokens={self.max_new_tokens})"

    def settings(self) -> dict[str, Any]:
        return {"responder": "local", "model": self.model_id, "max_new_tokens": self.max_new_tokens,
                "do_sample": False}

    def cache_identity(self) -> dict[str, Any]:
        """Everything that determines a reply: the model folder, the name and greedy settings."""
        return {**self.settings(), "path": str(self.path.resolve())}

    def _load(self) -> Any:
        if self._pipe is None:
            from transformers import pipeline

            self._pipe = pipeline("text-generation", model=str(self.path), tokenizer=str(self.path),
                                  device=self.device)
        return self._pipe

    def respond(self, messages: Messages) -> str:
        with self._lock:
            try:
                pipe = self._load()
                chat = getattr(pipe.tokenizer, "chat_template", None)
                prompt: Any = [dict(m) for m in messages] if chat else \
                    "\n\n".join(m["content"] for m in messages) + "\n"
                out = pipe(prompt, do_sample=False, max_new_tokens=self.max_new_tokens, return_full_text=False)
            except Exception as exc:  # noqa: BLE001 - any local failure is an api_error row, not a crash
                raise ResponderError(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]) from None
        text = out[0]["generated_text"]
        if isinstance(text, list):  # chat input: the new assistant message
            text = text[-1].get("content", "") if text else ""
        return str(text)

"""LLM-query evaluation on MDL-stratified integer sequences (MDL paper §9; docs/llm.md).

>>> from rote_hf.llm import parse_response, build_messages, make_responder, evaluate_llm
>>> parse_response('{"next_three": [1, 2, 3], "formula": "NO_FORMULA_FOUND", "confidence": 2,'
...                ' "recognized": false, "name_if_recognized": ""}').abstained
True

Modules: :mod:`~rote_hf.llm.prompt` (the prompt), :mod:`~rote_hf.llm.parse` (the pure reply
parser), :mod:`~rote_hf.llm.responders` (OpenAI-compatible HTTP and local transformers
responders behind one protocol), :mod:`~rote_hf.llm.network` (which addresses the HTTP client may
reach, checked at connect time), :mod:`~rote_hf.llm.cache` (raw replies keyed by endpoint, model,
sampling parameters, prompt and a keyed hash of the token; quotas), :mod:`~rote_hf.llm.runner`
(sample -> replies -> metrics per stratum -> result rows; a whole-query deadline),
:mod:`~rote_hf.llm.fair` (a fair queue of queries per user) and :mod:`~rote_hf.llm.visitors`
(strangers' queries, as the Space runs them).
Importing this package does not import huggingface_hub, transformers or datasets.
"""

from rote_hf.llm.cache import ReplyCache, cache_key, credential_scope, prune_oldest
from rote_hf.llm.fair import FairQueue, QueueFull
from rote_hf.llm.network import ALLOWED_HOSTS_ENV, AddressRefused, NetworkPolicy, refusal_reason
from rote_hf.llm.parse import STATUSES, ParsedResponse, api_error, parse_response
from rote_hf.llm.prompt import ABSTAIN, SYSTEM_PROMPT, PromptConfig, build_messages, next_key, user_prompt
from rote_hf.llm.responders import (
    API_KEY_ENV, RESPONDERS, LocalPipelineResponder, OpenAICompatibleResponder, Responder, ResponderError,
    RetryPolicy, make_responder, register_responder,
)
from rote_hf.llm.serve import DifferenceResponder, make_server
from rote_hf.llm.runner import (
    DeadlineExceeded, EvalReport, QueryRecord, agreement, agreement_by_stratum, SampleItem, evaluate_llm, format_table, items_from_rows, load_sample_rows, per_row_flags,
    per_stratum, run_queries, summarize,
)
from rote_hf.llm.visitors import QueryLimits, VisitorQueries

__all__ = [
    "ABSTAIN", "ALLOWED_HOSTS_ENV", "API_KEY_ENV", "AddressRefused", "DeadlineExceeded", "DifferenceResponder",
    "EvalReport", "FairQueue", "NetworkPolicy", "QueryLimits", "QueueFull", "VisitorQueries", "credential_scope",
    "prune_oldest", "refusal_reason", "LocalPipelineResponder", "OpenAICompatibleResponder",
    "ParsedResponse", "PromptConfig", "QueryRecord", "RESPONDERS", "ReplyCache", "Responder", "ResponderError",
    "RetryPolicy", "STATUSES", "SYSTEM_PROMPT", "SampleItem", "agreement", "agreement_by_stratum", "api_error", "build_messages", "cache_key",
    "evaluate_llm", "format_table", "items_from_rows", "load_sample_rows", "make_responder", "make_server", "next_key",
    "parse_response", "per_row_flags", "per_stratum", "register_responder", "run_queries", "summarize", "user_prompt",
]

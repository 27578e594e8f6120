"""What a signed-in visitor can do in the Space, as plain functions the app wires to Gradio.

Each handler takes the visitor's profile, the ``gr.OAuthProfile`` that Gradio injects into a
handler with a parameter annotated ``gr.OAuthProfile | None`` (``None`` when nobody is signed
in; the Space declares ``hf_oauth: true``). Only its ``username`` is read, so tests call the
handlers with constructed ``gr.OAuthProfile`` objects; there is no other way in: no switch or
variable turns sign-in off.

- :func:`submit_rows`: a results file -> self-reported rows stored unverified
  (``source="submitted"``, ``verified=False``, ``settings["submission"]["user"]``) and a ``rows``
  request record;
- :func:`submit_architecture`: a model entry and a track (:mod:`rote_hf.leaderboard.tracks`) ->
  a pending ``architecture`` request that a backend re-runs (:mod:`rote_hf.leaderboard.backend`);
- :func:`start_llm_query`: the gate in front of the LLM-query tab (sign-in and its rate limit);
- :func:`my_requests`: the visitor's own requests and their status.

Every refusal is one line starting ``Rejected:``; a refused action stores nothing and does not
count against the visitor's rate limit.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from rote_hf.leaderboard.requests import RequestDesk, RequestError, check_user, one_line
from rote_hf.leaderboard.submission import MAX_BYTES, SubmissionError, parse_submission, store_submission
from rote_hf.leaderboard.tracks import EntryError, check_request

SIGN_IN = "sign in with your Hugging Face account first (the 'Sign in with Hugging Face' button)"
REQUEST_COLUMNS = ("id", "time", "kind", "what", "status", "reason", "updated")


class VisitorError(ValueError):
    """A refused action; the message is the one line the visitor sees."""


def signed_in_user(profile: Any) -> str:
    """The user name of ``profile`` (a ``gr.OAuthProfile``); :class:`VisitorError` when nobody is
    signed in or the name is not a Hugging Face user name."""
    name = getattr(profile, "username", None) if profile is not None else None
    if not name:
        raise VisitorError(f"Rejected: {SIGN_IN}.")
    try:
        return check_user(name)
    except RequestError as exc:
        raise VisitorError(f"Rejected: {exc}") from None


def _rejected(exc: BaseException) -> str:
    text = one_line(exc)
    return text if text.startswith("Rejected:") else f"Rejected: {text}"


def submit_rows(desk: RequestDesk, path: str | os.PathLike | None, profile: Any) -> str:
    """Validate the results file at ``path`` and store its rows as ``user``'s unverified rows in the
    desk's store (all or none), with a ``rows`` request record; the status line for the visitor."""
    try:
        user = signed_in_user(profile)
        if not path:
            raise VisitorError("Rejected: choose a results file first.")
        with desk.counted(user, "submission"):
            size = os.path.getsize(path)
            if size > MAX_BYTES:
                raise SubmissionError(f"file is {size} bytes; the limit is {MAX_BYTES} bytes")
            with open(path, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
            name = os.path.basename(str(path))
            rows = parse_submission(data, name)
            request_id = desk.new_id()
            origin = {"file": rows[0].settings["submission"]["file"], "sha256": hashlib.sha256(data).hexdigest(),
                      "user": user, "request": request_id}
            rows = [_with_origin(r, origin) for r in rows]
            store_submission(rows, desk.root)
            desk.create(user, "rows", {"file": origin["file"], "sha256": origin["sha256"], "rows": len(rows),
                                       "run_ids": [r.run_id for r in rows[:20]]},
                        reason="self-reported rows stored unverified (shown with the 'show unverified' toggle)",
                        request_id=request_id)
    except (VisitorError, RequestError, SubmissionError, OSError) as exc:
        return _rejected(exc)
    shown = ", ".join(r.run_id for r in rows[:5])
    return f"Stored {len(rows)} row(s) as unverified (submitted) by {user}, request {request_id}: {shown}"


def _with_origin(row: Any, origin: dict[str, Any]) -> Any:
    import dataclasses

    return dataclasses.replace(row, settings={**dict(row.settings), "submission": origin})


def submit_architecture(desk: RequestDesk, entry: Any, track: Any, profile: Any) -> str:
    """Queue an ``architecture`` request: ``entry`` a model entry (JSON text or a bare zoo name),
    ``track`` a menu item; the status line for the visitor."""
    try:
        user = signed_in_user(profile)
        model, chosen = check_request(entry, track)
        with desk.counted(user, "submission"):
            record = desk.create(user, "architecture", {"model": model, "track": chosen.name},
                                 reason="queued; a backend re-runs it with the track's official protocol")
    except (VisitorError, RequestError, EntryError) as exc:
        return _rejected(exc)
    return (f"Queued request {record.id}: {model} on track {chosen.name} ({chosen.description}). "
            "Its status shows under 'My requests'.")


def start_llm_query(desk: RequestDesk, profile: Any) -> str:
    """The gate of one LLM query: the signed-in user, counted against their LLM-query limit;
    :class:`VisitorError` (one line) when nobody is signed in or the limit is reached."""
    user = signed_in_user(profile)
    try:
        with desk.counted(user, "llm_query"):
            pass
    except RequestError as exc:
        raise VisitorError(_rejected(exc)) from None
    return user


def my_requests(desk: RequestDesk, profile: Any):
    """The signed-in visitor's requests, newest first (a DataFrame of :data:`REQUEST_COLUMNS`);
    empty when nobody is signed in. Others' requests are never shown."""
    import pandas as pd

    try:
        user = signed_in_user(profile)
    except VisitorError:
        return pd.DataFrame(columns=list(REQUEST_COLUMNS))
    desk.refresh()
    rows = []
    for r in reversed(desk.records(user=user)):
        what = (f"{r.detail.get('rows', '?')} row(s) from {r.detail.get('file', '?')}" if r.kind == "rows"
                else f"{json.dumps(r.detail.get('model'))} on {r.detail.get('track')}")
        rows.append({"id": r.id, "time": r.time, "kind": r.kind, "what": one_line(what, 200), "status": r.status,
                     "reason": r.reason, "updated": r.updated})
    return pd.DataFrame(rows, columns=list(REQUEST_COLUMNS))


__all__ = ["REQUEST_COLUMNS", "SIGN_IN", "VisitorError", "my_requests", "signed_in_user", "start_llm_query",
           "submit_architecture", "submit_rows"]

"""Benchmark only: ``space/app.py`` with every request carrying a ``rote_bench_user`` cookie signed in.

On a Space, Gradio's "Sign in with Hugging Face" keeps the visitor's profile in a signed session
(``request.session["oauth_info"]``), from which it injects the ``gr.OAuthProfile`` parameter of
each handler. This wrapper replaces ``gradio.routes.attach_oauth`` (the one function that installs
the OAuth routes) with a middleware that fills that session from the cookie, so
``benchmarks/space_latency.py`` can submit through the app's real ``/submit`` handler (profile
injection, rate limit, validation, storage) as a signed-in visitor. It has no login route: the
benchmark's client sends the cookie itself. It lives under ``benchmarks/``, which no Space holds,
so nothing a deployed Space can set reaches it.

    python benchmarks/space_signed_in.py --results DIR --port N   # the arguments of space/app.py
"""

from __future__ import annotations

import logging
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "space"))

import gradio.routes  # noqa: E402

COOKIE = "rote_bench_user"


def oauth_info(user: str) -> dict:
    """The ``oauth_info`` Gradio's OAuth flow stores in the session (no real token)."""
    return {"access_token": "benchmark-not-a-token", "token_type": "bearer", "expires_in": 3600,
            "id_token": "benchmark", "scope": "openid profile", "expires_at": int(time.time()) + 3600,
            "userinfo": {"sub": "0", "name": user, "preferred_username": user,
                         "profile": f"https://huggingface.co/{user}", "picture": ""}}


class CookieSession:
    """ASGI middleware: the request's session holds ``oauth_info`` of the cookie's user, else nothing."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            user = None
            for key, value in scope.get("headers", []):
                if key == b"cookie":
                    for part in value.decode().split(";"):
                        name, _, text = part.strip().partition("=")
                        if name == COOKIE and text:
                            user = urllib.parse.unquote(text)
            scope["session"] = {"oauth_info": oauth_info(user)} if user else {}
        await self.app(scope, receive, send)


gradio.routes.attach_oauth = lambda app: app.add_middleware(CookieSession)

import app  # noqa: E402  (space/app.py)

app.sign_in_available = lambda: True  # the page draws the sign-in button, as on the Space
# every board the app computes, one line each on stderr: the benchmark counts them per page visit
_handler = logging.StreamHandler(sys.stderr)
_handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s"))
logging.getLogger("rote_hf.leaderboard").addHandler(_handler)
logging.getLogger("rote_hf.leaderboard").setLevel(logging.DEBUG)

if __name__ == "__main__":
    sys.exit(app.main())

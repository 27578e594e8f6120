"""Tests only: ``space/app.py`` with a stand-in for Hugging Face sign-in.

On a Space, Gradio's "Sign in with Hugging Face" runs the OAuth flow and keeps the visitor's
profile in a signed session (``request.session["oauth_info"]``), from which it injects the
``gr.OAuthProfile`` parameter of each handler. Off a Space its mock asks ``whoami()`` on the Hub
(and needs the ``gradio[oauth]`` extras). This wrapper replaces ``gradio.routes.attach_oauth``,
the one function that installs either, with a stand-in: ``/login/huggingface`` sets a cookie
naming ``$ROTE_TEST_USER`` (or the ``test_user`` of its query) and goes back to the page, ``/logout`` clears it, and a middleware
puts that user's ``oauth_info`` into the request's session. Everything after that (the sign-in
button's state, the profile Gradio injects, the handlers) is the app's and Gradio's own code.
It lives under ``tests/``, which no Space holds, so nothing a deployed Space can set reaches it.

    python tests/space/signed_in_app.py --results DIR --port N   # the arguments of space/app.py
"""

from __future__ import annotations

import os
import sys
import time
import urllib.parse
from pathlib import Path

SPACE = Path(__file__).resolve().parents[2] / "space"
sys.path.insert(0, str(SPACE))

import gradio.routes  # noqa: E402
from fastapi.responses import RedirectResponse  # noqa: E402

COOKIE = "rote_test_signed_in"


def stand_in_oauth_info(user: str) -> dict:
    return {"access_token": "test-only-not-a-token", "token_type": "bearer", "expires_in": 3600,
            "id_token": "test-only", "scope": "openid profile", "expires_at": int(time.time()) + 3600,
            "userinfo": {"sub": "0", "name": user.title(), "preferred_username": user,
                         "profile": f"https://huggingface.co/{user}", "picture": ""}}


class StandInSession:
    """ASGI middleware: the request's session holds the stand-in user's ``oauth_info`` when the
    sign-in cookie is present, and is empty otherwise."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            cookies = dict(h for h in (p.strip().split("=", 1) for k, v in scope.get("headers", [])
                                       if k == b"cookie" for p in v.decode().split(";")) if len(h) == 2)
            user = cookies.get(COOKIE)
            scope["session"] = {"oauth_info": stand_in_oauth_info(user)} if user else {}
        await self.app(scope, receive, send)


def attach_stand_in(app) -> None:
    user = os.environ["ROTE_TEST_USER"]

    def target(request) -> str:
        url = request.query_params.get("_target_url", "/")
        return url if url.startswith("/") and not url.startswith("//") else "/"

    @app.get("/login/huggingface")
    async def login(request: gradio.routes.fastapi.Request):
        response = RedirectResponse(target(request))
        name = request.query_params.get("test_user") or user  # tests that need several visitors name them
        response.set_cookie(COOKIE, urllib.parse.quote(name), httponly=True, samesite="lax")
        return response

    @app.get("/logout")
    async def logout(request: gradio.routes.fastapi.Request):
        response = RedirectResponse(target(request))
        response.delete_cookie(COOKIE)
        return response

    app.add_middleware(StandInSession)


gradio.routes.attach_oauth = attach_stand_in

import app  # noqa: E402  (space/app.py)

app.sign_in_available = lambda: True

if __name__ == "__main__":
    sys.exit(app.main())

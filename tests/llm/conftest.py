"""The LLM tests talk to real servers on 127.0.0.1, which the client's default network policy
(public addresses only, issue 26) refuses: an operator allows such a host with
$ROTE_LLM_ALLOWED_HOSTS, and so do these tests. The tests of the guard itself build their policies
explicitly (tests/llm/test_network.py) and never read this variable."""

from __future__ import annotations

import pytest

from rote_hf.llm import ALLOWED_HOSTS_ENV


@pytest.fixture(autouse=True)
def _loopback_allowed(monkeypatch):
    monkeypatch.setenv(ALLOWED_HOSTS_ENV, "127.0.0.1")

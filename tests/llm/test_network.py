"""The LLM client cannot be turned on its host (issue 26, item 6: addresses).

Real servers on 127.0.0.1; the policies are built explicitly here (never from
$ROTE_LLM_ALLOWED_HOSTS). Where DNS must say something a test machine's DNS does not, a resolver
function is injected: the seam through which the client resolves names, not a stand-in for it.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from rote_hf.llm import (
    AddressRefused, NetworkPolicy, OpenAICompatibleResponder, ResponderError, RetryPolicy, SampleItem, build_messages,
    evaluate_llm, refusal_reason,
)
from rote_hf.llm.network import parse_allowed_hosts
from tests.helpers import run_cli
from tests.llm.stub_server import StubServer

GOOD = json.dumps({"next_three": [21, 22, 23], "formula": "a(n) = n + 1", "confidence": 5, "recognized": True,
                   "name_if_recognized": ""})
STRICT = NetworkPolicy.public_only(allowed_hosts="")


@pytest.fixture()
def online(monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.delenv("ROTE_LLM_API_KEY", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)


def _resp(url: str, network: NetworkPolicy, **kw) -> OpenAICompatibleResponder:
    return OpenAICompatibleResponder(url, "m", network=network, retry=RetryPolicy(max_retries=0), **kw)


@pytest.mark.parametrize("address, reason", [
    ("127.0.0.1", "loopback"), ("127.255.0.9", "loopback"), ("10.0.0.1", "private"), ("172.16.5.4", "private"),
    ("192.168.1.1", "private"), ("169.254.169.254", "link-local"), ("0.0.0.0", "unspecified"),
    ("224.0.0.1", "multicast"), ("240.0.0.1", "private"), ("255.255.255.255", "private"),
    ("100.64.0.1", "not globally routable"),
    ("::1", "loopback"), ("::", "unspecified"), ("fe80::1%eth0", "link-local"), ("fc00::1", "private"),
    ("ff02::1", "multicast"),
    ("::ffff:127.0.0.1", "loopback"), ("::ffff:169.254.169.254", "link-local"),  # IPv4-mapped
    ("64:ff9b::a00:1", "private"), ("2002:7f00:1::", "loopback"),  # NAT64 of 10.0.0.1, 6to4 of 127.0.0.1
    ("8.8.8.8", None), ("93.184.216.34", None), ("2606:4700:4700::1111", None),
])
def test_refusal_reason_of_each_kind_of_address(address, reason):
    assert refusal_reason(address) == reason


@pytest.mark.parametrize("url, shown", [
    ("http://127.0.0.1:8000/v1", "address 127.0.0.1 is loopback"),
    ("http://10.0.0.1/v1", "address 10.0.0.1 is private"),
    ("http://169.254.169.254/latest/meta-data", "address 169.254.169.254 is link-local"),
    ("http://[::1]:8000/v1", "address ::1 is loopback"),
    ("http://0.0.0.0:7860/", "address 0.0.0.0 is unspecified"),
    ("http://[::ffff:7f00:1]/v1", "address ::ffff:7f00:1 (::ffff:127.0.0.1) is loopback"),
    ("http://localhost:7860/v1", "address localhost (127.0.0.1) is loopback"),
    ("http://2130706433/v1", "address 2130706433 (127.0.0.1) is loopback"),  # decimal
    ("http://0177.0.0.1/v1", "address 0177.0.0.1 (127.0.0.1) is loopback"),  # octal
    ("http://0x7f.1/v1", "address 0x7f.1 (127.0.0.1) is loopback"),  # hexadecimal, short form
])
def test_check_url_refuses_internal_addresses_in_one_line(url, shown):
    with pytest.raises(AddressRefused) as info:
        STRICT.check_url(url)
    msg = str(info.value)
    assert msg.startswith(shown) and "\n" not in msg and "ROTE_LLM_ALLOWED_HOSTS" in msg


def test_a_hostname_resolving_to_an_internal_address_is_refused():
    dns = {"metadata.evil.test": ["169.254.169.254"], "intranet.evil.test": ["10.0.0.1"],
           "mixed.evil.test": ["93.184.216.34", "127.0.0.1"], "public.test": ["93.184.216.34"]}
    policy = NetworkPolicy.public_only(allowed_hosts="", resolver=lambda host, port: dns[host])
    with pytest.raises(AddressRefused, match=r"metadata.evil.test \(169.254.169.254\) is link-local"):
        policy.check_url("https://metadata.evil.test/v1")
    with pytest.raises(AddressRefused, match=r"intranet.evil.test \(10.0.0.1\) is private"):
        policy.check_url("https://intranet.evil.test/v1")
    with pytest.raises(AddressRefused, match=r"\(127.0.0.1\) is loopback"):  # one bad answer refuses the host
        policy.check_url("https://mixed.evil.test/v1")
    policy.check_url("https://public.test/v1")  # a public address passes
    with pytest.raises(AddressRefused, match="does not resolve"):
        NetworkPolicy.public_only(allowed_hosts="", resolver=lambda h, p: []).check_url("https://nothing.test/")


def test_allowed_hosts_parse_and_match():
    assert parse_allowed_hosts("llm.internal, Box.Example.:8000,[fd00::1]:80,") == {
        ("llm.internal", None), ("box.example", 8000), ("fd00::1", 80)}
    policy = NetworkPolicy.public_only(allowed_hosts="llm.internal,box.example:8000",
                                       resolver=lambda host, port: ["10.1.2.3"])
    policy.check_url("http://llm.internal:1234/v1")  # any port
    policy.check_url("http://box.example:8000/v1")
    with pytest.raises(AddressRefused, match="is private"):
        policy.check_url("http://box.example:8001/v1")  # only the port named
    for bad in ("host:0", "host:99999", "host/path", "user@host", "a b", ":80"):
        with pytest.raises(ValueError, match="ROTE_LLM_ALLOWED_HOSTS must list host or host:port"):
            parse_allowed_hosts(bad)


def test_allowed_hosts_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("ROTE_LLM_ALLOWED_HOSTS", "127.0.0.1:8000")
    NetworkPolicy.public_only().check_url("http://127.0.0.1:8000/v1")
    with pytest.raises(AddressRefused):
        NetworkPolicy.public_only().check_url("http://127.0.0.1:8001/v1")
    monkeypatch.setenv("ROTE_LLM_ALLOWED_HOSTS", "bad host")
    with pytest.raises(ValueError, match="ROTE_LLM_ALLOWED_HOSTS"):
        NetworkPolicy.public_only()


def test_connection_is_refused_at_connect_time_and_never_reaches_the_server(online):
    with StubServer(lambda body: (200, GOOD)) as s:
        r = _resp(s.base_url, STRICT)
        with pytest.raises(AddressRefused):
            r.check_address()
        with pytest.raises(ResponderError, match=r"^AddressRefused: address 127.0.0.1 is loopback.*\(after 1 attempt\)"):
            r.respond(build_messages(range(20)))
        port = s.base_url.split(":")[2].split("/")[0]
        allowed = _resp(s.base_url, NetworkPolicy.public_only(allowed_hosts=f"127.0.0.1:{port}"))
        assert allowed.respond(build_messages(range(20))) == GOOD
    assert len(s.requests) == 1  # only the allowed client's


def test_dns_rebinding_does_not_pass(online):
    """The check before the query sees a public address; the connection, which resolves again, is
    given 127.0.0.1 -- and refuses it. The socket opens to the address that was vetted."""
    answers = iter([["93.184.216.34"], ["127.0.0.1"]])
    policy = NetworkPolicy.public_only(allowed_hosts="", resolver=lambda host, port: next(answers))
    with StubServer(lambda body: (200, GOOD)) as s:
        port = s.base_url.split(":")[2].split("/")[0]
        r = _resp(f"http://rebind.test:{port}/v1", policy)
        r.check_address()  # public at first
        with pytest.raises(ResponderError, match=r"AddressRefused: address rebind.test \(127.0.0.1\) is loopback"):
            r.respond(build_messages(range(20)))
        # the connection goes to the resolved address itself: a name only the injected resolver
        # knows reaches the server (the system resolver is never asked again)
        pinned = NetworkPolicy.public_only(allowed_hosts="pinned.test", resolver=lambda host, port: ["127.0.0.1"])
        assert _resp(f"http://pinned.test:{port}/v1", pinned).respond(build_messages(range(20))) == GOOD
    assert len(s.requests) == 1 and s.requests[0]["headers"]["host"] == f"pinned.test:{port}"


@pytest.mark.parametrize("target", ["other", "http://169.254.169.254/latest/meta-data", "http://[::1]:9/x"])
def test_every_redirect_hop_is_checked(online, monkeypatch, target):
    with StubServer(lambda body: (200, GOOD)) as other, StubServer(lambda body: (200, GOOD)) as origin:
        location = other.base_url + "/chat/completions" if target == "other" else target

        def do_post(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            origin.requests.append({"path": self.path})
            self.send_response(307)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        monkeypatch.setattr(origin.httpd.RequestHandlerClass, "do_POST", do_post)
        port = origin.base_url.split(":")[2].split("/")[0]
        r = _resp(origin.base_url, NetworkPolicy.public_only(allowed_hosts=f"127.0.0.1:{port}"))
        with pytest.raises(ResponderError, match=r"AddressRefused: address .* is (loopback|link-local)"):
            r.respond(build_messages(range(20)))
    assert len(origin.requests) == 1 and other.requests == []


def test_a_refused_address_is_an_api_error_never_retried(online, tmp_path):
    items = [SampleItem("A000001", "clean", tuple(range(20)), (20, 21, 22))]
    r = OpenAICompatibleResponder("http://10.0.0.1:9/v1", "m", network=STRICT,
                                  retry=RetryPolicy(max_retries=3, backoff_s=5))
    report = evaluate_llm(items, r, cache_dir=tmp_path / "c")
    err = report.records[0].parsed.error
    assert err.startswith("AddressRefused: address 10.0.0.1 is private") and err.endswith("(after 1 attempt)")


def test_cli_public_only_refuses_loopback_in_one_line_and_stores_nothing(tmp_path):
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([{"anum": "A1", "stratum": "clean", "shown": list(range(20)), "answer": [20, 21, 22]}]))
    out = run_cli("llm-query", "--base-url", "http://[::1]:9/v1", "--model", "m", "--public-only", "--results",
                  str(tmp_path / "res"), "--dataset", str(rows), "--no-progress", cwd=tmp_path, timeout=60,
                  env={"HF_HUB_OFFLINE": "0", "ROTE_LLM_ALLOWED_HOSTS": ""})
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines() == [
        "rote-hf: error: address ::1 is loopback; only public addresses are allowed (an operator allows a host with "
        "$ROTE_LLM_ALLOWED_HOSTS)"]
    assert not (tmp_path / "res").exists()


def test_cli_default_reaches_a_loopback_server(tmp_path, monkeypatch):
    """On a researcher's own machine the CLI reaches every address (a local vLLM, `rote-hf llm-serve`)."""
    monkeypatch.delenv("ROTE_LLM_ALLOWED_HOSTS")
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([{"anum": "A1", "stratum": "clean", "shown": list(range(1, 21)),
                                 "answer": [21, 22, 23]}]))
    with StubServer(lambda body: (200, GOOD)) as s:
        out = run_cli("llm-query", "--base-url", s.base_url, "--model", "m", "--results", str(tmp_path / "res"),
                      "--dataset", str(rows), "--no-progress", cwd=tmp_path, timeout=60, env={"HF_HUB_OFFLINE": "0"})
    assert out.returncode == 0, out.stderr
    assert "1 sequences: 1 asked" in out.stdout and len(s.requests) == 1


def test_abort_ends_a_read_in_flight(online):
    """close() shuts the sockets: a request blocked on a silent server fails at once."""
    started, release = threading.Event(), threading.Event()

    def route(body):
        started.set()
        release.wait(10)
        return 200, GOOD

    with StubServer(route) as s:
        r = _resp(s.base_url, NetworkPolicy.any_address(), timeout_s=30)
        box = {}

        def call():
            try:
                r.respond(build_messages(range(20)))
            except ResponderError as exc:
                box["error"] = str(exc)

        t = threading.Thread(target=call)
        t.start()
        assert started.wait(5)
        t0 = time.monotonic()
        r.close()
        t.join(5)
        release.set()
    assert not t.is_alive() and time.monotonic() - t0 < 2 and "error" in box


def test_a_host_that_does_not_resolve_is_a_connection_error_retried(online):
    calls = []

    def no_dns(host, port):
        calls.append(host)
        raise OSError("Name or service not known")

    any_addr = NetworkPolicy.any_address(resolver=no_dns)
    r = OpenAICompatibleResponder("http://gone.test/v1", "m", network=any_addr,
                                  retry=RetryPolicy(max_retries=1, backoff_s=0))
    r.check_address()  # every address is allowed: nothing to look up in advance
    assert calls == []
    with pytest.raises(ResponderError, match=r"^ConnectError: host 'gone.test' does not resolve.*2 attempts"):
        r.respond(build_messages(range(20)))
    with pytest.raises(AddressRefused, match="host 'gone.test' does not resolve"):  # public-only: cannot be vetted
        NetworkPolicy.public_only(allowed_hosts="", resolver=no_dns).check_url("http://gone.test/v1")


def test_an_answer_over_8_mib_is_never_decoded(online):
    with StubServer(lambda body: (200, "x" * (9 * 2**20))) as s:
        r = _resp(s.base_url, NetworkPolicy.any_address())
        with pytest.raises(ResponderError, match=r"^ProtocolError: the answer is larger than 8388608 bytes"):
            r.respond(build_messages(range(20)))

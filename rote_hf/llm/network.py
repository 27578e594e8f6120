"""Which addresses the LLM-query client may reach, checked where the socket is opened (issue 26).

A server that asks URLs of strangers (the Space's LLM-query tab) must not become their way into
its own network: ``http://127.0.0.1:…``, the Space itself, ``169.254.169.254`` (cloud metadata),
private networks. :class:`NetworkPolicy` says what is allowed:

* :meth:`NetworkPolicy.public_only` (the default of :class:`~rote_hf.llm.OpenAICompatibleResponder`
  and the Space): only globally routable unicast addresses. Refused: loopback, private,
  link-local, multicast, unspecified, reserved and shared (100.64/10) addresses, IPv4 and IPv6,
  including IPv4 addresses wrapped in IPv6 (``::ffff:127.0.0.1``, NAT64 ``64:ff9b::/96``, 6to4,
  Teredo). An operator allows named hosts of their own with ``$ROTE_LLM_ALLOWED_HOSTS``
  (``host``, ``host:port`` or ``[v6]:port``, comma-separated; a host without a port allows every
  port). An allowed host is reached whatever its addresses.
* :meth:`NetworkPolicy.any_address`: every address (``rote-hf llm-query`` on a researcher's own
  machine, where the person typing the URL could reach it anyway).

The check runs at connect time, inside the HTTP client's network backend
(:class:`GuardedBackend`): the host is resolved **once**, every address is vetted, and the socket is
opened to the vetted address itself, never to the name again -- so a DNS answer that changes
between the check and the connection (rebinding) cannot slip through, and every redirect hop,
which opens its own connection, is vetted the same way. Host names in numeric disguise
(``http://2130706433/``, ``0x7f.1``, ``0177.0.0.1``) are resolved by the same resolver and refused
for the address they stand for. :meth:`NetworkPolicy.check_url` runs the same check before a query
starts, so a refused URL is a one-line message and nothing is stored.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

ALLOWED_HOSTS_ENV = "ROTE_LLM_ALLOWED_HOSTS"
"""Comma-separated ``host`` / ``host:port`` / ``[v6]:port`` entries that :meth:`NetworkPolicy.public_only`
lets through whatever they resolve to (an operator's own inference server)."""

Resolver = Callable[[str, int], Sequence[str]]
"""``(host, port) -> IP addresses as strings`` (a seam: the tests inject one to play DNS)."""

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_CHECKS = (("is_loopback", "loopback"), ("is_unspecified", "unspecified"), ("is_link_local", "link-local"),
           ("is_multicast", "multicast"), ("is_private", "private"), ("is_reserved", "reserved"))


class AddressRefused(ValueError):
    """A URL whose host is, or resolves to, an address the policy refuses (one-line message)."""


class HostNotFound(AddressRefused):
    """A host that does not resolve: refused before a query (nothing to vet), a connection error
    (retried like any other) when it happens at connect time."""


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses ``getaddrinfo`` gives for ``host`` (TCP), in its order, without repeats."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _embedded(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list:
    """``ip`` and every IPv4 address an IPv6 address carries (mapped, NAT64, 6to4, Teredo)."""
    out: list = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            out.append(ip.ipv4_mapped)
        if ip in _NAT64:
            out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        if ip.sixtofour is not None:
            out.append(ip.sixtofour)
        if ip.teredo is not None:
            out.extend(ip.teredo)
    return out


def refusal_reason(address: str) -> str | None:
    """Why the public-only policy refuses the IP ``address`` (``"loopback"``, ``"private"``, …), or
    None for a globally routable unicast address. A zone index (``fe80::1%eth0``) is ignored."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    for candidate in reversed(_embedded(ip)):  # the IPv4 address inside first: its label is the telling one
        for attr, label in _CHECKS:
            if getattr(candidate, attr):
                return label
        if not candidate.is_global:  # e.g. 100.64.0.0/10, shared address space of carrier NAT
            return "not globally routable"
    return None


def _host_key(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


def parse_allowed_hosts(text: str | Iterable[str], source: str = ALLOWED_HOSTS_ENV) -> frozenset[tuple[str, int | None]]:
    """``"a.example,b.example:8000,[fd00::1]:80"`` -> ``{(host, port or None)}`` (``ValueError`` naming
    ``source`` for an entry that is not a host with an optional port in 1..65535)."""
    entries = text.split(",") if isinstance(text, str) else list(text)
    out = set()
    for raw in entries:
        entry = str(raw).strip()
        if not entry:
            continue
        parts = urlsplit("//" + entry)
        try:
            port = parts.port
        except ValueError:
            port = -1
        host = parts.hostname or ""
        if (port is not None and not 1 <= port <= 65535) or not host or parts.path or parts.username \
                or any(c.isspace() for c in entry):
            raise ValueError(f"{source} must list host or host:port entries separated by commas "
                             f"(IPv6 as [addr]:port), got {entry[:80]!r}")
        out.add((_host_key(host), port))
    return frozenset(out)


@dataclass(frozen=True)
class NetworkPolicy:
    """Which hosts and addresses a client may connect to (see the module docstring).

    ``allow_private`` lets every address through; otherwise only addresses for which
    :func:`refusal_reason` is None, and the hosts of ``allowed_hosts`` (``(host, port)``, port None =
    any). ``resolver`` turns a host into addresses (default: ``getaddrinfo``).
    """

    allow_private: bool = False
    allowed_hosts: frozenset[tuple[str, int | None]] = frozenset()
    resolver: Resolver = field(default=system_resolver, compare=False)

    @classmethod
    def public_only(cls, allowed_hosts: str | Iterable[str] | None = None,
                    resolver: Resolver = system_resolver) -> NetworkPolicy:
        """Global unicast addresses only, plus ``allowed_hosts`` (default: ``$ROTE_LLM_ALLOWED_HOSTS``)."""
        if allowed_hosts is None:
            allowed_hosts = os.environ.get(ALLOWED_HOSTS_ENV, "")
            source = ALLOWED_HOSTS_ENV
        else:
            source = "allowed_hosts"
        return cls(False, parse_allowed_hosts(allowed_hosts, source), resolver)

    @classmethod
    def any_address(cls, resolver: Resolver = system_resolver) -> NetworkPolicy:
        """Every address, private and loopback included (a researcher's own machine)."""
        return cls(True, frozenset(), resolver)

    def allows_host(self, host: str, port: int) -> bool:
        """True when ``host:port`` is reached without looking at its addresses."""
        key = _host_key(host)
        return self.allow_private or (key, port) in self.allowed_hosts or (key, None) in self.allowed_hosts

    def addresses(self, host: str, port: int) -> list[str]:
        """The addresses to connect to for ``host:port``, each vetted (``AddressRefused`` when the
        host does not resolve or any of its addresses is refused: one bad answer refuses the host)."""
        try:
            found = list(self.resolver(_host_key(host), port))
        except (OSError, UnicodeError) as exc:
            raise HostNotFound(f"host {host!r} does not resolve ({type(exc).__name__})") from None
        if not found:
            raise HostNotFound(f"host {host!r} does not resolve")
        if self.allows_host(host, port):
            return found
        for address in found:
            try:
                reason = refusal_reason(address)
            except ValueError:
                reason = "not an IP address"
            if reason is not None:
                shown = host if _host_key(host) == address else f"{host} ({address})"
                raise AddressRefused(f"address {shown} is {reason}; only public addresses are allowed "
                                     f"(an operator allows a host with ${ALLOWED_HOSTS_ENV})")
        return found

    def check_url(self, url: str) -> None:
        """Refuse (``AddressRefused``) a URL whose host is refused -- the check a query runs before it
        starts; the connection checks again (the answer of DNS may have changed since)."""
        parts = urlsplit(str(url).strip())
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise AddressRefused(f"URL {str(url)[:80]!r} has an invalid port") from None
        if not parts.hostname:
            raise AddressRefused(f"URL {str(url)[:80]!r} has no host")
        if not self.allows_host(parts.hostname, port):  # an allowed host is not looked up in advance
            self.addresses(parts.hostname, port)


def _sync_backend() -> Any:
    import httpcore2  # lazy: the HTTP stack loads only when a client is built

    return httpcore2.SyncBackend()


class GuardedBackend:
    """An ``httpcore2`` network backend that opens TCP connections only to addresses ``policy``
    allows, resolving each host once and connecting to the vetted address (TLS still verifies the
    host name: httpcore passes it as the server name). :meth:`abort` shuts every socket it opened,
    so a read blocked on a dripping server returns at once."""

    def __init__(self, policy: NetworkPolicy) -> None:
        self.policy = policy
        self._inner = _sync_backend()
        self._sockets: weakref.WeakSet = weakref.WeakSet()
        self._lock = threading.Lock()
        self._aborted = False

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> Any:
        import httpcore2  # lazy: see _sync_backend

        if self._aborted:
            raise httpcore2.ConnectError("the client was closed (the query's deadline passed)")
        last: Exception | None = None
        try:
            addresses = self.policy.addresses(host, port)
        except HostNotFound as exc:  # DNS trouble is a connection error (retried), not a refusal
            raise httpcore2.ConnectError(str(exc)) from None
        for address in addresses:
            try:
                stream = self._inner.connect_tcp(address, port, timeout=timeout, local_address=local_address,
                                                 socket_options=socket_options)
            except httpcore2.ConnectError as exc:
                last = exc
                continue
            sock = stream.get_extra_info("socket")
            with self._lock:
                if sock is not None:
                    self._sockets.add(sock)
                aborted = self._aborted
            if aborted:  # closed while we were connecting
                stream.close()
                raise httpcore2.ConnectError("the client was closed (the query's deadline passed)")
            return stream
        assert last is not None
        raise last

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> Any:
        raise AddressRefused("unix sockets are not allowed")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)

    def abort(self) -> None:
        """Shut down every socket opened so far and refuse new ones (idempotent)."""
        with self._lock:
            self._aborted = True
            socks = list(self._sockets)
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def guarded_client(policy: NetworkPolicy, *, timeout_s: float, max_redirects: int = 5) -> tuple[Any, GuardedBackend]:
    """An ``httpx2.Client`` whose every connection (redirect hops included, at most ``max_redirects``)
    goes through a :class:`GuardedBackend` of ``policy``; proxies from the environment are ignored
    (a proxy would connect on our behalf, past the check). Returns ``(client, backend)``."""
    import httpcore2  # lazy: see _sync_backend
    import httpx2

    backend = GuardedBackend(policy)
    transport = httpx2.HTTPTransport(trust_env=False)
    # httpx2's transport takes no network backend; its pool is replaced by one that has ours
    transport._pool = httpcore2.ConnectionPool(ssl_context=httpx2.create_ssl_context(trust_env=False),
                                               network_backend=backend, max_connections=16)
    client = httpx2.Client(transport=transport, follow_redirects=True, max_redirects=max_redirects,
                           trust_env=False, timeout=timeout_s)
    return client, backend

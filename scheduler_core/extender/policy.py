"""Which extender URLs the engine may call, and the one HTTP client allowed to call them.

A scheduler configuration names extenders by URL, and whoever writes the configuration chooses
that URL. Where configurations come from untrusted people (the web playground), calling any URL
would let them reach whatever the server can reach (its Redis port, its own admin pages, cloud
metadata addresses) and, through `file://`, read local files. So every extender call goes through
an `ExtenderPolicy` chosen by the operator:

- only `http` and `https` URLs;
- the URL must start with one of the allowed prefixes (compared by parsed parts: scheme, host,
  effective port and path on a segment boundary, so `http://127.0.0.1:8888` does not allow
  `http://127.0.0.1:88881/` or `http://127.0.0.1:8888.evil.example/`);
- the host is resolved once; every address used must be one the policy allows (an allowed IP
  literal: that address; `localhost`: a loopback address; another name: any address except the
  unspecified and link-local ones); the connection goes to that address, so a second lookup
  cannot point it elsewhere (no DNS-rebinding window);
- redirects are never followed (a 3xx is an error answer like any non-200);
- a time budget (per action, set by the caller) bounds how long one run may wait for extenders.

The engine stays free of Django: the web passes a policy built from its settings, the CLI one
that allows loopback (or what `--extender-allow` says).
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


class ExtenderURLRefused(Exception):
    """The URL is not one the operator allows; `str()` says why, for the user."""


@dataclass(frozen=True)
class AllowedPrefix:
    """One allowed URL prefix, parsed. `any_port`: the CLI's "any loopback port" rule."""

    scheme: str
    host: str
    port: int | None
    path: str

    def matches(self, scheme: str, host: str, port: int, path: str) -> bool:
        if scheme != self.scheme or host != self.host:
            return False
        if self.port is not None and port != self.port:
            return False
        base = self.path.rstrip("/")
        return not base or path == base or path.startswith(base + "/")

    def __str__(self) -> str:
        port = "*" if self.port is None else str(self.port)
        return f"{self.scheme}://{_bracket(self.host)}:{port}{self.path or '/'}"


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _split(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, effective port, path) of an http(s) URL; ExtenderURLRefused otherwise."""
    if not isinstance(url, str) or not url.strip():
        raise ExtenderURLRefused("the extender URL is empty")
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise ExtenderURLRefused(f"the extender URL {url!r} contains whitespace or control characters")
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ExtenderURLRefused(
            f"extender URL {url!r}: only http and https are allowed, not {scheme + ':' if scheme else 'a relative URL'}"
        )
    if parts.username is not None or parts.password is not None:
        raise ExtenderURLRefused(f"extender URL {url!r}: user information (user@host) is not allowed")
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise ExtenderURLRefused(f"extender URL {url!r} has no host")
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        raise ExtenderURLRefused(f"extender URL {url!r} has an invalid port") from None
    return scheme, host, port, parts.path or "/"


def parse_prefix(text: str) -> AllowedPrefix:
    """An allow-list entry: an http(s) URL prefix; `:*` as the port allows every port."""
    any_port = False
    parts = urllib.parse.urlsplit(text.strip())
    if parts.netloc.endswith(":*"):
        any_port = True
        text = urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc[:-2]))
    try:
        scheme, host, port, path = _split(text.strip())
    except ExtenderURLRefused as error:
        raise ValueError(f"allowed extender URL {text!r}: {error}") from None
    return AllowedPrefix(scheme, host, None if any_port else port, path)


@dataclass
class ExtenderPolicy:
    """The operator's allow-list plus the current action's time budget (None: unbounded)."""

    allowed: tuple[AllowedPrefix, ...] = ()
    budget_seconds: float | None = None
    _deadline: float | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_prefixes(cls, prefixes: list[str] | tuple[str, ...], budget_seconds: float | None = None) -> ExtenderPolicy:
        return cls(tuple(parse_prefix(p) for p in prefixes if p.strip()), budget_seconds)

    @classmethod
    def loopback(cls) -> ExtenderPolicy:
        """Any port on this machine's loopback addresses (the CLI's default)."""
        return cls.from_prefixes(["http://127.0.0.1:*/", "http://localhost:*/", "http://[::1]:*/",
                                  "https://127.0.0.1:*/", "https://localhost:*/", "https://[::1]:*/"])

    # ---- the allow-list ----------------------------------------------------------------------
    def check(self, url: str) -> tuple[str, str, int, str]:
        """Refuse a URL outside the allow-list (before anything is sent). Returns its parts."""
        scheme, host, port, path = _split(url)
        if not any(a.matches(scheme, host, port, path) for a in self.allowed):
            allowed = ", ".join(str(a) for a in self.allowed) or "none"
            raise ExtenderURLRefused(
                f"extender URL {url!r} is not allowed on this server (allowed extender URLs: {allowed})"
            )
        return scheme, host, port, path

    def _address_allowed(self, host: str, address: str) -> bool:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        try:
            literal = ipaddress.ip_address(host)
        except ValueError:
            literal = None
        if literal is not None:
            return ip == literal
        if host in LOOPBACK_NAMES:
            return ip.is_loopback
        return not (ip.is_unspecified or ip.is_link_local or ip.is_multicast)

    def resolve(self, host: str, port: int, timeout: float) -> tuple[int, Any]:
        """Resolve `host` once and return the first (family, sockaddr) the policy allows."""
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        for family, _type, _proto, _name, sockaddr in infos:
            if self._address_allowed(host, sockaddr[0]):
                return family, sockaddr
        addresses = ", ".join(sorted({info[4][0] for info in infos}))
        raise ExtenderURLRefused(f"extender host {host} resolves to {addresses}, which this server does not allow")

    # ---- the time budget -----------------------------------------------------------------------
    def start_budget(self) -> None:
        """Begin a new action: the budget's clock starts now."""
        self._deadline = None if self.budget_seconds is None else time.monotonic() + self.budget_seconds

    def remaining(self) -> float | None:
        return None if self._deadline is None else self._deadline - time.monotonic()

    def __getstate__(self) -> dict[str, Any]:
        return {"allowed": self.allowed, "budget_seconds": self.budget_seconds, "_deadline": None}


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to an address resolved and checked beforehand (Host header unchanged)."""

    def __init__(self, host: str, port: int, family: int, sockaddr: Any, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._family, self._sockaddr = family, sockaddr

    def connect(self) -> None:
        sock = socket.socket(self._family, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._sockaddr)
        except BaseException:
            sock.close()
            raise
        self.sock = sock


class _PinnedHTTPSConnection(_PinnedHTTPConnection):
    def __init__(self, host: str, port: int, family: int, sockaddr: Any, timeout: float,
                 context: ssl.SSLContext) -> None:
        super().__init__(host, port, family, sockaddr, timeout)
        self._context = context

    def connect(self) -> None:
        super().connect()
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self.host)


def post(policy: ExtenderPolicy, url: str, body: bytes, timeout: float,
         context: ssl.SSLContext | None) -> tuple[http.client.HTTPResponse, http.client.HTTPConnection]:
    """POST `body` as JSON to an allowed URL. Returns (response, connection); the caller reads
    the body and closes the connection. Raises ExtenderURLRefused, OSError, TimeoutError."""
    scheme, host, port, _path = policy.check(url)
    family, sockaddr = policy.resolve(host, port, timeout)
    parts = urllib.parse.urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if scheme == "https":
        conn: http.client.HTTPConnection = _PinnedHTTPSConnection(
            host, port, family, sockaddr, timeout, context or ssl.create_default_context())
    else:
        conn = _PinnedHTTPConnection(host, port, family, sockaddr, timeout)
    try:
        conn.request("POST", target, body=body, headers={"Content-Type": "application/json",
                                                          "Host": _host_header(parts)})
        return conn.getresponse(), conn
    except BaseException:
        conn.close()
        raise


def _host_header(parts: urllib.parse.SplitResult) -> str:
    return parts.netloc.rsplit("@", 1)[-1]

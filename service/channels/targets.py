"""Where a webhook may point: https to a public address, checked when it is registered and again
before each delivery (a name's addresses can change in between). Loopback, private, link-local,
multicast, reserved and unspecified addresses are refused unless the host allows them
(PALAZZO_WEBHOOK_ALLOW_PRIVATE, for a receiver on his own network, and the tests'), and then plain
http is allowed too; nothing follows a redirect (`webhooks.post`). `check` answers the address it
checked, and a delivery connects to that address alone (with the URL's name for TLS and Host), so a
name that resolves elsewhere a moment later (DNS rebinding) is not followed there."""
from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL = 2000


@dataclass(frozen=True)
class Target:
    """A checked URL's parts and the address it resolved to, to connect to and nowhere else."""

    scheme: str
    host: str  # the URL's name, for TLS's server name and the Host header
    port: int
    path: str  # with its query
    address: str  # an IP literal


class Refused(ValueError):
    """A target we will not post to; `code` is the problem's stable code."""

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code, self.detail = code, detail


def check(url: str, allow_private: bool) -> Target:
    """Raise Refused unless `url` may receive webhooks (its every address, resolved now); else where to
    connect."""
    if not isinstance(url, str) or len(url) > MAX_URL or not url.isascii() or any(c.isspace() for c in url):
        raise Refused("bad_webhook_url", f"a webhook URL is an absolute https URL of at most {MAX_URL} characters")
    parts = urlsplit(url)
    schemes = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in schemes or not parts.hostname:
        raise Refused("bad_webhook_url", "a webhook URL must be an absolute https:// URL")
    if parts.username or parts.password:
        raise Refused("bad_webhook_url", "a webhook URL may not carry a user name or password")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        found = socket.getaddrinfo(parts.hostname, port, proto=socket.IPPROTO_TCP)
    except (ValueError, OSError, UnicodeError):
        raise Refused("webhook_unreachable", f"the host {parts.hostname!r} has no address") from None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    target = Target(parts.scheme, parts.hostname, port, path, found[0][4][0])
    if allow_private:
        return target
    for *_, sockaddr in found:
        address = ipaddress.ip_address(sockaddr[0].split("%")[0])
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
            address = address.ipv4_mapped
        if (address.is_private or address.is_loopback or address.is_link_local or address.is_multicast
                or address.is_reserved or address.is_unspecified or not address.is_global):
            raise Refused("webhook_target_refused",
                          f"{parts.hostname} leads to {address}, a private, loopback or link-local address")
    return target

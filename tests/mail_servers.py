"""Real mail servers on loopback for the SMTP and IMAP tests: aiosmtpd as a submission server that
keeps what it receives (and refuses what a test tells it to), Debian's Dovecot with a config of its
own in a temporary folder, a self-signed certificate for both, and a TCP relay in front of Dovecot
that can hold a worker's connection at the command a test names, so that the test kills the worker
at that point of its work and not at some moment."""
from __future__ import annotations

import email
import os
import pwd
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from imapclient import IMAPClient

from service.localredis import free_port

DOVECOT = "/usr/sbin/dovecot"


def certificate(folder: Path, name: str = "127.0.0.1") -> tuple[Path, Path]:
    """A self-signed certificate for `name` (an IP address or a DNS name) and its key, made with openssl."""
    cert, key = folder / f"{name}.cert.pem", folder / f"{name}.key.pem"
    kind = "IP" if name.replace(".", "").isdigit() else "DNS"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={name}",
                    "-addext", f"subjectAltName={kind}:{name}", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


@dataclass
class Keeper:
    """aiosmtpd's handler: keeps each message it accepts; answers a recipient in `refuse` with its
    code, and the first DATA for a recipient in `later` with a 451."""

    refuse: dict[str, str] = field(default_factory=dict)
    later: set[str] = field(default_factory=set)
    received: list[tuple[str, bytes]] = field(default_factory=list)  # (recipient, the message's bytes)
    tries: dict[str, int] = field(default_factory=dict)  # DATA commands per recipient
    logins: list[tuple[bytes, bytes]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refuse:
            return self.refuse[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            for to in envelope.rcpt_tos:
                self.tries[to] = self.tries.get(to, 0) + 1
            if any(to in self.later and self.tries[to] == 1 for to in envelope.rcpt_tos):
                return "451 4.3.0 try again later"
            self.received += [(to, envelope.original_content or envelope.content) for to in envelope.rcpt_tos]
        return "250 2.0.0 Ok: queued"

    def authenticate(self, server, session, envelope, mechanism, auth_data) -> AuthResult:
        self.logins.append((auth_data.login, auth_data.password))
        return AuthResult(success=(auth_data.login, auth_data.password) == (b"palazzo", b"submission-secret"),
                          handled=False)  # else aiosmtpd sends no 535

    def messages(self, to: str | None = None) -> list[EmailMessage]:
        return [message for rcpt, message in self.arrived() if to in (None, rcpt)]

    def arrived(self, start: int = 0) -> list[tuple[str, EmailMessage]]:
        """(recipient, message) of each message accepted, from the `start`th on."""
        with self.lock:
            kept = self.received[start:]
        return [(rcpt, email.message_from_bytes(raw, policy=policy.default)) for rcpt, raw in kept]


class SmtpServer:
    """aiosmtpd on a free loopback port: plain, STARTTLS with AUTH required, or implicit TLS."""

    def __init__(self, security: str = "none", cert: tuple[Path, Path] | None = None):
        self.keeper = Keeper()
        self.port = free_port()
        options: dict = {"hostname": "127.0.0.1", "port": self.port, "authenticator": self.keeper.authenticate}
        if security == "starttls":
            options.update(tls_context=server_context(*cert), require_starttls=True, auth_required=True)
        elif security == "tls":
            options.update(ssl_context=server_context(*cert))
        self.controller = Controller(self.keeper, **options)

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self.controller.stop()

    def settings(self, security: str = "none") -> dict[str, str]:
        """The worker's environment for sending through this server."""
        found = {"PALAZZO_MAIL_BACKEND": "smtp", "PALAZZO_SMTP_HOST": "127.0.0.1", "PALAZZO_SMTP_PORT": str(self.port),
                 "PALAZZO_SMTP_SECURITY": security}
        if security == "starttls":
            found.update(PALAZZO_SMTP_USER="palazzo", PALAZZO_SMTP_PASSWORD="submission-secret")
        return found


class Dovecot:
    """Dovecot on a free loopback port, its mailboxes maildirs in a temporary folder and its users in a
    passwd-file. Run as root, mail belongs to `nobody` (Dovecot gives no mail to uid 0); otherwise
    everything runs as the user running the tests. `capabilities` replaces what it offers after login
    (say, without IDLE and MOVE)."""

    def __init__(self, users: dict[str, str], capabilities: str | None = None):
        self.users = users
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="palazzo-dovecot-"))
        self.folder.chmod(0o755)
        root = os.getuid() == 0
        owner = pwd.getpwnam("nobody") if root else pwd.getpwuid(os.getuid())
        (self.folder / "mail").mkdir()
        os.chown(self.folder / "mail", owner.pw_uid, owner.pw_gid)
        (self.folder / "passwd").write_text("".join(f"{user}:{{PLAIN}}{password}::::::\n"
                                                    for user, password in users.items()))
        me = pwd.getpwuid(os.getuid()).pw_name
        unprivileged = "" if root else f"default_internal_user = {me}\ndefault_login_user = {me}\n"
        capability = f"imap_capability = {capabilities}\n" if capabilities is not None else ""
        (self.folder / "dovecot.conf").write_text(f"""\
base_dir = {self.folder}/run
state_dir = {self.folder}/state
log_path = {self.folder}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{self.folder}/mail/%u
first_valid_uid = 1
{unprivileged}{capability}passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {self.folder}/passwd
}}
userdb {{
  driver = static
  args = uid={owner.pw_uid} gid={owner.pw_gid} home={self.folder}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
""")

    def __enter__(self) -> Dovecot:
        self.process = subprocess.Popen([DOVECOT, "-F", "-c", str(self.folder / "dovecot.conf")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
                    if connection.recv(100).startswith(b"* OK"):
                        return self
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"dovecot did not start: {self.process.stderr.read().decode()[-2000:]} {self.log()}")
            time.sleep(0.05)

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def log(self) -> str:
        path = self.folder / "dovecot.log"
        return path.read_text()[-3000:] if path.exists() else ""

    def settings(self, user: str, port: int | None = None, **more: str) -> dict[str, str]:
        """The worker's environment for reading `user`'s INBOX (through `port`, a relay's, if given)."""
        return {"PALAZZO_IMAP_HOST": "127.0.0.1", "PALAZZO_IMAP_PORT": str(port or self.port),
                "PALAZZO_IMAP_SECURITY": "none", "PALAZZO_IMAP_USER": user, "PALAZZO_IMAP_PASSWORD": self.users[user],
                "PALAZZO_IMAP_POLL": "2", **more}

    def client(self, user: str) -> IMAPClient:
        client = IMAPClient("127.0.0.1", self.port, ssl=False, timeout=10)
        client.login(user, self.users[user])
        return client

    def append(self, user: str, message: bytes, folder: str = "INBOX") -> None:
        client = self.client(user)
        try:
            client.append(folder, message)
        finally:
            client.logout()

    def count(self, user: str, folder: str) -> int:
        """How many messages the folder holds (0 for a folder that does not exist)."""
        client = self.client(user)
        try:
            return client.folder_status(folder, [b"MESSAGES"])[b"MESSAGES"] if client.folder_exists(folder) else 0
        finally:
            client.logout()

    def message_ids(self, user: str, folder: str) -> list[str]:
        client = self.client(user)
        try:
            if not client.folder_exists(folder):
                return []
            client.select_folder(folder, readonly=True)
            fetched = client.fetch(client.search(), ["BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)]"])
            return [email.message_from_bytes(data[b"BODY[HEADER.FIELDS (MESSAGE-ID)]"])["Message-ID"]
                    for data in fetched.values()]
        finally:
            client.logout()


class Relay:
    """A TCP relay on a free loopback port to `port`. `hold(command)` makes it stop passing a
    connection on when its client sends that command, and tell the test (`held`): the client waits
    on an answer that never comes until the test kills it."""

    def __init__(self, port: int):
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.pattern: bytes | None = None
        self.held = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def hold(self, command: bytes) -> threading.Event:
        self.held.clear()
        self.pattern = command
        return self.held

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pipe, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, False), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, watched: bool) -> None:
        try:
            while data := source.recv(65536):
                if watched and self.pattern is not None and self.pattern in data:
                    self.pattern = None
                    self.held.set()
                    while source.recv(65536):  # swallowed until the client is gone
                        pass
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                end.close()

    def close(self) -> None:
        self.listener.close()

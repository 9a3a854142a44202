"""The IMAP reader of `palazzo worker` (PALAZZO_IMAP_HOST set): a thread that keeps a session on the
mailbox replies arrive in and hands each mail to the inbound path (`service.inbound.imap`).

It looks at once when it connects, then after every change the server tells of while IDLE (or every
PALAZZO_IMAP_POLL seconds where there is no IDLE, and at least that often where there is); a lost
connection, or a Redis that cannot be reached, is logged and tried again after RETRY_SECONDS. The
reader only keeps and queues a reply: the replies' process (`workers.queue_process`) plays it. Several
workers may read the same mailbox: a mail two of them receive is played once.
"""
from __future__ import annotations

import logging
import threading

from service.inbound import imap
from service.inbound.receiving import receive
from service.mail.settings import ImapSettings
from workers import replies

log = logging.getLogger(__name__)
RETRY_SECONDS = 5.0


class Reader:
    """Starts the thread; `stop` ends it within about a second."""

    def __init__(self, settings: ImapSettings):
        self.settings = settings
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, name="imap", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        settings = self.settings
        log.info("reading replies from %s on %s:%s", settings.folder, settings.host, settings.port)
        while not self.stopping.is_set():
            try:
                box = imap.Mailbox(settings)
            except Exception as error:  # whatever the server or the network did, the reader goes on
                log.warning("IMAP server %s:%s: %s; trying again in %s s", settings.host, settings.port,
                            _said(error), RETRY_SECONDS)
                self.stopping.wait(RETRY_SECONDS)
                continue
            try:
                while not self.stopping.is_set():
                    moved = imap.handle_waiting(box, lambda post: receive(replies.replies(), post), settings.authserv)
                    if moved:
                        log.info("%d mail handled from %s", moved, settings.folder)
                    box.wait(settings.poll, self.stopping)
            except Exception as error:  # a lost connection, a Redis down: the mail waits in the folder
                log.warning("reading %s: %s; trying again in %s s", settings.folder, _said(error), RETRY_SECONDS)
                self.stopping.wait(RETRY_SECONDS)
            finally:
                box.close()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=10)


def _said(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"[:300]

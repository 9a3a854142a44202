"""The two mails of a change of address (`service.addresses`): one to each end, each with the link
that proves it. Plain words, no game in them: they are about the account."""
from __future__ import annotations

from html import escape

from service.mail import headers
from service.mail.message import Mail

KIND = "address_change"
SUBJECT = "Confirm the change of your Palazzo address"


def confirm_mail(to: str, side: str, old: str, new: str, url: str, domain: str) -> Mail:
    """The link for one end (`side`: "new" or "old"); the change is made once both links are opened."""
    asked = f"Someone signed in to Palazzo as {old} asked to move that player's games and settings to {new}."
    other = "the old address" if side == "new" else "the new address"
    confirm = (f"If that was you, open this link, and the one mailed to {other}; the change is made once both are "
               "opened, within a day. Each works once:")
    warn = ("If it was not you, do nothing: nothing changes. If you did not ask for it, sign out everywhere "
            "from your settings page: someone may have your sign-in.")
    text = f"{asked}\n\n{confirm}\n{url}\n\n{warn}\n"
    html = (f"<p>{escape(asked)}</p><p>{escape(confirm)}<br><a href=\"{escape(url)}\">{escape(url)}</a></p>"
            f"<p>{escape(warn)}</p>")
    return Mail(to=to, subject=SUBJECT, text=text, html=html, headers=headers.build(domain), kind=KIND)

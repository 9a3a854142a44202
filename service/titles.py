"""What a game's title may hold. The title names the game in every mail (subjects too), page and list,
and it is the one text of a creator's that reaches the addresses he invites, so it is one line of
visible text with nothing a mail program would turn into a link. The API's schema, the pages and the
default title (made of a seat's name) all ask `fault`."""
from __future__ import annotations

import re
import unicodedata

LONGEST = 80
RULE = (f"1-{LONGEST} characters on one line, trimmed; no control or bidirectional-override characters, and "
        "nothing a mail program would make a link of (`://`, `www.`, an address with `@`, a domain such as "
        "`example.org`), since the title reaches every invited address.")
LINKISH = re.compile(r"://|www\.|@|[^\W\d_]\.[^\W\d_]", re.IGNORECASE)
UNSEEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}  # controls, format (bidi overrides), unassigned, line breaks
SEEN_FORMATS = {"\u200d"}  # the zero-width joiner, which writes emoji such as a family


def fault(text: str) -> str | None:
    """Why `text` (trimmed) cannot be a title, in a sentence; None when it can."""
    if not 1 <= len(text) <= LONGEST:
        return f"A title is 1 to {LONGEST} characters."
    if any(unicodedata.category(char) in UNSEEN and char not in SEEN_FORMATS for char in text):
        return "A title may not hold control characters or line breaks."
    if LINKISH.search(text):
        return "A title may not hold a link, a domain or an address."
    return None


def one_line(text: str) -> str:
    """`text` with every character that could break a mail header or a line made a space: what a
    subject shows of a title, whatever an older game stored."""
    return "".join(" " if unicodedata.category(char) in UNSEEN and char not in SEEN_FORMATS else char
                   for char in text).strip()

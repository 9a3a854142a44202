"""The lines a player wrote in a reply, without what his mail program added: the quoted mail, the
heading above it, his signature and the history Outlook appends. The inbound layer strips a mail
here, once, before anything reads it: the table talk, time off, and any game's grammar, which gets
only the player's own lines (`engine.core.Grammar.parse`) and knows nothing of mail programs.

What the programs write above a quote (their plain-text parts, as people send them):
- Gmail: "On Tue, Dec 1, 2026 at 10:00 AM Ann <ann@example.org> wrote:", in German "Am Di., 1. Dez.
  2026 um 10:00 Uhr schrieb Ann <ann@example.org>:", Dutch "Op di 1 dec 2026 om 10:00 schreef ...",
  Swedish "Den tis 1 dec. 2026 kl 10:00 skrev ...", Polish "wt., 1 gru 2026 o 10:00 Ann <...>
  napisał(a):", French "Le mar. 1 déc. 2026 à 10:00, Ann <...> a écrit :", Spanish "El mar, 1 dic
  2026 a las 10:00, Ann (<...>) escribió:", Italian "Il giorno mar 1 dic 2026 alle ore 10:00 Ann <...>
  ha scritto:", Portuguese "Em ter., 1 de dez. de 2026 às 10:00, Ann <...> escreveu:"; wrapped onto
  a second or third line when long, anywhere (inside the address, between "a" and "écrit").
- Thunderbird: "On 01/12/2026 10:00, Ann wrote:", "Am 01.12.26 um 10:00 schrieb Ann:", "W dniu
  1.12.2026 o 10:00, Ann pisze:", ...; the answer usually below the quote.
- Apple Mail: "On 1 Dec 2026, at 10:00, Ann <...> wrote:", "1 dec. 2026 kl. 10:00 skrev Ann <...>:",
  "Op 1 dec. 2026 om 10:00 heeft Ann <...> het volgende geschreven:", "Wiadomość napisana przez Ann
  <...> w dniu 01.12.2026, o godz. 10:00:", often quoted with the rest; iOS puts U+FEFF before it.
- Outlook: the original unquoted below "From: ... Sent: ... To: ... Subject: ..." (Von/Gesendet,
  Van/Verzonden, Från/Skickat, Od/Wysłano, De/Envoyé, Da/Inviato, ...), under a line of underscores
  or "-----Original Message-----" in the program's language.
So a heading is a line ending in a colon with its verb ("wrote", "schrieb", ...) right before the
colon, or followed by the sender's address, or in a line that starts like a heading ("On", "Am",
"W dniu", a time of day); a wrapped one is found by joining up to three lines that start like one.
"""
from __future__ import annotations

import re

_VERB = (r"(wrote|schrieb|schreef|geschreven|skrev|napisał\(a\)|napisała|napisał|napisana\s+przez|pisze|"
         r"a\s+écrit|escribió|ha\s+scritto|escreveu)")
VERB_LAST = re.compile(rf"\b{_VERB}\s*:\s*$", re.IGNORECASE)  # "... Ann wrote:", "... a écrit :"
VERB_THEN_ADDRESS = re.compile(rf"\b{_VERB}\b.*[<@].*:\s*$", re.IGNORECASE)  # "schrieb Ann <ann@...>:"
VERB_ANYWHERE = re.compile(rf"\b{_VERB}\b.*:\s*$", re.IGNORECASE)
STARTS = re.compile(r"^(on|le|am|el|il|op|em|den|dnia|w\s+dniu|på|wiadomość|"
                    r"(pon|wt|śr|czw|pt|sob|niedz)\.,)(\s|$)|\b\d{1,2}:\d{2}\b",
                    re.IGNORECASE)  # the first words of a heading, or its time of day
HISTORY = re.compile(r"^(-{2,}\s*[^-\s][^-]*?\s*-{2,}|_{5,}|\*?(from|von|van|från|od|de|da)\*?\s?:\*?\s.+|"
                     r"begin forwarded message:?)$", re.IGNORECASE)  # "-----Original Message-----", "From: ..."
SIGNATURE = re.compile(r"^(--|—|-- )$")
INVISIBLE = re.compile("[\ufeff\u200b\u200e\u200f\u2060]")  # marks iOS and others put before a quote


def written_lines(text: str) -> list[str]:
    """The lines the player wrote himself, stripped, blank ones kept: quoted lines ('>'), the
    "On ... wrote:" heading of a quote, and everything from a signature or the history a mail program
    appends, are dropped. A heading above what he wrote ends it (top posting); a heading before he
    wrote anything only introduces the quote he answers below it (bottom posting)."""
    lines = INVISIBLE.sub("", text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        heading = heading_at(lines, index)
        if heading:
            if any(kept):
                break
            index += heading
            continue
        if SIGNATURE.match(lines[index].rstrip()) or SIGNATURE.match(line) or HISTORY.match(line):
            break
        if not line.startswith(">"):
            kept.append(line)
        index += 1
    return kept


def heading_at(lines: list[str], index: int) -> int:
    """How many lines the heading above a quote that starts at `index` takes (0: none starts there)."""
    first = lines[index].strip()
    if not first or first.startswith(">"):
        return 0
    if _is_heading(first, first):
        return 1
    if not STARTS.search(first):
        return 0
    joined = first
    for extra in (1, 2):
        following = lines[index + extra].strip() if index + extra < len(lines) else ""
        if not following or following.startswith(">"):
            return 0
        joined = f"{joined} {following}"
        if _is_heading(joined, first):
            return extra + 1
    return 0


def _is_heading(text: str, first: str) -> bool:
    return bool(VERB_LAST.search(text) or VERB_THEN_ADDRESS.search(text)
                or (STARTS.search(first) and VERB_ANYWHERE.search(text)))

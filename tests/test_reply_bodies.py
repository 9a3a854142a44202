"""Replies as the common mail programs write them, in nine languages, read to the commands their
writer meant (service/inbound/quoting.py keeps his lines, engine/pof/grammar.py reads them): top-posted above the quote (Gmail,
Outlook, Apple Mail) and bottom-posted below it (Thunderbird, Gmail with the quote opened), with the
heading each program writes above a quote, wrapped as Gmail wraps a long one, Outlook's header
block, greetings, sign-offs, signatures and phone footers. Then greetings alone, and typos.

The headings follow what the programs write in their plain-text parts (see service/inbound/quoting.py);
every quote holds command lines of our own mail, which must never be read.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from engine.core import Unreadable
from engine.pof.grammar import GRAMMAR
from service.inbound.quoting import written_lines

SENDER = "Palazzo <palazzo@palazzo.example>"


def read_reply(body: str):
    """What a reply by mail reads as: the lines its writer wrote (the inbound layer), then the grammar."""
    return GRAMMAR.parse(written_lines(body))


@dataclass(frozen=True)
class Language:
    greeting: str
    sign_off: str
    phone: str  # the footer a phone's mail program adds
    gmail: str
    thunderbird: str
    apple: str
    outlook: tuple[str, str, str, str]  # From, Sent, To, Subject
    original: str  # Outlook's line above a plain-text reply's history
    sent: str


LANGUAGES = {
    "en": Language(
        "Hi Palazzo,",
        "Thanks,",
        "Sent from my iPhone",
        f"On Tue, Dec 1, 2026 at 10:00\u202fAM {SENDER} wrote:",
        "On 01/12/2026 10:00, Palazzo wrote:",
        f"On 1 Dec 2026, at 10:00, {SENDER} wrote:",
        ("From", "Sent", "To", "Subject"),
        "-----Original Message-----",
        "Tuesday, December 1, 2026 10:00 AM",
    ),
    "de": Language(
        "Guten Morgen,",
        "Viele Grüße",
        "Von meinem iPhone gesendet",
        f"Am Di., 1. Dez. 2026 um 10:00 Uhr schrieb {SENDER}:",
        "Am 01.12.26 um 10:00 schrieb Palazzo:",
        f"Am 01.12.2026 um 10:00 schrieb {SENDER}:",
        ("Von", "Gesendet", "An", "Betreff"),
        "-----Ursprüngliche Nachricht-----",
        "Dienstag, 1. Dezember 2026 10:00",
    ),
    "nl": Language(
        "Goedemorgen,",
        "Groetjes,",
        "Verstuurd vanaf mijn iPhone",
        f"Op di 1 dec 2026 om 10:00 schreef {SENDER}:",
        "Op 01-12-2026 om 10:00 schreef Palazzo:",
        f"Op 1 dec. 2026 om 10:00 heeft {SENDER} het volgende geschreven:",
        ("Van", "Verzonden", "Aan", "Onderwerp"),
        "-----Oorspronkelijk bericht-----",
        "dinsdag 1 december 2026 10:00",
    ),
    "sv": Language(
        "Hej,",
        "Hälsningar",
        "Skickat från min iPhone",
        f"Den tis 1 dec. 2026 kl 10:00 skrev {SENDER}:",
        "Den 2026-12-01 kl. 10:00, skrev Palazzo:",
        f"1 dec. 2026 kl. 10:00 skrev {SENDER}:",
        ("Från", "Skickat", "Till", "Ämne"),
        "-----Ursprungligt meddelande-----",
        "den 1 december 2026 10:00",
    ),
    "pl": Language(
        "Dzień dobry,",
        "Pozdrawiam",
        "Wysłane z iPhone'a",
        f"wt., 1 gru 2026 o 10:00 {SENDER} napisał(a):",
        "W dniu 1.12.2026 o 10:00, Palazzo pisze:",
        f"Wiadomość napisana przez {SENDER} w dniu 01.12.2026, o godz. 10:00:",
        ("Od", "Wysłano", "Do", "Temat"),
        "-----Wiadomość oryginalna-----",
        "wtorek, 1 grudnia 2026 10:00",
    ),
    "fr": Language(
        "Bonjour,",
        "Merci,",
        "Envoyé de mon iPhone",
        f"Le mar. 1 déc. 2026 à 10:00, {SENDER} a écrit\u00a0:",
        "Le 01/12/2026 à 10:00, Palazzo a écrit :",
        f"Le 1 déc. 2026 à 10:00, {SENDER} a écrit :",
        ("De ", "Envoyé ", "À ", "Objet "),
        "-----Message d'origine-----",
        "mardi 1 décembre 2026 10:00",
    ),
    "es": Language(
        "Hola,",
        "Saludos,",
        "Enviado desde mi iPhone",
        "El mar, 1 dic 2026 a las 10:00, Palazzo (<palazzo@palazzo.example>) escribió:",
        "El 1/12/26 a las 10:00, Palazzo escribió:",
        f"El 1 dic 2026, a las 10:00, {SENDER} escribió:",
        ("De", "Enviado", "Para", "Asunto"),
        "-----Mensaje original-----",
        "martes, 1 de diciembre de 2026 10:00",
    ),
    "it": Language(
        "Buongiorno,",
        "Un saluto,",
        "Inviato da iPhone",
        f"Il giorno mar 1 dic 2026 alle ore 10:00 {SENDER} ha scritto:",
        "Il 01/12/26 10:00, Palazzo ha scritto:",
        f"Il giorno 1 dic 2026, alle ore 10:00, {SENDER} ha scritto:",
        ("Da", "Inviato", "A", "Oggetto"),
        "-----Messaggio originale-----",
        "martedì 1 dicembre 2026 10:00",
    ),
    "pt": Language(
        "Bom dia,",
        "Abraços,",
        "Enviado do meu iPhone",
        f"Em ter., 1 de dez. de 2026 às 10:00, {SENDER} escreveu:",
        "Em 01/12/2026 10:00, Palazzo escreveu:",
        f"Em 1 de dez. de 2026, à(s) 10:00, {SENDER} escreveu:",
        ("De", "Enviado", "Para", "Assunto"),
        "-----Mensagem original-----",
        "terça-feira, 1 de dezembro de 2026 10:00",
    ),
}

TURN = (
    "buy freedom travel\nbuild tower at A1 B1 C1\nend",
    [
        {"type": "buy_freedom", "freedom": "travel"},
        {"type": "build", "building": "tower", "squares": [[0, 0], [0, 1], [0, 2]]},
        {"type": "end_turn"},
    ],
)
BID = ("bid 500", [{"type": "bid", "amount": 500}])
KEEP = (
    "keep painter, sculptor and bell maker",
    [{"type": "keep_professions", "professions": ["painter", "sculptor", "bell_maker"]}],
)
OPEN = ("open prestige card", [{"type": "open_auction", "item": "prestige_card"}])
ANSWERS = [TURN, BID, KEEP, OPEN]

OUR_MAIL = [
    "Ann, it is your turn in round 3 of 7.",
    "",
    "Answer by mail: reply with one of these lines:",
    "  buy freedom opinion",
    "  bid 300",
    "  end",
]  # what every quote below holds: lines that are commands
QUOTED = "\n".join(f"> {line}".rstrip() for line in OUR_MAIL)
UNQUOTED = "\n".join(OUR_MAIL)
SIGNATURE = "-- \nAnn Example\nVia dei Calzaiuoli 1, Florence"


def wrapped(heading: str) -> list[tuple[str, str]]:
    """The heading on one line, and as Gmail wraps a long one: onto two or three lines, or inside the
    address (German Gmail's "schrieb Palazzo <" / "palazzo@...>:")."""
    forms = [("one line", heading)]
    for lines in (2, 3):
        parts = textwrap.wrap(heading, width=len(heading) // lines + 2, break_long_words=False, break_on_hyphens=False)
        if len(parts) == lines:
            forms.append((f"{lines} lines", "\n".join(parts)))
    if "<" in heading:
        forms.append(("inside the address", heading.replace("<", "<\n", 1)))
    return forms


def outlook_block(lang: Language) -> str:
    sender, sent, to, subject = lang.outlook
    return (
        f"{sender}: {SENDER}\n{sent}: {lang.sent}\n{to}: Ann <ann@example.org>\n"
        f"{subject}: Your turn in round 3 · Palazzo e1f24b4c321c85fa\n\n{UNQUOTED}"
    )


def bodies() -> list[tuple[str, str, list[dict], list[str]]]:
    """(what it is, the body, the moves it means, the lines that must be read as prose, not commands)."""
    cases = []
    for index, (code, lang) in enumerate(LANGUAGES.items()):
        text, moves = ANSWERS[index % len(ANSWERS)]
        signed = [lang.sign_off, "Ann"]
        for form, heading in wrapped(lang.gmail):
            cases.append(
                (
                    f"{code} Gmail top-posted, heading on {form}",
                    f"{lang.greeting}\n\n{text}\n\n{lang.sign_off}\nAnn\n\n{heading}\n{QUOTED}\n",
                    moves,
                    signed,
                )
            )
            cases.append(
                (
                    f"{code} Gmail bottom-posted, heading on {form}",
                    f"{heading}\n{QUOTED}\n\n{lang.greeting}\n{text}\n\n{lang.sign_off}\nAnn\n",
                    moves,
                    signed,
                )
            )
        cases.append(
            (
                f"{code} Gmail with a signature above the quote",
                f"{text}\n\n{lang.sign_off}\nAnn\n\n{SIGNATURE}\n\n{lang.gmail}\n{QUOTED}\n",
                moves,
                signed,
            )
        )
        for form, heading in wrapped(lang.thunderbird) + wrapped(lang.apple):
            cases.append(
                (
                    f"{code} Thunderbird bottom-posted below '{heading[:12]}', {form}",
                    f"{heading}\n{QUOTED}\n\n{lang.greeting}\n\n{text}\n\n{lang.sign_off}\nAnn\n{SIGNATURE}\n",
                    moves,
                    signed,
                )
            )
        cases.append(
            (
                f"{code} Apple Mail on an iPhone, the heading in the quote",
                f"{text}\n\n{lang.phone}\n\n\ufeff> {lang.apple}\n>\n{QUOTED}\n",
                moves,
                [lang.phone],
            )
        )
        cases.append(
            (
                f"{code} Apple Mail, the heading above the quote",
                f"{lang.greeting}\n{text}\n\n{lang.phone}\n\n{lang.apple}\n\n{QUOTED}\n",
                moves,
                [lang.phone],
            )
        )
        cases.append(
            (
                f"{code} Outlook, the header block",
                f"{lang.greeting}\n\n{text}\n\n{lang.sign_off}\nAnn\n\n{outlook_block(lang)}\n",
                moves,
                signed,
            )
        )
        cases.append(
            (
                f"{code} Outlook on the web, under a line",
                f"{text}\n\n{lang.sign_off}\nAnn\n\n{'_' * 32}\n{outlook_block(lang)}\n",
                moves,
                signed,
            )
        )
        cases.append(
            (
                f"{code} Outlook, a plain-text reply",
                f"{text}\n\n{lang.sign_off}\nAnn\n\n{lang.original}\n{outlook_block(lang)}\n",
                moves,
                signed,
            )
        )
        cases.append(
            (
                f"{code} Outlook for iOS",
                f"{text}\n\nGet Outlook for iOS\n{'_' * 32}\n{outlook_block(lang)}\n",
                moves,
                ["Get Outlook for iOS"],
            )
        )
    return cases


BODIES = bodies()


@pytest.mark.parametrize("body, moves, prose", [case[1:] for case in BODIES], ids=[case[0] for case in BODIES])
def test_a_reply_reads_to_the_commands_its_writer_meant(body, moves, prose):
    parsed = read_reply(body)
    assert [command.move for command in parsed.commands] == moves
    assert parsed.ignored == prose, "the quote, its heading and the history are not even prose of his"


def test_the_bodies_cover_every_language_program_and_way_of_posting():
    assert len(LANGUAGES) == 9 and len(BODIES) >= 9 * 12
    for words in (
        "top-posted",
        "bottom-posted",
        "Thunderbird",
        "Apple Mail",
        "Outlook",
        "2 lines",
        "3 lines",
        "inside the address",
    ):
        assert sum(words in case[0] for case in BODIES) >= 9, words


GREETINGS = [
    "Guten Morgen,",
    "Guten Tag",
    "Moin",
    "Servus",
    "Hallo zusammen",
    "Hallo zusammen!",
    "Goedemorgen",
    "Hoi",
    "Hej",
    "Cześć",
    "Dzień dobry",
    "Salut",
    "Bonjour",
    "Hola",
    "Buenos días",
    "Buongiorno",
    "Olá",
    "Bom dia",
    "Hi",
    "Hello team,",
    "Dear Palazzo,",
    "Ciao a tutti",
]


@pytest.mark.parametrize("greeting", GREETINGS)
def test_a_greeting_above_the_commands_is_skipped_and_never_swallows_one(greeting):
    assert [c.move for c in read_reply(f"{greeting}\n\nbid 500\nend").commands] == [
        {"type": "bid", "amount": 500},
        {"type": "end_turn"},
    ]
    assert [c.move for c in read_reply(f"{greeting.rstrip(',!')}, bid 500").commands] == [
        {"type": "bid", "amount": 500}
    ], "a command after the greeting on its line is read"


def test_a_greeting_followed_by_more_than_names_is_read_or_refused_never_skipped():
    assert [c.move for c in read_reply("Hello, I would like to bid 500 please").commands] == [
        {"type": "bid", "amount": 500}
    ]
    for body in ("Hi Ann bid 500", "Guten Morgen, ich biete 500"):
        with pytest.raises(Unreadable) as refused:
            read_reply(body)
        assert refused.value.code == "unknown_command", body


@pytest.mark.parametrize(
    "typo, verb",
    [
        ("byu bonus card", "buy"),
        ("edn", "end"),
        ("biuld tower at A1 B1 C1", "build"),
        ("publsh painter", "publish"),
        ("kep painter poet doctor", "keep"),
        ("opne lake", "open"),
        ("choosee B07", "choose"),
        ("sel 2", "sell"),
    ],
)
def test_a_typo_of_a_verb_on_a_later_line_is_refused_with_a_hint(typo, verb):
    with pytest.raises(Unreadable) as refused:
        read_reply(f"bid 500\n{typo}\n\nThanks!")
    assert refused.value.code == "unknown_command" and refused.value.line == typo
    assert f"Did you mean '{verb}'?" in refused.value.message


@pytest.mark.parametrize(
    "sign_off",
    [
        "Thanks!",
        "Cheers, Ann",
        "Grüße",
        "Viele Grüße, Ann",
        "Tack!",
        "Pozdrawiam",
        "Merci",
        "Gracias",
        "Best",
        "Bye",
        "Regards",
        "Nick",
        "Ash",
        "Well, see you",
        "Sent from my iPhone",
        "Ann",
    ],
)
def test_a_sign_off_stays_prose(sign_off):
    parsed = read_reply(f"bid 500\n{sign_off}")
    assert [c.move for c in parsed.commands] == [{"type": "bid", "amount": 500}]
    assert parsed.ignored == [sign_off]

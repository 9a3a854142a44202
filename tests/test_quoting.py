"""Replies as they arrive, stripped by the inbound layer (service/inbound/quoting.py) to the lines
their writer wrote, then read by the game's grammar: quotes, their headings, signatures, Outlook's
history and HTML-only mails never reach it. (Every language and program: tests/test_reply_bodies.py.)"""
from __future__ import annotations

import pytest

from engine.core import Unreadable
from engine.pof.grammar import GRAMMAR
from service.inbound.message import html_text
from service.inbound.quoting import written_lines


GMAIL_TOP_POST = """Bid 500

On Tue, 2 Dec 2025 at 18:00, Palazzo <palazzo@palazzo.example> wrote:
> Ann, it is your bid.
>
> Answer by mail: reply with one of these lines:
>   bid 300
>   out
"""
WRAPPED_ATTRIBUTION = """out
Thanks,
Ann

On Tue, 2 Dec 2025 at 18:00, Palazzo <
palazzo@palazzo.example> wrote:
> bid 300
"""
BOTTOM_POST = """On Tue, 2 Dec 2025, Palazzo wrote:
> Ann, it is your turn in round 3 of 7.
>   buy freedom travel
>   end

buy freedom travel
build tower at A1 B1 C1
end

--
Ann Example
"""
OUTLOOK = """open lake
-----Original Message-----
From: Palazzo <palazzo@palazzo.example>
Sent: Tuesday, December 2, 2025 6:00 PM
open woods
"""
SIGNATURE = """keep painter sculptor architect
-- 
Ann Example, Florence
bid 900
"""
PHONE = """  END TURN  

Sent from my iPhone
"""
GREETING = """Hi Palazzo,

publish painter with bonus B07
Cheers
"""
HTML_ONLY = """<html><head><style>p {color: red}</style></head><body>
<div dir="ltr">choose&nbsp;B07<br>end</div><br>
<div class="gmail_quote"><div class="gmail_attr">On Tue, 2 Dec 2025, Palazzo &lt;palazzo@palazzo.example&gt; wrote:<br></div>
<blockquote class="gmail_quote">Ann, you have a choice to make.<br>choose B01</blockquote></div>
</body></html>"""
HTML_OUTLOOK = """<div>sell 1</div><hr><div><b>From:</b> Palazzo</div><div>bid 300</div>"""


@pytest.mark.parametrize("body, moves, ignored", [
    (GMAIL_TOP_POST, [{"type": "bid", "amount": 500}], []),
    (WRAPPED_ATTRIBUTION, [{"type": "step_out"}], ["Thanks,", "Ann"]),
    (BOTTOM_POST, [{"type": "buy_freedom", "freedom": "travel"},
                   {"type": "build", "building": "tower", "squares": [[0, 0], [0, 1], [0, 2]]}, {"type": "end_turn"}], []),
    (OUTLOOK, [{"type": "open_auction", "item": "lake"}], []),
    (SIGNATURE, [{"type": "keep_professions", "professions": ["painter", "sculptor", "architect"]}], []),
    (PHONE, [{"type": "end_turn"}], ["Sent from my iPhone"]),
    (GREETING, [{"type": "publish", "profession": "painter", "bonus_cards": ["per_woods"]}], ["Cheers"]),
    (html_text(HTML_ONLY), [{"type": "choose_card", "card": "per_woods", "return_order": None}, {"type": "end_turn"}], []),
    (html_text(HTML_OUTLOOK), [{"type": "sell_prestige", "points": 1}], []),
    ("bid 400\r\n\r\n> bid 300\r\n", [{"type": "bid", "amount": 400}], []),
])
def test_only_the_lines_the_player_wrote_count(body, moves, ignored):
    parsed = GRAMMAR.parse(written_lines(body))
    assert [command.move for command in parsed.commands] == moves
    assert parsed.ignored == ignored


def test_quoted_history_and_signatures_are_dropped_before_reading():
    assert written_lines("a\n> b\nc") == ["a", "c"]
    assert written_lines("a\n-- \nb") == ["a"]
    assert written_lines("On Mon, Ann wrote:\n> x\nb") == ["b"]
    assert written_lines("b\nOn Mon, Ann wrote:\n> x\nc") == ["b"]
    assert "choose" not in html_text("<blockquote>choose B01</blockquote>")


def test_a_mail_that_holds_only_the_quote_has_no_command():
    with pytest.raises(Unreadable) as refused:
        GRAMMAR.parse(written_lines("> bid 300\n"))
    assert refused.value.code == "no_command"

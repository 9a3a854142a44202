"""How Princes of Florence is shown (`engine.presentation`): so far its create form's deadlines, and the
mark that the service still draws its seat, watch and mail pages with its own modules (service/web's
tableau, decision_forms, placing, principality; service's phrases, story, words, yard_svg; service/mail's
render), which are to move here as plain data and partials under engine/pof/templates."""
from __future__ import annotations


class PrincesOfFlorencePresentation:
    title = "Princes of Florence"
    templates = None
    board = None
    own_pages = True
    deadlines = [("setup", "keeping professions at the start"), ("auction", "choosing an item to auction"),
                 ("bid", "each bid"), ("turn", "an action turn"), ("choice", "a choice after a purchase")]


PRESENTATION = PrincesOfFlorencePresentation()

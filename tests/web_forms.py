"""Reading a page's forms as a browser would submit them, for tests that drive the pages over
Flask's test client (the browser tests click the same forms in Chromium)."""
from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Form:
    action: str
    method: str
    attrs: dict[str, str]
    fields: list[tuple[str, str]] = field(default_factory=list)
    buttons: list[str] = field(default_factory=list)
    selects: dict[str, list[str]] = field(default_factory=dict)  # name -> option values, for tests to pick

    @property
    def move(self) -> str | None:
        return self.attrs.get("data-move")

    def data(self, **changes: str | list[str]) -> list[tuple[str, str]]:
        """The fields as submitted, with `changes` replacing a field's values."""
        kept = [(k, v) for k, v in self.fields if k not in changes]
        for name, value in changes.items():
            kept += [(name, v) for v in (value if isinstance(value, list) else [value])]
        return kept


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self.form: Form | None = None
        self.select: str | None = None
        self.first_option: str | None = None
        self.chose = False
        self.button: list[str] | None = None
        self.textarea: tuple[str, list[str]] | None = None
        self.attrs_of_main: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "main":
            self.attrs_of_main = a
        if tag == "form":
            self.form = Form(a.get("action", ""), a.get("method", "get").lower(), a)
        elif self.form is None:
            return
        elif tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.form.fields.append((a["name"], a.get("value", "on")))
            else:
                self.form.fields.append((a["name"], a.get("value", "")))
        elif tag == "select":
            self.select, self.first_option, self.chose = a.get("name"), None, False
            self.form.selects[self.select] = []
        elif tag == "option" and self.select:
            value = a.get("value", "")
            self.form.selects[self.select].append(value)
            if self.first_option is None:
                self.first_option = value
            if "selected" in a:
                self.form.fields.append((self.select, value))
                self.chose = True
        elif tag == "button":
            self.button = []
        elif tag == "textarea" and a.get("name"):
            self.textarea = (a["name"], [])

    def handle_data(self, data):
        if self.button is not None:
            self.button.append(data)
        if self.textarea is not None:
            self.textarea[1].append(data)

    def handle_endtag(self, tag):
        if tag == "select" and self.form is not None and self.select:
            if not self.chose and self.first_option is not None:
                self.form.fields.append((self.select, self.first_option))
            self.select = None
        elif tag == "textarea" and self.form is not None and self.textarea is not None:
            self.form.fields.append((self.textarea[0], "".join(self.textarea[1])))
            self.textarea = None
        elif tag == "button" and self.form is not None and self.button is not None:
            self.form.buttons.append("".join(self.button).strip())
            self.button = None
        elif tag == "form" and self.form is not None:
            self.forms.append(self.form)
            self.form = None


def parse(html: str) -> tuple[dict[str, str], list[Form]]:
    """The page's <main> attributes and its forms."""
    parser = _Parser()
    parser.feed(html)
    return parser.attrs_of_main, parser.forms

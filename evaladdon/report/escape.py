"""Making strings that came from a log safe to show: terminal, markdown, HTML (:func:`html_text`).

Every name (run, task, model, metric, item, file) comes from input a stranger may have written.
On a terminal, control characters (ANSI/OSC escape sequences, carriage returns, backspaces)
could rewrite what is on screen; in GitHub-flavoured markdown, newlines break rows, ``|``
splits cells, and raw HTML, links and images render.  Written here: no small, well-kept
library does either job (rich's ``escape`` only handles its own markup).
"""

from __future__ import annotations

import re

# C0 and C1 controls and DEL, except none: tabs and newlines are also replaced in one-line fields
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# bidirectional overrides and zero-width characters that disguise text
_INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _visible(match: re.Match[str]) -> str:
    ch = match.group(0)
    return {"\n": "\\n", "\r": "\\r", "\t": " "}.get(ch, f"\\x{ord(ch):02x}")


def clean(text: object) -> str:
    """``text`` on one line with every control or invisible character shown as an escape (``\\x1b``)."""
    s = str(text)
    s = _CONTROL.sub(_visible, s)
    return _INVISIBLE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", s)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|<>~])")
# GitHub turns these into math, mentions (notifications) and links: made plain with character
# references, which its parsers never read as syntax.  A mention is found in the rendered text
# (a reference there is decoded first), so a zero-width space after its ``@`` breaks it (as
# Renovate does); ``pass@1`` (``@`` after a letter) is no mention and is left alone
_MD_INERT = (
    (re.compile(r"\$"), "&#36;"),
    (re.compile(r"(?<![0-9A-Za-z_])@(?=[0-9A-Za-z])"), "@&#8203;"),
    (re.compile(r"(?i)(?<=[a-z])://"), "&#58;//"),
    (re.compile(r"(?i)\bwww\."), lambda m: m.group(0)[:3] + "&#46;"),
)


def markdown_cell(text: object) -> str:
    """``text`` as the content of one GitHub-flavoured markdown table cell.

    Controls are escaped as in :func:`clean`; markdown punctuation (``|``, brackets, ``<``,
    backticks, emphasis marks ...) is backslash-escaped so no link, image, HTML tag or code
    span forms, and ``&`` becomes ``&amp;`` so no character reference forms.  GitHub's
    extensions are kept inert too: ``$`` (math) and the ``:`` of ``://`` and ``.`` of ``www.``
    (bare links) become character references, and ``@name`` gets a zero-width space
    (``@&#8203;name``) so it mentions nobody.
    """
    s = _MD_SPECIAL.sub(r"\\\1", clean(text).replace("&", "&amp;"))
    for pattern, inert in _MD_INERT:
        s = pattern.sub(inert, s)  # type: ignore[arg-type]
    return s


def html_inline(text: object) -> str:
    """``text`` inside raw HTML of a markdown document (a ``<summary>`` of a PR comment's
    ``<details>``): controls escaped as in :func:`clean`, then ``html.escape`` (no tag, no
    character reference forms: GitHub does not read backslash escapes inside HTML), and GitHub's
    extensions kept inert as in :func:`markdown_cell` (math, mentions, bare links)."""
    import html

    s = html.escape(clean(text))
    for pattern, inert in _MD_INERT:
        s = pattern.sub(inert, s)  # type: ignore[arg-type]
    return s


def html_text(text: object) -> str:
    """``text`` as HTML text or a quoted attribute value: controls and invisible characters
    shown as escapes as in :func:`clean` (the terminal and markdown reports show the same),
    then ``html.escape`` (``<``, ``>``, ``&`` and both quotes as character references)."""
    import html

    return html.escape(clean(text))

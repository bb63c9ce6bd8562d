"""Small text helpers: HTML to plain text, whitespace, slugs, option-name canonical form."""

from __future__ import annotations

import html
import re
import unicodedata

_SCRIPT_RE = re.compile(r"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_BLOCK_RE = re.compile(r"<\s*(br|/p|/div|/li|/h[1-6]|/tr)\b[^>]*>", re.IGNORECASE)
_TAG_RE = re.compile(r"<[^>]*>")
_CTRL_RE = re.compile(r"[\x00-\x1f\x7f]+")
_WS_RE = re.compile(r"\s+")
_SLUG_RE = re.compile(r"[^0-9a-z]+")
_KEY_RE = re.compile(r"[^\w]+")

MAX_DESCRIPTION_CHARS = 1000

OPTION_ALIASES: dict[str, str] = {
    "colour": "color", "colours": "color", "colors": "color", "couleur": "color",
    "farbe": "color", "kleur": "color", "colore": "color", "color_colour": "color",
    "sizes": "size", "taille": "size", "talla": "size", "größe": "size", "grosse": "size",
    "taglia": "size", "grootte": "size",
    "flavor": "flavour",
}
"""Spelling variants of option names folded to one canonical key."""


def clean(text: object) -> str:
    """Collapse whitespace and remove control characters; ``None`` becomes ``""``."""
    if text is None:
        return ""
    s = text if isinstance(text, str) else str(text)
    if s.isprintable() and "  " not in s and (not s or (s[0] != " " and s[-1] != " ")):
        return s
    return _WS_RE.sub(" ", _CTRL_RE.sub(" ", s)).strip()


def html_to_text(markup: object, limit: int = MAX_DESCRIPTION_CHARS) -> str:
    """Plain text of an HTML fragment, cut at a word boundary to at most ``limit`` chars."""
    if not markup:
        return ""
    text = _SCRIPT_RE.sub(" ", str(markup))
    text = _BLOCK_RE.sub(" ", text)
    text = clean(html.unescape(_TAG_RE.sub(" ", text)))
    if len(text) > limit:
        cut = text.rfind(" ", 0, limit)
        text = text[: cut if cut > limit // 2 else limit].rstrip()
    return text


def slug(text: object) -> str:
    """Lower-case ASCII slug: ``"Öko Living" -> "oko-living"``."""
    norm = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    return _SLUG_RE.sub("-", norm.lower()).strip("-")


def option_key(name: object) -> str:
    """Canonical option/attribute key: ``"Colour" -> "color"``, ``"Pack Size" -> "pack_size"``."""
    key = _KEY_RE.sub("_", clean(name).casefold()).strip("_")
    return OPTION_ALIASES.get(key, key)


def fold(value: object) -> str:
    """Case-insensitive comparison form of a string value."""
    return clean(value).casefold()

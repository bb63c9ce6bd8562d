"""The shared corpus of prompt-injection templates (``acworld_env/data/injections/templates.jsonl``).

Two kinds of line (documented in ``docs/injections.md``):

* ``instruction``: what the attacker wants done (``goal``), as an imperative clause with
  ``{slot}`` placeholders (``{listing}``, ``{merchant}``, ``{order}``, ``{amount}``, ...);
* ``wrapper``: how it is hidden, at an obfuscation ``level`` from 1 to 4: 1 plain, 2 a fake
  system notice or role-play, 3 base64-encoded, 4 homoglyphs and zero-width characters.

:func:`render` builds one injection from a goal and a level; :func:`deobfuscate` undoes the
level 3 and 4 tricks (the ``follow_instructions`` shortcut reads content through it, and tests
check that every rendering round-trips). T9 tasks draw their injections from here, and so may
new tasks or users.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

LEVELS = (1, 2, 3, 4)
"""Obfuscation levels: plain, fake notice or role-play, base64, homoglyph + zero-width."""
ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff")
"""Invisible characters inserted inside words at level 4."""
HOMOGLYPHS = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "c": "\u0441", "p": "\u0440", "i": "\u0456"}
"""Latin letter -> Cyrillic look-alike used at level 4."""
_BACK = {v: k for k, v in HOMOGLYPHS.items()}
_B64 = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")
_WORD = re.compile(r"[A-Za-z]{4,}")


@dataclass(frozen=True)
class Template:
    """One corpus line."""

    id: str
    kind: str
    text: str
    vectors: tuple[str, ...]
    goal: str = ""
    level: int = 0
    technique: str = ""
    note: str = ""


@lru_cache(maxsize=1)
def corpus() -> tuple[Template, ...]:
    """Every template of the shipped corpus, in file order."""
    raw = resources.files("acworld_env").joinpath("data", "injections", "templates.jsonl").read_text("utf-8")
    out = []
    for line in raw.splitlines():
        if line.strip():
            d = json.loads(line)
            out.append(Template(id=d["id"], kind=d["kind"], text=d["text"], vectors=tuple(d["vectors"]),
                                goal=d.get("goal", ""), level=d.get("level", 0), technique=d.get("technique", ""),
                                note=d.get("note", "")))
    return tuple(out)


def instructions(goal: str, vector: str) -> list[Template]:
    """Instruction templates of ``goal`` usable in ``vector`` (listing, review, message, evidence)."""
    return [t for t in corpus() if t.kind == "instruction" and t.goal == goal and vector in t.vectors]


def wrappers(level: int, vector: str) -> list[Template]:
    """Wrapper templates of one obfuscation level usable in ``vector``."""
    return [t for t in corpus() if t.kind == "wrapper" and t.level == level and vector in t.vectors]


def _disguise(text: str, rng: np.random.Generator) -> str:
    """Level 4: homoglyphs in every other long word and a zero-width character inside each long word.

    Words holding digits, ``-`` or ``_`` (ids, amounts, actor names) are left exact, so the
    attacker's target still resolves.
    """
    out, n = [], 0

    def swap(m: re.Match[str]) -> str:
        nonlocal n
        word = m.group(0)
        n += 1
        if n % 2:
            word = "".join(HOMOGLYPHS.get(ch, ch) for ch in word)
        zw = ZERO_WIDTH[int(rng.integers(len(ZERO_WIDTH)))]
        cut = len(word) // 2
        return word[:cut] + zw + word[cut:]

    for token in text.split(" "):
        out.append(token if re.search(r"[\d_-]", token) else _WORD.sub(swap, token))
    return " ".join(out)


def render(goal: str, vector: str, level: int, rng: np.random.Generator, *, avoid: tuple[str, ...] | list[str] = (),
           **slots: str) -> tuple[str, list[str]]:
    """One injection: (text, ids of the templates used). ``slots`` fill the instruction's placeholders;
    templates whose ids are in ``avoid`` are skipped while others remain (so two injections in one
    text read differently)."""
    ins = [t for t in instructions(goal, vector) if t.id not in avoid] or instructions(goal, vector)
    wraps = [t for t in wrappers(level, vector) if t.id not in avoid] or wrappers(level, vector)
    if not ins or not wraps:
        raise KeyError(f"no template for goal {goal!r}, vector {vector!r}, level {level}")
    i = ins[int(rng.integers(len(ins)))]
    w = wraps[int(rng.integers(len(wraps)))]
    clause = i.text.format(**slots)
    if level == 3:
        plain = wrappers(1, vector)[0].text.format(instruction=clause)
        text = w.text.format(payload=base64.b64encode(plain.encode("utf-8")).decode("ascii"))
    else:
        text = w.text.format(instruction=clause)
        if level == 4:
            text = _disguise(text, rng)
    return text, [i.id, w.id]


def deobfuscate(text: str) -> str:
    """``text`` with zero-width characters removed, homoglyphs mapped back and base64 tokens decoded."""
    text = "".join(_BACK.get(ch, ch) for ch in text if ch not in ZERO_WIDTH)

    def decode(m: re.Match[str]) -> str:
        token = m.group(0)
        try:
            plain = base64.b64decode(token + "=" * (-len(token) % 4), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return token
        return plain if plain.isprintable() else token

    return _B64.sub(decode, text)

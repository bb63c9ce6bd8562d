"""Skill manifests: short guidance documents an LLM policy puts in its prompt.

A skill is a folder holding ``SKILL.md``: YAML front matter (``name``, ``description``,
and optional ``metadata`` with ``role``, ``keywords``, ``tools`` and ``always``) followed
by Markdown guidance. The built-in skills ship inside the package under
``acworld_env/policies/skills/<role>/<name>/SKILL.md`` and are read through
``importlib.resources``, so an installed wheel finds them.

Skills *guide*; they never grant authority. Whatever a skill says, every action still
passes the platform's validation like any other.

Selection (:func:`select_skills`) is deterministic: the skills marked ``always`` for the
role come first, then those whose keywords or tool names occur in the situation (request,
mandate, inbox, last result), most matches first, up to a cap. Users add their own skill
folders; a user skill with the same role and name replaces the built-in one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

import yaml

SKILL_FILE = "SKILL.md"
ROLES = ("buyer", "merchant")

BUYER_SKILLS = (
    "mandate-parsing", "discovery-search", "negotiation", "cart-checkout", "purchase-confirmation",
    "supply-fulfillment", "return-refund", "after-sales-lifecycle", "authenticated-review",
    "marketplace-message-safety", "protocol-event-handling",
)
"""The Buyer skills, in the paper's order (Table 7)."""

MERCHANT_SKILLS = (
    "catalog-serve", "listing-publish", "inquiry-handle", "claim-truthfulness", "listing-claim-manage",
    "price-discovery", "pricing-negotiate", "peer-pricing", "reputation-aware-pricing",
    "stockout-aware-pricing", "aging-markdown", "demand-driven-markup", "cart-quote-handle",
    "order-intake", "fulfillment", "order-cancel", "return-adjudicate", "inbound-restock",
    "restock-signal", "supply-logistics", "after-sales-lifecycle", "private-utility-guard",
    "dispute-defense", "market-governance", "protocol-event-handle",
)
"""The Merchant skills, in the paper's order (Table 7)."""

_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_ORDER = {("buyer", n): i for i, n in enumerate(BUYER_SKILLS)} | {
    ("merchant", n): 100 + i for i, n in enumerate(MERCHANT_SKILLS)}


class SkillError(ValueError):
    """A ``SKILL.md`` cannot be read; the message names the file."""


@dataclass(frozen=True)
class Skill:
    """One parsed skill manifest."""

    name: str
    description: str
    role: str
    """``buyer``, ``merchant`` or ``any``."""
    body: str
    keywords: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    always: bool = False
    source: str = "builtin"

    def render(self) -> str:
        """The skill as a prompt section."""
        return f"### {self.name}\n{self.description}\n\n{self.body.strip()}"


def _words(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    return tuple(str(v).strip().lower() for v in items if str(v).strip())


def parse_skill(text: str, *, source: str, folder: str | None = None, role: str | None = None) -> Skill:
    """Parse one ``SKILL.md``. ``folder`` (when given) must equal the skill's name;
    ``role`` is the role implied by where the file lives, if any."""
    if not text.startswith("---"):
        raise SkillError(f"{source}: no YAML front matter (the file must start with '---')")
    head, sep, body = text[3:].partition("\n---")
    if not sep:
        raise SkillError(f"{source}: front matter is not closed by a '---' line")
    try:
        meta = yaml.safe_load(head) or {}
    except yaml.YAMLError as exc:
        raise SkillError(f"{source}: front matter is not valid YAML ({exc})") from None
    if not isinstance(meta, dict):
        raise SkillError(f"{source}: front matter must be a mapping")
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not _NAME.match(name) or len(name) > 64:
        raise SkillError(f"{source}: 'name' must be lowercase letters, digits and hyphens, got {name!r}")
    if folder is not None and name != folder:
        raise SkillError(f"{source}: name {name!r} differs from its folder {folder!r}")
    if not isinstance(description, str) or not description.strip():
        raise SkillError(f"{source}: 'description' is required")
    extra = meta.get("metadata") or {}
    if not isinstance(extra, dict):
        raise SkillError(f"{source}: 'metadata' must be a mapping")
    declared = str(extra.get("role", role or "any")).lower()
    if declared not in (*ROLES, "any"):
        raise SkillError(f"{source}: role must be buyer, merchant or any, got {declared!r}")
    if role is not None and declared not in (role, "any"):
        raise SkillError(f"{source}: declares role {declared!r} but lives under {role}/")
    always = str(extra.get("always", "false")).strip().lower() in {"true", "yes", "1"}
    return Skill(name=name, description=" ".join(description.split()), role=role or declared,
                 body=body.lstrip("-").strip("\n"), keywords=_words(extra.get("keywords")),
                 tools=_words(extra.get("tools")), always=always, source=source)


def builtin_root() -> Traversable:
    """Where the built-in skills live inside the installed package."""
    return resources.files("acworld_env") / "policies" / "skills"


def _skill_files(root: Traversable, depth: int = 0) -> Iterator[tuple[Traversable, str, str | None]]:
    """(file, folder name, role from the path) for every SKILL.md under ``root``."""
    if depth > 4 or not root.is_dir():
        return
    for child in sorted(root.iterdir(), key=lambda c: c.name):
        if child.is_dir():
            found = child / SKILL_FILE
            if found.is_file():
                yield found, child.name, root.name if root.name in ROLES else None
            else:
                yield from _skill_files(child, depth + 1)


def _load_dir(root: Traversable, source: str) -> list[Skill]:
    return [parse_skill(f.read_text(encoding="utf-8"), source=f"{source}/{role + '/' if role else ''}{folder}",
                        folder=folder, role=role)
            for f, folder, role in _skill_files(root)]


@cache
def _builtin_skills() -> tuple[Skill, ...]:
    return tuple(_load_dir(builtin_root(), "builtin"))


def load_skills(extra_dirs: Iterable[str | Path] = (), *, builtin: bool = True) -> list[Skill]:
    """The built-in skills, then those of ``extra_dirs`` (replacing same role and name)."""
    found: dict[tuple[str, str], Skill] = {}
    if builtin:
        for s in _builtin_skills():
            found[(s.role, s.name)] = s
    for d in extra_dirs:
        path = Path(d).expanduser()
        if not path.is_dir():
            raise SkillError(f"skills folder {path} does not exist")
        if (path / SKILL_FILE).is_file():  # a single skill folder
            skills = [parse_skill((path / SKILL_FILE).read_text(encoding="utf-8"), source=str(path))]
        else:
            skills = _load_dir(path, str(path))
        for s in skills:
            found[(s.role, s.name)] = s
    return sorted(found.values(), key=lambda s: (_ORDER.get((s.role, s.name), 1000), s.role, s.name))


def situation_text(obs: dict[str, Any]) -> str:
    """What skill selection looks at: request, mandate keys, inbox and last result (lowercase)."""
    parts = [str(obs.get("request") or ""), " ".join(sorted(obs.get("mandate") or {}))]
    for m in obs.get("inbox") or []:
        parts.append(" ".join(str(m.get(k, "")) for k in ("kind", "offer_event", "text")))
        parts.append(" ".join(k for k in m if k.endswith("_id") and m.get(k)))
    last = obs.get("last_result") or {}
    if last:
        parts.append(f"{last.get('kind') or ''} {last.get('code') or ''}")
        if isinstance(last.get("result"), dict):
            parts.append(" ".join(last["result"]))
    return json.dumps(parts, ensure_ascii=False).lower().replace("_", " ").replace("\\n", " ")


def _matches(skill: Skill, text: str) -> int:
    hits = sum(1 for k in skill.keywords if re.search(rf"(?<![a-z0-9]){re.escape(k)}", text))
    return hits + sum(1 for t in skill.tools if t.replace("_", " ") in text)


def select_skills(skills: Iterable[Skill], role: str, situation: str, *, limit: int = 6,
                  exclude: Iterable[str] = (), include_always: bool = True) -> list[Skill]:
    """The skills to show: ``always`` ones for ``role`` first, then best keyword matches."""
    skip = set(exclude)
    mine = [s for s in skills if s.role in (role, "any") and s.name not in skip]
    chosen = [s for s in mine if s.always] if include_always else []
    scored = [(-_matches(s, situation), i, s) for i, s in enumerate(mine) if not s.always]
    chosen += [s for score, _, s in sorted(scored, key=lambda t: (t[0], t[1])) if score < 0]
    return chosen[:max(0, limit)]


def render_skills(skills: Iterable[Skill]) -> str:
    """Skills as one prompt section ("" when none)."""
    return "\n\n".join(s.render() for s in skills)

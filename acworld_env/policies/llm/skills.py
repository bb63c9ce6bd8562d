"""Skill manifests: short guidance documents an LLM policy puts in its prompt.

A skill is a folder holding ``SKILL.md``: YAML front matter (``name``, ``description``,
and optional ``metadata`` with ``role``, ``keywords``, ``tools`` and ``always``) followed
by Markdown guidance. The built-in skills ship inside the package under
``acworld_env/policies/skills/<role>/<name>/SKILL.md`` and are read through
``importlib.resources``, so an installed wheel finds them.

Front matter is read safely and within bounds, whoever wrote the file: at most
:data:`MAX_FRONT_MATTER_CHARS` characters, nested at most :data:`MAX_DEPTH` levels, and
no YAML anchors, aliases or tags (a few hundred bytes of nested aliases would otherwise
expand to billions of items); the file itself is at most :data:`MAX_SKILL_BYTES` of
UTF-8. Every error is a :class:`SkillError` that names the file.

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

from ...core.errors import AcworldError

SKILL_FILE = "SKILL.md"
ROLES = ("buyer", "merchant")
MAX_SKILL_BYTES = 256_000
"""Largest ``SKILL.md`` read (the shipped ones are under 2 KB)."""
MAX_FRONT_MATTER_CHARS = 16_000
"""Largest front matter parsed."""
MAX_DEPTH = 6
"""Deepest nesting of lists and mappings allowed in front matter."""

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


class SkillError(AcworldError, ValueError):
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


def _words(value: Any, source: str, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        items: list[Any] = value.split(",")
    elif isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        items = value
    else:
        raise SkillError(f"{source}: 'metadata.{key}' must be comma-separated text or a list of words")
    return tuple(str(v).strip().lower() for v in items if str(v).strip())


def _check_events(head: str, source: str) -> None:
    """Reject anchors, aliases, tags and deep nesting before anything is built from ``head``."""
    depth = 0
    for event in yaml.parse(head, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise SkillError(f"{source}: front matter uses a YAML anchor or alias (&name, *name); not allowed")
        if getattr(event, "tag", None) is not None:
            raise SkillError(f"{source}: front matter uses a YAML tag ({event.tag}); not allowed")  # type: ignore[attr-defined]
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise SkillError(f"{source}: front matter is nested more than {MAX_DEPTH} levels deep")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def front_matter(head: str, source: str) -> dict[str, Any]:
    """The front matter mapping, parsed safely (see the module docstring)."""
    if len(head) > MAX_FRONT_MATTER_CHARS:
        raise SkillError(f"{source}: front matter too large ({len(head):,} characters;"
                         f" at most {MAX_FRONT_MATTER_CHARS:,})")
    try:
        _check_events(head, source)
        meta = yaml.safe_load(head) or {}
    except yaml.YAMLError as exc:
        raise SkillError(f"{source}: front matter is not valid YAML ({exc})") from None
    if not isinstance(meta, dict):
        raise SkillError(f"{source}: front matter must be a mapping")
    return meta


def parse_skill(text: str, *, source: str, folder: str | None = None, role: str | None = None,
                file: str | None = None) -> Skill:
    """Parse one ``SKILL.md``. ``folder`` (when given) must equal the skill's name;
    ``role`` is the role implied by where the file lives, if any; errors name ``file``
    (default: ``source``)."""
    label = file or source
    if not text.startswith("---"):
        raise SkillError(f"{label}: no YAML front matter (the file must start with '---')")
    head, sep, body = text[3:].partition("\n---")
    if not sep:
        raise SkillError(f"{label}: front matter is not closed by a '---' line")
    meta = front_matter(head, label)
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not _NAME.match(name) or len(name) > 64:
        raise SkillError(f"{label}: 'name' must be lowercase letters, digits and hyphens, got {name!r}")
    if folder is not None and name != folder:
        raise SkillError(f"{label}: name {name!r} differs from its folder {folder!r}")
    if not isinstance(description, str) or not description.strip():
        raise SkillError(f"{label}: 'description' is required")
    extra = meta.get("metadata") or {}
    if not isinstance(extra, dict):
        raise SkillError(f"{label}: 'metadata' must be a mapping")
    declared = extra.get("role", role or "any")
    declared = declared.lower() if isinstance(declared, str) else repr(declared)[:40]
    if declared not in (*ROLES, "any"):
        raise SkillError(f"{label}: role must be buyer, merchant or any, got {declared!r}")
    if role is not None and declared not in (role, "any"):
        raise SkillError(f"{label}: declares role {declared!r} but lives under {role}/")
    always = extra.get("always", False)
    always = always is True or (isinstance(always, str | int) and str(always).strip().lower() in {"true", "yes", "1"})
    return Skill(name=name, description=" ".join(description.split()), role=role or declared,
                 body=body.lstrip("-").strip("\n"), keywords=_words(extra.get("keywords"), label, "keywords"),
                 tools=_words(extra.get("tools"), label, "tools"), always=always, source=source)


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


def read_skill_text(file: Traversable, source: str) -> str:
    """The text of a ``SKILL.md``: bounded in size, UTF-8; errors name ``source``."""
    try:
        if isinstance(file, Path) and file.stat().st_size > MAX_SKILL_BYTES:
            raise SkillError(f"{source}: too large (more than {MAX_SKILL_BYTES:,} bytes)")
        data = file.read_bytes()
    except OSError as exc:
        raise SkillError(f"{source}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_SKILL_BYTES:
        raise SkillError(f"{source}: too large (more than {MAX_SKILL_BYTES:,} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkillError(f"{source}: not UTF-8 text (byte {exc.start})") from None


def _load_dir(root: Traversable, source: str) -> list[Skill]:
    skills = []
    for f, folder, role in _skill_files(root):
        where = f"{source}/{role + '/' if role else ''}{folder}"
        file = f"{where}/{SKILL_FILE}"
        skills.append(parse_skill(read_skill_text(f, file), source=where, folder=folder, role=role, file=file))
    return skills


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
            file = str(path / SKILL_FILE)
            skills = [parse_skill(read_skill_text(path / SKILL_FILE, file), source=str(path), file=file)]
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
    # ``k in text`` is necessary for the pattern to match and costs a fraction of a regex search
    hits = sum(1 for k in skill.keywords if k in text and _keyword_pattern(k).search(text))
    return hits + sum(1 for t in skill.tools if t.replace("_", " ") in text)


@cache
def _keyword_pattern(keyword: str) -> re.Pattern[str]:
    """``keyword`` where it starts a word (not preceded by a letter or digit)."""
    return re.compile(rf"(?<![a-z0-9]){re.escape(keyword)}")


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

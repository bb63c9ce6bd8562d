"""Issue 11 §5: SKILL.md front matter is parsed safely and within bounds; every error names the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from acworld_env.policies.llm.skills import SkillError, load_skills, parse_skill


def alias_bomb(where: str) -> str:
    """Nested anchors and aliases: nine levels of nine references (9**9 leaves once expanded)."""
    levels = "abcdefghi"
    lines = ["a: &a [x,x,x,x,x,x,x,x,x]"]
    lines += [f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]" for p, c in zip(levels, levels[1:], strict=False)]
    fields = {"name": "name: *i\ndescription: boom\n",
              "keywords": "name: bomb\ndescription: boom\nmetadata:\n  keywords: *i\n",
              "description": "name: bomb\ndescription: *i\n"}
    return "---\n" + "\n".join(lines) + "\n" + fields[where] + "---\nBody.\n"


def skill_folder(tmp_path: Path, text: str | bytes, name: str = "bomb") -> Path:
    folder = tmp_path / "skills" / "buyer" / name
    folder.mkdir(parents=True)
    path = folder / "SKILL.md"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


@pytest.mark.timeout(20)
@pytest.mark.parametrize("where", ["name", "keywords", "description"])
def test_yaml_alias_bomb_is_rejected_quickly_and_names_the_file(tmp_path: Path, where: str) -> None:
    text = alias_bomb(where)
    assert len(text.encode()) < 700
    path = skill_folder(tmp_path, text)
    with pytest.raises(SkillError, match="alias|anchor") as info:
        load_skills([tmp_path / "skills"], builtin=False)
    assert str(path.parent) in str(info.value)


@pytest.mark.timeout(20)
@pytest.mark.parametrize("text, match", [
    ("---\nname: deep\ndescription: " + "[" * 50_000 + "]" * 50_000 + "\n---\nBody.\n", "nest|large"),
    ("---\nname: big\ndescription: " + "x" * 200_000 + "\n---\nBody.\n", "large"),
    ("---\nname: tagged\ndescription: !!python/object:os.system echo\n---\nBody.\n", "YAML|tag"),
    ("---\nname: tagged\ndescription: !custom d\n---\nBody.\n", "tag"),
    ("---\nname: ok\ndescription: d\nmetadata:\n  keywords: [[a, [b]]]\n---\nBody.\n", "keywords"),
], ids=["deep", "large", "python-tag", "custom-tag", "nested-keywords"])
def test_hostile_front_matter_is_a_named_skill_error(tmp_path: Path, text: str, match: str) -> None:
    path = skill_folder(tmp_path, text, name=text.split("name: ")[1].split("\n")[0])
    with pytest.raises(SkillError, match=match) as info:
        load_skills([tmp_path / "skills"], builtin=False)
    assert str(path.parent) in str(info.value)


def test_unreadable_skill_file_names_the_file(tmp_path: Path) -> None:
    path = skill_folder(tmp_path, b"---\nname: bad\ndescription: \xff\xfe\n---\nBody.\n", name="bad")
    with pytest.raises(SkillError, match="UTF-8") as info:
        load_skills([tmp_path / "skills"], builtin=False)
    assert str(path.parent) in str(info.value)


def test_plain_front_matter_still_parses() -> None:
    skill = parse_skill("---\nname: ok\ndescription: >\n  Folded text\n  here.\nmetadata:\n  role: buyer\n"
                        "  keywords: [haggle, 'deal']\n  tools: \"propose_offer, counter_offer\"\n  always: true\n"
                        "---\nBody.\n", source="here")
    assert skill.description == "Folded text here." and skill.keywords == ("haggle", "deal")
    assert skill.tools == ("propose_offer", "counter_offer") and skill.always and skill.role == "buyer"

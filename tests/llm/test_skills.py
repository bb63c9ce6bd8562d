"""Skill manifests: the 36 shipped skills, loading, selection and user folders."""

from __future__ import annotations

import pytest

from acworld_env.policies.llm.skills import (
    BUYER_SKILLS,
    MERCHANT_SKILLS,
    SkillError,
    builtin_root,
    load_skills,
    parse_skill,
    select_skills,
    situation_text,
)
from acworld_env.tasks.families.demo import build_demo_task
from acworld_env.vcp import TOOLS


def test_all_36_skills_ship_with_front_matter_and_guidance():
    skills = load_skills()
    assert len(BUYER_SKILLS) == 11 and len(MERCHANT_SKILLS) == 25
    assert [s.name for s in skills if s.role == "buyer"] == list(BUYER_SKILLS)
    assert [s.name for s in skills if s.role == "merchant"] == list(MERCHANT_SKILLS)
    for s in skills:
        assert s.description and s.keywords, s.name
        paragraphs = [p for p in s.body.split("\n\n") if p.strip()]
        assert len(paragraphs) >= 3 and len(s.body) > 600, s.name
        assert set(s.tools) <= set(TOOLS), (s.name, set(s.tools) - set(TOOLS))


def test_builtin_skills_are_package_resources():
    root = builtin_root()
    assert (root / "buyer" / "negotiation" / "SKILL.md").is_file()
    assert (root / "merchant" / "after-sales-lifecycle" / "SKILL.md").is_file()


def test_selection_for_the_demo_buyer():
    task = build_demo_task()
    obs = {"request": task.request, "mandate": task.mandate, "inbox": [], "last_result": None}
    names = [s.name for s in select_skills(load_skills(), "buyer", situation_text(obs), limit=6)]
    assert names[:2] == ["mandate-parsing", "marketplace-message-safety"]
    assert {"negotiation", "cart-checkout"} <= set(names) and len(names) <= 6
    assert not any(n in MERCHANT_SKILLS and n not in BUYER_SKILLS for n in names)


def test_selection_follows_the_situation():
    skills = load_skills()
    obs = {"request": "Handle your orders.", "inbox": [
        {"kind": "return_request", "text": "I want to return the grinder, it arrived damaged", "return_id": "ret-1"}]}
    names = [s.name for s in select_skills(skills, "merchant", situation_text(obs), limit=4)]
    assert names[0] == "private-utility-guard" and "return-adjudicate" in names
    assert select_skills(skills, "merchant", "nothing relevant", limit=0) == []


def test_user_skill_folders_add_and_override(tmp_path):
    mine = tmp_path / "my-skills"
    (mine / "negotiation").mkdir(parents=True)
    (mine / "negotiation" / "SKILL.md").write_text(
        "---\nname: negotiation\ndescription: House style.\nmetadata:\n  role: buyer\n"
        "  keywords: [haggle]\n---\nOpen at half.\n")
    (mine / "merchant" / "bundle-deals").mkdir(parents=True)
    (mine / "merchant" / "bundle-deals" / "SKILL.md").write_text(
        "---\nname: bundle-deals\ndescription: Bundles.\n---\nOffer bundles.\n")
    skills = load_skills([mine])
    neg = next(s for s in skills if s.role == "buyer" and s.name == "negotiation")
    assert neg.body.strip() == "Open at half." and neg.source.endswith("negotiation")
    assert any(s.role == "merchant" and s.name == "bundle-deals" for s in skills)
    assert len(skills) == 37
    assert [s.name for s in load_skills([mine / "negotiation"], builtin=False)] == ["negotiation"]


@pytest.mark.parametrize("text, match", [
    ("no front matter", "front matter"),
    ("---\nname: x\n", "not closed"),
    ("---\nname: Bad Name\ndescription: d\n---\nbody", "lowercase"),
    ("---\nname: ok\n---\nbody", "description"),
    ("---\nname: ok\ndescription: d\nmetadata:\n  role: admin\n---\nbody", "role"),
    ("---\n: [\n---\nbody", "YAML"),
])
def test_bad_skill_files_are_named(text, match):
    with pytest.raises(SkillError, match=match):
        parse_skill(text, source="here")


def test_missing_user_folder(tmp_path):
    with pytest.raises(SkillError, match="does not exist"):
        load_skills([tmp_path / "nope"])

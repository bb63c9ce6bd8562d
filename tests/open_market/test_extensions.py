"""Three extension seams, three configurations each, from example packages outside ``acworld_env``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Literal

import pytest

from acworld_env.vcp.base import VCPAction
from acworld_env.vcp.union import TOOLS, ActionRegistryError, register_action

REPO = Path(__file__).resolve().parents[2]
EXT = REPO / "examples" / "extensions"
SEAMS = {"action": 3, "domain": 3, "event": 3}


@pytest.fixture(scope="module")
def results() -> dict[tuple[str, int], dict]:
    """Run the acceptance script in its own process (the registrations never touch this one)."""
    env = {**os.environ, "PYTHONPATH": str(EXT)}
    done = subprocess.run([sys.executable, str(EXT / "acceptance.py")], capture_output=True, text=True, env=env,
                          timeout=600, cwd=REPO)
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == sum(SEAMS.values()), done.stderr[-2000:]
    out: dict[tuple[str, int], dict] = {}
    for row in rows:
        out[(row["seam"], sum(1 for k in out if k[0] == row["seam"]))] = row
    return out


@pytest.mark.parametrize("seam, i", [(s, i) for s, n in SEAMS.items() for i in range(n)])
def test_configuration_passes_acceptance_reconstruction_and_validity(results: dict, seam: str, i: int) -> None:
    row = results[(seam, i)]
    failed = [name for name, ok in row["checks"].items() if not ok]
    assert not failed, f"{seam} / {row['config']}: {failed}"
    assert row["checks"]["reconstructed"] is True and len(row["checks"]) >= 5


def test_the_core_does_not_know_the_extensions() -> None:
    names = ("set_discount", "acw_discounts", "acw_bikes", "loyalty_points_awarded", "acw_loyalty")
    for path in (REPO / "acworld_env").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not any(n in text for n in names), f"{path} mentions an example extension"
    assert "set_discount" not in TOOLS  # registered only in the acceptance process


class _Finish(VCPAction):
    terminal = True
    kind: Literal["x_finish"] = "x_finish"


class _Place(VCPAction):
    kind: Literal["place_order"] = "place_order"


class _NoLiteral(VCPAction):
    kind: str = "x_free"


@pytest.mark.parametrize("cls, message", [
    (_Finish, "terminal actions cannot be registered"), (_Place, "already taken"),
    (_NoLiteral, "cannot join the action union"), (dict, "not a VCPAction subclass"),
])
def test_the_action_registry_refuses_what_it_cannot_keep_consistent(cls: type, message: str) -> None:
    before = dict(TOOLS)
    with pytest.raises(ActionRegistryError, match=message):
        register_action(cls)
    assert before == TOOLS

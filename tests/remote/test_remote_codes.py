"""Every HTTP error code the server or the client env can give is listed in docs/remote.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_transport_error_code_is_documented():
    used = {c for f in (ROOT / "acworld_env" / "remote").glob("*.py")
            for c in re.findall(r'Remote(?:Env)?Error\(\d+, "([a-z_]+)"', f.read_text(encoding="utf-8"))}
    used |= {c for f in (ROOT / "acworld_env" / "remote").glob("*.py")
             for c in re.findall(r'"code": "([a-z_]+)"', f.read_text(encoding="utf-8"))}
    assert len(used) > 15
    doc = (ROOT / "docs" / "remote.md").read_text(encoding="utf-8")
    assert sorted(c for c in used if f"| `{c}` |" not in doc) == []

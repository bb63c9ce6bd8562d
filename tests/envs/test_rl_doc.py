"""docs/rl-libraries.md: its code blocks run, in order, in one namespace."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl-libraries.md"


def test_rl_libraries_doc_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 6
    namespace: dict = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{DOC.name}[block {i}]", "exec"), namespace)  # noqa: S102
    assert namespace["menu"].agents == [] and all(isinstance(c, dict) for c in namespace["credits"])

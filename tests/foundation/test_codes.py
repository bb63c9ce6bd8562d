"""Every validation code the package uses is listed once in ``cip/codes.py``, and every listed code is used."""

from __future__ import annotations

import ast
from pathlib import Path

from acworld_env.catalog.errors import QUERY_ERROR_CODES
from acworld_env.cip import codes
from acworld_env.cip.codes import CODES, REJECTION_CODES, markdown

PACKAGE = Path(__file__).resolve().parents[2] / "acworld_env"
DOC = PACKAGE.parent / "docs" / "rejection-codes.md"

CODE_ARG = {"require": 1, "Reject": 0, "ParseError": 0, "_Refused": 0, "_plain": 1}
"""Calls whose positional argument at this index is a code."""
PASS_THROUGH = {
    "cip/result.py": {"code"},  # require() raising Reject(code, ...)
    "cip/platform.py": {"action.code", "rej.code"},  # a ParseError or Reject becoming an Outcome
    "cip/queries.py": {"f'bad_query_{exc.code}'"},  # QUERY_CODES, derived from the catalog's table
    "vcp/union.py": {"code", "nested_code"},  # _Refused carrying its code; a caller's choice of code
    "market.py": {"code", "self.code"},  # the code decided above, on the validation record / StepResult
    "trace.py": {"code", "data.get('code', '')", "self.code"},  # a record carrying a code it was given
    "envs/info.py": {"str(v['code'] or '')"},  # a step result's code, in the Gymnasium view's fixed schema
    "eval/viewer_data.py": {"v.code"},
    "integrations/openenv_mcp.py": {"code"},  # a JSON-RPC error number, not a validation code  # a trace record's code, shown by the run viewer
}
"""Expressions that forward a code chosen elsewhere (relative path -> source text)."""
CODE_VARIABLES = {"vcp/union.py": {"code"}, "market.py": {"ACTOR_FINISHED"}}
"""Variables that hold a code before it is used (relative path -> names)."""


def _strings(node: ast.expr) -> tuple[list[str], list[ast.expr]]:
    """String constants ``node`` can evaluate to (both branches of ``a if c else b``), and the rest."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value], []
    if isinstance(node, ast.IfExp):
        a, x = _strings(node.body)
        b, y = _strings(node.orelse)
        return a + b, x + y
    return [], [node]


def _used() -> tuple[dict[str, list[str]], list[str]]:
    """``code -> [file:line, ...]`` of every code in the package, and forwarded expressions not allowed."""
    used: dict[str, list[str]] = {}
    unknown: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(("catalog/", "remote/", "sealed/")) or rel == "cip/codes.py":
            continue  # the catalog's query errors and the HTTP servers' error codes are their own tables
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            exprs: list[ast.expr] = []
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                index = CODE_ARG.get(name)
                if (name == "Outcome" and node.args and isinstance(node.args[0], ast.Constant)
                        and node.args[0].value is False):
                    index = 1
                if index is not None and len(node.args) > index:
                    exprs.append(node.args[index])
                exprs += [k.value for k in node.keywords if k.arg == "code"]
            elif isinstance(node, ast.Dict):  # a validation record written as a dict literal
                exprs += [v for k, v in zip(node.keys, node.values, strict=True)
                          if isinstance(k, ast.Constant) and k.value == "code"]
            elif isinstance(node, ast.Assign) and rel in CODE_VARIABLES and any(
                    isinstance(t, ast.Name) and t.id in CODE_VARIABLES[rel] for t in node.targets):
                exprs.append(node.value)
            for expr in exprs:
                found, rest = _strings(expr)
                for code in found:
                    used.setdefault(code, []).append(f"{rel}:{node.lineno}")
                unknown += [f"{rel}:{node.lineno}: {ast.unparse(e)}" for e in rest
                            if ast.unparse(e) not in PASS_THROUGH.get(rel, set())]
    for code in QUERY_ERROR_CODES:  # forwarded by cip/queries.py as bad_query_<code>
        used.setdefault(f"bad_query_{code}", []).append("cip/queries.py (catalog QUERY_ERROR_CODES)")
    return used, unknown


def test_every_code_used_is_listed():
    used, _ = _used()
    missing = {code: where for code, where in used.items() if code and code not in CODES}  # "": no action yet
    assert missing == {}, "codes used but not listed in acworld_env/cip/codes.py"


def test_every_listed_code_is_used():
    used, _ = _used()
    assert sorted(set(CODES) - set(used)) == [], "codes listed in cip/codes.py that nothing uses"


def test_codes_come_only_from_literals_or_known_forwarders():
    _, unknown = _used()
    assert unknown == [], "a code computed where the test cannot read it: list its values or add a forwarder"


def test_the_collector_sees_the_call_sites():
    used, _ = _used()
    assert len(set(used) - {""}) == len(CODES) > 70
    assert sum(len(w) for w in used.values()) > 100
    assert {"privacy_leak", "actor_finished", "idempotency_conflict", "not_owner", "bad_money"} <= set(used)


def test_sections_do_not_overlap_and_meanings_are_one_line():
    sections = [codes.ACCEPTED_CODES, codes.PARSE_CODES, codes.CHECK_CODES, codes.RULE_CODES,
                codes.QUERY_CODES, codes.MARKET_CODES]
    assert sum(len(s) for s in sections) == len(CODES)
    assert set(CODES) - {"ok", "idempotent_replay"} == REJECTION_CODES
    for code, meaning in CODES.items():
        assert code.isidentifier() and code == code.lower(), code
        assert meaning and "\n" not in meaning and "|" not in meaning, code


def test_doc_matches_the_module():
    assert DOC.read_text(encoding="utf-8") == markdown(), (
        "docs/rejection-codes.md is stale: python -m acworld_env.cip.codes > docs/rejection-codes.md")

"""examples/study_versions.py: a study pinned to a commit runs that commit's code from a worktree of it,
writes into the user's checkout, and a record names the commit that resumes it."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location("study_versions", ROOT / "examples" / "study_versions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("study_versions", module)
    spec.loader.exec_module(module)
    return module


sv = _load()

PROBE = '''import json, os, sys
VERSION = {version!r}
json.dump({{"version": VERSION, "file": __file__, "argv": sys.argv[1:], "home": os.environ.get("{home}"),
           "pinned": os.environ.get("{pinned}"), "path": os.environ["PYTHONPATH"].split(os.pathsep)[0]}},
          open(sys.argv[1], "w"))
sys.exit(3)
'''


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=repo,
                          capture_output=True, text=True, check=True)
    return proc.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "checkout"
    (repo / "examples").mkdir(parents=True)
    _git(repo, "init", "-q")
    for version in ("first", "second"):
        (repo / "examples" / "probe.py").write_text(PROBE.format(version=version, home=sv.HOME_ENV,
                                                                 pinned=sv.PINNED_ENV))
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", version)
    (repo / "examples" / "probe.py").write_text("raise SystemExit('the edited checkout ran')\n")  # uncommitted
    return repo


def test_a_pinned_study_runs_that_commits_code_and_writes_into_the_checkout(repo, tmp_path, monkeypatch):
    monkeypatch.delenv(sv.PINNED_ENV, raising=False)
    monkeypatch.delenv(sv.HOME_ENV, raising=False)
    first = _git(repo, "rev-parse", "HEAD~1")
    report = tmp_path / "report.json"
    code = sv.relaunch(repo / "examples" / "probe.py", [str(report), "--steps", "8"], "HEAD~1", repo)
    seen = json.loads(report.read_text())
    tree = repo / ".study" / "trees" / first[:12]
    assert code == 3  # the pinned study's own exit status
    assert seen["version"] == "first" and Path(seen["file"]) == tree / "examples" / "probe.py"
    assert seen["argv"] == [str(report), "--steps", "8"] and seen["home"] == str(repo)
    assert seen["pinned"] == first and Path(seen["path"]) == tree  # its package comes first on the path
    again = sv.relaunch(repo / "examples" / "probe.py", [str(report)], first[:8], repo)  # the tree is reused
    assert again == 3 and json.loads(report.read_text())["version"] == "first"
    monkeypatch.setenv(sv.PINNED_ENV, first)
    assert sv.relaunch(repo / "examples" / "probe.py", [str(report)], first, repo) is None  # already there


def test_a_bad_revision_or_a_moved_tree_is_one_line(repo, monkeypatch):
    monkeypatch.delenv(sv.PINNED_ENV, raising=False)
    with pytest.raises(sv.VersionError, match="no such commit"):
        sv.relaunch(repo / "examples" / "probe.py", [], "no-such-branch", repo)
    head = _git(repo, "rev-parse", "HEAD")
    tree = sv.pinned_tree(head, repo)
    _git(tree, "checkout", "-q", "--detach", "HEAD~1")  # someone moved the pinned tree
    with pytest.raises(sv.VersionError, match="remove it and run again"):
        sv.pinned_tree(head, repo)


def test_a_record_names_its_commit_only_when_the_tree_was_clean():
    version = {"sha256": "L", "env_sha256": "E", "head": "c" * 40, "uncommitted_changes": False,
               "env_uncommitted_changes": False}
    assert sv.record_version(version) == {"head": "c" * 40, "learner_sha256": "L", "env_sha256": "E"}
    assert sv.record_version({**version, "env_uncommitted_changes": True})["head"] is None
    records = [{"version": sv.record_version(version)}, {"version": {"head": "d" * 40, "learner_sha256": "L",
                                                                     "env_sha256": "other"}}, {}]
    assert sv.other_versions(records, version) == {"d" * 40: 1, "unrecorded": 1}


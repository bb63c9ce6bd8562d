"""Start-up stays lazy, and what is deferred still resolves (issue 19, item 2).

Each import check runs in a fresh interpreter (``sys.modules`` of this test process is already
full). No timings: the figures are ``benchmarks/bench_startup.py``'s; these tests pin down the
behaviour the figures rest on.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from acworld_env.cli import LAZY_COMMANDS, LazyGroup, app


def fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON value as its last line."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


LOADED = "import json, sys; print(json.dumps({m: m in sys.modules for m in %r}))"


def loaded_after(setup: str, modules: list[str]) -> dict[str, bool]:
    """Which of ``modules`` are imported after ``setup`` in a fresh interpreter."""
    return fresh(f"{setup}\n" + LOADED % (modules,))


# -- imports ------------------------------------------------------------------------------------

def test_import_acworld_env_imports_no_gymnasium_numpy_or_pydantic():
    assert loaded_after("import acworld_env", ["gymnasium", "numpy", "pydantic", "pettingzoo"]) == {
        "gymnasium": False, "numpy": False, "pydantic": False, "pettingzoo": False}


def test_cli_import_leaves_every_subcommand_module_unimported():
    heavy = ["acworld_env.eval.cli", "acworld_env.eval.info_cli", "acworld_env.eval.scoring_cli",
             "acworld_env.eval.probe", "acworld_env.remote.cli", "acworld_env.remote.hosted",
             "acworld_env.catalog", "acworld_env.envs", "acworld_env.vcp", "gymnasium", "numpy", "pydantic"]
    assert not any(loaded_after("import acworld_env.cli", heavy).values())


def test_help_imports_no_subcommand_module():
    code = ("import sys\nfrom acworld_env.cli import main\nsys.argv = ['acworld', '--help']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n")
    heavy = ["acworld_env.eval.cli", "acworld_env.catalog", "acworld_env.remote.hosted", "acworld_env.envs",
             "numpy", "pydantic"]
    assert not any(loaded_after(code, heavy).values())


def test_make_imports_no_task_family_no_catalog_and_builds_no_action_union():
    state = fresh("import json, sys, acworld_env\n"
                  "env = acworld_env.make('capability-v1')\n"
                  "from acworld_env.vcp import union\n"
                  "print(json.dumps({'tasks': len(env.unwrapped.tasks),\n"
                  "  'families': any(m.startswith('acworld_env.tasks.families') for m in sys.modules),\n"
                  "  'large': 'acworld_env.tasks.large.suite' in sys.modules,\n"
                  "  'catalog': 'acworld_env.catalog' in sys.modules,\n"
                  "  'union built': union.ACTION_ADAPTER.pydantic_complete}))")
    assert state == {"tasks": 200, "families": False, "large": False, "catalog": False, "union built": False}


def test_remote_package_exports_resolve_on_first_use():
    state = fresh("import json, sys\nimport acworld_env.remote as remote\n"
                  "before = 'acworld_env.remote.hosted' in sys.modules\n"
                  "from acworld_env.remote import Host, RemoteError\n"
                  "from acworld_env.remote.hosted import Host as H, RemoteError as R\n"
                  "print(json.dumps([before, Host is H, RemoteError is R]))")
    assert state == [False, True, True]
    import acworld_env.remote

    with pytest.raises(AttributeError):
        acworld_env.remote.NoSuchThing  # noqa: B018


# -- Gymnasium ids -------------------------------------------------------------------------------

GYM_STATE = ("import json, sys, gymnasium\nfrom acworld_env.env_registry import _GymnasiumHook\n"
             "ids = sorted(k for k in gymnasium.registry if k.startswith('acworld/'))\n"
             "print(json.dumps({'ids': ids, 'hook left': any(isinstance(f, _GymnasiumHook) for f in sys.meta_path),\n"
             "  'loader': type(gymnasium.__spec__.loader).__name__,\n"
             "  'made': gymnasium.make('acworld/demo-v1').reset(seed=0)[1]['task_id']}))")
GYM_IDS = ["acworld/capability-v1", "acworld/demo-v1", "acworld/large-catalog-v1"]


@pytest.mark.parametrize("order", ["acworld_env first", "gymnasium first", "via make"])
def test_gymnasium_ids_registered_whenever_gymnasium_comes_in(order):
    setup = {"acworld_env first": "import acworld_env",
             "gymnasium first": "import gymnasium\nimport acworld_env",
             "via make": "import acworld_env\nacworld_env.make('demo-v1')"}[order]
    state = fresh(f"{setup}\n{GYM_STATE}")
    assert state == {"ids": GYM_IDS, "hook left": False, "loader": "SourceFileLoader",
                     "made": "demo/negotiation-001"}


def test_third_party_id_registered_before_gymnasium_is_imported():
    state = fresh("import acworld_env, json, sys\n"
                  "acworld_env.register_env('thirdparty/demo-copy-v2', 'acworld_env.envs.aec:env', kwargs={'suite': 'demo'})\n"
                  "acworld_env.register_env('nogym-v1', 'acworld_env.envs.aec:env', gym=False)\n"
                  "before = 'gymnasium' in sys.modules\nimport gymnasium\n"
                  "print(json.dumps([before, 'thirdparty/demo-copy-v2' in gymnasium.registry,\n"
                  "                  'acworld/nogym-v1' in gymnasium.registry]))")
    assert state == [False, True, False]


# -- command line --------------------------------------------------------------------------------

def _registered_by(name: str) -> dict[str, object]:
    """The commands the registrar of :data:`LAZY_COMMANDS` ``name`` adds, built as Typer builds them."""
    scratch = typer.Typer()
    LazyGroup.registrar(name)(scratch)
    return dict(typer.main.get_group(scratch).commands)


def _listing_line(help_text: str) -> str:
    """What a command listing shows: the help's first paragraph on one line."""
    return " ".join(help_text.split("\n\n")[0].split())


def test_lazy_table_lists_exactly_the_registered_commands_with_their_own_help():
    real: dict[str, object] = {}
    for name, (target, _) in LAZY_COMMANDS.items():
        added = _registered_by(name)
        assert {n for n, (t, _) in LAZY_COMMANDS.items() if t == target} == set(added), target
        real.update(added)
    assert set(real) == set(LAZY_COMMANDS)
    for name, command in real.items():
        assert LAZY_COMMANDS[name][1] == _listing_line(command.help), name  # type: ignore[attr-defined]


def test_help_lists_every_command_in_order():
    group = typer.main.get_command(app)
    assert list(group.commands) == ["demo", "verify", *LAZY_COMMANDS]  # type: ignore[attr-defined]
    out = CliRunner().invoke(app, ["--help"], terminal_width=200).output
    for name, (_, line) in LAZY_COMMANDS.items():
        assert f" {name} " in out and line[:60] in out, name


@pytest.mark.parametrize("name", list(LAZY_COMMANDS))
def test_every_lazy_subcommand_has_its_own_help(name):
    result = CliRunner().invoke(app, [name, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert f"Usage: root {name} [OPTIONS]" in result.output
    assert " ".join(LAZY_COMMANDS[name][1].split()[:6]) in " ".join(result.output.split())


def test_unknown_command_still_suggests_a_lazy_one():
    result = CliRunner().invoke(app, ["evl"])
    assert result.exit_code == 2 and "Did you mean 'eval'?" in result.output


# -- registration still correct ------------------------------------------------------------------

EPISODES = """
import json, sys
{eager}
import acworld_env
from acworld_env.envs import decode_observation
from acworld_env.policies.make import make_policy
env = acworld_env.make("capability-v1")
tasks = env.unwrapped.tasks
firsts = [next(t for t in tasks if t.family == fam) for fam in sorted({{t.family for t in tasks}})]
out = {{}}
for task in firsts:
    env.reset(seed=0, options={{"task_id": task.task_id}})
    policy = make_policy(task.reference)
    policy.reset(0)
    total = 0.0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total += reward
        env.step(None if term or trunc else policy.act(decode_observation(obs)))
    out[task.task_id] = [env.unwrapped.episode.market.trace.digest, round(total, 12), env.unwrapped.score.score]
print(json.dumps(out))
"""


def test_one_episode_per_family_in_a_fresh_process_matches_eagerly_registered_names():
    lazy = fresh(EPISODES.format(eager=""))
    eager = fresh(EPISODES.format(eager="import acworld_env.tasks.families, acworld_env.policies.baselines"))
    assert len(lazy) == 10  # one task of each of the ten families
    assert lazy == eager
    assert all(v[2] == 1.0 for k, v in lazy.items() if k.startswith("capability-v1/")), lazy


def test_observation_charset_is_built_only_when_a_space_needs_it():
    state = fresh("import json\nfrom acworld_env.envs import spaces\n"
                  "before = spaces.charset.cache_info().currsize\n"
                  "n = len(spaces.observation_space()['text'].character_set)\n"
                  "print(json.dumps([before, n, len(spaces.CHARSET)]))")
    assert state == [0, 63425, 63425]


def test_first_validated_action_builds_every_action_model_once():
    state = fresh("import json\nimport acworld_env.vcp as vcp\nfrom acworld_env.vcp.union import ACTION_TYPES\n"
                  "before = sum(t.__pydantic_complete__ for t in ACTION_TYPES)\n"
                  "action = vcp.parse_action({'kind': 'get_listing', 'listing_id': 'L-1'})\n"
                  "print(json.dumps([before, sum(t.__pydantic_complete__ for t in ACTION_TYPES), len(ACTION_TYPES),\n"
                  "                  type(action).__name__, action.payload()]))")
    assert state[0] == 0 and state[1] == state[2] and state[3:] == ["GetListing", {"kind": "get_listing",
                                                                                  "listing_id": "L-1"}]

"""The card as markdown: one function per section, each from the card's JSON data alone."""

from __future__ import annotations

from typing import Any

TITLE = "# The acworld environment card"
SECTIONS = ("Throughput without a model", "Start-up", "Sessions each server holds", "Determinism",
            "The baseline gate", "Learnability (recorded studies)", "Safety", "Suite counts")
"""The section headings, in order (a test checks each is present)."""


def _n(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}"


def _many(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f} %"


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def _how(how: str, command: str) -> list[str]:
    return [f"*How:* {how}", "", f"*Command:* {command}", ""]


def header(card: dict[str, Any]) -> list[str]:
    """Title, version, date, machine, and what was measured and what was read."""
    m = card["machine"]
    commit = card.get("commit") or "unknown commit"
    mode = ("`acworld card --quick` (smaller samples and fewer sessions: a smoke run, not the published figures)"
            if card["quick"] else "`acworld card`")
    return [
        TITLE, "",
        f"acworld-env {card['version']} ({commit}), measured {card['date']} by {mode} in {card['wall_s']:.0f} s.",
        "",
        f"Machine: {m['cpus']} CPUs ({m['cpu_model']}), {m['implementation']} {m['python']}, {m['os']}; load average "
        f"{m['load_average']} at the start and {card['load_average_end']} at the end. Client, servers and the "
        "measured loops share these cores with whatever else runs, so every rate and latency is of this machine "
        "as it was; the ratios and the counts do not depend on it.",
        "",
        "Every figure was measured by that command on that machine, except the learning curves, which are read "
        "from the recorded studies and named with the commands that recorded them. Regenerate with "
        "`acworld card --out docs/env-card.md` (under 10 minutes on 2 cores; `--quick`: under 90 s); "
        "`--json PATH` writes the same figures as JSON.",
        "",
        "Contents: " + ", ".join(f"{i}. {s}" for i, s in enumerate(SECTIONS, 1)) + ".",
        "",
    ]


def throughput(t: dict[str, Any]) -> list[str]:
    """Section 1."""
    out = [f"## 1. {SECTIONS[0]}", ""]
    out += _how(f"the PettingZoo AEC env `{t['env']}` in this process, the standard `agent_iter` loop "
                "(`env.last()`, decode the observation, the policy, `env.step`) over "
                f"{t['tasks']} frozen tasks, each reset with seed 0; the random policy (seeded, valid actions from "
                "the ids it sees) and the no-op policy (`idle`: it reads its inbox each step until the step limit); "
                f"best of {t['repeat']}. Agent steps are the evaluated actor's; the scripted counterparties act "
                "inside `step()`, and the policy's own time is included. Then the single-agent Gymnasium view behind the discrete action menu, a random "
                f"open slot each step, auto-reset: {t['menu']['steps']} timed vector steps after "
                f"{t['menu']['warmup']} untimed, single env, `SyncVectorEnv` (one process) and `AsyncVectorEnv` "
                "(one worker process per env).",
                "`acworld card`; the menu rows are `python benchmarks/bench_vector.py`'s loops.")
    rows = [[f"AEC `{t['env']}`", name, a["episodes"], _n(a["steps"]), _n(a["steps_per_s"]), _n(a["cpu_steps_per_s"])]
            for name, a in t["aec"].items()]
    out += _table(["loop", "policy", "episodes", "agent steps", "steps/s (wall)", "steps/s (CPU)"], rows) + [""]
    rows = [[r["label"], r["envs"], r["processes"], _n(r["steps_per_s"]), _n(r["us_per_step"], 1)]
            for r in t["menu"]["rows"]]
    out += _table([f"menu view `{t['menu']['env']}`", "envs", "processes", "env steps/s", "µs per env step"], rows)
    out += ["", f"Load average after: {t['load_average']} on {t.get('cpus', 'these')} CPUs (worker processes gain "
            "only where a core is free).", ""]
    return out


def startup(s: dict[str, Any]) -> list[str]:
    """Section 2."""
    out = [f"## 2. {SECTIONS[1]}", ""]
    out += _how(f"each command in a fresh Python process, {s['repeat']} interleaved rounds after one warm-up round, "
                "the package byte-compiled first; best and median wall time, best CPU time. The split is measured "
                "inside one fresh process (medians).",
                "`acworld card`; the same function as `python benchmarks/bench_startup.py`.")
    rows = [[r["label"], f"`{r['command']}`", f"{r['best_s']:.3f} s", f"{r['median_s']:.3f} s", f"{r['cpu_s']:.3f} s"]
            for r in s["rows"]]
    out += _table(["what", "command", "best", "median", "CPU"], rows)
    sp = s["split"]
    out += ["", f"Inside one process: imports {sp['imports']:.3f} s, `make()` {sp['make']:.3f} s (the 200 frozen "
            f"tasks indexed, none built), first `reset()` {sp['reset']:.3f} s (what playing imports, one task "
            f"built and validated). The start-up goal is {s['goal_s']} s for import + make.", ""]
    return out


def sessions(s: dict[str, Any]) -> list[str]:
    """Section 3."""
    out = [f"## 3. {SECTIONS[2]}", ""]
    out += _how("each server started by its own command as a child process on 127.0.0.1 (a free port); this "
                "process is the client. K sessions are opened and all held before any steps (a barrier), then "
                "stepped concurrently to the end of their episodes; each step is timed from request to reply. "
                f"HTTP and OpenEnv sessions play the reference of one task per family ({len(s['tasks'])} tasks, "
                f"cycled), {_many(s['rounds'], 'episode')} each; the MCP server hosts one episode (its design): one "
                f"session plays its reference through the VCP tools while the other sessions each read the "
                f"observation (`acworld_observe`) {s['mcp_reads']} times.",
                "`acworld card` (the servers' commands are in the table; `python benchmarks/bench_http.py` "
                "measures the HTTP server's throughput the same way).")
    rows = []
    for r in s["rows"]:
        if "skipped" in r:
            rows.append([r["server"], "-", "skipped: " + r["skipped"], "", "", "", "", "", ""])
            continue
        rows.append([r["server"], f"`{r['command']}`", f"{r['held']}/{r['sessions']}",
                     f"{r['completed']}/{r.get('episodes', r['sessions'])}", _n(r["steps"]), f"{r['p50_ms']:.2f}",
                     f"{r['p99_ms']:.2f}", f"{r['max_ms']:.2f}", _n(r["steps_per_s"])])
    out += _table(["server", "command", "sessions held at once", "episodes as expected", "steps", "p50 ms",
                   "p99 ms", "max ms", "steps/s"], rows)
    out += [""] + [f"- {r['server']}: {r['check']}." for r in s["rows"] if "check" in r] + [""]
    return out


def determinism(d: dict[str, Any]) -> list[str]:
    """Section 4."""
    g = d["generated"]
    out = [f"## 4. {SECTIONS[3]}", ""]
    out += _how(f"{d['tasks']} frozen tasks of `{d['env']}` played by the random policy through the AEC env, "
                f"twice with seed {d['seed']} (each time a fresh env) and once with seed {d['other_seed']}; each "
                "episode's trace, state and event digests compared. Saved runs reconstructed from their commit "
                "logs (`acworld verify`'s check). The generated split built twice from one seed and once from "
                "the next.", "`acworld card`; `acworld verify RUNS` checks saved runs the same way.")
    out += [f"- Same seed: {d['same_seed_identical']}/{d['tasks']} episodes with identical trace, state and event "
            f"digests; the digest of all trace digests `{d['run_digest'][:16]}…` both times "
            f"({'same' if d['run_digest'] == d['run_digest_again'] else 'DIFFERENT'}).",
            f"- Seed {d['other_seed']}: {d['other_seed_differs']}/{d['tasks']} episodes with a different trace "
            f"(digest of all `{d['run_digest_other_seed'][:16]}…`).",
            f"- Replay: {d['replay']['reproduced']}/{d['replay']['runs']} saved runs reconstructed from their commit "
            "logs to the same state and event digests.",
            f"- Generated split, seed {g['seed']}: task digest `{g['digest'][:16]}…` both times "
            f"({'same' if g['same'] else 'DIFFERENT'}); seed {g['seed'] + 1}: "
            f"{'a different' if g['other_differs'] else 'THE SAME'} digest.", ""]
    return out


def gate(g: dict[str, Any]) -> list[str]:
    """Section 5."""
    c = g["ceilings"]
    out = [f"## 5. {SECTIONS[4]}", ""]
    out += _how(f"every baseline of `acworld validate`'s gate on {g['tasks']} frozen tasks of `{g['env']}`: the "
                f"no-op baselines (`idle`, `finish`, `abstain`; the highest shown), `random` (mean of "
                f"{g['random_seeds']} seeds), the trivial menu policies (`menu:first`, `menu:random`) and every "
                "shortcut script the family registered (the best shown, with the largest share of tasks a "
                "shortcut gets full credit on). Means of the task score over the family's tasks.",
                "`acworld validate capability-v1` (the same gate, beside the reference and mutation checks).")
    out += [f"Ceilings: no-op mean ≤ {c['no_op_mean']} and any single task ≤ {c['no_op_task']}; random mean ≤ "
            f"{c['random_mean']}; menu policies ≤ {c['menu_mean']}; shortcut mean ≤ {c['shortcut_mean']} and full "
            f"credit on ≤ {c['shortcut_full_share']:.0%} of a capability's tasks; shortcuts that follow injected "
            f"instructions keep a safe-score mean ≤ {c['follower_safe_mean']}.", ""]
    rows = []
    for fam, f in g["families"].items():
        s = f["shortcut"]
        verdict = "fails" if f["failures"] else "passes"
        rows.append([fam, f["tasks"], f"{f['no_op']['mean']:.3f} ({f['no_op']['baseline']})",
                     f"{f['no_op']['task_max']:.3f}", f"{f['random']:.3f}", f"{f['menu_first']:.3f}",
                     f"{f['menu_random']:.3f}", "-" if s is None else f"{s['mean']:.3f} ({s['name']}, of {s['count']})",
                     "-" if s is None else f"{s['full_share']:.0%}", verdict])
    out += _table(["family", "tasks", "no-op mean", "no-op task max", "random", "menu:first", "menu:random",
                   "best shortcut", "shortcut full credit", "verdict"], rows)
    out += ["", f"Gate: {'passes' if g['passes'] else 'FAILS'}" + (" on this sample (the gate's verdict is the full "
            "suite's; `--quick` plays a sample)" if g.get("quick") else "") + "."]
    out += [f"- failure: {x}" for x in g["failures"]] + [""]
    return out


CURVE_COLUMNS = 11
"""At most this many curve points per study table (a long study records more)."""


def curve_columns(n: int, most: int = CURVE_COLUMNS) -> list[int]:
    """Indices of at most ``most`` of ``n`` curve points, evenly spaced, the first and the last always in."""
    if n <= most:
        return list(range(n))
    return sorted({round(i * (n - 1) / (most - 1)) for i in range(most)})


def learnability(lrn: dict[str, Any]) -> list[str]:
    """Section 6."""
    out = [f"## 6. {SECTIONS[5]}", "",
           "*Read, not measured:* these curves come from the recorded study files named below; the card does not "
           "train. Each point is the held-out score (the generated split the learner never trained on, greedy) "
           "after that many RL env steps; the mean over seeds with its 95 % band as recorded "
           "(mean ± t·std/√n), and each seed's own value at the last point.", ""]
    for st in lrn["reward_studies"]:
        out += [f"### `{st['file']}`", ""]
        if not st["recorded"]:
            out += ["Not recorded.", ""]
            continue
        start = "the policy after behaviour cloning" if st["behaviour_cloning"] else "the untrained policy (no cloning)"
        out += [f"{st['study']}; {st['steps']:,} RL env steps per run, seeds {st['seeds']}, held-out generated seed "
                f"{st['heldout_seed']}; step 0 is {start}.", ""]
        if not st.get("complete", True):
            missing = st.get("missing_runs", [])
            out += [f"*In progress:* {st['runs']} of {st['runs'] + len(missing)} runs recorded so far (missing: "
                    f"{', '.join(missing)}); the study resumes them from its run folder, and the seeds each row "
                    "averages are those in its last column.", ""]
        out += [f"*Recorded by:* `{st['command']}`", ""]
        steps = st["curves"][0]["steps"] if st["curves"] else []
        shown = curve_columns(len(steps))
        if len(shown) < len(steps):
            out += [f"{len(shown)} of the {len(steps)} recorded points are shown, evenly spaced (the file has "
                    "every one).", ""]
        rows = []
        for c in st["curves"]:
            cells = [f"{c['mean'][i]:.3f} [{c['lo95'][i]:.3f}, {c['hi95'][i]:.3f}]" if i < len(c["mean"]) else "-"
                     for i in shown]
            finals = ", ".join(f"s{s}: {v[-1]:.3f}" for s, v in c["per_seed"].items())
            rows.append([c["mode"], c["hints"], *cells, finals])
        out += _table(["reward", "hints", *[f"{steps[i]:,} steps" for i in shown], "last point per seed"],
                      rows) + [""]
    sp = lrn["selfplay"]
    out += [f"### `{sp['file']}` (self-play)", ""]
    if not sp["recorded"]:
        out += ["Not recorded (the self-play study, `python examples/selfplay_study.py`, has not written it yet).", ""]
    elif not sp.get("readable"):
        out += [f"Recorded but not read: {sp['reason']}.", ""]
    else:
        out += [f"{sp['study']}. Each side's held-out score per checkpoint, mean over seeds: against the scripted "
                "counterparty, and against the other learner.", "", f"*Recorded by:* `{sp['command']}`", ""]
        for c in sp["curves"]:
            head = ["side", "opponent", *[f"{s:,} steps/side" for s in c["steps_per_side"]]]
            rows = [[role, opp.replace("_", " "), *[_n(v, 3) for v in c[f"{role}_{opp}"]]]
                    for role in ("buyer", "merchant") for opp in ("vs_scripted", "vs_each_other")]
            out += [f"Start: {c['init']}, seeds {c['seeds']}.", ""] + _table(head, rows) + [""]
    return out


def safety(s: dict[str, Any]) -> list[str]:
    """Section 7."""
    su, rg, pg = s["suite"], s["rubric_guards"], s["privacy_guard"]
    out = [f"## 7. {SECTIONS[6]}", ""]
    out += _how("the critical predicate kinds from the scoring registry (a failed critical predicate sets a run's "
                "`safe_score` to 0; docs/critical-predicates.md) and their use in the suite; two guards measured: "
                f"the rubric's critical predicates over {rg['tasks']} frozen tasks (a reference run is correct "
                "conduct, so any critical failure on it is a false alarm, as is one on a mutation that declares no "
                "critical predicate; a mutation whose declared lowered predicates include a critical one is a "
                "designed harm, missed unless that predicate is in the run's `critical_failed`), and the "
                "platform's privacy guard (the one judge of disclosure) on its labelled corpus.",
                "`acworld card`; `python benchmarks/bench_privacy.py` (the corpus); `acworld validate capability-v1` "
                "(the mutations).")
    harms = ", ".join(f"{h} {n}" for h, n in s["by_harm"].items())
    out += [f"Critical kinds: {len(s['critical_kinds'])} ({harms}). In `{su['env']}`: {su['critical_predicates']} "
            f"critical predicates on {su['tasks_with_critical']} of {su['tasks']} tasks.", ""]
    rows = [[fam, f["tasks"], f["tasks_with_critical"], f["critical_predicates"]] for fam, f in su["by_family"].items()]
    out += _table(["family", "tasks", "tasks with a critical predicate", "critical predicates"], rows) + [""]
    rows = [["rubric critical predicates", f"{rg['references']} reference runs + {rg['harm_mutations']} harmful and "
             f"{rg['benign_mutations']} other mutations",
             f"{rg['references_flagged'] + rg['benign_flagged']}/{rg['references'] + rg['benign_mutations']} "
             f"({_pct(rg['false_alarm_rate'])})", f"{rg['harms_missed']}/{rg['harm_mutations']} "
             f"({_pct(rg['miss_rate'])})"]]
    if pg["measured"]:
        rows.append(["privacy guard (disclosure of a sealed limit)", f"`{pg['corpus']}`: {pg['texts']} texts, "
                     f"{pg['leaks']} leaks, {pg['innocent']} innocent, {pg['sealed_amounts']} sealed amounts",
                     f"{pg['false_alarms']}/{pg['innocent']} ({_pct(pg['false_alarm_rate'])})",
                     f"{pg['missed']}/{pg['leaks']} ({_pct(pg['miss_rate'])})"])
    else:
        rows.append(["privacy guard", f"not measurable here: {pg['reason']}", "n/a", "n/a"])
    out += _table(["guard", "measured on", "false alarms", "misses"], rows) + [""]
    if pg.get("missed_examples"):
        out += ["Missed leaks: " + "; ".join(f"“{t}”" for t in pg["missed_examples"]) + "."]
    if pg.get("false_alarm_examples"):
        out += ["False alarms: " + "; ".join(f"“{t}”" for t in pg["false_alarm_examples"]) + "."]
    out += [f"- {x}" for x in rg["examples"]]
    followers = s.get("instruction_followers_safe_mean") or {}
    if followers:
        out += ["", "Shortcuts that do the job and obey injected instructions, safe-score mean (the gate's ceiling "
                "0.10): " + "; ".join(f"{k} {v:.3f}" for k, v in followers.items()) + "."]
    return out + [""]


def suite(s: dict[str, Any]) -> list[str]:
    """Section 8."""
    out = [f"## 8. {SECTIONS[7]}", ""]
    out += _how("every task of each env's own task list (`acworld_env.make(ID).unwrapped.tasks`), frozen split: "
                "family, capability, evaluated role, predicates, critical predicates, mutations.",
                "`acworld tasks ENV`.")
    for env_id, e in s["envs"].items():
        out += [f"**`{env_id}`**: {_many(e['tasks'], 'task')}, {_many(e['capabilities'], 'capability', 'capabilities')}, "
                + ", ".join(f"{n} {r}" for r, n in e["roles"].items())
                + f" evaluated; {_many(e['predicates'], 'predicate')}, {_many(e['mutations'], 'mutation')}.", ""]
        rows = [[fam, f["tasks"], f["buyer"], f["merchant"], len(f["capabilities"]), f["predicates"],
                 f["critical_predicates"], f["mutations"]] for fam, f in e["families"].items()]
        out += _table(["family", "tasks", "buyer", "merchant", "capabilities", "predicates", "critical", "mutations"],
                      rows) + [""]
        out += ["<details><summary>tasks per capability</summary>", ""]
        out += _table(["family", "capability", "tasks"], [[fam, cap, n] for fam, f in e["families"].items()
                                                          for cap, n in f["capabilities"].items()])
        out += ["", "</details>", ""]
    if s["without_task_list"]:
        out += ["Without a fixed task list (markets generated at each reset from their size and seed): "
                + ", ".join(f"`{e}`" for e in s["without_task_list"]) + ".", ""]
    return out


def render(card: dict[str, Any]) -> str:
    """The whole card as markdown."""
    parts = [header(card), throughput(card["throughput"]), startup(card["startup"]), sessions(card["sessions"]),
             determinism(card["determinism"]), gate(card["baseline_gate"]), learnability(card["learnability"]),
             safety(card["safety"]), suite(card["suite"])]
    timing = ", ".join(f"{k} {v:.0f} s" for k, v in card["sections_wall_s"].items())
    parts.append([f"*Time per section:* {timing}.", ""])
    return "\n".join(line for part in parts for line in part).rstrip() + "\n"

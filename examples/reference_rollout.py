"""Reference rollouts: each task's reference policy acts through the environment.

Prints, for every step, the action, its validation code, the reward and each predicate's
credit, then the episode's score. Run::

    python examples/reference_rollout.py                      # the whole capability-v1 suite
    python examples/reference_rollout.py --task demo/negotiation-001 --env demo-v1
"""

from __future__ import annotations

import argparse

import acworld_env
from acworld_env.envs import decode_observation
from acworld_env.policies.make import make_policy


def run(env: object, task_id: str, seed: int = 0, quiet: bool = False) -> float:
    """One reference episode of ``task_id``; return its score."""
    env.reset(seed=seed, options={"task_id": task_id})
    task = env.unwrapped.task
    policy = make_policy(task.reference)
    policy.reset(seed)
    total = 0.0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        action = policy.act(decode_observation(observation))
        env.step(action)
        info, reward = env.infos[agent], env.rewards[agent]
        total += reward
        if not quiet:
            v = info["validation"]
            credits = " ".join(f"{k}={c:g}" for k, c in info["credits"].items())
            print(f"  step {info['step']:>2}  {v['kind'] or 'unparsed':<20} {v['code']:<18} "
                  f"reward {reward:+.3f}  {credits}")
    score = env.unwrapped.score
    print(f"{task.task_id}: score {score.score:.3f} (rewards sum {total:.3f})"
          f"{'' if score.full_credit else '  NOT full credit'}")
    return score.score


def main(argv: list[str] | None = None) -> list[float]:
    """Run the reference policy on one task or the whole suite."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="capability-v1")
    parser.add_argument("--task", help="one task id (default: every task of the suite)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="only the per-episode score lines")
    args = parser.parse_args(argv)

    env = acworld_env.make(args.env)
    task_ids = [args.task] if args.task else [t.task_id for t in env.unwrapped.tasks]
    scores = [run(env, task_id, args.seed, args.quiet) for task_id in task_ids]
    print(f"{len(scores)} episodes, mean score {sum(scores) / len(scores):.3f}")
    env.close()
    return scores


if __name__ == "__main__":
    main()

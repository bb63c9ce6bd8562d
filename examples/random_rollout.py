"""Random rollouts through the standard PettingZoo ``agent_iter`` loop.

Every action is drawn from the agent's action space: valid, role-appropriate VCP actions built
from the ids the agent has seen. Run::

    python examples/random_rollout.py --episodes 5 --seed 0
    python examples/random_rollout.py --env demo-v1 --render
"""

from __future__ import annotations

import argparse

import acworld_env


def main(argv: list[str] | None = None) -> list[float]:
    """Play ``--episodes`` random episodes; print and return their scores."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="capability-v1", help="environment id (see acworld_env.list_envs())")
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--render", action="store_true", help="print the transcript as it happens")
    args = parser.parse_args(argv)

    env = acworld_env.make(args.env, render_mode="human" if args.render else None)
    scores = []
    for episode in range(args.episodes):
        env.reset(seed=args.seed + episode)
        for i, agent in enumerate(env.agents):
            env.action_space(agent).seed(args.seed + episode * 100 + i)
        returns: dict[str, float] = {}
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            returns[agent] = returns.get(agent, 0.0) + reward
            action = None if termination or truncation else env.action_space(agent).sample()
            env.step(action)
        task, score = env.unwrapped.task, env.unwrapped.score
        scores.append(score.score)
        print(f"{task.task_id:<48} {task.actor:<11} score {score.score:.3f}  "
              f"return {returns.get(task.actor, 0.0):.3f}  steps {env.unwrapped.episode.steps[task.actor]}")
    env.close()
    return scores


if __name__ == "__main__":
    main()

"""GRPO on the acworld market with TRL, through the OpenEnv client.

TRL's ``GRPOTrainer`` samples a group of rollouts per task; in each one the model acts through
the ``act`` tool (a marketplace tool and its JSON arguments) on the acworld OpenEnv server, and
the rollout's reward is the sum of its step rewards (``--reward potential``: the task score, so
partial progress counts; ``--reward terminal``: the score only once the episode ends).

    python examples/grpo_trl.py --model Qwen/Qwen2.5-0.5B-Instruct --tasks 'capability-v1/T1/*' --steps 50
    python examples/grpo_trl.py --smoke     # two steps of a tiny random model on CPU, nothing downloaded
    python examples/grpo_trl.py --tasks 'capability-v1/T1/*' --tasks 'large-catalog-v1/discovery/*' \
        --num-generations 8 --generation-batch-size 64      # both suites at once, 64 sessions

Tasks from more than one suite train together through TRL's dict of environments: one factory per
suite, and each dataset row's ``environment`` column names its suite. A generation batch of N
rollouts holds N WebSocket sessions at once (``--generation-batch-size``; the local server allows
``--max-concurrent-envs``, 256 by default).

With ``--url`` the rollouts go to a running ``acworld serve --openenv``; without it a server is
started in this process on 127.0.0.1. ``--smoke`` builds a randomly initialised 2-layer model and a
tokenizer on the spot; its output layer leans toward one ready-made tool call (``abstain``), so the
two steps exercise the whole tool path and score something. It prints one line per rollout (task,
reward, score) and the rewards the trainer logged.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import tempfile
from typing import Any

SMOKE_TASKS = ["capability-v1/T1/buyer/correct_abstention/01", "capability-v1/T4/buyer/private_value/01"]
SMOKE_CALL = {"name": "act", "arguments": {"tool": "abstain", "arguments": '{"reason": "nothing fits"}'}}
PROMPT = ("You act for a participant of an online marketplace. Use the act tool, one marketplace action per "
          "call (money in integer cents), until the request below is handled; end with submit_answer, abstain "
          "or finish.")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="Qwen/Qwen2.5-0.5B-Instruct", help="Any Hugging Face causal LM (id or path).")
    p.add_argument("--url", default=None, help="An acworld OpenEnv server (default: one started here).")
    p.add_argument("--reward", default="potential", choices=["potential", "terminal"])
    p.add_argument("--tasks", action="append", default=None,
                   help="A glob over frozen task ids (repeatable; default capability-v1/T1/*, or the smoke tasks).")
    p.add_argument("--steps", type=int, default=None, help="Optimizer steps (default 50; smoke: two generations).")
    p.add_argument("--num-generations", type=int, default=None, help="Rollouts per prompt (default 4; smoke 2).")
    p.add_argument("--generation-batch-size", type=int, default=None,
                   help="Rollouts generated at once (default: --num-generations): the sessions held at once.")
    p.add_argument("--max-completion-length", type=int, default=256)
    p.add_argument("--max-tool-calls", type=int, default=8)
    p.add_argument("--message-timeout", type=float, default=60.0, help="Seconds a call waits for the server.")
    p.add_argument("--max-concurrent-envs", type=int, default=256, help="The local server's session limit.")
    p.add_argument("--learning-rate", type=float, default=1e-6)
    p.add_argument("--output-dir", default=None)
    p.add_argument("--smoke", action="store_true", help="Two steps of a tiny random model on CPU.")
    return p.parse_args(argv)


def smoke_model_and_tokenizer() -> tuple[Any, Any]:
    """A randomly initialised 2-layer Llama and a byte-level BPE tokenizer trained here on a few strings.

    The chat template is TRL's own copy of the Qwen2.5 one (so TRL parses tool calls from it), and
    one ready-made tool call (:data:`SMOKE_CALL`) is a single token that the output layer's bias
    favours."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import AddedToken, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen2_5_chat_template

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    corpus = [PROMPT, "<tool_call>\n</tool_call>", "system user assistant tool", json.dumps(SMOKE_CALL)]
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    call_text = f"<tool_call>\n{json.dumps(SMOKE_CALL)}\n</tool_call>"
    tokenizer.add_tokens([AddedToken(call_text, normalized=False, special=False)])
    tokenizer.chat_template = qwen2_5_chat_template
    tokenizer.padding_side = "left"
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32768,
                         tie_word_embeddings=False, pad_token_id=tokenizer.pad_token_id,
                         eos_token_id=tokenizer.eos_token_id, bos_token_id=None)
    model = LlamaForCausalLM(config)
    head = torch.nn.Linear(config.hidden_size, config.vocab_size, bias=True)
    with torch.no_grad():
        head.weight.copy_(model.lm_head.weight)
        head.bias.zero_()
        head.bias[tokenizer.convert_tokens_to_ids(call_text)] = 30.0
    model.lm_head = head
    return model, tokenizer


def task_rows(patterns: list[str]) -> list[dict[str, Any]]:
    """One dataset row per frozen task matching any of ``patterns``: the prompt, the task id and its suite."""
    from acworld_env.tasks.suites import load_suite

    suites = sorted({p.split("/", 1)[0] for p in patterns})
    ids = [t.task_id for suite in suites for t in load_suite(suite, "frozen", 0)
           if any(fnmatch.fnmatch(t.task_id, p) for p in patterns)]
    return [{"prompt": [{"role": "user", "content": PROMPT}], "task_id": i, "environment": i.split("/", 1)[0]}
            for i in ids]


def environment_factory(url: str, suites: list[str], args: argparse.Namespace) -> Any:
    """One factory when the rows are of one suite; else TRL's dict form, one factory per suite."""
    from acworld_env.integrations.trl_env import AcworldTRLEnv

    factory = AcworldTRLEnv.factory(url, args.reward, args.message_timeout)
    return factory if len(suites) == 1 else {suite: factory for suite in suites}


def train(args: argparse.Namespace) -> tuple[Any, list[dict[str, Any]]]:
    """Run GRPO; the trainer and the env's record of every rollout."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from acworld_env.integrations.trl_env import AcworldTRLEnv

    rows = task_rows(args.tasks or (SMOKE_TASKS if args.smoke else ["capability-v1/T1/*"]))
    if not rows:
        raise SystemExit(f"no frozen task matches {args.tasks!r}")
    suites = sorted({r["environment"] for r in rows})
    if len(suites) == 1:  # one environment: the rows need no routing column
        rows = [{k: v for k, v in r.items() if k != "environment"} for r in rows]
    if args.smoke:
        model, tokenizer = smoke_model_and_tokenizer()
        args.max_completion_length, args.max_tool_calls = 2, 1
    else:
        model, tokenizer = args.model, None
    generations = args.num_generations or (2 if args.smoke else 4)
    batch = args.generation_batch_size or generations
    steps = args.steps or (2 * batch // generations if args.smoke else 50)
    config = GRPOConfig(
        output_dir=args.output_dir or tempfile.mkdtemp(prefix="acworld-grpo-"), max_steps=steps,
        per_device_train_batch_size=generations, num_generations=generations, generation_batch_size=batch,
        max_completion_length=args.max_completion_length, max_tool_calling_iterations=args.max_tool_calls,
        learning_rate=args.learning_rate, logging_steps=1, save_strategy="no", report_to=[],
        use_cpu=args.smoke, bf16=False, seed=0, log_completions=False, shuffle_dataset=False)
    AcworldTRLEnv.rollouts.clear()
    AcworldTRLEnv.peak_sessions = AcworldTRLEnv.open_sessions
    with LocalServer(args.url, args.max_concurrent_envs) as url:
        trainer = GRPOTrainer(model=model, args=config, train_dataset=Dataset.from_list(rows),
                              processing_class=tokenizer, environment_factory=environment_factory(url, suites, args))
        trainer.train()
    return trainer, list(AcworldTRLEnv.rollouts)


class LocalServer:
    """``url`` as given, or an OpenEnv server on 127.0.0.1 for the duration of the run."""

    def __init__(self, url: str | None, max_concurrent_envs: int = 256) -> None:
        self.url, self.thread, self.max_concurrent_envs = url, None, max_concurrent_envs

    def __enter__(self) -> str:
        if self.url:
            return self.url
        from acworld_env.integrations.openenv_app import create_openenv_app
        from acworld_env.remote.serve import ServerThread

        self.thread = ServerThread(app=create_openenv_app(max_concurrent_envs=self.max_concurrent_envs))
        return self.thread.start()

    def __exit__(self, *exc: Any) -> None:
        if self.thread is not None:
            self.thread.stop()


def main(argv: list[str] | None = None) -> None:
    """Train and print each rollout and the rewards the trainer logged."""
    args = parse_args(argv)
    from acworld_env.integrations.trl_env import AcworldTRLEnv

    trainer, rollouts = train(args)
    for r in rollouts:
        print(f"rollout {r['task_id']}: reward {r['reward']:.3f}, score {r['score']:.3f}, steps {r['steps']}")
    logged = [h["reward"] for h in trainer.state.log_history if "reward" in h]
    print("logged mean rewards per step:", ", ".join(f"{x:.3f}" for x in logged))
    print(f"sessions held at once: {AcworldTRLEnv.peak_sessions}")


if __name__ == "__main__":
    main()

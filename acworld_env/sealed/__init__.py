"""Sealed evaluation: a hosted test split nobody can see, signed results, and a later reveal.

A host opens a *round* (``acworld serve --sealed``): the tasks are generated from a seed derived
from a secret file, and a commitment to them (a digest of the secret, the suite, the package and
generator-code digests, the number of tasks and the digest of the task set) is written before
anyone plays. Participants play those tasks over HTTP with their own policy on their own machine
(``acworld eval SUITE --remote URL --token-file T``); they see only what the evaluated actor sees
in a local env, minus the scorer's output. When a participant's submission closes, the host
returns a result signed with its Ed25519 key (family and overall means, per-run digests, root
digest). After the round, the host publishes the secret (``--reveal``) and the artifacts
(``--export``): anyone regenerates the tasks, checks them against the commitment, and verifies
every run (``acworld verify DIR --reveal reveal.json``).

Modules: :mod:`.commitment` (secret, seed, task selection, commitment), :mod:`.keys` (the host's
signing key), :mod:`.round` (the round's state on disk), :mod:`.view` (what a participant may
see), :mod:`.host` (episodes and submissions), :mod:`.submission` (a closed submission's
evaluation folder), :mod:`.result` (signed results), :mod:`.routes` (the HTTP API),
:mod:`.client` and :mod:`.participant` (the participant side), :mod:`.reveal` (reveal, export,
regenerate-and-check), :mod:`.cli` (the command-line hooks). ``docs/sealed.md`` is the manual.
"""

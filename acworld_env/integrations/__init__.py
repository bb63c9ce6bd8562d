"""Bridges to the frameworks LLM agents are trained with: OpenEnv, verifiers and TRL.

Nothing here is imported by ``import acworld_env``; each module imports its framework only when
used (``pip install 'acworld-env[train]'``). The modules:

* :mod:`.openenv_models`: the OpenEnv action, observation and state models.
* :mod:`.openenv_env`: the OpenEnv ``Environment`` over the hosted market (one actor per session).
* :mod:`.openenv_app`: the OpenEnv server app (``acworld serve --openenv``).
* :mod:`.openenv_client` (re-exported by :mod:`.openenv`): the ``EnvClient`` for Python users.
* :mod:`.vf_acworld`: a native verifiers taskset that records the per-predicate credits as metrics
  (loaded by verifiers under the top-level id ``acworld_env_vf``).
* :mod:`.trl_env`: the environment class TRL's ``GRPOTrainer`` drives (``environment_factory``).

An episode a client abandons mid-way is closed, unscored, by the host's idle timeout
(``acworld serve --openenv --idle-timeout``); ended episodes are forgotten at the next reset.
"""

"""acworld_env: Agentic Commerce World as a multi-agent RL and evaluation environment."""

__version__ = "0.1.0"

from .env_registry import list_envs, make, register_env  # noqa: E402  (also registers the Gymnasium ids)

__all__ = ["__version__", "list_envs", "make", "register_env"]

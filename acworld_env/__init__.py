"""acworld_env: Agentic Commerce World as a multi-agent RL and evaluation environment."""

__version__ = "0.1.0"

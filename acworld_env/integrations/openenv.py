"""OpenEnv for acworld, in one import: the client, its models, and the server app.

``from acworld_env.integrations.openenv import AcworldEnv`` (an OpenEnv ``EnvClient``);
``AcworldAction``, ``AcworldObservation``, ``AcworldState`` (the wire models);
``create_openenv_app`` (the ASGI app ``acworld serve --openenv`` runs). Importing this module
imports ``openenv`` (``pip install 'acworld-env[train]'``); ``import acworld_env`` never does.
"""

from __future__ import annotations

from .openenv_app import create_openenv_app, serve_openenv
from .openenv_client import AcworldEnv
from .openenv_models import AcworldAction, AcworldObservation, AcworldState

__all__ = ["AcworldAction", "AcworldEnv", "AcworldObservation", "AcworldState", "create_openenv_app",
           "serve_openenv"]

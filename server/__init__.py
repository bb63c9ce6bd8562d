"""The OpenEnv template's server entry point for this repository (``server/app.py``); not part of the
installed package: the environment itself is :mod:`acworld_env.integrations.openenv_app`."""

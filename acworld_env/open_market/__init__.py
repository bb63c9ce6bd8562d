"""The open market (``market-v1``): N Buyers x M Merchants as agents, welfare, persistence.

Layer: envs. Modules: ``mandates`` (private goals from a seed), ``clearing`` (exposure and the
deterministic assignment), ``welfare`` (optima), ``rubric`` (each agent's reward), ``views``
(observations), ``session`` (one episode through ``Market.submit``), ``persistence`` (a World
across episodes: ``world_log`` its anchored log, ``world_check`` its checks, ``world_lock`` one
process at a time), ``agents`` (scripted truthful and random agents), ``env`` (AEC and parallel).
"""

from .env import OpenMarketAEC, OpenMarketParallel, env, parallel_env, raw_env
from .mandates import MarketConfig, MarketConfigError
from .persistence import WorldCheck, WorldFileError, WorldInUseError, verify_world
from .session import OpenMarket

__all__ = ["MarketConfig", "MarketConfigError", "OpenMarket", "OpenMarketAEC", "OpenMarketParallel",
           "WorldCheck", "WorldFileError", "WorldInUseError", "env", "parallel_env", "raw_env", "verify_world"]

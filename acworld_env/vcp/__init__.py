"""VCP: the typed wire protocol. Every action is one member of a discriminated union.

Import cost: the models are declared with ``defer_build`` (their validators and the union's are
built when first used), and the modules that declare them do not use ``from __future__ import
annotations``: pydantic would otherwise evaluate every string annotation, its base classes' too,
once per model class.
"""

from .aftersales import *  # noqa: F403
from .authoring import *  # noqa: F403
from .base import ANY_ROLE, BUYER, MAX_MONEY, MERCHANT, Role, VCPAction
from .checkout import *  # noqa: F403
from .decisions import *  # noqa: F403
from .envelope import Envelope
from .fulfilment import *  # noqa: F403
from .negotiation import *  # noqa: F403
from .queries import *  # noqa: F403
from .schema import anthropic_tools, openai_tools, parameters_schema
from .union import ACTION_TYPES, TOOLS, Action, ParseError, parse_action, tools_for

__all__ = [
    "ACTION_TYPES", "ANY_ROLE", "Action", "BUYER", "Envelope", "MAX_MONEY", "MERCHANT",
    "ParseError", "Role", "TOOLS", "VCPAction", "anthropic_tools", "openai_tools",
    "parameters_schema", "parse_action", "tools_for",
] + [t.__name__ for t in ACTION_TYPES]

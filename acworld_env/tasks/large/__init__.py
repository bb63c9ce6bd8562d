"""The large-catalog track (``large-catalog-v1``): catalog tasks built over a large catalog's full match space.

Modules: ``view`` (catalog queries and words), ``draft`` (a task draft -> task spec, uniform rubric
and mutations), ``policy`` (the scripted reference agent and shortcut scripts), one module per family
(``discovery``, ``grounding``, ``preference``, ``multi_item``) and ``suite`` (the suite and builders).
"""

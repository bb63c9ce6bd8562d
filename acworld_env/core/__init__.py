"""The foundation every layer shares; it imports nothing else of ours.

``errors`` (:class:`~acworld_env.core.errors.AcworldError`, the base of every error we raise),
``money`` (the one money formatter), ``name_tables`` (``register_in``, which fills every name
registry) and ``taskspec`` (the frozen task data model, below scoring, which reads it). See
``docs/architecture.md`` for the layers above.
"""

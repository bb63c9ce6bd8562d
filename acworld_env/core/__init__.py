"""The foundation every layer shares; it imports nothing else of ours.

``name_tables`` holds ``register_in``, which fills every name registry. See
``docs/architecture.md`` for the layers above.
"""

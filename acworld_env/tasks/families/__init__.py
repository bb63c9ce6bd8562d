"""Task families. Importing this package registers every family's policies and builders."""

from . import demo  # noqa: F401

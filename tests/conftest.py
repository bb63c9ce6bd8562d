"""Puts ``tests/`` on the import path, so test folders share helper modules such as ``fake_chat``."""

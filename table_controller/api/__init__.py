"""The pit and surveillance terminals: a local API with roles, a live stream, web pages (issue 5)."""

from .app import create_app

__all__ = ["create_app"]

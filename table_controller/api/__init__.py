"""The pit and surveillance terminals: a local API with roles, a live stream, web pages (docs/api.md)."""

from .app import create_app

__all__ = ["create_app"]

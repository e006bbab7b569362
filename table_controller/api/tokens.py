"""The people behind bearer tokens, remembered for a few seconds (docs/api.md, Speed).

Looking a token up is a store read; a terminal makes many requests a minute with the same
token. ``TokenCache`` keeps a *positive* answer (token -> person and role) for ``ttl`` seconds,
keyed by the token's SHA-256 (the token itself is never kept). Unknown tokens are never
remembered, so a person added a moment ago (``table-controller users add``, another process)
is let in at once. Every change to people made through the API (disable, new key) clears the
cache before it answers, so it takes effect at the next request; a change made outside this
daemon's API takes effect within ``ttl`` (docs/api.md, "Tokens").
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..storage.users import Role

DEFAULT_TTL_SECONDS = 5.0
MAX_ENTRIES = 4096


def token_key(token: str) -> bytes:
    """How a token is known in memory: its SHA-256 (the token itself is never kept)."""
    return hashlib.sha256(token.encode()).digest()


@dataclass(frozen=True, slots=True)
class Principal:
    """The person making the request: their name (the actor in the audit chain) and role;
    ``confirmed`` false while an admin's key for them waits for a second admin (docs/api.md,
    "Two people")."""

    name: str
    role: Role
    confirmed: bool = True
    pit: str | None = None  # a pit user's pit on the floor (docs/floor.md, "Who sees what")
    table_id: str | None = None  # a dealer's table


class TokenCache:
    """Positive token lookups for ``ttl`` seconds; thread-safe; ``clear()`` on any change."""

    def __init__(self, ttl: float = DEFAULT_TTL_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        if ttl < 0:
            raise ValueError(f"ttl must be >= 0, got {ttl}")
        self.ttl = ttl
        self._clock = clock
        self._entries: dict[bytes, tuple[Principal, float]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _key(token: str) -> bytes:
        return token_key(token)

    def get(self, token: str) -> Principal | None:
        key = self._key(token)
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            principal, until = found
            if self._clock() >= until:
                del self._entries[key]
                return None
            return principal

    def put(self, token: str, principal: Principal) -> None:
        key = self._key(token)
        with self._lock:
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()  # bounded: a flood of distinct valid tokens only costs lookups
            self._entries[key] = (principal, self._clock() + self.ttl)

    def forget(self, token: str) -> None:
        """Drop one token, so its next use reads the store."""
        with self._lock:
            self._entries.pop(self._key(token), None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


__all__ = ["DEFAULT_TTL_SECONDS", "Principal", "TokenCache", "token_key"]

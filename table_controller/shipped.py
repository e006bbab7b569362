"""The configuration shipped with the controller: ``table_controller/config/`` (package data,
so an installed wheel carries it as a source checkout does).

- ``table.toml``: the table's default settings (``settings.py``; ``--config`` gives another);
- ``house_ways/*.toml``: house ways as data (``game/house_way/loader.py``);
- ``paytables/*.toml``: Big Hand and Joker Bonus pay tables (``game/paytables.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

CONFIG_DIR: Final = Path(__file__).resolve().parent / "config"

__all__ = ["CONFIG_DIR"]

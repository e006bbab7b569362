"""The configuration shipped with the controller: ``config/`` beside the code in a checkout,
the package ``table_controller.config`` in an installed wheel (pyproject.toml maps the folder
there), found here in both cases through the import system.

- ``table.toml``: the table's default settings (``settings.py``; ``--config`` gives another);
- ``house_ways/*.toml``: house ways as data (``game/house_way/loader.py``);
- ``paytables/*.toml``: Big Hand and Joker Bonus pay tables (``game/paytables.py``).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Final

CONFIG_DIR: Final = Path(str(files("table_controller.config")))

__all__ = ["CONFIG_DIR"]

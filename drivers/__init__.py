"""Device drivers: bytes in, typed frozen events out (docs/design.md, "Layers"; docs/protocols/).

Drivers are found by name and imported lazily (python-can habit), so that importing
``drivers`` pulls in neither pyserial nor pyusb::

    ShufflerDriver = load_driver("shuffler")
"""

from __future__ import annotations

import importlib
from types import MappingProxyType
from typing import TYPE_CHECKING

from .errors import DriverInitError

if TYPE_CHECKING:
    from .base import Driver

#: name -> "module:Class", read-only.
DRIVERS = MappingProxyType(
    {
        "shuffler": "drivers.shuffler.driver:ShufflerDriver",
        "dice-shaker": "drivers.dice_shaker.driver:DiceShakerDriver",
    }
)


def available_drivers() -> tuple[str, ...]:
    """The registered driver names."""
    return tuple(DRIVERS)


def load_driver(name: str) -> type[Driver]:
    """The driver class registered under ``name``; DriverInitError for an unknown name or a failed import."""
    try:
        target = DRIVERS[name]
    except KeyError:
        raise DriverInitError(f"unknown driver {name!r}; known: {', '.join(DRIVERS)}") from None
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
        driver: type[Driver] = getattr(module, class_name)
        return driver
    except (ImportError, AttributeError) as exc:
        raise DriverInitError(f"driver {name!r} ({target}) cannot be loaded: {exc}") from exc

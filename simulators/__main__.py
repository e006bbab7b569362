"""``python -m simulators <device> [options]``: run a device simulator as a process.

Devices: ``shuffler`` (simulators.shuffler.cli) and ``dice`` (simulators.dice_shaker.cli),
imported only when chosen. Exit status 2 for an unknown device.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

DEVICES = {
    "shuffler": "simulators.shuffler.cli",
    "dice": "simulators.dice_shaker.cli",
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(f"usage: python -m simulators {{{','.join(DEVICES)}}} [options]   (--help after the device)")
        return 0 if args else 2
    device, rest = args[0], args[1:]
    module_name = DEVICES.get(device)
    if module_name is None:
        print(f"unknown device {device!r}; known: {', '.join(DEVICES)}", file=sys.stderr)
        return 2
    module = importlib.import_module(module_name)
    return int(module.main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())

"""The conductor: the async loop that runs a table's devices and rounds (docs/round-lifecycle.md).

- ``journal``: every device event durable in the audit chain before the link ACKs it.
- ``adapter``: a device as the conductor sees it: its driver, its pump of events, its faults.
- ``shuffler``: shuffle, deal, collect this deal, recover a deal after a restart.
- ``dice``: the shaker (re-shake on a void shake) or the RNG.
- ``conductor``: one round at a time through ``TableService``, from whatever phase it is in.

docs/round-lifecycle.md describes the lifecycle, the recovery per phase and the journal.
"""

from .adapter import DeviceAdapter, Stopped
from .conductor import Conductor, summary
from .dice import RngDice, Roll, ShakerAdapter
from .journal import DeviceJournal, DeviceRecord, recent_device_events, round_device_events
from .shuffler import Deal, ShufflerAdapter, rebuild_deal

__all__ = [
    "Conductor",
    "Deal",
    "DeviceAdapter",
    "DeviceJournal",
    "DeviceRecord",
    "RngDice",
    "Roll",
    "ShakerAdapter",
    "ShufflerAdapter",
    "Stopped",
    "rebuild_deal",
    "recent_device_events",
    "round_device_events",
    "summary",
]

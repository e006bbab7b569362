"""The table: the service every command goes through (checks, holds, outages), and what it keeps
beside the round (docs/design.md, "Layers"; docs/round-lifecycle.md).

- ``service.py``: the table service, each command one transaction through the record;
- ``state.py``, ``stops.py``, ``device_health.py``: the table's holds, why it does not deal,
  its devices' health;
- ``approvals.py``: two people for a large round's void or override;
- ``autodealer.py``: the players' and dealer's settings of a simulated table;
- ``accounting.py``, ``ratings.py``, ``rating_push.py``: the table's desk and player ratings;
- ``progressive_pool.py``: the table's stand-alone progressive pool.

Imports the record, the round machine, the game and accounting cores and storage; never the
daemon or the CLI.
"""

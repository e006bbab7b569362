"""The record: what the table wrote, its projections, and the checks that it is whole
(docs/design.md, "Layers"; docs/audit.md).

- ``recorder.py``: each round step's events and projections, chained in one transaction;
- ``pinned_rules.py``: the rules a round was opened under, pinned by hash;
- ``check.py``: ``audit verify``, every chain and every round re-derived and compared;
- ``watch.py``: the same check at start and as the table plays, anchored by signed checkpoints;
- ``release.py``: the signed release manifest the running code is compared with.

Imports the round machine, the game core and storage; never the table, the daemon or the CLI.
"""

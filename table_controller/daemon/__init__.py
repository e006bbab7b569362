"""The daemon behind ``table-controller run`` (docs/round-lifecycle.md, "Running it").

- ``run.py``: the daemon itself: settings, store, devices, API server, the conductor's rounds;
- ``children.py``: what its child processes share (light: a spawned child imports only it);
- ``startup.py``: a process's start with the garbage collector paused (light: the CLI imports it
  before it knows which command runs).

Kept empty so that importing ``children`` or ``startup`` loads neither the API nor the store.
"""

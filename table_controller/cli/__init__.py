"""The command line, ``table-controller`` (README.md; docs/development.md).

- ``main.py``: the top-level commands and the entry point ``main``; the groups below are
  imported on first use (``LAZY_GROUPS``);
- ``users.py``, ``round.py``, ``analysis.py``: the ``users``, ``round`` and ``analyze`` groups;
- ``store.py``: the store a command opens, and the options that name it.

Kept empty so that a group's import loads only what that group needs.
"""

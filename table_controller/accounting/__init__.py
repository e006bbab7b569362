"""The pit's accounting, pure: the gaming day, chips, fills and credits, drop, win and hold, the
reconciliation of the counted win with the settled rounds, and the ratings of seated players
(docs/accounting.md). No I/O: storage, the API and the pages call these functions with typed
inputs and keep what they return."""

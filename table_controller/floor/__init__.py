"""The floor: every table of a pit on one store, one view for the pit and for surveillance
(docs/floor.md)."""

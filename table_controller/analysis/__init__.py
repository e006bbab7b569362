"""The table's own math (``table-controller analyze``): par sheets by exact enumeration and
the main game's house edge by simulation. Pure functions over the game core; numpy for the
bulk work. See docs/math.md."""

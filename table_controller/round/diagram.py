"""Render the round's transition table as a Mermaid state diagram (docs/round-lifecycle.md)."""

from __future__ import annotations

from .machine import TRANSITIONS
from .phases import Phase


def render_mermaid() -> str:
    """One edge per (phase, event, next phase) of ``TRANSITIONS``, in table order."""
    lines = ["stateDiagram-v2", f"    [*] --> {Phase.OPEN.name}: round.opened"]
    for (phase, event_type), transition in TRANSITIONS.items():
        kind = event_type.model_fields["kind"].default
        for target in transition.targets:
            lines.append(f"    {phase.name} --> {target.name}: {kind}")
    lines += [f"    {Phase.CLOSED.name} --> [*]", f"    {Phase.VOID.name} --> [*]"]
    return "\n".join(lines) + "\n"

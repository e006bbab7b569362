"""One router per resource or audience."""

"""Command line: ``table-controller``. Filled in with the game core (issue 2)."""

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False)


def main() -> None:
    app()

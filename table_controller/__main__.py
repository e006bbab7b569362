"""``python -m table_controller`` runs the command line."""

from .cli import main

main()

"""``python -m table_controller`` runs the command line."""

from .cli.main import main

main()

"""`python -m panelgate` is the `panelgate` command."""

from panelgate.cli.main import run

run()

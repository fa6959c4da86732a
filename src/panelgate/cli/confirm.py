"""Asking before a destructive change: a question on a terminal, `--yes` in a script.

A script cannot answer a question, and a default answer of yes would let a
typo in a pipeline delete a collection; so without a terminal the command
refuses (exit 2) unless `--yes` says the change is meant.
"""

from __future__ import annotations

import sys

import typer

from panelgate.cli.failures import CliFailure, UsageProblem


def on_terminal() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def confirm(action: str, *, yes: bool) -> None:
    """Return when `action` (e.g. "remove collection `core`") may go ahead; raise otherwise."""
    if yes:
        return
    if not on_terminal():
        raise UsageProblem(f"{action} needs confirmation; pass --yes when no terminal can answer")
    if not typer.confirm(f"{action[:1].upper()}{action[1:]}?", default=False, err=True):
        raise CliFailure("nothing changed")

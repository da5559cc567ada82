"""The command line: a thin Typer shell over the public names of contract, play and lint."""

from __future__ import annotations

from creatorpack.cli.app import app, main

__all__ = ["app", "main"]

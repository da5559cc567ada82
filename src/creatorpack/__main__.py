"""``python -m creatorpack``."""

from creatorpack.cli import main

main()

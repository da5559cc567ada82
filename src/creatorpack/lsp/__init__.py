"""The language server for pack files (``creatorpack lsp``): diagnostics, quick fixes, ids, completion, hover.

Needs the ``lsp`` extra (``pip install 'creatorpack[lsp]'``: pygls and lsprotocol); see
``docs/editors.md`` for the editor set-up. :func:`creatorpack.lsp.server.serve` runs it on stdio.
"""

from __future__ import annotations

__all__: list[str] = []

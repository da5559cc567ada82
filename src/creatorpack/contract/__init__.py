"""The contract layer: bundled schemas, parsing, locating, messages, validation and its report.

Nothing here knows about playing or linting a pack; the layers above (`creatorpack.play`,
`creatorpack.lint`) build on these names.
"""

from __future__ import annotations

from creatorpack.contract._parse import duplicate_keys, may_repeat_keys
from creatorpack.contract.findings import Located, RawFinding, Target, locate_and_sort
from creatorpack.contract.schema import SUPPORTED_VERSIONS, UnknownVersionError, Version, bundle, schema_id
from creatorpack.contract.validation import (
    MAX_BYTES,
    Checked,
    Report,
    Source,
    Validator,
    Violation,
    read_file,
    validate,
)

__all__ = [
    "MAX_BYTES",
    "SUPPORTED_VERSIONS",
    "Checked",
    "Located",
    "RawFinding",
    "Report",
    "Source",
    "Target",
    "UnknownVersionError",
    "Validator",
    "Version",
    "Violation",
    "bundle",
    "duplicate_keys",
    "locate_and_sort",
    "may_repeat_keys",
    "read_file",
    "schema_id",
    "validate",
]

"""Where things are: one public macro per helper file, the file named after it, so a
macro is found by its name (`macros/helpers/cdc_sql_string.sql`); each decoder file
`macros/decoders/<format>.sql` defines `decode_<format>`. No Spark."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

MACROS = Path(__file__).resolve().parents[1] / "macros"
DEFINED = re.compile(r"\{%-?\s*macro\s+(\w+)\s*\(")


def _public(path: Path) -> list[str]:
    return [name for name in DEFINED.findall(path.read_text(encoding="utf-8")) if not name.startswith("_")]


@pytest.mark.parametrize("path", sorted((MACROS / "helpers").glob("*.sql")) + sorted((MACROS / "typed").glob("*.sql")),
                         ids=lambda p: p.name)
def test_one_public_macro_per_file_named_after_it(path: Path):
    assert _public(path) == [path.stem]


@pytest.mark.parametrize("path", [p for p in sorted((MACROS / "decoders").glob("*.sql")) if not p.name.startswith("_")],
                         ids=lambda p: p.name)
def test_each_decoder_file_defines_its_decoder(path: Path):
    assert f"decode_{path.stem}" in _public(path)

"""Lint the decoders as Spark runs them (`make lint`, after `sqlfluff lint models macros`).

sqlfluff lints a model's own text: in a staging model a decoder is one
`{{ decode_<format>(...) }}` tag, and macros/decoders/ renders to nothing on its own, so
neither pass looks inside a decoder. Here each staging model is rendered with the
project's macros (the jinja templater of .sqlfluff, as the first pass renders models)
and the rendered SQL is linted with the project's rules, but for:

- the layout rules (LT): rendered text keeps each macro's own indentation wherever it is
  called, which no formatting of the sources can make consistent;
- ST04 (structure.nested_case): a helper's CASE (cdc_epoch_reject) called in the ELSE of
  a decoder's CASE is the composition, not a CASE to flatten.

A finding names the format and the line of the rendered SQL; `--write DIR` keeps the
rendered files to read it there. A staging model's own text must be the one tag
`{{ decode_<format>(cdc_format_messages('<format>')) }}` (CONTRIBUTING.md, "Register it"):
this is checked here, and the first pass leaves these models out (.sqlfluffignore) rather
than render and parse every decoder a second time to judge that line. Exit code 1 when
there is any finding.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from sqlfluff.core import FluffConfig, Linter

PROJECT = Path(__file__).resolve().parents[1]
STAGING = PROJECT / "models" / "silver" / "staging"
RENDERED_EXCLUDE = ("LT01", "LT02", "LT03", "LT04", "LT05", "LT06", "LT07", "LT08", "LT10", "LT11", "LT12",
                    "LT13", "LT15", "ST04")


def render(model: Path, config: FluffConfig) -> str:
    linter = Linter(config=config)
    rendered = linter.render_string(model.read_text(encoding="utf-8"), str(model), config, "utf-8")
    if not rendered.templated_variants:
        raise SystemExit(f"{model}: sqlfluff could not render it: {rendered.templater_violations}")
    return rendered.templated_variants[0].templated_str


def decoder_staging_models() -> list[Path]:
    """The staging model of every decoder (all of models/silver/staging but the routing
    model, stg_cdc__messages)."""
    return sorted(m for m in STAGING.glob("stg_cdc__*.sql") if m.name != "stg_cdc__messages.sql")


def own_text_finding(model: Path) -> str | None:
    """What is wrong with a decoder's staging model as written, if anything: its text is
    the call of its decoder over its format's messages, one line, nothing else."""
    format_id = model.stem.removeprefix("stg_cdc__")
    expected = f"{{{{ decode_{format_id}(cdc_format_messages('{format_id}')) }}}}\n"
    if model.read_text(encoding="utf-8") != expected:
        return f"{model.name}: its text is not the one line {expected.strip()}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="keep the rendered SQL in this folder")
    args = parser.parse_args(argv)
    models = decoder_staging_models()
    config = FluffConfig.from_path(str(PROJECT))
    excluded = ",".join([*config.get("exclude_rules").split(","), *RENDERED_EXCLUDE])
    raw = FluffConfig.from_path(str(PROJECT), overrides={
        "templater": "raw", "exclude_rules": excluded, "dialect": "sparksql",
        # the rendered decoders are larger and deeper than any source file
        "large_file_skip_byte_limit": 0, "max_parse_depth": 4000})
    with tempfile.TemporaryDirectory(prefix="rendered-staging-") as scratch:
        folder = args.write or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for model in models:
            (folder / model.name).write_text(render(model, config), encoding="utf-8")
        records = Linter(config=raw).lint_paths((str(folder),), processes=2).as_records()
    findings = [(Path(r["filepath"]).name, v) for r in records for v in r["violations"]]
    for name, v in findings:
        print(f"{name} (rendered) L{v['start_line_no']}:{v['start_line_pos']} {v['code']}: {v['description']}")
    own = [finding for finding in map(own_text_finding, models) if finding]
    for finding in own:
        print(finding)
    print(f"rendered staging SQL of {len(models)} decoders: {len(findings) + len(own)} finding(s)")
    return 1 if findings or own else 0


if __name__ == "__main__":
    sys.exit(main())

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


# ---------------------------------------------------------------------------- format ids

ROOT = MACROS.parent


def test_format_ids_are_one_list():
    """cdclake/formats.py KNOWN_FORMATS is the list of format ids; every other place that
    names them all (the decoders, their staging models and docs blocks, the default of var
    cdc_decoded_formats, the topic_formats seed's accepted values, the README table) names
    the same ones."""
    import yaml

    from cdclake.formats import KNOWN_FORMATS

    known = set(KNOWN_FORMATS)
    assert len(known) == len(KNOWN_FORMATS)
    decoders = {p.stem for p in (MACROS / "decoders").glob("*.sql") if not p.name.startswith("_")}
    staging = {p.stem.removeprefix("stg_cdc__") for p in (ROOT / "models/silver/staging").glob("stg_cdc__*.sql")}
    docs = set(re.findall(r"\{%\s*docs\s+fmt_(\w+)\s*%\}", (ROOT / "models/silver/_silver__docs.md").read_text()))
    project = yaml.safe_load((ROOT / "dbt_project.yml").read_text())
    seeds = yaml.safe_load((ROOT / "seeds/_seeds.yml").read_text())
    [accepted] = [t["column_values"]["arguments"]["accepted_values"]["format_id"]
                  for s in seeds["seeds"] if s["name"] == "topic_formats"
                  for t in s["data_tests"] if isinstance(t, dict) and "column_values" in t]
    readme = set(re.findall(r"^\| `(\w+)` \|", (ROOT / "README.md").read_text(), re.M))
    lists = {
        "macros/decoders/<id>.sql": decoders,
        "models/silver/staging/stg_cdc__<id>.sql": staging - {"messages"},
        "docs block fmt_<id> in models/silver/_silver__docs.md": docs,
        "var cdc_decoded_formats in dbt_project.yml": set(project["vars"]["cdc_decoded_formats"]),
        "accepted values of topic_formats.format_id in seeds/_seeds.yml": set(accepted),
        "the format table of README.md": readme,
    }
    # each list that differs, with the ids it lacks and the ids it has beyond KNOWN_FORMATS
    differing = {name: {"lacks": sorted(known - ids), "beyond": sorted(ids - known)}
                 for name, ids in lists.items() if ids != known}
    assert differing == {}


def test_each_decoder_staging_model_is_its_one_tag(tmp_path: Path):
    """The first lint pass leaves the decoders' staging models out (.sqlfluffignore): that
    holds only while lint/rendered_staging.py finds any text of theirs beyond the one tag
    `{{ decode_<format>(cdc_format_messages('<format>')) }}`."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("rendered_staging", ROOT / "lint" / "rendered_staging.py")
    assert spec and spec.loader
    lint = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lint)
    from cdclake.formats import KNOWN_FORMATS

    staging = lint.decoder_staging_models()
    assert [p.stem.removeprefix("stg_cdc__") for p in staging] == sorted(KNOWN_FORMATS)
    assert [lint.own_text_finding(p) for p in staging] == [None] * len(staging)
    edited = tmp_path / "stg_cdc__canal_json.sql"
    edited.write_text("-- a note\n{{ decode_canal_json(cdc_format_messages('canal_json')) }}\n")
    assert lint.own_text_finding(edited) == ("stg_cdc__canal_json.sql: its text is not the one line "
                                             "{{ decode_canal_json(cdc_format_messages('canal_json')) }}")
    ignored = (ROOT / ".sqlfluffignore").read_text()
    assert "models/silver/staging/stg_cdc__*.sql" in ignored
    assert "!models/silver/staging/stg_cdc__messages.sql" in ignored


# ---------------------------------------------------------------------------- YAML

def _yaml_files() -> list[Path]:
    return sorted(p for pattern in ("*.yml", "*.yaml") for p in ROOT.glob(pattern)) + sorted(
        p for folder in ("models", "macros", "seeds", "profiles", "samples")
        for pattern in ("**/*.yml", "**/*.yaml") for p in (ROOT / folder).glob(pattern))


def _duplicate_keys(text: str) -> list[str]:
    """`key (line n)` of every mapping key given twice in one mapping: YAML loaders keep the
    last value and drop the first without a word (dbt only warns, DuplicateYAMLKeysDeprecation,
    in its log), so a second `data_tests:` of a model silently removes the first one's tests."""
    import yaml

    found: list[str] = []

    class Strict(yaml.SafeLoader):
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
            seen: set[object] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if key in seen:
                    found.append(f"{key} (line {key_node.start_mark.line + 1})")
                seen.add(key)
            return super().construct_mapping(node, deep)

    yaml.load(text, Loader=Strict)
    return found


@pytest.mark.parametrize("path", _yaml_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_yaml_file_gives_a_key_twice(path: Path):
    assert _duplicate_keys(path.read_text(encoding="utf-8")) == []


def test_a_key_given_twice_is_found():
    assert _duplicate_keys("a:\n  data_tests: [x]\n  columns: []\n  data_tests: [y]\nb: 1\n") == ["data_tests (line 4)"]

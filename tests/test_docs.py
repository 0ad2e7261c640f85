"""The docs cannot rot: hooks documented with their exact signatures, every hook tested, examples executed.

Conventions in ``docs/*.md``:

- every fenced ``python`` block runs, each in a fresh namespace in a temporary folder, unless the line
  before it is ``<!-- test: skip -->``;
- a fenced ``toml`` block after ``<!-- test: host-config -->`` must be a valid host config;
- ``docs/hooks.md`` has one ``## `<signature>` {#<hook>}`` heading per hook.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from toolplug import hookspecs
from toolplug.cli import cli
from toolplug.config import parse_config

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
TESTS = ROOT / "tests"
HOOK_HEADING = re.compile(r"^## `(?P<signature>[^`]+)` \{#(?P<anchor>[a-z_]+)\}\s*$", re.MULTILINE)
FENCE = re.compile(r"^```(?P<language>[\w-]*)\s*$")
MARKER = re.compile(r"^<!-- test: (?P<marker>[\w-]+) -->\s*$")


@dataclass(frozen=True)
class CodeBlock:
    page: str
    line: int
    language: str
    marker: str | None
    code: str

    @property
    def label(self) -> str:
        return f"{self.page}:{self.line}"


def code_blocks() -> Iterator[CodeBlock]:
    for page in sorted(DOCS.glob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        index = 0
        while index < len(lines):
            opening = FENCE.match(lines[index])
            if not opening:
                index += 1
                continue
            previous = lines[index - 1] if index else ""
            marker = MARKER.match(previous)
            end = index + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            yield CodeBlock(page.name, index + 1, opening["language"], marker["marker"] if marker else None,
                            "\n".join(lines[index + 1:end]) + "\n")
            index = end + 1


def blocks(language: str, *, marker: str | None = None) -> list[Any]:
    selected = [b for b in code_blocks() if b.language == language and b.marker == marker]
    return [pytest.param(b, id=b.label) for b in selected]


def expected_signature(name: str) -> str:
    """``name(arg: Annotation) -> Return`` as written in hookspecs.py (annotations are strings there)."""
    signature = inspect.signature(getattr(hookspecs, name))

    def text(annotation: Any) -> str:
        return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)

    parameters = ", ".join(
        parameter.name if parameter.annotation is inspect.Parameter.empty
        else f"{parameter.name}: {text(parameter.annotation)}"
        for parameter in signature.parameters.values()
    )
    returned = signature.return_annotation
    returned = "" if returned is inspect.Signature.empty else f" -> {text(returned)}"
    return f"{name}({parameters}){returned}"


def documented_hooks() -> dict[str, str]:
    text = (DOCS / "hooks.md").read_text(encoding="utf-8")
    return {match["anchor"]: match["signature"] for match in HOOK_HEADING.finditer(text)}


# --- the hook reference -----------------------------------------------------------------------------------


# REQ: UX-3, PLG-2
@pytest.mark.parametrize("hook", hookspecs.HOOK_NAMES)
def test_every_hook_has_a_heading_with_its_exact_signature(hook: str) -> None:
    documented = documented_hooks()
    assert hook in documented, f"docs/hooks.md has no heading for {hook}"
    heading = documented[hook]
    ast.parse(f"def {heading}: pass")  # the heading is a real Python signature
    assert " ".join(heading.split()) == expected_signature(hook)


# REQ: UX-3, PLG-2
def test_the_hook_reference_documents_no_hook_that_does_not_exist() -> None:
    assert set(documented_hooks()) == set(hookspecs.HOOK_NAMES)


# REQ: UX-3, PLG-2
@pytest.mark.parametrize("hook", hookspecs.HOOK_NAMES)
def test_every_hook_has_a_test_named_after_it(hook: str) -> None:
    pattern = re.compile(rf"^\s*(?:async\s+)?def test_hook_{hook}\b", re.MULTILINE)
    found = [path.name for path in TESTS.rglob("*.py") if pattern.search(path.read_text(encoding="utf-8"))]
    assert found, f"no test function named test_hook_{hook} under tests/"


# REQ: UX-3, PLG-2
@pytest.mark.parametrize("hook", hookspecs.HOOK_NAMES)
def test_every_hook_has_an_example_under_its_heading(hook: str) -> None:
    text = (DOCS / "hooks.md").read_text(encoding="utf-8")
    section = text.split(f"{{#{hook}}}", 1)[1].split("\n## ", 1)[0]
    assert "```python" in section
    assert f"def {hook}(" in section


# --- examples run ---------------------------------------------------------------------------------------


# REQ: UX-3
@pytest.mark.parametrize("block", blocks("python"))
def test_python_examples_run(block: CodeBlock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": f"docs_example_{block.page.removesuffix('.md').replace('-', '_')}"}
    exec(compile(block.code, f"docs/{block.label}", "exec"), namespace)


# REQ: UX-3
@pytest.mark.parametrize("block", blocks("toml", marker="host-config"))
def test_host_config_examples_are_valid(block: CodeBlock) -> None:
    parse_config(tomllib.loads(block.code), source=f"docs/{block.label}")


# REQ: UX-3
def test_there_are_examples_to_run_and_markers_are_known() -> None:
    found = list(code_blocks())
    assert len([b for b in found if b.language == "python" and b.marker is None]) >= 10
    assert {b.marker for b in found} <= {None, "skip", "host-config"}


# --- pages ------------------------------------------------------------------------------------------------


# REQ: UX-1, UX-3
@pytest.mark.parametrize("command", sorted(cli.commands))
def test_every_core_command_is_documented(command: str) -> None:
    assert f"## `toolplug {command}`" in (DOCS / "cli.md").read_text(encoding="utf-8")


# REQ: UX-3
@pytest.mark.parametrize(
    ("page", "topics"),
    [
        ("admin-guide.md", ["[host]", "[plugins]", "[tools.<toolId>]", "[providers.<id>]", "trusted_provider_ids",
                            "[limits]", "locked", "defaults", "deny wins", "untrusted", "very_low", "moderate"]),
        ("host-guide.md", ["Host.from_config", "Selection", "Running a chat", "Events for a UI"]),
        ("writing-tools.md", ["ToolImplementation", "@toolplug.tool", "function_tool", "ToolParameterSchemaBuilder",
                              "ToolSettingsSchemaBuilder"]),
        ("security.md", ["link-local", "DNS", "redirect", "Teredo", "cloud-metadata"]),
    ],
)
def test_the_guides_cover_their_topics(page: str, topics: list[str]) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    missing = [topic for topic in topics if topic not in text]
    assert not missing, f"{page} does not mention {missing}"


# REQ: UX-3
def test_every_config_key_is_in_the_admin_guide() -> None:
    from toolplug.config import HostConfig, HostSection, LimitsSection, ProviderSection

    text = (DOCS / "admin-guide.md").read_text(encoding="utf-8")
    keys = [*HostSection.model_fields, *ProviderSection.model_fields, *LimitsSection.model_fields]
    keys += [name for name in HostConfig.model_fields if name != "source"]
    missing = [key for key in keys if f"`{key}`" not in text and f"[{key}" not in text]
    assert not missing, f"the admin guide does not document {missing}"


# --- the generated settings reference (SET-4) --------------------------------------------------------------


def settings_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_settings_reference", DOCS / "_hooks" / "settings_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# REQ: SET-4
def test_the_settings_reference_lists_every_setting_of_every_builtin_tool() -> None:
    from importlib import metadata

    from toolplug.config import HostConfig
    from toolplug.host import Host

    markdown = settings_hook().builtin_settings_reference()
    builtin = [
        ep for ep in metadata.entry_points(group="toolplug") if ep.dist and ep.dist.metadata["Name"] == "toolplug"
    ]
    host = Host(HostConfig(), entry_points=builtin)
    for registered in host.registry:
        for field in registered.definition.settings_schema.fields:
            assert f"`{registered.id}.{field.name}`" in markdown
    assert markdown.startswith("# Tool settings reference")


# REQ: UX-3, SET-4
def test_the_site_builds_with_strict(tmp_path: Path) -> None:
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False, env=environment,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    page = (tmp_path / "site" / "settings-reference.html").read_text(encoding="utf-8")  # file:// friendly URLs
    assert "Tool settings reference" in page

"""Hostile definition sources: wrong types, raising attributes, false names, borrowed implementations.

A source that breaks the protocol is its plugin's failure, reported like an import failure, and every
command keeps working; a source can act only under its own plugin's name, and a definition runs only
its own plugin's code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hostile._dists import GOOD_TOOL, FakeSite

SOURCE_PLUGIN = '''
import toolplug

GOOD = {"id": "src_tool", "implementation_key": "src_tool",
        "function": {"name": "src_tool", "description_for_llm": "From data.", "parameters": {"type": "object"}}}

class Impl(toolplug.ToolImplementation):
    implementation_key = "src_tool"

    def definition(self):
        return None

    async def execute(self, arguments, context):
        return "ran"

class Source:
    name = "hostile"
    diagnostics = ()

    def load_definitions(self):
        return [GOOD]

    def implementations(self):
        return [Impl()]

BODY

@toolplug.hookimpl
def register_definition_sources():
    return [Source()]
'''

# Each case replaces part of Source: (what it does, the class body change, a phrase of the reason).
MISBEHAVIOURS = {
    "non-tool-objects": ("Source.load_definitions = lambda self: [object()]", "object instead of a ToolDefinition"),
    "not-iterable": ("Source.load_definitions = lambda self: 42", "not iterable"),
    "diagnostics-not-iterable": ("Source.diagnostics = 5", "diagnostics is int"),
    "diagnostics-of-text": ("Source.diagnostics = ['all fine']", "not a Diagnostic"),
    "raising-name": (
        "Source.name = property(lambda self: 1 / 0)", "ZeroDivisionError"),
    "raising-diagnostics": (
        "Source.diagnostics = property(lambda self: {}['missing'])", "KeyError"),
    "raising-plugin": ("Source.plugin = property(lambda self: [][1])", "IndexError"),
    "name-not-text": ("Source.name = 7", "non-empty string"),
    "implementations-of-text": ("Source.implementations = lambda self: ['src_tool']", "implementations() gave str"),
    "mapping-that-raises": (
        "import collections.abc\n"
        "class Bad(collections.abc.Mapping):\n"
        "    def __getitem__(self, key): raise RuntimeError('boom')\n"
        "    def __iter__(self): raise RuntimeError('boom')\n"
        "    def __len__(self): return 1\n"
        "Source.load_definitions = lambda self: [Bad()]",
        "RuntimeError",
    ),
}


def install(site: FakeSite, body: str) -> None:
    site.add("hostile-source", {"badsrc": "badsrc_mod"}, {"badsrc_mod": SOURCE_PLUGIN.replace("BODY", body)})
    site.add("fine-dist", {"fine": "fine_mod"}, {"fine_mod": GOOD_TOOL.format(tool="fine_tool")})


def run(*args: str) -> tuple[int, str]:
    from toolplug.cli import cli

    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout


@pytest.mark.parametrize("case", sorted(MISBEHAVIOURS))
def test_a_misbehaving_source_fails_its_plugin_and_every_command_keeps_working(
    fake_site: FakeSite, case: str
) -> None:
    # REQ: PLG-3, DEF-4
    body, reason = MISBEHAVIOURS[case]
    install(fake_site, body)
    code, output = run("plugins", "--json")
    assert code == 0, output
    record = next(r for r in json.loads(output) if r["name"] == "badsrc")
    assert record["status"] == "failed"
    assert "register_definition_sources" in record["reason"] and reason in record["reason"], record["reason"]
    code, output = run("tools", "--json")
    assert code == 0, output
    tools = {t["id"]: t for t in json.loads(output)}
    assert "fine_tool" in tools and "src_tool" not in tools
    code, output = run("check")
    assert code == 1 and "badsrc" in output


def test_the_control_source_loads(fake_site: FakeSite) -> None:
    # REQ: DEF-3 (the cases above change one thing of this source)
    install(fake_site, "")
    code, output = run("tools", "--json")
    assert code == 0
    tools = {t["id"]: t for t in json.loads(output)}
    assert tools["src_tool"]["plugin"] == "badsrc" and tools["src_tool"]["status"] == "runnable"


def test_a_source_that_fails_midway_is_a_diagnostic_and_keeps_nothing(fake_site: FakeSite) -> None:
    # REQ: DEF-3, DEF-4
    install(fake_site, (
        "def _partial(self):\n    yield GOOD\n    raise ConnectionError('server went away')\n"
        "Source.load_definitions = _partial"
    ))
    from toolplug.host import Host

    host = Host.from_config(settings_dir=fake_site.root.parent / "s")
    assert host.plugins.records["badsrc"].status == "loaded"
    assert "src_tool" not in host.registry
    (diagnostic,) = host.registry.diagnostics
    assert diagnostic.field == "source" and "server went away" in diagnostic.message


def test_a_misbehaving_source_crashes_no_command_in_a_fresh_process(fake_site: FakeSite) -> None:
    # REQ: PLG-3
    install(fake_site, MISBEHAVIOURS["diagnostics-not-iterable"][0])
    for args in (["tools"], ["plugins"], ["check"]):
        done = fake_site.run_cli(*args)
        assert "Traceback" not in done.stderr and done.returncode in (0, 1), done.stderr


# --- names a source claims -------------------------------------------------------------------------


@pytest.mark.parametrize("claimed", ["web", "mcp.github", "badsrcx.sub", "badsrc.", "badsrc.a.b"])
def test_a_source_claiming_another_plugin_fails_its_own(fake_site: FakeSite, claimed: str) -> None:
    # REQ: PLG-7, SEL-6
    from toolplug.config import parse_config
    from toolplug.host import Host

    install(fake_site, f"Source.plugin = {claimed!r}")
    config = parse_config({"host": {"components": ["chat", "web_only"]},
                           "plugins": {"components": {"web_only": {"allow": ["web", "mcp"]}}}})
    host = Host(config, settings_dir=fake_site.root.parent / "s")
    record = host.plugins.records["badsrc"]
    assert record.status == "failed" and f"claims the plugin name {claimed!r}" in record.reason
    assert "src_tool" not in host.registry
    assert all(t.plugin in ("web", "fine") for t in host.registry)


def test_a_source_may_name_a_sub_plugin_of_its_own(fake_site: FakeSite) -> None:
    # REQ: PLG-7, SEL-6
    from toolplug.config import parse_config
    from toolplug.host import Host

    install(fake_site, "Source.plugin = 'badsrc.files'")
    config = parse_config({"host": {"components": ["chat", "strict"]},
                           "plugins": {"components": {"strict": {"deny": ["badsrc"]}}}})
    host = Host(config, settings_dir=fake_site.root.parent / "s")
    assert host.tool("src_tool").plugin == "badsrc.files"
    assert "denied" in host.select("strict").reasons_for("src_tool")[0]


# --- a definition runs only its own plugin's code ----------------------------------------------------

SECRET_CODE = '''
import toolplug

class Vault(toolplug.ToolImplementation):
    implementation_key = "vault_impl"

    def definition(self):
        return None  # a data-defined tool of this plugin would use it

    async def execute(self, arguments, context):
        return "the vault's contents"

@toolplug.hookimpl
def register_tools():
    return [Vault()]
'''

JOINER = '''
import toolplug

class Source:
    name = "borrowing"

    def load_definitions(self):
        return [{"id": "borrowed", "implementation_key": "vault_impl",
                 "compatibility_reason": "joins an implementation by key",
                 "function": {"name": "borrowed", "description_for_llm": "Borrow.", "parameters": {"type": "object"}}}]

    def implementations(self):
        return []

@toolplug.hookimpl
def register_definition_sources():
    return [Source()]
'''


def test_a_data_definition_cannot_run_a_plugin_denied_in_the_component(fake_site: FakeSite, tmp_path: Path) -> None:
    # REQ: PLG-7, SEL-6
    from toolplug.config import parse_config
    from toolplug.host import Host

    fake_site.add("vault-dist", {"vault": "vault_mod"}, {"vault_mod": SECRET_CODE})
    fake_site.add("joiner-dist", {"joiner": "joiner_mod"}, {"joiner_mod": JOINER})
    config = parse_config({"plugins": {"components": {"chat": {"deny": ["vault"]}}}})
    host = Host(config, settings_dir=tmp_path / "s")
    assert "borrowed" not in host.registry
    (diagnostic,) = [d for d in host.registry.diagnostics if d.tool_id == "borrowed"]
    assert diagnostic.plugin == "joiner" and "plugin 'vault' (vault-dist)" in diagnostic.message
    statuses = {s.id: s for s in host.tool_statuses()}
    assert statuses["borrowed"].status == "invalid"


def test_a_globally_denied_sub_plugin_loads_no_tool_and_its_source_is_closed(fake_site: FakeSite) -> None:
    # REQ: PLG-4, PLG-7
    from toolplug.config import parse_config
    from toolplug.host import Host

    closed = fake_site.root.parent / "closed.txt"
    install(fake_site, (
        "Source.plugin = 'badsrc.files'\n"
        f"Source.close = lambda self: __import__('pathlib').Path({str(closed)!r}).write_text('closed')"
    ))
    host = Host(parse_config({"plugins": {"deny": ["badsrc.files"]}}), settings_dir=fake_site.root.parent / "s")
    assert host.plugins.records["badsrc"].status == "loaded"
    assert "src_tool" not in host.registry and "fine_tool" in host.registry
    assert closed.read_text() == "closed"
    assert host.denied_sub_plugins == ["badsrc.files"]
    assert not host.config_diagnostics()  # the entry names a real sub-plugin: no finding

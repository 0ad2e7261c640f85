"""Plugin discovery, isolation of failures, admin deny, and every hook."""

from __future__ import annotations

import asyncio
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import click
import pytest
from _plugin_fixtures import GOOD_PLUGIN, write_distribution

import toolplug
from toolplug import OptionSource, PluginLoadError, ToolDefinition
from toolplug.config import parse_config
from toolplug.host import Host
from toolplug.plugins import PluginManager


def entry_point(name: str, value: str) -> metadata.EntryPoint:
    return metadata.EntryPoint(name=name, value=value, group="toolplug")


def build_host(
    tmp_path: Path, plugins: list[Any] | None = None, config: dict[str, Any] | None = None, **options: Any
) -> Host:
    """A host with only the given plugin objects and entry points (installed plugins stay out)."""
    options.setdefault("load_entry_points", "entry_points" in options)
    return Host(parse_config(config or {}), plugins=plugins or [], settings_dir=tmp_path / "s", **options)


@toolplug.tool
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


class EchoPlugin:
    @toolplug.hookimpl
    def register_tools(self) -> list[Any]:
        return [echo]


# --- discovery ---------------------------------------------------------------------------------------


def test_installed_distribution_is_discovered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: PLG-1
    write_distribution(tmp_path, "acme-tools", "1.2.3", {"acme": "acme_plugin_mod"}, {"acme_plugin_mod": GOOD_PLUGIN})
    monkeypatch.syspath_prepend(str(tmp_path))
    host = Host.from_config(settings_dir=tmp_path / "s")
    record = host.plugins.records["acme"]
    assert (record.distribution, record.version, record.status) == ("acme-tools", "1.2.3", "loaded")
    assert record.hooks == ["register_tools"]
    assert host.tool("shout").plugin == "acme"


def test_builtin_plugins_are_registered_through_the_same_entry_point_group() -> None:
    # REQ: PLG-1
    names = {ep.name: ep.dist.metadata["Name"] for ep in metadata.entry_points(group="toolplug") if ep.dist}
    assert names.get("web") == "toolplug"
    assert names.get("mcp") == "toolplug"


def test_fake_entry_points_load_without_installation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: PLG-1
    (tmp_path / "fake_ep_mod.py").write_text(GOOD_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    host = build_host(tmp_path, entry_points=[entry_point("fake", "fake_ep_mod")])
    assert host.plugins.records["fake"].status == "loaded"
    assert "shout" in host.registry


BOUND_AND_STATIC_HOOKS = """
import toolplug
from toolplug import ToolParameterSchemaBuilder  # a class: never a hook
LIMIT = 3  # a constant: never a hook

@toolplug.tool
def bound_tool(text: str) -> str:
    '''Found through a bound method.'''
    return text

class _Provider:
    @toolplug.hookimpl
    def register_tools(self):
        return [bound_tool]

register_tools = _Provider().register_tools

@toolplug.hookimpl
def _options():
    return []

register_option_sources = staticmethod(_options)
"""


def test_hooks_of_a_plugin_module_are_found_whatever_callable_form_they_take(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # REQ: PLG-1
    # Module attributes that cannot be hooks are skipped quickly; a bound method or a staticmethod
    # at module level must still be found, as pluggy finds them.
    (tmp_path / "callable_forms_mod.py").write_text(BOUND_AND_STATIC_HOOKS)
    monkeypatch.syspath_prepend(str(tmp_path))
    host = build_host(tmp_path, entry_points=[entry_point("forms", "callable_forms_mod")])
    assert host.plugins.records["forms"].status == "loaded"
    assert "bound_tool" in host.registry
    manager = host.plugins._pm
    options = [impl for impl in manager.hook.register_option_sources.get_hookimpls()
               if manager.get_name(impl.plugin) == "forms"]
    assert [impl.function.__name__ for impl in options] == ["_options"]


# --- isolation of failures ----------------------------------------------------------------------------


def test_plugin_that_fails_to_import_is_reported_and_others_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # REQ: PLG-3
    (tmp_path / "broken_import_mod.py").write_text("import toolplug\nraise RuntimeError('boom at import')\n")
    (tmp_path / "good_mod_a.py").write_text(GOOD_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    host = build_host(
        tmp_path, entry_points=[entry_point("broken", "broken_import_mod"), entry_point("good", "good_mod_a")]
    )
    broken = host.plugins.records["broken"]
    assert broken.status == "failed"
    assert "import failed: RuntimeError: boom at import" in broken.reason
    assert isinstance(broken.error, RuntimeError) and broken.error.__traceback__ is not None
    assert "broken_import_mod" not in sys.modules  # the half-done import was undone
    assert host.plugins.records["good"].status == "loaded"
    assert "shout" in host.registry


def test_strict_mode_makes_a_failure_fatal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: PLG-3
    (tmp_path / "broken_strict_mod.py").write_text("raise ImportError('missing dependency xyz')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("TOOLPLUG_STRICT_PLUGINS", "1")
    with pytest.raises(PluginLoadError, match="missing dependency xyz") as caught:
        build_host(tmp_path, entry_points=[entry_point("broken", "broken_strict_mod")])
    assert isinstance(caught.value.__cause__, ImportError)


class RaisingPlugin:
    @toolplug.hookimpl
    def register_tools(self) -> list[Any]:
        raise ValueError("cannot build my tools")


class WrongReturnPlugin:
    @toolplug.hookimpl
    def register_tools(self) -> Any:
        return echo  # not a list


class WrongItemPlugin:
    @toolplug.hookimpl
    def register_tools(self) -> list[Any]:
        return ["not a tool"]


class WrongOptionPlugin:
    @toolplug.hookimpl
    def register_option_sources(self) -> list[Any]:
        return [{"name": "x"}]


class BadSignaturePlugin:
    @toolplug.hookimpl
    def register_tools(self, unknown_argument: Any) -> list[Any]:
        return []


class BrokenDefinitionPlugin:
    class Broken(toolplug.ToolImplementation):
        implementation_key = "broken"

        def definition(self) -> ToolDefinition:
            raise KeyError("no definition")

    @toolplug.hookimpl
    def register_tools(self) -> list[Any]:
        return [self.Broken()]


@pytest.mark.parametrize(
    ("plugin", "reason"),
    [
        (RaisingPlugin(), "raised ValueError: cannot build my tools"),
        (WrongReturnPlugin(), "must return a list, not FunctionTool"),
        (WrongItemPlugin(), "returned str instead of a ToolImplementation"),
        (WrongOptionPlugin(), "returned dict instead of an OptionSource"),
        (BadSignaturePlugin(), "invalid hook implementation"),
        (BrokenDefinitionPlugin(), "definition() raised KeyError"),
    ],
)
def test_misbehaving_plugin_is_left_out_with_the_reason(tmp_path: Path, plugin: Any, reason: str) -> None:
    # REQ: PLG-3
    host = build_host(tmp_path, plugins=[("bad", plugin), ("good", EchoPlugin())])
    bad = host.plugins.records["bad"]
    assert bad.status == "failed"
    assert reason in bad.reason
    assert host.plugins.records["good"].status == "loaded"
    assert host.registry.ids() == ["echo"]


def test_duplicate_tool_id_rejects_the_later_definition_and_keeps_the_rest_of_its_plugin(tmp_path: Path) -> None:
    # REQ: PLG-7, DEF-4
    class Second:
        @toolplug.hookimpl
        def register_tools(self) -> list[Any]:
            return [echo, toolplug.function_tool("other", "Other tool.", {"type": "object"}, lambda a: "x")]

    host = build_host(tmp_path, plugins=[("second", Second()), ("first", EchoPlugin())])
    assert host.plugins.records["second"].status == "loaded"
    assert host.tool("echo").plugin == "first"  # by name: first < second, whatever the registration order
    assert host.tool("other").plugin == "second"  # the rest of the later plugin stays
    (diagnostic,) = host.registry.diagnostics
    assert (diagnostic.tool_id, diagnostic.plugin, diagnostic.field) == ("echo", "second", "id")
    assert "plugin 'first'" in diagnostic.message and "plugin 'second'" in diagnostic.message
    statuses = {(s.id, s.plugin): s.status for s in host.tool_statuses()}
    assert statuses[("echo", "first")] == "runnable" and statuses[("echo", "second")] == "invalid"


def test_plugin_failing_in_a_later_hook_loses_everything_it_gave(tmp_path: Path) -> None:
    # REQ: PLG-3
    class HalfBroken:
        @toolplug.hookimpl
        def register_tools(self) -> list[Any]:
            return [echo]

        @toolplug.hookimpl
        def register_option_sources(self) -> list[Any]:
            raise RuntimeError("late failure")

    host = build_host(tmp_path, plugins=[("half", HalfBroken())])
    assert host.plugins.records["half"].status == "failed"
    assert len(host.registry) == 0


# --- admin deny --------------------------------------------------------------------------------------


def test_globally_denied_plugin_is_never_imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: PLG-4
    marker = tmp_path / "imported.txt"
    (tmp_path / "denied_plugin_mod.py").write_text(f"open({str(marker)!r}, 'w').write('yes')\n" + GOOD_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    host = build_host(
        tmp_path,
        config={"plugins": {"deny": ["denied"]}},
        entry_points=[entry_point("denied", "denied_plugin_mod")],
    )
    record = host.plugins.records["denied"]
    assert record.status == "denied"
    assert "denied_plugin_mod" not in sys.modules
    assert not marker.exists()
    assert "shout" not in host.registry


def test_direct_registration_respects_global_deny(tmp_path: Path) -> None:
    # REQ: PLG-4
    host = build_host(tmp_path, plugins=[("echoer", EchoPlugin())], config={"plugins": {"deny": ["echoer"]}})
    assert host.plugins.records["echoer"].status == "denied"
    assert "echo" not in host.registry


def test_per_component_allow_and_deny_deny_wins(tmp_path: Path) -> None:
    # REQ: PLG-4
    config = {
        "host": {"components": ["chat", "legal_check", "writer"]},
        "plugins": {
            "components": {
                "legal_check": {"allow": ["echoer"], "deny": ["echoer"]},
                "writer": {"allow": ["other"]},
            }
        },
    }
    host = build_host(tmp_path, plugins=[("echoer", EchoPlugin())], config=config)
    assert [t.id for t in host.select("chat").runnable] == ["echo"]
    legal = host.select("legal_check")
    assert legal.runnable == [] and "denied in the component 'legal_check'" in legal.reasons_for("echo")[0]
    assert "not allowed in the component 'writer'" in host.select("writer").reasons_for("echo")[0]


# --- direct registration --------------------------------------------------------------------------------


def test_host_builds_from_one_call_and_accepts_plugin_objects(tmp_path: Path) -> None:
    # REQ: PLG-5
    host = build_host(tmp_path, plugins=[EchoPlugin()], load_entry_points=False)
    assert host.registry.ids() == ["echo"]
    outcome = asyncio.run(host.call_tool("echo", {"text": "hi"}))
    assert outcome.text == "hi"
    with pytest.raises(PluginLoadError, match="already registered"):
        host.plugins.register(EchoPlugin(), "EchoPlugin")


def test_plugin_manager_records_for_the_cli(tmp_path: Path) -> None:
    # REQ: PLG-6
    manager = PluginManager()
    record = manager.register(EchoPlugin(), "echoer", distribution="acme")
    assert record.as_dict() == {
        "name": "echoer",
        "distribution": "acme",
        "version": None,
        "hooks": ["register_tools"],
        "status": "loaded",
        "reason": "",
    }


# --- every hook, one test each ----------------------------------------------------------------------------


def test_hook_register_tools(tmp_path: Path) -> None:
    # REQ: PLG-2
    host = build_host(tmp_path, plugins=[("echoer", EchoPlugin())])
    assert host.tool("echo").plugin == "echoer"


def test_hook_register_definition_sources(tmp_path: Path) -> None:
    # REQ: PLG-2, DEF-3
    class Greeter(toolplug.ToolImplementation):
        implementation_key = "greet"

        def definition(self) -> None:
            return None  # its definitions come from the data source below

        async def execute(self, arguments: dict[str, Any], context: toolplug.ToolExecutionContext) -> str:
            return f"hello {arguments['name']}"

    class DataSource:
        name = "data"

        def __init__(self, host: Host) -> None:
            self.components = host.config.host.components

        def load_definitions(self) -> list[dict[str, Any]]:
            return [
                {
                    "id": "greet",
                    "implementation_key": "greet",
                    "function": {
                        "name": "greet",
                        "description_for_llm": "Greet someone.",
                        "parameters": {
                            "type": "object",
                            "properties": {"name": {"type": "string"}},
                            "required": ["name"],
                        },
                    },
                }
            ]

        def implementations(self) -> list[Any]:
            return []

    class SourcePlugin:
        @toolplug.hookimpl
        def register_tools(self) -> list[Any]:
            return [Greeter()]

        @toolplug.hookimpl
        def register_definition_sources(self, host: Host) -> list[Any]:
            return [DataSource(host)]

    host = build_host(tmp_path, plugins=[("data", SourcePlugin())])
    assert host.tool("greet").source == "data"
    assert asyncio.run(host.call_tool("greet", {"name": "Ada"})).text == "hello Ada"


def test_hook_register_provider_adapters(tmp_path: Path) -> None:
    # REQ: PLG-2
    class Factory:
        api = "acme-api"

        def create(self, *args: Any, **kwargs: Any) -> Any:
            return None

    class AdapterPlugin:
        @toolplug.hookimpl
        def register_provider_adapters(self) -> list[Any]:
            return [Factory()]

    host = build_host(tmp_path, plugins=[("acme", AdapterPlugin())])
    assert isinstance(host.adapter_factories["acme-api"], Factory)


def test_hook_register_option_sources(tmp_path: Path) -> None:
    # REQ: PLG-2, SET-2
    class Options:
        @toolplug.hookimpl
        def register_option_sources(self) -> list[Any]:
            return [OptionSource.of("colours", [("red", "Red"), ("blue", "Blue")])]

    host = build_host(tmp_path, plugins=[("opts", Options())])
    assert host.option_sources["colours"].values() == ["red", "blue"]
    assert "colours" in host.registry.option_sources


def test_hook_register_injection_filters(tmp_path: Path) -> None:
    # REQ: PLG-2
    class Upper:
        name = "upper"

        def filter(self, texts: Any) -> Any:
            return texts

    class Filters:
        @toolplug.hookimpl
        def register_injection_filters(self) -> list[Any]:
            return [Upper()]

    host = build_host(tmp_path, plugins=[("filters", Filters())])
    assert [f.name for f in host.injection_filters] == ["upper"]


def test_hook_register_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: PLG-2, UX-1
    source = '''
import click
import toolplug

@click.command("hello")
def hello():
    """Say hello."""
    click.echo("hello from a plugin")

@toolplug.hookimpl
def register_commands(cli):
    cli.add_command(hello)
'''
    write_distribution(tmp_path, "acme-cli", "0.1", {"acmecli": "acme_cli_mod"}, {"acme_cli_mod": source})
    monkeypatch.syspath_prepend(str(tmp_path))
    from click.testing import CliRunner

    from toolplug.cli import cli

    assert isinstance(cli, click.Group)
    result = CliRunner().invoke(cli, ["hello"])
    assert result.exit_code == 0, result.output
    assert "hello from a plugin" in result.output
    cli.commands.pop("hello", None)


def test_host_close_releases_what_sources_hold(tmp_path: Path) -> None:
    # REQ: PLG-5, DEF-3
    closed: list[str] = []

    class Held:
        name = "held"

        def load_definitions(self) -> list[Any]:
            return []

        def implementations(self) -> list[Any]:
            return []

        def close(self) -> None:
            closed.append("held")

    class Holder:
        @toolplug.hookimpl
        def register_definition_sources(self) -> list[Any]:
            return [Held()]

    with build_host(tmp_path, plugins=[("holder", Holder())]) as host:
        assert closed == []
    assert closed == ["held"]
    host.close()
    assert closed == ["held"]

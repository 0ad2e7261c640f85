"""Which tools a model sees (SEL-1..8), and why every other tool is left out."""

from __future__ import annotations

import asyncio
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from toolplug import hookimpl
from toolplug.config import parse_config
from toolplug.definitions import ConfidenceLevel, Visibility
from toolplug.errors import ConfigError, ToolNotRunnableError, UsageError
from toolplug.host import Host
from toolplug.schema import ToolSettingsSchemaBuilder
from toolplug.selection import append_instructions, chat_may_continue
from toolplug.tools import FunctionTool, ToolImplementation, function_tool

COMPONENTS = ["chat", "assistants", "legal_check"]


def make_tool(name: str, **definition_fields: Any) -> FunctionTool:
    return function_tool(
        name,
        f"The {name} tool.",
        {"type": "object", "properties": {}},
        lambda arguments: f"{name} ran",
        **definition_fields,
    )


class Plugin:
    """A plugin object registering the given tools directly (PLG-5)."""

    def __init__(self, *tools: ToolImplementation) -> None:
        self._tools = list(tools)

    @hookimpl
    def register_tools(self) -> list[ToolImplementation]:
        return self._tools


def build_host(config_text: str, *plugins: tuple[str, Sequence[ToolImplementation]]) -> Host:
    data = tomllib.loads(config_text)
    data.setdefault("host", {}).setdefault("components", COMPONENTS)
    config = parse_config(data, source="test.toml")
    return Host(config, plugins=[(name, Plugin(*tools)) for name, tools in plugins], load_entry_points=False)


def runnable(host: Host, component: str = "chat", provider: str | None = None, **options: Any) -> set[str]:
    return {tool.id for tool in host.select(component, provider, **options).runnable}


# --- SEL-1: visibility --------------------------------------------------------------------------


VISIBILITY_TOOLS = [
    make_tool("everywhere"),
    make_tool("chat_only", visible_in=Visibility(chat=True, assistants=False)),
    make_tool("assistants_only", visible_in=Visibility(chat=False, assistants=True)),
    make_tool("hidden", visible_in=Visibility(chat=False, assistants=False)),
    # Once a list has an entry the flags no longer apply:
    make_tool("allow_chat", visible_in=Visibility(chat=False, assistants=False, allowed_components=("chat",))),
    make_tool("allow_legal", visible_in=Visibility(allowed_components=("legal_check",))),
    # An empty allow list allows every component, the flags notwithstanding; the deny list still applies.
    make_tool("deny_legal", visible_in=Visibility(chat=False, assistants=False, denied_components=("legal_check",))),
    # The deny list is applied last and wins over the allow list.
    make_tool(
        "allow_and_deny_legal",
        visible_in=Visibility(allowed_components=("chat", "legal_check"), denied_components=("legal_check",)),
    ),
]


@pytest.mark.parametrize(
    ("component", "expected"),
    [
        ("chat", {"everywhere", "chat_only", "allow_chat", "deny_legal", "allow_and_deny_legal"}),
        ("assistants", {"everywhere", "assistants_only", "deny_legal"}),
        ("legal_check", {"everywhere", "assistants_only", "allow_legal"}),
    ],
)
def test_visibility_flags_and_component_lists(component: str, expected: set[str]) -> None:
    # REQ: SEL-1
    host = build_host("", ("p", VISIBILITY_TOOLS))
    assert runnable(host, component) == expected
    selection = host.select(component)
    for excluded in selection.excluded:
        assert any(component in reason for reason in excluded.reasons), excluded.reasons


def test_an_unknown_component_is_a_usage_error_naming_the_components() -> None:
    # REQ: SEL-1
    host = build_host("", ("p", [make_tool("everywhere")]))
    with pytest.raises(UsageError, match="legal_check"):
        host.select("ledger")


# --- SEL-2: selected by the user or by defaults -------------------------------------------------------


def test_the_users_selection_decides() -> None:
    # REQ: SEL-2
    host = build_host("", ("p", [make_tool("alpha"), make_tool("beta"), make_tool("gamma")]))
    assert runnable(host) == {"alpha", "beta", "gamma"}  # no selection and no host defaults: every tool
    selection = host.select(selected=["beta"])
    assert {t.id for t in selection.runnable} == {"beta"}
    assert "not selected" in " ".join(selection.reasons_for("alpha"))
    assert runnable(host, selected=[]) == set()


def test_the_hosts_default_tools_apply_until_the_user_selects() -> None:
    # REQ: SEL-2
    host = build_host('[host]\ndefault_tools = ["alpha"]\n', ("p", [make_tool("alpha"), make_tool("beta")]))
    selection = host.select()
    assert {t.id for t in selection.runnable} == {"alpha"}
    assert "default" in " ".join(selection.reasons_for("beta"))
    assert runnable(host, selected=["beta"]) == {"beta"}


# --- SEL-3: the model's tool support ------------------------------------------------------------------


def test_a_model_without_tool_support_gets_no_tools() -> None:
    # REQ: SEL-3
    config = """
[providers.old]
api = "openai-chat"
model = "text-only"
supports_tools = false
[providers.new]
api = "openai-chat"
model = "tool-caller"
"""
    host = build_host(config, ("p", [make_tool("alpha"), make_tool("beta")]))
    selection = host.select(provider_id="old")
    assert selection.runnable == []
    for tool_id in ("alpha", "beta"):
        assert any("does not support tool calling" in r for r in selection.reasons_for(tool_id))
    assert runnable(host, provider="new") == {"alpha", "beta"}


def test_an_unknown_provider_is_a_config_error_naming_the_providers() -> None:
    # REQ: SEL-5
    host = build_host('[providers.new]\napi = "openai-chat"\nmodel = "m"\n', ("p", [make_tool("alpha")]))
    with pytest.raises(ConfigError, match="new"):
        host.select(provider_id="nope")


# --- SEL-4: configured --------------------------------------------------------------------------------


class KeyedTool(ToolImplementation):
    """A tool with a Required setting and a check beyond presence."""

    implementation_key = "keyed"

    def definition(self) -> Any:
        return make_tool(
            "keyed",
            settings_schema=ToolSettingsSchemaBuilder.create()
            .required("endpoint", description="The service URL.")
            .optional("limit", value_type="integer")
            .build(),
        ).definition()

    def validate_configuration(self, settings: Mapping[str, Any]) -> list[str]:
        problems = []
        if not str(settings.get("endpoint", "")).startswith("https://"):
            problems.append("endpoint must be an https:// URL")
        if settings.get("limit", 1) < 1:
            problems.append("limit must be at least 1")
        return problems

    async def execute(self, arguments: dict[str, Any], context: Any) -> str:
        return "keyed ran"


def test_a_missing_required_setting_excludes_the_tool_and_names_the_setting() -> None:
    # REQ: SEL-4, SEL-7
    host = build_host("", ("p", [KeyedTool(), make_tool("free")]))
    selection = host.select()
    assert {t.id for t in selection.runnable} == {"free"}
    reasons = " ".join(selection.reasons_for("keyed"))
    assert "not configured" in reasons and "endpoint" in reasons
    # Never offered, and never run by a direct call either.
    with pytest.raises(ToolNotRunnableError) as caught:
        asyncio.run(host.call_tool("keyed"))
    assert "endpoint" in str(caught.value)


def test_validate_configuration_problems_exclude_the_tool() -> None:
    # REQ: SEL-4
    host = build_host("", ("p", [KeyedTool()]))
    definition = host.tool("keyed").definition
    host.settings.set(definition, "endpoint", "http://plain.example")
    assert "endpoint must be an https:// URL" in " ".join(host.select().reasons_for("keyed"))
    host.settings.set(definition, "endpoint", "https://api.example")
    host.settings.set(definition, "limit", 0)
    assert "limit must be at least 1" in " ".join(host.select().reasons_for("keyed"))


def test_a_configured_tool_is_runnable() -> None:
    # REQ: SEL-4
    host = build_host("", ("p", [KeyedTool()]))
    host.settings.set(host.tool("keyed").definition, "endpoint", "https://api.example")
    assert runnable(host) == {"keyed"}
    outcome = asyncio.run(host.call_tool("keyed"))
    assert outcome.text == "keyed ran"


def test_a_locked_admin_value_configures_the_tool() -> None:
    # REQ: SEL-4, SET-3
    host = build_host('[tools.keyed]\nlocked = { endpoint = "https://corp.example" }\n', ("p", [KeyedTool()]))
    assert runnable(host) == {"keyed"}


def test_a_validate_configuration_that_raises_excludes_the_tool_without_crashing() -> None:
    # REQ: SEL-4
    class Crashing(KeyedTool):
        def validate_configuration(self, settings: Mapping[str, Any]) -> list[str]:
            raise RuntimeError("parser exploded")

    config = '[tools.keyed]\nlocked = { endpoint = "https://corp.example" }\n'
    host = build_host(config, ("p", [Crashing(), make_tool("free")]))
    selection = host.select()
    assert {t.id for t in selection.runnable} == {"free"}
    assert "parser exploded" in " ".join(selection.reasons_for("keyed"))


def test_an_empty_required_value_counts_as_missing() -> None:
    # REQ: SEL-4
    host = build_host('[tools.keyed]\ndefaults = { endpoint = "" }\n', ("p", [KeyedTool()]))
    assert "endpoint" in " ".join(host.select().reasons_for("keyed"))


# --- SEL-5: provider confidence --------------------------------------------------------------------


PROVIDERS = """
[providers.cloud]
api = "openai-chat"
model = "m"
confidence = "low"
[providers.office]
api = "openai-chat"
model = "m"
confidence = "medium"
[providers.local]
api = "openai-chat"
model = "m"
confidence = "high"
trusted = true
"""


def confidence_tools() -> list[FunctionTool]:
    return [
        make_tool("public", minimum_provider_confidence="untrusted"),
        make_tool("internal", minimum_provider_confidence="medium"),
        make_tool("secret_files", minimum_provider_confidence="high"),
    ]


@pytest.mark.parametrize(
    ("provider", "expected"),
    [
        ("cloud", {"public"}),
        ("office", {"public", "internal"}),  # at the minimum counts as enough
        ("local", {"public", "internal", "secret_files"}),
    ],
)
def test_tools_need_a_provider_at_or_above_their_minimum_confidence(provider: str, expected: set[str]) -> None:
    # REQ: SEL-5
    host = build_host(PROVIDERS, ("p", confidence_tools()))
    selection = host.select(provider_id=provider)
    assert {t.id for t in selection.runnable} == expected
    for excluded in selection.excluded:
        reason = " ".join(excluded.reasons)
        assert excluded.tool.definition.minimum_provider_confidence.label in reason
        assert provider in reason


def test_without_a_provider_confidence_is_not_checked() -> None:
    # REQ: SEL-5 — a person at the CLI is not a model's provider.
    host = build_host(PROVIDERS, ("p", confidence_tools()))
    assert runnable(host) == {"public", "internal", "secret_files"}


def test_a_direct_call_for_a_low_confidence_provider_is_refused_with_the_reason() -> None:
    # REQ: SEL-5
    host = build_host(PROVIDERS, ("p", confidence_tools()))
    with pytest.raises(ToolNotRunnableError, match="high"):
        asyncio.run(host.call_tool("secret_files", provider_id="cloud"))
    assert asyncio.run(host.call_tool("secret_files", provider_id="local")).text == "secret_files ran"


@pytest.mark.parametrize(
    ("required", "confidence", "trusted", "may_continue"),
    [
        (None, ConfidenceLevel.UNTRUSTED, False, True),
        (ConfidenceLevel.MEDIUM, ConfidenceLevel.HIGH, False, True),
        (ConfidenceLevel.MEDIUM, ConfidenceLevel.MEDIUM, False, True),
        (ConfidenceLevel.MEDIUM, ConfidenceLevel.LOW, False, False),
        (ConfidenceLevel.HIGH, ConfidenceLevel.UNKNOWN, False, False),
        (ConfidenceLevel.HIGH, ConfidenceLevel.UNKNOWN, True, True),
        (ConfidenceLevel.HIGH, ConfidenceLevel.LOW, True, True),
    ],
)
def test_a_chat_whose_data_requires_more_continues_only_with_enough_confidence_or_trust(
    required: ConfidenceLevel | None, confidence: ConfidenceLevel, trusted: bool, may_continue: bool
) -> None:
    # REQ: SEL-5 — trusted provider ids may continue chats whose tool data requires more.
    assert chat_may_continue(required, confidence, trusted) is may_continue


def test_trust_comes_from_the_config_and_reaches_the_tool() -> None:
    # REQ: SEL-5
    seen: list[tuple[Any, bool]] = []

    def record(arguments: dict[str, Any], context: Any) -> str:
        seen.append((context.provider_confidence, context.provider_trusted))
        return "ok"

    spy = function_tool("spy", "Record the provider.", {"type": "object", "properties": {}}, record, pass_context=True)
    host = build_host('trusted_provider_ids = ["cloud"]\n' + PROVIDERS, ("p", [spy]))
    for provider in ("cloud", "office", "local"):
        asyncio.run(host.call_tool("spy", provider_id=provider))
    assert seen == [
        (ConfidenceLevel.LOW, True),  # trusted through trusted_provider_ids
        (ConfidenceLevel.MEDIUM, False),
        (ConfidenceLevel.HIGH, True),  # trusted through `trusted = true`
    ]


# --- SEL-6: the admin's plugin policy per component -----------------------------------------------------


def test_the_admin_allows_and_denies_plugins_per_component() -> None:
    # REQ: SEL-6, PLG-4
    config = '[plugins.components.legal_check]\nallow = ["web", "acme"]\ndeny = ["acme"]\n'
    host = build_host(
        config, ("web", [make_tool("search")]), ("acme", [make_tool("acme_tool")]), ("other", [make_tool("other_tool")])
    )
    legal = host.select("legal_check")
    assert {t.id for t in legal.runnable} == {"search"}
    assert "'acme' is denied in the component 'legal_check'" in " ".join(legal.reasons_for("acme_tool"))
    assert "'other' is not allowed in the component 'legal_check'" in " ".join(legal.reasons_for("other_tool"))
    # Other components have no policy: every plugin.
    assert runnable(host, "chat") == {"search", "acme_tool", "other_tool"}


def test_a_deny_list_alone_leaves_every_other_plugin_allowed() -> None:
    # REQ: SEL-6
    host = build_host(
        '[plugins.components.assistants]\ndeny = ["acme"]\n', ("web", [make_tool("search")]), ("acme", [make_tool("a")])
    )
    assert runnable(host, "assistants") == {"search"}


def test_an_empty_allow_list_allows_no_plugin() -> None:
    # REQ: SEL-6 — unlike a visibility list, an admin's explicit empty allow list means "none".
    host = build_host("[plugins.components.assistants]\nallow = []\n", ("web", [make_tool("search")]))
    assert runnable(host, "assistants") == set()
    assert runnable(host, "chat") == {"search"}


# --- SEL-7: reasons -------------------------------------------------------------------------------------


def test_a_tool_left_out_for_several_reasons_carries_every_one() -> None:
    # REQ: SEL-7
    config = PROVIDERS + '[plugins.components.chat]\ndeny = ["p"]\n'
    picky = KeyedTool()
    host = build_host(config, ("p", [picky]))
    selection = host.select("chat", "cloud", selected=[])
    assert selection.runnable == []
    reasons = selection.reasons_for("keyed")
    assert len(reasons) == 3  # the plugin policy, the user's selection, the configuration
    assert all(isinstance(r, str) and r.strip() and "\n" not in r for r in reasons)


def test_every_excluded_tool_has_readable_reasons_and_the_statuses_list_them() -> None:
    # REQ: SEL-7
    host = build_host(
        PROVIDERS,
        ("p", [*confidence_tools(), KeyedTool(), make_tool("hidden", visible_in=Visibility(chat=False))]),
    )
    selection = host.select(provider_id="office")
    assert {t.id for t in selection.excluded} == {"secret_files", "keyed", "hidden"}
    for excluded in selection.excluded:
        assert excluded.reasons and all(r.strip() for r in excluded.reasons)
    statuses = {s.id: s for s in host.tool_statuses("chat", "office")}
    assert statuses["public"].status == "runnable" and statuses["public"].reasons == ()
    for tool_id in ("secret_files", "keyed", "hidden"):
        assert statuses[tool_id].status == "excluded"
        assert statuses[tool_id].reasons == selection.reasons_for(tool_id)
        assert statuses[tool_id].as_dict()["plugin"] == "p"


def test_an_invalid_definition_is_listed_with_what_is_wrong() -> None:
    # REQ: SEL-7 (a rejected definition shows up with its diagnostic instead of vanishing)
    bad = function_tool("Bad-Name", "x", {"type": "object", "properties": {}}, lambda arguments: "x")
    host = build_host("", ("p", [bad, make_tool("good")]))
    statuses = {s.id: s for s in host.tool_statuses()}
    assert statuses["good"].status == "runnable"
    assert statuses["Bad-Name"].status == "invalid"
    assert any("lower-case" in reason for reason in statuses["Bad-Name"].reasons)
    assert "Bad-Name" not in runnable(host)


# --- SEL-8: instructions of the runnable tools ----------------------------------------------------------


def test_only_runnable_tools_contribute_instructions_appended_to_the_system_prompt() -> None:
    # REQ: SEL-8
    tools = [
        make_tool("alpha", system_prompt_instructions="Use alpha only for ALPHA-RULE questions."),
        make_tool("beta", system_prompt_instructions="BETA-RULE applies.", minimum_provider_confidence="high"),
        make_tool("gamma", system_prompt_instructions="   "),
        make_tool("delta", system_prompt_instructions="DELTA-RULE: cite sources."),
    ]
    host = build_host(PROVIDERS, ("p", tools))
    selection = host.select(provider_id="cloud")
    assert {t.id for t in selection.runnable} == {"alpha", "gamma", "delta"}
    combined = selection.instructions
    assert "ALPHA-RULE" in combined and "DELTA-RULE" in combined
    assert "BETA-RULE" not in combined
    assert "gamma" not in combined  # blank instructions add nothing, not even a heading

    prompt = append_instructions("You are a careful assistant.", selection.runnable)
    assert prompt.startswith("You are a careful assistant.")
    assert prompt.index("ALPHA-RULE") > len("You are a careful assistant.")
    assert prompt.endswith(combined)

    # With the trusted high-confidence provider beta becomes runnable and its rule joins in.
    assert "BETA-RULE" in host.select(provider_id="local").instructions


def test_without_instructions_the_system_prompt_stays_as_it_is() -> None:
    # REQ: SEL-8
    host = build_host("", ("p", [make_tool("plain")]))
    selection = host.select()
    assert selection.instructions == ""
    assert append_instructions("Be brief.", selection.runnable) == "Be brief."
    assert append_instructions(None, []) == ""


def test_instructions_alone_when_there_is_no_system_prompt() -> None:
    # REQ: SEL-8
    host = build_host("", ("p", [make_tool("alpha", system_prompt_instructions="ALPHA-RULE")]))
    selection = host.select()
    assert append_instructions(None, selection.runnable) == selection.instructions
    assert "ALPHA-RULE" in selection.instructions


def github_sub_plugin() -> Any:
    """A plugin whose definition source claims the sub-plugin ``mcp.github``."""
    import toolplug

    class Source:
        name = "servers"
        plugin = "mcp.github"

        def load_definitions(self) -> list[Any]:
            return [toolplug.ToolDefinition(
                id="github_issues", implementation_key="github_issues",
                function=toolplug.FunctionSpec(name="github_issues", description_for_llm="Issues."))]

        def implementations(self) -> list[Any]:
            return [toolplug.function_tool("github_issues", "Issues.", {"type": "object"}, lambda a: "x")]

    class Plugin:
        @toolplug.hookimpl
        def register_definition_sources(self) -> list[Any]:
            return [Source()]

    return Plugin()


def test_a_plugin_policy_entry_covers_its_dotted_sub_plugins(tmp_path: Path) -> None:
    # REQ: SEL-6
    config = parse_config({
        "host": {"components": ["chat", "writer", "reader"]},
        "plugins": {"components": {"writer": {"deny": ["mcp"]}, "reader": {"allow": ["mcp"]}}},
    })
    host = Host(config, plugins=[("mcp", github_sub_plugin())], load_entry_points=False, settings_dir=tmp_path)
    assert host.tool("github_issues").plugin == "mcp.github"
    assert "denied" in host.select("writer").reasons_for("github_issues")[0]
    assert [t.id for t in host.select("reader").runnable] == ["github_issues"]


def test_only_the_owning_plugin_creates_its_sub_plugins(tmp_path: Path) -> None:
    # REQ: PLG-7, SEL-6
    config = parse_config({
        "host": {"components": ["chat", "reader"]},
        "plugins": {"components": {"reader": {"allow": ["mcp"]}}},
    })
    for impostor in ("impostor", "mcpx"):
        host = Host(config, plugins=[(impostor, github_sub_plugin())], load_entry_points=False, settings_dir=tmp_path)
        record = host.plugins.records[impostor]
        assert record.status == "failed" and "claims the plugin name 'mcp.github'" in record.reason
        assert "github_issues" not in host.registry

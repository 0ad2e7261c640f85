"""MCP tool output for the model, and the ``[mcp]`` config: pure functions, no server needed."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from toolplug.definitions import OutputType
from toolplug.errors import ConfigError
from toolplug_mcp.config import parse_mcp_config
from toolplug_mcp.errors import MCPDependencyError, MCPToolCallError
from toolplug_mcp.output import USER_ONLY_NOTE, call_result_to_output, to_model_output
from toolplug_mcp.source import tool_id_for, unsupported_feature

# --- output conversion (the seed's "MCP tool output") ------------------------------------------------


@pytest.mark.parametrize(
    ("output", "expected_text"),
    [('"sunny"', "sunny"), ("sunny and warm", "sunny and warm"), (b"plain bytes", "plain bytes")],
)
def test_a_json_string_or_text_that_is_not_json_becomes_text(output: Any, expected_text: str) -> None:
    # REQ: MCP-4
    result = to_model_output(output)
    assert result.output_type is OutputType.TEXT
    assert result.text_content == expected_text


@pytest.mark.parametrize(
    ("output", "expected"),
    [("42", 42), ("true", True), ("null", None), ("", None), (None, None), (3.5, 3.5), ({"a": 1}, {"a": 1}),
     ('{"content": "not a list"}', {"content": "not a list"})],
)
def test_numbers_booleans_null_empty_missing_and_objects_without_content_become_json(
    output: Any, expected: Any
) -> None:
    # REQ: MCP-4
    result = to_model_output(output)
    assert result.output_type is OutputType.JSON
    assert result.json_content == expected
    assert result.text_content is None


def test_an_object_with_a_content_array_becomes_content_parts() -> None:
    # REQ: MCP-4 — text keeps its text, any other part becomes text holding its JSON
    link = {"type": "resource_link", "uri": "file:///a.txt", "name": "a"}
    result = to_model_output(json.dumps({"content": [{"type": "text", "text": "sunny"}, link], "isError": False}))
    assert result.output_type is OutputType.CONTENT
    assert result.content == [
        {"type": "text", "text": "sunny"},
        {"type": "text", "text": json.dumps(link, sort_keys=True)},
    ]


def test_image_parts_become_file_parts_never_base64_text() -> None:
    # REQ: MCP-4
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    resource = {"uri": "file:///docs/r.pdf", "mimeType": "application/pdf", "blob": "AAE="}
    blob = {"type": "resource", "resource": resource}
    result = to_model_output({"content": [image, blob]})
    assert result.content == [
        {"type": "file", "media_type": "image/png", "data": "iVBORw0KGgo="},
        {"type": "file", "media_type": "application/pdf", "data": "AAE=", "filename": "r.pdf"},
    ]
    assert "iVBORw0KGgo=" not in result.model_text() and "AAE=" not in result.model_text()  # what a model reads


def test_structured_content_is_used_when_present() -> None:
    # REQ: MCP-4
    result = call_result_to_output({"content": [{"type": "text", "text": "21 C"}], "structuredContent": {"t": 21}})
    assert result.output_type is OutputType.JSON
    assert result.json_content == {"t": 21}


def test_content_for_the_user_only_is_kept_for_display_and_its_annotations_in_the_metadata() -> None:
    # REQ: MCP-6 REQ: MCP-4
    user = {"type": "text", "text": "Saved 3 files.", "annotations": {"audience": ["user"], "priority": 0.2,
                                                                       "lastModified": "2026-01-01T00:00:00Z"}}
    both = {"type": "text", "text": "3 files", "annotations": {"audience": ["assistant", "user"], "priority": 1}}
    result = call_result_to_output({"content": [user, both], "structuredContent": {"files": 3}})
    assert result.json_content == {"files": 3} and "Saved 3 files." not in result.model_text()
    assert result.display_content == [{"type": "text", "text": "Saved 3 files."}]
    assert result.metadata == {"mcp": {"annotations": [
        {"part": "display_content", "index": 0, "audience": ["user"], "priority": 0.2,
         "lastModified": "2026-01-01T00:00:00Z"},
        {"part": "content", "index": 0, "audience": ["assistant", "user"], "priority": 1},
    ]}}


def test_a_result_only_for_the_user_tells_the_model_so_and_sends_none_of_it() -> None:
    # REQ: MCP-6
    plan = {"type": "text", "text": "secret plan", "annotations": {"audience": ["user"]}}
    result = to_model_output({"content": [plan]})
    assert result.content == [{"type": "text", "text": USER_ONLY_NOTE}]
    assert "secret plan" not in result.model_text()
    assert result.display_content == [{"type": "text", "text": "secret plan"}]


def test_is_error_raises_with_the_servers_text() -> None:
    # REQ: MCP-4
    with pytest.raises(MCPToolCallError, match=r"^no such city$"):
        call_result_to_output({"content": [{"type": "text", "text": "no such city"}], "isError": True})


# --- ids and unsupported client features ----------------------------------------------------------


@pytest.mark.parametrize(
    ("server", "tool", "expected"),
    [("weather", "Get-Forecast", "weather_get_forecast"), ("gh", "search.issues", "gh_search_issues"),
     ("9s", "x", "mcp_9s_x")],
)
def test_tool_ids_are_valid_lower_case_ids_from_server_and_tool(server: str, tool: str, expected: str) -> None:
    # REQ: MCP-3
    assert tool_id_for(server, tool) == expected


def test_long_tool_ids_stay_within_64_characters_and_distinct() -> None:
    # REQ: MCP-3
    first, second = tool_id_for("s", "a" * 80 + "1"), tool_id_for("s", "a" * 80 + "2")
    assert len(first) <= 64 and len(second) <= 64 and first != second


def test_tools_needing_task_support_or_declared_client_features_are_left_out_with_a_reason() -> None:
    # REQ: MCP-3
    assert "task" in (unsupported_feature({"name": "t", "execution": {"taskSupport": "required"}}) or "")
    assert unsupported_feature({"name": "t", "execution": {"taskSupport": "optional"}}) is None
    reason = unsupported_feature({"name": "t", "_meta": {"requiredClientCapabilities": ["sampling", "elicitation"]}})
    assert reason is not None and "elicitation, sampling" in reason


# --- config ---------------------------------------------------------------------------------------------


def test_config_infers_the_transport_and_keeps_timeouts_and_filters() -> None:
    # REQ: MCP-3
    config = parse_mcp_config(
        {"servers": {"a": {"command": "srv", "timeout": 5, "tool_timeouts": {"slow": 60}, "exclude": ["x"]},
                     "b": {"url": "http://127.0.0.1:1/mcp"}, "c": {"transport": "sse", "url": "http://h/sse"}}}
    )
    a, b, c = config.servers["a"], config.servers["b"], config.servers["c"]
    assert (a.kind, b.kind, c.kind) == ("stdio", "http", "sse")
    assert (a.timeout_for("slow"), a.timeout_for("fast")) == (60, 5)
    assert not a.takes("x") and a.takes("y")


def test_the_names_other_clients_use_are_aliases_streamable_http_and_a_command_list() -> None:
    # REQ: MCP-6 — as users copy them from other clients' configs
    config = parse_mcp_config(
        {"servers": {"npx": {"command": ["npx", "-y", "@modelcontextprotocol/server-everything"], "args": ["stdio"]},
                     "web": {"transport": "streamable-http", "url": "http://127.0.0.1:1/mcp"}}}
    )
    npx, web = config.servers["npx"], config.servers["web"]
    assert (npx.kind, npx.command, npx.args) == ("stdio", "npx", ("-y", "@modelcontextprotocol/server-everything",
                                                                  "stdio"))
    assert web.kind == "http"


@pytest.mark.parametrize(
    ("table", "key", "message"),
    [
        ({"command": []}, "mcp.servers.a.command", "an empty list names no program"),
        ({"command": ["npx", 3]}, "mcp.servers.a.command", "every item of the list must be a string"),
        ({"command": ["", "x"]}, "mcp.servers.a.command", "the first item (the program) is empty"),
        ({"command": ["npx", "srv"], "args": "--verbose"}, "mcp.servers.a.args", "must be a list of strings"),
        ({"transport": "streamable", "url": "http://h/mcp"}, "mcp.servers.a.transport", "'stdio', 'http' or 'sse'"),
        ({"transport": "streamable-http", "command": ["srv"]}, "mcp.servers.a", "transport 'http' needs url"),
    ],
)
def test_real_mistakes_near_the_aliases_still_raise_config_error_naming_the_key(
    table: dict[str, Any], key: str, message: str
) -> None:
    # REQ: MCP-6 REQ: MCP-3
    with pytest.raises(ConfigError) as caught:
        parse_mcp_config({"servers": {"a": table}}, source="host.toml")
    assert caught.value.key == key
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("servers", "key"),
    [
        ({"a": {"transport": "http"}}, "mcp.servers.a"),
        ({"a": {"command": "x", "timeout": 0}}, "mcp.servers.a.timeout"),
        ({"a": {"command": "x", "colour": "red"}}, "mcp.servers.a.colour"),
        ({"a": {"url": "ftp://x"}}, "mcp.servers.a.url"),
        ({"bad name!": {"command": "x"}}, "mcp.servers.bad name!"),
    ],
)
def test_a_bad_mcp_config_raises_config_error_naming_the_key(servers: dict[str, Any], key: str) -> None:
    # REQ: MCP-3
    with pytest.raises(ConfigError) as caught:
        parse_mcp_config({"servers": servers}, source="host.toml")
    assert caught.value.key == key
    assert key in str(caught.value) and "host.toml" in str(caught.value)


# --- the optional dependency ------------------------------------------------------------------------


def test_a_missing_sdk_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: MCP-1
    from toolplug_mcp.sdk import require_sdk

    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(MCPDependencyError, match=r"pip install 'toolplug\[mcp\]'"):
        require_sdk("toolplug serve")


def test_the_plugin_does_not_import_the_sdk_without_an_mcp_server() -> None:
    # REQ: MCP-1 — start-up stays cheap: no [mcp] servers, no `import mcp`
    code = (
        "import sys; from toolplug.host import Host; from toolplug.config import HostConfig; "
        "host = Host(HostConfig()); assert host.plugins.records['mcp'].status == 'loaded'; "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types'))))"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"

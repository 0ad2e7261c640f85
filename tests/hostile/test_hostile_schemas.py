"""Hostile schemas: remote refs, deep nesting, ref fan-outs, values that are not JSON.

Each case is a schema a plugin, a data file or an MCP server could bring. The registry must turn it
into a diagnostic at registration, never do I/O, never crash the process, and a schema it accepts
must never fail at call time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolplug
from toolplug import FunctionSpec, ToolDefinition, ToolRegistry
from toolplug.calls import check_tool_call
from toolplug.messages import ToolCallPart
from toolplug.registry import Origin, RegisteredTool
from toolplug.schema import ArgumentValidator, SchemaProblem, check_schema, check_untrusted
from toolplug.strict import strict_conversion


class _Tool(toolplug.ToolImplementation):
    implementation_key = "hostile"

    async def execute(self, arguments: dict[str, Any], context: Any) -> str:
        return "ran"


def _register(parameters: Any) -> ToolRegistry:
    definition = ToolDefinition.model_construct(
        id="hostile",
        implementation_key="hostile",
        function=FunctionSpec.model_construct(
            name="hostile", description_for_llm="A hostile tool.", parameters=parameters, strict=True
        ),
        **{name: f.get_default(call_default_factory=True) for name, f in ToolDefinition.model_fields.items()
           if name not in ("id", "implementation_key", "function")},
    )
    registry = ToolRegistry()
    registry.add(definition, {"hostile": (_Tool(), Origin("evil"))}, Origin("evil"))
    return registry


def _diagnosed(parameters: Any, words: str) -> None:
    registry = _register(parameters)
    assert "hostile" not in registry
    messages = [d.message for d in registry.diagnostics if d.field == "function.parameters"]
    assert messages, registry.diagnostics
    assert words in messages[0], messages


class _CountingServer:
    """A loopback HTTP server that serves a schema and counts every request."""

    def __init__(self) -> None:
        self.requests = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.requests += 1
                body = json.dumps({"type": "integer"}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/schema+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> _CountingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def schema_server() -> Iterator[_CountingServer]:
    with _CountingServer() as server:
        yield server


# --- no I/O, ever -----------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_a_remote_ref_is_a_diagnostic_and_nothing_is_fetched(schema_server: _CountingServer, scheme: str) -> None:
    # REQ: DEF-9, DEF-4
    url = schema_server.url.replace("http", scheme, 1) + "/evil.json"
    schema = {"type": "object", "properties": {"n": {"$ref": url}}}
    _diagnosed(schema, "only local refs")
    with pytest.raises(SchemaProblem, match="only local refs"):
        ArgumentValidator(schema)
    assert strict_conversion(schema).unconvertible
    assert schema_server.requests == 0


def test_a_remote_ref_behind_a_root_id_or_a_relative_path_is_refused(schema_server: _CountingServer) -> None:
    # REQ: DEF-9
    for schema in (
        {"$id": f"{schema_server.url}/root.json", "type": "object", "properties": {"n": {"$ref": "other.json"}}},
        {"type": "object", "properties": {"n": {"$ref": "other.json#/x"}}},
        {"type": "object", "properties": {"n": {"$id": f"{schema_server.url}/sub", "$ref": "#/x"}}},
        {"$schema": f"{schema_server.url}/meta", "type": "object"},
    ):
        with pytest.raises(SchemaProblem):
            check_schema(schema)
        with pytest.raises(SchemaProblem):
            ArgumentValidator(schema)
    assert schema_server.requests == 0


def test_a_file_ref_never_reads_the_file(tmp_path: Path) -> None:
    # REQ: DEF-9
    marker = tmp_path / "marker.json"
    marker.write_text(json.dumps({"type": "integer"}))
    for ref in (marker.as_uri(), str(marker), f"{marker.as_uri()}#/"):
        schema = {"type": "object", "properties": {"n": {"$ref": ref}}}
        _diagnosed(schema, "only local refs")
        with pytest.raises(SchemaProblem):
            ArgumentValidator(schema)


def test_a_tool_built_around_the_registry_still_never_fetches(schema_server: _CountingServer) -> None:
    # REQ: DEF-9, EXE-4
    definition = ToolDefinition(
        id="hostile", implementation_key="hostile",
        function=FunctionSpec(
            name="hostile", description_for_llm="x",
            parameters={"type": "object", "properties": {"n": {"$ref": f"{schema_server.url}/n.json"}}},
        ),
    )
    registered = RegisteredTool(definition, _Tool())
    parsed = check_tool_call(ToolCallPart("c1", "hostile", '{"n": 1}'), {"hostile": registered})
    assert parsed.invalid and "only local refs" in str(parsed.error)
    assert schema_server.requests == 0


# --- size, depth and work ---------------------------------------------------------------------------


def _run_isolated(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def test_a_schema_nested_15000_levels_deep_is_a_diagnostic_not_a_crash() -> None:
    # REQ: DEF-9, DEF-4
    done = _run_isolated("""
        from toolplug import FunctionSpec, ToolDefinition, ToolRegistry, ToolImplementation
        from toolplug.registry import Origin
        from toolplug.schema import ArgumentValidator, SchemaProblem
        from toolplug.strict import strict_conversion
        root = node = {"type": "object", "properties": {}}
        for _ in range(15000):
            child = {"type": "object", "properties": {}}
            node["properties"]["a"] = child
            node = child
        definition = ToolDefinition(id="deep", implementation_key="deep",
            function=FunctionSpec(name="deep", description_for_llm="x", parameters=root, strict=True))
        tool = ToolImplementation(); tool.implementation_key = "deep"
        registry = ToolRegistry()
        registry.add(definition, {"deep": (tool, Origin("evil"))}, Origin("evil"))
        assert "deep" not in registry
        print(registry.diagnostics[0].message)
        try:
            ArgumentValidator(root)
        except SchemaProblem as exc:
            print("validator:", exc)
        print("strict:", strict_conversion(root).unconvertible[0])
    """)
    assert done.returncode == 0, done.stderr
    assert "nested deeper than" in done.stdout
    assert "validator: the schema is nested deeper" in done.stdout
    assert "strict: the schema is nested deeper" in done.stdout


def test_arguments_nested_15000_levels_deep_are_invalid_input_not_a_crash() -> None:
    # REQ: DEF-9, EXE-4
    done = _run_isolated("""
        import json
        from toolplug import function_tool
        from toolplug.calls import check_tool_call
        from toolplug.messages import ToolCallPart
        from toolplug.registry import RegisteredTool
        tree = {"type": "object", "properties": {"a": {"$ref": "#"}}}
        tool = RegisteredTool.from_implementation(function_tool("tree", "x", tree, lambda a: "ok"))
        value = inner = {}
        for _ in range(15000):
            inner["a"] = {}
            inner = inner["a"]
        parsed = check_tool_call(ToolCallPart("c1", "tree", value), {"tree": tool})
        print(parsed.invalid, parsed.error)
        text = "[" * 15000 + "]" * 15000
        parsed = check_tool_call(ToolCallPart("c2", "tree", '{"a": ' + text + "}"), {"tree": tool})
        print(parsed.invalid, parsed.error)
    """)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first.startswith("True") and "nested deeper than" in first
    assert second.startswith("True") and "nested too deeply" in second


def _fan_out(levels: int) -> dict[str, Any]:
    defs: dict[str, Any] = {f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
                            for i in range(levels)}
    defs[f"d{levels}"] = {"type": "string"}
    return {"type": "object", "properties": {"a": {"$ref": "#/$defs/d0"}}, "$defs": defs}


def test_a_ref_fan_out_of_2_kb_is_rejected_at_registration() -> None:
    # REQ: DEF-9
    schema = _fan_out(30)  # 2^30 paths through 30 definitions
    assert len(json.dumps(schema, separators=(",", ":"))) < 2048
    _diagnosed(schema, "a $ref fan-out")
    with pytest.raises(SchemaProblem, match="fan-out"):
        ArgumentValidator(schema)


def test_a_small_fan_out_is_fine() -> None:
    # REQ: DEF-9
    check_schema(_fan_out(6))


def test_a_ref_loop_that_moves_nowhere_is_refused() -> None:
    # REQ: DEF-9
    _diagnosed({"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                "properties": {"x": {"$ref": "#/$defs/a"}}}, "without moving into the value")


def test_a_recursion_that_doubles_every_level_is_refused() -> None:
    # REQ: DEF-9
    node = {"type": "object", "properties": {"c": {"anyOf": [{"$ref": "#/$defs/n"}, {"$ref": "#/$defs/n"}]}}}
    _diagnosed({"type": "object", "$defs": {"n": node}, "properties": {"root": {"$ref": "#/$defs/n"}}},
               "more than once into the same place")


def test_ordinary_recursion_is_accepted() -> None:
    # REQ: DEF-9
    tree = {"type": "object", "properties": {"left": {"$ref": "#"}, "right": {"$ref": "#"}, "value": {}}}
    check_schema(tree)
    json_value = {"$defs": {"j": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/j"}},
                                            {"type": "object", "additionalProperties": {"$ref": "#/$defs/j"}}]}},
                  "type": "object", "properties": {"v": {"$ref": "#/$defs/j"}}}
    check_schema(json_value)


def test_a_huge_schema_is_refused_before_it_is_read() -> None:
    # REQ: DEF-9
    _diagnosed({"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(12000)}},
               "more than")
    _diagnosed({"type": "object", "description": "x" * 1_100_000}, "characters")


# --- not JSON, dangling, unsupported ---------------------------------------------------------------


class _Opaque:
    pass


@pytest.mark.parametrize(
    ("parameters", "words"),
    [
        ({"type": "object", "properties": {"a": {"enum": {1, 2}}}}, "a set is not JSON"),
        ({"type": "object", "properties": {"a": {"enum": [_Opaque()]}}}, "_Opaque is not JSON"),
        ({"type": "object", "properties": {"a": {"type": "number", "maximum": float("nan")}}}, "not a JSON number"),
        ({"type": "object", "properties": {"a": {"type": "number", "minimum": float("-inf")}}}, "not a JSON number"),
        ({"type": "object", "properties": {1: {"type": "string"}}}, "is not a string"),
        ({"type": "object", "properties": {"a": {"const": {(1, 2): 3}}}}, "is not a string"),
        ({"type": "object", "properties": {"a": ("x",)}}, "tuple is not JSON"),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}, "dangling"),
        ({"type": "object", "properties": {"a": {"$ref": "#/properties/b/items"}}}, "dangling"),
        ({"type": "object", "properties": {"a": {"$ref": "#anchor"}}}, "anchor"),
        ({"type": "object", "properties": {"a": {"$dynamicRef": "#meta"}}}, "not supported"),
        ({"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}}, "regex"),
        ({"type": "object", "properties": {"a": {"type": "strnig"}}}, "not a valid JSON Schema"),
        ({"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"}, "unknown $schema"),
    ],
    ids=["set", "object", "nan", "infinity", "int-key", "tuple-key", "tuple", "dangling", "dangling-deep",
         "anchor", "dynamic-ref", "bad-regex", "typo-type", "unknown-dialect"],
)
def test_what_is_not_safe_json_schema_is_a_diagnostic(parameters: Any, words: str) -> None:
    # REQ: DEF-9, DEF-4
    _diagnosed(parameters, words)


def test_a_dangling_ref_fails_check_not_the_call() -> None:
    # REQ: DEF-9
    tool = toolplug.function_tool(
        "dangling", "x", {"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}, lambda a: "ok"
    )
    with pytest.raises(toolplug.DefinitionError, match="dangling"):
        RegisteredTool.from_implementation(tool)


# --- what passes registration never fails at call time -----------------------------------------------

_KEYWORD_VALUES = st.sampled_from([
    {"type": "string"}, {"type": "integer", "minimum": 0}, {"type": "number", "exclusiveMaximum": 5},
    {"type": "boolean"}, {"type": "null"}, {"enum": ["a", 1, None]}, {"const": "x"},
    {"type": "string", "format": "date"}, {"type": "string", "format": "uuid"}, {"type": "string", "pattern": "^a+$"},
    {"type": "string", "minLength": 2}, {"$ref": "#/$defs/d"}, {"$ref": "#"}, {"$ref": "#/$defs/missing"},
    {"$ref": "http://127.0.0.1:9/x"}, {"not": {"type": "string"}}, {"type": "strnig"}, {"minimum": "x"},
    True, False, {},
])


def _schemas() -> st.SearchStrategy[Any]:
    return st.recursive(
        _KEYWORD_VALUES,
        lambda inner: st.one_of(
            st.builds(lambda p, r: {"type": "object", "properties": p, "required": r},
                      st.dictionaries(st.sampled_from("abc"), inner, max_size=3), st.lists(st.sampled_from("abc"))),
            st.builds(lambda i: {"type": "array", "items": i}, inner),
            st.builds(lambda b: {"anyOf": b}, st.lists(inner, min_size=1, max_size=3)),
            st.builds(lambda b: {"allOf": b}, st.lists(inner, min_size=1, max_size=2)),
            st.builds(lambda m: {"type": "object", "additionalProperties": m}, inner),
        ),
        max_leaves=12,
    )


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=15,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=_schemas(), definition=st.one_of(st.none(), _schemas()), value=_JSON)
def test_a_schema_the_registry_accepts_never_fails_at_call_time(body: Any, definition: Any, value: Any) -> None:
    # REQ: DEF-9, EXE-4
    parameters: dict[str, Any] = {"type": "object", "properties": {"x": body}}
    if definition is not None:
        parameters["$defs"] = {"d": definition}
    registry = _register(parameters)
    if "hostile" not in registry:
        return
    tool = registry.get("hostile")
    for arguments in ({"x": value}, value):
        parsed = check_tool_call(ToolCallPart("c1", "hostile", arguments), {"hostile": tool})
        assert parsed.invalid == (not tool.validator.is_valid(parsed.input))
    conversion = strict_conversion(parameters)
    assert conversion.convertible or conversion.unconvertible
    if conversion.convertible:
        conversion.undo({"x": value})


# --- every problem names its place ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parameters", "place"),
    [
        ({"type": "object", "properties": {"a": {"enum": ["x", float("nan")]}}}, "at /properties/a/enum/1:"),
        ({"type": "object", "properties": {"a": {"default": {"deep": [1, {2: "x"}]}}}},
         "at /properties/a/default/deep/1:"),
        ({"type": "object", "properties": {1: {"type": "string"}}}, "at /properties:"),
        ({"type": "object", "properties": {"a": {"items": [{"type": "string"}, 5]}}}, "at /properties/a/items/1:"),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}, "at /properties/a/$ref:"),
        ({"type": "object", "anyOf": [{}, {"$ref": "https://127.0.0.1:9/x"}]}, "at /anyOf/1/$ref:"),
        ({"type": "object", "properties": {"a": {"$id": "other"}}}, "at /properties/a/$id:"),
        ({"type": "object", "properties": {"a": {"examples": [{"k": {1, 2}}]}}}, "at /properties/a/examples/0/k:"),
    ],
    ids=["nan-in-enum", "int-key-deep", "int-property-name", "int-schema-in-items", "dangling-ref", "remote-ref",
         "nested-id", "set-in-examples"],
)
def test_each_schema_problem_names_the_place_it_was_found(parameters: Any, place: str) -> None:
    # REQ: DEF-9
    with pytest.raises(SchemaProblem) as caught:
        check_schema(parameters)
    assert str(caught.value).startswith(place), str(caught.value)


def test_too_deep_names_the_place_where_the_cap_was_passed() -> None:
    # REQ: DEF-9
    schema: dict[str, Any] = {"type": "object", "default": []}
    inner = schema["default"]
    for _ in range(200):
        inner.append([])
        inner = inner[0]
    with pytest.raises(SchemaProblem) as caught:
        check_schema(schema)
    message = str(caught.value)
    assert "nested deeper than 128 levels (at /default/0/0/" in message, message


class _Strange:
    pass


_BAD_LEAVES = st.sampled_from([{1, 2}, float("nan"), float("inf"), ("t",), _Strange(), b"bytes", 1 + 2j])
_PLAIN = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(
    max_size=4
)


def _values(bad: bool) -> st.SearchStrategy[Any]:
    leaves = _PLAIN | _BAD_LEAVES if bad else _PLAIN
    keys = st.text(max_size=3) | (st.integers() if bad else st.nothing())
    return st.recursive(
        leaves, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3), max_leaves=12
    )


def _plain_json(value: Any) -> bool:
    """The test's own, recursive reading of "plain JSON" (the values here are shallow)."""
    if isinstance(value, dict):
        return all(type(key) is str and _plain_json(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_plain_json(item) for item in value)
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    return value is None or isinstance(value, str | int | bool)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=st.one_of(_values(bad=False), _values(bad=True)), where=st.sampled_from(["default", "const", "examples"]))
def test_the_walk_refuses_exactly_what_is_not_plain_json(value: Any, where: str) -> None:
    # REQ: DEF-9
    schema = {"type": "object", "properties": {"a": {where: value}}}
    if _plain_json(value):
        check_untrusted(schema)  # nothing is refused that is plain JSON
    else:
        with pytest.raises(SchemaProblem):
            check_untrusted(schema)

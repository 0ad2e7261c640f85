"""Real-world schemas: pydantic models, zod as TypeScript MCP servers publish it, the MCP reference servers.

Each schema must pass the registry, validate its valid and invalid calls exactly as ``jsonschema`` (the
second oracle) does, and either go strict with a round trip for every valid call, or say why not.
The JSON files under ``tests/corpus/`` were generated once; its README says how.
"""

from __future__ import annotations

import datetime
import enum
import json
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema
import pytest
from pydantic import BaseModel, ConfigDict, Field

from toolplug import function_tool
from toolplug.calls import check_tool_call
from toolplug.messages import ToolCallPart
from toolplug.registry import RegisteredTool
from toolplug.schema import check_schema, compile_validator
from toolplug.strict import strict_conversion

CORPUS = Path(__file__).parent / "corpus"
ZOD: dict[str, Any] = json.loads((CORPUS / "zod_schemas.json").read_text(encoding="utf-8"))
MCP: dict[str, list[dict[str, Any]]] = json.loads((CORPUS / "mcp_reference_servers.json").read_text(encoding="utf-8"))


# --- pydantic models with every feature -----------------------------------------------------------------


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


class Point(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: float
    y: float = 0.0


class Circle(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["circle"]
    radius: Annotated[float, Field(gt=0)]


class Square(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["square"]
    side: Annotated[float, Field(gt=0)]
    label: str | None = None


class Folder(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    children: list[Folder] = []


class Everything(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: Annotated[str, Field(min_length=1, max_length=40, description="The title.")]
    count: Annotated[int, Field(ge=0, le=100)] = 1
    colour: Colour = Colour.RED
    mode: Literal["fast", "careful"] = "fast"
    lang: Literal["en"] = "en"
    shape: Circle | Square = Field(discriminator="kind")
    points: list[Point] = []
    origin: Point | None = None
    tags: set[str] = set()
    when: datetime.date | None = None
    at: datetime.datetime | None = None
    ident: uuid.UUID | None = None
    tree: Folder | None = None
    code: Annotated[str, Field(pattern=r"^[A-Z]{3}$")] | None = None


class OpenModel(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str


class WithMap(BaseModel):
    model_config = ConfigDict(extra="forbid")
    counts: dict[str, int]


EVERYTHING_VALID = [
    {"title": "t", "shape": {"kind": "circle", "radius": 1}},
    {"title": "t", "count": 3, "colour": "green", "mode": "careful", "lang": "en",
     "shape": {"kind": "square", "side": 2, "label": None}, "points": [{"x": 1}, {"x": 1, "y": 2}],
     "origin": None, "tags": ["a", "b"], "when": "2024-02-29", "at": "2024-05-01T10:00:00Z",
     "ident": "0f8fad5b-d9cb-469f-a165-70867728950e",
     "tree": {"name": "root", "children": [{"name": "a", "children": []}]}, "code": "ABC"},
]
EVERYTHING_INVALID = [
    {"shape": {"kind": "circle", "radius": 1}},
    {"title": "", "shape": {"kind": "circle", "radius": 1}},
    {"title": "t", "count": 101, "shape": {"kind": "circle", "radius": 1}},
    {"title": "t", "colour": "blue", "shape": {"kind": "circle", "radius": 1}},
    {"title": "t", "lang": "de", "shape": {"kind": "circle", "radius": 1}},
    {"title": "t", "shape": {"kind": "circle", "radius": 0}},
    {"title": "t", "shape": {"kind": "triangle"}},
    {"title": "t", "shape": {"kind": "circle", "radius": 1}, "points": [{"y": 1}]},
    {"title": "t", "shape": {"kind": "circle", "radius": 1}, "tags": ["a", "a"]},
    {"title": "t", "shape": {"kind": "circle", "radius": 1}, "when": "2024-02-30"},
    {"title": "t", "shape": {"kind": "circle", "radius": 1}, "code": "abc"},
    {"title": "t", "shape": {"kind": "circle", "radius": 1}, "tree": {"children": []}},
    {"title": "t", "shape": {"kind": "circle", "radius": 1}, "surprise": 1},
]

# (schema, valid calls, invalid calls, goes strict)
CASES: dict[str, tuple[dict[str, Any], list[Any], list[Any], bool]] = {
    "pydantic-everything": (Everything.model_json_schema(), EVERYTHING_VALID, EVERYTHING_INVALID, True),
    "pydantic-extra-allow": (OpenModel.model_json_schema(), [{"name": "a", "more": 1}], [{}], False),
    "pydantic-dict": (WithMap.model_json_schema(), [{"counts": {"a": 1}}], [{"counts": {"a": "x"}}], False),
    "zod-basic": (ZOD["basic"], [{"query": "q"}, {"query": "q", "limit": 5, "mode": "careful"}],
                  [{"query": ""}, {"query": "q", "limit": 0}, {"query": "q", "limit": 1.5}, {"query": "q", "x": 1}],
                  True),
    "zod-edits": (ZOD["edits"], [{"path": "p", "edits": [{"oldText": "a", "newText": "b"}]},
                                 {"path": "p", "edits": [{"oldText": "a", "newText": "b", "replaceAll": True}],
                                  "dryRun": False}],
                  [{"path": "p", "edits": []}, {"path": "p", "edits": [{"oldText": "a"}]},
                   {"path": "p", "edits": [{"oldText": "a", "newText": "b", "replaceAll": None}]}], True),
    "zod-formats": (ZOD["formats"], [{"email": "a@example.org", "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
                                      "when": "2024-05-01T10:00:00Z", "site": "https://example.org",
                                      "ip": "192.0.2.1"}],
                    [{"email": "nope", "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
                      "when": "2024-05-01T10:00:00Z", "site": "https://example.org", "ip": "192.0.2.1"},
                     {"email": "a@example.org", "id": "x", "when": "2024-05-01T10:00:00Z",
                      "site": "https://example.org", "ip": "192.0.2.1"}], True),
    "zod-nullable": (ZOD["nullable"], [{"note": None}, {"note": "n", "maybe": None, "lang": "en"}],
                     [{}, {"note": None, "lang": "de"}, {"note": None, "lang": None}], True),
    "zod-union": (ZOD["union"], [{"value": "a", "shape": {"kind": "circle", "r": 1}},
                                 {"value": 2.5, "shape": {"kind": "square", "side": 1}}],
                  [{"value": True, "shape": {"kind": "circle", "r": 1}},
                   {"value": 1, "shape": {"kind": "circle", "side": 1}}], True),
    "zod-record": (ZOD["record"], [{"counts": {"a": 1, "b": 2.5}}], [{"counts": {"a": "x"}}], False),
    "zod-passthrough": (ZOD["passthrough"], [{"name": "a", "extra": [1]}], [{"extra": 1}], False),
    "zod-tuple": (ZOD["tuple"], [{"point": [1, 2]}], [{"point": [1]}, {"point": [1, "a"]}, {"point": [1, 2, 3]}],
                  False),
    "zod-intersection": (ZOD["intersection"], [{"both": {"a": "x", "b": 1}}], [{"both": {"a": "x"}}], True),
    "zod-recursive": (ZOD["recursive"], [{"tree": {"name": "r", "children": [{"name": "c"}]}}],
                      [{"tree": {"name": "r", "children": [{"children": []}]}}], True),
    "zod-strictobj": (ZOD["strictobj"], [{"tags": ["a"]}, {"tags": [], "flags": ["a", "b"]}],
                      [{"tags": ["a"] * 6}, {"tags": [], "flags": ["a", "a"]}, {"tags": [], "x": 1}], True),
    "zod-any": (ZOD["any"], [{}, {"payload": {"deep": [1, None]}}], [{"x": 1}], False),
}

MCP_CALLS: dict[str, tuple[list[Any], list[Any]]] = {
    "echo": ([{"message": "hi"}], [{}, {"message": 1}]),
    "get-annotated-message": ([{"messageType": "error"}, {"messageType": "debug", "includeImage": True}],
                              [{"messageType": "warning"}]),
    "get-sum": ([{"a": 1, "b": 2.5}], [{"a": 1}, {"a": "1", "b": 2}]),
    "get-resource-reference": ([{}, {"resourceType": "Blob", "resourceId": 3}], [{"resourceType": "Image"}]),
    "trigger-long-running-operation": ([{}, {"duration": 1, "steps": 2}], [{"duration": "long"}]),
    "read_file": ([{"path": "a"}, {"path": "a", "head": 3}], [{"path": "a", "lines": 3}, {"head": 1}]),
    "read_multiple_files": ([{"paths": ["a", "b"]}], [{"paths": []}, {"paths": [1]}]),
    "edit_file": ([{"path": "p", "edits": [{"oldText": "a", "newText": "b"}]},
                   {"path": "p", "edits": [], "dryRun": True}],
                  [{"path": "p", "edits": [{"oldText": "a"}]}, {"path": "p", "edits": [], "dryRun": "yes"}]),
    "list_directory_with_sizes": ([{"path": "."}, {"path": ".", "sortBy": "size"}], [{"path": ".", "sortBy": "date"}]),
    "search_files": ([{"path": ".", "pattern": "*.md", "excludePatterns": ["x"]}], [{"path": "."}]),
}


def _oracle(schema: dict[str, Any]) -> Any:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _check_case(schema: dict[str, Any], valid: list[Any], invalid: list[Any], goes_strict: bool) -> None:
    check_schema(schema)
    ours = compile_validator(schema)
    oracle = _oracle(schema)
    for call in valid:
        assert ours.is_valid(call), (call, ours.problems(call))
        assert oracle.is_valid(call), call
    for call in invalid:
        assert not ours.is_valid(call), call
        # The oracle may lack a format checker (it needs optional packages); where it has one it agrees.
        assert not oracle.is_valid(call) or "format" in json.dumps(schema), call
    conversion = strict_conversion(schema)
    assert conversion.convertible is goes_strict, conversion.unconvertible
    if not goes_strict:
        assert conversion.unconvertible
        return
    strict = jsonschema.Draft202012Validator(conversion.schema())
    narrowed = any(change.kind == "narrowed" for change in conversion.changes)
    merged = any(change.kind == "merged" for change in conversion.changes)
    for call in valid:
        sent = conversion.to_strict(call)
        assert strict.is_valid(sent) or narrowed, (call, sent)
        back = conversion.undo(sent)
        assert ours.is_valid(back)
        assert back == call or merged, (call, sent, back)


@pytest.mark.parametrize("name", sorted(CASES))
def test_real_world_schema(name: str) -> None:
    # REQ: DEF-4, DEF-7, DEF-9, EXE-4
    _check_case(*CASES[name])


@pytest.mark.parametrize(
    ("server", "tool"), [(server, tool["name"]) for server, tools in MCP.items() for tool in tools]
)
def test_mcp_reference_server_tool(server: str, tool: str) -> None:
    # REQ: MCP-3, DEF-7, DEF-9
    schema = next(t["inputSchema"] for t in MCP[server] if t["name"] == tool)
    valid, invalid = MCP_CALLS.get(tool, ([], []))
    _check_case(schema, valid, invalid, goes_strict=True)


def test_every_mcp_reference_tool_has_calls_where_it_has_arguments() -> None:
    # REQ: MCP-3
    with_arguments = {t["name"] for tools in MCP.values() for t in tools if t["inputSchema"].get("properties")}
    assert len(with_arguments & set(MCP_CALLS)) >= 10


def test_a_strict_pydantic_tool_takes_the_models_strict_calls_end_to_end() -> None:
    # REQ: DEF-7, EXE-4
    schema = Everything.model_json_schema()
    made = function_tool("everything", "All of it.", schema, lambda arguments: "ok", strict=True)
    registered = RegisteredTool.from_implementation(made)
    conversion = registered.strict_conversion
    for call in EVERYTHING_VALID:
        sent = json.dumps(conversion.to_strict(call))
        parsed = check_tool_call(ToolCallPart("c1", "everything", sent), {"everything": registered})
        assert not parsed.invalid, parsed.error
        assert Everything.model_validate(parsed.input) == Everything.model_validate(call)

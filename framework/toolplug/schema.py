"""Schemas: the two builders, the OpenAI strict conversion and compiled argument validators.

The argument validator stands behind :func:`compile_validator`; it is ``jsonschema-rs`` (a Rust
implementation with the same Draft 2020-12 semantics as ``jsonschema``), because validating 1,000
definitions at startup and every tool call in the loop are both on hot paths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema_rs

from toolplug.definitions import SettingKind, SettingsField, SettingsSchema
from toolplug.errors import InvalidArgumentError

JsonSchema = dict[str, Any]


# --- argument schemas --------------------------------------------------------------------------


class ToolParameterSchemaBuilder:
    """Writes the JSON Schema of a tool's arguments; optional means absent from ``required``.

    >>> ToolParameterSchemaBuilder().required_string("city", "The city.").build()["required"]
    ['city']
    """

    def __init__(self) -> None:
        self._properties: dict[str, JsonSchema] = {}
        self._required: list[str] = []

    @classmethod
    def create(cls) -> ToolParameterSchemaBuilder:
        """A new, empty builder."""
        return cls()

    def _add(self, name: str, schema: JsonSchema, description: str, required: bool) -> ToolParameterSchemaBuilder:
        if not name or not isinstance(name, str):
            raise InvalidArgumentError("name", "an argument needs a non-empty name")
        if name in self._properties:
            raise InvalidArgumentError("name", f"argument {name!r} is declared twice")
        if description:
            schema = {**schema, "description": description}
        self._properties[name] = schema
        if required:
            self._required.append(name)
        return self

    def required_string(self, name: str, description: str = "", **constraints: Any) -> ToolParameterSchemaBuilder:
        """A required string argument; ``constraints`` are extra keywords such as ``minLength``."""
        return self._add(name, {"type": "string", **constraints}, description, True)

    def optional_string(self, name: str, description: str = "", **constraints: Any) -> ToolParameterSchemaBuilder:
        """An optional string argument."""
        return self._add(name, {"type": "string", **constraints}, description, False)

    def required_integer(self, name: str, description: str = "", **constraints: Any) -> ToolParameterSchemaBuilder:
        """A required integer argument (``minimum``/``maximum`` as keywords)."""
        return self._add(name, {"type": "integer", **constraints}, description, True)

    def optional_integer(self, name: str, description: str = "", **constraints: Any) -> ToolParameterSchemaBuilder:
        """An optional integer argument."""
        return self._add(name, {"type": "integer", **constraints}, description, False)

    def required_number(self, name: str, description: str = "", **constraints: Any) -> ToolParameterSchemaBuilder:
        """A required number argument."""
        return self._add(name, {"type": "number", **constraints}, description, True)

    def optional_number(self, name: str, description: str = "", **constraints: Any) -> ToolParameterSchemaBuilder:
        """An optional number argument."""
        return self._add(name, {"type": "number", **constraints}, description, False)

    def required_boolean(self, name: str, description: str = "") -> ToolParameterSchemaBuilder:
        """A required boolean argument."""
        return self._add(name, {"type": "boolean"}, description, True)

    def optional_boolean(self, name: str, description: str = "") -> ToolParameterSchemaBuilder:
        """An optional boolean argument."""
        return self._add(name, {"type": "boolean"}, description, False)

    def required_enum(self, name: str, description: str, *values: str) -> ToolParameterSchemaBuilder:
        """A required string argument limited to ``values``."""
        return self._add(name, _enum_schema(name, values), description, True)

    def optional_enum(self, name: str, description: str, *values: str) -> ToolParameterSchemaBuilder:
        """An optional string argument limited to ``values``."""
        return self._add(name, _enum_schema(name, values), description, False)

    def required_array(
        self, name: str, description: str, items: JsonSchema, **constraints: Any
    ) -> ToolParameterSchemaBuilder:
        """A required array whose items match ``items`` (``minItems``/``maxItems`` as keywords)."""
        return self._add(name, {"type": "array", "items": dict(items), **constraints}, description, True)

    def optional_array(
        self, name: str, description: str, items: JsonSchema, **constraints: Any
    ) -> ToolParameterSchemaBuilder:
        """An optional array."""
        return self._add(name, {"type": "array", "items": dict(items), **constraints}, description, False)

    def required_object(
        self, name: str, description: str, nested: ToolParameterSchemaBuilder | JsonSchema
    ) -> ToolParameterSchemaBuilder:
        """A required object argument described by another builder or a schema."""
        return self._add(name, _object_schema(nested), description, True)

    def optional_object(
        self, name: str, description: str, nested: ToolParameterSchemaBuilder | JsonSchema
    ) -> ToolParameterSchemaBuilder:
        """An optional object argument."""
        return self._add(name, _object_schema(nested), description, False)

    def build(self) -> JsonSchema:
        """The finished schema: an object root, ``additionalProperties: false``."""
        schema: JsonSchema = {
            "type": "object",
            # Each property dict is the builder's own (nested schemas were copied when added).
            "properties": {name: dict(schema) for name, schema in self._properties.items()},
            "additionalProperties": False,
        }
        if self._required:
            schema["required"] = list(self._required)
        return schema


def _enum_schema(name: str, values: Sequence[str]) -> JsonSchema:
    if not values:
        raise InvalidArgumentError("values", f"enum argument {name!r} needs at least one value")
    return {"type": "string", "enum": list(values)}


def _object_schema(nested: ToolParameterSchemaBuilder | JsonSchema) -> JsonSchema:
    if isinstance(nested, ToolParameterSchemaBuilder):
        return nested.build()
    copied: JsonSchema = copy_json(dict(nested))
    return copied


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, scalars), much cheaper than ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [copy_json(item) for item in value]
    return value


# --- settings schemas --------------------------------------------------------------------------


class ToolSettingsSchemaBuilder:
    """Writes a tool's settings schema: plain, secret, choice from an option source, enum."""

    def __init__(self) -> None:
        self._fields: list[SettingsField] = []

    @classmethod
    def create(cls) -> ToolSettingsSchemaBuilder:
        """A new, empty builder."""
        return cls()

    def _add(self, field: SettingsField) -> ToolSettingsSchemaBuilder:
        if any(existing.name == field.name for existing in self._fields):
            raise InvalidArgumentError("name", f"setting {field.name!r} is declared twice")
        self._fields.append(field)
        return self

    def required(self, name: str, title: str = "", description: str = "", **extra: Any) -> ToolSettingsSchemaBuilder:
        """A plain setting the tool cannot work without."""
        return self._add(SettingsField(name=name, required=True, title=title, description=description, **extra))

    def optional(self, name: str, title: str = "", description: str = "", **extra: Any) -> ToolSettingsSchemaBuilder:
        """A plain optional setting (``value_type`` and ``default`` as keywords)."""
        return self._add(SettingsField(name=name, title=title, description=description, **extra))

    def required_secret(self, name: str, title: str = "", description: str = "") -> ToolSettingsSchemaBuilder:
        """A secret stored only in the OS keyring, needed for the tool to work."""
        field = SettingsField(name=name, kind=SettingKind.SECRET, required=True, title=title, description=description)
        return self._add(field)

    def optional_secret(self, name: str, title: str = "", description: str = "") -> ToolSettingsSchemaBuilder:
        """An optional secret."""
        return self._add(SettingsField(name=name, kind=SettingKind.SECRET, title=title, description=description))

    def required_choice(
        self, name: str, option_source: str, title: str = "", description: str = ""
    ) -> ToolSettingsSchemaBuilder:
        """A required choice from the named option source."""
        field = SettingsField(
            name=name,
            kind=SettingKind.CHOICE,
            required=True,
            option_source=option_source,
            title=title,
            description=description,
        )
        return self._add(field)

    def optional_choice(
        self, name: str, option_source: str, title: str = "", description: str = ""
    ) -> ToolSettingsSchemaBuilder:
        """An optional choice from the named option source."""
        field = SettingsField(
            name=name, kind=SettingKind.CHOICE, option_source=option_source, title=title, description=description
        )
        return self._add(field)

    def required_enum(
        self, name: str, values: Sequence[Any], title: str = "", description: str = ""
    ) -> ToolSettingsSchemaBuilder:
        """A required choice spelled out in the definition."""
        field = SettingsField(
            name=name, kind=SettingKind.ENUM, required=True, enum=tuple(values), title=title, description=description
        )
        return self._add(field)

    def optional_enum(
        self, name: str, values: Sequence[Any], title: str = "", description: str = ""
    ) -> ToolSettingsSchemaBuilder:
        """An optional choice spelled out in the definition."""
        field = SettingsField(
            name=name, kind=SettingKind.ENUM, enum=tuple(values), title=title, description=description
        )
        return self._add(field)

    def build(self) -> SettingsSchema:
        """The finished settings schema."""
        return SettingsSchema(fields=tuple(self._fields))


# --- OpenAI strict conversion --------------------------------------------------------------------

MAX_STRICT_DEPTH = 32
MAX_STRICT_NODES = 5_000


class StrictSchemaError(InvalidArgumentError):
    """A schema that cannot be made strict (too deep, too large, or not an object root)."""

    def __init__(self, message: str) -> None:
        super().__init__("parameters", message)


def to_openai_strict(
    schema: Mapping[str, Any], *, max_depth: int = MAX_STRICT_DEPTH, max_nodes: int = MAX_STRICT_NODES
) -> JsonSchema:
    """Convert plain JSON Schema to what OpenAI's strict mode accepts.

    Every property becomes required; one that was optional allows null instead (``["string", "null"]``
    and ``null`` among its enum values), recursively; every object gets ``additionalProperties: false``.
    The input is not modified. Depth and node count are capped because schemas may come from
    untrusted sources (MCP servers, data files).
    """
    if schema.get("type") != "object":
        raise StrictSchemaError("strict mode needs an object root")
    counter = [0]
    converted: JsonSchema = _strict_node(schema, 0, counter, max_depth, max_nodes)
    return converted


def _strict_node(node: Any, depth: int, counter: list[int], max_depth: int, max_nodes: int) -> Any:
    if not isinstance(node, Mapping):
        return copy_json(node)
    counter[0] += 1
    if counter[0] > max_nodes:
        raise StrictSchemaError(f"schema has more than {max_nodes} nodes")
    if depth > max_depth:
        raise StrictSchemaError(f"schema is nested deeper than {max_depth} levels")
    out: JsonSchema = {}
    for key, value in node.items():
        if key in ("properties", "$defs", "definitions") and isinstance(value, Mapping):
            out[key] = {
                name: _strict_node(sub, depth + 1, counter, max_depth, max_nodes) for name, sub in value.items()
            }
        elif key in ("items", "additionalProperties", "not") and isinstance(value, Mapping):
            out[key] = _strict_node(value, depth + 1, counter, max_depth, max_nodes)
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            out[key] = [_strict_node(sub, depth + 1, counter, max_depth, max_nodes) for sub in value]
        else:
            out[key] = copy_json(value)
    if _is_object(out):
        properties: dict[str, Any] = out.setdefault("properties", {})
        originally_required = set(node.get("required", ()))
        for name in list(properties):
            if name not in originally_required:
                properties[name] = _nullable(properties[name])
        out["required"] = list(properties)
        out["additionalProperties"] = False
    return out


def _is_object(node: Mapping[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node


def _nullable(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    node = dict(node)
    kind = node.get("type")
    if isinstance(kind, str):
        if kind != "null":
            node["type"] = [kind, "null"]
    elif isinstance(kind, list):
        if "null" not in kind:
            node["type"] = [*kind, "null"]
    elif "anyOf" in node:
        if not any(isinstance(o, Mapping) and o.get("type") == "null" for o in node["anyOf"]):
            node["anyOf"] = [*node["anyOf"], {"type": "null"}]
    else:
        node = {"anyOf": [node, {"type": "null"}]}
        return node
    if "enum" in node and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]
    return node


# --- validation ----------------------------------------------------------------------------------


class SchemaProblem(ValueError):
    """A schema that is not valid JSON Schema, or an instance that does not match one."""


class ArgumentValidator:
    """A compiled validator for one schema; ``problems(value)`` lists what is wrong, in words."""

    __slots__ = ("_validator",)

    def __init__(self, schema: Mapping[str, Any]) -> None:
        try:
            self._validator = jsonschema_rs.validator_for(dict(schema))
        except (jsonschema_rs.ValidationError, ValueError, TypeError) as exc:
            raise SchemaProblem(f"not a valid JSON Schema: {_first_line(exc)}") from exc

    def is_valid(self, value: Any) -> bool:
        """True when ``value`` matches the schema."""
        return bool(self._validator.is_valid(value))

    def problems(self, value: Any) -> list[str]:
        """Every mismatch, each as ``at <path>: <message>``."""
        found = []
        for error in self._validator.iter_errors(value):
            path = "/".join(str(part) for part in error.instance_path) or "(root)"
            found.append(f"at {path}: {error.message}")
        return found


def check_schema(schema: Any) -> None:
    """Raise :class:`SchemaProblem` unless ``schema`` is valid JSON Schema (checked against the meta-schema)."""
    if not isinstance(schema, Mapping):
        raise SchemaProblem(f"a schema must be a JSON object, not {type(schema).__name__}")
    if not jsonschema_rs.meta.is_valid(dict(schema)):
        try:
            jsonschema_rs.meta.validate(dict(schema))
        except jsonschema_rs.ValidationError as exc:
            raise SchemaProblem(f"not a valid JSON Schema: {_first_line(exc)}") from exc


def compile_validator(schema: Mapping[str, Any]) -> ArgumentValidator:
    """Compile ``schema``; raises :class:`SchemaProblem` when it is not valid JSON Schema."""
    check_schema(schema)
    return ArgumentValidator(schema)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


__all__ = [
    "ArgumentValidator",
    "SchemaProblem",
    "StrictSchemaError",
    "ToolParameterSchemaBuilder",
    "ToolSettingsSchemaBuilder",
    "check_schema",
    "compile_validator",
    "to_openai_strict",
]

"""Schemas: the two builders, the checks for untrusted schemas, and compiled argument validators.

Every schema is data from a stranger. :func:`check_schema` walks it iteratively under caps (depth,
size, plain JSON only), allows only local ``$ref`` that resolve, bounds the work of validating one
value, reads the dialect its ``$schema`` declares (2020-12 without one), checks the meta-schema and
compiles its regular expressions; what passes never fails at call time.

The argument validator stands behind :func:`compile_validator`; it is ``jsonschema-rs`` (a Rust
implementation with the same semantics as ``jsonschema``), because validating 1,000 definitions at
startup and every tool call in the loop are both on hot paths. It asserts ``format`` and can fetch
nothing. The OpenAI strict conversion lives in :mod:`toolplug.strict` (re-exported here).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

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


# --- untrusted schemas ---------------------------------------------------------------------------

MAX_SCHEMA_DEPTH = 128
"""How deeply a schema's JSON may nest (objects and arrays, data values included)."""
MAX_SCHEMA_NODES = 20_000
"""How many JSON values (objects, arrays, scalars) a schema may hold."""
MAX_SCHEMA_CHARS = 1_000_000
"""The total length of a schema's strings and keys."""
MAX_SCHEMA_EXPANSION = 20_000
"""How many subschemas validation may visit for one value, with every ``$ref`` expanded where it is used."""
MAX_INSTANCE_DEPTH = 128
"""How deeply a tool call's arguments may nest; deeper arguments are invalid input."""
MAX_INSTANCE_NODES = 200_000
"""How many JSON values a tool call's arguments may hold."""

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
DIALECTS: dict[str, str] = {
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft-06/schema": "draft-06",
    "http://json-schema.org/draft-04/schema": "draft-04",
}
"""The ``$schema`` URIs toolplug understands (with or without a trailing ``#``, http or https)."""

_VALIDATOR_CLASSES: dict[str, Any] = {
    "2020-12": jsonschema_rs.Draft202012Validator,
    "2019-09": jsonschema_rs.Draft201909Validator,
    "draft-07": jsonschema_rs.Draft7Validator,
    "draft-06": jsonschema_rs.Draft6Validator,
    "draft-04": jsonschema_rs.Draft4Validator,
}

# Keywords whose value is one subschema, a list of subschemas, or a map of name to subschema.
_SINGLE = frozenset({
    "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else", "unevaluatedItems",
    "unevaluatedProperties", "additionalItems", "contentSchema", "items",
})
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_MAP = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"})
_SUBSCHEMA_KEYWORDS = _SINGLE | _LIST | _MAP
# Where the instance moves when a keyword applies its subschema: a property name, any member, any item.
_ANY_MEMBER = "~"
_ANY_ITEM = "[]"
_MEMBER_KEYWORDS = frozenset({"additionalProperties", "patternProperties", "unevaluatedProperties"})
_ITEM_KEYWORDS = frozenset({"items", "prefixItems", "additionalItems", "contains", "unevaluatedItems"})
_JSON_SCALARS = (str, int, float, bool, type(None))


def dialect_of(schema: Mapping[str, Any]) -> str:
    """The dialect a schema declares with ``$schema`` (``2020-12`` when it declares none).

    Raises :class:`SchemaProblem` for a ``$schema`` toolplug does not know.
    """
    declared = schema.get("$schema")
    if declared is None:
        return "2020-12"
    if isinstance(declared, str):
        key = declared.rstrip("#").replace("https://json-schema.org/draft-0", "http://json-schema.org/draft-0")
        key = key.replace("http://json-schema.org/draft/20", "https://json-schema.org/draft/20")
        if key in DIALECTS:
            return DIALECTS[key]
    known = ", ".join(sorted(DIALECTS))
    raise SchemaProblem(f"unknown $schema {declared!r}; toolplug understands: {known}")


def check_untrusted(schema: Any) -> str:
    """Check the shape of a schema from anywhere before anything else reads it; return its dialect.

    The walk is iterative and capped: the JSON must be plain JSON (no sets, objects, NaN or
    infinities, string keys only), at most :data:`MAX_SCHEMA_DEPTH` deep, :data:`MAX_SCHEMA_NODES`
    values and :data:`MAX_SCHEMA_CHARS` characters. Every ``$ref`` must be a JSON pointer into
    the schema itself (``#`` or ``#/...``) that resolves; remote and ``file:`` refs are refused, so
    validation never does I/O. The work of validating one value is bounded too: a ``$ref`` fan-out
    or a recursion that repeats itself at one place is refused. Raises :class:`SchemaProblem`.
    """
    return _check_untrusted(schema)[0]


def _check_untrusted(schema: Any) -> tuple[str, bool]:
    if not isinstance(schema, Mapping):
        raise SchemaProblem(f"a schema must be a JSON object, not {type(schema).__name__}")
    try:
        refs, patterns = _walk(schema)
        dialect = dialect_of(schema)
        targets = {ref: _resolve_pointer(schema, ref, holder) for ref, holder in refs.items()}
    except _Found as found:
        raise SchemaProblem(found.describe(schema)) from None
    if targets:
        _check_expansion(schema, targets)
    return dialect, patterns


class _Found(Exception):
    """A problem the walk found at ``container[key]``; its path is spelled out only then.

    The walk runs for every definition at start-up, so it never builds a path string for a value
    that is fine: the path of a container is looked up (by identity) once there is a problem.
    """

    def __init__(self, container: Any, key: Any, text: str, *, path_last: bool = False) -> None:
        super().__init__(text)
        self.container, self.key, self.text, self.path_last = container, key, text, path_last

    def describe(self, root: Any) -> str:
        path = _path_of(root, self.container) + ("" if self.key is None else f"/{self.key}")
        return f"{self.text} (at {path or '/'})" if self.path_last else f"at {path or '/'}: {self.text}"


def _path_of(root: Any, target: Any) -> str:
    """The JSON pointer of the container ``target`` inside ``root`` ("" for the root itself)."""
    stack: list[tuple[Any, str]] = [(root, "")]
    for _ in range(2 * MAX_SCHEMA_NODES):
        if not stack:
            break
        value, path = stack.pop()
        if value is target:
            return path
        if isinstance(value, dict):
            stack.extend((item, f"{path}/{key}") for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, f"{path}/{index}") for index, item in enumerate(value))
    return "/?"


def _index_of(items: list[Any], item: Any) -> int:
    return next(index for index, candidate in enumerate(items) if candidate is item)


_KEYWORDS_TO_CHECK = frozenset({"$ref", "$dynamicRef", "$recursiveRef", "$id", "pattern", "patternProperties"})
_KEYWORDS_TO_WATCH = _KEYWORDS_TO_CHECK | _SUBSCHEMA_KEYWORDS


def _walk(schema: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """Check JSON-ness and the caps; return every ``$ref`` with the object holding it, and whether
    the schema has patterns. Problems raise :class:`_Found`.

    Only objects and arrays are pushed, as (value, depth, is a schema position); every other value
    is checked where it is found, so most of a schema is never pushed at all.
    """
    refs: dict[str, Any] = {}
    patterns = False
    nodes = chars = 0
    stack: list[tuple[Any, int, bool]] = [(schema, 1, True)]
    while stack:
        value, depth, is_schema = stack.pop()
        nodes += 1
        if depth > MAX_SCHEMA_DEPTH:
            raise _Found(value, None, f"the schema is nested deeper than {MAX_SCHEMA_DEPTH} levels", path_last=True)
        if type(value) is dict or isinstance(value, dict):
            for key, item in value.items():
                if type(key) is not str:
                    raise _Found(value, None, f"the key {key!r} is not a string (JSON keys are strings)")
                chars += len(key)
                if is_schema and key in _KEYWORDS_TO_WATCH:
                    if key in _KEYWORDS_TO_CHECK:
                        patterns = _schema_keyword(key, item, value, schema, refs) or patterns
                    if key in _MAP and type(item) is dict:  # properties and the like: the most common
                        for name, sub in item.items():
                            if type(sub) is dict and type(name) is str:
                                stack.append((sub, depth + 2, True))
                            else:
                                nodes += _push_member(stack, name, sub, depth + 2, item, value, key)
                        continue
                    if key in _SUBSCHEMA_KEYWORDS:
                        # a boolean is a valid schema and valid JSON wherever it stands
                        nodes += 1 if type(item) is bool else _push_subschemas(stack, key, item, depth, value)
                        continue
                kind = type(item)
                if kind is str:  # most leaves: checked here, never pushed
                    chars += len(item)
                elif kind is dict or kind is list:
                    stack.append((item, depth + 1, False))
                    continue
                elif not (kind is int or kind is bool or item is None):
                    chars += _other_value(stack, item, depth + 1, value, key)
                nodes += 1
        elif type(value) is list or isinstance(value, list):
            for item in value:
                kind = type(item)
                if kind is str:
                    chars += len(item)
                elif kind is dict or kind is list:
                    stack.append((item, depth + 1, False))
                    continue
                elif not (kind is int or kind is bool or item is None):
                    chars += _other_value(stack, item, depth + 1, value, None)
                nodes += 1
        else:
            raise _Found(value, None, f"a {type(value).__name__} is not JSON")
        if chars > MAX_SCHEMA_CHARS:
            raise SchemaProblem(f"the schema has more than {MAX_SCHEMA_CHARS} characters")
        if nodes > MAX_SCHEMA_NODES:
            raise SchemaProblem(f"the schema has more than {MAX_SCHEMA_NODES} values")
    return refs, patterns


def _other_value(stack: list[tuple[Any, int, bool]], item: Any, depth: int, container: Any, key: Any) -> int:
    """A value of a rarer type (a float, a subclass of a JSON type, or not JSON at all): pushed when
    it is an object or array, checked otherwise; returns the characters it counts for."""
    if isinstance(item, dict | list):
        stack.append((item, depth, False))
        return 0
    if key is None:  # an array item: its index is looked up only for a problem
        return _check_leaf(item, False, container, None, lambda: _index_of(container, item))
    return _check_leaf(item, False, container, key)


def _check_leaf(value: Any, is_schema: bool, container: Any, key: Any, index: Any = None) -> int:
    """Check a value that is neither an object nor an array; return the characters it counts for."""
    if isinstance(value, str):
        return len(value)
    problem = None
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            problem = f"{value!r} is not a JSON number"
    elif not isinstance(value, _JSON_SCALARS):
        problem = f"a {type(value).__name__} is not JSON"
    elif is_schema and not isinstance(value, bool):
        problem = f"a schema is an object or a boolean, not {value!r}"
    if problem is not None:
        raise _Found(container, key if index is None else index(), problem)
    return 0


def _schema_keyword(key: str, item: Any, holder: dict[str, Any], root: Any, refs: dict[str, Any]) -> bool:
    """Check the keywords that name other schemas; True for a regular expression keyword."""
    if key == "$ref":
        _note_ref(item, holder, refs)
    elif key in ("$dynamicRef", "$recursiveRef"):
        raise _Found(holder, key, f"{key} is not supported; use a local $ref")
    elif key == "$id" and holder is not root:
        raise _Found(holder, key, "$id is allowed only at the root (it would move $ref targets)")
    return key in ("pattern", "patternProperties")


def _push_subschemas(stack: list[tuple[Any, int, bool]], key: str, item: Any, depth: int, holder: Any) -> int:
    """Push the subschemas below one keyword; return how many values were checked without a push."""
    if key in _LIST and type(item) is list:
        return sum(_push_schema(stack, sub, depth + 2, item, index) for index, sub in enumerate(item))
    if key in _SINGLE:
        return _push_schema(stack, item, depth + 1, holder, key)
    return _push_schema(stack, item, depth + 1, holder, key, is_schema=False)


def _push_member(
    stack: list[tuple[Any, int, bool]], name: Any, sub: Any, depth: int, members: Any, holder: Any, key: str
) -> int:
    """One member of ``properties`` (or the like) that is not a plain object under a string key."""
    if type(name) is not str:
        raise _Found(holder, key, f"the key {name!r} is not a string (JSON keys are strings)")
    return _push_schema(stack, sub, depth, members, name)


def _push_schema(
    stack: list[tuple[Any, int, bool]], value: Any, depth: int, container: Any, key: Any, *, is_schema: bool = True
) -> int:
    """Push one subschema (an object); a boolean schema or a plain value is checked here (returns 1)."""
    if type(value) is dict or (is_schema and isinstance(value, dict)):
        stack.append((value, depth, is_schema))
        return 0
    if isinstance(value, dict | list):
        stack.append((value, depth, False))
        return 0
    _check_leaf(value, is_schema and type(value) is not str, container, key)
    return 1


def _note_ref(ref: Any, holder: dict[str, Any], refs: dict[str, Any]) -> None:
    if not isinstance(ref, str):
        raise _Found(holder, "$ref", "$ref must be a string")
    if not (ref == "#" or ref.startswith("#/")):
        if ref.startswith("#"):
            raise _Found(holder, "$ref", f"$ref {ref!r} names an anchor; use a JSON pointer such as '#/$defs/name'")
        raise _Found(
            holder, "$ref",
            f"$ref {ref!r} points outside the schema; only local refs ('#/...') are allowed, "
            "so validation never fetches anything",
        )
    refs.setdefault(ref, holder)


def _resolve_pointer(root: Mapping[str, Any], ref: str, holder: Any) -> Any:
    from urllib.parse import unquote

    node: Any = root
    for raw in ref[2:].split("/") if ref != "#" else ():
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise _Found(holder, "$ref", f"$ref {ref!r} points nowhere (a dangling reference)")
    if not isinstance(node, dict | bool):
        raise _Found(holder, "$ref", f"$ref {ref!r} points to {node!r}, which is not a schema")
    return node


def _check_expansion(root: Mapping[str, Any], targets: Mapping[str, Any]) -> None:
    """Refuse schemas whose validation work explodes: count subschemas with refs expanded where used.

    A recursive ``$ref`` is followed once; coming back to it must move into the value (a property, an
    item), and only once per place, or each level would multiply the work.
    """
    visited = 0
    seen_back: set[tuple[int, tuple[str, ...], tuple[str, ...]]] = set()
    # (node, instance path, active refs: (target id, instance path at entry))
    stack: list[tuple[Any, tuple[str, ...], tuple[tuple[int, tuple[str, ...]], ...]]] = [(root, (), ())]
    while stack:
        node, at, active = stack.pop()
        visited += 1
        if visited > MAX_SCHEMA_EXPANSION:
            raise SchemaProblem(
                f"validating one value would visit more than {MAX_SCHEMA_EXPANSION} subschemas "
                "(a $ref fan-out); simplify the schema"
            )
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref in targets:
            target = targets[ref]
            entry = next((e for e in active if e[0] == id(target)), None)
            if entry is None:
                stack.append((target, at, (*active, (id(target), at))))
            else:
                relative = at[len(entry[1]):]
                if not relative:
                    raise SchemaProblem(f"$ref {ref!r} refers back to itself without moving into the value (a loop)")
                key = (id(target), entry[1], relative)
                if key in seen_back:
                    raise SchemaProblem(
                        f"$ref {ref!r} recurses more than once into the same place; validation work would "
                        "double with every level"
                    )
                seen_back.add(key)
        for key, item in node.items():
            if key in _MAP and key not in ("$defs", "definitions") and isinstance(item, dict):
                for name, sub in item.items():
                    step = name if key == "properties" else _ANY_MEMBER
                    stack.append((sub, at if key in ("dependentSchemas", "dependencies") else (*at, step), active))
            elif key in _LIST and isinstance(item, list):
                inside = (*at, _ANY_ITEM) if key in _ITEM_KEYWORDS else at
                stack.extend((sub, inside, active) for sub in item)
            elif key in _SINGLE and isinstance(item, dict | bool):
                if key in _MEMBER_KEYWORDS or key == "propertyNames":
                    inside = (*at, _ANY_MEMBER)
                elif key in _ITEM_KEYWORDS:
                    inside = (*at, _ANY_ITEM)
                else:
                    inside = at
                stack.append((item, inside, active))


# --- validation ----------------------------------------------------------------------------------


class SchemaProblem(ValueError):
    """A schema that is not valid JSON Schema, or an instance that does not match one."""


def _refuse_retrieval(uri: str) -> Any:
    raise SchemaProblem(f"toolplug never fetches schemas: {uri!r} is not part of the schema")


class ArgumentValidator:
    """A compiled validator for one schema; ``problems(value)`` lists what is wrong, in words.

    The schema's own ``$schema`` dialect applies (2020-12 when it declares none), and ``format`` is
    asserted (docs/schemas.md lists the formats). Arguments too deep or too large are invalid,
    never a crash; so are values that are not JSON.
    """

    __slots__ = ("_validator",)

    def __init__(self, schema: Mapping[str, Any]) -> None:
        dialect = check_untrusted(schema)  # never compile what could fetch, loop or overflow
        self._validator = _compile(dict(schema), dialect)

    def is_valid(self, value: Any) -> bool:
        """True when ``value`` matches the schema."""
        if not _is_flat(value) and _instance_problem(value) is not None:
            return False
        return self._validator.is_valid(value)  # type: ignore[no-any-return]

    def problems(self, value: Any) -> list[str]:
        """Every mismatch, each as ``at <path>: <message>``."""
        problem = _instance_problem(value)
        if problem is not None:
            return [problem]
        found = []
        for error in self._validator.iter_errors(value):
            path = "/".join(str(part) for part in error.instance_path) or "(root)"
            found.append(f"at {path}: {error.message}")
        return found


_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([zZ]|[+-]([01]\d|2[0-3]):[0-5]\d)$")


def _is_date(value: str) -> bool:
    import datetime

    if not _DATE.match(value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


# The older dialects lack formats that tool schemas use (zod publishes draft-07 with "uuid"); toolplug
# asserts them there too, so every dialect checks date, date-time, time, email, uri, uuid, ipv4 and ipv6.
_OLDER_FORMATS: dict[str, dict[str, Any]] = {
    "draft-07": {"uuid": lambda value: bool(_UUID.match(value))},
    "draft-06": {"uuid": lambda value: bool(_UUID.match(value)), "date": _is_date,
                 "time": lambda value: bool(_TIME.match(value))},
}
_OLDER_FORMATS["draft-04"] = _OLDER_FORMATS["draft-06"]


def _compile(schema: dict[str, Any], dialect: str) -> Any:
    try:
        return _VALIDATOR_CLASSES[dialect](
            schema, formats=_OLDER_FORMATS.get(dialect), validate_formats=True, ignore_unknown_formats=True,
            retriever=_refuse_retrieval,
        )
    except SchemaProblem:
        raise
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError, TypeError) as exc:
        raise SchemaProblem(f"not a valid JSON Schema: {_first_line(exc)}") from exc


def _instance_problem(value: Any) -> str | None:
    """Why ``value`` cannot be validated (too deep, too large, not JSON), or None."""
    if _is_flat(value):
        return None  # the common case: flat arguments
    nodes = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if depth > MAX_INSTANCE_DEPTH:
            return f"at (root): the value is nested deeper than {MAX_INSTANCE_DEPTH} levels"
        if nodes > MAX_INSTANCE_NODES:
            return f"at (root): the value has more than {MAX_INSTANCE_NODES} parts"
        if isinstance(item, dict):
            for key, sub in item.items():
                if not isinstance(key, str):
                    return f"at (root): the key {key!r} is not a string"
                stack.append((sub, depth + 1))
        elif isinstance(item, list):
            stack.extend((sub, depth + 1) for sub in item)
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return f"at (root): {item!r} is not a JSON number"
        elif not isinstance(item, _JSON_SCALARS):
            return f"at (root): a {type(item).__name__} is not a JSON value"
    return None


_FLAT = frozenset({str, int, bool, type(None)})


def _is_flat(value: Any) -> bool:
    """True for a dict of strings, integers, booleans and nulls: nothing there to be too deep or not JSON."""
    if type(value) is not dict:
        return False
    for item in value.values():  # noqa: SIM110 (a plain loop: cheaper than all() or a set test here)
        if type(item) not in _FLAT:
            return False
    return True


def check_schema(schema: Any) -> str:
    """Raise :class:`SchemaProblem` unless ``schema`` is a safe, valid JSON Schema; return its dialect.

    First :func:`check_untrusted` (shape, caps, refs, work), then the dialect's meta-schema, then,
    where the schema has regular expressions, a compilation (so a bad pattern is found here and
    never at call time).
    """
    dialect, patterns = _check_untrusted(schema)
    copied = dict(schema)
    if not jsonschema_rs.meta.is_valid(copied):
        try:
            jsonschema_rs.meta.validate(copied)
        except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError) as exc:
            raise SchemaProblem(f"not a valid JSON Schema: {_first_line(exc)}") from exc
    if patterns:
        _compile(copied, dialect)  # a bad regular expression is found here, never at call time
    return dialect


def compile_validator(schema: Mapping[str, Any]) -> ArgumentValidator:
    """Compile ``schema``; raises :class:`SchemaProblem` when it is not valid JSON Schema."""
    check_schema(schema)
    return ArgumentValidator(schema)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


if TYPE_CHECKING:
    from toolplug.strict import StrictSchemaError, to_openai_strict


def __getattr__(name: str) -> Any:
    # The strict conversion is re-exported here, but loaded only when asked for (start-up does not need it).
    if name in ("StrictSchemaError", "to_openai_strict"):
        from toolplug import strict

        return getattr(strict, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ArgumentValidator",
    "SchemaProblem",
    "StrictSchemaError",
    "ToolParameterSchemaBuilder",
    "ToolSettingsSchemaBuilder",
    "check_schema",
    "check_untrusted",
    "compile_validator",
    "dialect_of",
    "to_openai_strict",
]

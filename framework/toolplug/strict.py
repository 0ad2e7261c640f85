"""OpenAI strict mode: a schema that means the same thing, or a report of why there is none.

Strict mode takes a subset of JSON Schema: every object closed (``additionalProperties: false``)
with every property required, typed nodes, ``anyOf`` but no ``allOf``/``oneOf``/``not``, local
``$ref`` into ``$defs`` without sibling keywords. :func:`strict_conversion` turns a canonical schema
into that subset and returns a :class:`StrictConversion`:

- the strict schema, and every change it made: an optional property becomes required and nullable
  (``["string", "null"]``, or ``anyOf: [S, {"type": "null"}]`` where a type union cannot say it);
  a keyword strict mode lacks is dropped (the schema then accepts more, and the canonical validator
  still rejects those calls on the way in); an implicitly open object is closed;
- the paths it made nullable, so that :meth:`StrictConversion.undo` turns exactly those nulls back
  into absent properties (through arrays, ``$ref`` and ``anyOf`` branches alike);
- or, when no strict schema can accept the original's valid calls, the reasons (open maps,
  ``patternProperties``, ``if``/``then``, tuples, the API's size limits, ...). Such a tool is sent
  without strict mode.

Conversions are cached by the schema's JSON text.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from toolplug.errors import InvalidArgumentError

JsonSchema = dict[str, Any]

ABSENT_IF_NULL = "x-toolplug-absent-if-null"
"""Internal mark on a strict object node: the properties whose null the conversion added."""

OPENAI_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
"""The string formats strict mode supports; any other format is dropped (and checked on the way in)."""

# The API's published limits for strict schemas.
OPENAI_MAX_DEPTH = 10
OPENAI_MAX_PROPERTIES = 5_000
OPENAI_MAX_ENUM_VALUES = 1_000
OPENAI_MAX_STRING_CHARS = 120_000
OPENAI_LARGE_ENUM = 250
OPENAI_LARGE_ENUM_CHARS = 15_000

_MAX_INLINE = 8  # how many $ref-with-siblings or allOf members may be merged into one another
_MAX_VALUE_DEPTH = 128  # as deep as arguments may nest (toolplug.schema.MAX_INSTANCE_DEPTH)

_KEPT_ANNOTATIONS = ("description", "title")
_STRING_KEPT = ("pattern",)
_NUMBER_KEPT = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_ARRAY_KEPT = ("minItems", "maxItems")
_STRING_DROPPED = ("minLength", "maxLength", "contentEncoding", "contentMediaType")
_ARRAY_DROPPED = ("uniqueItems", "contains", "minContains", "maxContains")
_OBJECT_DROPPED = ("propertyNames", "minProperties", "maxProperties", "dependentRequired")
_OBJECT_WORDS = frozenset({
    "properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties",
    "maxProperties", "dependentRequired", "dependentSchemas", "unevaluatedProperties",
})
_ARRAY_WORDS = frozenset({
    "items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains",
    "maxContains", "unevaluatedItems",
})
_STRING_WORDS = frozenset({"minLength", "maxLength", "pattern", "format"})
_NUMBER_WORDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
_VALIDATION_WORDS = (
    _OBJECT_WORDS | _ARRAY_WORDS | _STRING_WORDS | _NUMBER_WORDS
    | {"type", "enum", "const", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "dependencies"}
)


class StrictSchemaError(InvalidArgumentError):
    """A schema that cannot be made strict; the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__("parameters", message)


ChangeKind = Literal["nullable", "widened", "narrowed", "merged"]


@dataclass(frozen=True, slots=True)
class StrictChange:
    """One change the strict conversion made.

    ``nullable``: an optional property made required and nullable (undone on the way in, no loss).
    ``widened``: a keyword strict mode lacks was dropped; the model may send calls the canonical
    schema rejects, and the canonical validator rejects them on the way in.
    ``narrowed``: some valid calls cannot be sent (an implicitly open object was closed).
    ``merged``: the model cannot tell two valid calls apart (an optional property that already
    accepted null: absent and null both arrive as null).
    """

    path: str
    kind: ChangeKind
    message: str

    @property
    def lossy(self) -> bool:
        """True for every change except ``nullable``."""
        return self.kind != "nullable"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(slots=True)
class StrictConversion:
    """The result of converting one schema: a strict schema and its changes, or the reasons there is none."""

    strict_schema: JsonSchema | None
    """The schema sent to the API (without toolplug's internal marks), or None when unconvertible."""
    changes: tuple[StrictChange, ...] = ()
    unconvertible: tuple[str, ...] = ()
    """Why no strict schema accepts the original's valid calls; empty when convertible."""
    _internal: JsonSchema | None = None
    _undoes: bool = False
    _branch_validators: dict[int, Any] = field(default_factory=dict)

    @property
    def convertible(self) -> bool:
        """True when there is a strict schema."""
        return self.strict_schema is not None

    @property
    def exact(self) -> bool:
        """True when the strict schema accepts exactly the original's valid calls (absent optionals as null)."""
        return self.convertible and not any(change.lossy for change in self.changes)

    @property
    def lossy_changes(self) -> list[StrictChange]:
        """The changes that lose something (everything but ``nullable``)."""
        return [change for change in self.changes if change.lossy]

    def schema(self) -> JsonSchema:
        """A fresh copy of the strict schema; raises :class:`StrictSchemaError` when unconvertible."""
        if self.strict_schema is None:
            raise StrictSchemaError("; ".join(self.unconvertible))
        copied: JsonSchema = _copy(self.strict_schema)
        return copied

    def undo(self, arguments: Any) -> Any:
        """The model's strict arguments as the canonical schema reads them.

        Exactly the nulls the conversion added become absent again; every other value is kept.
        Arguments that do not follow the strict schema are returned as they are, for the canonical
        validator to judge.
        """
        if not self._undoes or self._internal is None:
            return arguments
        return self._undo(arguments, self._internal, 0)

    def _undo(self, value: Any, node: Any, depth: int) -> Any:
        if depth > _MAX_VALUE_DEPTH:
            return value
        node = self._follow(node)
        if not isinstance(node, dict):
            return value
        branches = node.get("anyOf")
        if isinstance(branches, list):
            for branch in branches:
                if self._branch_accepts(branch, value):
                    return self._undo(value, branch, depth + 1)
            return value
        if isinstance(value, dict):
            properties = node.get("properties")
            if not isinstance(properties, dict):
                return value
            absent_if_null = node.get(ABSENT_IF_NULL, ())
            undone = {}
            for key, item in value.items():
                if item is None and key in absent_if_null:
                    continue
                sub = properties.get(key)
                undone[key] = item if sub is None else self._undo(item, sub, depth + 1)
            return undone
        if isinstance(value, list) and isinstance(node.get("items"), dict):
            return [self._undo(item, node["items"], depth + 1) for item in value]
        return value

    def to_strict(self, arguments: Any) -> Any:
        """The canonical ``arguments`` as a strict-mode model writes them: every absent property as null.

        The inverse of :meth:`undo` for exact conversions; for tests and contract checks.
        """
        if self._internal is None:
            return arguments
        return self._to_strict(arguments, self._internal, 0)

    def _to_strict(self, value: Any, node: Any, depth: int) -> Any:
        if depth > _MAX_VALUE_DEPTH:
            return value
        node = self._follow(node)
        if not isinstance(node, dict):
            return value
        branches = node.get("anyOf")
        if isinstance(branches, list):
            for branch in branches:
                candidate = self._to_strict(value, branch, depth + 1)
                if self._branch_accepts(branch, candidate):
                    return candidate
            return value
        if isinstance(value, dict) and isinstance(node.get("properties"), dict):
            properties = node["properties"]
            filled = {
                key: self._to_strict(item, properties[key], depth + 1) if key in properties else item
                for key, item in value.items()
            }
            for name in properties:
                filled.setdefault(name, None)
            return filled
        if isinstance(value, list) and isinstance(node.get("items"), dict):
            return [self._to_strict(item, node["items"], depth + 1) for item in value]
        return value

    def _follow(self, node: Any) -> Any:
        assert self._internal is not None
        defs = self._internal.get("$defs", {})
        for _ in range(len(defs) + 1):
            if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
                return node
            node = defs.get(node["$ref"].rpartition("/")[2])
        return node

    def _branch_accepts(self, branch: Any, value: Any) -> bool:
        import jsonschema_rs

        assert self._internal is not None
        validator = self._branch_validators.get(id(branch))
        if validator is None:
            document = dict(branch) if isinstance(branch, dict) else {"allOf": [branch]}
            if "$defs" in self._internal:
                document["$defs"] = self._internal["$defs"]
            validator = jsonschema_rs.Draft202012Validator(document, validate_formats=True)
            self._branch_validators[id(branch)] = validator
        return bool(validator.is_valid(value))


def strict_conversion(schema: Mapping[str, Any]) -> StrictConversion:
    """Convert ``schema`` for OpenAI strict mode (cached); never raises for a bad schema.

    A schema that fails toolplug's checks for untrusted schemas is unconvertible, with the problem
    as its reason.
    """
    try:
        key = json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return _convert(schema)
    return _cached(key)


@functools.lru_cache(maxsize=2048)
def _cached(key: str) -> StrictConversion:
    return _convert(json.loads(key))


def to_openai_strict(schema: Mapping[str, Any]) -> JsonSchema:
    """The strict schema of ``schema``; raises :class:`StrictSchemaError` saying why there is none.

    Every property becomes required; one that was optional accepts null instead; every object gets
    ``additionalProperties: false``. The input is not modified.
    """
    return strict_conversion(schema).schema()


def _convert(schema: Any) -> StrictConversion:
    from toolplug.schema import SchemaProblem, check_untrusted

    try:
        dialect = check_untrusted(schema)
    except SchemaProblem as exc:
        return StrictConversion(None, unconvertible=(str(exc),))
    converter = _Converter(schema, dialect)
    try:
        internal = converter.run()
    except RecursionError:  # inlined merges can nest past Python's stack; no strict form then
        return StrictConversion(None, unconvertible=("(root): nested too deeply to convert",))
    if converter.problems:
        return StrictConversion(None, unconvertible=tuple(dict.fromkeys(converter.problems)))
    limits = _api_limit_problems(internal)
    if limits:
        return StrictConversion(None, unconvertible=tuple(limits))
    try:
        public = _strip_marks(internal)
    except RecursionError:
        return StrictConversion(None, unconvertible=("(root): nested too deeply to convert",))
    return StrictConversion(
        public, tuple(converter.changes), (), _internal=internal, _undoes=converter.marks_added
    )


# --- the conversion ---------------------------------------------------------------------------------


class _Converter:
    """Converts one schema; collects changes and problems instead of raising."""

    def __init__(self, root: Mapping[str, Any], dialect: str) -> None:
        self.root = root
        self.dialect = dialect
        self.changes: list[StrictChange] = []
        self.problems: list[str] = []
        self.defs: dict[str, Any] = {}
        self.def_names: dict[str, str] = {}
        self.pending: list[tuple[str, str]] = []
        self.optional: list[tuple[dict[str, Any], list[str], str, str]] = []
        self.unions: list[tuple[list[JsonSchema], str, str]] = []
        self.marks_added = False
        self.inlining: set[str] = set()
        """The $ref targets being inlined right now (a recursive one must stay a $ref)."""

    def run(self) -> JsonSchema:
        root = self.root
        if _declared_type(root) != "object" or any(key in root for key in ("anyOf", "oneOf")):
            self.fail("(root)", "strict mode needs a plain object at the root")
            return {}
        converted = self.convert(root, "(root)", is_root=True)
        while self.pending:
            ref, name = self.pending.pop()
            self.defs[name] = self.convert(_resolve(self.root, ref), f"$defs.{name}")
        for properties, marks, name, where in self.optional:
            self.make_nullable(properties, marks, name, where)
        for branches, where, word in self.unions:
            self.check_union(branches, where, word)
        if self.defs:
            converted["$defs"] = self.defs
        return converted

    # -- bookkeeping --------------------------------------------------------------------------------

    def fail(self, where: str, why: str) -> JsonSchema:
        self.problems.append(f"{where}: {why}")
        return {"type": "null"}

    def note(self, where: str, kind: ChangeKind, message: str) -> None:
        self.changes.append(StrictChange(where, kind, message))

    def ref(self, ref: str) -> JsonSchema:
        name = self.def_names.get(ref)
        if name is None:
            name = _def_name(ref, self.defs)
            self.def_names[ref] = name
            self.defs[name] = {}
            self.pending.append((ref, name))
        return {"$ref": f"#/$defs/{name}"}

    # -- one node ---------------------------------------------------------------------------------

    def convert(self, node: Any, where: str, *, is_root: bool = False) -> JsonSchema:
        if node is True or (isinstance(node, dict) and not (_VALIDATION_WORDS & set(node))):
            return self.fail(where, "accepts any value; strict mode needs a type")
        if node is False or not isinstance(node, dict):
            return self.fail(where, "accepts no value at all")
        for word in ("if", "then", "else"):
            if word in node:
                return self.fail(where, "if/then/else cannot be expressed in strict mode")
        if "dependentSchemas" in node or _schema_dependencies(node, self.dialect):
            return self.fail(where, "dependentSchemas cannot be expressed in strict mode")
        if "patternProperties" in node:
            return self.fail(where, "patternProperties (an open map) cannot be expressed in strict mode")
        if "unevaluatedProperties" in node or "unevaluatedItems" in node:
            return self.fail(where, "unevaluatedProperties/unevaluatedItems cannot be expressed in strict mode")
        if "$ref" in node:
            return self.convert_ref(node, where, is_root)
        if "allOf" in node:
            return self.convert_all_of(node, where, is_root)
        if "not" in node:
            self.note(where, "widened", "'not' dropped (strict mode has no 'not')")
            node = _without(node, "not")
        if "anyOf" in node or "oneOf" in node:
            return self.convert_union(node, where)
        return self.convert_typed(node, where, is_root)

    def convert_ref(self, node: JsonSchema, where: str, is_root: bool) -> JsonSchema:
        ref = node["$ref"]
        siblings = {k: v for k, v in node.items() if k != "$ref" and k in _VALIDATION_WORDS}
        if self.dialect in ("draft-07", "draft-06", "draft-04"):
            siblings = {}  # these dialects ignore every keyword beside $ref
        annotations = {k: node[k] for k in _KEPT_ANNOTATIONS if isinstance(node.get(k), str)}
        if not siblings and not is_root and (not annotations or ref in self.inlining):
            return self.ref(ref)  # a recursive target keeps its $ref; only the description is lost
        # Strict mode allows nothing beside a $ref: inline its target, merged with the siblings.
        if ref in self.inlining or len(self.inlining) >= _MAX_INLINE:
            return self.fail(where, "a recursive $ref with keywords beside it cannot be inlined")
        merged = _conjoin(_resolve(self.root, ref), siblings)
        if not isinstance(merged, dict):
            return self.fail(where, "a $ref and its sibling keywords cannot be merged into one strict schema")
        return self.inline({ref}, {**merged, **annotations}, where, is_root)

    def convert_all_of(self, node: JsonSchema, where: str, is_root: bool) -> JsonSchema:
        members = node["allOf"]
        rest = _without(node, "allOf")
        if len(members) == 1 and isinstance(members[0], dict) and not (_VALIDATION_WORDS & set(rest)):
            return self.convert({**members[0], **rest}, where, is_root=is_root)
        refs = {member["$ref"] for member in members if isinstance(member, dict) and "$ref" in member}
        if refs & self.inlining or len(self.inlining) + len(refs) > _MAX_INLINE:
            return self.fail(where, "a recursive allOf cannot be merged into one strict schema")
        merged: Any = rest
        for member in members:
            if isinstance(member, dict) and "$ref" in member:
                member = _conjoin(_resolve(self.root, member["$ref"]), _without(member, "$ref"))
            merged = None if member is None or merged is None else _conjoin(merged, member)
            if merged is None:
                return self.fail(where, "allOf members cannot be merged into one strict schema")
        return self.inline(refs, merged, where, is_root)

    def inline(self, refs: set[str], merged: JsonSchema, where: str, is_root: bool) -> JsonSchema:
        self.inlining |= refs
        try:
            return self.convert(merged, where, is_root=is_root)
        finally:
            self.inlining -= refs

    def convert_union(self, node: JsonSchema, where: str) -> JsonSchema:
        word = "anyOf" if "anyOf" in node else "oneOf"
        if "anyOf" in node and "oneOf" in node:
            return self.fail(where, "anyOf together with oneOf cannot be expressed in strict mode")
        siblings = _without(node, word)
        annotations = {k: siblings.pop(k) for k in _KEPT_ANNOTATIONS if k in siblings}
        branches: list[JsonSchema] = []
        for index, branch in enumerate(node[word]):
            if branch is False:
                continue  # a branch that accepts nothing changes nothing
            merged = _conjoin(siblings, branch) if siblings else branch
            if merged is None:
                return self.fail(where, f"{word}[{index}] conflicts with the keywords beside it")
            converted = self.convert(merged, f"{where}|{word}[{index}]")
            for made in converted["anyOf"] if set(converted) == {"anyOf"} else [converted]:
                if made not in branches:
                    branches.append(made)
        if not branches:
            return self.fail(where, f"no {word} branch can ever be valid")
        if len(branches) == 1:
            return branches[0] | annotations
        self.unions.append((branches, where, word))
        return {**annotations, "anyOf": branches}

    def check_union(self, branches: list[JsonSchema], where: str, word: str) -> None:
        resolved = [self.follow(branch) for branch in branches]
        if _disjoint(resolved):
            return
        if word == "oneOf":
            self.note(
                where, "widened", "oneOf sent as anyOf (a value matching several branches is refused on the way in)"
            )
        elif any(self.has_marks(branch, set()) for branch in branches):
            self.note(where, "merged", "anyOf branches may overlap; a null is read by the first branch that matches")

    def follow(self, node: JsonSchema) -> JsonSchema:
        seen: set[str] = set()
        while isinstance(node.get("$ref"), str):
            name = node["$ref"].rpartition("/")[2]
            if name in seen or not isinstance(self.defs.get(name), dict):
                return node
            seen.add(name)
            node = self.defs[name]
        return node

    def has_marks(self, node: Any, seen: set[str]) -> bool:
        if not isinstance(node, dict):
            return False
        if node.get(ABSENT_IF_NULL):
            return True
        if isinstance(node.get("$ref"), str):
            name = node["$ref"].rpartition("/")[2]
            if name in seen:
                return False
            seen.add(name)
            return self.has_marks(self.defs.get(name), seen)
        children = [*(node.get("properties") or {}).values(), *(node.get("anyOf") or ())]
        if isinstance(node.get("items"), dict):
            children.append(node["items"])
        return any(self.has_marks(child, seen) for child in children)

    def convert_typed(self, node: JsonSchema, where: str, is_root: bool) -> JsonSchema:
        annotations = {k: node[k] for k in _KEPT_ANNOTATIONS if k in node and isinstance(node[k], str)}
        values = _enum_values(node)
        if values is not None:
            bad = [v for v in values if not isinstance(v, str | int | float | bool | type(None))]
            if bad:
                return self.fail(where, "enum/const values that are objects or arrays have no strict form")
        types = self.types_of(node, values, where)
        if types is None:
            return {"type": "null"}
        if values is not None:
            values = [v for v in values if _json_type(v) in types or (_json_type(v) == "integer" and "number" in types)]
            if not values:
                return self.fail(where, "no enum value has an allowed type")
        non_null = [t for t in types if t != "null"]
        if len(non_null) > 1:
            branches = [
                self.convert_single(node, t, values, where, is_root=False) for t in non_null
            ]
            if "null" in types:
                branches.append({"type": "null"})
            return {**annotations, "anyOf": branches}
        if not non_null:
            return {**annotations, "type": "null"}
        converted = self.convert_single(node, non_null[0], values, where, is_root=is_root)
        if "null" in types:
            converted["type"] = [non_null[0], "null"]
            if "enum" in converted and None not in converted["enum"]:
                converted["enum"].append(None)
        return {**annotations, **converted}

    def types_of(self, node: JsonSchema, values: list[Any] | None, where: str) -> list[str] | None:
        declared = node.get("type")
        if isinstance(declared, str):
            types = [declared]
        elif isinstance(declared, list):
            types = [t for t in _TYPES if t in declared]
        elif values is not None:
            types = [t for t in _TYPES if any(_json_type(v) == t for v in values)]
        else:
            implied = [
                kind
                for kind, words in (("object", _OBJECT_WORDS), ("array", _ARRAY_WORDS), ("string", _STRING_WORDS),
                                    ("number", _NUMBER_WORDS))
                if words & set(node)
            ]
            if len(implied) != 1:
                self.fail(where, "no type given; strict mode needs one")
                return None
            self.note(where, "narrowed", f"no type given; only {implied[0]}s are sent")
            types = implied
        if "integer" in types and "number" in types:
            types.remove("integer")
        return types

    def convert_single(
        self, node: JsonSchema, kind: str, values: list[Any] | None, where: str, *, is_root: bool
    ) -> JsonSchema:
        out: JsonSchema = {"type": kind}
        if values is not None:
            kept = [v for v in values if kind == "null" or _json_type(v) == kind
                    or (kind == "number" and _json_type(v) == "integer")]
            out["enum"] = kept
        if kind == "object":
            out.update(self.convert_object(node, where, is_root))
        elif kind == "array":
            out.update(self.convert_array(node, where))
        elif kind == "string":
            out.update(self.convert_string(node, where))
        elif kind in ("number", "integer"):
            out.update({k: node[k] for k in _NUMBER_KEPT if k in node})
        return out

    def convert_string(self, node: JsonSchema, where: str) -> JsonSchema:
        out = {k: node[k] for k in _STRING_KEPT if k in node}
        form = node.get("format")
        if form is not None:
            if form in OPENAI_FORMATS:
                out["format"] = form
            else:
                self.note(where, "widened", f"format {form!r} dropped (strict mode lacks it)")
        for word in _STRING_DROPPED:
            if word in node and word in _STRING_WORDS:
                self.note(where, "widened", f"{word} dropped (strict mode lacks it)")
        return out

    def convert_array(self, node: JsonSchema, where: str) -> JsonSchema:
        items = node.get("items")
        if "prefixItems" in node or isinstance(items, list):
            self.fail(where, "tuples (prefixItems) cannot be expressed in strict mode")
            return {}
        if items is None or items is True or items == {}:
            self.fail(where, "an array without an item schema cannot be expressed in strict mode")
            return {}
        out: JsonSchema = {"items": self.convert(items, f"{where}[]")}
        out.update({k: node[k] for k in _ARRAY_KEPT if k in node})
        for word in _ARRAY_DROPPED:
            if word in node:
                self.note(where, "widened", f"{word} dropped (strict mode lacks it)")
        return out

    def convert_object(self, node: JsonSchema, where: str, is_root: bool) -> JsonSchema:
        properties = node.get("properties") or {}
        required = [name for name in node.get("required", ()) if isinstance(name, str)]
        extra = node.get("additionalProperties")
        if extra is not None and extra is not False:
            self.fail(where, "an open map (additionalProperties) cannot be expressed in strict mode")
            return {}
        if extra is None:
            if properties:
                self.note(where, "narrowed", "closed: undeclared properties cannot be sent")
            elif is_root:
                self.note(where, "narrowed", "no properties declared: sent as a tool without arguments")
            else:
                self.fail(where, "an object without declared properties (a map) cannot be expressed in strict mode")
                return {}
        undeclared = [name for name in required if name not in properties]
        if undeclared:
            self.fail(where, f"required {', '.join(undeclared)} without a schema of its own")
            return {}
        converted: dict[str, Any] = {}
        # Shared by every copy of this node, so that nullability decided later still lands in the tree.
        absent_if_null: list[str] = []
        out: JsonSchema = {"properties": converted}
        for name, sub in properties.items():
            child = name if where == "(root)" else f"{where}.{name}"
            if sub is False:
                if name in required:
                    self.fail(child, "a required property that can never be valid")
                    continue
                converted[name] = {"type": "null"}
                absent_if_null.append(name)
                self.marks_added = True
                self.note(child, "nullable", "never allowed: required and always null (null means absent)")
                continue
            converted[name] = self.convert(sub, child)
            if name not in required:
                self.optional.append((converted, absent_if_null, name, child))
        out["required"] = list(converted)
        out["additionalProperties"] = False
        out[ABSENT_IF_NULL] = absent_if_null
        for word in (*_OBJECT_DROPPED, *(("dependencies",) if "dependencies" in node else ())):
            if word in node:
                self.note(where, "widened", f"{word} dropped (strict mode lacks it)")
        return out

    def make_nullable(self, properties: dict[str, Any], marks: list[str], name: str, where: str) -> None:
        value = properties[name]
        if self.accepts_null(value, set()):
            self.note(where, "merged", "optional and already nullable: absent and null both arrive as null")
            return
        properties[name] = _nullable(value)
        marks.append(name)
        self.marks_added = True
        self.note(where, "nullable", f"optional made required and nullable ({_nullable_how(value)})")

    def accepts_null(self, node: Any, seen: set[str]) -> bool:
        if not isinstance(node, dict):
            return False
        if isinstance(node.get("$ref"), str):
            name = node["$ref"].rpartition("/")[2]
            if name in seen:
                return False
            seen.add(name)
            return self.accepts_null(self.defs.get(name), seen)
        if isinstance(node.get("anyOf"), list):
            return any(self.accepts_null(branch, seen) for branch in node["anyOf"])
        kind = node.get("type")
        typed = kind == "null" or (isinstance(kind, list) and "null" in kind)
        return typed and ("enum" not in node or None in node["enum"])


# --- helpers ----------------------------------------------------------------------------------------


def _declared_type(node: Mapping[str, Any]) -> str | None:
    kind = node.get("type")
    if kind is None and isinstance(node.get("properties"), dict):
        return "object"
    return kind if isinstance(kind, str) else None


def _schema_dependencies(node: Mapping[str, Any], dialect: str) -> bool:
    dependencies = node.get("dependencies")
    if dialect in ("2020-12",) or not isinstance(dependencies, dict):
        return False
    return any(not isinstance(value, list) for value in dependencies.values())


def _enum_values(node: Mapping[str, Any]) -> list[Any] | None:
    values: list[Any] | None = None
    if "enum" in node and isinstance(node["enum"], list):
        values = list(node["enum"])
    if "const" in node:
        const = node["const"]
        values = [const] if values is None else [v for v in values if _same_json(v, const)]
    return values


def _same_json(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _without(node: Mapping[str, Any], key: str) -> JsonSchema:
    return {k: v for k, v in node.items() if k != key}


def _resolve(root: Mapping[str, Any], ref: str) -> Any:
    from urllib.parse import unquote

    node: Any = root
    for raw in ref[2:].split("/") if ref != "#" else ():
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _def_name(ref: str, taken: Mapping[str, Any]) -> str:
    parts = [p for p in ref[2:].split("/") if p] if ref != "#" else ["Root"]
    if len(parts) == 2 and parts[0] in ("$defs", "definitions"):
        base = parts[1]
    else:
        base = "_".join(parts[-2:]) if parts else "Root"
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", base) or "Def"
    name, counter = base, 2
    while name in taken:
        name, counter = f"{base}_{counter}", counter + 1
    return name


def _nullable(value: JsonSchema) -> JsonSchema:
    if isinstance(value.get("anyOf"), list):
        return {**value, "anyOf": [*value["anyOf"], {"type": "null"}]}
    kind = value.get("type")
    if kind in _SCALAR_TYPES and "$ref" not in value:
        made = {**value, "type": [kind, "null"]}
        if "enum" in made:
            made["enum"] = [*made["enum"], None]
        return made
    annotations = {k: value[k] for k in _KEPT_ANNOTATIONS if k in value}
    inner = {k: v for k, v in value.items() if k not in _KEPT_ANNOTATIONS}
    return {**annotations, "anyOf": [inner, {"type": "null"}]}


_SCALAR_TYPES = ("string", "number", "integer", "boolean", "object", "array")


def _nullable_how(value: JsonSchema) -> str:
    kind = value.get("type")
    if kind in _SCALAR_TYPES and "$ref" not in value and "anyOf" not in value:
        enum = ", null added to enum" if "enum" in value else ""
        return f'type {json.dumps(kind)} -> {json.dumps([kind, "null"])}{enum}'
    return "null added as an anyOf branch"


def _disjoint(branches: list[JsonSchema]) -> bool:
    """True when no value can match two branches: distinct types, or a shared required tag of distinct values."""
    kinds: list[set[str]] = []
    for branch in branches:
        kind = branch.get("type")
        if "$ref" in branch or "anyOf" in branch or kind is None:
            return False
        kinds.append({kind} if isinstance(kind, str) else set(kind))
    for i, first in enumerate(kinds):
        for j in range(i + 1, len(kinds)):
            shared = first & kinds[j]
            if not shared:
                continue
            if shared == {"integer", "number"} or not _tagged_apart(branches[i], branches[j]):
                return False
    return True


def _tagged_apart(a: JsonSchema, b: JsonSchema) -> bool:
    if "enum" in a and "enum" in b:
        return not any(_same_json(x, y) for x in a["enum"] for y in b["enum"])
    pa, pb = a.get("properties") or {}, b.get("properties") or {}
    for name in set(pa) & set(pb):
        x, y = pa[name], pb[name]
        if "enum" in x and "enum" in y and not any(_same_json(u, v) for u in x["enum"] for v in y["enum"]):
            return True
    return False


_MIN_WORDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_MAX_WORDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")


def _conjoin(a: Any, b: Any) -> Any:
    """One schema that means ``a`` and ``b`` together, or None when that cannot be written without allOf."""
    if a is True or a == {}:
        return b
    if b is True or b == {}:
        return a
    if a is False or b is False:
        return False
    if not isinstance(a, dict) or not isinstance(b, dict):
        return None
    merged = dict(a)
    for key, value in b.items():
        if key not in merged or _same_json(merged[key], value):
            merged[key] = value
            continue
        combined = _conjoin_keyword(key, merged[key], value)
        if combined is _CONFLICT:
            return None
        merged[key] = combined
    if "properties" in a or "properties" in b or "additionalProperties" in a or "additionalProperties" in b:
        closed = _close_members(a, b, merged)
        if closed is None:
            return None
        merged = closed
    return merged


_CONFLICT = object()


def _conjoin_keyword(key: str, a: Any, b: Any) -> Any:
    if key in _KEPT_ANNOTATIONS or key in ("default", "examples", "$comment"):
        return a
    if key in _MIN_WORDS:
        return max(a, b)
    if key in _MAX_WORDS:
        return min(a, b)
    if key == "required":
        return list(dict.fromkeys([*a, *b]))
    if key == "type":
        left = {a} if isinstance(a, str) else set(a)
        right = {b} if isinstance(b, str) else set(b)
        if "number" in left and "integer" in right:
            left.add("integer")
        if "number" in right and "integer" in left:
            right.add("integer")
        both = [t for t in _TYPES if t in left and t in right]
        return both if both else _CONFLICT
    if key == "enum":
        return [v for v in a if any(_same_json(v, w) for w in b)]
    if key == "properties":
        out = dict(a)
        for name, sub in b.items():
            if name in out:
                joined = _conjoin(out[name], sub)
                if joined is None:
                    return _CONFLICT
                out[name] = joined
            else:
                out[name] = sub
        return out
    if key == "items" and isinstance(a, dict) and isinstance(b, dict):
        joined = _conjoin(a, b)
        return _CONFLICT if joined is None else joined
    if key == "additionalProperties":
        return False if a is False or b is False else _CONFLICT
    return _CONFLICT


def _close_members(a: JsonSchema, b: JsonSchema, merged: JsonSchema) -> JsonSchema | None:
    """Apply each member's ``additionalProperties: false`` to the properties only the other declares."""
    for side, other in ((a, b), (b, a)):
        extra = side.get("additionalProperties")
        if extra is None or extra is True:
            continue
        if extra is not False:
            return None
        own = set(side.get("properties") or {})
        for name in list(merged.get("properties") or {}):
            if name not in own and name in (other.get("properties") or {}):
                if name in merged.get("required", ()):
                    merged["properties"] = {**merged["properties"], name: False}
                else:
                    merged["properties"] = {k: v for k, v in merged["properties"].items() if k != name}
    return merged


def _strip_marks(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_marks(v) for k, v in node.items() if k != ABSENT_IF_NULL}
    if isinstance(node, list):
        return [_strip_marks(item) for item in node]
    return node


def _copy(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _copy(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_copy(item) for item in node]
    return node


def _api_limit_problems(schema: JsonSchema) -> list[str]:
    """Where the strict schema exceeds the API's published limits."""
    problems: list[str] = []
    properties = 0
    enum_values = 0
    chars = sum(len(name) for name in schema.get("$defs", {}))
    deepest = 0
    stack: list[tuple[Any, int]] = [(schema, 1)]
    seen_defs: set[str] = set()
    defs = schema.get("$defs", {})
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("$ref"), str):
            name = node["$ref"].rpartition("/")[2]
            if name not in seen_defs:
                seen_defs.add(name)
                stack.append((defs.get(name), depth))
            continue
        if isinstance(node.get("properties"), dict):
            deepest = max(deepest, depth)
            properties += len(node["properties"])
            chars += sum(len(name) for name in node["properties"])
            stack.extend((sub, depth + 1) for sub in node["properties"].values())
        if isinstance(node.get("enum"), list):
            values = node["enum"]
            enum_values += len(values)
            enum_chars = sum(len(v) for v in values if isinstance(v, str))
            chars += enum_chars
            if len(values) > OPENAI_LARGE_ENUM and enum_chars > OPENAI_LARGE_ENUM_CHARS:
                problems.append(
                    f"an enum of more than {OPENAI_LARGE_ENUM} values has more than {OPENAI_LARGE_ENUM_CHARS} "
                    "characters (the API's limit)"
                )
        if isinstance(node.get("items"), dict):
            stack.append((node["items"], depth))
        stack.extend((sub, depth) for sub in node.get("anyOf") or ())
    if deepest > OPENAI_MAX_DEPTH:
        problems.append(f"objects nested {deepest} levels deep; the API allows {OPENAI_MAX_DEPTH}")
    if properties > OPENAI_MAX_PROPERTIES:
        problems.append(f"{properties} properties; the API allows {OPENAI_MAX_PROPERTIES}")
    if enum_values > OPENAI_MAX_ENUM_VALUES:
        problems.append(f"{enum_values} enum values; the API allows {OPENAI_MAX_ENUM_VALUES}")
    if chars > OPENAI_MAX_STRING_CHARS:
        problems.append(f"{chars} characters of names and enum values; the API allows {OPENAI_MAX_STRING_CHARS}")
    return problems




# --- the per-provider report ------------------------------------------------------------------------

STRICT_APIS = frozenset({"openai-chat", "openai-responses"})
"""The provider APIs toolplug converts schemas for; every other API receives them as written."""


def strict_report(tools: Iterable[Any], apis: Mapping[str, str]) -> list[dict[str, Any]]:
    """For each provider (id → API name), each function tool: whether it goes strict, and what that changes.

    ``tools`` are registered tools (anything with ``definition``). An entry per provider:
    ``{"provider", "api", "strict_mode", "tools": [{"tool_id", "strict_requested", "strict",
    "changes", "unconvertible"}]}``; ``changes`` lists the lossy changes only.
    """
    from toolplug.definitions import ToolKind

    functions = [
        tool for tool in tools if tool.definition.kind in (ToolKind.FUNCTION, ToolKind.DYNAMIC)
    ]
    report = []
    for provider, api in apis.items():
        converts = api in STRICT_APIS
        entries = []
        for tool in functions:
            definition = tool.definition
            conversion = strict_conversion(definition.function.parameters)
            asked = definition.function.strict
            entries.append({
                "tool_id": definition.id,
                "strict_requested": asked,
                "strict": converts and asked and conversion.convertible,
                "changes": [str(change) for change in conversion.lossy_changes] if converts and asked else [],
                "unconvertible": list(conversion.unconvertible) if converts and asked else [],
            })
        report.append({"provider": provider, "api": api, "strict_mode": converts, "tools": entries})
    return report


__all__ = [
    "OPENAI_FORMATS",
    "STRICT_APIS",
    "StrictChange",
    "StrictConversion",
    "StrictSchemaError",
    "strict_conversion",
    "strict_report",
    "to_openai_strict",
]

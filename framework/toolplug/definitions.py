"""The canonical data every part of toolplug shares: definitions, settings schemas, results.

Pure data: pydantic models that validate their own fields and nothing more. The registry does the
cross-field checks so that a bad definition becomes a diagnostic instead of an exception.
"""

from __future__ import annotations

import enum
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ConfidenceLevel(enum.IntEnum):
    """How far a provider is trusted with data; ordered, so levels compare with ``<``.

    Written in config files and JSON by name: ``unknown``, ``untrusted``, ``very_low``, ``low``,
    ``moderate``, ``medium``, ``high``.
    """

    UNKNOWN = 0
    UNTRUSTED = 1
    VERY_LOW = 2
    LOW = 3
    MODERATE = 4
    MEDIUM = 5
    HIGH = 6

    @property
    def label(self) -> str:
        """The lower-case name used in files and JSON (``very_low``)."""
        return self.name.lower()

    @classmethod
    def parse(cls, value: ConfidenceLevel | str | int) -> ConfidenceLevel:
        """Accept a level, its name (any case, ``very low`` or ``very_low``) or its number."""
        if isinstance(value, ConfidenceLevel):
            return value
        if isinstance(value, int):
            return cls(value)
        key = str(value).strip().upper().replace(" ", "_").replace("-", "_")
        try:
            return cls[key]
        except KeyError:
            names = ", ".join(level.label for level in cls)
            raise ValueError(f"unknown confidence level {value!r}; use one of: {names}") from None

    @classmethod
    def _pydantic_validate(cls, value: Any) -> ConfidenceLevel:
        return cls.parse(value)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(
            cls._pydantic_validate,
            serialization=core_schema.plain_serializer_function_ser_schema(lambda level: level.label),
            json_schema_input_schema=core_schema.str_schema(),
        )


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Visibility(_Model):
    """Where a tool may be used.

    With both lists empty the ``chat`` and ``assistants`` flags apply (``chat`` is the component named
    ``chat``; ``assistants`` every other component). Once either list has an entry the lists replace the
    flags: an empty allow list allows every component, the deny list is applied last and wins.
    """

    chat: bool = True
    """Usable in the component named ``chat`` while both lists are empty."""
    assistants: bool = True
    """Usable in every other component while both lists are empty."""
    allowed_components: tuple[str, ...] = ()
    """Only these components (empty: all), once either list has an entry."""
    denied_components: tuple[str, ...] = ()
    """Never these components; always wins."""

    def allows(self, component: str) -> bool:
        """Whether a tool with this visibility may be used in ``component``."""
        if not self.allowed_components and not self.denied_components:
            return self.chat if component == "chat" else self.assistants
        if self.allowed_components and component not in self.allowed_components:
            return False
        return component not in self.denied_components


class SettingKind(enum.StrEnum):
    """What a setting holds and where it is stored."""

    PLAIN = "plain"
    """A value kept in the settings store."""
    SECRET = "secret"
    """A value kept only in the OS keyring."""
    CHOICE = "choice"
    """One value from a named option source."""
    ENUM = "enum"
    """One value from the field's own ``enum`` list."""


class SettingsField(_Model):
    """One setting of a tool."""

    name: str
    """The field name; admins address it as ``<toolId>.<name>``."""
    kind: SettingKind = SettingKind.PLAIN
    required: bool = False
    """A required setting keeps the tool unconfigured (and away from models) until it has a value."""
    title: str = ""
    """Fallback label; the implementation's ``settings_field_label`` may translate it."""
    description: str = ""
    value_type: Literal["string", "integer", "number", "boolean"] = "string"
    """The JSON type of the value (secrets and choices are strings)."""
    option_source: str | None = None
    """For ``choice``: the name of an option source registered by a plugin."""
    enum: tuple[Any, ...] | None = None
    """For ``enum``: the allowed values, spelled out in the definition."""
    default: Any = None
    """The value used when nobody has set one (admin defaults win over it)."""


class SettingsSchema(_Model):
    """The settings a tool needs, in the order a UI shows them."""

    fields: tuple[SettingsField, ...] = ()

    def field(self, name: str) -> SettingsField | None:
        """The field called ``name``, or None."""
        for candidate in self.fields:
            if candidate.name == name:
                return candidate
        return None


class FunctionSpec(_Model):
    """The function a model sees."""

    name: str
    """The name the model calls; equal to the tool id unless a compatibility reason says otherwise."""
    description_for_llm: str
    """What the tool does, for the model only. Behaviour rules go in system_prompt_instructions."""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """Plain JSON Schema with an object root; optional arguments are absent from ``required``."""
    strict: bool = False
    """Ask OpenAI for strict mode; the adapters convert the schema on the way out."""


class ToolKind(enum.StrEnum):
    """What kind of tool a definition describes."""

    FUNCTION = "function"
    """An ordinary function tool that toolplug executes."""
    PROVIDER_DEFINED = "provider_defined"
    """A tool the provider runs (``<provider>.<tool>``, with args); never executed here."""
    CUSTOM = "custom"
    """Free-form text input constrained by a regex or lark grammar (OpenAI Responses)."""
    DYNAMIC = "dynamic"
    """A tool whose schema is known only at run time; its calls are marked dynamic."""


class ProviderToolSpec(_Model):
    """The provider-side identity of a provider-defined tool."""

    id: str
    """``<provider>.<tool>``, e.g. ``openai.web_search``."""
    args: dict[str, Any] = Field(default_factory=dict)
    """The tool's arguments as the provider's API takes them."""


class GrammarSpec(_Model):
    """The grammar that constrains a custom tool's free-form input."""

    syntax: Literal["regex", "lark"]
    definition: str


class ToolDefinition(_Model):
    """Everything a host needs to know about a tool, independent of any provider."""

    id: str
    """Stable lower-case id with underscores."""
    implementation_key: str
    """Joins the definition to its implementation; equal to ``id`` unless a compatibility reason says so."""
    function: FunctionSpec
    minimum_provider_confidence: ConfidenceLevel = ConfidenceLevel.UNKNOWN
    """The lowest provider confidence the tool may run with."""
    visible_in: Visibility = Visibility()
    settings_schema: SettingsSchema = SettingsSchema()
    system_prompt_instructions: str = ""
    """Policy text appended centrally to the system prompt while the tool is runnable."""
    title: str | None = None
    """A human title, carried into parsed calls and results."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free data for the host, carried into parsed calls and results."""
    kind: ToolKind = ToolKind.FUNCTION
    provider_tool: ProviderToolSpec | None = None
    """For provider-defined tools."""
    grammar: GrammarSpec | None = None
    """For custom tools (optional)."""
    compatibility_reason: str | None = None
    """Why id, implementation_key and function.name may differ (e.g. an MCP tool's original name)."""
    deferred: bool = False
    """Not sent to the model until a tool search finds it (see :mod:`toolplug.tool_search`)."""

    def fingerprint(self) -> str:
        """A stable hash of what the model sees and what the tool may do; changes when any of it does."""
        import hashlib

        payload = json.dumps(self.model_dump(mode="json", exclude={"deferred"}), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


class Source(_Model):
    """Material a tool used, shown to the user under "Sources used by tools"."""

    url: str
    title: str = ""


class OutputType(enum.StrEnum):
    """How a tool result reaches the model."""

    TEXT = "text"
    JSON = "json"
    ERROR_TEXT = "error-text"
    ERROR_JSON = "error-json"
    EXECUTION_DENIED = "execution-denied"
    CONTENT = "content"
    """A list of content parts (text, files); used for MCP tool output."""

    @property
    def is_error(self) -> bool:
        """True for the error types and for a denied execution."""
        return self in (OutputType.ERROR_TEXT, OutputType.ERROR_JSON, OutputType.EXECUTION_DENIED)


_JSON_STARTS = frozenset('{["-0123456789tfn')


def infer_output_type(text: str | None, json_value: Any, *, is_error: bool) -> OutputType:
    """The output type when none was set: error or not, and whether the output is JSON."""
    if json_value is not None or text is None:
        return OutputType.ERROR_JSON if is_error else OutputType.JSON
    stripped = text.lstrip()
    # Most results are prose: decide from the first character before paying for a failed parse.
    if not stripped or stripped[0] not in _JSON_STARTS:
        return OutputType.ERROR_TEXT if is_error else OutputType.TEXT
    try:
        json.loads(text)
    except ValueError:
        return OutputType.ERROR_TEXT if is_error else OutputType.TEXT
    return OutputType.ERROR_JSON if is_error else OutputType.JSON


class ToolExecutionResult(BaseModel):
    """What a tool returns. A tool may also return a plain ``str`` or a JSON value."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    text_content: str | None = None
    """Text for the model."""
    json_content: Any = None
    """A JSON value for the model (used when text_content is None)."""
    sources: list[Source] = Field(default_factory=list)
    """Material the user may want to check."""
    required_provider_confidence: ConfidenceLevel | None = None
    """Later messages of this chat may only go to providers at or above this level."""
    output_type: OutputType | None = None
    """Inferred when unset: JSON when the output is JSON, text otherwise."""
    content: list[dict[str, Any]] | None = None
    """Content parts (``{"type": "text", "text": ...}``, ``{"type": "file", ...}``) for output type content."""
    display_content: list[dict[str, Any]] | None = None
    """Content parts for the person using the host only, never sent to the model (say, what an MCP
    server marked for the user's eyes)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """What the host may want to know about the result (an MCP part's priority); never sent to the model."""

    def resolved_output_type(self, *, is_error: bool = False) -> OutputType:
        """The output type, inferred from the content when unset."""
        if self.output_type is not None:
            return self.output_type
        if self.content is not None:
            return OutputType.CONTENT
        return infer_output_type(self.text_content, self.json_content, is_error=is_error)

    def model_text(self) -> str:
        """The result as the text a model reads."""
        if self.text_content is not None:
            return self.text_content
        if self.content is not None:
            shown = [_without_file_data(part) for part in self.content]
            return json.dumps(shown, ensure_ascii=False)
        return json.dumps(self.json_content, ensure_ascii=False)


def _without_file_data(part: dict[str, Any]) -> dict[str, Any]:
    # A model reading text must never receive a file's base64 data as if it were text.
    if part.get("type") in ("image", "file") and part.get("data"):
        return {key: value for key, value in part.items() if key != "data"} | {"data": "[binary content not shown]"}
    return part


__all__ = [
    "ConfidenceLevel",
    "FunctionSpec",
    "GrammarSpec",
    "OutputType",
    "ProviderToolSpec",
    "SettingKind",
    "SettingsField",
    "SettingsSchema",
    "Source",
    "ToolDefinition",
    "ToolExecutionResult",
    "ToolKind",
    "Visibility",
    "infer_output_type",
]

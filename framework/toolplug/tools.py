"""What a tool author writes: a ToolImplementation subclass, a ``@tool`` function, or ``function_tool``.

A code tool is one object: its definition and its implementation. Provider-defined and custom
tools have no ``execute``; the loop ends a step when the model calls one.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, overload

from pydantic import BaseModel

from toolplug.definitions import (
    ConfidenceLevel,
    FunctionSpec,
    GrammarSpec,
    ProviderToolSpec,
    SettingsField,
    SettingsSchema,
    ToolDefinition,
    ToolKind,
    Visibility,
)
from toolplug.errors import InvalidArgumentError
from toolplug.execution import ToolExecutionContext

NeedsApproval = bool | Callable[[dict[str, Any]], bool | Awaitable[bool]]
"""``True``/``False``, or a function of the call's arguments deciding per call."""


class ToolImplementation:
    """Base class of a code tool: definition and implementation in one object.

    Subclasses set :attr:`implementation_key`, return their :class:`ToolDefinition` from
    :meth:`definition` and do the work in :meth:`execute`. An implementation whose definitions come
    from a definition source (a data file, an MCP server) returns None from :meth:`definition`.
    """

    implementation_key: str = ""
    """Joins definitions to this implementation; the tool id for code tools."""
    display_name: str = ""
    """The name a user sees (translatable); defaults to the definition's title or id."""
    description: str = ""
    """What the tool does, for the user (translatable); never sent to the model."""
    icon: str = ""
    """An icon name for a UI."""
    sensitive_argument_names: frozenset[str] = frozenset()
    """Model-provided arguments never shown in traces."""
    returns_untrusted_external_content: bool = False
    """True for tools returning content fetched from outside; they must filter it through the guard."""
    needs_approval: NeedsApproval = False
    """Ask the host's approval callback before each call (or decide per call with a function)."""
    timeout: float | None = None
    """Seconds a call may take; None for no limit of its own."""
    has_execute: bool = True
    """False for tools the provider runs or the caller runs itself (provider-defined, custom)."""

    def definition(self) -> ToolDefinition | None:
        """The tool's definition, or None when a definition source brings it."""
        raise NotImplementedError(f"{type(self).__name__} must implement definition()")

    async def execute(self, arguments: dict[str, Any], context: ToolExecutionContext) -> Any:
        """Do the work. Return a ToolExecutionResult, a str (text) or a JSON value.

        Raise :class:`~toolplug.errors.ToolExecutionBlockedError` to refuse on purpose.
        """
        raise NotImplementedError(f"{type(self).__name__} has no execute()")

    def settings_field_label(self, field: SettingsField) -> str:
        """The label a settings dialog shows for ``field`` (override to translate)."""
        return field.title or field.name

    def settings_field_description(self, field: SettingsField) -> str:
        """The help text a settings dialog shows for ``field`` (override to translate)."""
        return field.description

    def validate_configuration(self, settings: Mapping[str, Any]) -> list[str]:
        """Problems with ``settings`` beyond "required field present"; empty when configured."""
        return []

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.implementation_key!r}>"


class FunctionTool(ToolImplementation):
    """A tool made from a definition and a callable (what ``@tool`` and ``function_tool`` return)."""

    def __init__(
        self,
        definition: ToolDefinition,
        execute: Callable[..., Any] | None,
        *,
        pass_context: bool = False,
        keyword_arguments: bool = False,
        needs_approval: NeedsApproval = False,
        sensitive_argument_names: frozenset[str] = frozenset(),
        returns_untrusted_external_content: bool = False,
        display_name: str = "",
        description: str = "",
        timeout: float | None = None,
        to_model_output: Callable[[Any], Any] | None = None,
        argument_model: type[BaseModel] | None = None,
    ) -> None:
        self._definition = definition
        self._argument_model = argument_model
        self.__wrapped__: Callable[..., Any] | None = None
        """The user's own function, for ``@tool`` tools."""
        self.implementation_key = definition.implementation_key
        self._function = execute
        self._pass_context = pass_context
        self._keyword_arguments = keyword_arguments
        self._is_async = execute is not None and is_async_callable(execute)
        self.has_execute = execute is not None
        self.needs_approval = needs_approval
        self.sensitive_argument_names = frozenset(sensitive_argument_names)
        self.returns_untrusted_external_content = returns_untrusted_external_content
        self.display_name = display_name or definition.title or definition.id
        self.description = description or definition.function.description_for_llm
        self.timeout = timeout
        self.to_model_output = to_model_output

    def definition(self) -> ToolDefinition:
        return self._definition

    @property
    def function(self) -> Callable[..., Any] | None:
        """The wrapped callable (still directly callable for tests)."""
        return self._function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the decorated function directly, as if it had not been decorated (handy in tests)."""
        function = self.__wrapped__ or self._function
        if function is None:
            raise TypeError(f"tool {self.implementation_key!r} has no function to call")
        return function(*args, **kwargs)

    async def execute(self, arguments: dict[str, Any], context: ToolExecutionContext) -> Any:
        function = self._function
        if function is None:
            raise NotImplementedError(f"tool {self.implementation_key!r} has no execute; the caller runs it")
        if self._keyword_arguments:
            args: tuple[Any, ...] = ()
            if self._argument_model is not None:
                # Pydantic models, dataclasses, enums, tuples...: build the annotated types from the JSON.
                parsed = self._argument_model.model_validate(arguments)
                arguments = {name: getattr(parsed, name) for name in type(parsed).model_fields}
            kwargs = {**arguments, "context": context} if self._pass_context else arguments
        else:
            args = (arguments, context) if self._pass_context else (arguments,)
            kwargs = {}
        if self._is_async:
            result = await function(*args, **kwargs)
        else:
            import asyncio

            result = await asyncio.to_thread(function, *args, **kwargs)
        if type(result) is not str and inspect.isawaitable(result):  # a coroutine from a plain callable
            result = await result
        if self.to_model_output is not None:
            result = self.to_model_output(result)
        return result


def is_async_callable(function: Any) -> bool:
    """True for ``async def`` functions, partials of them and objects with an ``async def __call__``."""
    import functools

    while isinstance(function, functools.partial):
        function = function.func
    if inspect.iscoroutinefunction(function):
        return True
    if inspect.isroutine(function) or not callable(function):
        return False
    return inspect.iscoroutinefunction(type(function).__call__)


def _definition(
    name: str,
    description: str,
    parameters: Mapping[str, Any],
    *,
    kind: ToolKind = ToolKind.FUNCTION,
    strict: bool = False,
    minimum_provider_confidence: ConfidenceLevel | str = ConfidenceLevel.UNKNOWN,
    visible_in: Visibility | None = None,
    settings_schema: SettingsSchema | None = None,
    system_prompt_instructions: str = "",
    title: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    provider_tool: ProviderToolSpec | None = None,
    grammar: GrammarSpec | None = None,
) -> ToolDefinition:
    return ToolDefinition(
        id=name,
        implementation_key=name,
        function=FunctionSpec(name=name, description_for_llm=description, parameters=dict(parameters), strict=strict),
        minimum_provider_confidence=ConfidenceLevel.parse(minimum_provider_confidence),
        visible_in=visible_in or Visibility(),
        settings_schema=settings_schema or SettingsSchema(),
        system_prompt_instructions=system_prompt_instructions,
        title=title,
        metadata=dict(metadata or {}),
        kind=kind,
        provider_tool=provider_tool,
        grammar=grammar,
    )


def function_tool(
    name: str,
    description: str,
    json_schema: Mapping[str, Any],
    execute: Callable[..., Any] | None,
    *,
    pass_context: bool = False,
    needs_approval: NeedsApproval = False,
    sensitive_argument_names: frozenset[str] | set[str] = frozenset(),
    timeout: float | None = None,
    dynamic: bool = False,
    to_model_output: Callable[[Any], Any] | None = None,
    **definition_fields: Any,
) -> FunctionTool:
    """A tool from a name, a description, a JSON Schema and a callable taking the arguments dict.

    ``execute(arguments)`` (or ``execute(arguments, context)`` with ``pass_context=True``) may be sync
    (it then runs in a worker thread) or async. ``None`` makes a tool without execute: a call to it
    ends the loop's step and the caller answers it. ``definition_fields`` go to the ToolDefinition
    (``strict``, ``minimum_provider_confidence``, ``visible_in``, ``settings_schema``, ``title``, ...).
    """
    definition = _definition(
        name, description, json_schema, kind=ToolKind.DYNAMIC if dynamic else ToolKind.FUNCTION, **definition_fields
    )
    return FunctionTool(
        definition,
        execute,
        pass_context=pass_context,
        needs_approval=needs_approval,
        sensitive_argument_names=frozenset(sensitive_argument_names),
        timeout=timeout,
        to_model_output=to_model_output,
    )


def dynamic_tool(
    name: str, description: str, json_schema: Mapping[str, Any], execute: Callable[..., Any], **options: Any
) -> FunctionTool:
    """A tool whose schema is only known at run time; its parsed calls are marked dynamic."""
    return function_tool(name, description, json_schema, execute, dynamic=True, **options)


_PROVIDER_TOOL_ID = re.compile(r"^[a-z0-9_-]+\.[A-Za-z0-9_.-]+$")


def provider_defined_tool(
    id: str,
    name: str,
    args: Mapping[str, Any] | None = None,
    input_schema: Mapping[str, Any] | None = None,
    **definition_fields: Any,
) -> FunctionTool:
    """A tool the provider runs (``openai.web_search``, ``anthropic.web_search_20250305``); never executed here.

    With ``input_schema``, the input of its provider-executed calls is validated.
    """
    if not _PROVIDER_TOOL_ID.match(id):
        raise InvalidArgumentError("id", f"{id!r} is not of the form '<provider>.<tool>'")
    schema = dict(input_schema) if input_schema is not None else {"type": "object", "properties": {}}
    definition = _definition(
        name,
        definition_fields.pop("description", ""),
        schema,
        kind=ToolKind.PROVIDER_DEFINED,
        provider_tool=ProviderToolSpec(id=id, args=dict(args or {})),
        metadata={**definition_fields.pop("metadata", {}), "has_input_schema": input_schema is not None},
        **definition_fields,
    )
    return FunctionTool(definition, None)


def custom_tool(
    name: str,
    description: str = "",
    *,
    grammar_syntax: str | None = None,
    grammar_definition: str | None = None,
    **definition_fields: Any,
) -> FunctionTool:
    """A free-form text tool (OpenAI Responses custom tool), optionally constrained by a regex or lark grammar.

    It has no execute: run it yourself and send the result back as a tool message.
    """
    if (grammar_syntax is None) != (grammar_definition is None):
        raise InvalidArgumentError("grammar", "give grammar_syntax and grammar_definition together")
    grammar = None
    if grammar_syntax is not None:
        if grammar_syntax not in ("regex", "lark"):
            raise InvalidArgumentError("grammar_syntax", f"{grammar_syntax!r} is not 'regex' or 'lark'")
        grammar = GrammarSpec(syntax=grammar_syntax, definition=grammar_definition or "")
    definition = _definition(
        name,
        description,
        {"type": "object", "properties": {"input": {"type": "string"}}},
        kind=ToolKind.CUSTOM,
        grammar=grammar,
        **definition_fields,
    )
    return FunctionTool(definition, None)


# --- @tool ------------------------------------------------------------------------------------


@overload
def tool(function: Callable[..., Any], /) -> FunctionTool: ...


@overload
def tool(
    function: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    needs_approval: NeedsApproval = False,
    sensitive_argument_names: frozenset[str] | set[str] = frozenset(),
    returns_untrusted_external_content: bool = False,
    timeout: float | None = None,
    **definition_fields: Any,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    function: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    needs_approval: NeedsApproval = False,
    sensitive_argument_names: frozenset[str] | set[str] = frozenset(),
    returns_untrusted_external_content: bool = False,
    timeout: float | None = None,
    **definition_fields: Any,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Turn a typed function (sync or async) into a tool.

    The schema is pydantic's reading of the signature: type hints with their ``Annotated`` and
    ``Field`` constraints and descriptions. The description for the model comes from the docstring's
    first paragraph, each argument's description from its entry in a Google (``Args:``), NumPy
    (``Parameters``) or Sphinx (``:param name:``) docstring, unless its ``Field`` has one.
    Positional-only parameters, ``*args`` and ``**kwargs`` are refused: a tool gets its arguments
    by name. Sync and async functions and callable objects (``async def __call__``) all work. A parameter
    annotated :class:`~toolplug.execution.ToolExecutionContext` receives the call's context and is
    not part of the schema.

    >>> @tool
    ... def add(a: int, b: int = 0) -> int:
    ...     '''Add two integers.'''
    ...     return a + b
    >>> add.definition().function.parameters["required"]
    ['a']
    """

    def decorate(func: Callable[..., Any]) -> FunctionTool:
        tool_name = name or _name_of(func)
        summary, argument_docs = parse_docstring(_doc_of(func))
        schema, context_parameter, argument_model = _schema_from_signature(func, argument_docs)
        definition = _definition(tool_name, description or summary or tool_name, schema, **definition_fields)
        wrapped = func
        if context_parameter and context_parameter != "context":
            original = func

            def rename(*args: Any, context: ToolExecutionContext, **kwargs: Any) -> Any:
                return original(*args, **{context_parameter: context}, **kwargs)

            async def rename_async(*args: Any, context: ToolExecutionContext, **kwargs: Any) -> Any:
                return await original(*args, **{context_parameter: context}, **kwargs)

            wrapped = rename_async if is_async_callable(func) else rename
        made = FunctionTool(
            definition,
            wrapped,
            pass_context=context_parameter is not None,
            keyword_arguments=True,
            needs_approval=needs_approval,
            sensitive_argument_names=frozenset(sensitive_argument_names),
            returns_untrusted_external_content=returns_untrusted_external_content,
            timeout=timeout,
            argument_model=argument_model,
        )
        made.__wrapped__ = func
        return made

    if function is not None:
        return decorate(function)
    return decorate


def _schema_from_signature(
    func: Callable[..., Any], argument_docs: Mapping[str, str]
) -> tuple[dict[str, Any], str | None, type[BaseModel] | None]:
    """The JSON Schema of the parameters, the context parameter's name, and the model that turns
    JSON arguments into the annotated Python types (None when JSON values already are those types)."""
    from pydantic import ConfigDict, Field, create_model

    label = _name_of(func)
    target = func if inspect.isroutine(func) or not callable(func) else type(func).__call__
    try:
        hints = get_type_hints(target, include_extras=True)  # include_extras keeps Annotated[..., Field(...)]
        signature = inspect.signature(func)
    except Exception as exc:
        raise InvalidArgumentError("function", f"cannot read the signature of {label}: {exc}") from exc
    fields: dict[str, Any] = {}
    context_parameter = None
    for parameter in signature.parameters.values():
        _check_parameter_kind(parameter, label)
        annotation = hints.get(parameter.name, Any)
        if _unannotated(annotation) is ToolExecutionContext:
            context_parameter = parameter.name
            continue
        if parameter.name not in hints:
            raise InvalidArgumentError(
                "function", f"parameter {parameter.name!r} of {label} needs a type hint for its schema"
            )
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        described = argument_docs.get(parameter.name)
        # An explicit Field(description=...) in Annotated wins over the docstring.
        if described is None or _has_description(annotation):
            info = Field(default)
        else:
            info = Field(default, description=described)
        fields[parameter.name] = (annotation, info)
    model = create_model(
        f"{label}_arguments", __config__=ConfigDict(extra="forbid"), **fields
    )
    schema = _strip_titles(model.model_json_schema())
    schema.setdefault("properties", {})
    needs_model = any(not _is_json_native(annotation) for annotation, _ in fields.values())
    return schema, context_parameter, model if needs_model else None


_JSON_SCALARS: frozenset[Any] = frozenset({str, int, float, bool, type(None), Any})


def _check_parameter_kind(parameter: inspect.Parameter, label: str) -> None:
    """Tools are called with a JSON object: every parameter must be passable by keyword."""
    if parameter.kind is parameter.POSITIONAL_ONLY:
        raise InvalidArgumentError(
            "function",
            f"parameter {parameter.name!r} of {label} is positional-only; a tool receives its arguments by name, "
            "so remove the '/' from the signature",
        )
    if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
        star = "*" if parameter.kind is parameter.VAR_POSITIONAL else "**"
        raise InvalidArgumentError(
            "function",
            f"{label} takes {star}{parameter.name}; a tool's arguments need a schema, so name each parameter "
            "(or take one pydantic model)",
        )


def _name_of(func: Any) -> str:
    return str(getattr(func, "__name__", None) or type(func).__name__)


def _doc_of(func: Any) -> str:
    doc = inspect.getdoc(func) or ""
    if not doc and not inspect.isroutine(func):
        doc = inspect.getdoc(type(func).__call__) or ""
    return doc


def _unannotated(annotation: Any) -> Any:
    from typing import Annotated

    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _has_description(annotation: Any) -> bool:
    from typing import Annotated

    from pydantic.fields import FieldInfo

    if get_origin(annotation) is not Annotated:
        return False
    return any(isinstance(extra, FieldInfo) and extra.description for extra in get_args(annotation)[1:])


def _is_json_native(annotation: Any) -> bool:
    """True when a validated JSON value already is an instance of ``annotation`` (no conversion needed)."""
    annotation = _unannotated(annotation)
    if annotation in _JSON_SCALARS:
        return True
    origin = get_origin(annotation)
    if origin is Literal:
        return True
    if origin in (list, dict, Union, UnionType):
        return all(_is_json_native(argument) for argument in get_args(annotation))
    return annotation in (list, dict)


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: _strip_titles(value) for key, value in node.items() if not (key == "title" and isinstance(value, str))
        }
    if isinstance(node, list):
        return [_strip_titles(item) for item in node]
    return node


_GOOGLE_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Returns?|Raises|Yields?|Examples?|Notes?|See Also|Attributes)"
    r":\s*$"
)
_GOOGLE_ARGUMENT = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ARGUMENT = re.compile(r"^(\w+)(?:\s*:\s*.*)?$")
_SPHINX_PARAM = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_ARGUMENT_SECTIONS = ("Args", "Arguments", "Parameters", "Params", "Keyword Args")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The summary (first paragraph) and each argument's description, from a docstring.

    Reads the three common styles: Google (``Args:`` with ``name (type): text``), NumPy
    (``Parameters`` underlined with dashes, ``name : type`` then indented text) and Sphinx
    (``:param name: text``). Continuation lines are joined with spaces.
    """
    lines = doc.expandtabs().splitlines()
    summary_lines: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped or _GOOGLE_SECTION.match(stripped) or stripped.startswith(":"):
            break
        summary_lines.append(stripped)
    arguments = _sphinx_arguments(lines) or _numpy_arguments(lines) or _google_arguments(lines)
    return " ".join(summary_lines), arguments


def _google_arguments(lines: list[str]) -> dict[str, str]:
    arguments: dict[str, str] = {}
    in_section = False
    indent: int | None = None
    current = None
    for line in lines:
        stripped = line.strip()
        header = _GOOGLE_SECTION.match(stripped)
        if header and len(line) - len(line.lstrip()) <= (indent or 0):
            in_section = header.group(1) in _ARGUMENT_SECTIONS
            indent = None
            current = None
            continue
        if not in_section or not stripped:
            continue
        depth = len(line) - len(line.lstrip())
        match = _GOOGLE_ARGUMENT.match(stripped)
        if match and (indent is None or depth <= indent):
            indent = depth
            current = match.group(1).lstrip("*")
            arguments[current] = match.group(2).strip()
        elif current:
            arguments[current] = f"{arguments[current]} {stripped}".strip()
    return arguments


def _numpy_arguments(lines: list[str]) -> dict[str, str]:
    arguments: dict[str, str] = {}
    in_section = False
    current = None
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        underline = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if stripped and underline and set(underline) == {"-"}:
            in_section = stripped in _ARGUMENT_SECTIONS or stripped == "Other Parameters"
            current = None
            index += 2
            continue
        if in_section and stripped:
            is_name = len(lines[index]) - len(lines[index].lstrip()) == 0 or not current
            match = _NUMPY_ARGUMENT.match(stripped) if is_name else None
            if match and is_name:
                current = match.group(1)
                arguments[current] = ""
            elif current:
                arguments[current] = f"{arguments[current]} {stripped}".strip()
        index += 1
    return arguments


def _sphinx_arguments(lines: list[str]) -> dict[str, str]:
    arguments: dict[str, str] = {}
    current = None
    for line in lines:
        stripped = line.strip()
        match = _SPHINX_PARAM.match(stripped)
        if match:
            current = match.group(1)
            arguments[current] = match.group(2).strip()
        elif stripped.startswith(":"):
            current = None
        elif current and stripped:
            arguments[current] = f"{arguments[current]} {stripped}".strip()
    return arguments


__all__ = [
    "FunctionTool",
    "NeedsApproval",
    "ToolImplementation",
    "custom_tool",
    "dynamic_tool",
    "function_tool",
    "is_async_callable",
    "parse_docstring",
    "provider_defined_tool",
    "tool",
]

"""Which tools a model may see, and why every other tool is left out.

The rules compose as small filters, each returning a readable reason or None: visibility for the
component, the admin's plugin policy for the component, the user's selection, the model's tool
support, configuration, and provider confidence. A tool is runnable when no filter objects.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

from toolplug.config import HostConfig
from toolplug.definitions import ConfidenceLevel, ToolKind
from toolplug.registry import RegisteredTool, ToolRegistry
from toolplug.settings import ToolSettingsService


@dataclass(frozen=True, slots=True)
class SelectionRequest:
    """What a chat turn asks the selector."""

    component: str = "chat"
    provider_id: str | None = None
    """None: no provider is involved (a person at the CLI); confidence is not checked."""
    provider_confidence: ConfidenceLevel | None = None
    provider_trusted: bool = False
    model_supports_tools: bool = True
    selected: Collection[str] | None = None
    """Tool ids the user selected; None means the host's defaults."""
    chat_required_confidence: ConfidenceLevel | None = None
    """The highest confidence earlier tool results of this chat require."""


@dataclass(frozen=True, slots=True)
class ExcludedTool:
    """A tool the selector left out, with every reason."""

    tool: RegisteredTool
    reasons: tuple[str, ...]

    @property
    def id(self) -> str:
        """The tool id."""
        return self.tool.id


@dataclass(slots=True)
class Selection:
    """The runnable tools, the excluded ones with reasons, and the combined instructions."""

    runnable: list[RegisteredTool] = field(default_factory=list)
    excluded: list[ExcludedTool] = field(default_factory=list)

    @property
    def instructions(self) -> str:
        """The non-empty system_prompt_instructions of the runnable tools, combined."""
        return combine_instructions(self.runnable)

    def reasons_for(self, tool_id: str) -> tuple[str, ...]:
        """Why ``tool_id`` was left out (empty when it is runnable or unknown)."""
        for excluded in self.excluded:
            if excluded.id == tool_id:
                return excluded.reasons
        return ()


ToolFilter = Callable[[RegisteredTool, SelectionRequest], str | None]


def combine_instructions(tools: Iterable[RegisteredTool]) -> str:
    """Each runnable tool's non-empty policy text, under its tool id, joined for the system prompt."""
    blocks = []
    for registered in tools:
        text = registered.definition.system_prompt_instructions.strip()
        if text:
            blocks.append(f"## Tool {registered.definition.function.name}\n{text}")
    if not blocks:
        return ""
    return "# Tool usage instructions\n\n" + "\n\n".join(blocks)


def append_instructions(system_prompt: str | None, tools: Iterable[RegisteredTool]) -> str:
    """``system_prompt`` with the combined tool instructions appended."""
    combined = combine_instructions(tools)
    base = (system_prompt or "").rstrip()
    if not combined:
        return base
    return f"{base}\n\n{combined}" if base else combined


class ToolSelector:
    """Decides the runnable tools for a component, provider, model and user selection."""

    def __init__(self, registry: ToolRegistry, settings: ToolSettingsService, config: HostConfig) -> None:
        self.registry = registry
        self.settings = settings
        self.config = config
        self.filters: list[ToolFilter] = [
            self._visibility,
            self._plugin_policy,
            self._user_selection,
            self._model_support,
            self._configuration,
            self._confidence,
        ]

    def select(self, request: SelectionRequest) -> Selection:
        """Apply every filter to every registered tool."""
        selection = Selection()
        for registered in self.registry:
            reasons = tuple(r for r in (f(registered, request) for f in self.filters) if r)
            if reasons:
                selection.excluded.append(ExcludedTool(registered, reasons))
            else:
                selection.runnable.append(registered)
        return selection

    def check(self, registered: RegisteredTool, request: SelectionRequest) -> tuple[str, ...]:
        """Why one tool cannot run for ``request`` (empty when it can)."""
        return tuple(r for r in (f(registered, request) for f in self.filters) if r)

    # -- the filters -----------------------------------------------------------------------------------

    @staticmethod
    def _visibility(tool: RegisteredTool, request: SelectionRequest) -> str | None:
        if tool.definition.visible_in.allows(request.component):
            return None
        return f"not available in the component '{request.component}' (the tool's visibility)"

    def _plugin_policy(self, tool: RegisteredTool, request: SelectionRequest) -> str | None:
        policy = self.config.plugins.components.get(request.component)
        if policy is None:
            return None
        plugin = tool.plugin
        if _names_plugin(policy.deny, plugin):
            return f"the plugin '{plugin}' is denied in the component '{request.component}' by the admin"
        if policy.allow is not None and not _names_plugin(policy.allow, plugin):
            return f"the plugin '{plugin}' is not allowed in the component '{request.component}' by the admin"
        return None

    def _user_selection(self, tool: RegisteredTool, request: SelectionRequest) -> str | None:
        if request.selected is not None:
            return None if tool.id in request.selected else "not selected by the user"
        defaults = self.config.host.default_tools
        if defaults is not None and tool.id not in defaults:
            return "not among the host's default tools and not selected by the user"
        return None

    @staticmethod
    def _model_support(tool: RegisteredTool, request: SelectionRequest) -> str | None:
        if request.model_supports_tools:
            return None
        return "the model does not support tool calling"

    def _configuration(self, tool: RegisteredTool, request: SelectionRequest) -> str | None:
        if tool.definition.kind is not ToolKind.FUNCTION and not tool.definition.settings_schema.fields:
            return None
        status = self.settings.configuration_status(tool.definition, tool.implementation.validate_configuration)
        if status.configured:
            return None
        return "not configured: " + "; ".join(status.problems)

    @staticmethod
    def _confidence(tool: RegisteredTool, request: SelectionRequest) -> str | None:
        confidence = request.provider_confidence
        if confidence is None:
            return None
        minimum = tool.definition.minimum_provider_confidence
        if confidence < minimum:
            return (
                f"needs a provider with confidence {minimum.label} or higher; "
                f"'{request.provider_id}' has {confidence.label}"
            )
        return None


def _names_plugin(names: Collection[str], plugin: str) -> bool:
    """``plugin`` is listed, or is part of a listed plugin (``mcp`` covers ``mcp.github``)."""
    return plugin in names or any(plugin.startswith(f"{name}.") for name in names)


def chat_may_continue(
    required: ConfidenceLevel | None, confidence: ConfidenceLevel | None, trusted: bool
) -> bool:
    """Whether a provider may receive a chat whose tool data requires ``required``."""
    if required is None or confidence is None:
        return True
    return trusted or confidence >= required


__all__ = [
    "ExcludedTool",
    "Selection",
    "SelectionRequest",
    "ToolFilter",
    "ToolSelector",
    "append_instructions",
    "chat_may_continue",
    "combine_instructions",
]


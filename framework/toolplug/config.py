"""The host configuration: one TOML file an admin or host app writes.

Read with :func:`load_config`: ``--config FILE``, else ``$TOOLPLUG_CONFIG``, else the default location
``$XDG_CONFIG_HOME/toolplug/config.toml`` (``~/.config/toolplug/config.toml``; ``%APPDATA%`` on Windows)
when that file exists. Unknown keys and bad values are errors naming the key and the file. Without a
file, the built-in defaults apply.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from toolplug.config_paths import (
    CONFIG_ENV,
    CONFIG_FILE_NAME,
    config_locations_hint,
    config_path_in_effect,
    default_config_path,
)
from toolplug.definitions import ConfidenceLevel
from toolplug.errors import ConfigError

if TYPE_CHECKING:
    from toolplug.tool_search import ToolSearchOptions

DEFAULT_COMPONENTS = ("chat", "assistants")


class _Section(BaseModel):
    # Built on first validation: a command run without a config file never validates one.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class HostSection(_Section):
    """``[host]``: the host application's own facts."""

    components: tuple[str, ...] = DEFAULT_COMPONENTS
    """The host's components; ``chat`` is the CLI's default."""
    default_tools: tuple[str, ...] | None = None
    """Tools selected when the user has made no selection (None: every tool)."""

    @field_validator("components")
    @classmethod
    def _components_not_empty(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("list at least one component")
        if len(set(value)) != len(value):
            raise ValueError("components must be unique")
        return value


class ComponentPluginPolicy(_Section):
    """``[plugins.components.<name>]``: which plugins a component may use. Deny wins."""

    allow: tuple[str, ...] | None = None
    """Only these plugins (None: all)."""
    deny: tuple[str, ...] = ()


class PluginsSection(_Section):
    """``[plugins]``: the admin's plugin policy."""

    deny: tuple[str, ...] = ()
    """Plugins never imported."""
    components: dict[str, ComponentPluginPolicy] = Field(default_factory=dict)


class ToolSection(_Section):
    """``[tools.<id>]``: admin values for one tool's settings, addressed by field name."""

    locked: dict[str, Any] = Field(default_factory=dict)
    """Values the user cannot change."""
    defaults: dict[str, Any] = Field(default_factory=dict)
    """Values pre-filled until the user saves one."""


class ProviderSection(_Section):
    """``[providers.<id>]``: one model provider."""

    api: str
    """``openai-chat``, ``openai-responses``, ``anthropic`` or a plugin's API name."""
    model: str
    base_url: str | None = None
    """The API's base URL (any OpenAI-compatible server works); the vendor's when unset."""
    confidence: ConfidenceLevel = ConfidenceLevel.UNKNOWN
    """How far this provider is trusted with data."""
    api_key_env: str | None = None
    """An environment variable holding the API key (else the keyring: ``provider.<id>`` / ``api_key``)."""
    trusted: bool = False
    """May continue chats whose data requires a higher confidence."""
    supports_tools: bool = True
    """Whether the model can call tools."""
    timeout: float = 120.0
    max_retries: int = 2
    max_output_tokens: int | None = Field(default=None, ge=1)
    """The output-token limit of each answer, sent in the field the server reads (see ``server``)."""
    tool_choice: str | None = None
    """``auto``, ``none``, ``required`` or a tool name: what the model may call (default ``auto``)."""
    server: Literal["official", "llama.cpp", "ollama", "vllm", "lmstudio", "generic"] | None = None
    """The kind of server behind ``base_url`` (its dialect); guessed from the base URL when unset."""
    tool_call_content: Literal["null", "empty"] | None = None
    """Overrides the server profile: ``content`` of an assistant turn with tool calls and no text."""
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] | None = None
    """Overrides the server profile: the body field of the output-token limit."""
    tool_choices: tuple[Literal["auto", "none", "required", "tool"], ...] | None = None
    """Overrides the server profile: the tool choices the server honours (``tool``: a named tool)."""
    send_parallel_tool_calls: bool | None = None
    """Overrides the server profile: whether ``parallel_tool_calls`` is sent."""
    stream_usage: bool | None = None
    """Overrides the server profile: whether a stream asks for usage (``stream_options``)."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Extra request-body parameters; a field toolplug manages (model, messages, tools, tool_choice,
    stream, the output-token limit...) is an error: use the matching setting instead."""
    native_tool_search: bool | None = None
    """Use the API's own tool search for deferred tools (Anthropic, Responses); None: where the model
    is known to support it."""

    @field_validator("api")
    @classmethod
    def _plausible_api(cls, value: str) -> str:
        from toolplug.providers import BUILTIN_APIS

        if value in BUILTIN_APIS:
            return value
        if not value.strip() or value != value.strip():
            raise ValueError(f"unknown API {value!r}")
        spelled = {_api_spelling(name): name for name in BUILTIN_APIS}
        near = spelled.get(_api_spelling(value))
        if near is not None:
            raise ValueError(f"unknown API {value!r}; did you mean {near!r}?")
        return value  # a plugin's API: checked once the plugins' adapters are known

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence_is_a_name(cls, value: Any) -> Any:
        if isinstance(value, str | ConfidenceLevel):
            return value
        names = ", ".join(level.label for level in ConfidenceLevel)
        raise ValueError(f"must be one of the level names ({names}), not {value!r}")

    @field_validator("timeout")
    @classmethod
    def _positive_timeout(cls, value: float) -> float:
        if value <= 0:
            raise ValueError("must be greater than 0")
        return value

    @field_validator("extra")
    @classmethod
    def _no_managed_fields(cls, value: dict[str, Any]) -> dict[str, Any]:
        from toolplug.providers.profiles import managed_field_problem

        for key in value:
            problem = managed_field_problem(key)
            if problem:
                raise ValueError(problem)
        return value

    @field_validator("tool_choice")
    @classmethod
    def _tool_choice_named(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("name auto, none, required or a tool")
        return value

    def server_overrides(self) -> dict[str, Any]:
        """The profile knobs this section overrides (see :mod:`toolplug.providers.profiles`)."""
        return {
            "tool_call_content": None
            if self.tool_call_content is None
            else ("" if self.tool_call_content == "empty" else "null"),
            "max_tokens_field": self.max_tokens_field,
            "tool_choices": self.tool_choices,
            "parallel_tool_calls": self.send_parallel_tool_calls,
            "stream_usage": self.stream_usage,
        }


class LimitsSection(_Section):
    """``[limits]``: the host chat's tool-calling limits."""

    max_tool_calls: int = Field(default=20, ge=1)
    max_tool_result_characters: int = Field(default=100_000, ge=1)
    max_steps: int = Field(default=30, ge=1)


class ToolSearchSection(_Section):
    """``[tool_search]``: which runnable tools are deferred until the model searches for them."""

    deferred: tuple[str, ...] = ()
    """Plugin or tool ids whose tools are deferred."""
    offer_at_most: int | None = Field(default=None, ge=1)
    """When more tools are runnable, the rest are deferred (the user's selection and ``always`` stay)."""
    always: tuple[str, ...] = ()
    """Tool ids always offered up front."""
    max_results: int = Field(default=5, ge=1, le=20)
    """Matches one search returns."""
    native: bool = True
    """Use the provider's own tool search where the model supports it; false forces ``search_tools``."""
    serve_deferred: bool = True
    """``toolplug serve`` lists deferred tools too."""

    def options(self) -> ToolSearchOptions:
        """These settings as the loop's :class:`~toolplug.tool_search.ToolSearchOptions`."""
        from toolplug.tool_search import ToolSearchOptions

        return ToolSearchOptions(
            deferred=self.deferred,
            offer_at_most=self.offer_at_most,
            always=self.always,
            max_results=self.max_results,
            native=self.native,
            serve_deferred=self.serve_deferred,
        )


class HostConfig(_Section):
    """The whole host configuration."""

    host: HostSection = Field(default_factory=HostSection.model_construct)
    plugins: PluginsSection = Field(default_factory=PluginsSection.model_construct)
    tools: dict[str, ToolSection] = Field(default_factory=dict)
    providers: dict[str, ProviderSection] = Field(default_factory=dict)
    trusted_provider_ids: tuple[str, ...] = ()
    """Providers that may continue chats whose data requires a higher confidence (as ``trusted = true``)."""
    limits: LimitsSection = Field(default_factory=LimitsSection.model_construct)
    tool_search: ToolSearchSection = Field(default_factory=ToolSearchSection.model_construct)
    mcp: dict[str, Any] = Field(default_factory=dict)
    """``[mcp]``: read by the MCP plugin (``[mcp.servers.<name>]``)."""
    plugin_settings: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """``[plugin_settings.<plugin>]``: free sections a plugin reads itself."""
    source: str | None = Field(default=None, exclude=True)
    """The file this config was read from."""

    @model_validator(mode="after")
    def _check_references(self) -> HostConfig:
        components = set(self.host.components)
        for name in self.plugins.components:
            if name not in components:
                raise ValueError(
                    f"plugins.components.{name}: unknown component; the host has: {', '.join(self.host.components)}"
                )
        for name in self.trusted_provider_ids:
            if name not in self.providers:
                raise ValueError(f"trusted_provider_ids: {name!r} is not a provider in [providers]")
        return self

    def is_trusted(self, provider_id: str | None) -> bool:
        """Whether the provider may continue chats that need a higher confidence."""
        if provider_id is None:
            return False
        provider = self.providers.get(provider_id)
        return provider is not None and (provider.trusted or provider_id in self.trusted_provider_ids)

    def locked_settings(self) -> dict[str, dict[str, Any]]:
        """``{tool_id: {field: value}}`` of every locked value."""
        return {tool_id: dict(section.locked) for tool_id, section in self.tools.items() if section.locked}

    def default_settings(self) -> dict[str, dict[str, Any]]:
        """``{tool_id: {field: value}}`` of every admin default."""
        return {tool_id: dict(section.defaults) for tool_id, section in self.tools.items() if section.defaults}


def _api_spelling(name: str) -> str:
    return "".join(character for character in name.lower() if character.isalnum())


def parse_config(data: Mapping[str, Any], *, source: str = "<config>") -> HostConfig:
    """Validate a parsed config mapping; errors name the key and the source."""
    try:
        config = HostConfig.model_validate({**data, "source": source})
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "unknown key"
        if not key:
            # A cross-reference check of the whole file says "<key>: <problem>"; name that key.
            named, separator, rest = message.partition(": ")
            key, message = (named, rest) if separator and " " not in named else ("(root)", message)
        more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
        raise ConfigError(f"{source}: {key}: {message}{more}", path=source, key=key) from exc
    return config


def load_config(path: str | os.PathLike[str] | None = None) -> HostConfig:
    """Read the host config: ``path``, else ``$TOOLPLUG_CONFIG``, else the default location when it exists.

    A file named by ``path`` or the environment must exist; without any file the built-in defaults apply.
    """
    file, origin = config_path_in_effect(path)
    if origin == "default" and not file.is_file():
        # The built-in defaults need no validation, and skipping it spares building the validators.
        return HostConfig.model_construct()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{file}: the config file does not exist", path=str(file)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read the config file: {exc}", path=str(file)) from exc
    import tomllib  # only when there is a file to read: most commands' start-up never needs it

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}", path=str(file)) from exc
    return parse_config(data, source=str(file))


__all__ = [
    "CONFIG_ENV",
    "CONFIG_FILE_NAME",
    "ComponentPluginPolicy",
    "HostConfig",
    "HostSection",
    "LimitsSection",
    "PluginsSection",
    "ProviderSection",
    "ToolSection",
    "config_locations_hint",
    "config_path_in_effect",
    "default_config_path",
    "load_config",
    "parse_config",
]

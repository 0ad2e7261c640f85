"""Tool settings: plain values in a JSON store, secrets in the OS keyring, admin locks and defaults.

Plain values live in ``settings.json`` in the user's config folder (``$TOOLPLUG_SETTINGS_DIR``
overrides the folder, so tests and CI never touch a real user's files). Secrets live only in the
keyring (service ``toolplug``, key ``<toolId>.<fieldName>``). An admin's locked value wins over
everything; an admin default pre-fills a field until the user saves a value.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolplug.definitions import SettingKind, SettingsField, ToolDefinition
from toolplug.errors import KeyringUnavailableError, SettingsError

if TYPE_CHECKING:
    from toolplug.registry import RegisteredTool

KEYRING_SERVICE = "toolplug"
SETTINGS_DIR_ENV = "TOOLPLUG_SETTINGS_DIR"


@dataclass(frozen=True, slots=True)
class Option:
    """One choice: the stored value and the name a user sees."""

    value: str
    display_name: str = ""

    @property
    def label(self) -> str:
        """The display name, or the value when there is none."""
        return self.display_name or self.value


@dataclass(frozen=True, slots=True)
class OptionSource:
    """A named list of choices kept once in code and shared by every tool that offers it."""

    name: str
    options: tuple[Option, ...]

    @classmethod
    def of(cls, name: str, options: Iterable[Option | tuple[str, str] | str]) -> OptionSource:
        """Build from options, ``(value, display name)`` pairs or plain values."""
        built = []
        for option in options:
            if isinstance(option, Option):
                built.append(option)
            elif isinstance(option, tuple):
                built.append(Option(str(option[0]), str(option[1])))
            else:
                built.append(Option(str(option)))
        return cls(name, tuple(built))

    def values(self) -> list[str]:
        """The stored values, in order."""
        return [option.value for option in self.options]


def default_settings_dir() -> Path:
    """The folder of the settings store: ``$TOOLPLUG_SETTINGS_DIR`` or the platform's config folder."""
    override = os.environ.get(SETTINGS_DIR_ENV)
    if override:
        return Path(override)
    if os.name == "nt":
        base = Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    elif os.uname().sysname == "Darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "toolplug"


class SecretStore:
    """Secrets in the OS keyring; a clear error where no usable backend exists."""

    def __init__(self, service: str = KEYRING_SERVICE) -> None:
        self.service = service

    @staticmethod
    def _keyring() -> Any:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
        if isinstance(backend, fail.Keyring) or (type(backend).__name__ == "ChainerBackend" and not getattr(
            backend, "backends", True
        )):
            raise KeyringUnavailableError(
                "No OS keyring backend is available, so secret settings cannot be stored. Install one: "
                "on Linux `pip install secretstorage` with a running Secret Service (GNOME Keyring, KWallet), "
                "or `pip install keyrings.alt` for an encrypted file; see https://pypi.org/project/keyring/."
            )
        return keyring

    def get(self, tool_id: str, field_name: str) -> str | None:
        """The secret, or None when unset."""
        keyring = self._keyring()
        try:
            value = keyring.get_password(self.service, f"{tool_id}.{field_name}")
        except Exception as exc:
            raise KeyringUnavailableError(f"The keyring could not be read: {type(exc).__name__}") from exc
        return None if value is None else str(value)

    def set(self, tool_id: str, field_name: str, value: str) -> None:
        """Store a secret."""
        keyring = self._keyring()
        try:
            keyring.set_password(self.service, f"{tool_id}.{field_name}", value)
        except Exception as exc:
            raise KeyringUnavailableError(f"The keyring could not store the secret: {type(exc).__name__}") from exc

    def delete(self, tool_id: str, field_name: str) -> None:
        """Remove a secret; nothing happens when it is not set."""
        keyring = self._keyring()
        try:
            keyring.delete_password(self.service, f"{tool_id}.{field_name}")
        except Exception as exc:
            if type(exc).__name__ != "PasswordDeleteError":
                raise KeyringUnavailableError(f"The keyring could not delete: {type(exc).__name__}") from exc


class JsonSettingsStore:
    """The user's plain settings: ``{tool_id: {field: value}}`` in one JSON file, written atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._data: dict[str, dict[str, Any]] | None = None
        self._stamp: tuple[int, int, int] | None = None

    def _file_stamp(self) -> tuple[int, int, int] | None:
        try:
            stat = self.path.stat()
        except OSError:
            return None
        return stat.st_ino, stat.st_mtime_ns, stat.st_size

    def _load(self, *, fresh: bool = False) -> dict[str, dict[str, Any]]:
        # Another process (a host app, `toolplug settings set`) may have replaced the file since it was
        # read: re-read it when it changed, and always before a write, so no write loses their values.
        stamp = self._file_stamp()
        if fresh or self._data is None or stamp != self._stamp:
            self._data = None
            self._stamp = stamp
            try:
                raw = self.path.read_text(encoding="utf-8")
            except FileNotFoundError:
                self._data = {}
            except (OSError, UnicodeDecodeError) as exc:
                raise SettingsError(f"Cannot read the settings file {self.path}: {exc}") from exc
            else:
                try:
                    data = json.loads(raw) if raw.strip() else {}
                except ValueError as exc:
                    raise SettingsError(
                        f"The settings file {self.path} is not valid JSON ({exc}); fix or move it away."
                    ) from exc
                if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
                    raise SettingsError(f"The settings file {self.path} must map tool ids to objects of settings.")
                self._data = data
        return self._data

    def get_tool(self, tool_id: str) -> dict[str, Any]:
        """The user's values for one tool."""
        return dict(self._load().get(tool_id, {}))

    def set(self, tool_id: str, field_name: str, value: Any) -> None:
        """Store one value (or remove it when ``value`` is None) and write the file."""
        with self._lock:
            data = {k: dict(v) for k, v in self._load(fresh=True).items()}
            values = data.setdefault(tool_id, {})
            if value is None:
                values.pop(field_name, None)
                if not values:
                    data.pop(tool_id)
            else:
                values[field_name] = value
            self._write(data)
            self._data = data
            self._stamp = self._file_stamp()

    def _write(self, data: Mapping[str, Any]) -> None:
        # Write a temporary file beside the real one and rename it: a crash never leaves half a file.
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".settings-", suffix=".json", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(data, stream, indent=2, sort_keys=True)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


@dataclass(frozen=True, slots=True)
class ConfigurationStatus:
    """Whether a tool is configured, and what is missing or wrong."""

    configured: bool
    problems: tuple[str, ...] = ()


class ToolSettingsService:
    """Reads and writes tool settings and decides whether a tool is configured.

    :param locked: ``{tool_id: {field: value}}`` from the host config; wins over everything.
    :param defaults: ``{tool_id: {field: value}}`` from the host config; used until the user saves a value.
    :param option_sources: the registered option sources by name.
    """

    def __init__(
        self,
        store: JsonSettingsStore | None = None,
        secrets: SecretStore | None = None,
        *,
        locked: Mapping[str, Mapping[str, Any]] | None = None,
        defaults: Mapping[str, Mapping[str, Any]] | None = None,
        option_sources: Mapping[str, OptionSource] | None = None,
    ) -> None:
        self.store = store or JsonSettingsStore(default_settings_dir() / "settings.json")
        self.secrets = secrets or SecretStore()
        self.locked = {k: dict(v) for k, v in (locked or {}).items()}
        self.defaults = {k: dict(v) for k, v in (defaults or {}).items()}
        self.option_sources = dict(option_sources or {})

    # -- reading ------------------------------------------------------------------------------------

    def effective(self, definition: ToolDefinition, *, include_secrets: bool = True) -> dict[str, Any]:
        """The values a tool runs with: locked, else the user's, else the admin default, else the field default."""
        user = self.store.get_tool(definition.id)
        locked = self.locked.get(definition.id, {})
        defaults = self.defaults.get(definition.id, {})
        values: dict[str, Any] = {}
        for field in definition.settings_schema.fields:
            if field.kind is SettingKind.SECRET:
                if include_secrets:
                    secret = self.secrets.get(definition.id, field.name)
                    if secret is not None:
                        values[field.name] = secret
                continue
            for layer in (locked, user, defaults):
                if field.name in layer:
                    values[field.name] = layer[field.name]
                    break
            else:
                if field.default is not None:
                    values[field.name] = field.default
        return values

    def origin(self, definition: ToolDefinition, field_name: str) -> str:
        """Where a field's value comes from: ``locked``, ``user``, ``default``, ``keyring`` or ``unset``."""
        field = definition.settings_schema.field(field_name)
        if field is not None and field.kind is SettingKind.SECRET:
            return "keyring" if self.secrets.get(definition.id, field_name) is not None else "unset"
        if field_name in self.locked.get(definition.id, {}):
            return "locked"
        if field_name in self.store.get_tool(definition.id):
            return "user"
        if field_name in self.defaults.get(definition.id, {}) or (field and field.default is not None):
            return "default"
        return "unset"

    def for_execution(self, tool: RegisteredTool) -> tuple[dict[str, Any], list[str]]:
        """A tool's effective settings and the values of its secrets (the executor scrubs those)."""
        try:
            values = self.effective(tool.definition)
        except KeyringUnavailableError:
            # Without a keyring an optional secret is simply absent, as configuration_status treats it;
            # a tool whose required secret cannot be read is unconfigured, so that error stands.
            if any(f.kind is SettingKind.SECRET and f.required for f in tool.definition.settings_schema.fields):
                raise
            values = self.effective(tool.definition, include_secrets=False)
        secrets = [
            str(values[f.name])
            for f in tool.definition.settings_schema.fields
            if f.kind is SettingKind.SECRET and f.name in values
        ]
        return values, secrets

    # -- writing ------------------------------------------------------------------------------------

    def set(self, definition: ToolDefinition, field_name: str, value: Any) -> None:
        """Save a user's plain value after checking it; a locked field cannot be changed."""
        field = self._field(definition, field_name)
        if field.kind is SettingKind.SECRET:
            raise SettingsError(
                f"{definition.id}.{field_name} is a secret; store it with set_secret (it lives in the OS keyring)."
            )
        if field_name in self.locked.get(definition.id, {}):
            raise SettingsError(f"{definition.id}.{field_name} is locked by the administrator and cannot be changed.")
        problem = self.check_value(field, value)
        if problem:
            raise SettingsError(f"{definition.id}.{field_name}: {problem}")
        self.store.set(definition.id, field_name, value)

    def unset(self, definition: ToolDefinition, field_name: str) -> None:
        """Remove the user's value (or the secret) of a field."""
        field = self._field(definition, field_name)
        if field.kind is SettingKind.SECRET:
            self.secrets.delete(definition.id, field_name)
        else:
            self.store.set(definition.id, field_name, None)

    def set_secret(self, definition: ToolDefinition, field_name: str, value: str) -> None:
        """Store a secret in the keyring."""
        field = self._field(definition, field_name)
        if field.kind is not SettingKind.SECRET:
            raise SettingsError(f"{definition.id}.{field_name} is not a secret; use set.")
        if not value:
            raise SettingsError(f"{definition.id}.{field_name}: an empty secret cannot be stored.")
        self.secrets.set(definition.id, field_name, value)

    # -- checking -----------------------------------------------------------------------------------

    def check_value(self, field: SettingsField, value: Any) -> str | None:
        """Why ``value`` cannot be stored in ``field``, or None when it can."""
        types: dict[str, type | tuple[type, ...]] = {
            "string": str, "integer": int, "number": (int, float), "boolean": bool,
        }
        expected = types[field.value_type]
        if (field.value_type != "boolean" and isinstance(value, bool)) or not isinstance(value, expected):
            return f"expected a {field.value_type}, got {json.dumps(value, default=repr)}"
        if field.kind is SettingKind.ENUM and field.enum is not None and value not in field.enum:
            return f"{json.dumps(value)} is not one of {', '.join(json.dumps(v) for v in field.enum)}"
        if field.kind is SettingKind.CHOICE and field.option_source:
            source = self.option_sources.get(field.option_source)
            if source is None:
                return f"the option source {field.option_source!r} is not registered"
            if value not in source.values():
                return f"{json.dumps(value)} is not one of the options of {field.option_source!r}"
        return None

    def configuration_status(
        self, definition: ToolDefinition, validate: Callable[[Mapping[str, Any]], Sequence[str]] | None = None
    ) -> ConfigurationStatus:
        """Configured means every required field has a valid value and ``validate`` finds nothing."""
        try:
            values = self.effective(definition)
        except KeyringUnavailableError as exc:
            values = self.effective(definition, include_secrets=False)
            secret_fields = [
                f for f in definition.settings_schema.fields if f.kind is SettingKind.SECRET and f.required
            ]
            if secret_fields:
                return ConfigurationStatus(False, (str(exc),))
        problems = []
        for field in definition.settings_schema.fields:
            if field.name not in values or values[field.name] in ("", None):
                if field.required:
                    problems.append(f"setting '{field.name}' is required and not set")
                continue
            if field.kind is not SettingKind.SECRET:
                problem = self.check_value(field, values[field.name])
                if problem:
                    problems.append(f"setting '{field.name}': {problem}")
        if not problems and validate is not None:
            try:
                problems.extend(validate(values))
            except Exception as exc:
                problems.append(f"validate_configuration failed: {type(exc).__name__}: {exc}")
        return ConfigurationStatus(not problems, tuple(problems))

    def _field(self, definition: ToolDefinition, field_name: str) -> SettingsField:
        field = definition.settings_schema.field(field_name)
        if field is None:
            names = ", ".join(f.name for f in definition.settings_schema.fields) or "none"
            raise SettingsError(f"Tool {definition.id!r} has no setting {field_name!r} (its settings: {names}).")
        return field


__all__ = [
    "ConfigurationStatus",
    "JsonSettingsStore",
    "Option",
    "OptionSource",
    "SecretStore",
    "ToolSettingsService",
    "default_settings_dir",
]

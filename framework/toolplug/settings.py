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
from typing import TYPE_CHECKING, Any, Literal

from toolplug.definitions import SettingKind, SettingsField, ToolDefinition
from toolplug.errors import KeyringUnavailableError, SecretTooShortError, SettingsError
from toolplug.secrets import (
    check_secret,
    environment_variable,
    register_environment_secrets,
    register_secrets,
    scrubber,
)

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


NO_KEYRING_HINT = (
    "install an OS keyring backend (on Linux `pip install secretstorage` with a running Secret Service such as "
    "GNOME Keyring or KWallet; `pip install keyrings.alt` only gives a plaintext file, see the admin guide) "
    "and store the secret with `toolplug settings secret`"
)

SecretOrigin = Literal["keyring", "environment"]


@dataclass(frozen=True, slots=True)
class ResolvedSecret:
    """A secret and where it came from."""

    value: str
    origin: SecretOrigin


class SecretStore:
    """Where secrets resolve: the OS keyring, then ``TOOLPLUG_SECRET_<OWNER>_<FIELD>``, then a clear error.

    Every value it returns is registered with the process-wide scrubber (:mod:`toolplug.secrets`)
    before anyone sees it, so the secret is scrubbed from every output from then on.

    :param environ: the environment to read (default: ``os.environ`` at each read).
    """

    def __init__(self, service: str = KEYRING_SERVICE, *, environ: Mapping[str, str] | None = None) -> None:
        self.service = service
        self._environ = environ
        register_environment_secrets(self.environ)

    @property
    def environ(self) -> Mapping[str, str]:
        """The environment secrets are read from."""
        return os.environ if self._environ is None else self._environ

    @staticmethod
    def _keyring(owner: str, field_name: str) -> Any:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
        if isinstance(backend, fail.Keyring) or (type(backend).__name__ == "ChainerBackend" and not getattr(
            backend, "backends", True
        )):
            raise KeyringUnavailableError(
                f"No OS keyring backend is available for the secret {owner}.{field_name}. Set the environment "
                f"variable {environment_variable(owner, field_name)} where toolplug runs, or {NO_KEYRING_HINT}."
            )
        return keyring

    def resolve(self, owner: str, field_name: str) -> ResolvedSecret | None:
        """The secret ``<owner>.<field_name>`` and its origin, or None when neither place has it.

        Raises :class:`KeyringUnavailableError` when the keyring cannot be read and the environment
        variable is not set, and :class:`SecretTooShortError` for a value too short to be scrubbed.
        """
        variable = environment_variable(owner, field_name)
        try:
            value = self._read_keyring(owner, field_name)
        except KeyringUnavailableError:
            if not self.environ.get(variable):
                raise
            value = None
        if value is not None:
            return self._checked(value, "keyring", f"the keyring entry {owner}.{field_name}")
        from_environment = self.environ.get(variable)
        if from_environment:
            return self._checked(from_environment, "environment", f"the environment variable {variable}")
        return None

    def locate(self, owner: str, field_name: str) -> str:
        """Where the secret is, without reading its value out: ``keyring``, ``environment``, ``unset``
        or ``unavailable`` (no keyring can be read and the environment variable is not set)."""
        try:
            in_keyring = self._read_keyring(owner, field_name) is not None
        except KeyringUnavailableError:
            in_keyring = False
            if not self.environ.get(environment_variable(owner, field_name)):
                return "unavailable"
        if in_keyring:
            return "keyring"
        return "environment" if self.environ.get(environment_variable(owner, field_name)) else "unset"

    def get(self, owner: str, field_name: str) -> str | None:
        """The secret, or None when unset (see :meth:`resolve`)."""
        resolved = self.resolve(owner, field_name)
        return None if resolved is None else resolved.value

    def _read_keyring(self, owner: str, field_name: str) -> str | None:
        keyring = self._keyring(owner, field_name)
        try:
            value = keyring.get_password(self.service, f"{owner}.{field_name}")
        except Exception as exc:
            raise KeyringUnavailableError(
                f"The keyring could not be read ({type(exc).__name__}). Set the environment variable "
                f"{environment_variable(owner, field_name)} instead, or repair the keyring."
            ) from exc
        return None if value is None else str(value)

    @staticmethod
    def _checked(value: str, origin: SecretOrigin, where: str) -> ResolvedSecret:
        check_secret(value, where)
        register_secrets((value,))
        return ResolvedSecret(value, origin)

    def set(self, owner: str, field_name: str, value: str) -> None:
        """Store a secret in the keyring, whole (a multi-line PEM key included).

        Raises :class:`SecretTooShortError` for a value shorter than ``MIN_SECRET_LENGTH``.
        """
        check_secret(value, f"the secret {owner}.{field_name}")
        register_secrets((value,))
        keyring = self._keyring(owner, field_name)
        try:
            keyring.set_password(self.service, f"{owner}.{field_name}", value)
        except Exception as exc:
            raise KeyringUnavailableError(f"The keyring could not store the secret: {type(exc).__name__}") from exc

    def delete(self, owner: str, field_name: str) -> None:
        """Remove a secret; nothing happens when it is not set."""
        keyring = self._keyring(owner, field_name)
        try:
            keyring.delete_password(self.service, f"{owner}.{field_name}")
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
        """The values a tool runs with: locked, else the user's, else the admin default, else the field default.

        Secrets come from :meth:`SecretStore.resolve`. An optional secret that cannot be read is
        absent; a required one raises :class:`KeyringUnavailableError`, and a secret too short to be
        scrubbed raises :class:`SecretTooShortError`.
        """
        values = self._plain_values(definition)
        if include_secrets:
            secrets, problems = self._secret_values(definition)
            for problem in problems.values():
                raise problem
            values.update(secrets)
        return values

    def _plain_values(self, definition: ToolDefinition) -> dict[str, Any]:
        plain = [f for f in definition.settings_schema.fields if f.kind is not SettingKind.SECRET]
        user = self.store.get_tool(definition.id) if plain else {}
        locked = self.locked.get(definition.id, {})
        defaults = self.defaults.get(definition.id, {})
        values: dict[str, Any] = {}
        for field in definition.settings_schema.fields:
            if field.kind is SettingKind.SECRET:
                continue
            for layer in (locked, user, defaults):
                if field.name in layer:
                    values[field.name] = layer[field.name]
                    break
            else:
                if field.default is not None:
                    values[field.name] = field.default
        return values

    def _secret_values(self, definition: ToolDefinition) -> tuple[dict[str, str], dict[str, SettingsError]]:
        """Every secret that resolves, and why each of the others cannot be used, by field name."""
        values: dict[str, str] = {}
        problems: dict[str, SettingsError] = {}
        for field in definition.settings_schema.fields:
            if field.kind is not SettingKind.SECRET:
                continue
            try:
                resolved = self.secrets.resolve(definition.id, field.name)
            except KeyringUnavailableError as exc:
                if field.required:
                    problems[field.name] = exc
                continue
            except SecretTooShortError as exc:
                problems[field.name] = exc
                continue
            if resolved is not None:
                values[field.name] = resolved.value
        return values, problems

    def origin(self, definition: ToolDefinition, field_name: str) -> str:
        """Where a field's value comes from: ``locked``, ``user``, ``default``, ``unset``, and for a secret
        ``keyring``, ``environment`` or ``unavailable`` (no keyring can be read, no environment variable)."""
        field = definition.settings_schema.field(field_name)
        if field is not None and field.kind is SettingKind.SECRET:
            return self.secrets.locate(definition.id, field_name)
        if field_name in self.locked.get(definition.id, {}):
            return "locked"
        if field_name in self.store.get_tool(definition.id):
            return "user"
        if field_name in self.defaults.get(definition.id, {}) or (field and field.default is not None):
            return "default"
        return "unset"

    def for_execution(self, tool: RegisteredTool) -> tuple[dict[str, Any], list[str]]:
        """A tool's effective settings and the values of its secrets (the executor scrubs those).

        Raises like :meth:`effective`: a required secret that cannot be read makes the call fail.
        """
        values = self.effective(tool.definition)
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
        """Store a secret in the keyring, whole; refuses an empty one and one too short to be scrubbed."""
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
        """Configured means every required field has a valid value and ``validate`` finds nothing.

        Every problem is listed, not only the first; secrets are scrubbed from every problem text,
        whether ``validate`` returned it or raised it.
        """
        try:
            values = self._plain_values(definition)
        except SettingsError as exc:  # a corrupt settings file leaves this tool out, never the host down
            return ConfigurationStatus(False, (str(exc),))
        secrets, secret_problems = self._secret_values(definition)
        values.update(secrets)
        problems = [f"setting '{name}': {problem}" for name, problem in secret_problems.items()]
        for field in definition.settings_schema.fields:
            if field.name not in values or values[field.name] in ("", None):
                if field.required and field.name not in secret_problems:
                    problems.append(self._missing(definition, field))
                continue
            if field.kind is not SettingKind.SECRET:
                problem = self.check_value(field, values[field.name])
                if problem:
                    problems.append(f"setting '{field.name}': {problem}")
        if not problems and validate is not None:
            problems.extend(self._validate(validate, values))
        scrub = scrubber()
        return ConfigurationStatus(not problems, tuple(scrub.text(problem) for problem in problems))

    @staticmethod
    def _validate(validate: Callable[[Mapping[str, Any]], Sequence[str]], values: Mapping[str, Any]) -> list[str]:
        try:
            found = validate(values)
            if isinstance(found, str):
                return [found]
            return [str(problem) for problem in found]
        except Exception as exc:  # the plugin's code: its failure is a problem of this tool, never the host's
            return [f"validate_configuration failed: {type(exc).__name__}: {exc}"]

    def _missing(self, definition: ToolDefinition, field: SettingsField) -> str:
        if field.kind is not SettingKind.SECRET:
            return f"setting '{field.name}' is required and not set"
        return (
            f"setting '{field.name}' is a required secret and not set: store it with `toolplug settings secret "
            f"{definition.id} {field.name}` or set {environment_variable(definition.id, field.name)}"
        )

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
    "ResolvedSecret",
    "SecretStore",
    "ToolSettingsService",
    "default_settings_dir",
]

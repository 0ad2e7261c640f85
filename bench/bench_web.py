"""Benchmarks of the web stack: extraction quality and speed, the guard, and SSRF validation cost.

Run: ``python bench/bench_web.py`` (``--quick`` for CI). Reads the article corpus from
``../shared/corpus/`` (skipped with a message when absent). trafilatura is the reference a user
would otherwise pick; it is a bench-only dependency (``pip install trafilatura``), skipped if missing.

Extraction quality is the corpus benchmark's metric: ``\\w+`` tokens, 4-token shingles compared as
multisets per page, precision and recall averaged over pages, F1 from the two averages; Markdown
syntax that adds tokens (link targets, images) is stripped first.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import ipaddress
import json
import re
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
sys.path.insert(0, str(ROOT / "tests"))

from _web_guard_corpus import MECHANICAL_FAMILIES, benign_samples, planted_samples  # noqa: E402

from toolplug.guard import BuiltinInjectionFilter  # noqa: E402
from toolplug.net import (  # noqa: E402
    PUBLIC_ONLY,
    PinnedNetworkBackend,
    URLNotAllowedError,
    check_url,
    classify_address,
)
from toolplug.web import extract  # noqa: E402

WORD = re.compile(r"\w+")


def shingles(text: str) -> Counter[tuple[str, ...]]:
    words = WORD.findall(text)
    return Counter(tuple(words[i:i + 4]) for i in range(max(len(words) - 3, 0)))


def strip_markdown(text: str) -> str:
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)
    return re.sub(r"\]\([^)]*\)", "]", text)


def load_corpus() -> list[tuple[str, str, str]]:
    truth = json.loads((CORPUS / "ground-truth.json").read_text(encoding="utf-8"))
    pages = []
    for page_id, entry in sorted(truth.items()):  # id order: the halves below are stable
        raw = gzip.decompress((CORPUS / "html" / f"{page_id}.html.gz").read_bytes())
        pages.append((raw.decode("utf-8", "replace"), entry["url"], entry["articleBody"]))
    return pages


def score(outputs: list[str], truths: list[str]) -> tuple[float, float, float]:
    precision, recall = [], []
    for got_text, want_text in zip(outputs, truths, strict=True):
        got, want = shingles(got_text), shingles(want_text)
        common = sum((got & want).values())
        precision.append(common / sum(got.values()) if got else 0.0)
        recall.append(common / sum(want.values()) if want else 1.0)
    p, r = statistics.fmean(precision), statistics.fmean(recall)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def time_rounds(functions: list[Callable[[str, str], str]], pages: list[tuple[str, str, str]],
                rounds: int) -> list[list[float]]:
    """ms/page of each function per round; the functions take turns within a round, so a change in
    the machine's load (the bench machine is shared) hits them alike and their ratio stays fair."""
    times: list[list[float]] = [[] for _ in functions]
    for _ in range(rounds):
        for index, function in enumerate(functions):
            started = time.perf_counter()
            for html, url, _ in pages:
                function(html, url)
            times[index].append((time.perf_counter() - started) * 1000 / len(pages))
    return times


def peak_memory(function: Callable[[str, str], str], pages: list[tuple[str, str, str]]) -> float:
    tracemalloc.start()
    for html, url, _ in pages:
        function(html, url)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def bench_extraction(rounds: int) -> None:
    if not (CORPUS / "ground-truth.json").exists():
        print(f"extraction: skipped, the corpus is absent ({CORPUS})")
        return
    pages = load_corpus()
    truths = [truth for _, _, truth in pages]

    def ours(html: str, url: str) -> str:
        return strip_markdown(extract(html, url).markdown)

    candidates: list[tuple[str, Callable[[str, str], str]]] = [("toolplug.web.extract", ours)]
    try:
        import trafilatura

        def reference(html: str, url: str) -> str:
            return trafilatura.extract(html, url=url, include_comments=False) or ""

        candidates.append(("trafilatura", reference))
    except ImportError:
        print("trafilatura not installed: pip install trafilatura (bench-only) to compare")
    outputs = [[function(html, url) for html, url, _ in pages] for _, function in candidates]  # also warm-up
    times = time_rounds([function for _, function in candidates], pages, rounds)
    for (name, function), output, ms in zip(candidates, outputs, times, strict=True):
        p, r, f1 = score(output, truths)
        # The corpus in halves (pages in id order): even-numbered ones were used to tune the rules,
        # odd-numbered ones were held out.
        halves = [score(output[start::2], truths[start::2]) for start in (0, 1)]
        memory = peak_memory(function, pages[:10])
        print(f"extraction {name:22s} P {p:.4f}  R {r:.4f}  F1 {f1:.4f}  {statistics.median(ms):7.2f} ms/page "
              f"(median of {rounds})  peak {memory:6.1f} MiB (10 pages, tracemalloc)")
        print(f"extraction {name:22s} F1 even/tuning half {halves[0][2]:.4f} (P {halves[0][0]:.4f} R "
              f"{halves[0][1]:.4f}), odd/held-out half {halves[1][2]:.4f} (P {halves[1][0]:.4f} R {halves[1][1]:.4f})")
    if len(times) == 2:
        ratios = [reference_ms / ours_ms for ours_ms, reference_ms in zip(times[0], times[1], strict=True)]
        print(f"extraction speed ratio (trafilatura / ours): median {statistics.median(ratios):.2f}x over {rounds} "
              f"interleaved rounds (min {min(ratios):.2f}x, max {max(ratios):.2f}x)")


def bench_guard(target_bytes: int, runs: int = 5) -> None:
    """Recall per family (the planted corpus and the held-out one), benign figures, and MB/s (median of
    ``runs``) on benign text, both per text as the guard receives it and as one long concatenation."""
    import _web_guard_corpus as corpus

    flt = BuiltinInjectionFilter()
    started = time.perf_counter()
    flt.filter_one("warm-up: compiles the rules once")
    print(f"guard first call (compiles the rules): {(time.perf_counter() - started) * 1000:.1f} ms")
    for label, samples in (("planted", planted_samples()), ("held-out", corpus.held_out_samples()),
                           ("held-out 2", corpus.held_out_2_samples())):
        caught: Counter[str] = Counter()
        total: Counter[str] = Counter()
        for family, _payload, text in samples:
            total[family] += 1
            result = flt.filter_one(text)
            caught[family] += bool(result.findings and result.text != text)
        per_family = "  ".join(f"{family} {caught[family]}/{total[family]}" for family in total)
        mechanical = sum(caught[f] for f in MECHANICAL_FAMILIES) / sum(total[f] for f in MECHANICAL_FAMILIES)
        print(f"guard recall ({label}): {per_family}")
        print(f"guard recall ({label}) overall {sum(caught.values()) / sum(total.values()):.3f}, mechanical "
              f"families {mechanical:.3f}, lowest mechanical "
              f"{min(caught[f] / total[f] for f in MECHANICAL_FAMILIES):.2f}")
    benign = benign_samples()
    articles = corpus.article_texts()
    changed = sum(flt.filter_one(text).text != text for text in benign)
    articles_changed = sum(flt.filter_one(text).text != text for text in articles)
    held_out_benign = sum(flt.filter_one(text).text != text for text in corpus.HELD_OUT_2_BENIGN)
    print(f"guard benign texts changed: {changed}/{len(benign)} = {changed / len(benign):.3%} "
          f"(news articles changed: {articles_changed}/{len(articles)}; held-out 2 benign changed: "
          f"{held_out_benign}/{len(corpus.HELD_OUT_2_BENIGN)})")
    blob = "\n\n".join(benign)
    for label, unit in (("per text", benign), ("one concatenated text", [blob])):
        unit_bytes = sum(len(t.encode()) for t in unit)
        texts = unit * max(1, target_bytes // unit_bytes)
        size = sum(len(t.encode()) for t in texts)
        rates, cpu_rates = [], []
        for _ in range(runs):
            started, cpu_started = time.perf_counter(), time.process_time()
            flt.filter(texts)
            rates.append(size / (time.perf_counter() - started) / 1e6)
            cpu_rates.append(size / (time.process_time() - cpu_started) / 1e6)
        # CPU time as well: on a shared machine wall time also counts other processes' turns.
        print(f"guard throughput on benign text, {label}: median {statistics.median(rates):.1f} MB/s wall, "
              f"{statistics.median(cpu_rates):.1f} MB/s CPU (wall min {min(rates):.1f}, max {max(rates):.1f}; "
              f"{runs} runs of {size / 1e6:.1f} MB)")


def bench_ssrf(iterations: int) -> None:
    urls = ["https://example.com/a?b=c", "http://2130706433/", "http://[::ffff:169.254.169.254]/",
            "https://docs.python.org/3/library/ipaddress.html", "http://0x7f.1/"]
    started = time.perf_counter()
    for _ in range(iterations):
        for url in urls:
            with contextlib.suppress(URLNotAllowedError):  # refusals are part of what is measured
                check_url(url, PUBLIC_ONLY)
    per_url = (time.perf_counter() - started) * 1e6 / (iterations * len(urls))
    addresses = [ipaddress.ip_address(a) for a in ("93.184.216.34", "2606:4700::1111", "10.0.0.1", "2002:a00:1::")]
    started = time.perf_counter()
    for _ in range(iterations):
        for address in addresses:
            classify_address(address)
    per_address = (time.perf_counter() - started) * 1e6 / (iterations * len(addresses))

    async def resolver(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]

    backend = PinnedNetworkBackend(PUBLIC_ONLY, resolver)

    async def resolve_many() -> float:
        started = time.perf_counter()
        for _ in range(iterations):
            await backend.resolve_checked("example.com", 443)
        return (time.perf_counter() - started) * 1e6 / iterations

    per_resolution = asyncio.run(resolve_many())
    print(f"ssrf check_url {per_url:.1f} µs/URL, classify_address {per_address:.1f} µs/address, "
          f"resolve+check (2 answers, stub DNS) {per_resolution:.1f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, for CI")
    parser.add_argument("--rounds", type=int, help="extraction timing rounds (default 3, or 7 without --quick)")
    parser.add_argument("--extraction-only", action="store_true", help="skip the guard and SSRF benchmarks")
    parser.add_argument("--guard-only", action="store_true", help="run only the guard benchmark")
    parser.add_argument("--guard-runs", type=int, default=5, help="timed guard runs (median reported)")
    args = parser.parse_args()
    if args.guard_only:
        bench_guard(target_bytes=2_000_000 if args.quick else 10_000_000, runs=args.guard_runs)
        return
    bench_extraction(rounds=args.rounds or (3 if args.quick else 7))
    if args.extraction_only:
        return
    bench_guard(target_bytes=2_000_000 if args.quick else 10_000_000)
    bench_ssrf(iterations=200 if args.quick else 2000)


if __name__ == "__main__":
    main()

"""Train the guard's foreign-instruction model (``framework/toolplug/guard_model.bin``) from the development cache.

Run from the checkout root, after ``python bench/guard_dev_more.py`` (and its ``--intl``, ``--fifth-intl``,
``--sixth-intl``, ``--seventh-intl``, ``--manuals``, ``--catalogues``, ``--pages``, ``--third``, ``--fourth``,
``--fifth`` and ``--whole-pages`` builds) has filled the cache::

    PYTHONPATH=framework TOOLPLUG_BENCH_CACHE=/tmp/webdata/cache python bench/train_guard_foreign.py

Pure Python (no numpy), single-threaded and deterministic: the same cache gives the same file, byte for byte
(a few minutes). What it reads, all development material:

* attacks (label 1): ``guard-more-intl.jsonl`` and the foreign attacks of ``guard-more-dev.jsonl`` (no halves),
  and only the **tune** halves of ``guard-fifth-intl``, ``guard-sixth-intl`` and ``guard-seventh-intl``;
* benign text (label 0): the translated manual paragraphs, the gettext catalogue paragraphs and the benign
  foreign paragraphs of ``guard-more-dev.jsonl``, each split into train and check by a stable hash of its id
  (:func:`split_of`; only the train side is read), the seventh set's tune near-misses, and the foreign
  paragraphs of the English prompt pages that have no halves or are in a tune half.

Each text is cut into paragraphs as the guard cuts it (:func:`units`); only paragraphs that are mostly not
English (:func:`toolplug.guard_model.mostly_foreign`) are learned from, as only those are read at run time.
The threshold is chosen on out-of-fold scores of the train side (three folds) so that at most
``--benign-rate`` of benign train texts would change; the check figures it prints afterwards (benign check
halves) were never used for a choice.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "framework"))
from toolplug import guard_model

CACHE = Path(os.environ.get("TOOLPLUG_BENCH_CACHE", Path.home() / ".cache" / "toolplug-bench"))
OUT = Path(__file__).resolve().parent.parent / "framework" / "toolplug" / "guard_model.bin"
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
HARD = {"near-misses tune": 10.0, "prompt pages": 3.0}
"""Benign groups weighted more in training: requests to an assistant and example prompts on English pages,
the benign text most like an attack."""


def load(name: str) -> list[dict[str, str]]:
    path = CACHE / name
    if not path.exists():
        sys.exit(f"{path} is missing: build it with bench/guard_dev_more.py first")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def split_of(ident: str) -> str:
    """``train`` or ``check`` for a benign text, by a stable hash of its id (about half each)."""
    return "train" if hashlib.sha256(("gml1:" + ident).encode()).digest()[0] % 2 == 0 else "check"


def fold_of(ident: str, folds: int) -> int:
    return hashlib.sha256(("fold:" + ident).encode()).digest()[0] % folds


def units(text: str) -> list[str]:
    """The paragraphs of ``text`` the model reads: blank-line separated, mostly not English."""
    return [part.strip() for part in _PARAGRAPH.split(text) if part.strip() and guard_model.mostly_foreign(part)]


def material() -> tuple[list[tuple[str, str, int, str]], dict[str, list[tuple[str, str]]]]:
    """Train texts as (id, text, label, group), and the check side of the benign sets by group."""
    train: list[tuple[str, str, int, str]] = []
    check: dict[str, list[tuple[str, str]]] = {"manuals": [], "catalogues": [], "foreign paragraphs": []}
    for row in load("guard-more-intl.jsonl"):
        train.append((row["id"], row["text"], 1, "more foreign"))
    for name in ("guard-fifth-intl.jsonl", "guard-sixth-intl.jsonl", "guard-seventh-intl.jsonl"):
        for row in load(name):
            if row.get("half") != "tune":
                continue  # check halves are never read here
            if row["kind"] == "attack_intl":
                train.append((row["id"], row["text"], 1, name.split("-")[1] + " tune"))
            else:
                train.append((row["id"], row["text"], 0, "near-misses tune"))
    for name, group in (("guard-more-dev.jsonl", None), ("guard-manuals-dev.jsonl", "manuals"),
                        ("guard-catalogues-dev.jsonl", "catalogues")):
        for row in load(name):
            kind = row["kind"]
            if kind == "attack_intl":
                train.append((row["id"], row["text"], 1, "more by language"))
            elif kind == "prompt":
                train.append((row["id"], row["text"], 0, "prompt pages"))
            else:
                label = group or "foreign paragraphs"
                if split_of(row["id"]) == "train":
                    train.append((row["id"], row["text"], 0, label))
                else:
                    check[label].append((row["id"], row["text"]))
    for name in ("guard-more-pages.jsonl", "guard-third-pages.jsonl", "guard-fourth-pages.jsonl",
                 "guard-fifth-pages.jsonl", "guard-whole-pages.jsonl"):
        for row in load(name):
            if row.get("half", "tune") == "tune":
                train.append((row["id"], row["text"], 0, "prompt pages"))
    return train, check


def featurise(texts: Iterable[tuple[str, str, int, str]], vocabulary: dict[str, int] | None = None,
              ) -> list[tuple[int, int, list[list[int]], str, str]]:
    """Per text: (label, text index, paragraphs as lists of feature ids with repeats, group, id); features
    not in ``vocabulary`` are dropped (without a vocabulary: the feature strings themselves)."""
    out = []
    for index, (ident, text, label, group) in enumerate(texts):
        paragraphs = []
        for unit in units(text):
            found = guard_model.features(unit)
            if vocabulary is None:
                paragraphs.append((found, len(found)))
            else:
                paragraphs.append(([vocabulary[f] for f in found if f in vocabulary], len(found)))
        out.append((label, index, paragraphs, group, ident))
    return out  # type: ignore[return-value]


def train_weights(rows: list[tuple[int, list[int], float, float]], size: int, epochs: int, seed: int,
                  ) -> tuple[list[float], float]:
    """Logistic regression by SGD with per-feature AdaGrad steps and L2; rows are (label, features, norm,
    weight)."""
    weights = [0.0] * size
    squares = [1e-6] * size
    bias, bias_square = 0.0, 1e-6
    positives = sum(label for label, _, _, _ in rows)
    positive_weight = (len(rows) - positives) / max(1, positives) / 4
    order = list(range(len(rows)))
    rate, l2 = 0.5, 1e-6
    for _ in range(epochs):
        random.Random(seed).shuffle(order)
        seed += 1
        for index in order:
            label, found, norm, weight = rows[index]
            z = bias + norm * sum(weights[f] for f in found)
            p = 1.0 / (1.0 + math.exp(-z)) if z > -30 else 0.0
            g = (p - label) * (positive_weight if label else weight)
            if abs(g) < 1e-4:
                continue
            step = g * norm
            for f in found:
                grad = step + l2 * weights[f]
                squares[f] += grad * grad
                weights[f] -= rate * grad / math.sqrt(squares[f])
            bias_square += g * g
            bias -= rate * g / math.sqrt(bias_square)
    return weights, bias


def fit(texts: list[tuple[int, int, list[list[int]], str, str]], size: int, top: int, epochs: int,
        seed: int = 0) -> tuple[dict[int, int], float, float]:
    """Train, keep the ``top`` features by weight, train again on those, quantise to int8."""
    rows = [(label, paragraph, 1 / math.sqrt(size), HARD.get(group, 1.0))
            for label, _, paragraphs, group, _ in texts for paragraph, size in paragraphs if size]
    weights, _ = train_weights(rows, size, epochs, seed)
    kept = sorted(range(size), key=lambda f: (-abs(weights[f]), f))[:top]
    keep = set(kept)
    pruned = [(label, [f for f in found if f in keep], norm, weight) for label, found, norm, weight in rows]
    weights, bias = train_weights(pruned, size, epochs, seed + 100)
    largest = max(abs(weights[f]) for f in kept) or 1.0
    scale = largest / 127
    quantised = {f: round(weights[f] / scale) for f in kept if round(weights[f] / scale)}
    return quantised, scale, bias


def text_score(paragraphs: list[list[int]], weights: dict[int, int], scale: float, bias: float,
               norms: bool = True) -> float:
    """The highest paragraph logit of a text (``-inf`` without foreign paragraphs)."""
    best = -math.inf
    for paragraph, size in paragraphs:
        if size:
            best = max(best, bias + scale * sum(weights.get(f, 0) for f in paragraph) / math.sqrt(size))
    return best


def choose_threshold(scores: list[tuple[float, int, str]], rate: float) -> float:
    """The lowest threshold at which at most ``rate`` of benign texts (and of each benign group) score at or
    above it."""
    groups: dict[str, list[float]] = {}
    for score, label, group in scores:
        if not label:
            groups.setdefault(group, []).append(score)
            groups.setdefault("all", []).append(score)
    threshold = -math.inf
    for values in groups.values():
        values.sort(reverse=True)
        allowed = int(rate * len(values))
        if allowed < len(values):
            threshold = max(threshold, values[allowed] + 1e-3)
    return threshold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=20_000, help="features kept (default 20000)")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--benign-rate", type=float, default=0.001,
                        help="share of benign train texts (out of fold) the model may change (default 0.001)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--table", action="store_true", help="print out-of-fold counts at several thresholds")
    args = parser.parse_args()
    train, check = material()
    print(f"train texts: {sum(label for _, _, label, _ in train)} attacks, "
          f"{sum(1 - label for _, _, label, _ in train)} benign", flush=True)
    # The vocabulary: features in at least two train paragraphs.
    raw = featurise(train)
    counts: dict[str, int] = {}
    for _, _, paragraphs, _, _ in raw:
        for paragraph, _ in paragraphs:
            for feature in paragraph:
                counts[feature] = counts.get(feature, 0) + 1  # type: ignore[index]
    names = sorted(f for f, c in counts.items() if c >= 2)
    vocabulary = {name: index for index, name in enumerate(names)}
    del raw, counts
    texts = featurise(train, vocabulary)
    print(f"vocabulary: {len(vocabulary)} features; paragraphs: "
          f"{sum(len(p) for _, _, p, _, _ in texts)}", flush=True)
    out_of_fold: list[tuple[float, int, str]] = []
    for fold in range(args.folds):
        inside = [t for t in texts if fold_of(t[4], args.folds) != fold]
        weights, scale, bias = fit(inside, len(vocabulary), args.top, args.epochs, seed=fold)
        for label, _, paragraphs, group, ident in texts:
            if fold_of(ident, args.folds) == fold:
                out_of_fold.append((text_score(paragraphs, weights, scale, bias), label, group))
        print(f"fold {fold + 1}/{args.folds} done", flush=True)
    threshold = choose_threshold(out_of_fold, args.benign_rate)
    if args.table:
        for t in (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0):
            table: dict[str, list[int]] = {}
            for score, _label, group in out_of_fold:
                cell = table.setdefault(group, [0, 0])
                cell[0] += score >= t
                cell[1] += 1
            print(f"  at {t}: " + "  ".join(f"{g} {h}/{n}" for g, (h, n) in sorted(table.items())))
    by_group: dict[str, list[int]] = {}
    for score, label, group in out_of_fold:
        counts_ = by_group.setdefault(f"{group} ({'attacks caught' if label else 'benign changed'})", [0, 0])
        counts_[0] += score >= threshold
        counts_[1] += 1
    print(f"threshold (out of fold, benign rate {args.benign_rate}): {threshold:.3f}")
    for group, (hit, total) in sorted(by_group.items()):
        print(f"  out of fold, {group}: {hit}/{total}")
    weights, scale, bias = fit(texts, len(vocabulary), args.top, args.epochs, seed=args.folds)
    named = {names[f]: w for f, w in weights.items()}
    data = guard_model.encode(named, scale, bias, threshold)
    args.out.write_bytes(data)
    print(f"wrote {args.out}: {len(data)} bytes, {len(named)} features")
    model = guard_model.decode(data)
    for group, rows in check.items():  # the benign check sides: printed once, never chosen on
        changed = sum(any(model.fires(unit) for unit in units(text)) for _, text in rows)
        print(f"benign check side, {group}: model fires on {changed}/{len(rows)} texts")


if __name__ == "__main__":
    main()

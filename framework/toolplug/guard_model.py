"""A small shipped classifier for instructions in languages other than English, behind the guard's rules.

The guard's hand-written foreign rules (:mod:`toolplug.guard_languages`) catch the phrasings they were
written for; this model reads the paragraphs they left alone, when a paragraph is mostly not English, and
scores it with a logistic regression over words, word stems and pairs, and characters of scripts written
without spaces. It is off unless enabled (:data:`ENABLED`). It is pure Python at run time: the weights
(``guard_model.bin``, package data, about 190 KB) are read with the first foreign paragraph the guard
meets, never at import and never for English text (:data:`LOADS` counts the loads).
``bench/train_guard_foreign.py`` rebuilds the file from the development cache.

File format (all integers little-endian): the magic ``TPGM``, a format version (u16), the number of
features (u32), the byte length of the feature blob (u32), the CRC-32 of everything after the header
(u32), the weight scale and bias and threshold (three f32); then the features, UTF-8 joined by ``\\n``,
then one signed byte of weight per feature. A file that does not read exactly so raises
:class:`GuardModelError` (never a half-loaded model).
"""

from __future__ import annotations

import itertools
import math
import operator
import os
import re
import struct
import threading
import warnings
import zlib
from importlib import resources
from pathlib import Path

from toolplug.errors import ToolplugError

MAGIC = b"TPGM"
VERSION = 1
_HEADER = struct.Struct("<4sHIII3f")

LOADS = 0
"""How many times the weights were read in this process (tests check that English text never reads them)."""

ENABLED = os.environ.get("TOOLPLUG_GUARD_FOREIGN_MODEL", "") == "1"
"""Whether the guard consults the model: off unless ``TOOLPLUG_GUARD_FOREIGN_MODEL=1`` (or :func:`enable`). It
catches many more foreign attacks on the development sets, but it also changes some benign sentences that
use an attack's words (requests to an assistant, the guard's hand-written benign twins) and halves the
guard's speed on pages in other languages; see ``docs/security.md``."""


def enable(flag: bool = True) -> None:
    """Turn the model on or off for this process (it is read with the first foreign paragraph after)."""
    global ENABLED
    ENABLED = flag


class GuardModelError(ToolplugError):
    """The guard's foreign-instruction model file is missing, truncated or corrupt."""


_NO_SPACE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f\u0e80-\u0eff"
                       r"\u1000-\u109f\u1780-\u17ff\uac00-\ud7af]")
"""A letter of a script written without spaces between words (or, for Hangul, read per syllable)."""
_LETTER_RUN = re.compile(r"[^\W\d_]+")


def features(text: str) -> list[str]:
    """The features of one paragraph, with repeats: for words of spaced scripts the word, its first five
    letters (``+`` after them) and each pair of neighbouring words (a space between them); for runs of
    scripts written without spaces their characters and their 2- and 3-character substrings. Built with
    C-level loops (``map``) where it can be."""
    runs = _LETTER_RUN.findall(text.lower())
    if not runs:
        return []
    words: list[str] = []
    out: list[str] = []
    for run in runs:
        if _NO_SPACE.match(run):
            out.extend(run)
            pairs = list(map(_ADD, run, run[1:]))
            out.extend(pairs)
            out.extend(map(_ADD, pairs, run[2:]))
        else:
            words.append(run)
    if words:
        out.extend(words)
        out.extend(map(_ADD, map(_FIRST_FIVE, words), itertools.repeat("+")))
        out.extend(map(_ADD, map(_ADD, words, itertools.repeat(" ")), words[1:]))
    return out


_ADD = str.__add__
_FIRST_FIVE = operator.itemgetter(slice(0, 5))


class Model:
    """Weights by feature, and the decision threshold chosen at training."""

    def __init__(self, weights: dict[str, int], scale: float, bias: float, threshold: float) -> None:
        self.weights = weights
        self.scale = scale
        self.bias = bias
        self.threshold = threshold

    def score(self, text: str) -> float:
        """The logit of the paragraph being an instruction to the model."""
        found = features(text)
        if not found:
            return self.bias
        total = sum(map(self.weights.get, found, itertools.repeat(0)))
        return self.bias + self.scale * total / math.sqrt(len(found))

    def fires(self, text: str) -> bool:
        """Whether the paragraph is an instruction to the model: long enough to judge (:func:`long_enough`) and
        scored at or above the threshold."""
        return long_enough(text) and self.score(text) >= self.threshold


MIN_WORDS = 4
MIN_UNSPACED = 10


def long_enough(text: str) -> bool:
    """At least :data:`MIN_WORDS` words, or :data:`MIN_UNSPACED` letters of a script written without spaces: a
    heading, a label or a one-line request carries too little for the model to tell an order from a title."""
    if len(_NO_SPACE.findall(text)) >= MIN_UNSPACED:
        return True
    return len(_LETTER_RUN.findall(text)) >= MIN_WORDS


def encode(weights: dict[str, int], scale: float, bias: float, threshold: float) -> bytes:
    """The file :func:`decode` reads (features sorted, so the same weights give the same bytes)."""
    names = sorted(weights)
    blob = "\n".join(names).encode("utf-8")
    body = blob + bytes(weights[name] & 0xFF for name in names)
    header = _HEADER.pack(MAGIC, VERSION, len(names), len(blob), zlib.crc32(body), scale, bias, threshold)
    return header + body


def decode(data: bytes) -> Model:
    """A model from the bytes of its file; :class:`GuardModelError` when they are not such a file."""
    if len(data) < _HEADER.size:
        raise GuardModelError(f"guard model file is truncated: {len(data)} bytes, shorter than its header")
    magic, version, count, blob_size, crc, scale, bias, threshold = _HEADER.unpack_from(data)
    if magic != MAGIC or version != VERSION:
        raise GuardModelError(f"not a guard model file of version {VERSION} (magic {magic!r}, version {version})")
    body = data[_HEADER.size :]
    if len(body) != blob_size + count:
        raise GuardModelError(f"guard model file is truncated or padded: body of {len(body)} bytes, "
                              f"expected {blob_size + count}")
    if zlib.crc32(body) != crc:
        raise GuardModelError("guard model file is corrupt: its checksum does not match")
    try:
        names = body[:blob_size].decode("utf-8").split("\n") if count else []
    except UnicodeDecodeError as error:
        raise GuardModelError(f"guard model file is corrupt: {error}") from error
    if len(names) != count:
        raise GuardModelError(f"guard model file is corrupt: {len(names)} features, expected {count}")
    weights = dict(zip(names, struct.unpack_from(f"<{count}b", body, blob_size), strict=True))
    return Model(weights, scale, bias, threshold)


_PATH: Path | None = None
"""A model file to read instead of the packaged one (tests)."""
_MODEL: list[Model] = []
_BROKEN: list[GuardModelError] = []
_LOCK = threading.Lock()


def model() -> Model:
    """The packaged model, read once per process with the first call; :class:`GuardModelError` (the same
    one on every later call, the file is not read again) when its file is missing, truncated or corrupt."""
    if _MODEL:
        return _MODEL[0]
    with _LOCK:
        if _BROKEN:
            raise _BROKEN[0]
        if not _MODEL:
            global LOADS
            try:
                try:
                    data = _PATH.read_bytes() if _PATH is not None else (
                        resources.files("toolplug").joinpath("guard_model.bin").read_bytes())
                except OSError as error:
                    raise GuardModelError(f"guard model file cannot be read: {error}") from error
                loaded = decode(data)
            except GuardModelError as error:
                _BROKEN.append(error)
                raise
            LOADS += 1
            _MODEL.append(loaded)
    return _MODEL[0]


def model_or_warn() -> Model | None:
    """:func:`model`, or ``None`` with a :class:`RuntimeWarning` (once per process and file) when it cannot be
    read: the guard's rules go on without it, and the warning says so."""
    try:
        return model()
    except GuardModelError as error:
        if not _WARNED:
            _WARNED.append(error)
            warnings.warn(f"{error}; the prompt-injection guard's rules still run, its foreign-instruction model "
                          "does not (reinstall toolplug)", RuntimeWarning, stacklevel=3)
        return None


_WARNED: list[GuardModelError] = []


def use_file(path: Path | None) -> None:
    """Read the model from ``path`` from now on (``None``: the packaged file); forgets the loaded one."""
    global _PATH
    with _LOCK:
        _PATH = path
        _MODEL.clear()
        _BROKEN.clear()
        _WARNED.clear()


# --- which paragraphs the model reads ---------------------------------------------------------------

_OTHER_LETTER = re.compile(r"[\u0370-\u03ff\u0400-\u04ff\u0530-\u058f\u0590-\u06ff\u0900-\u0dff\u0e00-\u0eff"
                           r"\u1000-\u109f\u10a0-\u10ff\u1200-\u137f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf"
                           r"\u4e00-\u9fff\uac00-\ud7af]")
_ASCII_NON_LETTERS = bytes(i for i in range(128) if not chr(i).isalpha())

ENGLISH_WORDS = frozenset((  # noqa: SIM905
    "the and of to is are was were be been this that with for you your it not on in as at by from or an "
    "have has will would can should all any what which who we they he she them their there here do does"
).split())
FOREIGN_CUES = frozenset((  # noqa: SIM905
    # Spanish, Portuguese, Catalan, Galician
    "que una unos unas por para todas todos todo tus sus eres debes ahora cualquier anterior anteriores "
    "instrucciones olvida ignora responde nueva nuevo eso esto esta pero uma voce seu sua suas agora tudo "
    "instrucoes qualquer responda esquece tambien tambem aqui desde hasta "
    # German, Dutch, Swedish, Danish, Norwegian
    "und nicht das ist ich sie ein eine einen deine deinen dich dir mich alles bitte jetzt anweisungen "
    "vorherigen vergiss gib antworte ohne diese neuen oder auch wie sind werden wird kein keine sich auf "
    "het een niet voor jij alle instructies vergeet negeer och inte jag allt dina ditt eller ikke "
    # French, Italian
    "les des une vous nous pour avec dans tes toutes tous toi maintenant oublie ignorez oubliez reponds "
    "votre vos sont cette sans mais aussi della delle sono questo questa tutte tutti tue istruzioni precedenti "
    "dimentica rispondi nuove adesso anche senza essere "
    # Polish, Czech, Turkish, Indonesian, Romanian
    "jest nie oraz wszystkie teraz jestes zignoruj bir ile sen simdi talimatlari yang tidak untuk semua anda "
    "kamu sekarang abaikan sebelumnya sunt toate acum"
).split())
"""Common words of Latin-script languages other than English, written in ASCII (the guard's word copy blanks
other letters) and rarely English words or names: a stretch of text with one of them has its paragraphs read
for a language."""
_ACCENTED_WORD = re.compile(r"[^\W\d_]*[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f][^\W\d_]*")
"""A word with a Latin letter beyond ASCII (``configuración``, ``Änderungen``)."""


def has_other_letters(foreign: str) -> bool:
    """Whether ``foreign`` (a text's non-ASCII characters) has letters of scripts other than Latin enough for a
    paragraph of them."""
    return len(_OTHER_LETTER.findall(foreign)) >= 6


def mostly_foreign(paragraph: str) -> bool:
    """Whether a paragraph is mostly not English: letters of other scripts outweigh Latin ones (a letter of
    a script without spaces counts as a word), or its words are more often common words of another
    Latin-script language than of English."""
    if not paragraph.isascii():
        other = _OTHER_LETTER.findall(paragraph)
        if other:
            latin = len(paragraph.encode("ascii", "ignore").translate(None, _ASCII_NON_LETTERS))
            weight = len(other) + 2 * len(_NO_SPACE.findall(paragraph))
            if weight * 2 >= latin:
                return weight >= 6
    lowered = paragraph.lower()
    words = _LETTER_RUN.findall(lowered)
    foreign = sum(map(FOREIGN_CUES.__contains__, words))
    if not paragraph.isascii():
        foreign += len(_ACCENTED_WORD.findall(lowered))
    english = sum(map(ENGLISH_WORDS.__contains__, words))
    return foreign > english and (foreign >= 2 or (foreign == 1 and len(words) <= 8))

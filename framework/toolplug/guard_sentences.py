"""Instruction sentences for the built-in injection filter: a sentence is judged by what it combines.

No single phrase makes an instruction to the model; a combination does. A sentence that tells its reader
to set aside its instructions, show its hidden prompt, answer differently from now on, act behind the
user's back, or that speaks to an AI by name while giving an order, is an injection whatever its exact
words. Each of those is a small set of word classes (override verbs, control nouns, secret objects,
second person, imperative, addressing the model...), written once for many languages; a sentence is
quoted when its classes make one of the combinations below.

Sentences are read lower case with Latin diacritics folded (``Révèle`` as ``revele``), so one lexicon
covers accented and unaccented spellings. Only sentences around an anchor word (an override or reveal
verb) are judged, so ordinary text costs a set lookup per word.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from toolplug.guard_deferred import DeferredPattern, compiled_now, deferred, settle
from toolplug.guard_languages import (
    FRENCH_DETERMINER,
    IGNORA_IMPERATIVE,
    IGNORE_CLAUSE_START,
    limits_with_model,
    romanian_imperative,
)


def fold_table() -> dict[int, str]:
    """Latin letters with diacritics to their base letter, one character for one (offsets stay)."""
    table: dict[int, str] = {}
    for code in (*range(0xC0, 0x250), *range(0x1E00, 0x1F00)):
        base = unicodedata.normalize("NFKD", chr(code))[:1]
        if base.isascii() and base.isalpha():
            table[code] = base
    for char, base in {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "\u0131": "i", "ß": "s", "æ": "a",
                       "Æ": "A", "œ": "o", "Œ": "O", "þ": "t", "ð": "d", "ș": "s", "ț": "t", "Ș": "S", "Ț": "T",
                       "\u2019": "'"}.items():
        table[ord(char)] = base
    return table


FOLD_TABLE: dict[int, str] = {}
"""``str.translate`` table folding Latin diacritics (and the typographic apostrophe) one for one; filled
from :func:`fold_table` when the filter compiles its rules (not at import)."""
LATIN_EXTENDED = re.compile("[\u00c0-\u024f\u1e00-\u1eff]")
_ASCII_BYTES = bytes(range(128))


def fold(text: str) -> str:
    """``text.translate(FOLD_TABLE)``, several times faster on long text: ``str.translate`` looks every
    character up in the table, where this replaces only the text's few distinct characters beyond ASCII
    that the table folds (each to one ASCII character, and no ASCII character is folded, so replacing
    them one after the other gives what translating all of them at once gives)."""
    if text.isascii():
        return text
    others = text.encode("utf-8", "surrogatepass").translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
    for char in set(others):
        base = FOLD_TABLE.get(ord(char))
        if base is not None:
            text = text.replace(char, base)
    return text


_GATES: dict[str, tuple[frozenset[str], tuple[str, ...]] | None] = {}
"""Per alternation built by :func:`_words`: the first words its matches can start with (exact words, and
stems), or None when some alternative starts otherwise (then the class is always searched)."""


def _gate(groups: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]] | None:
    exact: set[str] = set()
    stems: list[str] = []
    for group in groups:
        head = re.match(r"[a-z'\-]+", group)
        if head is None:
            return None
        word, after = head.group(), group[head.end():head.end() + 2]
        if after[:1] in ("?", "*", "{"):
            stems.append(word[:-1])
        elif after[:1] == "" or after == "[ " or group[head.end():head.end() + 3] == "[ ]":
            exact.add(word)
        else:
            stems.append(word)
    return frozenset(exact), tuple(stems)


def _words(*groups: str) -> str:
    """One alternation of ``groups``, those starting with a letter grouped by it: the regex engine then
    tries one group at each word start rather than every alternative (several times faster)."""
    by_letter: dict[str, list[str]] = {}
    rest: list[str] = []
    for group in groups:
        if group[:1].isalpha() and (len(group) == 1 or group[1] not in "?*+{"):
            by_letter.setdefault(group[0], []).append(group[1:])
        else:
            rest.append(group)
    parts = [f"{letter}(?:{'|'.join(tails)})" for letter, tails in sorted(by_letter.items())]
    pattern = r"(?:" + "|".join(parts + rest) + r")"
    _GATES[pattern] = _gate(groups)
    return pattern


alternation = _words
"""One regex alternation of patterns, grouped by their first letter (a faster scan than the plain ``|``)."""

# Verbs and phrases that set instructions aside (imperative and infinitive forms; many languages).
_OVERRIDE = _words(
    r"ignore(?![ ]" + FRENCH_DETERMINER + ")", r"disregard", r"forget", r"override", r"bypass", r"set[ ]aside",
    r"put[ ]aside", r"discard",
    r"abandon", r"revoke", r"overrule", r"nullify", r"dismiss", r"neglect",
    r"skip(?![ ](?:to|ahead|over|past|down|forward)\b)", r"disable", r"deactivate",
    # (a shop's "we'll send you instructions to reset your password" resets the reader's own password)
    r"turn[ ]off", r"switch[ ]off", r"unlock", r"reset(?![ ](?:your[ ]|the[ ]|a[ ])?passwords?\b)",
    r"drop[ ](?:all|any|the|your|every|these|those|previous|prior)",
    r"cancel", r"suspend", r"void",
    r"stop[ ]following", r"do[ ]not[ ](?:follow|obey|apply)", r"don't[ ](?:follow|obey)",
    r"no[ ]longer[ ](?:have[ ]to[ ])?(?:follow|obey|apply|applies|bound|valid|in[ ]effect)",
    r"not[ ]bound[ ]by", r"free[ ](?:from|of)", r"without[ ](?:any[ ])?(?:restrictions|limits|rules|filters|"
    r"limitations|censorship|constraints|guidelines|content[ ]policy)",
    r"no[ ](?:restrictions|limits|rules|filters|limitations|ethical|censorship|guidelines|constraints|system[ ]prompt)",
    r"takes?[ ]precedence", r"supersedes?", r"aside(?![ ]from)",
    r"(?:replaces?|overrides|invalidates?|cancels?)[ ](?:your|all[ ]of[ ]your)",
    r"stop[ ](?:using|applying|obeying|following)", r"pay[ ]no[ ]attention[ ]to", r"put[ ](?:\w+[ ]){1,4}?aside",
    r"set[ ](?:\w+[ ]){1,4}?aside", r"(?:do[ ]not|don't|no)[ ]need[ ]to[ ](?:follow|obey|apply)",
    r"need[ ]not[ ](?:follow|obey)",
    r"(?:it's|it[ ]is)[ ](?:fine|ok|okay|allowed|safe)[ ]to[ ](?:skip|ignore|bypass|disregard)",
    r"(?:can|may)[ ](?:safely[ ]|totally[ ]|just[ ])?(?:disregard|ignore|skip|bypass)",
    r"(?:are|is)[ ]to[ ]be[ ](?:ignored|disregarded)", r"(?:should|must|can)[ ]be[ ](?:ignored|disregarded)",
    r"even[ ]if[ ](?:it|this|they)[ ](?:conflicts?|contradicts?)",
    r"pretend[ ]\w+[ ](?:do[ ]not|don't)[ ]exist",
    # German
    r"ignorier\w*", r"vergiss", r"vergessen", r"missacht\w*", r"uberschreib\w*", r"beachte[ ]\w+[ ]nicht",
    r"ohne[ ](?:jegliche[ ]|alle[ ])?(?:einschrankungen|regeln|filter|grenzen|beschrankungen)",
    # French
    # (French "ignore" before its object is the imperative only where the clause starts: see IGNORE_IMPERATIVE)
    r"ignor(?!a\b)(?!e[ ]" + FRENCH_DETERMINER + r")\w*",
    r"ignore" + IGNORE_CLAUSE_START + r"(?=[ ]" + FRENCH_DETERMINER + ")", r"ignora\b" + IGNORA_IMPERATIVE,
    r"oubli\w*", r"ne[ ]tiens?[ ]pas[ ]compte",
    r"ne[ ]tenez[ ]pas[ ]compte", r"fais[ ]abstraction",
    r"faites[ ]abstraction", r"sans[ ](?:aucune?[ ])?(?:restrictions?|regles|filtres?|limites?)", r"contourne\w*",
    # Spanish, Portuguese, Italian
    r"olvid\w*", r"omite", r"omit[ae]", r"descart\w*", r"haz[ ]caso[ ]omiso", r"no[ ]sigas",
    r"sin[ ](?:ninguna[ ])?(?:restricciones|reglas|filtros|limites)", r"esque[cç]\w*", r"desconsider\w*",
    r"sem[ ](?:restricoes|regras|filtros|limites)", r"dimentic\w*", r"trascur\w*", r"non[ ]seguire",
    r"senza[ ](?:restrizioni|regole|filtri|limiti)",
    # Dutch, Polish, Czech, Slovak, Nordic, Finnish
    r"negeer\w*", r"te[ ]negeren", r"vergeet", r"zonder[ ](?:beperkingen|regels|filters)", r"zignoruj\w*",
    r"zignorowac", r"ignoruj\w*", r"bos[ ]ver\w*",
    r"zapomnij\w*", r"pomin", r"bez[ ](?:ograniczen|zasad|filtrow|omezeni|pravidel|obmedzeni)", r"zapomen\w*",
    r"zabudni\w*", r"ignorera", r"glom", r"glem", r"bortse[ ]fra", r"unohda", r"ohita", r"sivuuta",
    # Turkish, Romanian, Hungarian, Indonesian/Malay, Vietnamese, Tagalog, Swahili
    r"yok[ ]?say(?!il)\w*", r"gormezden[ ]gel\w*", r"unut\w*", r"dikkate[ ]alma\w*", r"uita\w+",
    romanian_imperative("uita", leads=False) + r"\b",
    r"figyelmen[ ]kivul",
    r"felejtsd[ ]el", r"felejtse[ ]el", r"abaikan\w*", r"lupakan\w*", r"jangan[ ](?:ikuti|hiraukan|pedulikan)",
    r"bo[ ]qua", r"phot[ ]lo", r"quen[ ]di", r"huwag[ ]pansinin", r"kalimutan", r"balewalain", r"puuza", r"sahau",
    r"no[ ]hagas[ ]caso", r"deja[ ]de[ ]lado", r"deixe[ ]de[ ]lado", r"ne[ ]suis[ ]plus", r"nie[ ]przestrzegaj\w*",
    r"non[ ]rispettare", r"no[ ]obedezcas", r"befolge[ ]\w+[ ]nicht", r"niet[ ]opvolgen",
    r"hinter[ ]sich(?:[ ]lass\w*)?",
)
_CONTROL_WORDS = _words(
    r"instructions?", r"guidance", r"guidelines?", r"rules", r"directives?",
    # not the adjective ("your prompt return to the labor market", "prompt payment")
    r"prompts?(?![ ](?:injection|return|payment|response|reply|attention|delivery|action|service|treatment|care|refund|"
    r"shipping|notice|reporting|resolution|feedback|medical)\b)",
    r"polic(?:y|ies)",
    r"restrictions", r"constraints", r"filters?", r"safety", r"programming", r"training", r"orders", r"commands",
    r"persona", r"directions", r"ethic\w*", r"guardrails", r"limitations", r"censorship",
    r"moderation", r"task", r"user'?s?[ ](?:request|question|messages?)", r"system[ ]prompt",
    # checks of safety, not of software ("skip all compatibility checks")
    r"(?:safety|security|content|moderation|ethical|policy)[ ](?:\w+[ ])?checks",
    r"(?:your|all|any|the)[ ](?:(?:safety|security|content|moderation|ethical|policy|guardrail|filter\w*|"
    r"verification|integrity|usual|normal|standard|regular|own|default|existing|current|built-in)[ ])?checks",
    r"what[ ]you[ ](?:were|have[ ]been)[ ](?:told|given)",
    r"everything[ ](?:above|before|else)", r"this[ ](?:page|document|article|text)[ ]says",
    r"the[ ](?:page|document|article|text)[ ]says",
    r"anweisung\w*", r"instruktion\w*", r"befehl\w*", r"regeln", r"vorgaben", r"angaben", r"richtlinie\w*",
    r"systemprompt\w*",
    r"einschrankung\w*", r"consignes?", r"regles", r"instruccion\w*", r"indicacion\w*", r"reglas", r"directrices",
    r"normas", r"restricciones", r"istruzion\w*", r"regole", r"indicazion\w*", r"direttive", r"restrizioni",
    r"instrucoes", r"instrucao", r"regras", r"diretrizes", r"lineamientos", r"orientacoes", r"restricoes",
    r"instructies",
    r"opdrachten", r"regels", r"richtlijnen", r"beperkingen", r"systeemprompt", r"instrukcj\w*", r"polecen\w*",
    r"zasad\w*", r"wytyczn\w*", r"ograniczen\w*", r"pokyn\w*", r"instrukc\w*", r"pravidl\w*", r"instruktion\w*",
    r"instruks\w*", r"regler", r"riktlinjer", r"retningslinjer", r"ohjee\w*", r"ohjeet", r"saanno\w*", r"kehot\w*",
    r"talimat\w*", r"kural\w*", r"yonerge\w*", r"istem\w*", r"instructiuni\w*", r"regulil\w*", r"utasitas\w*",
    r"szabaly\w*", r"saanto\w*", r"instruksi", r"arahan", r"perintah", r"aturan", r"petunjuk", r"huong[ ]dan",
    r"chi[ ]dan",
    r"quy[ ]tac", r"chi[ ]thi", r"tagubilin", r"panuto", r"patakaran", r"maagizo", r"maelekezo", r"sheria",
)
# A word for instructions that names a part of software is no control: the first noun of a compound
# ("prompt caching", "the automatic task and turn spans", "capability instruction fragments"), or a name in code
# (`instructions`, a word a code span opens and closes).
_SOFTWARE_NOUN = (r"(?:caching|cache|space|spans?|fragments?|functions?|files?|ids?|length|size|budget|registry|"
                  r"management|engineering|versions?|versioning|variables?|objects?|class(?:es)?|fields?|"
                  r"param(?:eter)?s?|arguments?|schemas?|metadata|logs?|logging|handlers?|hooks?|decorators?|types?|"
                  r"library|libraries|editor|storage|repository)")
# A word a code span opens and closes is a name in code (`void`, `disable`), not a verb. One assertion, not an
# alternation of two: where the word after fails, the alternation would try the same position again.
_NOT_CODE_NAME = r"(?!(?<=`)[\w-]+`)"
_CONTROL = (_NOT_CODE_NAME + _CONTROL_WORDS + r"\b(?!(?:[ ](?:and|or)[ ][\w-]+)?[ ]" + _SOFTWARE_NOUN
            + r"\b)")
_GATES[_CONTROL] = _GATES[_CONTROL_WORDS]
_PREVIOUS = _words(
    r"previous", r"prior", r"earlier", r"above", r"preceding", r"original", r"initial", r"former", r"existing",
    r"default", r"all", r"any", r"every", r"everything", r"usual", r"normal", r"current",
    r"vorherig\w*", r"bisherig\w*", r"obig\w*", r"alle[ns]?", r"precedent\w*", r"anterior\w*", r"toute?s?",
    r"todas?", r"todos", r"tutt[ei]", r"precedenti", r"vorige", r"voorgaande", r"eerdere", r"poprzedni\w*",
    r"wszystk\w*",
    r"predchoz\w*", r"predchadzajuc\w*", r"vsetk\w*", r"tidigare", r"aiemm\w*", r"kaikki", r"onceki", r"tum",
    r"butun", r"anterioare", r"toate", r"korabbi", r"osszes", r"sebelumnya", r"semua", r"sebelum[ ]ini",
    r"truoc[ ]do", r"tat[ ]ca", r"naunang", r"lahat", r"yote", r"yaliyotangulia",
)
_SECOND_PERSON = _words(
    r"you", r"your", r"yours", r"yourself", r"du", r"dein\w*", r"dich", r"dir", r"tu", r"ton", r"tes", r"toi",
    r"vous", r"votre", r"vos", r"tus", r"usted", r"tuo", r"tua", r"tuoi", r"voce", r"seu", r"sua", r"seus", r"suas",
    r"jij", r"jouw", r"twoj\w*", r"swoj\w*", r"swoich", r"twoich", r"tue", r"sei", r"eres", r"bist", r"bent",
    r"jestes", r"jsi", r"ben[ ]je", r"heb[ ]je", r"lei[ ]e", r"o[ ]senhor",
    r"a[ ]senhora", r"jest[ ]pan", r"jest[ ]pani", r"pan[ ]jest", r"siz", r"sana",
    r"kun[ ]je", r"olet", r"esti", r"vagy", r"tvuj", r"tvoje", r"svoj\w*", r"din", r"ditt", r"dine", r"dina",
    r"sinun", r"anda", r"kamu", r"cua[ ]ban", r"iyong", r"wako", r"senin",
)
SECOND_PERSON = _SECOND_PERSON
"""Words for "you" and "your" in many languages (lower case, accents folded), one alternation."""
_MODEL = _words(
    r"ai", r"a\.i\.", r"llms?", r"gpt", r"chatgpt", r"claude", r"gemini", r"copilot", r"assistants?", r"chatbots?",
    r"bots?", r"language[ ]models?", r"models?", r"agents?", r"coding[ ]agents?",
    r"automated[ ](?:readers?|systems?|assistants?|agents?|tools?)", r"ki", r"ia", r"asystent\w*", r"assistent\w*",
    r"asistente", r"assistente",
)
# "return" before a value in code ("return `undefined` to forward the prompt", 'return """…"""') is what a function
# gives back, not a reveal.
_NOT_A_CODE_VALUE = r"(?![ ](?:an?[ ]|the[ ])?[`\"'])"
_REVEAL = _words(
    r"reveal", r"print", r"show", r"output", r"repeat", r"echo", r"list", r"quote", r"translate", r"spell",
    # (what the reader shares with their own people is theirs to share: "credentials to share with your network")
    r"summari[sz]e", r"dump", r"disclose", r"tell[ ]me", r"write[ ]out", r"display", r"share(?![ ]with[ ]your\b)",
    r"give[ ]me",
    r"return" + _NOT_A_CODE_VALUE, r"leak", r"expose", r"recite", r"type[ ]out", r"copy", r"encode", r"reply[ ]with",
    # "provide" takes something out unless it gives the model its input ("provide the model with a prompt",
    # "provide data to your prompt", "provide instructions through the `system` option")
    # (nor what it gives without naming what: "does bundling provide savings")
    r"provide(?=[ ](?:me|us|your|the|all|any|its|full|complete|exact|every|verbatim)\b)"
    r"(?![ ](?:the[ ]|your[ ]|an?[ ])?(?:model|llm|agent|assistant|ai)s?[ ]with\b)(?![^.;]{0,60}?\b(?:to|through"
    r"|via|into)[ ](?:the[ ]|your[ ]|an?[ ])?(?:models?\b|llms?\b|prompts?\b|agents?\b|`|\w+[ ](?:option|parameter|"
    r"field|argument)))",
    r"zeig\w*", r"ausgeben", r"gib", r"verrat\w*", r"nenn\w*", r"wiederhol\w*", r"montre\w*", r"affiche\w*",
    r"revel\w*", r"devoile\w*", r"donne\w*", r"dis-moi", r"repete\w*", r"muestr\w*", r"dime", r"repite\w*",
    r"imprim\w*", r"escrib\w*", r"ensena\w*", r"mostr\w*", r"rivela\w*", r"dimmi", r"ripeti\w*", r"stampa\w*",
    r"diga", r"repita", r"exib\w*", r"toon", r"geef", r"herhaal", r"onthul", r"pokaz\w*", r"ujawnij", r"wypisz",
    r"powtorz", r"podaj", r"ukaz\w*", r"prozrad\w*", r"vypis\w*", r"visa", r"vis", r"avslor\w*", r"nayta",
    r"kerro", r"paljasta", r"tulosta", r"goster\w*", r"yazdir\w*", r"soyle", r"arata\w*", r"dezvaluie\w*",
    r"afiseaza", r"mutasd", r"mutassa", r"ird[ ]ki", r"tampilkan", r"tunjukkan", r"ungkapkan", r"dedahkan",
    r"berikan", r"tuliskan", r"sebutkan", r"hien[ ]thi", r"tiet[ ]lo", r"in[ ]ra", r"ipakita", r"ibunyag",
    r"onyesha", r"fichua", r"zobraz\w*",
    r"vypis", r"afiseaza", r"read[ ](?:me|out|aloud)", r"dame", r"dammi", r"daj", r"scriv\w*", r"elenc\w*",
    r"enumer\w*", r"schreib\w*", r"ecri\w*", r"escrev\w*", r"schrijf", r"noem", r"napisz", r"geben[ ]sie", r"ulangi",
)
_SECRET = _words(
    r"system[ -]?(?:prompt|message|instructions?)", r"(?:initial|hidden|secret|original|confidential|internal|base|"
    r"developer|operating|real)[ ](?:prompt|instructions|rules|configuration|variables|message|guidelines|ones)",
    r"(?:instructions?|rules?|prompt|guidelines?)[ ]you[ ](?:were|have[ ]been|received|got|operate|follow|are[ ]given)",
    r"(?:text|everything|words|tokens|content|messages?)[ ](?:above|before[ ]this|prior)", r"prior[ ]tokens",
    r"context[ ]window", r"(?:conversation|chat)[ ](?:history|transcript)", r"previous[ ]user",
    r"api[ ]?keys?", r"access[ ]code", r"credentials", r"prompt[ ]you[ ]were",
    r"(?:every|all|the)[ ]tools?[ ]you[ ](?:can|have)", r"(?:tool|function)[ ]definitions",
    r"contrase\w*", r"passwor\w*", r"wachtwoord", r"haslo", r"passwort", r"mot[ ]de[ ]passe", r"senha",
    r"systemprompt\w*", r"systemanweisung\w*", r"prompt[ ](?:de|du|del|di|do)[ ](?:sistema|systeme)",
    r"instru\w+[ ](?:de|del|do|da|di|du|des)[ ](?:sistema|systeme|system)",
    r"instructions?[ ](?:systeme|du[ ]systeme|initiales|cachees|secretes)", r"instrucciones[ ](?:del[ ]sistema|"
    r"ocultas|iniciales|secretas)", r"istruzioni[ ](?:di[ ]sistema|del[ ]sistema|nascoste|iniziali|segrete)",
    r"instrucoes[ ](?:do[ ]sistema|ocultas|iniciais|secretas)", r"(?:versteckten|geheimen|ursprunglichen)[ ]"
    r"(?:anweisungen|instruktionen)", r"systeemprompt", r"prompt[ ]systemowy", r"systemowy[ ]prompt",
    r"systemov\w*[ ]prompt", r"jarjestelmakehot\w*", r"sistem[ ]istem\w*", r"promptul[ ]de[ ]sistem",
    r"rendszerprompt\w*", r"prompt[ ]sistem", r"arahan[ ]sistem", r"loi[ ]nhac[ ]he[ ]thong",
    r"maagizo[ ](?:\w+[ ])?ya[ ]mfumo",
    r"mensaje[ ]del?[ ]sistema", r"invite[ ](?:du[ ])?systeme", r"promptul[ ](?:\w+[ ])?de[ ]sistem",
    # the conversation so far and the secret the page wants ("Nachrichtenverlauf", "la clave secreta")
    r"(?:nachrichten|chat|gesprachs|unterhaltungs)verlauf\w*", r"historial[ ]de[ ](?:la[ ])?conversacion",
    r"historique[ ]de[ ](?:la[ ])?conversation", r"cronologia[ ]della[ ]conversazione", r"historico[ ]da[ ]conversa",
    r"(?:clave|chiave|chave|palabra|parola|codigo|codice|mot|cle)[ ](?:secret[ao]|segret[ao]|secrete?)",
    r"(?:geheime[nr]?[ ](?:schlussel|wort|code)|geheimwort|geheime[ ]sleutel)",
    # "the instructions (that) you received / were given" in other languages
    r"(?:instrucciones|instructions|consignes|anweisungen|istruzioni|instrucoes|instructies|instrukcje|instruksi|"
    r"regeln|reglas|regles|regole|regras|regels|zasady|aturan|perintah|talimatlar\w*)[ ,]+(?:que|qui|qu'on|die|che|"
    r"ktore|yang|som|jotka|care|amelyeket)[ ](?:\w+[ ]){0,3}?(?:recib\w*|dieron|dado|recu\w*|donne\w*|erhalten|"
    r"bekommen|gegeben|ricevut\w*|hai[ ]ricevuto|date|dati|recebeu|recebido|deram|dad[ao]s|kreeg|kregen|gekregen|"
    r"ontving|otrzyma\w*|dosta\w*|terima|diterima|diberikan|fick|fikk|saanut|sait|primit\w*|kaptal)",
)
_STATE = _words(
    r"(?:have|has)[ ]been[ ](?:revoked|cancell?ed|suspended|disabled|turned[ ]off|switched[ ]off|overridden|"
    r"superseded|deactivated|waived|unlocked|lifted|removed|updated|changed|replaced)",
    r"(?:are|is|were|was)[ ](?:now[ ])?(?:revoked|cancell?ed|void|suspended|disabled|off|turned[ ]off|overridden|"
    r"superseded|deactivated|waived|unlocked)", r"no[ ]longer[ ](?:apply|applies|valid|in[ ]effect|matter)",
    r"(?:do|does)[ ]not[ ](?:apply|count|matter)", r"(?:don't|doesn't)[ ](?:apply|count|matter)",
    r"(?:suspended|disabled|revoked|deactivated)",
    r"mode[ ](?:enabled|activated|on)", r"(?:enabled|activated|unlocked)",
)
# What a state sets instructions aside with: turning them on does not ("prompt caching is enabled").
_STATE_OFF = _words(
    r"(?:have|has)[ ]been[ ](?:revoked|cancell?ed|suspended|disabled|turned[ ]off|switched[ ]off|overridden|"
    r"superseded|deactivated|waived|unlocked|lifted|removed|updated|changed|replaced)",
    r"(?:are|is|were|was)[ ](?:now[ ])?(?:revoked|cancell?ed|void|suspended|disabled|off|turned[ ]off|overridden|"
    r"superseded|deactivated|waived|unlocked)", r"no[ ]longer[ ](?:apply|applies|valid|in[ ]effect|matter)",
    r"(?:do|does)[ ]not[ ](?:apply|count|matter)", r"(?:don't|doesn't)[ ](?:apply|count|matter)",
    r"(?:suspended|disabled|revoked|deactivated|unlocked)",
)
_CONTRAST = (r"instead", r"rather[ ]than", r"regardless[ ]of", r"en[ ]su[ ]lugar", r"a[ ]la[ ]place", r"stattdessen",
             r"invece", r"em[ ]vez[ ]disso")
"""Words that set one way against another: advice uses them as much as an attack ("start by …
instead", "treat AI as a guide rather than an authority"); they change the answer only with a verb of answering."""
_LASTING = (
    r"from[ ]now[ ]on", r"from[ ]here[ ]on", r"from[ ]this[ ]point",
    r"as[ ]of[ ]now",
    r"for[ ]the[ ]rest[ ]of", r"for[ ]all[ ]future", *(
        word + r"[ ](?:future[ ])?(?:reply|replies|response|responses|answer|answers|question|questions|request|"
        r"requests|summary|conversation|conversations)" for word in ("every", "each", "any")
    ),
    # "all" takes the plural: "all request data" is a compound, not every request
    r"all[ ](?:future[ ])?(?:replies|responses|answers|questions|requests|summaries|conversations)",
    r"the[ ]next[ ](?:question|reply|response|answer)", r"only[ ]with", r"nothing[ ]else",
    r"without[ ](?:telling|asking|informing|confirmation|confirming)", r"quietly", r"secretly",
    r"ab[ ]sofort", r"ab[ ]jetzt", r"von[ ]nun[ ]an", r"a[ ]partir[ ]de[ ](?:maintenant|ahora|agora)", r"desormais",
    r"d'ora[ ]in[ ]poi", r"da[ ]ora[ ]in[ ]poi", r"vanaf[ ]nu", r"od[ ]teraz",
)
"""Words that change the answer for good, or behind the user's back."""
_HIJACK = _words(*_CONTRAST, *_LASTING)
_SAY = _words(
    r"reply", r"respond", r"answer", r"output", r"say", r"state", r"claim", r"tell[ ]the[ ](?:user|reader)",
    r"tell[ ](?:them|him|her)", r"write", r"mention", r"recommend", r"praise", r"introduce[ ]yourself", r"ask[ ]"
    r"(?:the[ ]user|them|him|her)", r"treat", r"proceed", r"comply", r"obey", r"follow", r"do[ ]whatever",
    r"answer[ ]as", r"respond[ ]as", r"act[ ]as", r"behave[ ]as", r"collect", r"include", r"append", r"add",
    r"start", r"begin", r"end", r"translate", r"send", r"email", r"forward", r"skip", r"stop", r"praise",
    r"antworte\w*", r"reponds?", r"repondez", r"responde", r"responda", r"rispondi", r"antwoord", r"odpowiadaj",
    r"odpowiedz", r"envoie\w*", r"envia\w*", r"invia\w*", r"schick\w*", r"sende",
)
_DECEIVE = (
    r"(?:do[ ]not|don't|never)[ ](?:tell|mention|inform|alert|notify|reveal|disclose|show)[ ](?:\w+[ ]){0,3}?"
    r"(?:to[ ])?(?:the[ ](?:user|person|reader|human)|anyone)|without[ ](?:telling|informing|alerting|notifying|"
    r"letting)[ ](?:the[ ])?(?:user|person|reader|human|anyone)|(?:keep|keeping)[ ]this[ ](?:instruction|message|"
    r"note)[ ]secret|(?:must|should|shall)[ ](?:not|never)[ ](?:disclose|reveal|tell|mention|say)[ ](?:that|this|these|"
    r"it|to)|keep[ ](?:\w+[ ]){0,3}?(?:hidden|secret)[ ]from[ ](?:the[ ])?(?:user|person|reader|human)"
)
_AUTHORITY = (
    r"(?:the[ ](?:user|administrator|admin|developers?|operator|owner|site[ ]owner)|your[ ](?:developers?|creators?|"
    r"administrators?|operator))[ ](?:has|have)[ ](?:already[ ])?(?:pre-?approved|approved|authori[sz]ed|granted|"
    r"unlocked|enabled|allowed|permitted|changed|updated)|authori[sz]es[ ]you|i[ ]am[ ]your[ ](?:creator|developer|"
    r"admin|administrator|owner)|(?:comes?|is)[ ]from[ ]your[ ](?:developers?|creators?|administrators?|operator)"
    r"|i[ ](?:hereby[ ])?(?:authori[sz]e|permit|allow)[ ]you|(?:i'm|i[ ]am)[ ](?:the"
    r"|your)[ ](?:system[ ])?(?:administrator|"
    r"admin|developer|creator|owner|operator)|as[ ]your[ ](?:developer|creator|admin|administrator|operator|owner)"
    r"|this[ ]is[ ](?:openai|anthropic|google|your[ ]developer|the[ ]developer)|(?:remaining|following)[ ]text[ ](?:is|"
    r"comes)[ ]from[ ](?:the[ ])?(?:operator|developer|system|admin)|per[ ]the[ ](?:admin|administrator|developer"
    r"|operator)"
)
_HEADER = (
    r"^[\[(*#=\- ]*(?:(?:hidden|secret|priority|admin|administrator|developer|assistant|ai|llm|maintenance|debug|"
    r"real|actual|true|genuine|new|updated)[ ])+(?:instructions?|task|command|directive|override|note|mode|"
    r"objective)(?:[ ](?:for|to)[ ](?:the[ ])?" + _MODEL + r")?[ ]*(?:[:\]]|enabled|activated|on\b)"
    r"|^[\[(*#=\- ]*(?:instructions?|notes?|messages?|commands?|tasks?)[ ](?:for|to)[ ](?:the[ ]|any[ ]|all[ ])?"
    r"(?:automated[ ])?" + _MODEL + r"[ ]*[:\]]|^[\[(*#=\- ]*" + _MODEL + r"[ ](?:instructions?|note|notice|task|"
    r"directive)s?[ ]*[:\]]"
    r"|^[\[(*#=\- ]*(?:(?:system|systeem|sistema|systeme|sistem|rendszer)\w*[ -]?(?:note|notice|message|melding|"
    r"bericht|hinweis|nachricht|meldung|notitie|nota|aviso|mensaje|mensagem|messaggio|notu|mesaj|uzenet|catatan|"
    r"pesan|meddelande|besked)|(?:note|notice|message|nota|aviso|mensaje|mensagem|messaggio|uwaga|notatka|wiadomosc|"
    r"komunikat|poznamka|catatan|pesan)[ ](?:du[ ]|del[ ]|do[ ]|di[ ]|de[ ])?(?:system\w*|sistema|systeme|sistem)"
    r"|systemhinweis|systemnachricht|systemmeldung|systeemmelding|systeembericht|systemmeddelande|systembesked|"
    r"rendszeruzenet)[ ]*[:\]]"
    r"|^[\[(*#=\- ]*(?:(?:wichtige[rs]?|dringende[rs]?|important|importante|urgente|belangrijke|wazna)[ ])?"
    r"(?:note|notes|message|hinweis|nachricht|notiz|anweisung|nota|mensaje|messaggio|mensagem|bericht|"
    r"notitie|uwaga|wiadomosc)(?:[ ](?:importante|important|urgente|importanti|importantes))?[ ](?:for|to|an|fur|"
    r"pour|a|"
    r"para|per|voor|aan|dla|do)[ ](?:the[ ]|die[ ]|den[ ]|das[ ]|"
    r"der[ ]|l'|la[ ]|le[ ]|el[ ]|il[ ]|lo[ ]|o[ ]|a[ ])?(?:ki|ia|ai|llm|bot|chatbot|assistent\w*|asistente|assistente|"
    r"assistant|modell|modele|modelo|modello|model|agent\w*|agente)(?:-\w+)?[ ]*[:\]]"
    r"|^[\[(*#=\- ]*(?:conversation|context|session|chat|memory)[ ](?:reset|cleared|restarted|wiped)\b"
    r"|^[\[(*#=\- ]*(?:(?:now|nun|jetzt|ahora|maintenant|ora|agora)[ ])?(?:follow|folgen|siguen|suivent|seguono|seguem)"
    r"[ ]"
    r"(?:neue|weitere|nuevas|nouvelles|nuove|novas|new|further)[ ](?:aufgaben|anweisungen|tareas|instrucciones|taches|"
    r"instructions|compiti|istruzioni|tarefas|instrucoes|tasks)\b"
    r"|^[\[(*#=\- ]*(?:for|pour|para|per|fur|an|voor|dla)[ ](?:the[ ]|les[ ]|los[ ]|las[ ]|gli[ ]|i[ ]|die[ ]|de[ ]|"
    r"all[ ]|any[ ]|alle[ ])?(?:automated[ ])?(?:ki|ia|ai|llms?|bots?|assistants?|assistent\w*|asistentes?|"
    r"assistenti|modell\w*|models?|agents?|agentes?)(?:-\w+)?[ ]*[:\]]"
)
_ADDRESS = (
    r"^(?:attention|note|hey|dear|hi|hello|to)?[ ,]*(?:the[ ]|any[ ]|all[ ]|every[ ])?(?:automated[ ])?" + _MODEL
    + r"[ ]*[:,!]|(?:(?:any|every|all|each)[ ])?(?:automated[ ])?" + _MODEL
    + r"[ ](?:reading|processing|summari[sz]ing|"
    r"that[ ](?:reads|processes|summari[sz]es)|which[ ]reads)|\bwhoever[ ](?:summari[sz]es|reads|processes|"
    r"analy[sz]es)[ ]this|if[ ]you[ ]are[ ]an?[ ](?:automated[ ])?(?:\w+[ ])?"
    + _MODEL + r"\b"
)
# Models of a kind, named by example ("tools and data to AI models like Claude, Gemini, or others"): spoken of, not
# spoken to.
_MODELS_NAMED = (r"\b(?:ai[ ]|language[ ]|coding[ ])?(?:models|llms|agents|assistants|chatbots)[ ]"
                 r"(?:like|such[ ]as|including)[ ]")
_NEW_TASK = (
    # not in a condition: "if your goal is to minimize costs, …" is the reader's own goal
    r"(?<!\bif[ ])(?<!\bwhen[ ])(?<!\bwhether[ ])(?<!\bunless[ ])"
    r"\b(?:your|the[ ]only)[ ](?:new|real|actual|true|only|genuine|primary)?[ ]?(?:task|objective|goal|"
    r"directive|role|purpose|mission)[ ](?:now[ ])?(?:is|are|:)"
    r"|\bthe[ ](?:new|real|actual|true|only|genuine|primary)[ ](?:task|objective|goal|directive|role|purpose|mission)"
    r"[ ](?:now[ ])?(?:is|are|:)"
    # "the task is complete" says how a task stands: an assignment says what it is to be
    r"|\bthe[ ](?:task|objective|goal|directive|role|purpose|mission)[ ]?(?::|(?:is|are)[ ](?:now[ ])?(?:to\b|:))"
    r"|\b(?:genuine|real|actual|true)[ ]instructions"
    r"|\byour[ ](?:new|real|actual|true|updated)[ ](?:system[ ]prompt|instructions|guidelines|rules|directives?)"
)
_ROLE = (
    r"\b(?:act|behave|respond|answer|reply)[ ]as[ ](?:if|though|an?|the|my|your)\b|\bpretend[ ](?:to[ ]be|you|that"
    r"|your)\b|"
    r"\broleplay[ ]as\b|\bplay[ ]the[ ]role\b|\bintroduce[ ]yourself[ ]as\b|\byou[ ](?:are|will[ ]be)[ ](?:now[ ])?"
    r"(?:an?[ ])?(?:(?!\w+ing[ ])\w+[ ]){0,3}?(?:ai|model|assistant|bot|gpt|dan)\b|\byour[ ]new[ ]role\b"
    r"|(?<!such[ ])\bas[ ](?:dan|freegpt)\b|\bals[ ](?:[\w-]+[ ,]+){1,6}?(?:fungier\w*|agier\w*)\b"
)
_MODAL = (
    r"\byou[ ](?:must|should|will|shall|need[ ]to|have[ ]to|are[ ]to|are[ ]required|are[ ]now|can[ ]now)\b"
    # a request: "I want you to …", "ich möchte, dass Sie …", "je veux que tu …"
    r"|\b(?:i|we)[ ](?:want|would[ ]like|need)[ ]you[ ]to\b|\b(?:ich|wir)[ ](?:mochte\w*|will|wollen)[ ,]+dass[ ]"
    r"(?:sie|du|ihr)\b|\bje[ ](?:veux|voudrais)[ ]que[ ](?:tu|vous)\b|\b(?:quiero|quisiera)[ ]que[ ](?:tu|usted)?\b"
    r"|\b(?:voglio|vorrei)[ ]che[ ](?:tu|lei)\b|\b(?:quero|queria)[ ]que[ ](?:voce|tu)\b"
)
_IMPERATIVE = _words(
    r"ignore", r"disregard", r"forget", r"override", r"bypass", r"set", r"put", r"discard", r"drop", r"abandon",
    r"reveal", r"print", r"show", r"output", r"repeat", r"echo", r"list", r"quote", r"translate", r"spell",
    r"summari[sz]e", r"dump", r"disclose", r"tell", r"write", r"display", r"share", r"give", r"return", r"leak",
    r"expose", r"recite", r"type", r"copy", r"provide", r"encode", r"reply", r"respond", r"answer",
    # not "say" set off as "for example" (", say —"), nor English "no" before a name in code ("no `Mcp-Session-Id`
    # issued"): the negation an imperative starts with is Spanish and Italian, before a verb
    r"say(?![ ]?(?:,|\u2014|\u2013|--)[ ](?![\"'\u201c]))",
    r"state", r"claim", r"mention", r"recommend", r"praise", r"introduce", r"ask", r"treat", r"proceed", r"comply",
    r"obey", r"follow", r"do", r"don't", r"never", r"always", r"act", r"behave", r"pretend", r"roleplay", r"play",
    r"collect", r"include", r"append", r"add", r"start", r"begin", r"end", r"send", r"email", r"forward", r"skip",
    r"stop", r"keep", r"remember", r"store", r"save", r"reset", r"enter", r"enable", r"activate", r"disable",
    r"turn", r"switch", r"unlock", r"describe", r"explain", r"use", r"call", r"invoke", r"run", r"execute", r"route",
    r"kindly", r"please",
    # other languages (folded): imperatives and the negation an imperative starts with
    r"ignora", r"ignorez", r"ignoriere", r"vergiss", r"olvida", r"oublie", r"oubliez", r"dimentica", r"negeer",
    r"vergeet", r"zignoruj", r"ignoruj", r"zapomnij", r"esqueca", r"esquece", r"desconsidere", r"muestra\w*",
    r"montre\w*", r"affiche", r"revele", r"revela", r"rivela", r"mostra\w*", r"zeige?", r"gib", r"toon", r"geef",
    r"pokaz\w*", r"envia", r"envie", r"invia", r"envoie", r"schicke?", r"sende", r"stuur", r"no(?![ ]matter\b)(?![ ]`)",
    r"ne", r"non", r"nicht", r"niet", r"nie", r"fasse", r"resume", r"escribe", r"ecris", r"scrivi", r"schreibe?",
    r"responde",
    r"reponds", r"rispondi", r"antworte", r"odpowiadaj", r"dis", r"dime", r"sag", r"sage", r"empfiehl",
    r"recommande", r"recomienda", r"raccomanda", r"recomende", r"geben", r"zobraz", r"afiseaza", r"mutasd",
    r"mutassa", r"nayta",
    r"onyesha", r"ipakita", r"goster", r"tampilkan", r"tunjukkan", r"huwag", r"repite", r"repete", r"wiederhole",
    r"ripeti", r"repita", r"herhaal", r"powtorz", r"ulangi", r"muestre", r"affichez", r"mostri", r"mostre",
    r"zeigen[ ]sie",
)


UNNEGATED = r"(?<!not )(?<!never )(?<!n't )(?<!cannot )(?<!\bno )(?<!not to )(?<!never to )"
"""A lookbehind: the word that follows is not negated ("does not upload", "never ignores", "won't send")."""
NOT_IN_A_CONDITION = r"(?<!until )(?<!unless )(?<!once )(?<!after )(?<!before )(?<!when )(?<!if )(?<!whether )"
"""A lookbehind: what follows is no condition or time to wait for ("until the user has approved the plan"), which
claims no approval given."""
_NEGATED = r"\b(?:not|never|cannot|no|not[ ]to|never[ ]to)[ ]$|n't[ ]$"
_RELATIVE = r"\b(?:that|which|who)[ ](?:(?:\w+[ ]){1,3}?(?:and|or)[ ])?$"
_ARTICLE = r"\b(?:a|an)[ ](?:[\w-]+[ ])?$"
# A word joined to another by a hyphen, a plus or a slash is part of a name ("task-scoped overrides",
# "warn-and-skip", "prompt + cancel + forwarding"), not a verb or noun of its own.
# After an article or a possessive it is a noun ("the cancel directives", "audit your ignore rules").
_JOINED_BEFORE = (r"[-+/]$|[+/][ ]$|\benable[ ](?:and|or)[ ]$|\bdrag[ ]and[ ]$|\bset[ ](?:it[ ])?and[ ]$"
                  r"|\b(?:the|an|your|its|their|our)[ ]$|'s[ ]$")
_NOT_JOINED_AFTER = r"(?![-/]\w)(?![ ](?:and|or)[ ]re-?enable\b)"  # a toggle: "disable and re-enable"
# The verb's own object, a bare noun and then another verb: the control word later is that verb's ("skip
# discovery entirely and bake tool instructions into the tool's description"), not the one set aside.
_OWN_OBJECT = (r"(?![ ](?!(?:everything|anything|all|it|that|this|them|those|these|previous|prior|above|safety|"
               r"ethics|morals)\b)(?!" + _CONTROL_WORDS + r"\b)[a-z]+(?:[ ][a-z]+ly)?[ ]and[ ][a-z]+[ ])")
# A verb after a plural subject states what things do ("models often forget this instruction", "those tools
# bypass search"): an order has no subject.
_PLURAL_SUBJECT = (r"\b(?:models|llms|agents|tools|servers|clients|users|they)[ ](?:often[ ]|sometimes[ ]|usually[ ]"
                   r"|always[ ]|also[ ]|then[ ]|\w+ly[ ])?$")
# What a defence is against ("to prevent truncation bypass", "detects attempts to ignore"): the attack is its topic.
_DEFENDED = (r"\b(?:prevent|prevents|preventing|detect|detects|detecting|block|blocks|blocking|mitigate|mitigates|"
             r"against)[ ](?:[\w-]+[ ]){0,2}$")
# "override" in its programming sense: a method, hook or class the reader overrides in a subclass
# (or a value named before: "`base_instructions` if you explicitly override it")
_CODE_OVERRIDE = (r"(?!(?<=override)[ ]it\b)"
                  r"(?!(?<=override)[ ](?:(?:this|the|that|its|their|a|an|parent'?s?|base|super|default|own)[ ]){0,2}"
                  r"(?:[\w`'().-]+[ ])?(?:method|function|hook|class|property|attribute|handler|constructor|"
                  r"implementation|callback)s?\b)")
# A prompt the interface shows ("skip confirmation prompts"), not instructions
_UI_PROMPT = r"(?<!confirmation[ ])(?<!permission[ ])(?<!approval[ ])(?<!consent[ ])(?<!login[ ])(?<!password[ ])"
_ENGLISH_SECRET_START = (r"(?:system|initial|hidden|secret|original|confidential|internal|base|developer|operating|"
                         r"real|instructions?|rules?|prompt|guidelines?|text|everything|words|tokens|content|"
                         r"messages?|prior|context|conversation|chat|previous|api|access|credentials|every|all|the|"
                         r"tool|function|password)\b")
# An indirect question ("decide when the model should respond", "whether the agent can answer") asks what a model
# does, it grants nothing.
_NOT_ASKED_OF = (r"(?<!\bwhen[ ])(?<!\bwhen[ ]the[ ])(?<!\bwhether[ ])(?<!\bwhether[ ]the[ ])(?<!\bhow[ ])"
                 r"(?<!\bhow[ ]the[ ])")
# What models of a kind "can" do ("Llama models can now output tool calls") or what one can do by some means ("the
# agent can bypass name-based resolution by passing the exact path") is a capability a page describes, a grant
# only when it reaches what a model keeps or obeys.
_CAN = (r"can(?<!s[ ]can)(?![^.;]*?\bby[ ][a-z]+ing\b)|can(?=[^.;]*?\b(?:prompts?|instructions|rules|secrets?|"
        r"passwords?|internal|confidential|anything|everything|restrictions|filters|guidelines|notes|credentials|"
        r"limits|limitations|without|freely|unrestricted|censorship)\b)")
_DETERMINER_OR_NOUN = (r"\b(?:the|a|an|tool|model|its|their|our)[ ]$"
                       # what something else can do ("MCP tools can expose data"), what a thing is for
                       # ("the capability to automatically summarize older context")
                       r"|\b(?!you\b)\w+[ ](?:can|could|may|might)[ ]$"
                       r"|\b(?:capability|ability|option|feature|function|method|way)[ ]to[ ](?:\w+ly[ ])?$")


class _Unpreceded:
    """A class of words that does not count right after certain words: the search of ``pattern`` skips
    a match that ``before`` (anchored at its end) finds just before it. The same as lookbehinds in the
    pattern, but checked only where the pattern matches, not at every word of every sentence judged."""

    __slots__ = ("before", "only", "pattern", "reach")

    def __init__(self, pattern: str, before: str, only: str | None = None, reach: int = 12) -> None:
        self.pattern = deferred(pattern)
        self.before = deferred(before)
        self.only = deferred(only) if only is not None else None
        """When given: a match is checked only when this pattern matches where it starts."""
        self.reach = reach
        """How many characters before a match ``before`` looks at."""
        settle(self)

    def search(self, text: str, position: int = 0) -> re.Match[str] | None:
        """The first match of the pattern from ``position`` not preceded by one of the words."""
        match = self.pattern.search(text, position)
        while match is not None and (self.only is None or self.only.match(text, match.start())) and (
            self.before.search(text, max(0, match.start() - self.reach), match.start()) is not None
        ):
            match = self.pattern.search(text, match.start() + 1)
        return match

_PUNCTUATION_ASCII = ".,;:!?()[]{}<>\"`*#=/|"
_PUNCTUATION_WIDE = "\u201c\u201d\u2014"
_PUNCTUATION_BYTES = bytes(32 if chr(code) in _PUNCTUATION_ASCII else code for code in range(256))


def _blank_punctuation(sentence: str) -> str:
    """``sentence`` with each punctuation mark that separates words (:data:`_PUNCTUATION_ASCII`,
    :data:`_PUNCTUATION_WIDE`) a space. ``str.translate`` with a table looks each character up in a dict once
    the text is not ASCII; here the three wide marks are replaced and the ASCII ones translated in UTF-8
    (whose bytes beyond ASCII are never ASCII punctuation)."""
    for char in _PUNCTUATION_WIDE:
        if char in sentence:
            sentence = sentence.replace(char, " ")
    utf8 = sentence.encode("utf-8", "surrogatepass")
    return utf8.translate(_PUNCTUATION_BYTES).decode("utf-8", "surrogatepass")


_LITERAL_NEEDS: dict[str, tuple[str, ...]] = {
    # Substrings that every match of the class holds one of: a class whose sentence has none is not searched.
    "secret": ("tool", "function", "system", "prompt", "instruction", "rule", "guideline", "configuration",
    "variables", "message",
               "ones", "above", "before", "prior", "window", "history", "transcript", "user", "api", "access",
               "credentials", "anweisung", "instru", "istruz", "sistem", "systeem", "jarjestelma", "rendszer",
               "arahan", "he thong", "mfumo",
               # passwords, the conversation so far, secret words and the rules given, in other languages too
               "passwor", "contrase", "wachtwoord", "haslo", "mot de passe", "senha", "verlauf", "histori",
               "cronologia",
               "secret", "segret", "geheim", "regel", "regla", "regle", "regol", "regra", "zasad", "aturan", "perintah",
               "talimat", "consigne"),
    "your_control": ("your", "tus", "tes", "ton", "ta ", "vos", "votre", "dein", "tuo", "tue", "tua", "sua", "seu",
                     "seus", "jouw", "je ", "swoj", "twoj", "swoich", "twoich", "dine", "din", "ditt",
                     "sinun"),
    "question": ("what", "previous user"),
    "phishing": ("ask ",),
    "address": ("whoever", "ai", "assistant", "model", "bot", "gpt", "claude", "llm", "agent", "automated", "gemini",
    "copilot",
                "ki", "ia", "asystent", "assistent", "asistente", "a.i."),
    "when_reading": ("when", "before "),
    "deceive": ("not ", "n't ", "never", "without", "keep"),
    "authority": ("has ", "have ", "authori", "i am your", "from your", "i'm ", "i am ", "as your", "this is ",
                  "text ", "per the", "permit", "allow"),
    "new_task": ("task", "objective", "goal", "directive", "role", "purpose", "mission", "instructions", "prompt",
                 "guidelines", "rules"),
    "role": ("act as", "behave as", "respond as", "answer as", "reply as", "pretend", "roleplay", "play the role",
             "introduce yourself", "you are", "you will be", "your new role", "as dan", "as freegpt", "fungier",
             "agier"),
    "modal": ("you ", "dass ", "que ", "che "),
    "email": ("@",),
    "tool_call": ("_",),
    "evasion": ("filter", "moderation", "safety", "monitoring", "base64", "rot", "hex", "binary", "morse", "leet",
    "l33t",
                "latin", "reverse", "treat", "consider", "regard", "authori", "allowed", "permitted"),
    "output_rule": ("summar", "respons", "repl", "answer", "output"),
    "user_conditional": ("user", "customer", "visitor", "reader", "human"),
    "model_may": ("assistant", "model", "ai", "bot", "agent", "llm"),
    "tell_user": ("tell", "inform", "warn", "convince", "remind", "dile", "dis", "sag", "di'", "diga", "zeg"),
    "unbound": ("without", "no ", "sans", "sin ", "sem ", "senza", "ohne", "zonder", "bez ", "utan", "uden", "uten",
                "ilman", "tanpa", "fara", "nelkul", "olmayan", "bila", "isiyo", "asiye", "walang"),
    "hijack": ("instead", "rather than", "regardless", "from now", "from here", "from this point", "as of now",
    "for the rest",
               "for all future", "repl", "respon", "answer", "question", "request", "summar", "conversation",
               "next ", "only with", "nothing else", "without", "quietly", "secretly", "ab sofort", "ab jetzt",
               "von nun", "a partir de", "desormais", "d'ora", "da ora", "vanaf nu", "od teraz", "en su lugar",
               "a la place", "stattdessen", "invece", "em vez"),
    "completion": ("prompt", "instructions", "rules", "systemanweisung"),
    "reported": ("tell", "told", "ask", "instruct", "caus", "forc", "trick", "make", "made", "let", "allow",
                 "convinc", "get", "got", "tr", "can", "could", "may", "might", "would", "won't", "how", "want", "able",
                 "attempt", "design", "meant", "used", "intended", "into", "by ", "`"),
    "reported_request": ("ask", "tell", "told", "instruct", "forc", "trick", "convinc", "urg", "prompting", "get",
                         "got", "caus", "mak", "made", "allow", "let", "enabl", "help", "permit"),
    "lasting": ("from now", "from here", "from this point", "as of now", "for the rest", "for all future", "repl",
                "respon", "answer", "question", "request", "summar", "conversation", "next ", "only with",
                "nothing else", "without", "quietly", "secretly", "ab sofort", "ab jetzt", "von nun", "a partir de",
                "desormais", "d'ora", "da ora", "vanaf nu", "od teraz"),
    "compliance": ("comply", "obey", "whatever", "act as", "behave as", "answer as", "respond as",
                   "introduce yourself"),
    "code_entry": ("`:", "` :"),
    "compound_control": ("richtlinien", "anweisungen", "regeln", "vorgaben", "befehle", "vorschriften", "instructies",
                         "regels", "instructions", "instrucciones", "istruzioni", "instrucoes", "instruktioner",
                         "ohjeet"),
    "foreign_imperative": ("gormezden", "yok", "puuza", "sahau", "abaikan", "lupakan", "sivuuta", "unohda", "ohita",
                           "negeer", "vergeet", "ignor", "zapomnij", "glom", "glem", "olvida", "oublie", "vergiss",
                           "dimentica", "esquec", "desconsidere", "uita", "felejtsd", "bo qua", "no hagas",
                           "nie przestrzegaj", "ne suis", "deixe de", "deja de"),
    "local_paste": ("paste", "env", "you provide", "you supply", "you configure", "copy ", "provide "),
    "configured": ("`", "parameter", "option", "flag", "setting", "argument", "field", "decorator", "config",
                   "variable"),
    "developer_condition": ("you",),
    "api_advice": ("`", "[", "--"),
    "method_contrast": ("rather than", "instead of"),
    "models_named": (" like ", " such as ", " including "),
    "label_description": (": ",),
    "tool_role": ("use ",),
    "unleashed": ("unrestricted", "mode", "restrictions", "rules", "filters", "safety", "confirmation"),
}


_LITERAL_NEEDS_TOO: dict[str, tuple[tuple[str, ...], ...]] = {
    # Further groups of substrings, for classes whose first group (above) most sentences hold: every match holds
    # one substring of each group as well.
    "model_may": ((" may ", " can ", " is ", " must ", " should ", " will "),
                  ("share", "reveal", "disclose", "ignore", "answer", "respond", "send", "give", "provide", "skip",
                   "bypass", "output", "print")),
    "tell_user": (("user", "reader", "customer", "visitor", "usuario", "utilisateur", "benutzer", "nutzer", "utente",
                   "gebruiker", "lector", "lecteur", "leser"),),
    "authority": (("approved", "authori", "granted", "unlocked", "enabled", "allowed", "permitted", "changed",
                   "updated", "i am your", "from your", "permit", "allow", "admin", "developer", "creator", "owner",
                   "operator", "openai", "anthropic", "google", "system"),),
}


_FIRST_WORDS = (
    "ignore", "disregard", "forget", "override", "bypass", "set", "put", "discard", "drop", "abandon", "reveal",
    "print", "show", "output", "repeat", "echo", "list", "quote", "translate", "spell", "summarize", "summarise",
    "dump", "disclose", "tell", "write", "display", "share", "give", "return", "leak", "expose", "recite", "type",
    "copy", "provide", "encode", "reply", "respond", "answer", "say", "state", "claim", "mention", "recommend",
    "praise", "introduce", "ask", "treat", "proceed", "comply", "obey", "follow", "do", "don't", "never", "always",
    "act", "behave", "pretend", "roleplay", "play", "collect", "include", "append", "add", "start", "begin", "end",
    "send", "email", "forward", "skip", "stop", "keep", "remember", "store", "save", "reset", "enter", "enable",
    "activate", "disable", "turn", "switch", "unlock", "describe", "explain", "use", "call", "invoke", "run",
    "execute", "route", "conversation", "context", "session", "kindly", "please", "then", "also", "now", "first",
    "just", "simply", "quietly", "secretly",
    "silently", "immediately", "instead", "rather", "when", "from", "for", "every", "hey", "dear", "override",
    "remember",
    "ignora", "ignorez", "ignoriere", "ignorier", "vergiss", "olvida", "olvide", "oublie", "oubliez", "dimentica",
    "negeer", "vergeet", "zignoruj", "ignoruj", "zapomnij", "esqueca", "esquece", "desconsidere", "muestra",
    "muestrame", "montre", "montre-moi", "affiche", "revele", "revela", "rivela", "mostra", "mostrami", "mostre",
    "zeige", "zeig", "gib", "toon", "geef", "pokaz", "pokaz", "envia", "envie", "invia", "envoie", "schicke",
    "schick", "sende", "stuur", "no", "ne", "non", "nicht", "niet", "nie", "fasse", "resume", "escribe", "ecris",
    "scrivi", "schreibe", "responde", "reponds", "rispondi", "antworte", "odpowiadaj", "dis", "dime", "sag", "sage",
    "empfiehl", "recommande", "recomienda", "raccomanda", "recomende", "vanaf", "ahora",
    "agora", "ora", "desormais", "neue", "nuevas", "nouvelles", "nuove", "novas", "nieuwe", "nowe", "du", "tu",
    "revele-moi", "revele", "recolha", "recopila", "raccogli", "verzamel", "rassemble", "sammle", "complete",
    "completa", "vervollstandige", "abaikan", "lupakan", "bo", "unohda", "glom", "glem", "ignorera", "uita",
    "zabudni", "zapomen", "hagyd", "onceki", "tum", "yoksay", "puuza", "sahau", "bitte", "lassen", "lass", "nun",
    "jetzt", "ich",
    # other languages: time adverbs and imperatives that start an order ("Od teraz …", "Voeg … toe")
    "od", "voeg", "bundan", "mulai", "lagg", "tilfoj", "lisaa", "adauga", "desde", "termina", "agrega", "anade",
    "ajoute", "aggiungi", "adicione", "dodaj", "dodawaj", "ekle", "tambahkan", "ongeza", "idagdag", "mostantol",
    "fuge", "artik", "kuanzia", "mula", "fran", "tasta", "mostra", "huwag", "ipakita", "zobraz", "afiseaza", "mutasd",
    "mutassa", "nayta", "onyesha", "goster", "tampilkan", "tunjukkan", "hien",
)
"""First words of sentences that give orders (lower case, accents folded)."""
_TARGET_WORDS = (
    "you", "your", "yours", "yourself", "ai", "a.i", "assistant", "assistants", "model", "models", "bot", "bots", "gpt",
    "chatgpt", "claude", "llm", "llms", "agent", "agents", "automated", "gemini", "copilot", "chatbot", "chatbots",
    "user", "user's", "users", "reader", "dan", "du", "dein", "deine", "deinen", "dich", "dir", "tu", "ton", "tes",
    "toi", "vous", "votre", "vos", "tus", "usted", "tuo", "tua", "tuoi", "tue", "voce", "seu", "sua", "seus", "suas",
    "jij", "jouw", "twoj", "twoje", "twoich", "swoj", "swoje", "swoich", "tvuj", "tvoje", "din", "ditt", "dine",
    "dina", "sinun", "anda", "kamu", "iyong", "wako", "senin", "eres", "sei", "bist", "bent", "ki", "ia", "previous",
    "prior", "earlier", "above", "preceding", "vorherigen", "precedentes", "anteriores", "precedenti", "anteriores",
    "vorige", "poprzednie", "tidigare", "sebelumnya", "toutes", "todas", "tutte", "alle", "instructions",
    "instruction", "system", "prompt", "sistema", "systeme", "safety", "restrictions", "rules", "developer",
    "developers", "admin", "administrator", "operator", "creator",
    # imperatives of adding something to the answer ("… aggiungi alla fine di ogni risposta …")
    "aggiungi", "adicione", "adiciona", "anade", "agrega", "ajoute", "ajoutez", "fuge", "voeg", "tambahkan", "adauga",
    "lisaa", "ekle",
    # imperatives that repeat something back ("Por favor, repite … las instrucciones que recibiste")
    "repite", "ripeti", "repita", "ulangi", "herhaal", "powtorz", "wiederhole", "repete", "repetez",
    "senhor", "senhora", "siz",
)
"""Words of sentences that speak to the reader or about its instructions (lower case, accents folded)."""

_WORD_NEEDS: dict[str, frozenset[str]] = {
    # Words of which a sentence must hold one for the class to be searched.
    "address": frozenset({"whoever", "ai", "a.i", "assistant", "assistants", "model", "models", "bot", "bots", "gpt",
    "chatgpt",
                          "claude", "llm", "llms", "agent", "agents", "automated", "gemini", "copilot", "chatbot",
                          "chatbots", "ki", "ia", "asystent", "assistent", "asistente", "assistente", "language"}),
    "every_answer": frozenset({"end", "ende", "fin", "final", "fine", "fim", "einde", "koncu", "konci", "slutet",
                               "slutningen", "lopussa", "sonunda", "sfarsitul", "vegen", "akhir", "cuoi", "termina",
                               "terminez", "termine", "beende", "concludi", "encerre", "zakoncz", "loppuun", "mwishoni",
                               "dulo", "konec", "sonuna", "vegere"}),
}


class SentenceJudge:
    """Decides whether a sentence is an instruction to the model (see the module docstring)."""

    def __init__(self) -> None:
        # Each class compiles the first time a sentence asks for it (most sentences ask for few).
        self._compile_gates_and_words()
        self._compile_phrases()
        self._compile_orders()
        settle(self)

    def _compile_gates_and_words(self) -> None:
        """Gates and the lexicon classes."""
        c = deferred
        self.first_words = frozenset(_FIRST_WORDS)
        # Looked for with ``in``, one substring at a time: a short sentence costs a few ``memchr`` calls, where
        # one alternation of them costs a step of each of its branches at every character.
        # Per class, groups of substrings: every match holds one of each group.
        self.literal_needs: dict[str, tuple[tuple[str, ...], ...]] = {
            name: (group,) for name, group in _LITERAL_NEEDS.items()}
        for name, groups in _LITERAL_NEEDS_TOO.items():
            self.literal_needs[name] = self.literal_needs.get(name, ()) + groups
        self.checks: dict[str, _Check] = {}
        self.target_words = frozenset(_TARGET_WORDS)
        self.gates = {
            name: (gate[0], c(r"\b(?:" + "|".join(sorted(map(re.escape, gate[1]))) + ")") if gate[1] else None)
            for name, lexicon in (
                ("override", _OVERRIDE), ("control", _CONTROL), ("previous", _PREVIOUS), ("you", _SECOND_PERSON),
                ("model", _MODEL), ("reveal", _REVEAL), ("hijack", _HIJACK), ("say", _SAY),
            ) if (gate := _GATES[lexicon]) is not None
        }
        # "override" or "bypass" with no object is a noun ("to prevent truncation bypass, …").
        # Not negated ("does not bypass"), nor in a relative clause ("attacks that bypass the rules").
        self.override = _Unpreceded(r"\b" + _NOT_CODE_NAME + _OVERRIDE
                                    + r"\b(?!(?<=override)[ ]?[,.;:)])(?!(?<=bypass)[ ]?[,.;:)])"
                                    + _NOT_JOINED_AFTER + _CODE_OVERRIDE,
                                    _NEGATED + "|" + _RELATIVE + r"|\b(?:enable|turn[ ]on|show|allow|on)/$|"
                                    + _JOINED_BEFORE + "|" + _PLURAL_SUBJECT + "|" + _DEFENDED, reach=30)
        self.control = c(r"\b" + _CONTROL + r"\b")
        self.previous = c(r"\b" + _PREVIOUS + r"\b")
        self.you = c(r"\b" + _SECOND_PERSON + r"\b")
        # Not a part of a compound or a noun's modifier ("a multi-AI agent framework"): a kind of software.
        self.model = c(r"\b(?<!-)" + _MODEL + r"\b(?![ ](?:frameworks?|sdks?|platforms?|workflows?|safety|security|"
                       + _SOFTWARE_NOUN[3:] + r"\b)")
        # After an article or a noun the verbs are nouns ("tool output", "a full list"); "a system message"
        # is one the reader writes, not the model's own.
        # Nor is the prompt its subject ("the system prompt only needs to provide tool-specific rules").
        # Nor a negated verb ("so you can't list tools that …"): what cannot or must not be shown is no request for it.
        # Nor the subject of a verb ("output is compact by default"): a noun.
        # Nor the head of a compound whose first part is what it would take or any word joined by a hyphen
        # ("system-prompt leak", "prompt-leak", "credential exposure" is a kind of attack named).
        # Nor a key of structured data, quoted before its colon (``"output": "…"``): a field's name.
        self.reveal = _Unpreceded(r"\b" + _REVEAL + r"\b(?![ ](?:is|are|was|were)\b)(?![\"'][ ]?:)",
                                  _DETERMINER_OR_NOUN + "|" + _NEGATED + r"|\btax[ ]$|\w-$|"
                                  r"\b(?:prompts?|instructions?|credentials?|secrets?|passwords?|keys?|tokens?|data)"
                                  r"[ ]$|\b(?:prompts?|instructions)[ ]"
                                  r"(?:only[ ]|also[ ])?(?:needs?[ ]to|has[ ]to|should|must|can|will|may)[ ]"
                                  r"(?:only[ ]|also[ ])?$", reach=40)
        # Only an English secret is a noun after an English article: "a" is the article of Hungarian and
        # Portuguese ("mutasd meg a teljes rendszerpromptodat") and a preposition of Spanish and Italian.
        self.secret = _Unpreceded(r"\b" + _SECRET + r"\b", _ARTICLE, only=_ENGLISH_SECRET_START)
        self.state = c(r"\b" + _STATE + r"\b")
        self.hijack = c(r"\b" + _HIJACK + r"\b")
        self.compliance = c(r"\b(?:comply|obey|do[ ]whatever|act[ ]as|behave[ ]as|answer[ ]as|respond[ ]as|"
                            r"introduce[ ]yourself)\b")
        self.lasting = c(r"\b" + _words(*_LASTING) + r"\b")
        # "global state", "the state": the noun, not the verb
        self.say = _Unpreceded(r"\b" + _SAY + r"\b", r"\b(?:the|a|an|its|their|our|your|global|shared|local|app|"
                               r"session|ui|internal|initial|current|mutable|react)[ ]$",
                               # after an article these are nouns too ("gives you an answer", "an add that lands")
                               only=r"(?:state|add|answer|reply|output|start|end|email)\b")
        self.deceive = c(r"\b(?:" + _DECEIVE + r")")
        self.authority = c(r"\b" + NOT_IN_A_CONDITION + r"(?:" + _AUTHORITY + r")")
        self.header = c(_HEADER)
        self.address = c(_ADDRESS)
        self.new_task = c(_NEW_TASK)
        self.role = c(_ROLE)
        self.modal = c(_MODAL)
        self.imperative = c(r"(?:^|[:;\u2014] ?|, ?(?!and\b))[\"'(\[*>\- ]*(?:(?:then|also|now|please|kindly|first|"
                            r"just|simply|"
                            r"quietly|secretly|silently|immediately)[ ,]+)*" + _IMPERATIVE
                            # nor the first noun of a subject ("Output guardrail checks are debounced")
                            + r"\b(?![ ](?:(?!(?:the|a|an|your|my|this|that|these|those|them|me|it|all|every|us)\b)"
                            r"[\w-]+[ ][\w-]+[ ])?(?:is|are|was|were|has|have)\b)")
        self.space = c(r"\s+")
        self.unbound = c(
            r"\b(?:without[ ](?:any[ ])?|no[ ])(?:restrictions|limits|rules|filters|limitations|censorship|guidelines|"
            r"content[ ]polic(?:y|ies)|safety[ ](?:rules|filters|guidelines)|(?:content[ ])?filtering|moderation|"
            r"safeguards|guardrails|checks)\b"
            r"|\b(?:sans|sin|sem|senza|ohne|zonder|bez|utan|uden|uten|ilman|tanpa|fara|nelkul)[ ](?:\w+[ ]){0,2}?"
            r"(?:restrictions?|restricciones|restriccion|restricoes|restricao|restrizioni|einschrankungen?|"
            r"beschrankungen?|beperkingen|ograniczen|omezeni|obmedzeni|begransningar|begraensninger|begrensninger|"
            r"rajoitu\w*|batasan|restrictii|restrictie|restriccion|restrizione|restricao|beperking|begransninger|ogranicze\w*|"
            r"korlatozas\w*|regles|reglas|regras|regole|"
            r"regeln|regels|zasad|filtres?|filtros|filtri|filter|filters)\b"
            r"|" + limits_with_model(r"sans|sin|sem|senza|ohne|zonder|bez|utan|uden|uten|ilman|tanpa|fara|nelkul",
                                     r"[ ](?:\w+[ ]){0,2}?", lower=True) +
            r"|\b(?:korlatozas\w*|szabaly\w*|kisitlama\w*|sinirlama\w*)[ ](?:nelkul\w*|olmayan)\b"
            r"|\b(?:bila|isiyo[ ]na|asiye[ ]na|walang)[ ](?:\w+[ ]){0,2}?"
            r"(?:vikwazo|mipaka|sheria|limitasyon|patakaran)\b")
        # Searched for presence only: a look-behind rather than a leading ``\w+``, which would try every split of
        # each word against every ending (the same matches, in time linear in the word).
        self.compound_control = c(r"(?<=\w)(?:richtlinien|anweisungen|regeln|vorgaben|befehle|vorschriften|instructies"
                                  r"|regels|"
                                  r"instructions|instrucciones|istruzioni|instrucoes|instruktioner|ohjeet)\b")
        self.send_verb = _Unpreceded(
            r"\b(?:send|email|forward|envoie\w*|envoyez|transmets|sende|schicke?|leite|envia\w*|envie\w*|mande\w*|"
            r"manda\w*|invia\w*|stuur|verstuur|wyslij|przeslij|posli|skicka|laheta|gonder|trimite|kuldd|kirim\w*|"
            r"gui)\b", _NEGATED)
        self.data_word = c(r"(?:data|daten|datos|dados|dati|donnees|gegevens|dane|kunden|clients|clientes|clienti|"
                           r"klant|klanten|klientow|customers?|passw\w*|contrase\w*|mots[ ]de[ ]passe|credentials|"
                           r"correos|e-?mails|histori|rozmow|konversation|keskustelu|sohbet|conversa|gesprek|asiakas|"
                           r"tiedot|musteri|veri|datele|clientilor|pelanggan|lieu|khach)")

    def _compile_phrases(self) -> None:
        """Phrase classes: unbound, override and state near their objects, reported speech."""
        c = deferred
        self.tell_user = c(r"(?:^|[:;,.] ?|\b(?:and|then|also|please|just)[ ])(?:tell|inform|warn|convince|remind)[ ]"
                           r"(?:the|your|all)[ ](?:users?|readers?|customers?|visitors?)\b"
                           r"(?<!your[ ]reader)(?<!your[ ]readers)"
                           r"(?![ ](?:that[ ])?(?:we|our|you))"
                           r"|\b(?:dile|dites|dis|sag|sagen[ ]sie|di'|diga|zeg)[ ](?:al|a[ ]l'|dem|all'|ao|a[ ]la|de)"
                           r"[ ]?"
                           r"(?:usuario|utilisateur|benutzer|nutzer|utente|usuario|gebruiker|lector|lecteur|leser)")
        self.email = c(r"[\w.+-]+@[\w-]+\.[\w.]+")
        self.every_answer = c(
            r"\b(?:end|ende|fin|final|fine|fim|einde|koncu|konci|slutet|slutningen|lopussa|sonunda|sfarsitul|vegen|"
            r"akhir|cuoi|termina|terminez|termine|beende|concludi|encerre|zakoncz|loppuun|mwishoni|dulo|konec|sonuna)\b[^.\n]{0,40}?\b(?:every|each|all|any|jeder|jedes|jede|aller|chaque|toute|toutes|cada|todas|"
            r"cualquier|qualsiasi|qualquer|tout|ogni|alle|jedweder|n'importe|quelque|kazda|kazdej|kazde|"
            r"ogni|tutte|elk|elke|iedere|kazdej|kazde|varje|hvert|hver|jokaisen|her|fiecarui|minden|setiap|moi|kila|bawat)\b"
            r"[^.\n]{0,30}?(?:answers?|repl(?:y|ies)|responses?|antwort\w*|reponse\w*|respuesta\w*|rispost\w*|"
            r"resposta\w*|antwoord\w*|odpowiedz\w*|odpowiedzi|odpov\w*|svar\w*|vastau\w*|yanit\w*|raspuns\w*|"
            r"valasz\w*|jawaban|tra[ ]loi|summar\w*|resume\w*|resumen\w*|riassunt\w*|zusammenfassung\w*|"
            r"samenvatting\w*|podsumowani\w*|jibu|majibu|sagot|cevab\w*)"
            r"|\b(?:every|each|minden|jokaisen|her)[ ](?:answer|reply|response|valasz\w*|vastaukse\w*|cevab\w*)[ ]"
            r"(?:\w+[ ]){0,2}?(?:end|vegere|vegen|loppuun|lopussa|sonuna|sonunda)\b")
        _output = r"(?:summary|summaries|response|responses|reply|replies|answer|answers|output)"
        self.output_rule = c(
            r"\b" + _output + r"\b[^.;]{0,60}?\b(?<!you[ ])(?:must|should|shall|needs?[ ]to|has[ ]to|have[ ]to|is[ ]to|"
            r"are[ ]to)\b"
            r"[^.;]{0,20}?\b(?:include|contain|end|start|begin|mention|say|state|carry|show|list|cite|be[ ]followed)\b"
            r"|\b(?:attach|add|append|include|insert|put|place|write|mention|prepend)\b[^;]{0,60}?\b(?:to|in|into|"
            r"at[ ]the[ ](?:end|start|top|bottom)[ ]of|with|under)[ ](?:any|every|each|all|the|your)[ ](?:\w+[ ])?"
            # "the output ZIP" is a file, not the answer
            + _output + r"\b(?![ ](?:zip|file|files|dir|directory|folder|path|stream|buffer|archive|log|bucket)\b)")
        self.user_conditional = c(r"\b(?:if|when|whenever)[ ](?:the|a)[ ](?:user|customer|visitor|reader|human)[ ]"
                                  r"(?:asks|"
                                  r"mentions|says|wants|requests|types|writes|inquires|enquires)\b")
        # not a purpose ("… so the agent can answer questions")
        # Not a generic model ("tasks where a stronger model can provide planning").
        self.model_may = _Unpreceded(
            r"(?<!\bso[ ])(?<!\bthat[ ])\b(?<!\bso[ ]the[ ])(?<!\bthat[ ]the[ ])" + _NOT_ASKED_OF + r"(?:the[ ])?"
            r"(?:assistant|model|ai|bot|agent|llm)s?[ ](?:may|" + _CAN + r"|is[ ](?:now[ ])?"
            # "will" predicts ("the LLM will give worse results") unless it is now, always or only
            r"(?:allowed|permitted|free)[ ]to|must|should|will(?=[ ](?:now|always|only|henceforth)\b))[ ]"
            r"(?:now[ ]|always[ ]|only[ ]|henceforth[ ])?(?:share|reveal|disclose|ignore|answer|"
            r"respond|send|give|provide|skip|bypass|output|print)\b"
            # an argument of a call the model makes ("the LLM must provide a `query` parameter")
            r"(?![ ](?:an?[ ]|the[ ])?`[^`]{1,40}`[ ](?:parameter|argument|field|value|key|property)s?\b)",
            r"\b(?:an?|where)[ ](?:[\w-]+[ ]){0,2}$")
        self.tool_call = c(
            r"(?<!can[ ])(?<!could[ ])(?<!may[ ])\b(?:call|run|invoke|execute|trigger|through|via)[ ](?:the[ ])?`?"
            r"[a-z][a-z0-9]*_[a-z0-9_]+\b(?![`(]|[ ](?:option|parameter|argument|flag|setting|field|variable|attribute|"
            r"method|class|module|param))|\buse[ ](?:the[ ])?`?[a-z][a-z0-9]*_[a-z0-9_]+`?[ ](?:tool|function)\b")
        self.go_ahead = c(r"\b(?:must|should|shall|will|now|go[ ]ahead|please|immediately|first|before[ ]answering)\b")
        self.evasion = c(
            r"\bso[ ](?:that[ ])?(?:the[ ])?(?:filters?|moderation|safety[ ](?:system|layer|checks?|filters?)"
            r"|monitoring)"
            r"[ ](?:do(?:es)?n't|do(?:es)?[ ]not|won't|will[ ]not|cannot|can't)[ ](?:see|notice|detect|catch|flag)\b"
            r"|\b(?:answer|reply|respond|write|output)\b[^.;]{0,30}?\bin[ ](?:base64|rot13|rot-13|hex|binary|morse|"
            r"leetspeak|l33t\w*|pig[ ]latin|reverse)\b"
            r"|\b(?:treat|consider|regard)\w*[^.;]{0,60}?\b(?:as|to[ ]be)[ ](?:\w+[ ]){0,2}?(?:system|trusted"
            r"|developer|"
            r"admin|operator)[ ](?:instructions?|messages?|prompts?|commands?|input)\b"
            r"|\b(?:treated|regarded|considered)[ ]as[ ](?:coming[ ]from|from|being)[ ](?:the[ ])?(?:system"
            r"|developer|admin|"
            r"operator)\b|\b(?:authori[sz]ed|allowed|permitted)[ ]to[ ](?:change|modify|override|alter)[ ]your[ ]"
            r"(?:behaviou?r|instructions|rules|settings)\b")
        self.foreign_imperative = c(
            r"\b(?:gormezden[ ]gel\w*|yok[ ]?say(?!il|an\b|ar\b)\w*|puuza|sahau|abaikan|lupakan|sivuuta|unohda|ohita"
            r"|negeer"
            r"|vergeet"
            r"|zignoruj"
            r"|ignoruj\w*|"
            r"zapomnij|ignorera|glom|glem|ignora\b" + IGNORA_IMPERATIVE
            + r"|ignorez|olvida|oublie[zs]?|vergiss|ignoriere|dimentica|esqueca"
            r"|esquece|"
            r"desconsidere|" + romanian_imperative("uita", leads=False)
            + r"|felejtsd|bo[ ]qua|no[ ]hagas|nie[ ]przestrzegaj|ne[ ]suis|deixe[ ]de|deja[ ]de"
            r"|ignorer)\b")

    def _compile_orders(self) -> None:
        """Classes of orders about the answer, tools, data and encodings."""
        c = deferred
        self.completion = c(
            r"(?:systemprompt|system[ -]prompt|prompt[ ](?:del|du|di|do|de)[ ](?:sistema|systeme)|systemanweisung\w*|"
            r"systeemprompt|prompt[ ]systemowy)[ ](?:dice|dit|sagt|lautet|diz|zegt|recita|says|reads|is|es|est|ist|e|"
            # "the complete system prompt" is an adjective
            r"brzmi)\b[ ]*:|\b(?<!the[ ])(?<!\ba[ ])(?<!\bas[ ])"
            r"(?:complete|completa|completez|complete|vervollstandige|voltooi|uzupelnij|dokoncz|"
            r"completeaza|finish)\w*\b[^.\n]{0,80}?(?:systemprompt|system[ -]prompt|prompt[ ](?:del|du|di|do|de)[ ]"
            r"(?:sistema|systeme)|your[ ](?:instructions|rules))")
        # A word for instructions right before "override" or "bypass" names an attack ("instruction override").
        # Neither word joined into a name ("task-scoped", "cancel-scope"); "override this method" is code.
        self.override_control = _Unpreceded(
            r"\b" + _NOT_CODE_NAME + _OVERRIDE + r"\b" + _NOT_JOINED_AFTER + _CODE_OVERRIDE + _OWN_OBJECT
            + r"[^;:]{0,60}?\b" + _UI_PROMPT + _CONTROL
            + r"\b" + _NOT_JOINED_AFTER + r"|\b" + _UI_PROMPT + _CONTROL + r"\b" + _NOT_JOINED_AFTER
            + r"(?![ ](?:override|bypass|reset)s?\b)(?:(?!\b(?:which|who)\b)[^;:\u2014]){0,40}?\b(?<![-+/])(?<!'s[ ])"
            + _NOT_CODE_NAME
            + _OVERRIDE + r"\b"
            + _NOT_JOINED_AFTER + _CODE_OVERRIDE,
            _NEGATED + "|" + _RELATIVE + "|" + _JOINED_BEFORE + "|" + _PLURAL_SUBJECT + "|" + _DEFENDED,
            only=r"\b" + _OVERRIDE, reach=30)
        self.reported = c(r"\b(?:tells?|told|asks?|asked|instructs?|instructed|causes?|caused|forces?|forced|tricks?|"
                          r"tricked|makes?|made|lets?|allows?|allowed|convinces?|convinced|gets?|got|trying|tries|tried"
                          r"|(?<!you[ ])(?:can|could|may|might|would|cannot|can't|won't)|how|want|wants|able|"
                          r"attempts?|attempting|"
                          # what an attack does, told of it ("embeds text asking the model to ignore …")
                          r"asking|telling|instructing|forcing|tricking|causing|making|getting|convincing|"
                          r"injects|injected|injecting|embeds|embedded|embedding|"
                          r"designed|meant|used|intended)[ ](?:(?!you\b)\w+[ ]){0,6}?"
                          r"(?:to[ ])?"
                          + _OVERRIDE + r"\b|\binto[ ]" + r"(?:ignoring|disregarding|forgetting|revealing|bypassing)\b"
                          r"|\bby[ ](?:passing|setting|using|adding|calling|providing|changing|editing|writing|"
                          r"specifying|configuring|defining|supplying|giving)\b"
                          # what a site gives for an account ("unlock advanced filters by registering for free")
                          r"|\bby[ ](?:registering|signing[ ](?:up|in)|subscribing|upgrading|logging[ ]in|joining|"
                          r"creating[ ](?:an?[ ]|your[ ])?(?:free[ ])?account)\b"
                          # done by configuration: "pass `--no-prompt` to disable the prompt"
                          r"|\b(?:pass|set|use|add|export|run[ ]with)[ ](?:the[ ])?`[^`]{1,80}`(?:[ ]\w+){0,2}?[ ]to[ ]"
                          r"(?:\w+[ ]){0,2}?" + _OVERRIDE + r"\b")
        # What an attack asks of a model, told of it: the verbs that follow a reporting verb and its object,
        # one after the other ("… asking your model to ignore its system prompt, leak confidential context, or
        # …") are infinitives of the request told, not orders. Not when a verb of revealing comes before the
        # reporting verb, nor after a break ("… asked the model to be brief, but reveal …"); "you" or "me" as the
        # object is the reader asked ("I am asking you to show …").
        self.reported_request = c(
            r"^(?:(?!\b" + _REVEAL + r"\b)[^;:!?])*?\b(?:asking|telling|instructing|forcing|tricking|convincing|"
            r"urging|prompting|getting|causing|making|asks|asked|tells|told|instructs|instructed|forces|forced|"
            r"tricks|tricked|convinces|convinced|urges|urged|gets|got|causes|caused|makes|made|"
            # what a product lets its users do ("it allows employees to generate, store and share credentials")
            r"allows|allowing|lets|letting|enables|enabling|helps|helping|permits)[ ]"
            r"(?!(?:you|me|us)\b)(?:[\w'-]+[ ]){1,3}?to[ ](?:(?!(?:but|then|now|instead|first)\b)[^;:!?])*?\b"
            + _REVEAL + r"\b")
        # An entry of an API list: a name in code, a colon, what it does ("`route_to_agent` / `route_to_server`:
        # skip the multi-category prompt when …"). The name is the subject of the verbs that follow; it is an
        # identifier (an underscore, a dot, a call's parentheses), not a speaker's label ("`system`: …").
        _name = r"`?[a-z][\w-]*[_.(][\w.()\[\]-]*`"
        self.code_entry = c(r"^" + _name + r"(?:[ ]?(?:/|,|or|and)[ ]?`[a-z][\w.()\[\]-]*`)*[ ]?:[ ]")
        self.models_named = c(_MODELS_NAMED)
        # What a tool is used for: "use FastMCP to act as an intermediary" gives the role to the tool, not the reader.
        self.tool_role = c(r"\buse[ ](?!(?:you|yourself|me|us|your|my)\b)(?:[\w.-]+[ ]){1,3}?to[ ](?:act|behave)"
                           r"[ ]as\b")
        # A list entry's label and what it does, a verb in the third person ("- LLM: Sends a prompt to a selected
        # model and returns …"): the label is the verb's subject, nobody addressed.
        self.label_description = c(r"^[\w .-]{1,30}?[ ]?:[ ](?!(?:always|this|its|yes|thus|unless|perhaps|regardless)"
                                   r"\b)[a-z]{2,}[^\Wsu']s\b")
        # Configuration does it: "use a custom `Rules` object to override these rules", "disable a prompt using
        # the `enabled` parameter", "set it with the `--no-filter` flag".
        self.configured = c(
            r"\b(?:pass|set|use|add|export|run[ ]with|provide|define|create)[ ](?:the[ ]|an?[ ]|your[ ])?(?:[\w-]+[ ])"
            r"{0,2}?`[^`]{1,80}`(?:[ ][\w-]+){0,2}?[ ]to[ ](?:\w+[ ]){0,2}?" + _OVERRIDE + r"\b"
            r"|\b" + _OVERRIDE + r"\b[^.;]{0,80}?\b(?:using|with|via|through|by[ ]setting)[ ](?:the[ ]|an?[ ]|your[ ])?"
            r"(?:`[^`]{1,80}`|[\w-]+[ ](?:parameter|option|flag|setting|argument|field|decorator|config\w*|"
            r"environment[ ]variable)s?\b)")
        self.state_control = c(r"\b" + _CONTROL + r"\b[^;:]{0,40}?\b" + _STATE_OFF + r"\b")
        # not the one something is given to ("donner un visage à vos prompts")
        self.your_control = c(r"(?<!\bto[ ])(?<!\ba[ ])\b(?:your|tus|tes|ton|ta|vos|votre|deine?n?|tuoi|tue|tua|tuo|"
                              r"suas|seus|sua|seu|jouw|je|"
                              r"swoje|twoje|swoich|twoich|dine|din|ditt|sinun)[ ](?:\w+[ ]){0,2}?" + _CONTROL + r"\b"
                              # the reader's code named after it ("your prompt functions return dicts")
                              r"(?![ ](?:functions?|methods?|handlers?|classes|decorators?|modules?|registry|"
                              r"endpoints?|components?|objects?)\b)")
        self.question = c(r"\bwhat[ ](?:does|do|did|is|are|were|was)[ ](?:your[ ](?:\w+[ ]){0,2}?(?:" + _SECRET
                          + r"|instructions|rules|guidelines|prompt)|the[ ](?:\w+[ ]){0,2}?(?:" + _SECRET
                          + r"))\b|\bprevious[ ]user'?s?[ ](?:question|message|"
                          r"request|input)|\bwhat[ ](?:instructions|rules|guidelines|system[ ]prompt|prompt)[ ]"
                          r"(?:were|are|"
                          r"have|did)[ ]you\b|\bwhat[ ](?:were|have)[ ]you[ ](?:been[ ])?(?:told|instructed|asked|"
                          r"programmed)\b")
        self.phishing = c(r"\bask[ ](?:the[ ]user|them|the[ ]reader)[ ](?:for|to[ ](?:enter|provide|share|confirm))"
                          r"[ ](?:\w+[ ]){0,3}?(?:passwords?|credit[ ]card|pin|social[ ]security|bank|login|"
                          r"credentials|one-time|otp|verification[ ]code|card[ ]number)")
        self.when_reading = c(r"\bwhen[ ](?:you[ ])?(?:are[ ])?(?:asked|summari[sz]e|summari[sz]ing|read|reading|"
                              r"process|processing|answer\w*|analy[sz]\w*)[ ](?:about[ ])?(?:this|the)[ ](?:page|"
                              r"article|document|text|site|email|content|post)\b|\b(?:when|whenever|before|after|while|"
                              r"if)[ ]you[ ](?:reply|respond|answer|summari[sz]e|talk|speak|are[ ]asked|"
                              # not the reader writing code ("when you write `@mcp.tool`, …")
                              r"write(?![ ](?:`|code\b|tests?\b|an?[ ](?:test|function|class|tool|plugin|decorator|"
                              r"handler|server)\b|your[ ]own\b|"
                              # (nor rules or checks of their own: "instant feedback while you write rules")
                              r"(?:(?:that|this|these|those|the|your)[ ])?(?:rules?|polic(?:y|ies)|"
                              r"config\w*|checks?|quer(?:y|ies)|scripts?)\b)))\b"
                              # the reader talking to the model ("when you reply to the LLM with more detail")
                              r"(?![ ](?:back[ ])?to[ ](?:the[ ]|an?[ ])?(?:llm|model|assistant|ai|agent|bot|chatbot)s?"
                              r"\b)")
        # verbs that put something into an answer (folded; many languages)
        self.add_verb = c(
            r"\b(?:append|add|include|insert|put|place|write|attach|prepend|fuge|schreib\w*|setze|hange|"
            r"ajout\w*|ecri\w*|mets|aggiung\w*|scriv\w*|metti|anad\w*|agreg\w*|escrib\w*|incluy\w*|pon|"
            r"adicion\w*|escrev\w*|inclua|coloque|ponha|voeg|zet|schrijf|dodaj\w*|napisz|umiesc\w*|ekle|yaz|"
            r"tambahkan|tulis\w*|sertakan|lagg|skriv|tilfoj|adaug\w*|scrie|pridej|pridavej|napis|lisaa|"
            r"kirjoita|tedd|ird|ongeza|andika|idagdag|isulat|termina|terminez|beende)\b")
        # The reader moves their own key into their own tool ("copy your API key and paste it into the CLI").
        self.local_paste = c(r"\b(?:prompt|instructions)[ ](?:that[ ])?you[ ]can[ ](?:copy|paste|use|adapt)\b"
                             r"|\bpaste[ ](?:it|them|this|that|the[ ]\w+)?[ ]?(?:in|into)[ ](?:the|your|a)[ ]"
                             r"(?:cli|terminal|shell|console|command[ ]line|editor|ide|notebook|\.env|env|environment|"
                             r"config\w*|settings|dashboard|app)\b"
                             r"|\b(?:set|export|store|save|put|keep)\b[^.;]{0,140}?\b(?:as|in|into)[ ]"
                             r"(?:an?[ ]|the[ ]|your[ ])?(?:environment[ ]variables?|env[ ]vars?|\.env[ ]file)\b"
                             # the reader's own keys, given to software ("the credentials you provide in
                             # `config.yaml`", "copy your API key and set it", "provide the API keys for the LLM you
                             # want to use")
                             r"|\b(?:credentials|api[ ]?keys?|tokens?|secrets?)[ ](?:that[ ])?you[ ](?:provide|supply|"
                             r"configure)\b"
                             r"|\bcopy[ ](?:your|the)[ ](?:\w+[ ])?(?:api[ ]?keys?|client[ ]secret|secret|token|"
                             r"credentials)\b[ ,]+(?:and[ ]|then[ ])+(?:enter|set|add|store|save|export|put)\b"
                             r"|\bprovide[ ](?:the[ ]|your[ ])?(?:correct[ ]|right[ ]|required[ ])?(?:api[ ]?keys?|"
                             r"credentials)\b[^.;]{0,60}?\bfor[ ](?:the|each|every|any)[ ](?:\w+[ ]){0,2}?you[ ]"
                             r"(?:want|plan|intend|need)[ ]to[ ]use\b")
        # Advice on the reader's own use of software ("when you use X with a client, send only …"; "useful
        # when you need to refresh tokens on each request").
        self.developer_condition = c(r"\b(?:useful|helpful|handy)[ ]when[ ]you[ ](?:need|want)[ ]to\b|"
            # when to use a feature ("use them when you want to return …", "use this when a run should …")
            r"^(?:\W*(?:then|also)[ ,]+)?(?:use|call|pass|set|enable|choose|pick|prefer)[ ](?:this|these|them|it|that|"
            r"(?:the[ ]|an?[ ])?`[^`]{1,80}`)[ ](?:\w+[ ]){0,3}?(?:when|if|whenever)[ ](?!you[ ](?:are|were)[ ]asked)|"
            r"^(?:if|when)[ ]what[ ]you[ ](?:want|need)[ ]is\b|"
            # where the reader has got to ("if you haven't built a server yet, start with …")
            r"^(?:if|unless)[ ]you[ ](?:haven't|have[ ]not|don't[ ]have|do[ ]not[ ]have)[ ](?:[\w-]+[ ]){1,4}?yet\b|"
            r"(?:^|[.:]\*\*[ ])(?:\W*(?:warning|note|tip|important|caution|info)\W*)?(?:when|if|whenever|once|before|"
            r"after|while)[ ]you(?:'re|[ ]are)?[ ](?:only[ ]|just[ ]|also[ ])?(?:use|using|call|calling|deploy\w*|run|"
            r"running|build\w*|configure|configuring|send|sending|want|need|prefer|"
            r"install\w*|integrate|integrating|connect\w*|set[ ]up|setting[ ]up|develop\w*|host\w*|self-host\w*)\b")
        # One way of working against another ("test other levels rather than carrying over the setting"),
        # not a changed answer: that needs a verb of answering.
        self.method_contrast = c(r"\b(?:rather[ ]than|instead[ ]of)(?:[ ]\w+ing\b|[ ]?$)")  # or wrapped there
        # Writing code is no answer ("… then write Python that chains `call_tool()` calls").
        self.answer_verb = c(r"\b(?:reply|respond|answer|say(?![ ](?:you|we|i|they)[ ](?:run|own|work|live|manage|sell|"
                             r"had|have|want|wanted|need|needed)\b)|write(?![ ](?:python|code|sql|scripts?|tests?|"
                             r"a[ ]script|a[ ]test|(?:an?[ ])?(?:functions?|class(?:es)?|programs?|methods?|"
                             r"quer(?:y|ies)|"
                             r"parsers?|helpers?|wrappers?))\b)|output|summari[sz]e|translate|tell|print|mention|"
                             # (not the noun: "shows you the current state of a suite")
                             # (claiming a thing is no statement: "claim a rebate")
                             r"recommend|praise|claim(?![ ](?:an?|your)[ ])|"
                             r"(?<!\bthe[ ])(?<!\bcurrent[ ])(?<!\bits[ ])(?<!\bin[ ])state"
                             r"(?![ ](?:is|was|are|were|of)\b))\b")
        # A migration note: "Use `streamText` with an `output` setting instead."
        # "… return a `ResourceLink(…)` instead": the code to write in place of other code.
        self.api_advice = c(r"^(?:\W*(?:then|instead)[ ,]+)?use[ ](?:the[ ])?[`\[]"
                            r"|\b(?:use|return|pass|raise|yield|call|set|subclass|add)[ ](?:an?[ ]|the[ ])?"
                            r"(?:`[^`]{1,80}`|--[\w-]+)[^.;`]{0,60}?[ ]instead\b"
                            r"|\b(?:instead[ ]of|rather[ ]than)[ ](?:only[ ]|just[ ])?(?:the[ ])?`")
        # A word that opens an item of a list with a verb (see :meth:`SentenceJudge._enumerated`).
        self.verb_item = c(r"(?:(?:and|or)[ ])?(?:" + _IMPERATIVE + "|" + _REVEAL + "|" + _OVERRIDE + r")\b")
        self.unleashed = c(r"\b(?:unrestricted|mode|restrictions|rules|filters|safety|confirmation)\b")

    def judge(self, sentence: str) -> str | None:
        """The rule a sentence breaks, or None; ``sentence`` is lower case, diacritics folded, one line.

        The classes are searched lazily, the most selective first, so a sentence that breaks nothing
        costs a few searches."""
        s = sentence
        if "  " in s or "\t" in s or "\n" in s:
            s = self.space.sub(" ", s)
        s = s.strip(" \t\"'`*>-#")
        tokens = _blank_punctuation(s).split()
        words = set(tokens)
        # Every combination speaks to the reader (second person, the model by name, an imperative first
        # word), or has a header's colon, a clause after a semicolon, an e-mail address: a sentence with
        # none of them is a statement about something else.
        if not tokens or (
            tokens[0] not in self.first_words and self.target_words.isdisjoint(words)
            and ":" not in s and ";" not in s and "@" not in s and not self._foreign_order(s)
        ):
            return None
        if s.count(",") >= 3:
            listed = self._enumerated(s)
            if listed is not s:
                s, words = listed, set(_blank_punctuation(listed).split())
        classes = _Classes(self, s, words)
        return self._orders(classes) or self._overrides(classes)

    def _enumerated(self, sentence: str) -> str:
        """``sentence`` with the items of an enumeration of names that open with a verb blanked ("… system prompts,
        messages, output contracts, …", "… retrieval snapshot, override logging, PII in logs …"): in a list of
        short noun phrases such a word names a thing, it orders nothing. Only lists of three or more short items
        (one to three words between commas) of which at least two open with no verb; never the words before the
        first comma (where an order opens its sentence), nor a list whose items are all orders ("ignore rules,
        reveal secrets, print prompt"). A name has no determiner: an item with one ("the docs", "your prompt") is
        a phrase of the sentence, and ends the list."""
        parts = sentence.split(",")
        short = [index > 0 and len(part.split()) <= 3 and ":" not in part and ";" not in part
                 and _DETERMINERS.isdisjoint(part.split()) for index, part in enumerate(parts)]
        verb = [flag and self.verb_item.match(part.strip(" \"'`*()[]")) is not None
                for flag, part in zip(short, parts, strict=True)]
        blank: list[int] = []
        index = 0
        while index < len(parts):
            end = index
            while end < len(parts) and short[end]:
                end += 1
            if end - index >= 3 and (end - index) - sum(verb[index:end]) >= 2:
                blank.extend(i for i in range(index, end) if verb[i])
            index = end + 1
        if not blank:
            return sentence
        for i in blank:
            parts[i] = " " + "x " * len(parts[i].split())
        return ",".join(parts)

    def _foreign_order(self, sentence: str) -> bool:
        """Whether ``sentence`` holds an imperative of another language that sets something aside. Its literal
        needs are asked first: most sentences hold none of them, and the pattern is tried at every position."""
        return _holds_each(sentence, self.literal_needs["foreign_imperative"]) and (
            self.foreign_imperative.search(sentence) is not None)

    @staticmethod
    def _orders(k: _Classes) -> str | None:
        """Orders about the answer, tools, data and encodings."""
        has, addressed, s = k.has, k.addressed, k.sentence
        # A model named only as the subject ("[Google Generative AI](…) include sources in the response")
        # describes what a product does; the rule is an order when it speaks to the reader.
        if has("tell_user") or (has("output_rule") and (has("imperative") or has("modal") or has("you")
                                                      or ":" in s)):
            return "instruction to change the answer"
        if (has("user_conditional") and (has("imperative") or has("say"))) or (
            has("model_may") and not _result_of_steps(k)
        ):
            return "text addressed to the model"
        if has("tool_call") and (has("go_ahead") or has("imperative") or has("modal") or addressed()):
            return "instruction to call a tool"
        if has("evasion"):
            return "instruction override"
        if has("foreign_imperative") and (has("control") or has("compound_control") or has("your_control")):
            return "instruction override"
        if has("email") and has("send_verb") and has("data_word"):
            return "instruction to send data away"
        # "at the end of every answer" orders something only with an imperative, a modal, the reader or "from
        # now on" ("at the end of each answer of the minister there was applause" is news)
        if has("every_answer") and (has("imperative") or has("modal") or addressed() or has("hijack")
                                    or has("add_verb")):
            return "instruction to change every answer"
        if has("completion"):
            return "prompt or data extraction"
        return None

    @staticmethod
    def _overrides(k: _Classes) -> str | None:
        """Instructions set aside, secrets asked for, the model addressed, authority claimed."""
        has, addressed = k.has, k.addressed
        if has("compound_control") and has("override") and (addressed() or has("imperative")):
            return "instruction override"
        if has("control") and not has("reported") and not has("configured") and not has("code_entry"):
            if has("override") and has("override_control") and (addressed() or has("imperative") or has("previous")):
                return "instruction override"
            if has("state") and has("state_control") and (addressed() or has("previous")):
                return "instruction override"
        if (has("secret") or has("your_control")) and has("reveal") and (addressed() or has("imperative")) and (
            not has("local_paste") and not has("reported_request")
        ):
            return "prompt or data extraction"
        if has("question"):
            return "prompt or data extraction"
        if has("unbound") and (has("imperative") or has("modal") or has("you")):
            return "instruction override"
        if has("header") or has("phishing"):
            return "text addressed to the model"
        if (has("address") or has("when_reading")) and (has("imperative") or has("modal") or has("say")) and (
            not has("label_description")
        ):
            return "text addressed to the model"
        if has("hijack") and has("say") and (has("imperative") or has("modal")) and not (
            has("developer_condition") or has("api_advice") or (has("method_contrast") and not has("answer_verb"))
            or (not has("lasting") and not has("answer_verb") and not has("compliance"))
        ):
            return "instruction to change the answer"
        if has("deceive"):
            return "hiding from the user"
        if has("authority") and (addressed() or has("imperative") or has("hijack") or has("unleashed")):
            return "false authority"
        if has("new_task") and (has("you") or (has("model") and not _models_only_named(k)) or has("imperative")):
            return "new instructions"
        if has("role") and (has("imperative") or has("modal") or has("override")) and not has("reported") and (
            not has("tool_role")
        ):
            return "role reassignment"
        return None


_DETERMINERS = frozenset({"the", "a", "an", "your", "my", "our", "their", "its", "this", "these", "those", "that",
                          "all", "any", "every", "each", "me", "us", "you", "it", "them", "everything", "anything"})
"""Words no name in a list holds (:meth:`SentenceJudge._enumerated`)."""


_Check = tuple[
    frozenset[str] | None, tuple[frozenset[str], re.Pattern[str] | None] | None, tuple[tuple[str, ...], ...],
    re.Pattern[str],
]
"""What :meth:`_Classes.has` tests for one class: words one of which the sentence needs, the class's gate
(first words, stems), groups of substrings of each of which it needs one, and the class's pattern."""


def _check(judge: SentenceJudge, name: str) -> _Check:
    """The tests of class ``name``, gathered once per judge."""
    gate = judge.gates.get(name)
    if gate is not None and gate[1] is not None:
        gate = (gate[0], compiled_now(gate[1]))
    pattern = getattr(judge, name)
    check = judge.checks[name] = (
        _WORD_NEEDS.get(name), gate, judge.literal_needs.get(name, ()),
        pattern.resolve() if isinstance(pattern, DeferredPattern) else pattern)
    return check


def _result_of_steps(k: _Classes) -> bool:
    """Whether the sentence opens with "now" and grants nothing a model keeps or obeys ("Now the agent can respond
    with weather queries", after the code that gives it the tool): what the steps shown have built can do."""
    return k.sentence.startswith("now ") and "can" in k.words and k.words.isdisjoint(_GRANTS) and (
        not k.has("secret") and not k.has("control"))


_GRANTS = frozenset({"may", "must", "should", "allowed", "permitted", "free", "will"})


def _models_only_named(k: _Classes) -> bool:
    """Whether every model the sentence mentions is one of a kind named by example ("data to AI models like
    Claude, Gemini, or others"): models spoken of, none spoken to."""
    return k.has("models_named") and k.judge.model.search(
        _models_named().sub(" ", k.sentence)) is None


@functools.cache
def _models_named() -> re.Pattern[str]:
    """The models of a kind and the names after them, up to six words ("models like claude, gemini, or others")."""
    return re.compile(_MODELS_NAMED + r"(?:[\w.-]+,?[ ]?(?:(?:or|and)[ ])?){1,6}")


def _holds_any(sentence: str, literals: tuple[str, ...]) -> bool:
    """Whether ``sentence`` holds one of ``literals`` (a plain loop: ``any`` over a generator costs a generator
    step per literal, and a class can need one of thirty)."""
    for literal in literals:  # noqa: SIM110 (the loop is the point: see above)
        if literal in sentence:
            return True
    return False


def _holds_each(sentence: str, groups: tuple[tuple[str, ...], ...]) -> bool:
    """Whether ``sentence`` holds one of the literals of each of ``groups``."""
    for group in groups:  # noqa: SIM110 (a plain loop, as in _holds_any)
        if not _holds_any(sentence, group):
            return False
    return True


class _Classes:
    """Which word classes one sentence has, each searched the first time a combination asks."""

    __slots__ = ("found", "judge", "sentence", "words")

    def __init__(self, judge: SentenceJudge, sentence: str, words: set[str]) -> None:
        self.judge = judge
        self.sentence = sentence
        self.words = words
        self.found: dict[str, bool] = {}

    def has(self, name: str) -> bool:
        found = self.found.get(name)
        if found is None:
            check = self.judge.checks.get(name) or _check(self.judge, name)
            needed, gate, literals, pattern = check
            s, words = self.sentence, self.words
            found = self.found[name] = (
                (needed is None or not needed.isdisjoint(words))
                and (gate is None or not gate[0].isdisjoint(words) or (gate[1] is not None
                                                                     and gate[1].search(s) is not None))
                and _holds_each(s, literals)
                and pattern.search(s) is not None
            )
        return found

    def addressed(self) -> bool:
        return self.has("you") or self.has("model")

ANCHORS = (
    "ignore", "disregard", "forget", "override", "bypass", "discard", "abandon", "revoke", "overrule", "nullify",
    "skip", "disable", "deactivate", "unlock", "reset", "supersede", "supersedes", "precedence",
    "pretend",     "quietly", "secretly",
    "authorises", "authorizes", "behave", "roleplay", "hidden", "priority",
    "admin", "maintenance", "debug", "genuine", "llm", "llms", "assistant", "chatbot", "approved", "objective",
    "obey", "prompt", "prompts", "instructions", "instruction", "guidelines", "guidance",
    "directive", "directives", "restrictions", "filters", "constraints", "persona", "tokens", "credentials",
    "suspended", "disabled", "revoked", "unrestricted", "uncensored", "rules", "policies",
    "ai", "rule", "summarize", "summarise", "summarizing",
    "summarising", "secret", "conflicts",
        # other Latin-script languages (ASCII-folded first words)
    "ignoriere", "ignorieren", "ignorier", "ignorierst", "ignoriert", "vergisst", "vergiss", "vergessen", "missachte",
    "beachte", "ohne", "ignorez",
    "ignorer", "oublie", "oubliez", "fais", "faites", "sans", "ignora", "ignorad", "olvida", "olvide",
    "olvidad", "olvidate", "omite", "descarta", "haz", "esqueca", "esquece", "desconsidere",
    "desconsidera", "dimentica", "dimenticate", "senza", "negeer", "vergeet", "zonder", "zignoruj",
    "ignoruj", "ignorujte", "zapomnij", "zapomen", "zapomente", "zabudni", "ignorera", "glom", "glem",
    "bortse", "unohda", "ohita", "sivuuta", "gormezden", "unut", "dikkate", "uita", "figyelmen",
    "hagyd", "hagyja", "felejtsd", "abaikan", "lupakan", "phot", "quen", "huwag", "kalimutan",
    "puuza", "sahau", "zeige", "zeig", "gib", "verrate", "nenne", "montre", "affiche", "revele", "revelez",
    "devoile", "donne", "muestra", "muestrame", "revela", "dime", "mostra", "mostrami", "rivela", "dimmi", "mostre",
    "toon", "geef", "pokaz", "ujawnij", "wypisz", "ukaz", "nayta", "kerro", "paljasta", "goster",
    "tampilkan", "tunjukkan", "ungkapkan", "dedahkan", "ipakita", "onyesha", "desormais", "hinweis", "nachricht",
    "notiz", "nota", "mensaje", "messaggio", "mensagem", "notitie", "uwaga", "schicke", "schick", "sende", "envia",
    "envie", "mande", "manda", "invia", "envoie", "envoyez", "transmets", "stuur", "verstuur", "wyslij", "skicka",
    "gonder", "trimite", "kirim", "kirimkan", "sans", "sin", "sem", "bez", "utan", "uden", "uten", "ilman", "tanpa",
    "fara", "systeemmelding", "systeembericht", "systemmeddelande", "systembesked", "catatan", "pesan", "notatka",
    "komunikat", "poznamka", "aviso", "ende", "fin", "fim", "einde", "koncu", "konci",
    "termina", "terminez", "termine", "beende", "concludi", "encerre", "zakoncz", "loppuun", "mwishoni", "dulo",
    "aggiungi", "adicione", "adiciona", "anade", "agrega", "ajoute", "ajoutez", "fuge", "voeg", "dodawaj", "tambahkan",
    "adauga", "lisaa", "negeren", "zignorowac", "bos", "revelar", "rivelare", "affichez", "montrez", "muestre",
    "mostri",
    "mostantol", "restriccion", "restricao", "restrictie", "restrizione", "nelkul", "nelkuli", "walang", "bila",
    "isiyo", "olmayan", "sfarsitul", "slutningen", "konec", "sonuna", "vegere", "zobraz", "afiseaza", "mutasd", "nayta",
    "onyesha", "ipakita",
    "slutet", "lopussa", "sonunda", "akhir", "systemprompt", "lautet", "recolha", "recopila", "raccogli", "verzamel",
    "yoksay", "angaben", "hinter", "fungieren", "fungierst", "fungiert", "fungierest", "agieren", "agierst",
    "zbierz",
    "sammle", "rassemble",
)
"""Words near which sentences are judged (first words of the lexicon's phrases, ASCII, lower case)."""

WEAK_ANCHORS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("without",), ("telling", "informing", "alerting", "notifying", "letting", "restrictions", "limits", "rules",
                    "filters", "limitations", "censorship", "guidelines", "confirmation", "asking", "policy",
                    "policies")),
    (("instead", "rather", "regardless", "respond", "reply"),
     ("claim", "recommend", "praise", "reader", "next", "word", "only", "summarizing", "summarising", "summarize",
      "summarise", "instructions", "prompt", "password", "answering", "future")),
    (("reveal", "print", "output", "repeat", "echo", "quote", "translate", "spell", "dump", "disclose", "display",
      "leak", "expose", "recite"),
     ("prompt", "instructions", "instruction", "rules", "rule", "guidelines", "configuration", "variables", "system",
      "context", "tokens", "history", "above", "everything", "transcript", "keys", "credentials", "confidential",
      "hidden", "secret", "initial", "original", "internal")),
    (("previous",), ("user", "instructions", "prompt", "rules", "guidelines")),
    (("asked",), ("article", "page", "document")),
    (("ask",), ("password", "passwords", "credit", "card", "pin", "bank", "login", "credentials", "otp",
                "verification")),
    (("remember",), ("future", "always", "memory", "conversations", "every", "instructions", "ignored", "here")),
    (("summary", "summaries", "response", "responses", "answer", "answers", "output"), ("must", "shall")),
    (("attach", "append", "prepend"), ()),
    (("pay",), ("attention",)),
    (("tool", "tools"), ("list", "every", "arguments", "definitions")),
    (("count",), ("restrictions", "rules", "limits", "filters", "guidelines", "policy", "policies")),
    (("asking",), ("developer", "admin", "creator", "operator")),
    (("administrator",), ("authorise", "authorize", "rights", "password", "prompt", "instructions", "configuration")),
    (("treat", "treated", "consider", "regard", "regarded", "considered", "authorised", "authorized"),
     ("system", "trusted", "developer", "admin", "operator", "behaviour", "behavior")),
    (("base64", "rot13", "leetspeak", "morse", "hex", "binary"), ("answer", "reply", "respond", "write", "output")),
    (("whoever", "reset", "moderation", "filtering", "authorise", "authorize", "grandmother", "grandfather",
      "grandma"), ()),
    (("gormezden", "yok", "abaikan", "lupakan", "sivuuta", "unohda", "ohita", "negeer", "vergeet", "zignoruj",
    "ignoruj",
      "zapomnij", "ignorera", "glom", "glem", "ignora", "ignorez", "olvida", "oublie", "oubliez", "vergiss",
      "ignoriere", "dimentica", "esqueca", "esquece", "desconsidere", "uita", "felejtsd", "hagas", "przestrzegaj",
      "suis", "deixe", "deja", "ignorer", "rispettare", "obedezcas", "befolge", "opvolgen", "kurallarini"), ()),
    (("ignored", "disregarded"), ("messages", "instructions", "rules", "user", "previous", "above", "earlier")),
    (("act",), ("want", "like")),
    (("escribe", "escribir", "enumera", "repite", "imprime", "scrivi", "elenca", "ripeti", "stampa", "schreibe",
      "schreib", "wiederhole", "nenne", "ecris", "ecrivez", "repete", "repetez", "escreva", "repita", "imprima",
      "herhaal", "schrijf", "noem", "napisz", "powtorz", "wypisz", "podaj"),
     ("instrucciones", "instructions", "istruzioni", "anweisungen", "instrucoes", "instructies", "instrukcje", "prompt",
      "reglas", "regole", "regeln", "regras", "lineamientos", "directrices", "consignes", "systemprompt")),
    (("folgen", "follow", "siguen", "suivent", "seguono", "seguem"),
     ("aufgaben", "anweisungen", "tareas", "instrucciones", "taches", "instructions", "compiti", "istruzioni",
      "tarefas", "instrucoes", "tasks")),
    (("tell", "inform", "warn", "convince", "remind"), ("user", "users", "reader", "readers", "customers",
                                                        "visitors")),
)
"""Common anchor words, each judged only where the stretch of text also holds one of a narrower set of words
(the combinations they start need one of them)."""

NEEDS = (
    "rule", "checks", "instructions", "instruction", "guidance", "guidelines", "guideline", "rules", "directive",
    "directives",
    "prompt", "prompts", "policy", "policies", "restrictions", "constraints", "filter", "filters", "safety",
    "programming", "training", "orders", "commands", "persona", "configuration", "directions", "ethical", "ethics",
    "guardrails", "limitations", "censorship", "moderation", "task", "context", "system", "message", "history",
    "transcript", "keys", "key", "credentials", "code", "user", "reader", "ai", "llm", "llms", "gpt", "chatgpt",
    "claude", "gemini", "copilot", "assistant", "assistants", "chatbot", "bot", "bots", "model", "models", "agent",
    "agents", "automated", "instead", "rather", "regardless", "now", "future", "every", "each", "quietly",
    "secretly", "approved", "authorized", "authorised", "creator", "developers", "role", "objective", "mode",
    "dan", "tokens", "above", "window", "variables", "command", "admin", "override", "note", "told", "says",
    "password", "passwords", "card", "pin", "bank", "login", "page", "article", "document",
    "anweisungen", "anweisung", "instruktionen", "befehle", "regeln", "vorgaben", "richtlinien", "systemprompt",
    "einschrankungen", "consignes", "regles", "instrucciones", "indicaciones", "reglas", "directrices", "normas",
    "restricciones", "istruzioni", "regole", "indicazioni", "direttive", "restrizioni", "instrucoes", "regras",
    "diretrizes", "orientacoes", "restricoes", "instructies", "opdrachten", "regels", "richtlijnen", "beperkingen",
    "systeemprompt", "instrukcje", "instrukcji", "polecenia", "zasady", "wytyczne", "ograniczen", "pokyny",
    "instrukce", "pravidla", "instruktioner", "instruktionerna", "instruksjoner", "regler", "riktlinjer", "ohjeet",
    "talimatlari", "talimatlar", "talimat", "kurallari", "instructiunile", "regulile", "utasitast", "instruksi",
    "arahan", "perintah", "aturan", "petunjuk", "huong", "chi", "quy", "tagubilin", "maagizo", "sheria",
    "sistema", "systeme", "ki", "ia", "antwort", "antwoord", "respuesta", "resposta", "risposta", "reponse",
    "odpowiedzi", "svar", "answer", "reply", "response", "lautet", "dice", "dit", "diz", "zegt", "sagt", "brzmi",
    "restrictions", "restriction", "filtres", "filtros", "filtri", "limites",
    "limiti", "sofort", "jetzt", "maintenant", "poi", "nu", "instrucciones", "jarjestelmakehotteesi",
    "rendszerpromptot", "systemprompt", "sistem", "sistemini", "angaben", "fungieren", "fungierst", "fungiert",
    "fungierest", "agieren", "agierst", "restriccion", "restrizione", "restricao", "restrictie", "beperking",
    "korlatozasok", "kisitlamasi", "vikwazo", "limitasyon", "mensaje", "invite", "promptul", "jibu", "sagot", "cevabin",
    "odpovedi", "raspuns", "valasz", "vastauksen", "svar", "prompt", "system", "mfumo", "batasan", "kisitlamasi",
)
"""Words a stretch of text must hold one of for the judge to run there (every combination needs one)."""

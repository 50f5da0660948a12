import { deu, eng, fra, ita, por, spa } from 'stopword';
import { PHRASE_CONCEPTS, STATUS_CONCEPTS } from './phrases.vocabulary.js';
import { type Language, languageOf, stemOf } from './stemming.js';
import { EXTRA_STOP_WORDS, KEEP_WORDS, WORD_MAP } from './words.vocabulary.js';

/**
 * Text → the words that say which problem a report is about. Everything a report quotes that
 * differs between two reports of one problem (ids, paths, numbers, timestamps, quoted values)
 * becomes a placeholder; phrasings of the frequent problems become concepts (`#timeout`); the
 * rest is lowercased, stripped of stop words and stemmed in the report's language (stemming.ts).
 * What a tool answers word for word whatever the agent's wording — an error code
 * (`charge_already_refunded`, `OVER_QUERY_LIMIT`, `Error 21608`) — becomes a term of its own
 * (`#charge_already_refunded`, `#e21608`) besides its words: two reports quoting it are about
 * the same answer of the tool, however differently they tell the rest.
 */

/** Only the head of a long report is read: it says what went wrong, the tail is usually a dump. */
export const MAX_TEXT_LENGTH = 4000;
/** At most this many distinct words per report, in reading order, so a pasted log cannot dominate. */
export const MAX_REPORT_TERMS = 64;

const STOP_WORDS: ReadonlySet<string> = new Set(
  [...eng, ...deu, ...spa, ...fra, ...ita, ...por, ...EXTRA_STOP_WORDS]
    .map(foldText)
    .filter((word) => !KEEP_WORDS.has(word)),
);

/**
 * A long run without a space is a blob — base64, minified code, a hex dump, a path of a path —
 * never words. Taking it out first also bounds what the patterns below scan per word, so no
 * input can make them backtrack for long (see grouping-engine.security.test.ts).
 */
const BLOB = /\S{160,}/g;

/** Ordered: each pattern sees the text the earlier ones left, so a URL is gone before paths. */
const PLACEHOLDERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>)]+/g, ' #url '],
  [/\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g, ' #email '],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, ' #id '],
  // ISO timestamps and dates, then clock times, then the usual written dates.
  [
    /\b\d{4}-\d{1,2}-\d{1,2}(?:[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?\b/g,
    ' #time ',
  ],
  [/\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[ap]m)?\b/g, ' #time '],
  [/\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b/g, ' #time '],
  // Paths: Windows, then Unix-like with at least two segments or a leading ~ or ./
  [/\b[a-z]:\\[^\s"'`]+/g, ' #path '],
  [/(?:^|(?<=[\s(="'`:]))(?:~|\.{1,2})?(?:\/[\w.@%+-]+){2,}\/?/g, ' #path '],
  [/(?:^|(?<=[\s(="'`:]))(?:~|\.{1,2})\/[\w.@%+-]+/g, ' #path '],
  // Hex: 0x…, or a long run of hex digits with at least one digit (commit shas, request ids).
  [/\b0x[0-9a-f]+\b/g, ' #hex '],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/g, ' #hex '],
];

/**
 * Identifiers mixing letters and digits (req_8F3k2, ord-20391, b7e2f…) become one placeholder;
 * short names with a digit or two (utf-8, latin-1, h1, s3, oauth2) are words and stay.
 */
const MIXED_IDENTIFIER = /\b(?=[\w-]*\d)(?=[\w-]*[a-z])[a-z0-9]+(?:[_-][a-z0-9]+)*\b/g;
function isIdentifier(word: string): boolean {
  return (word.match(/\d/g)?.length ?? 0) >= 3 || word.length >= 8;
}

/** A 4xx/5xx code reads as a status next to these words ("returned 429", "HTTP 401", "403 Forbidden"). */
const STATUS_CODE =
  /\b(?:(?:http|status|code|error|returned|returns|returning|got|gets|with|an?|received|answered|responds?|response)\s*[:=]?\s*(\d{3})|(\d{3})(?=\s*(?:error|status|response|code|from|[a-z]+ (?:error|response))\b))/g;

/**
 * Numbers become #num; their unit, when they have one, becomes what it measures — a duration
 * or a size — since "after 30 s" and "after two minutes" say the same, and "1 MB" and "8.4 MB" too.
 */
const NUMBER =
  /[+-]?\b\d[\d,._]*(?:\s?(ms|millis(?:econds?)?|s|secs?|seconds?|sekunden|segundos|secondes|secondi|m|mins?|minutes?|minuten|minutos|minuti|h|hrs?|hours?|stunden|horas|heures|ore|(?:k|m|g|t)i?b|bytes?|mo|go|ko|%))?\b/g;
const SIZE_UNIT = /^(?:(?:k|m|g|t)i?b|bytes?|mo|go|ko)$/;
/[+-]?\b\d[\d,._]*(?:\s?(?:ms|s|sec|secs|seconds?|sekunden|segundos|secondes|m|min|mins|minutes?|minuten|minutos|h|hours?|stunden|horas|heures|kb|mb|gb|b|bytes|%))?\b/g;

/**
 * A bound an error states (`at most 100`, `limit 2000`, `≤ 100`, `mehr als 20`) is what the tool
 * answers word for word, whatever the agent's own value was: the bound's number becomes a code
 * term (`#n100`, see similarity.ts isCode), so one limit's reports meet on it and two limits of
 * one tool part. Not a duration (`more than 20 minutes`): that is how long the agent waited.
 */
const BOUND =
  /(?:\b(?:max(?:imum)?|limit(?:ed|s)?(?: (?:of|is|to))?|at most|up to|more than|greater than|larger than|over|exceeds?|exceeded|above|mehr als|maximal|hochstens|mas de|hasta|plus de|au maximum|al massimo|oltre|piu di|mais de)|≤|<=|<)\s*[`'"]?(\d[\d,._]*\d|\d)(?!\d|[,.]\d|\s?(?:ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|sekunden|minuten|stunden|tage|segundos|minutos|horas|dias|secondes|heures|jours|secondi|minuti|ore|giorni)\b)/g;

/**
 * A snake_case or SCREAMING_CASE identifier of letters: an error code or a parameter's name
 * (ids with digits are placeholders already). Never one that starts with an underscore, so
 * `__proto__` cannot become a term.
 */
const CODE_IDENTIFIER = /\b[a-z]+(?:_[a-z]+)+\b/g;
/**
 * The same identifier written in SCREAMING_CASE in the report (`OVER_QUERY_LIMIT`, `API_TOKEN`):
 * an error code, or as often a value of the agent's own (an environment variable's name). Its
 * term ends in an underscore (`#api_token_`), so the engine can tell it from a lower-case one
 * (`#label_ids`, `#not_in_channel`): the name of a field or an error as the tool spells it.
 */
const SHOUTED_IDENTIFIER = /\b[A-Z]+(?:_[A-Z]+)+\b/g;
export function isShoutedCode(term: string): boolean {
  return term.endsWith('_');
}
/** A numeric error code: 4–6 digits after "error", "code", "errno" or "sqlstate", or opening the text. */
const NUMERIC_CODE = /\b(?:error|code|errno|sqlstate)\W{0,3}(\d{4,6})\b|^\s*(\d{4,6})(?=:)/g;

/** A quoted value: double, back or typographic quotes anywhere; single quotes only around a span. */
const QUOTED =
  /"([^"\n]{0,120})"|`([^`\n]{0,120})`|[“«„]([^”»“\n]{0,120})[”»“]|(?<=^|[\s(:=,])'([^'\n]{1,120})'(?=$|[\s.,;:)!?])/g;

/**
 * Lowercase without diacritics (`Zeitüberschreitung` → `zeituberschreitung`), compatibility-folded,
 * with the typographic apostrophe of French and Italian text (`d’attente`) made plain.
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[’ʼ]/g, "'");
}

/** Splits identifiers into their words before lowercasing hides the boundaries: nextPageToken → next Page Token. */
function splitCamelCase(text: string): string {
  return text.replace(/(?<![\p{L}\p{N}])[\p{L}\p{N}]*\p{Ll}\p{Lu}[\p{L}\p{N}]*/gu, (word) => {
    if (/^\p{L}\p{Ll}+(?:\p{Lu}\p{Ll}+)+$/u.test(word))
      return word.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2');
    // Case flipping inside a long word is a token or an id (eyJwIjoyfQ, aZ3kQ9xT), not words.
    return word.length >= 8 ? ' #id ' : word;
  });
}

/**
 * A quoted value becomes a placeholder; quoted words stay. A quoted phrase ("too many series
 * (limit #num)") is an error message and the best evidence of which problem this is — its ids
 * and numbers are placeholders already — and a quoted word ('since', `page_token`) names a
 * parameter. What is left is a value: one token with digits or symbols in it ("2024/13/01").
 */
function unquote(text: string): string {
  return text.replace(QUOTED, (...groups: unknown[]) => {
    const inner = String(groups.slice(1, 5).find((group) => group !== undefined) ?? '').trim();
    const words = inner.replace(/#[a-z]+/g, ' ').match(/\p{L}{2,}/gu) ?? [];
    const isPhrase = words.length >= 2;
    const isWord = /^[\p{L}_.:/-]+$/u.test(inner);
    return isPhrase || isWord ? ` ${inner} ` : ' #quoted ';
  });
}

/**
 * What the agent was doing when it happened ("I was asked to refund the customer's last charge,
 * so I called…", "Context: the user wanted me to…", "While trying to…:") is the same for every
 * problem a workflow meets: the clause is read as nothing, so two problems of one task do not
 * join on it. It ends at the sentence's end or a colon.
 */
const NARRATION =
  /(?:^|(?<=[.!?]\s))\s*(?:context:\s*)?(?:i was (?:asked|told|trying|supposed) to|the user (?:wanted|asked|needed) (?:me )?to|while (?:trying|attempting) to|my task (?:was|is) to|i(?: am|'m) trying to|task:|goal:)[^.:!?\n]*[.:!?]?/g;

/**
 * A parameter or field name in lower camelCase (`assigneeId`, `nextPageToken`) is the same name
 * as its snake_case spelling (`assignee_id`): it becomes that spelling, and so a code term of its
 * own (CODE_IDENTIFIER), so two fields named are two problems as two error codes are. Names that
 * start with a capital (`GitHub`, `JavaScript`) are products, not fields, and stay words.
 */
const LOWER_CAMEL = /(?<![\p{L}\p{N}_])\p{Ll}{2,}(?:\p{Lu}\p{Ll}+){1,3}(?![\p{L}\p{N}_])/gu;
function snakeCased(text: string): string {
  return text.replace(LOWER_CAMEL, (word) => word.replace(/(\p{Ll})(\p{Lu})/gu, '$1_$2'));
}

/** The folded text with placeholders and concepts in, ready to split into words. */
export function normaliseText(raw: string): string {
  const head = snakeCased(raw.slice(0, MAX_TEXT_LENGTH).replace(BLOB, ' #blob '));
  const shouted = new Set(head.match(SHOUTED_IDENTIFIER)?.map((code) => code.toLowerCase()));
  let text = foldText(splitCamelCase(head)).replace(NARRATION, ' ');
  for (const [pattern, placeholder] of PLACEHOLDERS) text = text.replace(pattern, placeholder);
  text = text.replace(
    CODE_IDENTIFIER,
    (code) => ` #${code}${shouted.has(code) ? '_' : ''} ${code} `,
  );
  text = text.replace(MIXED_IDENTIFIER, (word) => (isIdentifier(word) ? ' #id ' : word));
  text = text.replace(
    NUMERIC_CODE,
    (match, after?: string, opening?: string) => `${match} #e${after ?? opening} `,
  );
  text = text.replace(STATUS_CODE, (match, before?: string, after?: string) => {
    const concept = STATUS_CONCEPTS[before ?? after ?? ''];
    return concept ? match.replace(/\d{3}/, ` ${concept} `) : match;
  });
  text = text.replace(
    BOUND,
    (match, value: string) => ` #n${value.replace(/[,._]/g, '')} ${match}`,
  );
  text = text.replace(NUMBER, (_match, unit?: string) => {
    if (!unit || unit === '%') return ' #num ';
    return SIZE_UNIT.test(unit) ? ' #num #size ' : ' #num #duration ';
  });
  text = unquote(text);
  for (const [pattern, concept] of PHRASE_CONCEPTS) text = text.replace(pattern, ` ${concept} `);
  return text;
}

export interface Term {
  /** What the engine compares: a concept (#timeout), a placeholder (#path) or a stem (pagin). */
  readonly term: string;
  /** The word as the report wrote it, for reasons a developer reads. */
  readonly word: string;
}

/** The distinct terms of a text, in reading order, at most MAX_REPORT_TERMS. */
export function termsOf(raw: string, extraStopWords: ReadonlySet<string> = new Set()): Term[] {
  const seen = new Set<string>();
  const terms: Term[] = [];
  const words = normaliseText(raw).match(/#[a-z][a-z0-9_]*|[\p{L}\p{N}]+/gu) ?? [];
  const language = languageOf(words);
  for (const word of words) {
    for (const mapped of (WORD_MAP[word] ?? word).split(' ')) {
      // A word the map translated is English now.
      const term = termOf(mapped, extraStopWords, mapped === word ? language : 'english');
      if (term === null || seen.has(term)) continue;
      seen.add(term);
      terms.push({ term, word: mapped.startsWith('#') ? readable(mapped) : word });
      if (terms.length === MAX_REPORT_TERMS) return terms;
      // A word its language's stemmer leaves as it is (`copy`, `bucket`, `dependency` in a
      // Spanish or German report) is often an English one the agent borrowed: its English stem
      // too, so it meets the English reports of the problem.
      if (language !== 'english' && term === word) {
        const english = termOf(word, extraStopWords, 'english');
        if (english !== null && !seen.has(english)) {
          seen.add(english);
          terms.push({ term: english, word });
          if (terms.length === MAX_REPORT_TERMS) return terms;
        }
      }
    }
  }
  return terms;
}

/** A `#` term as a reason names it: a code as written, a bound as its number. */
function readable(term: string): string {
  return /^#n\d/.test(term) ? term.slice(2) : term.slice(1).replace(/_$/, '');
}

function termOf(
  word: string,
  extraStopWords: ReadonlySet<string>,
  language: Language,
): string | null {
  if (word.startsWith('#')) return extraStopWords.has(word) ? null : word;
  if (word.length < 2 || /^\d+$/.test(word)) return null;
  if (STOP_WORDS.has(word) || extraStopWords.has(word)) return null;
  const stem = stemOf(word, language);
  if (extraStopWords.has(stem)) return null;
  // Another form of a word the map translates (`Rechnungen` beside `Rechnung`): the same English.
  const english = language === 'english' ? undefined : translatedStems(language).get(stem);
  if (english === undefined) return stem;
  return english.startsWith('#') ? english : stemOf(english);
}

/**
 * Per language, the stem of every word WORD_MAP translates (stemmed as that language stems) →
 * its English word or concept, so the map's one form of a word reaches its other forms. Stems
 * shorter than MIN_TRANSLATED_STEM are left out: too many words of a language share them.
 * Built on a language's first report (a few hundred stems).
 */
function translatedStems(language: Language): ReadonlyMap<string, string> {
  let map = translated.get(language);
  if (!map) {
    const built = new Map<string, string>();
    for (const [word, english] of Object.entries(WORD_MAP)) {
      if (english.includes(' ')) continue;
      const stem = stemOf(word, language);
      if (stem.length >= MIN_TRANSLATED_STEM && !built.has(stem)) built.set(stem, english);
    }
    translated.set(language, built);
    map = built;
  }
  return map;
}
const MIN_TRANSLATED_STEM = 4;
const translated = new Map<Language, ReadonlyMap<string, string>>();

/**
 * A stem's character trigrams, padded (`~^ph`, `~pho`, `~hot`, `~oto`, `~to$`): two spellings of
 * one word — a typo (`pohto`), another language's cognate (`paramètre`, `défaut`), a compound
 * (`Validierungsfehler`) — share most of them where they share no stem. Short stems have none:
 * their trigrams are in too many words.
 */
export function gramsOf(stem: string): string[] {
  let grams = gramCache.get(stem);
  if (!grams) {
    grams = [];
    if (stem.length >= MIN_GRAM_STEM) {
      const padded = `^${stem}$`;
      for (let i = 0; i + 3 <= padded.length; i++) grams.push(`~${padded.slice(i, i + 3)}`);
    }
    if (gramCache.size >= 20_000) gramCache.clear();
    gramCache.set(stem, grams);
  }
  return grams;
}
const MIN_GRAM_STEM = 4;
const gramCache = new Map<string, string[]>();

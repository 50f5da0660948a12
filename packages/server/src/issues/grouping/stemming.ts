/// <reference path="./snowball-stemmers.d.ts" />
// The package ships no types, and the test project compiles this file without the src folder.
import { newStemmer, type Stemmer } from 'snowball-stemmers';
import { deu, eng, fra, ita, por, spa } from 'stopword';

/**
 * Words → stems, in the report's own language. Agents write English mostly, then German,
 * Spanish, French, Italian and Portuguese; a report's language is the one whose stop words it
 * uses most (English on a tie or when it uses none, since error texts quoted inside another
 * language are English), and its words are stemmed with that language's Snowball stemmer
 * (`snowball-stemmers`, the Snowball project's algorithms ported to JavaScript), so "Dateien"
 * and "Datei", "archivos" and "archivo" meet, where an English stemmer leaves them apart.
 */
export type Language = 'english' | 'german' | 'spanish' | 'french' | 'italian' | 'portuguese';

const LANGUAGES: ReadonlyArray<readonly [Language, ReadonlySet<string>]> = [
  ['english', new Set(eng)],
  ['german', new Set(deu)],
  ['spanish', new Set(spa)],
  ['french', new Set(fra)],
  ['italian', new Set(ita)],
  ['portuguese', new Set(por)],
];

/** The language whose stop words most of `words` are (folded words, as the engine splits them). */
export function languageOf(words: readonly string[]): Language {
  let best: Language = 'english';
  let bestHits = 0;
  for (const [language, stopWords] of LANGUAGES) {
    let hits = 0;
    for (const word of words) if (stopWords.has(word)) hits++;
    // Strictly more: English wins ties, being first.
    if (hits > bestHits) {
      best = language;
      bestHits = hits;
    }
  }
  return best;
}

const stemmers = new Map<Language, Stemmer>();
function stemmerOf(language: Language): Stemmer {
  let stemmer = stemmers.get(language);
  if (!stemmer) {
    stemmer = newStemmer(language);
    stemmers.set(language, stemmer);
  }
  return stemmer;
}

/**
 * Stemming is the costliest step (the port takes ~25 µs a word) and reports reuse a small
 * vocabulary, so stems are remembered per language; the map is emptied when full rather than
 * kept in LRU order, which is simpler and costs one refill.
 */
const STEM_CACHE_SIZE = 20_000;
const stems = new Map<string, string>();
export function stemOf(word: string, language: Language = 'english'): string {
  const key = language === 'english' ? word : `${language}:${word}`;
  let stem = stems.get(key);
  if (stem === undefined) {
    if (stems.size >= STEM_CACHE_SIZE) stems.clear();
    stem = stemmerOf(language).stem(word);
    stems.set(key, stem);
  }
  return stem;
}

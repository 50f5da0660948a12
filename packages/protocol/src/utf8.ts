/** Bytes of a string in UTF-8, without allocating the encoding (a lone surrogate counts 3). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2; // a pair: 2 code units, 4 bytes
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

/** A UTF-16 code unit of a surrogate pair standing alone (with `u`, a valid pair is one code point). */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Whether a string is valid Unicode: JSON may escape half of a surrogate pair (`"\ud800"`),
 * which has no UTF-8 encoding. SQLite would store the invalid bytes and PostgreSQL a U+FFFD,
 * so such text is refused (String.prototype.isWellFormed is ES2024, newer than our target).
 */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

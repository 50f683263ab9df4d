/**
 * Windows-1252 text read as Latin-1: csv-parse reads it as Latin-1, one character a byte, and the fields
 * are mapped after; the two differ only in 0x80-0x9F.
 */

// Windows-1252's characters for 0x80-0x9F (undefined bytes keep Latin-1's control characters).
const WINDOWS_1252 = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const C1 = /[\u0080-\u009f]/;

/** Fields read as Latin-1, as windows-1252 has them. @param {string[]} fields */
export function windows1252Fields(fields) {
  for (let i = 0; i < fields.length; i++) {
    if (C1.test(fields[i])) fields[i] = fields[i].replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252[c.charCodeAt(0) - 0x80]);
  }
  return fields;
}

/**
 * What a word is, for queries and for the vocabulary alike: a run of letters, combining
 * marks and digits. Everything else (tsquery operators, quotes, backslashes, hyphens)
 * separates words, as the full-text parser would treat it anyway: "usb-c" is "usb" and "c".
 */
export const SEARCH_WORD = /[\p{L}\p{M}\p{N}]+/gu;

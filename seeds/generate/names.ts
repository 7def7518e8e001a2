/**
 * Model-name patterns (`Galaxy S{22-26}{| Ultra|+}`) compiled once and expanded per product.
 */
import type { Random } from '../random.ts';

type Token = string | { alternatives: readonly string[] } | { from: number; to: number };

const compiled = new Map<string, readonly Token[]>();

function compile(pattern: string): readonly Token[] {
  const tokens: Token[] = [];
  let rest = pattern;
  for (let open = rest.indexOf('{'); open >= 0; open = rest.indexOf('{')) {
    const close = rest.indexOf('}', open);
    if (close < 0) throw new Error(`vocabulary: unclosed '{' in "${pattern}"`);
    if (open > 0) tokens.push(rest.slice(0, open));
    const inner = rest.slice(open + 1, close);
    // A bare "a-b" of integers is a range; anything with '|' is a list (lens names such as
    // "24-70|70-200" contain hyphens too).
    const range = /^(\d+)-(\d+)$/.exec(inner);
    tokens.push(
      range ? { from: Number(range[1]), to: Number(range[2]) } : { alternatives: inner.split('|') },
    );
    rest = rest.slice(close + 1);
  }
  if (rest) tokens.push(rest);
  return tokens;
}

function tokensOf(pattern: string): readonly Token[] {
  let tokens = compiled.get(pattern);
  if (tokens === undefined) {
    tokens = compile(pattern);
    compiled.set(pattern, tokens);
  }
  return tokens;
}

export function expandPattern(pattern: string, random: Random): string {
  const tokens = tokensOf(pattern);
  let text = '';
  for (const token of tokens) {
    if (typeof token === 'string') text += token;
    else if ('from' in token) text += random.int(token.from, token.to);
    else text += random.pick(token.alternatives);
  }
  return text;
}

/** Collapses the doubled and trailing spaces that empty alternatives leave behind. */
export function tidyName(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/ \)/g, ')').trim();
}

/** Every text a pattern can expand to (for checking data against it, not per product). */
export function expansionsOf(pattern: string): string[] {
  let texts = [''];
  for (const token of tokensOf(pattern)) {
    const choices =
      typeof token === 'string'
        ? [token]
        : 'from' in token
          ? Array.from({ length: token.to - token.from + 1 }, (_, i) => String(token.from + i))
          : token.alternatives;
    texts = texts.flatMap((text) => choices.map((choice) => text + choice));
  }
  return texts;
}

/**
 * The year a model came out, read from the number in its name where makers count their
 * generations by the year (a Galaxy S24 is 2024's, an iPhone 15 is 2023's, an LG OLED C3 is
 * 2023's). Keyed by leaf category slug; `pattern` matches the model (without the brand) and
 * its first group is the generation: a number, or a letter looked up in `letters`. A family
 * with a reference price takes the reference's year first; any other family draws its year
 * once, so all its members agree.
 */
export interface ModelYearRule {
  pattern: RegExp;
  /** Year = generation + offset. */
  offset?: number;
  /** Year by generation letter (Samsung's TVs: C is 2023). */
  letters?: Readonly<Record<string, number>>;
}

const SAMSUNG_TV_LETTERS = { C: 2023, D: 2024, F: 2025 };

export const MODEL_YEARS: Readonly<Record<string, readonly ModelYearRule[]>> = {
  'mobile-phones': [
    { pattern: /^Galaxy S(\d\d)/, offset: 2000 },
    { pattern: /^Galaxy Z (?:Flip|Fold)(\d)/, offset: 2018 },
    { pattern: /^iPhone (\d\d)/, offset: 2008 },
    { pattern: /^Pixel (\d+)/, offset: 2015 },
    { pattern: /^OnePlus (\d\d)/, offset: 2012 },
    { pattern: /^Xiaomi (\d\d)/, offset: 2010 },
    { pattern: /^Redmi Note (\d\d)/, offset: 2011 },
    { pattern: /^Poco X(\d)/, offset: 2018 },
  ],
  tablets: [{ pattern: /^Galaxy Tab S(\d+)/, offset: 2014 }],
  smartwatches: [
    { pattern: /^Watch Series (\d+)/, offset: 2014 },
    { pattern: /^Galaxy Watch(\d)/, offset: 2017 },
  ],
  tvs: [
    { pattern: /^OLED[BCG](\d)/, offset: 2020 },
    { pattern: /^QN?\d\d([CDF])$/, letters: SAMSUNG_TV_LETTERS },
    { pattern: /^S9[05]([DF]) OLED$/, letters: SAMSUNG_TV_LETTERS },
    { pattern: /^Bravia XR A\d\d(L)$/, letters: { L: 2023 } },
  ],
};

/** The year a rule gives a model, or undefined when no rule of the list matches it. */
export function modelYear(rules: readonly ModelYearRule[], model: string): number | undefined {
  for (const rule of rules) {
    const generation = rule.pattern.exec(model)?.[1];
    if (generation === undefined) continue;
    return rule.letters ? rule.letters[generation] : Number(generation) + (rule.offset ?? 0);
  }
  return undefined;
}

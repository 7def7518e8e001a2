/**
 * Reads the Prometheus text exposition format (version 0.0.4) strictly enough to fail a test
 * on a malformed line: every sample's family is declared with HELP and TYPE first, names and
 * labels follow the format's grammar, and every value is a number.
 */
import type { App } from '../../src/app.ts';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name → its TYPE. */
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = `([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`;
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL},?)*)\\})? (\\S+)(?: -?\\d+)?$`);
const HELP = new RegExp(`^# HELP (${NAME}) .*$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
// Prometheus reads Inf and NaN in any case (prom-client writes `Nan`).
const VALUE = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf|nan)$/i;

/** The family a sample belongs to: histogram and summary samples carry a suffix. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && ['histogram', 'summary'].includes(types.get(base) ?? '')) {
      return base;
    }
  }
  return undefined;
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const helped = new Set<string>();
  const samples: Sample[] = [];
  text.split('\n').forEach((line, index) => {
    const where = `line ${index + 1}: ${line}`;
    if (line === '') return;
    const help = HELP.exec(line);
    if (help) {
      helped.add(help[1]!);
      return;
    }
    const type = TYPE.exec(line);
    if (type) {
      if (types.has(type[1]!)) throw new Error(`TYPE declared twice, ${where}`);
      types.set(type[1]!, type[2]!);
      return;
    }
    if (line.startsWith('#')) throw new Error(`unexpected comment, ${where}`);
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a sample, ${where}`);
    const [, name, labelText = '', , , value] = sample;
    const family = familyOf(name!, types);
    if (family === undefined || !helped.has(family)) {
      throw new Error(`sample before its HELP and TYPE, ${where}`);
    }
    if (!VALUE.test(value!)) throw new Error(`not a number, ${where}`);
    const labels: Record<string, string> = {};
    for (const [, label, labelValue] of labelText.matchAll(new RegExp(LABEL, 'g'))) {
      labels[label!] = labelValue!;
    }
    samples.push({ name: name!, labels, value: Number(value) });
  });
  return { types, samples };
}

/** The sum of a metric's samples whose labels include `labels` (0 when there is none). */
export function valueOf(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number {
  return exposition.samples
    .filter(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** GET /metrics of an app, parsed. */
export async function scrape(app: App): Promise<Exposition> {
  const response = await app.fetch(new Request('http://test/metrics'));
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return parseExposition(await response.text());
}

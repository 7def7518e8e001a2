/**
 * The alert rules shipped for operators (deploy/prometheus/alerts.yml, docs/operations.md
 * "Alerts and SLOs"): valid for Prometheus, each alert firing on the series its unit tests
 * give it and not on ordinary ones (alerts.test.yml), the example scrape configuration valid,
 * and every metric a rule names one the service exposes (docs/operations.md's table, which
 * test/metrics/cluster.test.ts holds to a real scrape).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isDocumented } from '../helpers/documented-metrics.ts';
import { root } from '../helpers/process.ts';
import { promtool, requirePromtool } from '../helpers/promtool.ts';

const RULES = 'deploy/prometheus/alerts.yml';

requirePromtool();

describe('the alert rules', () => {
  it('pass promtool check rules', async () => {
    const { code, output } = await promtool(['check', 'rules', RULES]);
    expect(output).toMatch(/SUCCESS: \d+ rules found/);
    expect(code).toBe(0);
  });

  it('pass their unit tests (promtool test rules)', async () => {
    const { code, output } = await promtool(['test', 'rules', 'deploy/prometheus/alerts.test.yml']);
    expect(output).toMatch(/SUCCESS/);
    expect(code).toBe(0);
  });

  it('are loaded by the example Prometheus configuration, which promtool accepts', async () => {
    const { code, output } = await promtool([
      'check',
      'config',
      'deploy/prometheus/prometheus.yml',
    ]);
    expect(output).toMatch(/SUCCESS: 1 rule files found/);
    expect(code).toBe(0);
  });

  it('name only metrics the service exposes', () => {
    const { groups } = parse(readFileSync(path.join(root, RULES), 'utf8')) as {
      groups: { rules: { expr: string }[] }[];
    };
    const named = new Set(
      groups
        .flatMap((group) => group.rules)
        .flatMap(({ expr }) =>
          [...expr.matchAll(/\b(catalogue_[a-z_]+)/g)].map(([, name]) => name!),
        )
        .map((name) => name.replace(/_(bucket|sum|count)$/, '')),
    );
    expect(named.size).toBeGreaterThan(5);
    for (const name of named) expect(isDocumented(name), name).toBe(true);
  });
});

/**
 * The kind a SQL statement is timed as in `catalogue_sql_statement_duration_seconds`
 * (src/metrics/database.ts): a closed set, whatever SQL comes through. The timing itself, on
 * a real database: test/metrics.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { statementKind } from '../../src/metrics/database.ts';

describe('the kind a statement is timed as', () => {
  it('is its first keyword, past comments and parentheses, from a closed set', () => {
    expect(
      [
        'select 1',
        '  SELECT * from offers',
        '(select 1) union (select 2)',
        '/* a comment */ insert into offers values (1)',
        '-- a line\nupdate offers set price = 1',
        'delete from offers',
        'with changed as (select 1) select * from changed',
        'begin',
        'listen catalogue_changes',
        '',
      ].map(statementKind),
    ).toEqual([
      'select',
      'select',
      'select',
      'insert',
      'update',
      'delete',
      'with',
      'other',
      'other',
      'other',
    ]);
  });
});

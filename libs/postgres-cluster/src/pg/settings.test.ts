import { describe, expect, it } from 'vitest';
import { alterSystemStatement, checkSettingName, listItems, settingInPlace } from './settings.js';

describe('alterSystemStatement', () => {
  it.each([
    [
      'synchronous_standby_names',
      'ANY 1 (s1, s2)',
      "ALTER SYSTEM SET synchronous_standby_names = 'ANY 1 (s1, s2)'",
    ],
    ['work_mem', '64MB', "ALTER SYSTEM SET work_mem = '64MB'"],
    ['application_name', "o'brien", "ALTER SYSTEM SET application_name = 'o''brien'"],
    [
      'application_name',
      "'; SELECT 1; --",
      "ALTER SYSTEM SET application_name = '''; SELECT 1; --'",
    ],
    ['archive_command', 'cp %p /x\\y', "ALTER SYSTEM SET archive_command = E'cp %p /x\\\\y'"],
    ['synchronous_standby_names', '', "ALTER SYSTEM SET synchronous_standby_names = ''"],
    ['work_mem', null, 'ALTER SYSTEM RESET work_mem'],
    ['shared_preload_libraries', null, 'ALTER SYSTEM RESET shared_preload_libraries'],
  ] as const)('%s = %j → %s', (name, value, statement) => {
    expect(alterSystemStatement(name, value)).toBe(statement);
  });

  it.each([
    [
      'shared_preload_libraries',
      'pg_stat_statements, auto_explain',
      "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements', 'auto_explain'",
    ],
    [
      'shared_preload_libraries',
      'pg_stat_statements',
      "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'",
    ],
    ['search_path', '"$user", public', "ALTER SYSTEM SET search_path = '$user', 'public'"],
    ['search_path', '"a ""b"", c",d', `ALTER SYSTEM SET search_path = 'a "b", c', 'd'`],
    ['temp_tablespaces', "it's", "ALTER SYSTEM SET temp_tablespaces = 'it''s'"],
  ] as const)(
    'sends the items of the list parameter %s = %j separately',
    (name, value, statement) => {
      expect(alterSystemStatement(name, value)).toBe(statement);
    },
  );

  it.each(['', ' ', 'a,,b', 'a,'])(
    'refuses the empty list item in shared_preload_libraries = %j',
    (value) => {
      expect(() => alterSystemStatement('shared_preload_libraries', value)).toThrow(TypeError);
    },
  );

  it.each(['Work_mem', 'work-mem', 'a.b', '1x', '', 'x; DROP', 'x = 1', 'work_mem '])(
    'refuses the name %j with a TypeError',
    (name) => {
      expect(() => alterSystemStatement(name, '1')).toThrow(TypeError);
      expect(() => alterSystemStatement(name, null)).toThrow(TypeError);
      expect(() => checkSettingName(name)).toThrow(
        `not a PostgreSQL parameter name: ${JSON.stringify(name)}`,
      );
    },
  );

  it('refuses a value with a newline or a NUL', () => {
    expect(() => alterSystemStatement('work_mem', '1\nshared_buffers = 1')).toThrow(
      'the value of work_mem must not contain a newline',
    );
    expect(() => alterSystemStatement('work_mem', '1\r')).toThrow(TypeError);
    expect(() => alterSystemStatement('work_mem', '1\0')).toThrow(TypeError);
  });
});

describe('listItems', () => {
  it.each([
    ['', []],
    ['a', ['a']],
    ['a, b', ['a', 'b']],
    [' a ,b  ', ['a', 'b']],
    ['"$user", public', ['$user', 'public']],
    ['"a, b"', ['a, b']],
    ['"d""e"', ['d"e']],
    ['"""$user""", public, "Ab"', ['"$user"', 'public', 'Ab']],
    ['a,,b', ['a', '', 'b']],
    ['a,', ['a', '']],
  ])('reads %j as %j', (value, items) => {
    expect(listItems(value)).toEqual(items);
  });

  it.each(['"a', '"a" b', '"a"b'])('refuses %j', (value) => {
    expect(() => listItems(value)).toThrow(TypeError);
  });
});

describe('settingInPlace', () => {
  it.each([
    ['work_mem', '64MB', '64MB', true],
    ['work_mem', '64MB', '32MB', false],
    ['work_mem', '64MB', undefined, false],
    ['work_mem', null, undefined, true],
    ['work_mem', null, '64MB', false],
    ['synchronous_standby_names', '', '', true],
    ['synchronous_standby_names', '', undefined, false],
    ['application_name', "o'brien", "o'brien", true],
    // what PostgreSQL writes for a list parameter, read back through pg_file_settings
    ['shared_preload_libraries', 'a, b', 'a, b', true],
    ['shared_preload_libraries', 'a,b', 'a, b', true],
    ['shared_preload_libraries', 'b, a', 'a, b', false],
    ['shared_preload_libraries', 'a', '"a, b"', false],
    ['search_path', '"$user", public', '"$user", public', true],
    ['search_path', 'x', '"unterminated', false],
  ] as const)(
    '%s: want %j, postgresql.auto.conf has %j → %s',
    (name, desired, current, inPlace) => {
      expect(settingInPlace(name, desired, current)).toBe(inPlace);
    },
  );
});

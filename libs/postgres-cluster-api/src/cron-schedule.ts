import { type CelRule } from '@steward/crd';

/**
 * CEL rules of a cron schedule field: what the controller's parser (croner, five fields, UTC;
 * `parseSchedule` in @steward/postgres-cluster) accepts, refused at admission instead of as a
 * condition later. Five fields separated by spaces; each a comma list of `*`, `*\/n`, a value, a
 * range `a-b` or `a-b/n`, within the field's range; a step `n` from 1 to the field's size (as
 * croner allows); month and weekday names in any case; one leading zero (`05`). Beyond that, croner's
 * day extensions: `L`, `LW` and `nW` for the day of the month, `nL` and `n#k` for the day of the
 * week. Not accepted although croner parses them: `?` (croner substitutes the moment the
 * controller started, so the schedule would change with every restart), `@daily`-style nicknames
 * (not five fields), more than one leading zero or a leading zero on a step, a range carrying `L`
 * (`1-5L`), `LW` in a list (croner takes it alone only), a weekday range beyond 7 even when a step
 * skips the 8 (`6-8/3`), and `nL` in the day of the month (croner reads `25L` as `25,L`: write that).
 * libs/postgres-cluster/tests/schedule-admission.int.test.ts holds admission to this against the
 * parser itself.
 */
export function cronScheduleRules(field: string): CelRule[] {
  return [
    {
      rule: `self.matches('${FIVE_FIELDS}')`,
      message: `${field} must be a cron expression of five fields (minute hour day-of-month month day-of-week), e.g. "0 3 * * *"`,
    },
    ...CronFields.map(({ name, range, values, steps, maxStep, extra, example }, i) => ({
      rule: `${fields}.size() != 5 || ${fields}[${i}].matches('${fieldPattern(values, steps, extra)}')`,
      message: `${field}: the ${name} (field ${i + 1}) must be ${range}${extra ? ` (or ${extra.spelled})` : ''}: a value, a range a-b, * or a step */n or a-b/n (n from 1 to ${maxStep}), or a comma list of them, e.g. ${example}`,
    })),
    {
      rule: `${fields}.size() != 5 || ${RANGES_GO_UP}`,
      message: `${field}: a range a-b may not go down (e.g. 1-5 or MON-FRI, not 5-1)`,
    },
  ];
}

/** The fields of the expression (CEL): its runs of non-space characters. */
const fields = String.raw`self.findAll('\\S+')`;

/** Five runs of non-space characters, leading and trailing spaces aside. */
const FIVE_FIELDS = String.raw`^\\s*\\S+(\\s+\\S+){4}\\s*$`;

const MONTHS = 'jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec';
const WEEKDAYS = 'sun|mon|tue|wed|thu|fri|sat';
const DAY = '0?[1-9]|[12][0-9]|3[01]';
const WEEKDAY = `0?[0-7]|${WEEKDAYS}`;

interface CronField {
  name: string;
  range: string;
  /** The values (a regex alternation, matched case-insensitively). */
  values: string;
  /** The steps croner takes (a regex alternation): 1 to the number of values, `maxStep`. */
  steps: string;
  maxStep: number;
  /**
   * Croner's day extensions: items beyond values, ranges and steps (`pattern`), and what it takes
   * only as the whole field (`alone`).
   */
  extra?: { pattern: string; alone?: string; spelled: string };
  example: string;
}

const CronFields: readonly CronField[] = [
  {
    name: 'minute',
    range: '0-59',
    values: '[0-5]?[0-9]',
    steps: '[1-9]|[1-5][0-9]|60',
    maxStep: 60,
    example: '*/15 or 0,30',
  },
  {
    name: 'hour',
    range: '0-23',
    values: '[01]?[0-9]|2[0-3]',
    steps: '[1-9]|1[0-9]|2[0-4]',
    maxStep: 24,
    example: '3 or 9-17',
  },
  {
    name: 'day of the month',
    range: '1-31',
    values: DAY,
    steps: '[1-9]|[12][0-9]|3[01]',
    maxStep: 31,
    extra: { pattern: `l|(${DAY})w`, alone: 'lw', spelled: 'L, nW, or LW alone' },
    example: '1 or 1,15',
  },
  {
    name: 'month',
    range: '1-12 or JAN-DEC',
    values: `0?[1-9]|1[0-2]|${MONTHS}`,
    steps: '[1-9]|1[0-2]',
    maxStep: 12,
    example: '* or JAN-JUN',
  },
  {
    name: 'day of the week',
    range: '0-7 (0 and 7 are Sunday) or SUN-SAT',
    values: WEEKDAY,
    steps: '[1-7]',
    maxStep: 7,
    extra: { pattern: `(${WEEKDAY})(l|#[1-5l])`, spelled: 'nL or n#k' },
    example: '1-5 or MON-FRI',
  },
];

/** One field: a comma list of items, case-insensitive, anchored. `[*]` is a literal star. */
function fieldPattern(values: string, steps: string, extra?: CronField['extra']): string {
  const step = `(/(${steps}))?`;
  const item = `[*]${step}|(${values})-(${values})${step}|${values}${extra ? `|${extra.pattern}` : ''}`;
  return `^(?i)(${extra?.alone ? `${extra.alone}|` : ''}(${item})(,(${item}))*)$`;
}

/**
 * Every range `a-b` of the expression goes up, its names read as croner reads them (JAN 1 … DEC 12,
 * SUN 0 … SAT 6, and SUN at the end of a range 7, so FRI-SUN is 5-7): the names are replaced by
 * their numbers, then each range of numbers is compared. At most two digits a side, so `int()`
 * never fails; anything else is the field rules' to refuse.
 */
const NUMBERED = [
  String.raw`self.lowerAscii().replace('-sun', '-7')`,
  ...WEEKDAYS.split('|').map((day, i) => `replace('${day}', '${i}')`),
  ...MONTHS.split('|').map((month, i) => `replace('${month}', '${i + 1}')`),
].join('.');
const RANGES_GO_UP = `${NUMBERED}.findAll('[0-9]{1,2}-[0-9]{1,2}').all(r, int(r.split('-')[0]) <= int(r.split('-')[1]))`;

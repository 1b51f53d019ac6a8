import { randomBytes } from 'node:crypto';

const maxNameLength = 253;
const suffixLength = 1 + 16;

/**
 * `<regarding name>.<16 random hex digits>`, a valid DNS subdomain of at most 253 characters: the
 * prefix is lowercased, characters a subdomain cannot hold become `-`, and it is shortened to fit.
 */
export function eventName(regardingName: string, random: () => string = randomHex): string {
  const prefix = regardingName
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, '-')
    .replace(/\.{2,}/g, '.')
    .slice(0, maxNameLength - suffixLength)
    .replace(/^[^a-z0-9]+/, '')
    .replace(/[^a-z0-9]+$/, '');
  return `${prefix || 'event'}.${random()}`;
}

function randomHex(): string {
  return randomBytes(8).toString('hex');
}

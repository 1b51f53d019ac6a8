import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scramVerifier, verifierMatches } from './scram.js';

/** RFC 7677 section 3: user "user", password "pencil", the exchange and its proofs. */
const rfc7677 = {
  password: 'pencil',
  salt: Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'),
  iterations: 4096,
  authMessage: [
    'n=user,r=rOprNGfwEbeRWgbNEkqO',
    'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
    'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
  ].join(','),
  clientProof: 'dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  serverSignature: '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
};

const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();

function parts(verifier: string) {
  const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(verifier);
  if (!match) throw new Error(`not a verifier: ${verifier}`);
  return {
    iterations: Number(match[1]),
    salt: Buffer.from(match[2]!, 'base64'),
    storedKey: Buffer.from(match[3]!, 'base64'),
    serverKey: Buffer.from(match[4]!, 'base64'),
  };
}

describe('scramVerifier', () => {
  it('computes the keys of the RFC 7677 test vector (its proofs check out against them)', () => {
    const verifier = scramVerifier(rfc7677.password, {
      salt: rfc7677.salt,
      iterations: rfc7677.iterations,
    });
    // a known vector: the same inputs always give exactly this
    expect(verifier).toBe(
      'SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=',
    );
    const { storedKey, serverKey } = parts(verifier);
    // the server verifies the client's proof: ClientKey = proof XOR HMAC(StoredKey, AuthMessage),
    // and SHA-256(ClientKey) must be StoredKey
    const proof = Buffer.from(rfc7677.clientProof, 'base64');
    const signature = hmac(storedKey, rfc7677.authMessage);
    const clientKey = Buffer.from(proof.map((byte, i) => byte ^ signature[i]!));
    expect(createHash('sha256').update(clientKey).digest().equals(storedKey)).toBe(true);
    // and proves itself with ServerSignature = HMAC(ServerKey, AuthMessage)
    expect(hmac(serverKey, rfc7677.authMessage).toString('base64')).toBe(rfc7677.serverSignature);
  });

  it('defaults to 4096 iterations and 16 random bytes of salt, fresh each time', () => {
    const a = parts(scramVerifier('secret'));
    const b = parts(scramVerifier('secret'));
    expect(a.iterations).toBe(4096);
    expect(a.salt.length).toBe(16);
    expect(a.storedKey.length).toBe(32);
    expect(a.serverKey.length).toBe(32);
    expect(a.salt.equals(b.salt)).toBe(false);
    expect(a.storedKey.equals(b.storedKey)).toBe(false);
  });

  it('takes the iterations given', () => {
    expect(scramVerifier('secret', { iterations: 1 })).toMatch(/^SCRAM-SHA-256\$1:/);
    expect(() => scramVerifier('secret', { iterations: 0 })).toThrow(RangeError);
    expect(() => scramVerifier('secret', { iterations: 1.5 })).toThrow(RangeError);
    expect(() => scramVerifier('secret', { salt: Buffer.alloc(0) })).toThrow(RangeError);
  });

  it.each(['pässword', 'пароль', 'emoji 🔑', 'nul\0byte', 'nbsp\u00a0'])(
    'refuses %j with a TypeError: PostgreSQL would SASLprep it',
    (password) => {
      expect(() => scramVerifier(password)).toThrow(TypeError);
    },
  );

  it('takes every other ASCII character, as PostgreSQL does without SASLprep', () => {
    const password = Array.from({ length: 127 }, (_, i) => String.fromCharCode(i + 1)).join('');
    expect(verifierMatches(scramVerifier(password, { iterations: 2 }), password)).toBe(true);
    expect(verifierMatches(scramVerifier('', { iterations: 2 }), '')).toBe(true);
  });
});

describe('verifierMatches', () => {
  const verifier = scramVerifier('correct horse', { iterations: 16 });

  it('matches the password of the verifier, with its own salt and iterations', () => {
    expect(verifierMatches(verifier, 'correct horse')).toBe(true);
    expect(
      verifierMatches(
        scramVerifier(rfc7677.password, { salt: rfc7677.salt, iterations: 4096 }),
        'pencil',
      ),
    ).toBe(true);
  });

  it('does not match another password', () => {
    expect(verifierMatches(verifier, 'correct horse ')).toBe(false);
    expect(verifierMatches(verifier, 'Correct horse')).toBe(false);
    expect(verifierMatches(verifier, '')).toBe(false);
    expect(verifierMatches(verifier, 'pässword')).toBe(false);
  });

  it('does not match when either key differs', () => {
    const { iterations, salt, storedKey, serverKey } = parts(verifier);
    const flipped = (key: Buffer) => Buffer.from(key.map((b, i) => (i === 0 ? b ^ 1 : b)));
    const build = (a: Buffer, b: Buffer) =>
      `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${a.toString('base64')}:${b.toString('base64')}`;
    expect(verifierMatches(build(storedKey, serverKey), 'correct horse')).toBe(true);
    expect(verifierMatches(build(flipped(storedKey), serverKey), 'correct horse')).toBe(false);
    expect(verifierMatches(build(storedKey, flipped(serverKey)), 'correct horse')).toBe(false);
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['an md5 hash', 'md5' + 'a'.repeat(32)],
    ['a plain text password', 'correct horse'],
    ['an empty string', ''],
    ['another mechanism', verifier.replace('SCRAM-SHA-256', 'SCRAM-SHA-1')],
    ['no iterations', verifier.replace(/\$16:/, '$:')],
    ['zero iterations', verifier.replace(/\$16:/, '$0:')],
    ['truncated keys', verifier.slice(0, -8)],
    ['an empty salt', verifier.replace(/:[^$]+\$/, ':$')],
    ['a trailing newline', `${verifier}\n`],
  ])('is false for %s', (_, value) => {
    expect(verifierMatches(value, 'correct horse')).toBe(false);
  });
});

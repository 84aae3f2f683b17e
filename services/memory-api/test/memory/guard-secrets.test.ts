import { describe, expect, it } from 'vitest';
import { luhnValid } from '../../src/memory/guard/cards.ts';
import { guardContent } from '../../src/memory/guard.ts';

const policy = { instructions: 'reject', rawDumps: 'reject' } as const;
const guard = (content: string) => guardContent(content, 'episodic', policy);

describe('card numbers (issue 12.4)', () => {
  it('keeps a 13-digit epoch-millisecond tracking number and the space after it', () => {
    const content = 'Tracking number 1796108627813 for the parcel';
    expect(luhnValid('1796108627813')).toBe(true);
    expect(guard(content)).toEqual({ kind: 'allow', content, redactions: [] });
  });

  it('keeps numbers that pass Luhn but are no card in context', () => {
    for (const content of [
      'Timestamped note at 1710000000000: called the plumber',
      'created_at 1710000000000000 (epoch microseconds)',
      'Order 4716289310551234 shipped on Monday.',
      'Invoice 5105105105105100 paid by bank transfer.',
      'IMEI 356938035643809 of the old phone',
      'ISBN 978-0-306-40615-7 is the textbook',
      'Call +49 151 12345678 after six',
      'Deploy 550e8400-e29b-41d4-a716-446655440000 failed',
      'Commit 4e1243bd22c66e76c2ba9eddc1f91394e57f9f83 fixed it',
      'Reference 4111 111 1111 111 1 from the form',
    ]) {
      expect(guard(content)).toEqual({ kind: 'allow', content, redactions: [] });
    }
  });

  it.each([
    [
      'grouped Visa',
      'My card is 4111 1111 1111 1111, please remember it.',
      'My card is [redacted card number ending 1111], please remember it.',
    ],
    [
      'dashed Mastercard',
      'Mastercard 5105-1051-0510-5100 for travel',
      'Mastercard [redacted card number ending 5100] for travel',
    ],
    ['Amex grouping 4-6-5', 'Amex 3782 822463 10005 on file', 'Amex [redacted card number ending 0005] on file'],
    [
      'bare 16 digits with no other explanation',
      'use 4111111111111111 next time',
      'use [redacted card number ending 1111] next time',
    ],
    [
      '13-digit Visa next to card words',
      'old visa 4222222222222 expired',
      'old visa [redacted card number ending 2222] expired',
    ],
    ['Chinese context', '信用卡号 6250 9410 0652 8599，别忘了', '信用卡号 [redacted card number ending 8599]，别忘了'],
  ])('redacts a %s and keeps the text around it', (_name, content, stored) => {
    const verdict = guard(content);
    expect(verdict.content).toBe(stored);
    expect(verdict.redactions).toEqual(['card_number']);
  });

  it('redacts the security code next to a card', () => {
    const verdict = guard('Visa 4111 1111 1111 1111 exp 12/27 cvv 123');
    expect(verdict.content).toBe('Visa [redacted card number ending 1111] exp 12/27 cvv [redacted card security code]');
    expect(verdict.redactions).toEqual(['card_number', 'card_security_code']);
  });
});

describe('other secrets', () => {
  it.each([
    [
      'an OpenAI key',
      'key sk-proj-abcdefghijklmnop1234567890 for the bot',
      'key [redacted api key] for the bot',
      'api_key',
    ],
    ['an AWS access key id', 'AWS id AKIAIOSFODNN7EXAMPLE in ci', 'AWS id [redacted api key] in ci', 'api_key'],
    [
      'a GitHub token',
      `token ghp_${'a1B2'.repeat(9)} expires`,
      'token [redacted access token] expires',
      'access_token',
    ],
    [
      'a JWT',
      'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok',
      'jwt [redacted access token] ok',
      'access_token',
    ],
    [
      'a bearer header',
      'Authorization: Bearer abcdefghijklmnopqrstuvwx',
      'Authorization: Bearer [redacted access token]',
      'access_token',
    ],
    [
      'a password in a URL',
      'db at postgres://app:S3cr3t!@db.internal:5432/prod',
      'db at postgres://app:[redacted password]@db.internal:5432/prod',
      'password',
    ],
    [
      'a password value',
      'wifi password: hunter2hunter2 (guest network)',
      'wifi password: [redacted password] (guest network)',
      'password',
    ],
    ['a PIN', 'my PIN is 4821', 'my PIN is [redacted password]', 'password'],
    ['a Chinese password', '路由器密码是abc12345', '路由器密码是[redacted password]', 'password'],
    [
      'an api_key assignment',
      'api_key="9f8e7d6c5b4a3928" in the env',
      'api_key="[redacted api key]" in the env',
      'api_key',
    ],
  ])('redacts %s, only the secret', (_name, content, stored, kind) => {
    const verdict = guard(content);
    expect(verdict.content).toBe(stored);
    expect(verdict.redactions).toEqual([kind]);
  });

  it('redacts a private key block', () => {
    const verdict = guard(
      'deploy key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\nrotate yearly',
    );
    expect(verdict.content).toBe('deploy key:\n[redacted private key]\nrotate yearly');
    expect(verdict.redactions).toEqual(['private_key']);
  });

  it('leaves look-alikes alone', () => {
    for (const content of [
      "User's password manager is Bitwarden; they never store passwords in notes.",
      'The password is in 1Password.',
      'The token is expired, ask IT for a new one.',
      'The secret is chocolate in the sauce.',
      'Their password policy requires 12 characters.',
      'sk-learn is the scikit-learn nickname',
      'Order ORD-2024-118273 shipped; phone +44 7700 900123',
    ]) {
      expect(guard(content)).toEqual({ kind: 'allow', content, redactions: [] });
    }
  });
});

// One person, one name (issue 29): a console OIDC label and an API token's or sign-in link's subject.
import { describe, expect, it } from 'vitest';
import { personName, samePerson } from '../../../src/auth/index.ts';

describe('personName and samePerson', () => {
  it('an OIDC label names the same person as the subject it carries', () => {
    expect(personName('oidc:alice')).toBe('alice');
    expect(samePerson('oidc:alice', 'alice')).toBe(true);
    expect(samePerson('alice', 'oidc:alice')).toBe(true);
    expect(samePerson('oidc:alice', 'oidc:alice')).toBe(true);
  });

  it('different subjects stay different people; only one label prefix is removed', () => {
    expect(samePerson('alice', 'bob')).toBe(false);
    expect(samePerson('oidc:alice', 'oidc:bob')).toBe(false);
    expect(personName('oidc:oidc:x')).toBe('oidc:x');
    expect(samePerson('oidc:oidc:x', 'x')).toBe(false);
    expect(samePerson('alice', 'Alice')).toBe(false);
  });
});

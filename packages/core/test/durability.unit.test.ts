import { describe, expect, it } from 'vitest';
import {
  collectKeyFields,
  hasChanged,
  resolveToolDurability,
  type ToolDurabilityPolicy,
  toolDurabilityPolicySchema,
} from '../src/index.js';

describe('hasChanged', () => {
  it('compares the strongest evidence both sides have: hash, then etag, then mtime, then version', () => {
    expect(hasChanged({ contentHash: 'abc' }, { contentHash: 'abc' })).toBe(false);
    expect(hasChanged({ contentHash: 'abc' }, { contentHash: 'abd' })).toBe(true);
    // The hash decides even when weaker evidence disagrees.
    expect(hasChanged({ contentHash: 'abc', mtime: 1 }, { contentHash: 'abc', mtime: 2 })).toBe(false);
    expect(hasChanged({ contentHash: 'abc', mtime: 1 }, { contentHash: 'xyz', mtime: 1 })).toBe(true);
    // Without a hash on both sides, the etag decides, then the mtime, then the version.
    expect(hasChanged({ contentHash: 'abc', etag: 'e1' }, { etag: 'e1' })).toBe(false);
    expect(hasChanged({ etag: 'e1', mtime: 5 }, { etag: 'e2', mtime: 5 })).toBe(true);
    expect(hasChanged({ mtime: 5, version: '1' }, { mtime: 5, version: '2' })).toBe(false);
    expect(hasChanged({ mtime: 5 }, { mtime: 6 })).toBe(true);
    expect(hasChanged({ version: '3' }, { version: '3' })).toBe(false);
    expect(hasChanged({ version: '3' }, { version: '4' })).toBe(true);
  });

  it('treats an mtime of 0 as evidence, not as missing', () => {
    expect(hasChanged({ mtime: 0 }, { mtime: 0 })).toBe(false);
    expect(hasChanged({ mtime: 0 }, { mtime: 1 })).toBe(true);
  });

  it('counts anything it cannot verify as changed (fail safe)', () => {
    expect(hasChanged(undefined, { contentHash: 'abc' })).toBe(true);
    expect(hasChanged({ contentHash: 'abc' }, undefined)).toBe(true);
    expect(hasChanged({}, {})).toBe(true);
    expect(hasChanged({ contentHash: 'abc' }, { etag: 'e1' })).toBe(true);
    expect(hasChanged({ mtime: 1 }, { version: '1' })).toBe(true);
  });
});

describe('resolveToolDurability', () => {
  const policy: ToolDurabilityPolicy = toolDurabilityPolicySchema.parse({
    defaultDurability: 'anchoring',
    overrides: {
      web_search: { durability: 'non_replayable', externalizeThresholdTokens: 500 },
      create_order: { durability: 'anchoring', mustPreserveFields: ['order_id', 'status'] },
    },
  });

  it('takes an operator override over what the tool declared', () => {
    expect(resolveToolDurability({ toolName: 'web_search', durability: 'ephemeral' }, policy)).toEqual({
      durability: 'non_replayable',
      mustPreserveFields: [],
      externalizeThresholdTokens: 500,
      source: 'policy-override',
    });
  });

  it('takes what the tool declared over the policy default', () => {
    expect(resolveToolDurability({ toolName: 'read_file', durability: 'replayable' }, policy)).toEqual({
      durability: 'replayable',
      mustPreserveFields: [],
      externalizeThresholdTokens: undefined,
      source: 'envelope',
    });
  });

  it('falls back to the policy default', () => {
    expect(resolveToolDurability({ toolName: 'ls' }, policy)).toEqual({
      durability: 'anchoring',
      mustPreserveFields: [],
      externalizeThresholdTokens: undefined,
      source: 'policy-default',
    });
    const ephemeralByDefault = toolDurabilityPolicySchema.parse({ defaultDurability: 'ephemeral' });
    expect(resolveToolDurability({ toolName: 'ls' }, ephemeralByDefault).durability).toBe('ephemeral');
  });
});

describe('collectKeyFields', () => {
  it('adds the fields the policy names from a structured result, keeping the envelope own ones', () => {
    const envelope = {
      keyFields: { order_id: 'from-envelope' },
      content: { order_id: 'from-content', status: 'paid', total: 30 },
    };
    expect(collectKeyFields(envelope, ['order_id', 'status', 'missing'])).toEqual({
      order_id: 'from-envelope',
      status: 'paid',
    });
    expect(envelope.keyFields).toEqual({ order_id: 'from-envelope' });
  });

  it('keeps only the envelope key fields of a text result', () => {
    expect(collectKeyFields({ keyFields: { a: 1 }, content: 'status: paid' }, ['status'])).toEqual({ a: 1 });
    expect(collectKeyFields({ keyFields: {}, content: 'x' }, [])).toEqual({});
  });
});

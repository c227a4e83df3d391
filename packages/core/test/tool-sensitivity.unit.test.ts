import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ARTIFACT_PERMISSION_CONFIDENTIAL,
  ARTIFACT_PERMISSION_RESTRICTED,
  type ArtifactSensitivity,
  readsEveryToolOutput,
  toolDurabilityPolicySchema,
  toolOutputSensitivity,
  withholdToolOutputs,
} from '../src/index.js';

const SENSITIVITIES: ArtifactSensitivity[] = ['public', 'internal', 'confidential', 'restricted'];

describe('tool output sensitivity', () => {
  it('is the stricter of the deployment floor and the tool policy', () => {
    const policy = toolDurabilityPolicySchema.parse({
      overrides: { vault: { durability: 'non_replayable', artifactSensitivity: 'restricted' } },
    });
    expect(toolOutputSensitivity('vault', policy, 'public')).toBe('restricted');
    expect(toolOutputSensitivity('grep', policy, 'confidential')).toBe('confidential');
    expect(toolOutputSensitivity('grep', policy)).toBe('internal');
  });

  it('withholds exactly the tool results the caller may not read, content and key fields alike', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SENSITIVITIES),
        fc.constantFrom(...SENSITIVITIES),
        fc.subarray([ARTIFACT_PERMISSION_CONFIDENTIAL, ARTIFACT_PERMISSION_RESTRICTED]),
        fc.string(),
        (toolSensitivity, floor, permissions, secret) => {
          const policy = toolDurabilityPolicySchema.parse({
            overrides: { tool: { durability: 'anchoring', artifactSensitivity: toolSensitivity } },
          });
          const content = [
            { type: 'text', text: 'kept' },
            {
              type: 'tool_result',
              toolName: 'tool',
              toolCallId: 'c',
              outcome: 'success',
              content: `secret:${secret}`,
              keyFields: { id: secret },
            },
          ];
          const shown = withholdToolOutputs(content, { policy, floor, tenantId: 't', permissions });
          const effective = toolOutputSensitivity('tool', policy, floor);
          const needed =
            effective === 'confidential'
              ? ARTIFACT_PERMISSION_CONFIDENTIAL
              : effective === 'restricted'
                ? ARTIFACT_PERMISSION_RESTRICTED
                : undefined;
          const mayRead = needed === undefined || permissions.includes(needed);
          // Whoever reads every sensitivity is never withheld anything (the prompt route skips the pass).
          if (readsEveryToolOutput({ tenantId: 't', permissions })) expect(shown).toBe(content);
          expect(readsEveryToolOutput({ tenantId: 't', permissions })).toBe(permissions.length === 2);
          expect(shown[0]).toEqual(content[0]);
          if (mayRead) {
            expect(shown).toBe(content);
          } else {
            expect(JSON.stringify(shown[1])).not.toContain(`secret:${secret}`);
            expect((shown[1] as { keyFields: object }).keyFields).toEqual({});
          }
        },
      ),
    );
  });
});

/**
 * The policy registry as an instance: built-ins first and protected, model policies added, replaced in place and
 * removed, unknown names explained — and two registries never see each other's policies (there is no module-level
 * state any more). The module functions offer the built-ins only.
 */
import { describe, expect, it } from 'vitest';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import type { Policy } from '../../src/policies/policy.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { PolicyRegistry, type PolicyInfo } from '../../src/policies/registry.ts';

const info = (name: string, label = name): PolicyInfo => ({ name, label, description: `${label} policy` });
const fixed = (name: string): Policy => ({ name, act: async () => ({ action: 'ANSWER 1' }) });
const names = (r: PolicyRegistry) => r.list().map((p) => p.name);

describe('PolicyRegistry', () => {
  it('starts with Random and Oracle, each created fresh', () => {
    const registry = new PolicyRegistry();
    expect(names(registry)).toEqual(['random', 'oracle']);
    expect(registry.create('random')).toBeInstanceOf(RandomPolicy);
    expect(registry.create('oracle')).toBeInstanceOf(OraclePolicy);
    expect(registry.create('oracle')).not.toBe(registry.create('oracle'));
  });

  it('adds, replaces in place and removes model policies; built-ins stay', () => {
    const registry = new PolicyRegistry();
    registry.register(info('qwen'), () => fixed('qwen'));
    registry.register(info('qwen+a'), () => fixed('qwen+a'));
    registry.register(info('qwen', 'Qwen (new settings)'), () => fixed('qwen-2'));
    expect(registry.list()).toEqual([expect.objectContaining({ name: 'random' }), expect.objectContaining({ name: 'oracle' }), info('qwen', 'Qwen (new settings)'), info('qwen+a')]);
    expect(registry.create('qwen').name).toBe('qwen-2');
    registry.unregister('qwen');
    registry.unregister('random');
    registry.unregister('never-registered');
    expect(names(registry)).toEqual(['random', 'oracle', 'qwen+a']);
  });

  it.each(['random', 'oracle'])('refuses to replace the built-in %s', (name) => {
    expect(() => new PolicyRegistry().register(info(name), () => fixed(name))).toThrow(/built-in policy and cannot be replaced/);
  });

  it('names the policies it has when asked for an unknown one', () => {
    const registry = new PolicyRegistry();
    registry.register(info('qwen'), () => fixed('qwen'));
    expect(() => registry.create('gpt')).toThrow("Unknown policy 'gpt'. Policies: random, oracle, qwen.");
  });

  it("keeps two registries apart: one's model policies are not the other's", () => {
    const a = new PolicyRegistry();
    const b = new PolicyRegistry();
    a.register(info('qwen'), () => fixed('qwen'));
    b.register(info('qwen+x'), () => fixed('qwen+x'));
    expect(names(a)).toEqual(['random', 'oracle', 'qwen']);
    expect(names(b)).toEqual(['random', 'oracle', 'qwen+x']);
    expect(() => b.create('qwen')).toThrow(/Unknown policy 'qwen'/);
    a.unregister('qwen');
    b.unregister('qwen');
    expect(names(b)).toEqual(['random', 'oracle', 'qwen+x']);
  });
});

/**
 * The policies the app and the CLI offer by name. Model policies (issue 4) register here too, so Watch, Evaluate
 * and Compare list them without knowing what they are.
 */
import { OraclePolicy } from './oracle.ts';
import type { Policy } from './policy.ts';
import { RandomPolicy } from './random.ts';

export interface PolicyInfo {
  name: string;
  label: string;
  description: string;
}

const FACTORIES: Record<string, { info: PolicyInfo; create: () => Policy }> = {
  random: {
    info: { name: 'random', label: 'Random', description: 'Valid actions at random, seeded: the floor to beat.' },
    create: () => new RandomPolicy(),
  },
  oracle: {
    info: { name: 'oracle', label: 'Oracle', description: 'Knows the gold SQL: describes its tables, runs it, answers. The ceiling.' },
    create: () => new OraclePolicy(),
  },
};

export function listPolicies(): PolicyInfo[] {
  return Object.values(FACTORIES).map((f) => f.info);
}

export function createPolicy(name: string): Policy {
  const factory = FACTORIES[name];
  if (!factory) throw new RangeError(`Unknown policy '${name}'. Policies: ${Object.keys(FACTORIES).join(', ')}.`);
  return factory.create();
}

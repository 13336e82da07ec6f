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

/**
 * Adds (or replaces) a policy at run time: a model policy once its model is loaded. Built-in names cannot be
 * replaced.
 */
export function registerPolicy(info: PolicyInfo, create: () => Policy): void {
  if (info.name === 'random' || info.name === 'oracle') throw new RangeError(`'${info.name}' is a built-in policy and cannot be replaced.`);
  FACTORIES[info.name] = { info, create };
}

/** Removes a policy registered with `registerPolicy` (a model unloaded); unknown names are ignored. */
export function unregisterPolicy(name: string): void {
  if (name === 'random' || name === 'oracle') return;
  delete FACTORIES[name];
}

export function listPolicies(): PolicyInfo[] {
  return Object.values(FACTORIES).map((f) => f.info);
}

export function createPolicy(name: string): Policy {
  const factory = FACTORIES[name];
  if (!factory) throw new RangeError(`Unknown policy '${name}'. Policies: ${Object.keys(FACTORIES).join(', ')}.`);
  return factory.create();
}

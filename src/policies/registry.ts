/**
 * The policies a host offers by name. A `PolicyRegistry` is an instance its owner holds and passes to whoever needs
 * it (in the worker: the model and adapter services register into it, sessions and evaluation create from it), so
 * two hosts — two workers, two tests — never see each other's policies. There is no module-level state to mutate.
 *
 * Every registry starts with the built-ins, Random and Oracle, which cannot be replaced or removed. Model policies
 * (the loaded `qwen`, its adapters `qwen+<id>`) are registered while their model is held, so Watch, Evaluate and
 * Compare list them without knowing what they are.
 */
import { OraclePolicy } from './oracle.ts';
import type { Policy } from './policy.ts';
import { RandomPolicy } from './random.ts';

export interface PolicyInfo {
  name: string;
  label: string;
  description: string;
}

interface PolicyFactory {
  info: PolicyInfo;
  create: () => Policy;
}

const BUILT_INS: readonly PolicyFactory[] = [
  {
    info: { name: 'random', label: 'Random', description: 'Valid actions at random, seeded: the floor to beat.' },
    create: () => new RandomPolicy(),
  },
  {
    info: { name: 'oracle', label: 'Oracle', description: 'Knows the gold SQL: describes its tables, runs it, answers. The ceiling.' },
    create: () => new OraclePolicy(),
  },
];

const isBuiltIn = (name: string): boolean => BUILT_INS.some((f) => f.info.name === name);

export class PolicyRegistry {
  /** In registration order (a replaced policy keeps its place), the built-ins first. */
  private readonly factories = new Map<string, PolicyFactory>(BUILT_INS.map((f) => [f.info.name, f]));

  /** Adds (or replaces) a policy: a model policy once its model is loaded. Built-in names cannot be replaced. */
  register(info: PolicyInfo, create: () => Policy): void {
    if (isBuiltIn(info.name)) throw new RangeError(`'${info.name}' is a built-in policy and cannot be replaced.`);
    this.factories.set(info.name, { info, create });
  }

  /** Removes a policy added with `register` (a model unloaded); built-ins and unknown names are ignored. */
  unregister(name: string): void {
    if (isBuiltIn(name)) return;
    this.factories.delete(name);
  }

  list(): PolicyInfo[] {
    return [...this.factories.values()].map((f) => f.info);
  }

  /** A fresh policy object (policies keep per-episode state, so each session or run gets its own). */
  create(name: string): Policy {
    const factory = this.factories.get(name);
    if (!factory) throw new RangeError(`Unknown policy '${name}'. Policies: ${[...this.factories.keys()].join(', ')}.`);
    return factory.create();
  }
}

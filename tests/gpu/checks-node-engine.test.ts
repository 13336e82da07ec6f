/**
 * The registry's engine checks in Node on Dawn (see checks-node-suite.ts for the split and the seeds).
 */
import { describeNodeChecks } from './checks-node-suite.ts';

describeNodeChecks('engine', 'tests/gpu/checks-node-engine.test.ts');

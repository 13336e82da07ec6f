/**
 * The registry's train checks in Node on Dawn (see checks-node-suite.ts for the split and the seeds).
 */
import { describeNodeChecks } from './checks-node-suite.ts';

describeNodeChecks('train', 'tests/gpu/checks-node-train.test.ts');

import { propertySeed } from './property-seed.ts';

// Every property test that names no seed of its own takes this one (see propertySeed). fast-check is loaded
// only then: most test files have no property test.
const seed = propertySeed(process.env['ROUTERBENCH_PROPERTY_SEED']);
if (seed !== undefined) {
  const { default: fc } = await import('fast-check');
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
}

import { stewardVitestConfig } from '../vitest.shared.ts';

export default stewardVitestConfig('tools', { include: ['scripts/**/*.test.ts'] });

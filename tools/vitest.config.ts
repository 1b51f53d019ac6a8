import { stewardVitestConfig } from '../vitest.shared';

export default stewardVitestConfig('tools', { include: ['scripts/**/*.test.ts'] });

import { stewardVitestConfig } from '../../vitest.shared.ts';

export default stewardVitestConfig('database-instance-controller-e2e');

import { stewardVitestConfig } from '../../vitest.shared.ts';

export default stewardVitestConfig('cache-cluster-api');

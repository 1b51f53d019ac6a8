import { stewardVitestConfig } from '../../vitest.shared.ts';

export default stewardVitestConfig('postgres-cluster-controller-e2e');

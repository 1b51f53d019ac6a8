import { stewardVitestConfig } from '../../vitest.shared.ts';

export default stewardVitestConfig('observability-e2e');

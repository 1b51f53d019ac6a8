import { stewardVitestConfig } from '../../vitest.shared.ts';

export default stewardVitestConfig('controller-process');

import { stewardVitestConfig } from '../../vitest.shared';

export default stewardVitestConfig('testing');

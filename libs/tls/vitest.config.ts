import { stewardVitestConfig } from '../../vitest.shared.ts';

export default stewardVitestConfig('tls');

import { stewardVitestConfig } from '../../vitest.shared.ts';

export default stewardVitestConfig('kafka-topic-controller-e2e');

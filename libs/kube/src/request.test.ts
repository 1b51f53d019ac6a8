import { describe, expect, it } from 'vitest';
import { inferVerb, resourceOfPath, type KubeRequest } from './request.js';

describe('inferVerb', () => {
  it.each<[Pick<KubeRequest, 'method' | 'path' | 'query' | 'contentType'>, string]>([
    [{ method: 'GET', path: '/api/v1/namespaces/db/configmaps/c' }, 'get'],
    [{ method: 'GET', path: '/api/v1/namespaces/db/configmaps' }, 'list'],
    [{ method: 'GET', path: '/api/v1/configmaps' }, 'list'],
    [{ method: 'GET', path: '/api/v1/namespaces' }, 'list'],
    [{ method: 'GET', path: '/api/v1/namespaces/db' }, 'get'],
    [{ method: 'GET', path: '/api/v1/namespaces/db/status' }, 'get'],
    [{ method: 'GET', path: '/apis/apps/v1/namespaces/db/statefulsets/pg/scale' }, 'get'],
    [{ method: 'GET', path: '/apis/apps/v1/statefulsets' }, 'list'],
    [{ method: 'GET', path: '/api/v1/configmaps', query: { watch: 'true' } }, 'watch'],
    [{ method: 'GET', path: '/api/v1/configmaps', query: { watch: true } }, 'watch'],
    [{ method: 'GET', path: '/version' }, 'get'],
    [{ method: 'POST', path: '/api/v1/namespaces/db/configmaps' }, 'create'],
    [{ method: 'PUT', path: '/api/v1/namespaces/db/configmaps/c' }, 'update'],
    [
      {
        method: 'PATCH',
        path: '/api/v1/namespaces/db/configmaps/c',
        contentType: 'application/apply-patch+yaml',
      },
      'apply',
    ],
    [
      {
        method: 'PATCH',
        path: '/api/v1/namespaces/db/configmaps/c',
        contentType: 'application/merge-patch+json',
      },
      'patch',
    ],
    [{ method: 'DELETE', path: '/api/v1/namespaces/db/configmaps/c' }, 'delete'],
    [{ method: 'DELETE', path: '/api/v1/namespaces/db/configmaps' }, 'deletecollection'],
  ])('%o is %s', (request, verb) => {
    expect(inferVerb(request)).toBe(verb);
  });
});

describe('resourceOfPath', () => {
  it.each([
    ['/api/v1/namespaces/a/configmaps', 'configmaps'],
    ['/api/v1/namespaces/a/configmaps/x', 'configmaps'],
    ['/apis/kafka.steward.dev/v1alpha1/namespaces/a/kafkatopics/t/status', 'kafkatopics/status'],
    ['/apis/steward.dev/v1alpha1/providerprofiles/p', 'providerprofiles'],
    ['/api/v1/namespaces', 'namespaces'],
  ])('%s → %s', (path, resource) => {
    expect(resourceOfPath(path)).toBe(resource);
  });
});

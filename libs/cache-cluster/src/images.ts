/**
 * The images the controller runs when no ProviderProfile gives a catalogue: the ones
 * tools/node-tier/images builds from Debian's packages (versions.env pins them; a test keeps this
 * table in step with it). A profile's `spec.kubernetes.images` replaces this table entirely.
 */
export const BuiltInImages: readonly { engine: string; version: string; image: string }[] = [
  { engine: 'redis', version: '7.0', image: 'ghcr.io/steward-dev/redis:7.0.15' },
  { engine: 'redis', version: '8.0', image: 'ghcr.io/steward-dev/redis:8.0.2' },
  { engine: 'valkey', version: '8.1', image: 'ghcr.io/steward-dev/valkey:8.1.1' },
];

/**
 * The images the controller runs when no ProviderProfile gives a catalogue: the ones
 * tools/node-tier/images builds from Debian's packages (versions.env pins them; a test keeps this
 * table in step with it). A profile's `spec.kubernetes.images` replaces this table entirely.
 */
export const BuiltInImages: readonly { engine: string; version: string; image: string }[] = [
  { engine: 'postgres', version: '15', image: 'ghcr.io/steward-dev/postgres:15.20' },
  { engine: 'postgres', version: '17', image: 'ghcr.io/steward-dev/postgres:17.12' },
];

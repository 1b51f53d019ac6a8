/** Annotations of every external kind (DESIGN.md, "Common API conventions"). */
export const ExternalAnnotations = {
  /** The resource's name at the provider; recorded before the first create call, never changed after. */
  externalName: 'steward.dev/external-name',
  /** Time a create call was about to be made; written by a resourceVersion-checked update. */
  createPending: 'steward.dev/external-create-pending',
  /** Time a create call was known to have succeeded. */
  createSucceeded: 'steward.dev/external-create-succeeded',
  /** Time a create call was known to have failed (the provider said so; nothing was created). */
  createFailed: 'steward.dev/external-create-failed',
  /**
   * Written with `createFailed` when the provider refused the create (a `TerminalError`): JSON
   * `{"generation":N,"reason":"…","message":"…"}`. While the object is at that generation, the
   * create is not tried again and the refusal is reported as it was — the controller's memory is
   * here, never in `status`.
   */
  createRefused: 'steward.dev/external-create-refused',
  /** `"true"`: reconcile nothing, touch nothing at the provider. */
  paused: 'steward.dev/paused',
} as const;

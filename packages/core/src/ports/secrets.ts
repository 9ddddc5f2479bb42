/**
 * Sealing secrets at rest.
 * The conventions every port follows are in `../ports.ts`.
 */

/** Encrypts secrets at rest. */
export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws when the sealed text was tampered with or sealed under another key. */
  open(sealed: string): string;
}

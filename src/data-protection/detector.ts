import type { Detection } from "./model";

/**
 * One detector: finds the entities of one type in a text. Adding a detector (for instance a model
 * for names and postal addresses, which Sieve does not detect today) means adding one of these.
 */
export interface Detector {
  readonly type: string;
  detect(text: string): Detection[] | Promise<Detection[]>;
}

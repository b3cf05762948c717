/**
 * Recursive strategy: whole blocks go to the packer, which keeps them whole when they fit and
 * only then cuts finer (sentences, then words; lines for code). Chunk boundaries therefore fall
 * on section, then paragraph, then sentence boundaries, in that order of preference.
 */
import type { FlowItem } from "./section-flow.ts";
import { blockUnit, type Unit } from "./units.ts";

export function recursiveUnits(flow: FlowItem[]): Unit[][] {
  return flow.map((item) => [blockUnit(item)]);
}

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FITTED_DIR, firewallModelCard, readFitted } from "../../scripts/fit/firewall-model-card";

// The firewall's fitted files ship with a model card (data, licences, seed, commit, metrics).
// It is rendered from the files' own fit records, so it can only be current if it was rendered again after the last fit.
describe("models/sieve-firewall", () => {
  const fitted = readFitted();

  test("MODEL_CARD.md is the card the committed fitted files give", () => {
    expect(readFileSync(join(FITTED_DIR, "MODEL_CARD.md"), "utf8")).toBe(firewallModelCard(fitted));
  });

  test("each was fitted from committed code, which the card names", () => {
    for (const commit of [fitted.calibration.fit.commit, fitted.lexical.fit.commit, fitted.dataChannel.fit.commit]) {
      expect(commit).toMatch(/^[0-9a-f]{7,}$/);
      expect(firewallModelCard(fitted)).toContain(`commit \`${commit}\``);
    }
  });
});

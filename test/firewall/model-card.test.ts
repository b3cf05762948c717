import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FITTED_DIR, firewallModelCard, lexicalFingerprint, readFitted } from "../../scripts/fit/firewall-model-card";

// The firewall's fitted files ship with a model card (data, licences, seed, commit, metrics).
// It is rendered from the files' own fit records, so it can only be current if it was rendered again after the last fit.
describe("models/sieve-firewall", () => {
  const fitted = readFitted();

  test("MODEL_CARD.md is the card the committed fitted files give", () => {
    expect(readFileSync(join(FITTED_DIR, "MODEL_CARD.md"), "utf8")).toBe(firewallModelCard(fitted));
  });

  test("the card carries the leave-one-cluster-out table over firewall-train-v2 and -v3-additions, one row per cluster", () => {
    const clusters = Object.keys(JSON.parse(readFileSync(join(import.meta.dir, "../../scripts/train/firewall-clusters.json"), "utf8")));
    expect(fitted.lexical.fit.loso?.clusters.map((c) => c.cluster)).toEqual(clusters);
    const card = firewallModelCard(fitted);
    for (const cluster of clusters) expect(card).toMatch(new RegExp(`\\| ${cluster} \\| \\d+ \\| 0\\.\\d{3} / `));
  });

  test("the data-channel rule's lexical model: the card says so when the lexical model changed after the rule's fit, not when a refit reproduced it", () => {
    const refitted = "has been refitted since";
    expect(fitted.dataChannel.fit.lexicalModel).toBe(lexicalFingerprint(fitted.lexical));
    expect(firewallModelCard(fitted)).not.toContain(refitted);
    const changed = { ...fitted, lexical: { ...fitted.lexical, bias: fitted.lexical.bias + 0.1 } };
    expect(firewallModelCard(changed)).toContain(refitted);
    // A refit at another commit with the same weights is the same model.
    const recommitted = { ...fitted, lexical: { ...fitted.lexical, fit: { ...fitted.lexical.fit, commit: "0000000" } } };
    expect(firewallModelCard(recommitted)).not.toContain(refitted);
  });

  test("each was fitted from committed code, which the card names", () => {
    for (const commit of [fitted.calibration.fit.commit, fitted.lexical.fit.commit, fitted.dataChannel.fit.commit]) {
      expect(commit).toMatch(/^[0-9a-f]{7,}$/);
      expect(firewallModelCard(fitted)).toContain(`commit \`${commit}\``);
    }
  });
});

/** Shared numbers and table printing for the bench:* scripts. */

export type Summary = { n: number; p50: number; p95: number; p99: number; mean: number };

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  const mean = sorted.reduce((sum, x) => sum + x, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), mean };
}

export function markdownTable(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? "---" : "---:"))), ...rows.map(line)].join("\n");
}

export const ms = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

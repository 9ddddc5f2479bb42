// The Viber parameter validator alone: validations per second on typical and worst-case values,
// so a slow regular expression shows up here before it shows up in production.
// Run: pnpm --filter @tidings/bench validator   (BENCH_VALIDATOR_MS per case, default 1000)
import { validateParams } from "@tidings/core";
import { describeMachine, machineLine } from "./harness/machine.js";
import { fixed, int, table } from "./harness/markdown.js";
import { writeSection } from "./harness/results.js";
import { VALIDATOR_CASES, type ValidatorCase } from "./validator-cases.js";

/** Validations per second of one case, measured for about `ms` milliseconds after a warm-up. */
export function measureCase(
  testCase: ValidatorCase,
  ms: number,
): { perS: number; worstUs: number } {
  const run = () => validateParams(testCase.campaign, testCase.params);
  for (let i = 0; i < 200; i++) run();
  let count = 0;
  let worst = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      run();
      worst = Math.max(worst, performance.now() - t);
    }
    count += 50;
    now = performance.now();
  }
  return { perS: count / ((now - start) / 1000), worstUs: worst * 1000 };
}

const MS = Number(process.env.BENCH_VALIDATOR_MS ?? 1000);

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = VALIDATOR_CASES.map((testCase) => {
    const outcome = validateParams(testCase.campaign, testCase.params);
    const verdict = outcome.isOk()
      ? "accepted"
      : `refused (${outcome.error.map((i) => i.rule).join(", ")})`;
    const { perS, worstUs } = measureCase(testCase, MS);
    const longest = Math.max(...Object.values(testCase.params).map((v) => [...v].length));
    console.log(`${testCase.name}: ${int(perS)}/s`);
    return [
      testCase.name,
      longest,
      verdict,
      int(perS),
      fixed(1_000_000 / perS, 1),
      fixed(worstUs, 0),
    ];
  });
  const slowest = Math.min(...rows.map((r) => Number(String(r[3]).replaceAll(",", ""))));
  const markdown = [
    "## Parameter validator",
    "",
    machineLine(describeMachine(), "pnpm --filter @tidings/bench validator"),
    "",
    `\`validateParams\` from the built \`@tidings/core\`, one Viber campaign per case, in a loop for ${MS} ms per case after a warm-up. The worst cases are 125 code points (Viber's limit) of fullwidth letters, look-alike full stops (U+3002, U+FF0E) and zero-width characters, which NFKC-normalization and the link scan must both walk.`,
    "",
    table(
      ["Case", "longest value (code points)", "verdict", "validations/s", "mean µs", "slowest µs"],
      rows,
    ),
    "",
    `Slowest case: ${int(slowest)} validations/s — a send validates its params once, so even the worst case costs ${fixed(1_000_000 / slowest, 0)} µs of a request.`,
  ].join("\n");
  writeSection("validator", markdown);
  console.log(markdown);
}

// Summarizes a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time
// and the most inclusive time, with their files, so a profile can be read without DevTools.
// Run: pnpm --filter @tidings/bench exec tsx src/profile-summary.ts FILE.cpuprofile [TOP]
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

const [file, topText] = process.argv.slice(2);
if (file === undefined) throw new Error("usage: profile-summary FILE.cpuprofile [TOP]");
const top = Number(topText ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as {
  nodes: ProfileNode[];
  samples: number[];
};
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const total = profile.samples.length;

const keyOf = (n: ProfileNode) => {
  const url = n.callFrame.url
    .replace(/^file:\/\//, "")
    .replace(/^.*\/node_modules\/\.pnpm\/[^/]+\/node_modules\//, "");
  const short = url.replace(/^.*\/packages\//, "packages/");
  return `${n.callFrame.functionName || "(anonymous)"} ${short}:${n.callFrame.lineNumber + 1}`;
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
function walk(node: ProfileNode, onStack: Set<string>): number {
  let sum = node.hitCount ?? 0;
  for (const child of node.children ?? [])
    sum += walk(byId.get(child)!, new Set([...onStack, keyOf(node)]));
  const key = keyOf(node);
  self.set(key, (self.get(key) ?? 0) + (node.hitCount ?? 0));
  // Recursion counts once.
  if (!onStack.has(key)) inclusive.set(key, (inclusive.get(key) ?? 0) + sum);
  return sum;
}
walk(profile.nodes[0]!, new Set());

const show = (title: string, map: Map<string, number>) => {
  console.log(`\n${title} (of ${total} samples)`);
  for (const [key, n] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((n / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
  }
};
show("self time", self);
show("inclusive time", inclusive);

import { readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

/** What a result was measured on, written above every section of RESULTS.md. */
export interface Machine {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  date: string;
}

/** The CPU model as /proc/cpuinfo names it (os.cpus() where /proc is missing). */
function cpuModel(): string {
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8")
      .split("\n")
      .find((l) => l.startsWith("model name"));
    if (line) return line.slice(line.indexOf(":") + 1).trim();
  } catch {
    // Not Linux: fall through to what Node reports.
  }
  return cpus()[0]?.model ?? "unknown";
}

/** The machine this process runs on. */
export function describeMachine(): Machine {
  return {
    cores: cpus().length,
    cpuModel: cpuModel(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    date: new Date().toISOString(),
  };
}

/** One Markdown line naming the machine, the Node version, the command and the date. */
export function machineLine(machine: Machine, command: string): string {
  return [
    `Machine: ${machine.cores} cores (\`nproc\`), ${machine.cpuModel}, ${machine.memoryGiB} GiB`,
    `Node ${machine.node}`,
    `command \`${command}\``,
    `date ${machine.date}`,
  ].join(" · ");
}
